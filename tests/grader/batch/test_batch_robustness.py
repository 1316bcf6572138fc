"""One student's submission never stops or corrupts the batch.

Cleanup cannot fail, whatever a student left behind; a student id that would mix files with the
class's is refused in one line; whatever fails on one student becomes that student's "error"
result while the others are graded; and a job that dies leaves its log in the output folder.
"""

import contextlib
import csv
import io
import json
import os
import resource
import shutil
import signal
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from dying_job import make_jobs_die
from grade_builders import grade_for
from grader_cli import read_grades, run_grader
from process_trees import SLOW_WRAPPER, ProcessTree, wait_for

from grader import cli, pipeline, recording
from grader.batch import dispatch, run
from grader.intake import ids
from grader.intake.discover import student_id
from grader.outputs import LOG_FOLDER
from grader.paths import SUBMISSIONS
from grader.pipeline import find_submissions, load_safely
from grader.reports import class_report, grade_files, spreadsheet
from grader.sandbox.cleanup import remove_tree, temporary_folder

pytestmark = []

REFERENCE = SUBMISSIONS / "correct" / "reference.py"

NOBODY = 65534  # a user whom permissions bind, unlike root
DEPTH = 3000  # deeper than shutil.rmtree can go in Python 3.11
FEW_FILES = 64  # open files allowed while removing the deep tree: depth must not cost any


# ---- helpers ---------------------------------------------------------------------------------


def in_child(function, *, unprivileged=True, open_files=None):
    """Run `function()` in a forked child, as NOBODY when this is root; return what it returns.

    The child's return value comes back as JSON; a child that raised returns {"raised": name}.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_end)
        try:
            if open_files is not None:
                _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
                resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, hard))
            if unprivileged and os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            try:
                answer = {"returned": function()}
            except BaseException as error:
                answer = {"raised": type(error).__name__}
            os.write(write_end, json.dumps(answer).encode("utf-8"))
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        data = stream.read()
    os.waitpid(pid, 0)
    return json.loads(data)


@pytest.fixture
def shared_tmp():
    """A folder the unprivileged child may use: owned by it when this is root."""
    # Outside pytest's tmp_path, whose parents only root may enter.
    folder = Path(tempfile.mkdtemp(prefix="grader-batch-test-"))
    folder.chmod(0o755)
    if os.geteuid() == 0:
        os.chown(folder, NOBODY, NOBODY)
    yield folder
    remove_tree(folder)  # as this process: root, or the owner
    assert not folder.exists()


def own_tree(folder):
    """Give every entry under `folder` to NOBODY when this is root, as a student's files are."""
    if os.geteuid() != 0:
        return
    for place in [folder, *folder.rglob("*")]:
        os.chown(place, NOBODY, NOBODY, follow_symlinks=False)


def make_deep_tree(top, depth=DEPTH):
    """Make `depth` nested folders under `top`, each holding a file, without long paths."""
    top.mkdir()
    folder = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=folder)
        handle = os.open("file", os.O_WRONLY | os.O_CREAT, dir_fd=folder)
        os.write(handle, b"x")
        os.close(handle)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
        os.close(folder)
        folder = inner
    os.close(folder)


def write_class(folder, names, source=None):
    """Write one .py submission per name into `folder` (the reference by default); return it."""
    folder.mkdir(parents=True, exist_ok=True)
    text = source or REFERENCE.read_text(encoding="utf-8")
    for name in names:
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    return folder


def results_output(out, student):
    return json.loads((out / student / "results.json").read_text(encoding="utf-8"))["output"]


# ---- 1. cleanup never fails ------------------------------------------------------------------


def test_remove_tree_removes_a_tree_too_deep_for_shutil_and_needs_few_open_files(shared_tmp):
    # Not under tmp_path: were it left behind, pytest's own cleanup would fail on it later.
    top = shared_tmp / "deep"
    make_deep_tree(top)
    with pytest.raises(RecursionError):
        shutil.rmtree(top)  # what the grader used to do: the tree is deep enough to matter
    assert top.is_dir()
    answer = in_child(lambda: remove_tree(top), unprivileged=False, open_files=FEW_FILES)
    assert answer == {"returned": None}
    assert not top.exists()


