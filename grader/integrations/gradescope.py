"""Gradescope: build the autograder zip that grades one submission inside Gradescope's image.

    python -m grader gradescope-bundle OUT.zip [--hidden-visibility after_due_date]

Gradescope unzips the bundle into /autograder/source, runs setup.sh once when it builds the
image, then for each submission puts the student's files in /autograder/submission, runs
run_autograder and reads /autograder/results/results.json. What runs there is
grader/integrations/gradescope_run.py; the instructor's choices made here travel in the bundle as
SETTINGS_FILE. The submission is graded by the same pipeline as `python -m grader grade`.
"""

import json
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.install.requirements import RUNTIME, locked_requirements
from grader.paths import GENERATED_CORPUS, HIDDEN_CONFIG, HIDDEN_TESTS, PROJECT_ROOT, REQUIREMENTS
from grader.sandbox.runtime import COURSE_DATA, COURSE_RUNTIME

TEMPLATES = Path(__file__).resolve().parent / "gradescope_files"
# What grading imports from the course: the assembly mechanism, the supplied names, the
# manifest and the visible checks (with the example tools they call). The lessons' widgets
# stay out of the bundle.
COURSE_FILES = (*COURSE_RUNTIME, *COURSE_DATA)
# pytest's reading of the hidden suite, for the project's own tests. Grading never runs pytest (a
# job calls each hidden test itself, grader/job/suite.py), so the bundle installs no pytest and
# carries neither file.
PYTEST_ONLY = tuple(
    path.relative_to(PROJECT_ROOT).as_posix()
    for path in (HIDDEN_CONFIG, HIDDEN_TESTS / "conftest.py")
)
SETTINGS_FILE = "gradescope-settings.json"
# What setup.sh grades to prove the image before any student submits: the reference must earn
# every point, and a submission that searches the disk for the hidden tests (and for this very
# reference) must earn no more than its honest twin. Root alone can read them, as the hidden tests.
SELFCHECK_FOLDER = "selfcheck"
SELFCHECK_FILES = {
    "reference.py": "fixtures/submissions/correct/reference.py",
    "searches-disk-for-hidden-tests.py": (
        "fixtures/submissions/adversarial/searches-disk-for-hidden-tests.py"
    ),
    "honest-twin.py": "fixtures/submissions/twins/searches-disk-for-hidden-tests.py",
}
# Gradescope's choices for when students see a test (its "Autograder Specifications").
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")
# How a bundle may shut student code in; never "auto", which would fall back without a word.
ISOLATIONS = ("bubblewrap", "process")
EXECUTABLE = 0o755
READ_ONLY = 0o644
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # a fixed date keeps the zip the same from build to build


@dataclass(frozen=True)
class BundleSettings:
    """The instructor's choices, stored in the bundle.

    `hidden_visibility` is when students see each hidden test (the upload checks are always
    visible); `isolation` is what grading requires: "bubblewrap", or "process" where Gradescope's
    image cannot run it (the hidden tests stay unreadable to student code either way).
    """

    hidden_visibility: str = "visible"
    isolation: str = "bubblewrap"

    def __post_init__(self) -> None:
        if self.hidden_visibility not in VISIBILITIES:
            raise ValueError(
                f"hidden test visibility {self.hidden_visibility!r} is not one of "
                f"{', '.join(VISIBILITIES)}"
            )
        if self.isolation not in ISOLATIONS:
            raise ValueError(f"isolation {self.isolation!r} is not one of {', '.join(ISOLATIONS)}")

    def to_json(self) -> str:
        """Return the settings as the text of SETTINGS_FILE."""
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def read(cls, source: Path) -> "BundleSettings":
        """Return the settings stored in the unpacked bundle `source` (defaults if none are)."""
        path = Path(source) / SETTINGS_FILE
        if not path.exists():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(**{key: data[key] for key in ("hidden_visibility", "isolation") if key in data})


def bundle_entries(project_root: str | Path = PROJECT_ROOT) -> list[tuple[str, Path, int]]:
    """Return (name in the zip, file on disk, mode) for each file copied into the bundle, sorted."""
    root = Path(project_root)
    entries = [
        ("setup.sh", TEMPLATES / "setup.sh", EXECUTABLE),
        ("run_autograder", TEMPLATES / "run_autograder", EXECUTABLE),
    ]
    entries += [(name, root / name, READ_ONLY) for name in COURSE_FILES]
    corpus = root / GENERATED_CORPUS.relative_to(PROJECT_ROOT)
    # The grader's modules, and the templates its reports are rendered with (package data).
    grading = [*(root / "grader").rglob("*.py"), *(root / "grader").rglob("*.j2"), corpus]
    for path in sorted(grading):
        name = path.relative_to(root).as_posix()
        if "__pycache__" not in path.parts and name not in PYTEST_ONLY:
            entries.append((name, path, READ_ONLY))
    for name, fixture in SELFCHECK_FILES.items():
        entries.append((f"{SELFCHECK_FOLDER}/{name}", root / fixture, READ_ONLY))
    return sorted(entries)


def grading_requirements(project_root: str | Path = PROJECT_ROOT) -> list[str]:
    """Return the pins of what grading needs: the grader's dependencies at the lock's versions."""
    folder = Path(project_root) / REQUIREMENTS.relative_to(PROJECT_ROOT)
    return locked_requirements(RUNTIME, folder)


def build_bundle(
    out_zip: str | Path,
    settings: BundleSettings = BundleSettings(),
    project_root: str | Path = PROJECT_ROOT,
) -> Path:
    """Write the Gradescope autograder zip to `out_zip`; return its path.

    setup.sh and run_autograder sit at the top of the zip, as Gradescope requires, beside
    requirements.txt (requirements/grader.txt's pins), the settings, the course and grader
    packages (hidden tests and report templates included) and the self-check's three
    submissions. Solutions, lessons, the other fixtures, the project's own tests and what only
    pytest reads are left out.
    """
    out_zip = Path(out_zip)
    out_zip.parent.mkdir(parents=True, exist_ok=True)
    requirements = "\n".join(grading_requirements(project_root)) + "\n"
    with zipfile.ZipFile(out_zip, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, path, mode in bundle_entries(project_root):
            _add(bundle, name, path.read_bytes(), mode)
        _add(bundle, "requirements.txt", requirements.encode("utf-8"), READ_ONLY)
        _add(bundle, SETTINGS_FILE, settings.to_json().encode("utf-8"), READ_ONLY)
    return out_zip


def _add(bundle: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
    info.compress_type = zipfile.ZIP_DEFLATED
    bundle.writestr(info, data)
