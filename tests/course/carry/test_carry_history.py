"""The record of what each kernel last checked: compared with the saved file, never trusted more."""

from builders import COURSE, exercise_cell, write_notebook

from course.carry.assemble import read_step
from course.carry.history import (
    HISTORY_FILE,
    read_history,
    record_check,
    saved_digest,
    saved_holds,
    unsaved_note,
)

pytestmark = []

STEP_4 = COURSE.steps[3]
SAVED = "def budget_error(text, budget):\n    return None\n"


def saved_step(folder, source=SAVED):
    write_notebook(folder / STEP_4.notebook, [exercise_cell("budget-error", source)])
    return read_step(folder, STEP_4)


def test_a_check_is_recorded_with_its_source_and_outcome(tmp_path):
    record_check("budget_error", SAVED, True, tmp_path)
    record_check("encode_json", "def encode_json(v): ...", False, tmp_path)
    history = read_history(tmp_path)
    assert history["budget_error"]["source"] == SAVED
    assert history["budget_error"]["passed"] is True
    assert history["encode_json"]["passed"] is False
    assert [p.name for p in tmp_path.iterdir()] == [HISTORY_FILE]  # no temporary file left


def test_saved_holds_ignores_trailing_spaces_and_blank_lines():
    work_cells = [exercise_cell("budget-error", "x = 1\n\n" + SAVED.replace("None", "None   "))]
    work_cells = [type("Cell", (), {"source": cell["source"]}) for cell in work_cells]
    assert saved_holds(SAVED, work_cells)
    assert not saved_holds(SAVED.replace("None", "'too_large'"), work_cells)


def test_no_note_without_a_record_or_when_the_saved_file_holds_the_version(tmp_path):
    work = saved_step(tmp_path)
    assert unsaved_note("budget_error", STEP_4, work.cells, tmp_path) == ""
    record_check("budget_error", SAVED, True, tmp_path)
    assert unsaved_note("budget_error", STEP_4, work.cells, tmp_path) == ""


def test_a_checked_version_the_saved_file_lacks_gets_a_note_saying_to_save(tmp_path):
    work = saved_step(
        tmp_path, "def budget_error(text, budget):\n    raise NotImplementedError()\n"
    )
    record_check("budget_error", SAVED, False, tmp_path, saved=saved_digest(work.cells))
    note = unsaved_note("budget_error", STEP_4, work.cells, tmp_path)
    assert note.startswith("The check of `budget_error` did not pass at ")
    assert "04-byte-budget.ipynb does not hold as saved" in note
    # Saving a notebook whose changes were discarded changes nothing: it must be run again.
    assert "if it does not (they were discarded), run it from the top" in note


def test_a_notebook_saved_since_its_check_gets_no_note_for_it_was_saved_not_left_unsaved(
    tmp_path,
):
    before = saved_step(tmp_path)
    record_check("budget_error", SAVED, True, tmp_path, saved=saved_digest(before.cells))
    after = saved_step(tmp_path, SAVED.replace("None", "'result_too_large'"))
    assert not saved_holds(SAVED, after.cells)
    assert unsaved_note("budget_error", STEP_4, after.cells, tmp_path) == ""


def test_the_saved_digest_changes_with_the_code_not_with_trailing_spaces(tmp_path):
    plain = saved_step(tmp_path).cells
    spaced = saved_step(tmp_path, SAVED.replace("None", "None   ") + "\n\n").cells
    changed = saved_step(tmp_path, SAVED.replace("None", "0")).cells
    assert saved_digest(plain) == saved_digest(spaced) != saved_digest(changed)


def test_a_damaged_or_unwritable_history_only_loses_the_advice(tmp_path):
    (tmp_path / HISTORY_FILE).write_text("[not a dict", encoding="utf-8")
    assert read_history(tmp_path) == {}
    missing = tmp_path / "gone"
    record_check("budget_error", SAVED, True, missing)  # no folder: nothing raised
    assert read_history(missing) == {}