def test_remove_tree_gives_back_rights_a_student_took_away(shared_tmp):
    top = shared_tmp / "scratch"
    (top / "locked" / "inner").mkdir(parents=True)
    (top / "locked" / "inner" / "notes.txt").write_text("x", encoding="utf-8")
    (top / "locked" / "file.txt").write_text("x", encoding="utf-8")
    (top / "read-only").mkdir()
    (top / "read-only" / "file.txt").write_text("x", encoding="utf-8")
    own_tree(top)
    (top / "locked" / "inner").chmod(0)
    (top / "locked").chmod(0)
    (top / "read-only").chmod(0o500)
    top.chmod(0)
    # As a user that permissions bind, so that chmod 000 really locks the folders.
    assert in_child(lambda: remove_tree(top)) == {"returned": None}
    assert not top.exists()


def test_remove_tree_removes_links_and_never_what_they_point_to(tmp_path):
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "folder" / "keep.txt").write_text("keep", encoding="utf-8")
    (outside / "keep.txt").write_text("keep", encoding="utf-8")
    top = tmp_path / "scratch"
    (top / "sub").mkdir(parents=True)
    (top / "to-folder").symlink_to(outside / "folder")
    (top / "sub" / "to-file").symlink_to(outside / "keep.txt")
    (top / "sub" / "to-parent").symlink_to(tmp_path)
    (top / "dangling").symlink_to(tmp_path / "nowhere")
    link = tmp_path / "link-to-outside"
    link.symlink_to(outside)
    remove_tree(top)
    remove_tree(link)  # the link alone goes
    assert not top.exists()
    assert not link.is_symlink()
    assert (outside / "folder" / "keep.txt").read_text(encoding="utf-8") == "keep"
    assert (outside / "keep.txt").read_text(encoding="utf-8") == "keep"


def test_remove_tree_returns_quietly_on_what_it_cannot_remove(shared_tmp, tmp_path, capfd):
    assert remove_tree(tmp_path / "missing" / "deeper") is None
    theirs = shared_tmp / "not-mine"
    (theirs / "inner").mkdir(parents=True)
    if os.geteuid() == 0:
        os.chown(theirs / "inner", 0, 0)  # root's: the unprivileged child may not enter it
    (theirs / "inner").chmod(0)
    answer = in_child(lambda: remove_tree(theirs))
    assert answer == {"returned": None}  # no exception, however little it could do
    assert capfd.readouterr() == ("", "")  # and nothing logged
    if os.geteuid() == 0:
        assert (theirs / "inner").is_dir()  # root's folder stays, as it must
        (theirs / "inner").chmod(0o755)


def test_temporary_folder_is_removed_whatever_is_left_in_it():
    with temporary_folder("grader-test-") as folder:
        make_deep_tree(folder / "deep", depth=1500)
        (folder / "deep").chmod(0)
    assert not folder.exists()


# ---- 2. student ids that would collide with the class's files --------------------------------


def test_ids_naming_the_class_files_or_paths_or_differing_by_case_are_refused():
    safe = ["ada", "grades", "report", "grace.hopper", "linus-t", "jöns"]
    unsafe = ["grades.csv", "REPORT.HTML", "logs", "grades-moodle.csv", ".resume", "..", ".", ""]
    unsafe += ["a/b", "a\\b", "tab\there", "Bob", "bob", "cafe\u0301", "café"]
    unsafe += ["=HYPERLINK(1)", "+1", "-1", "@SUM(1)"]
    refused = ids.refusals([*safe, *unsafe])
    assert sorted(refused) == sorted(unsafe)
    for reason in refused.values():
        assert reason.startswith("Not graded: its student id ")
        assert "\n" not in reason and reason.endswith("grade again.")
    assert "'bob'" in refused["Bob"]
    assert "(grades.csv)" in refused["grades.csv"]
    assert student_id(os.fsdecode(b"caf\xe9")) == "caf\\xe9"  # printable, and refused


