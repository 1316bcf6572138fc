"""Build the course's browser site into build/lite/: the handout's lessons on JupyterLite.

Everything the site needs is pinned and put in the site itself: the JupyterLite builder and the
widgets' front end (pyproject.toml's `lite` group, pinned in requirements/lite.txt, in an
environment of their own), the Pyodide runtime (the npm package, tooling/lite/package-lock.json,
which also pins the axe-core that the browser tests run and the site never carries), the wheels
its kernel loads (tooling/lite/kernel-wheels.txt, checked against their sha256) and the course as
a wheel that holds only `course/`. Downloads are kept under build/lite-cache/, so a second build
fetches nothing. The site is always built from scratch: JupyterLite's incremental build has been
seen to drop the Pyodide settings.
"""

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.install.requirements import group_file
from grader.paths import LESSONS, PROJECT_ROOT
from tooling.lite import pyodide_lock
from tooling.paths import assignment_name

HERE = Path(__file__).resolve().parent
STUDENT_FILES = HERE.parent / "student"
BUILD = PROJECT_ROOT / "build"
SITE = BUILD / "lite"
CACHE = BUILD / "lite-cache"
BUILD_VENV = BUILD / "lite-venv"
PYTHON_VERSION = "3.14"  # Pyodide 314's; the wheels are chosen for it
# The Pyodide runtime's files the site needs (the npm package also has docs, types and demos).
RUNTIME_FILES = (
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "pyodide.mjs",
    "pyodide.js",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
# The course's explorers need ipywidgets, which the handout installs from its requirements.
COURSE_NEEDS = {"bounded-results-lesson": "ipywidgets"}
KERNEL_SETTINGS = "@jupyterlite/pyodide-kernel-extension:kernel"
# The handout's pyproject installs JupyterLab's settings as data files; the site's kernel has no
# use for them (the site carries the same settings itself), so its wheel is `course/` alone.
DATA_FILES = "[tool.setuptools.data-files]"
# `<call>(<a>,<b>).value.then(` in coincident's minified code: a wait whose answer may be ready.
WAIT_THEN = re.compile(r"([A-Za-z_$][\w$]*\([\w$]+,[\w$]+\))\.value\.then\(")
ANSWERED = r'(v=>v&&typeof v.then=="function"?v:Promise.resolve(v))(\1.value).then('
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==(\S+)\s+--hash=sha256:([0-9a-f]{64})$")
# What the site's Pyodide kernel writes into a notebook's metadata once it starts: its kernelspec
# and the language_info of its kernel_info reply (jupyterlite-pyodide-kernel 0.8.6). A notebook
# holding anything else (the lessons hold ipykernel's "python3") is rewritten on open and shows
# as unsaved before the student did anything, so the site's copies hold these instead, and
# check_kernel_metadata stops the build when the built kernel would write something else.
LITE_KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
LITE_LANGUAGE_INFO = {
    "codemirror_mode": {"name": "python", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": "3.8",
}


@dataclass(frozen=True)
class PinnedWheel:
    """One line of kernel-wheels.txt: a package, its version and its wheel's sha256."""

    name: str
    version: str
    sha256: str


def run(command: Sequence[str | Path], cwd: Path | None = None) -> None:
    """Run a build command, showing its output; raise CalledProcessError if it fails."""
    subprocess.run([str(part) for part in command], check=True, cwd=cwd)


def digest(*paths: Path) -> str:
    """Return one sha256 of the files' contents, to know when an install is out of date."""
    total = hashlib.sha256()
    for path in paths:
        total.update(path.read_bytes())
    return total.hexdigest()


def build_environment() -> Path:
    """Make build/lite-venv with the pinned builder (again only when the pins change)."""
    requirements = group_file("lite")
    stamp = BUILD_VENV / ".installed"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == digest(requirements):
        return BUILD_VENV
    shutil.rmtree(BUILD_VENV, ignore_errors=True)
    run([sys.executable, "-m", "venv", BUILD_VENV])
    run([BUILD_VENV / "bin" / "python", "-m", "pip", "install", "-q", "-r", requirements])
    stamp.write_text(digest(requirements), encoding="utf-8")
    return BUILD_VENV


def npm_packages() -> Path:
    """Install the pinned npm packages under the cache (`npm ci`); return their node_modules.

    They are the Pyodide runtime, of which the site takes RUNTIME_FILES only, and axe-core, which
    tests/browser/test_reports_accessibility.py runs on the grader's pages and no site carries.
    """
    npm_dir = CACHE / "npm"
    manifests = [HERE / "package.json", HERE / "package-lock.json"]
    stamp = npm_dir / ".installed"
    if not (stamp.is_file() and stamp.read_text(encoding="utf-8") == digest(*manifests)):
        shutil.rmtree(npm_dir, ignore_errors=True)
        npm_dir.mkdir(parents=True)
        for manifest in manifests:
            shutil.copy2(manifest, npm_dir / manifest.name)
        run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=npm_dir)
        stamp.write_text(digest(*manifests), encoding="utf-8")
    return npm_dir / "node_modules"


def pyodide_runtime() -> Path:
    """Install the pinned npm packages under the cache; return the `pyodide` package's folder."""
    return npm_packages() / "pyodide"


def pinned_wheels(requirements: Path = HERE / "kernel-wheels.txt") -> list[PinnedWheel]:
    """Return the kernel's wheels as kernel-wheels.txt pins them; raise ValueError on a bad line."""
    pins = []
    for number, line in enumerate(requirements.read_text(encoding="utf-8").splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        match = PIN.match(text)
        if not match:
            raise ValueError(f"{requirements.name} line {number} is not `name==version --hash`")
        pins.append(PinnedWheel(*match.groups()))
    return pins


def kernel_wheels(folder: Path = CACHE / "wheels") -> list[Path]:
    """Download the pinned kernel wheels into `folder`, unless it already has them all."""
    pins = pinned_wheels()
    folder.mkdir(parents=True, exist_ok=True)
    if not all(_cached(folder, pin) for pin in pins):
        run(
            [
                BUILD_VENV / "bin" / "python",
                *("-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:"),
                *("--platform", "any", "--python-version", PYTHON_VERSION),
                *("--implementation", "py", "--require-hashes"),
                *("-r", HERE / "kernel-wheels.txt", "-d", folder),
            ]
        )
    found = [_cached(folder, pin) for pin in pins]
    missing = [pin.name for pin, path in zip(pins, found, strict=True) if path is None]
    if missing:
        raise RuntimeError(f"no wheel with the pinned hash was downloaded for: {missing}")
    return [path for path in found if path is not None]


def _cached(folder: Path, pin: PinnedWheel) -> Path | None:
    """Return the cached wheel of `pin` whose sha256 is the pinned one, or None."""
    prefix = re.sub(r"[-_.]+", "_", pin.name).lower() + "-" + pin.version + "-"
    for path in folder.glob("*.whl"):
        if path.name.lower().startswith(prefix) and digest(path) == pin.sha256:
            return path
    return None


def course_wheel(out_dir: Path) -> Path:
    """Build the course's wheel (only `course/`, as the handout installs it) into `out_dir`."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "source"
        ignored = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
        shutil.copytree(PROJECT_ROOT / "course", source / "course", ignore=ignored)
        project = (STUDENT_FILES / "pyproject.toml").read_text(encoding="utf-8")
        (source / "pyproject.toml").write_text(without_table(project, DATA_FILES), "utf-8")
        run(
            [
                BUILD_VENV / "bin" / "python",
                *("-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"),
                *("-w", out_dir, source),
            ]
        )
    [wheel] = out_dir.glob("bounded_results_lesson-*.whl")
    return wheel


def without_table(toml_text: str, header: str) -> str:
    """Return TOML text without the table `header` (and the comment lines just above it)."""
    lines = toml_text.splitlines(keepends=True)
    start = lines.index(header + "\n")
    while start and lines[start - 1].startswith("#"):
        start -= 1
    end = next(
        (i for i in range(lines.index(header + "\n") + 1, len(lines)) if lines[i].startswith("[")),
        len(lines),
    )
    return "".join(lines[:start] + lines[end:])


def lite_source(folder: Path, runtime: Path, wheels: Sequence[Path]) -> None:
    """Lay out JupyterLite's input in `folder`: its settings, the runtime, the lessons."""
    pyodide_dir = folder / "static" / "pyodide"
    pyodide_dir.mkdir(parents=True)
    for name in RUNTIME_FILES:
        shutil.copy2(runtime / name, pyodide_dir / name)
    for wheel in wheels:
        shutil.copy2(wheel, pyodide_dir / wheel.name)
    lock = pyodide_dir / "pyodide-lock.json"
    pyodide_lock.write_lock(runtime / "pyodide-lock.json", wheels, lock, COURSE_NEEDS)
    config = json.loads((HERE / "jupyter-lite.json").read_text(encoding="utf-8"))
    (folder / "jupyter-lite.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    shutil.copy2(STUDENT_FILES / "overrides.json", folder / "overrides.json")
    files = folder / "files"
    files.mkdir()
    notebooks = [
        *sorted((LESSONS / assignment_name()).glob("*.ipynb")),
        STUDENT_FILES / "hand-in.ipynb",
    ]
    for notebook in notebooks:
        copy_for_the_site(notebook, files / notebook.name)


def copy_for_the_site(notebook: Path, target: Path) -> None:
    """Copy `notebook` to `target` with the kernel metadata the site's kernel writes.

    The committed notebooks keep ipykernel's, which desktop JupyterLab and nbgrader use.
    """
    content = json.loads(notebook.read_text(encoding="utf-8"))
    content["metadata"]["kernelspec"] = LITE_KERNELSPEC
    content["metadata"]["language_info"] = LITE_LANGUAGE_INFO
    text = json.dumps(content, indent=1, ensure_ascii=False) + "\n"
    target.write_text(text, encoding="utf-8")


def build_site(site: Path = SITE) -> Path:
    """Build the whole site into `site` (replacing it); return its folder."""
    build_environment()
    runtime = pyodide_runtime()
    with tempfile.TemporaryDirectory(dir=BUILD) as scratch:
        work = Path(scratch)
        (work / "course-wheel").mkdir()
        wheels = [*kernel_wheels(), course_wheel(work / "course-wheel")]
        source = work / "source"
        lite_source(source, runtime, wheels)
        output = work / "site"
        run(
            [
                BUILD_VENV / "bin" / "jupyter",
                *("lite", "build", "--lite-dir", source, "--output-dir", output),
                *("--contents", source / "files", "--apps", "lab", "--no-sourcemaps"),
                "--no-unused-shared-packages",
            ],
            cwd=source,
        )
        shutil.copy2(HERE / "serve.py", output / "serve.py")
        patch_synchronous_waits(output)
        check_settings(output)
        check_kernel_metadata(output)
        shutil.rmtree(site, ignore_errors=True)
        shutil.move(output, site)
    return site


def patch_synchronous_waits(site: Path) -> int:
    """Make the kernel's cross-thread calls survive an answer that is already there; return count.

    With cross-origin isolation (serve.py's headers) the Pyodide kernel's worker and the page
    call each other synchronously through the `coincident` library, which waits for an answer
    with `Atomics.waitAsync(...).value.then(...)`. When the answer is already there,
    `waitAsync` answers at once with a plain string, `.then` is not a function, and the call
    never returns: the kernel hangs Busy (seen about one start or Run All in four here). Wrapped
    so that a plain value becomes a resolved promise (and its own synchronous stand-in, which
    has a `then`, is left as it is), an answer already there is taken at once. Raise
    RuntimeError when the bundled code no longer has the pattern (a new version: look again).
    """
    static = site / "extensions" / "@jupyterlite" / "pyodide-kernel-extension" / "static"
    patched = 0
    for script in sorted(static.glob("*.js")):
        text = script.read_text(encoding="utf-8")
        fixed, count = WAIT_THEN.subn(ANSWERED, text)
        if count:
            script.write_text(fixed, encoding="utf-8")
            patched += count
    if patched == 0:
        raise RuntimeError("the Pyodide kernel's coincident waits were not found to patch")
    return patched


def check_settings(site: Path) -> None:
    """Raise RuntimeError unless the built site runs its kernel on its own Pyodide, offline."""
    config = json.loads((site / "jupyter-lite.json").read_text(encoding="utf-8"))
    settings = config["jupyter-config-data"]["litePluginSettings"].get(KERNEL_SETTINGS, {})
    url = settings.get("pyodideUrl", "")
    if not url.startswith("./") or not (site / url).is_file():
        raise RuntimeError(f"the site's kernel would load Pyodide from {url or 'its CDN'}")
    if settings.get("disablePyPIFallback") is not True:
        raise RuntimeError("the site's kernel would fall back to PyPI for a missing package")


def check_kernel_metadata(site: Path) -> None:
    """Raise RuntimeError unless the built kernel writes LITE_KERNELSPEC and LITE_LANGUAGE_INFO.

    Both are literals in the kernel extension's minified code; a new version that writes other
    values would again mark every notebook unsaved on open.
    """
    static = site / "extensions" / "@jupyterlite" / "pyodide-kernel-extension" / "static"
    code = "".join(script.read_text(encoding="utf-8") for script in sorted(static.glob("*.js")))
    # The registered spec goes on with more keys (argv, resources): its start is compared.
    spec = "spec:" + js_literal(LITE_KERNELSPEC).removesuffix("}") + ","
    language = "language_info:" + js_literal(LITE_LANGUAGE_INFO)
    for expected in (spec, language):
        if expected not in code:
            raise RuntimeError(f"the site's kernel no longer writes {expected}: update build.py")


def js_literal(value: object) -> str:
    """Return `value` (JSON data) as minified JavaScript writes it: keys unquoted, no spaces."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{key}:{js_literal(item)}" for key, item in value.items()) + "}"
    return json.dumps(value)
