"""nbgrader_config.py extends nbgrader's default lists instead of freezing a copy of them.

The course was written against nbgrader 0.9.6's defaults. When a new nbgrader changes one, the
first test fails, so the maintainer reads what changed before trusting where the course puts
its own steps; a step nbgrader adds is kept, and a step the course puts its own next to, gone,
stops the configuration with a sentence rather than leaving the course's step out.
"""

from importlib.metadata import version

import pytest
from nbgrader.converters import Autograde, GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader

from tooling.paths import NBGRADER_CONFIG

pytestmark = []

SETTINGS = {
    "ignore": (CourseDirectory, "ignore"),
    "sanitize": (Autograde, "sanitize_preprocessors"),
    "autograde": (Autograde, "autograde_preprocessors"),
    "feedback": (GenerateFeedback, "preprocessors"),
}
NBGRADER_0_9_6 = {
    "ignore": [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"],
    "sanitize": [
        "ClearOutput",
        "DeduplicateIds",
        "OverwriteKernelspec",
        "OverwriteCells",
        "CheckCellMetadata",
    ],
    "autograde": [
        "Execute",
        "IgnorePattern",
        "ClearMetadataPreprocessor",
        "LimitOutput",
        "SaveAutoGrades",
        "AssignLatePenalties",
        "CheckCellMetadata",
    ],
    "feedback": ["GetGrades", "CSSHTMLHeaderPreprocessor"],
}
# nbgrader's lists with the course's steps, where the course puts them.
COURSE = {
    "ignore": [*NBGRADER_0_9_6["ignore"], ".check-history.json"],
    "sanitize": [
        "ClearOutput",
        "DeduplicateIds",
        "OverwriteKernelspec",
        "grader.integrations.nbgrader_plugins.OverwriteReleasedCells",
        "CheckCellMetadata",
    ],
    "autograde": [
        "grader.integrations.nbgrader_kernel.ConfinedExecute",
        "grader.integrations.nbgrader_bridge.TrustedCategoryScores",
        *NBGRADER_0_9_6["autograde"][1:],
    ],
    "feedback": [
        "GetGrades",
        "grader.integrations.nbgrader_plugins.ClearHiddenTestsForFeedback",
        "CSSHTMLHeaderPreprocessor",
    ],
}


def names(steps):
    """Name each step of a list: a class by its name, a dotted name or a file name as it is."""
    return [step if isinstance(step, str) else step.__name__ for step in steps]


def course_setting(name):
    """Load nbgrader_config.py as nbgrader loads it; return the course's value for `name`."""
    config = PyFileConfigLoader(NBGRADER_CONFIG.name, path=str(NBGRADER_CONFIG.parent))
    owner, setting = SETTINGS[name]
    return config.load_config()[owner.__name__][setting]


def nbgrader_release_with(monkeypatch, name, steps):
    """Make nbgrader's default for `name` be `steps`, as another nbgrader release might."""
    owner, setting = SETTINGS[name]
    monkeypatch.setattr(owner.class_traits()[setting], "default", lambda: list(steps))


def test_the_installed_nbgrader_is_the_release_the_course_pins():
    assert version("nbgrader") == "0.9.6"


@pytest.mark.parametrize("name", SETTINGS)
def test_nbgrader_s_defaults_are_still_the_ones_the_course_was_written_against(name):
    owner, setting = SETTINGS[name]
    assert names(owner.class_traits()[setting].default()) == NBGRADER_0_9_6[name]


@pytest.mark.parametrize("name", SETTINGS)
def test_the_course_puts_its_steps_into_each_default_in_their_place(name):
    assert names(course_setting(name)) == COURSE[name]


def test_a_step_a_new_nbgrader_adds_is_kept(monkeypatch):
    owner, setting = SETTINGS["autograde"]
    steps = owner.class_traits()[setting].default()
    nbgrader_release_with(monkeypatch, "autograde", [*steps, "newer.preprocessors.Audit"])
    assert names(course_setting("autograde")) == [*COURSE["autograde"], "newer.preprocessors.Audit"]


def test_a_release_without_the_step_the_course_follows_stops_with_a_sentence(monkeypatch):
    owner, setting = SETTINGS["feedback"]
    without = [
        step for step in owner.class_traits()[setting].default() if step.__name__ != "GetGrades"
    ]
    nbgrader_release_with(monkeypatch, "feedback", without)
    with pytest.raises(
        RuntimeError, match=r"GenerateFeedback\.preprocessors no longer holds GetGrades"
    ):
        course_setting("feedback")
