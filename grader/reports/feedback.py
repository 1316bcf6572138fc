"""A student's feedback page, built once as blocks and rendered as Markdown and as HTML.

Building one document and rendering it twice keeps the two files saying the same thing,
without a Markdown library. The HTML comes from templates/feedback.html.j2 (grader.reports
.templating), whose autoescape makes every text a text, whoever wrote it.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from course.manifest import Course
from grader.model import CATEGORIES, SETTLED, CategoryScore, Grade, TestOutcome, TestStatus
from grader.reports import hints, templating

Table = tuple[list[str], list[list[str]]]  # a header and rows
# One block of a feedback page, (kind, content): "h1", "h2", "h3" and "p" hold a text, "ul" a
# list of texts, "table" a Table. The kind says what the content is, which mypy cannot follow.
Block = tuple[str, Any]

# How the feedback page words each test status (looked up by a status's text).
STATUS_WORDS: dict[str, str] = {
    TestStatus.PASSED: "passed",
    TestStatus.FAILED: "failed",
    TestStatus.TIMEOUT: "timed out",
    TestStatus.CRASH: "crashed",
    TestStatus.ERROR: "could not run",
    TestStatus.MEMORY: "used too much memory",
    TestStatus.OUTPUT_LIMIT: "printed too much",
    TestStatus.FORBIDDEN: "used something the grader does not allow",
    TestStatus.NOT_JUDGED: "not judged here: another category's test already decided this case",
}

CASES_SHOWN = 6  # failed cases named per test before "and N more"

STEP_NOTES = "Start with what the grader found in that step's saved work:"

NOT_COMPLETED = (
    "Grading stopped early, for the reason given at the top of this page, and the tests it "
    "could not reach earn no points. Fix that first, check that every cell runs without an "
    "error, then submit again."
)


def feedback_blocks(
    grade: Grade, course: Course | None = None, notes: Sequence[str] = ()
) -> list[Block]:
    """Return the feedback page for one Grade as a list of (kind, content) blocks.

    Kinds: "h1", "h2", "h3", "p" (text), "ul" (list of texts), "table" (header, rows).
    `notes` are sentences from the gradebook, shown under the score (an extension, say).
    """
    run = grade.run
    blocks: list[Block] = [
        ("h1", f"Feedback for {run.submission.student}"),
        ("p", f"Score: {format_points(grade.score)} out of {format_points(grade.max_score)}."),
    ]
    blocks += [("p", note) for note in notes]
    reasons = (run.reason, run.submission.error)
    blocks += [("p", text) for text in dict.fromkeys(reasons) if text]
    if run.submission.problems:
        blocks += [("h2", "Notes on your submission"), ("ul", list(run.submission.problems))]
    blocks += [("h2", "Results by category"), ("table", _category_table(grade))]
    blocks += _work_on(grade, course)
    return blocks


def _category_table(grade: Grade) -> Table:
    rows = [
        [
            c.category,
            f"{format_points(c.points)} / {format_points(c.max_points)}",
            _tests_passed(c),
        ]
        for c in grade.categories
    ]
    return ["Category", "Points", "Tests passed"], rows


def _tests_passed(category_score: CategoryScore) -> str:
    """Return "3 of 4", saying how many tests stepped aside when some did."""
    text = f"{category_score.passed} of {category_score.judged}"
    aside = category_score.total - category_score.judged
    return text + (f" ({aside} not judged here)" if aside else "")


def _work_on(grade: Grade, course: Course | None) -> list[Block]:
    completed = grade.run.status == "completed"
    failing: dict[str, list[TestOutcome]] = {category: [] for category in CATEGORIES}
    for outcome in grade.run.outcomes:
        # After a run that stopped early, only real wrong answers point back to a lesson step.
        if outcome.status == "failed" or (completed and outcome.status not in SETTLED):
            failing.setdefault(outcome.category, []).append(outcome)
    blocks: list[Block] = [("h2", "What to work on")]
    if not completed:
        blocks.append(("p", NOT_COMPLETED))
    for category, outcomes in failing.items():
        if not outcomes:
            continue
        blocks.append(("h3", category))
        test_ids = [outcome.taught or outcome.test_id for outcome in outcomes]
        blocks.append(("p", hints.category_hint(category, course, test_ids)))
        notes = hints.step_notes(category, grade.run.submission.problems, course)
        if notes:
            blocks += [("p", STEP_NOTES), ("ul", notes)]
        for status in sorted({o.status for o in outcomes} & hints.STATUS_HINTS.keys()):
            blocks.append(("p", hints.STATUS_HINTS[status]))
        blocks.append(("ul", _failure_lines(outcomes)))
    if completed and len(blocks) == 1:
        blocks.append(("p", "Every hidden test passed. Well done."))
    return blocks


def _failure_lines(outcomes: Iterable[TestOutcome]) -> list[str]:
    """Return one line per distinct test: what it checks, the cases that failed, and how."""
    tests: dict[str, tuple[list[str], list[str], list[str]]] = {}
    for outcome in outcomes:
        cases, statuses, examples = tests.setdefault(outcome.description, ([], [], []))
        if outcome.case:
            cases.append(outcome.case)
        statuses.append(outcome.status)
        if outcome.example:
            examples.append(outcome.example)
    return [
        f"{_with_cases(description, cases)} ({', '.join(dict.fromkeys(map(_words, statuses)))})"
        + "".join(f" {hints.example_words(example)}" for example in examples[:CASES_SHOWN])
        for description, (cases, statuses, examples) in tests.items()
    ]


def _with_cases(description: str, cases: Sequence[str], shown: int = CASES_SHOWN) -> str:
    """Return "The sentence — for the id 0; for the id 1", naming the first few cases."""
    if not cases:
        return description
    listed = "; ".join(cases[:shown])
    more = f"; and {len(cases) - shown} more" if len(cases) > shown else ""
    return f"{description.rstrip('.')} — {listed}{more}"


def case_title(outcome: TestOutcome) -> str:
    """Return what a report calls one test: its sentence, and which case it is."""
    return _with_cases(outcome.description, [outcome.case] if outcome.case else [])


def _words(status: str) -> str:
    return STATUS_WORDS.get(status, status)


def format_points(points: float) -> str:
    """Return points with two decimals, the same way on every run."""
    return f"{points:.2f}"


def render_markdown(blocks: Iterable[Block]) -> str:
    """Render feedback blocks as Markdown text."""
    parts: list[str] = []
    for kind, content in blocks:
        if kind in ("h1", "h2", "h3"):
            parts.append("#" * int(kind[1]) + " " + content)
        elif kind == "p":
            parts.append(content)
        elif kind == "ul":
            parts.append("\n".join(f"- {item}" for item in content))
        elif kind == "table":
            header, rows = content
            lines = [_md_row(header), _md_row(["---"] * len(header))]
            lines += [_md_row(row) for row in rows]
            parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _md_row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"


def render_html(blocks: Iterable[Block], title: str) -> str:
    """Render feedback blocks as a small standalone HTML page (templates/feedback.html.j2).

    The blocks are plain texts: the template's autoescape makes each one text on the page.
    """
    return templating.render("feedback.html.j2", {"blocks": blocks, "title": title})
