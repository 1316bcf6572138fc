"""Student ids that cannot safely name a folder in the output folder, and why.

    refusals(["ada", "grades.csv", "Ada"])    # {"grades.csv": "…", "ada": "…", "Ada": "…"}

A student's files go in DIR/<student>/, beside the files the grader writes for the whole class.
An id that is one of those names (in any letter case), that is a path rather than a name, or
that two students share apart from letter case (one folder on Windows and macOS) would mix one
student's files with another's or with the class's. Such a submission is refused rather than
renamed: a renamed folder would no longer match the login the instructor hands it back to.
"""

import unicodedata
from collections import defaultdict
from collections.abc import Iterable

# The names are the output folder's own (grader.outputs): the steps that write those files come
# later in the pipeline, and intake imports none of them.
from course.identity import MAX_LOGIN
from grader.outputs import FORMULA_STARTS, RESERVED_NAMES

ADVICE = "rename the submission to the student's login and grade again"


def refusals(students: Iterable[str]) -> dict[str, str]:
    """Return why each unsafe id is refused, as "Not graded: …" sentences; safe ids are left out."""
    students = list(dict.fromkeys(students))
    reasons = {}
    for student in students:
        problem = name_problem(student)
        if problem:
            reasons[student] = problem
    by_folder = defaultdict(list)
    for student in students:
        if student not in reasons:
            by_folder[folding(student)].append(student)
    for group in by_folder.values():
        for student in group if len(group) > 1 else ():
            others = ", ".join(repr(other) for other in group if other != student)
            reasons[student] = (
                f"its student id {student!r} differs from {others} only in letter case, so "
                "they would share one folder on Windows and macOS"
            )
    return {student: f"Not graded: {reason}; {ADVICE}." for student, reason in reasons.items()}


def name_problem(student: str) -> str:
    """Return what makes `student` unusable as a folder name beside the class's files, or ""."""
    shown = repr(student)
    if student in ("", ".", ".."):
        return f"its student id {shown} is not a name (it comes from a path such as . or ..)"
    if any(separator in student for separator in ("/", "\\", "\0")):
        return f"its student id {shown} holds a path separator or bytes that are not UTF-8 text"
    if not student.isprintable():
        return f"its student id {shown} holds a character that cannot be shown, such as a tab"
    if student.startswith("."):
        return f"its student id {shown} starts with a dot, as the grader's own hidden files do"
    if student.startswith(FORMULA_STARTS):
        return (
            f"its student id {shown} starts with {student[0]}, which a spreadsheet or LMS "
            "reads as the start of a formula"
        )
    reserved = {folding(name): name for name in RESERVED_NAMES}
    if folding(student) in reserved:
        return (
            f"its student id {shown} is the name of a file the grader writes for the whole "
            f"class ({reserved[folding(student)]})"
        )
    return ""


def typed_problem(student: str) -> str:
    """Return what makes a login the student typed (a zip's student.json) unusable, or "".

    A typed login must be a usable id as it stands: unlike a file name, the instructor cannot
    rename it, so an unusable one is not refused later but set aside for the zip's file name.
    """
    if len(student) > MAX_LOGIN:
        return f"its student id is longer than {MAX_LOGIN} characters"
    return name_problem(student)


def folding(name: str) -> str:
    """Return the form of `name` that file systems which ignore letter case compare."""
    # macOS compares names after canonical normalization; Windows and macOS ignore case.
    return unicodedata.normalize("NFC", name).casefold()
