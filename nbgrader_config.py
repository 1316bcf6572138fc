"""nbgrader set-up for the course: `solutions/` is the instructor source, `lessons/` the release."""

import os

c = get_config()  # noqa: F821 - nbgrader injects get_config when it loads this file

# Absolute, so nbgrader does not warn "root '.' is not absolute" on every command; traitlets sets
# __file__ to this file while it loads it.
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "lessons"

# Autograde as nbgrader does, with one step added right after the kernel ran the notebook: the
# category grade cells get the verdict graded from nbgrader's own process, where no student
# code runs, so nothing a student's cell did in the kernel can change a score. It also adds
# back any category cell a student deleted (nbgrader's own add_missing_cells cannot place them).
c.Autograde.autograde_preprocessors = [
    "nbgrader.preprocessors.Execute",
    "grader.nbgrader_bridge.trusted_category_scores",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Feedback shows each grade cell's result, never its hidden region: nbgrader would copy it.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
