"""Where the project's files are: one home for the paths every module would recompute."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = (
    PROJECT_ROOT / "requirements"
)  # the pins every install takes (`make lock` writes them)
HIDDEN_TESTS = PROJECT_ROOT / "grader" / "hidden"
HIDDEN_CONFIG = HIDDEN_TESTS / "pytest.ini"  # the hidden suite's own, wherever it runs
# The generated scenarios and what the contract says of each (python -m tooling.scenarios).
GENERATED_CORPUS = HIDDEN_TESTS / "data" / "corpus.json"
LESSONS = PROJECT_ROOT / "lessons"
SOLUTIONS = PROJECT_ROOT / "solutions"
FIXTURES = PROJECT_ROOT / "fixtures"
SUBMISSIONS = FIXTURES / "submissions"  # the catalogue of known submissions (self-check)
SAMPLE_CLASS = FIXTURES / "sample-class"
