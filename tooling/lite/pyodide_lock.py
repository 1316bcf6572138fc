"""The site's pyodide-lock.json: the pure-Python wheels its kernel may load, and nothing else.

Pyodide loads a package by its entry in this lock: the wheel's file (beside the lock), its
sha256, the names it can be imported as and the packages it needs first. The npm package
`pyodide` has the runtime but no package files, and its own lock points at a CDN the site must
never reach; so the site's lock lists only the wheels `make lite` downloaded and built, each
described from the wheel itself (its metadata, its files, its hash).
"""

import hashlib
import json
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

# What a requirement's markers are evaluated against: Pyodide's Python in the browser.
PYODIDE_ENVIRONMENT = {
    "implementation_name": "cpython",
    "os_name": "posix",
    "platform_machine": "wasm32",
    "platform_system": "Emscripten",
    "sys_platform": "emscripten",
    "extra": "",
}


@dataclass(frozen=True)
class WheelEntry:
    """One wheel as the lock describes it."""

    name: str
    version: str
    file_name: str
    sha256: str
    imports: tuple[str, ...]
    depends: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        """Return the entry in the shape of pyodide-lock.json's `packages` values."""
        return {
            "name": self.name,
            "version": self.version,
            "file_name": self.file_name,
            "install_dir": "site",
            "sha256": self.sha256,
            "package_type": "package",
            "imports": list(self.imports),
            "depends": list(self.depends),
            "unvendored_tests": False,
        }


def describe_wheel(path: Path, python_version: str, available: Iterable[str]) -> WheelEntry:
    """Describe the wheel at `path`: its name, hash, importable names and needed packages.

    Only requirements among `available` (canonical names) are kept as dependencies: a wheel
    the site does not ship (such as ipywidgets' front-end package, which JupyterLite serves
    itself) is not something the kernel can load anyway.
    """
    name, version, _build, _tags = parse_wheel_filename(path.name)
    with zipfile.ZipFile(path) as wheel:
        files = wheel.namelist()
        metadata_file = next(f for f in files if f.endswith(".dist-info/METADATA"))
        metadata = HeaderParser().parsestr(wheel.read(metadata_file).decode("utf-8"))
        top_level = next((f for f in files if f.endswith(".dist-info/top_level.txt")), None)
        listed = wheel.read(top_level).decode("utf-8").split() if top_level else []
    environment = {**PYODIDE_ENVIRONMENT, "python_version": python_version}
    wanted = set(available) - {canonicalize_name(name)}
    depends = []
    for line in metadata.get_all("Requires-Dist") or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.marker and not requirement.marker.evaluate(environment):
            continue
        dependency = canonicalize_name(requirement.name)
        if dependency in wanted and dependency not in depends:
            depends.append(dependency)
    return WheelEntry(
        name=canonicalize_name(name),
        version=str(version),
        file_name=path.name,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        imports=tuple(sorted(set(listed) or _top_level_names(files))),
        depends=tuple(sorted(depends)),
    )


def _top_level_names(files: Iterable[str]) -> set[str]:
    """Return the importable top-level names of a wheel without top_level.txt."""
    names = set()
    for file in files:
        first = file.split("/", 1)[0]
        if first.endswith((".dist-info", ".data")):
            continue
        if "/" in file or first.endswith(".py"):
            names.add(first.removesuffix(".py"))
    return names


def write_lock(
    runtime_lock: Path, wheels: Iterable[Path], target: Path, extra_depends: Mapping[str, str]
) -> dict[str, Any]:
    """Write the site's lock for `wheels`, keeping the runtime's `info`; return what was written.

    `extra_depends` adds a dependency a wheel does not declare (the course needs ipywidgets for
    its explorers, which a JupyterLab install brings by other means).
    """
    info = json.loads(runtime_lock.read_text(encoding="utf-8"))["info"]
    python_version = ".".join(str(info["python"]).split(".")[:2])
    wheels = sorted(wheels)
    available = [canonicalize_name(parse_wheel_filename(w.name)[0]) for w in wheels]
    entries = {}
    for wheel in wheels:
        entry = describe_wheel(wheel, python_version, available)
        extra = extra_depends.get(entry.name)
        if extra and extra not in entry.depends:
            entry = WheelEntry(**{**entry.__dict__, "depends": (*entry.depends, extra)})
        entries[entry.name] = entry.as_json()
    missing = sorted(
        {d for e in entries.values() for d in e["depends"]} - set(entries),
    )
    if missing:
        raise ValueError(f"the site's wheels need packages it does not ship: {missing}")
    lock = {"info": info, "packages": entries}
    target.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return lock
