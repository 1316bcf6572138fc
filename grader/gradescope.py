"""Gradescope: build the autograder zip, and grade one submission inside Gradescope's image.

    python -m grader gradescope-bundle OUT.zip    build the zip to upload (see build_bundle)
    python -m grader.gradescope [ROOT]            what run_autograder runs for each submission

Gradescope unzips the bundle into /autograder/source, runs setup.sh once when it builds the
image, then for each submission puts the student's files in /autograder/submission, runs
run_autograder and reads /autograder/results/results.json. The submission is graded by the
same pipeline as `python -m grader grade`, so its results.json is the one the standalone grader
writes for that student.
"""

import sys
import zipfile
from pathlib import Path

from course.assemble import load_course
from grader.discover import Found
from grader.job import HIDDEN_CONFIG
from grader.model import Submission
from grader.pipeline import grade_submissions, load_safely
from grader.report import results_json, write_atomically
from grader.run import RunSettings
from grader.sandbox.cleanup import temporary_folder
from grader.sandbox.containment import COURSE_RUNTIME

PROJECT_ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "gradescope_files"
DEFAULT_ROOT = Path("/autograder")
# What grading imports from the course: the assembly mechanism, the supplied names and the
# manifest. The lessons' checks, widgets and example tools stay out of the bundle.
COURSE_FILES = (*COURSE_RUNTIME, "course/steps.toml")
# The only packages grading needs beyond the standard library; their pins come from
# requirements.txt, so the bundle installs the versions the tests ran with.
GRADING_PACKAGES = ("pytest", "pyseccomp")
EXECUTABLE = 0o755
READ_ONLY = 0o644
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # a fixed date keeps the zip the same from build to build
STUDENT = "submission"
# Gradescope's image is shared by no one else, and a slow container should not cost points.
SETTINGS = RunSettings(jobs=1, timeout=30.0)
NOTHING_FOUND = (
    "No lesson notebook or .py file was found in your submission. Upload your saved notebooks "
    "01 to 07 from lessons/bounded_results (or one .py file that defines invoke_tool) and "
    "submit again."
)


def bundle_entries(project_root=PROJECT_ROOT):
    """Return (name in the zip, file on disk, mode) for everything the bundle holds, sorted."""
    root = Path(project_root)
    entries = [
        ("setup.sh", TEMPLATES / "setup.sh", EXECUTABLE),
        ("run_autograder", TEMPLATES / "run_autograder", EXECUTABLE),
    ]
    entries += [(name, root / name, READ_ONLY) for name in COURSE_FILES]
    grading = [*(root / "grader").rglob("*.py"), root / HIDDEN_CONFIG.relative_to(PROJECT_ROOT)]
    for path in sorted(grading):
        if "__pycache__" not in path.parts:
            entries.append((path.relative_to(root).as_posix(), path, READ_ONLY))
    return sorted(entries)


def grading_requirements(project_root=PROJECT_ROOT):
    """Return the requirements.txt lines of the packages grading needs, pins included."""
    lines = (Path(project_root) / "requirements.txt").read_text(encoding="utf-8").splitlines()
    wanted = []
    for line in lines:
        name = line.split("#", 1)[0].strip().split("==", 1)[0].strip().lower()
        if name in GRADING_PACKAGES:
            wanted.append(line.strip())
    return wanted


def build_bundle(out_zip, project_root=PROJECT_ROOT):
    """Write the Gradescope autograder zip to `out_zip`; return its path.

    setup.sh and run_autograder sit at the top of the zip, as Gradescope requires, beside
    requirements.txt and the course and grader packages (hidden tests included). Solutions,
    lessons, fixtures and the project's own tests are left out.
    """
    out_zip = Path(out_zip)
    out_zip.parent.mkdir(parents=True, exist_ok=True)
    requirements = "\n".join(grading_requirements(project_root)) + "\n"
    with zipfile.ZipFile(out_zip, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, path, mode in bundle_entries(project_root):
            _add(bundle, name, path.read_bytes(), mode)
        _add(bundle, "requirements.txt", requirements.encode("utf-8"), READ_ONLY)
    return out_zip


def _add(bundle, name, data, mode):
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
    info.compress_type = zipfile.ZIP_DEFLATED
    bundle.writestr(info, data)


def find_student_work(folder, course=None):
    """Return a Found for the student's work in Gradescope's submission folder, or None.

    Students upload their lessons folder, some of its notebooks, one notebook or a .py file,
    and Gradescope keeps whatever folders they uploaded. A folder of lesson notebooks is
    preferred, then a notebook, then a .py file; the shallowest, then the first by name, wins.
    """
    course = course or load_course()
    folder = Path(folder)
    if not folder.is_dir():
        return None
    folders = sorted(
        (p for p in [folder, *folder.rglob("*")] if p.is_dir() and _visible(p, folder)),
        key=lambda p: (len(p.parts), p.as_posix()),
    )
    for candidate in folders:
        if any((candidate / step.notebook).is_file() for step in course.steps):
            return Found(STUDENT, candidate, "lessons")
    for suffix, kind in ((".ipynb", "notebook"), (".py", "python")):
        files = sorted(
            (p for p in folder.rglob(f"*{suffix}") if p.is_file() and _visible(p, folder)),
            key=lambda p: (len(p.parts), p.as_posix()),
        )
        if files:
            return Found(STUDENT, files[0], kind)
    return None


def _visible(path, top):
    """Say whether `path` is worth grading: no hidden, checkpoint or macOS metadata part."""
    parts = path.relative_to(top).parts
    return not any(part.startswith((".", "_")) for part in parts)


def autograde(root=DEFAULT_ROOT):
    """Grade root/submission and write root/results/results.json; return the Grade."""
    root = Path(root)
    course = load_course()
    found = find_student_work(root / "submission", course)
    if found is None:
        submission = Submission(
            STUDENT, str(root / "submission"), "lessons", units=(), error=NOTHING_FOUND
        )
    else:
        submission = load_safely(found, course)
    with temporary_folder("gradescope-") as work:
        [grade] = grade_submissions([submission], work, SETTINGS)
        try:
            results = (work / STUDENT / "results.json").read_text(encoding="utf-8")
        except OSError:
            # The pipeline could not write the file; the grade it returned still says why.
            results = results_json(grade, course)
    write_atomically(root / "results" / "results.json", results)
    return grade


def main(argv=None):
    """Grade the submission under the root given (default /autograder); return the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0]) if argv else DEFAULT_ROOT
    grade = autograde(root)
    # Gradescope shows this output to instructors only, to debug a run.
    print(f"Graded {grade.run.submission.path}: {grade.score:.2f} out of {grade.max_score:.2f}")
    print(f"Run status: {grade.run.status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