@pytest.fixture(scope="module")
def colliding_class(tmp_path_factory):
    """A class whose file names collide with the grader's own files in every way there is."""
    root = tmp_path_factory.mktemp("colliding")
    folder = write_class(root / "class", ["ada"])
    for name in ("grades.csv", "LOGS", "Timings.JSON", "grades-canvas.csv", "Bob", "bob"):
        (folder / f"{name}.py").write_text("x = 1\n", encoding="utf-8")
    (folder / "report.html.ipynb").write_text('{"cells": []}', encoding="utf-8")
    (folder / "tab\there.py").write_text("x = 1\n", encoding="utf-8")
    for formula in FORMULAS:
        (folder / f"{formula}.py").write_text("x = 1\n", encoding="utf-8")
    (folder / f"{MARKUP}.py").write_text("x = 1\n", encoding="utf-8")
    with open(os.path.join(os.fsencode(folder), b"caf\xe9.py"), "w", encoding="utf-8") as file:
        file.write("x = 1\n")
    # Children starting with a dot are skipped; named on the command line, they are not.
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    for name in ("...py", ".resume.py"):
        (elsewhere / name).write_text("x = 1\n", encoding="utf-8")
    out = root / "run" / "out"
    paths = [folder, elsewhere / "...py", elsewhere / ".resume.py"]
    completed = run_grader("grade", *paths, "--out", out, "--lms", "canvas")
    return root, out, completed


FORMULAS = ('=HYPERLINK("example.com","click")', "@SUM(1+1)", "+1", "-2")
MARKUP = "<img src=x onerror=alert(1)>"
REFUSED = {
    *FORMULAS,
    "grades.csv",
    "report.html",
    "LOGS",
    "Timings.JSON",
    "grades-canvas.csv",
    "Bob",
    "bob",
    "tab\there",
    "caf\\xe9",
    "..",
    ".resume",
}


@pytest.mark.bwrap
def test_refused_ids_are_rows_with_status_error_and_the_class_files_stay_whole(colliding_class):
    root, out, completed = colliding_class
    assert completed.returncode == 0, completed.stderr
    grades = read_grades(out)
    # In the CSV files a formula id is shown as text: a quote before it.
    assert set(grades) == {spreadsheet.as_data(s) for s in REFUSED} | {"ada", MARKUP}
    assert grades["ada"]["score"] == grades["ada"]["max_score"]
    for student in map(spreadsheet.as_data, REFUSED):
        assert grades[student]["status"] == "error"
        assert float(grades[student]["score"]) == 0
    assert (out / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    with (out / "grades-canvas.csv").open(encoding="utf-8", newline="") as stream:
        canvas = list(csv.reader(stream))
    assert len(canvas) == 2 + len(grades)
    assert json.loads((out / "timings.json").read_text(encoding="utf-8")).keys() == REFUSED | {
        "ada",
        MARKUP,
    }
    # Only ada has a folder; nothing was written for a refused id, in the folder or beside it.
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == [".resume", MARKUP, "ada"]
    # ...and the run's own record (its hidden tests), whose name no student id can take.
    assert sorted(p.name for p in (out / ".resume").iterdir()) == [
        ".facts.json",
        f"{MARKUP}.json",
        "ada.json",
    ]
    assert sorted(root.rglob("results.json")) == [
        out / MARKUP / "results.json",
        out / "ada" / "results.json",
    ]
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]


@pytest.mark.bwrap
def test_no_cell_of_any_csv_file_is_a_formula_and_the_page_shows_markup_as_text(
    colliding_class,
):
    _, out, _ = colliding_class
    for name in ("grades.csv", "item-analysis.csv", "grades-canvas.csv"):
        with (out / name).open(encoding="utf-8", newline="") as stream:
            cells = [cell for row in csv.reader(stream) for cell in row]
        assert "'" + FORMULAS[0] in cells, name
        assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@"))], name
    page = (out / "report.html").read_text(encoding="utf-8")
    assert MARKUP not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


