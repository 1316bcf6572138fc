"""`python -m course.package` zips the saved notebooks and says which steps are unfinished."""

import zipfile

from lesson_files import COURSE, exercise_cell, write_lesson, write_notebook

from course.package import main, package


def lesson_folder(root):
    folder = root / "lessons" / COURSE.assignment
    folder.mkdir(parents=True)
    write_lesson(folder)
    (folder / ".check-history.json").write_text("{}", encoding="utf-8")
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    return folder


def test_the_zip_holds_the_saved_notebooks_and_nothing_else(tmp_path):
    lesson_folder(tmp_path)
    target, lines = package(tmp_path)
    assert target == tmp_path / f"{COURSE.assignment}-submission.zip"
    with zipfile.ZipFile(target) as archive:
        names = archive.namelist()
    assert names == [f"{COURSE.assignment}/{step.notebook}" for step in COURSE.steps]
    assert all(line.startswith("✓") for line in lines)


def test_it_works_from_the_lesson_folder_itself_and_names_unfinished_steps(tmp_path):
    folder = lesson_folder(tmp_path)
    write_notebook(
        folder / COURSE.steps[1].notebook,
        [exercise_cell("failure-code", "def failure_code(e):\n    raise NotImplementedError()\n")],
    )
    _, lines = package(folder, tmp_path / "out.zip")
    assert lines[1].startswith("✗ Step 2 (02-failure-codes.ipynb): `failure_code` is not finished")


def test_the_same_notebooks_give_the_same_zip(tmp_path):
    lesson_folder(tmp_path)
    first = package(tmp_path, tmp_path / "a.zip")[0].read_bytes()
    assert package(tmp_path, tmp_path / "b.zip")[0].read_bytes() == first


def test_no_notebook_is_one_line_on_stderr_and_exit_1(tmp_path, capsys):
    assert main([str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: No notebook of the lesson was found")
    assert err.count("\n") == 1


def test_the_command_says_where_the_zip_is(tmp_path, capsys):
    lesson_folder(tmp_path)
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Your saved work, as the grader will read it:" in out
    assert f"Wrote {tmp_path / (COURSE.assignment + '-submission.zip')}" in out
