"""nbgrader set-up for the course: `solutions/` is the instructor source, `lessons/` the release."""

import os
import warnings

c = get_config()  # noqa: F821 - nbgrader injects get_config when it loads this file

# Absolute, so nbgrader does not warn "root '.' is not absolute" on every command; traitlets sets
# __file__ to this file while it loads it.
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "lessons"

# nbgrader's own ignore list, and the record the check cells keep beside a notebook that ran
# (course/history.py): advice for the student, never part of a submission or a feedback folder.
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints",
    "*.pyc",
    "__pycache__",
    "feedback",
    ".check-history.json",
]

# The exchange: where release_assignment puts the lessons for students to fetch, and where their
# submit lands for collect. Students' own nbgrader_config.py names the same two (README.md, "The
# exchange cycle"). Rename the course id to your course. The exchange folder must be on a file
# system every student reaches, writable by all (release_assignment makes it so, given rights).
c.CourseDirectory.course_id = "bounded-results"
c.Exchange.root = "/srv/nbgrader/exchange"

# Autograde checks each student's locked cells against the instructor's; the course's version
# compares them with what was released (hidden tests removed), so an untouched grade cell no
# longer warns that its checksum changed, and a changed one still does.
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "grader.nbgrader_plugins.OverwriteReleasedCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# nbgrader's gradebook builds a new submission's rows before adding them to its database
# session, and SQLAlchemy 2 warns about it on each student's first autograde ("Object of type
# <SubmittedAssignment> not in session, add operation … will not proceed") although every row is
# saved right after. Only that warning is silenced.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\w+> not in session")

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
# (The course's ClearHiddenTests declares the display setting nbgrader's warns it ignores.)
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "grader.nbgrader_plugins.ClearHiddenTestsForFeedback",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]

# `nbgrader export` writes nbgrader's columns with two decimals (it would write a sum of
# floats such as 56.830000000000005). For an LMS file from the gradebook, late penalties
# included: nbgrader export --exporter=grader.nbgrader_plugins.CanvasExport (or MoodleExport).
c.ExportApp.plugin_class = "grader.nbgrader_plugins.RoundedCsvExport"

# Late submissions: nbgrader records how late each one is (against the due date set with
# `nbgrader db assignment add bounded_results --duedate=...`) and, by default, takes nothing
# off. For the penalty `grade --late-policy per-hour:P` applies, uncomment:
# c.AssignLatePenalties.plugin_class = "grader.nbgrader_plugins.PerHourPenalty"
# c.PerHourPenalty.points_per_hour = 1.0
# or, for nbgrader's own "a late submission scores 0":
# c.LateSubmissionPlugin.penalty_method = "zero"