@pytest.mark.bwrap
def test_each_refused_submission_is_one_line_of_the_summary(colliding_class):
    _, _, completed = colliding_class
    lines = [line for line in completed.stdout.splitlines() if "Not graded:" in line]
    assert len(lines) == len(REFUSED)
    for name in ("grades.csv.py", "report.html.ipynb", "LOGS.py", "...py", ".resume.py"):
        assert sum(name in line for line in lines) == 1, name
    assert all(
        line.endswith("rename the submission to the student's login and grade again.")
        for line in lines
    )


# ---- 3. whatever fails on one student is that student's result -------------------------------


@pytest.fixture(scope="module")
def failing_steps(tmp_path_factory):
    """Grade six students in process, with a different step made to fail for four of them."""
    monkeypatch = pytest.MonkeyPatch()
    folder = write_class(tmp_path_factory.mktemp("steps") / "class", "abcdef")
    out = folder.parent / "out"
    real_load, real_score, real_write, real_result = (
        pipeline.load,
        recording.score,
        grade_files.write_student,
        run._result,
    )

    def load(found, course=None):
        if found.student == "b":
            raise RecursionError("injected while loading")
        return real_load(found, course)

    def score(result, hidden_tests=None):
        if result.submission.student == "c" and result.status != "error":
            raise ZeroDivisionError("injected while scoring")
        return real_score(result, hidden_tests)

    def write_student(grade, out_dir, course=None, notes=()):
        if grade.run.submission.student == "d":
            raise OSError("injected while writing")
        return real_write(grade, out_dir, course, notes)

    def result(submission, path):
        if submission.student == "e":
            raise KeyError("outcomes")
        return real_result(submission, path)

    for target, name, replacement in [
        (pipeline, "load", load),
        (recording, "score", score),
        (grade_files, "write_student", write_student),
        (run, "_result", result),
    ]:
        monkeypatch.setattr(target, name, replacement)
    try:
        captured = _capture(lambda: cli.main(["grade", str(folder), "--out", str(out)]))
    finally:
        monkeypatch.undo()
    return out, captured


