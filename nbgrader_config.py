"""nbgrader set-up for the course: `solutions/` is the instructor source, `lessons/` the release.

Where the course changes one of nbgrader's lists (ignored files, the autograde and feedback
steps), it starts from nbgrader's own default and puts its step next to a step nbgrader has,
so whatever a new nbgrader adds to its defaults is kept. Written against nbgrader 0.9.6:
tests/nbgrader/test_config_extends_defaults.py fails when nbgrader's defaults change, and this
file refuses, with a sentence, to load when a step it places its own next to is gone.
"""

import os
import warnings

from nbgrader.converters import Autograde, GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import Execute, GetGrades, OverwriteCells

from course.carry.history import HISTORY_FILE


def nbgrader_default(owner, setting):
    """Return a fresh copy of nbgrader's default list for `owner.setting`."""
    return list(owner.class_traits()[setting].default())


def anchor_index(steps, anchor, setting):
    """Return where `anchor` is among nbgrader's `steps`, or refuse to go on without it."""
    if anchor not in steps:
        raise RuntimeError(
            f"nbgrader's default {setting} no longer holds {anchor.__name__}, next to which "
            "the course puts a step of its own: read nbgrader's release notes and update "
            "nbgrader_config.py."
        )
    return steps.index(anchor)


def with_step_after(owner, setting, anchor, step):
    """Return nbgrader's default `owner.setting` with `step` inserted right after `anchor`."""
    steps = nbgrader_default(owner, setting)
    steps.insert(anchor_index(steps, anchor, f"{owner.__name__}.{setting}") + 1, step)
    return steps


def with_steps_instead(owner, setting, anchor, *replacements):
    """Return nbgrader's default `owner.setting` with `replacements` in the place of `anchor`."""
    steps = nbgrader_default(owner, setting)
    index = anchor_index(steps, anchor, f"{owner.__name__}.{setting}")
    steps[index : index + 1] = replacements
    return steps


c = get_config()  # noqa: F821 - nbgrader injects get_config when it loads this file

# Absolute, so nbgrader does not warn "root '.' is not absolute" on every command; traitlets sets
# __file__ to this file while it loads it.
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "lessons"

# nbgrader's own ignore list, and the record the check cells keep beside a notebook that ran
# (course/carry/history.py): advice for the student, never part of a submission or feedback.
c.CourseDirectory.ignore = [*nbgrader_default(CourseDirectory, "ignore"), HISTORY_FILE]

# The exchange: where release_assignment puts the lessons for students to fetch, and where their
# submit lands for collect. Students' own nbgrader_config.py names the same two
# (docs/nbgrader.md, "The exchange cycle"). Rename the course id to your course. The exchange
# folder must be on a file system every student reaches, writable by all (release_assignment
# makes it so, given rights).
c.CourseDirectory.course_id = "bounded-results"
c.Exchange.root = "/srv/nbgrader/exchange"
# Collect copies as the instructor from the exchange, which every student may write: the
# course's collect copies regular files and folders only, never what a link names.
c.ExchangeFactory.collect = "grader.integrations.nbgrader_exchange.CollectWithoutLinks"

# Autograde checks each student's locked cells against the instructor's; the course's version
# compares them with what was released (hidden tests removed), so an untouched grade cell no
# longer warns that its checksum changed, and a changed one still does.
c.Autograde.sanitize_preprocessors = with_steps_instead(
    Autograde,
    "sanitize_preprocessors",
    OverwriteCells,
    "grader.integrations.nbgrader_plugins.OverwriteReleasedCells",
)

# nbgrader's gradebook builds a new submission's rows before adding them to its database
# session, and SQLAlchemy 2 warns about it on each student's first autograde ("Object of type
# <SubmittedAssignment> not in session, add operation … will not proceed") although every row is
# saved right after. Only that warning is silenced.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\w+> not in session")

# Autograde as nbgrader does, with two changes where nbgrader runs the notebook. Its kernel runs
# confined (ConfinedExecute): in a copy of the student's folder, with no network, and nothing
# else of the course, the gradebook or other students in sight; where that cannot be had,
# autograde stops before any student code runs. Right after it, the category grade cells get
# the verdict graded from the notebooks as submitted, in nbgrader's own process, where no
# student code runs, so nothing a student's cell did in the kernel can change a score. It also
# adds back any category cell a student deleted (nbgrader's add_missing_cells cannot place them).
c.Autograde.autograde_preprocessors = with_steps_instead(
    Autograde,
    "autograde_preprocessors",
    Execute,
    "grader.integrations.nbgrader_kernel.ConfinedExecute",
    "grader.integrations.nbgrader_bridge.TrustedCategoryScores",
)
# Only where bubblewrap cannot run here, and at your own risk: run students' code anyway, with
# your rights, so that it can read and change all that you can (docs/nbgrader.md).
# c.ConfinedExecute.run_student_code_with_instructor_rights = True

# Feedback shows each grade cell's result, never its hidden region: nbgrader would copy it.
# (The course's ClearHiddenTests declares the display setting nbgrader's warns it ignores.)
c.GenerateFeedback.preprocessors = with_step_after(
    GenerateFeedback,
    "preprocessors",
    GetGrades,
    "grader.integrations.nbgrader_plugins.ClearHiddenTestsForFeedback",
)

# `nbgrader export` writes nbgrader's columns with two decimals (it would write a sum of
# floats such as 56.830000000000005). For an LMS file from the gradebook, late penalties
# included: nbgrader export --exporter=grader.integrations.nbgrader_plugins.CanvasExport
# (or MoodleExport).
c.ExportApp.plugin_class = "grader.integrations.nbgrader_plugins.RoundedCsvExport"

# Late submissions: nbgrader records how late each one is (against the due date set with
# `nbgrader db assignment add bounded_results --duedate=...`) and, by default, takes nothing
# off. For the penalty `grade --late-policy per-hour:P` applies, uncomment:
# c.AssignLatePenalties.plugin_class = "grader.integrations.nbgrader_plugins.PerHourPenalty"
# c.PerHourPenalty.points_per_hour = 1.0
# Students' own due times, the file `grade --extensions` reads (student_id, then due or
# extra_hours): the per-hour penalty then counts each one's lateness from their own due time.
# c.PerHourPenalty.extensions = "extensions.csv"
# and, for the Moodle export's comments (MoodleExport.comments) to name them:
# c.MoodleExport.extensions = "extensions.csv"
# or, for nbgrader's own "a late submission scores 0":
# c.LateSubmissionPlugin.penalty_method = "zero"
