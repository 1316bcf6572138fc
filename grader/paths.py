"""Where the grader's own files are: one home for the paths every module would recompute."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
HIDDEN_TESTS = PROJECT_ROOT / "grader" / "hidden"
HIDDEN_CONFIG = HIDDEN_TESTS / "pytest.ini"  # the hidden suite's own, wherever it runs