def _capture(call):
    """Run `call`; return its value and what it printed on stdout (stderr is dropped)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
        value = call()
    return value, printed.getvalue()


@pytest.mark.bwrap
def test_one_failing_step_per_student_leaves_the_others_graded_and_both_files(failing_steps):
    out, (code, _stdout) = failing_steps
    assert code == 0
    grades = read_grades(out)
    assert sorted(grades) == list("abcdef")
    for student in "af":
        assert grades[student]["score"] == grades[student]["max_score"]
        assert grades[student]["status"] == "completed"
    for student in "bcde":
        assert grades[student]["status"] == "error", student
        assert float(grades[student]["score"]) == 0
    assert (out / "grades.csv").is_file()
    assert "6 students graded" in (out / "report.html").read_text(encoding="utf-8")
    assert not (out / LOG_FOLDER).exists()  # no job died


@pytest.mark.bwrap
def test_a_failed_student_gets_a_plain_reason_and_the_instructor_one_line(failing_steps):
    out, (_code, stdout) = failing_steps
    for student, words in [
        ("b", "while reading your submission (RecursionError)"),
        ("c", "while reporting on your submission (ZeroDivisionError)"),
        ("e", "failed to read the result of testing your code"),
    ]:
        output = results_output(out, student)
        assert words in output, output
        assert "not your fault" in output
        assert "Traceback" not in output and "injected" not in output
    # d's files could not be written at all: none is left to contradict its row.
    assert not (out / "d" / "results.json").exists()
    for student in "bcde":
        assert sum(f"'{student}'" in line for line in stdout.splitlines()) == 1, stdout
    assert "OSError: injected while writing" in stdout


def test_a_result_the_class_report_cannot_show_is_shown_as_an_error(tmp_path):
    good = grade_for("ada", ["passed"] * 4)
    broken = replace(grade_for("zed", ["passed"] * 4), score=None)  # no page can show it
    with pytest.raises(TypeError):
        class_report.class_report_html([good, broken])
    page = class_report.write_class_report([good, broken], tmp_path).read_text(encoding="utf-8")
    assert "2 students graded" in page
    assert "<td>zed</td><td>the run stopped: could not run</td>" in page


def test_a_student_folder_nobody_may_read_is_that_students_result(shared_tmp):
    folder = write_class(shared_tmp / "class", ["ada"])
    (folder / "locked").mkdir()
    (folder / "locked" / "01.ipynb").write_text("{}", encoding="utf-8")
    own_tree(folder)
    (folder / "locked").chmod(0)

    def discover():
        found = find_submissions([folder], shared_tmp / "out")
        return [[s.student, s.error] for s in map(load_safely, found)]

    answer = in_child(discover)
    (folder / "locked").chmod(0o755)
    assert answer["returned"][0] == ["ada", None]
    assert answer["returned"][1] == ["locked", "locked could not be opened (PermissionError)."]


# ---- 4. a job that dies leaves its log --------------------------------------------------------


@pytest.mark.bwrap
def test_a_killed_job_leaves_its_log_and_a_new_job_grades_what_it_left(monkeypatch, tmp_path):
    slow = REFERENCE.read_text(encoding="utf-8") + SLOW_WRAPPER
    folder = write_class(tmp_path / "class", ["a-quick"])
    write_class(folder, ["b-slow"], source=slow)
    out = tmp_path / "out"
    real_run_job = dispatch.run_job
    trees = []

    def run_job_then_kill_it(arguments, log_path, notify_fd=None, core=None):
        process = real_run_job(arguments, log_path, notify_fd, core)
        if arguments[0] != "--list" and not trees:  # only the first job is killed
            trees.append(ProcessTree(process.pid))
            first = log_path.parent / "results" / "0.json"

            def kill_after_first_result():
                wait_for(lambda: first.exists() or process.poll() is not None, 120)
                process.send_signal(signal.SIGKILL)

            threading.Thread(target=kill_after_first_result, daemon=True).start()
        return process

    monkeypatch.setattr(dispatch, "run_job", run_job_then_kill_it)
    try:
        code, stdout = _capture(
            lambda: cli.main(["grade", str(folder), "--out", str(out), "--timeout", "120"])
        )
        for tree in trees:
            wait_for(lambda tree=tree: not tree.running(), 30)  # the worker went with its job
    finally:
        for tree in trees:
            tree.stop()
    assert code == 0
    log = out / LOG_FOLDER / "job-0.log"
    assert log.is_file()
    line = "Job 0 was killed by SIGKILL before grading 1 of its students, a new job grades them; "
    assert any(said.startswith(f"{line}its log is {log}.") for said in stdout.splitlines())
    grades = read_grades(out)
    for student in ("a-quick", "b-slow"):
        assert grades[student]["status"] == "completed"
        assert grades[student]["score"] == grades[student]["max_score"]
    assert (out / "report.html").is_file()


@pytest.mark.bwrap
def test_a_job_that_fails_keeps_what_it_printed_in_its_log(monkeypatch, tmp_path):
    make_jobs_die(monkeypatch, tmp_path, last_words="the last words of the job")
    folder = write_class(tmp_path / "class", ["a", "b"])
    out = tmp_path / "out"
    code, stdout = _capture(lambda: cli.main(["grade", str(folder), "--out", str(out)]))
    assert code == 0
    log = out / LOG_FOLDER / "job-0.log"
    assert "the last words of the job" in log.read_text(encoding="utf-8")
    assert "Job 0 ended with exit code 9 before grading 1 of its students" in stdout
    # The note itself quotes the log's last line, so the reason reaches whoever reads it first.
    assert f"its log is {log}. It ends: the last words of the job" in stdout
    # The new job, which graded "b", died too, after its last student: its log is kept as well.
    again = out / LOG_FOLDER / "job-0-again-1.log"
    assert f"Job 0 (started again) ended with exit code 9; its log is {again}." in stdout
    assert read_grades(out)["b"]["status"] == "completed"
