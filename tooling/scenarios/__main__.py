"""Write the generated scenarios and their expected outcomes, or check the committed corpus.

python -m tooling.scenarios           write grader/hidden/data/corpus.json
python -m tooling.scenarios --check   exit 1 if the committed corpus is not what this writes
"""

import argparse
import sys

from grader.hidden.judge.corpus import CORPUS_FILE
from tooling.scenarios.generate import corpus_text


def main(argv: list[str] | None = None) -> int:
    """Write or check the corpus; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tooling.scenarios")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    options = parser.parse_args(argv)
    text = corpus_text()
    if options.check:
        if CORPUS_FILE.read_text(encoding="utf-8") != text:
            print(f"{CORPUS_FILE.name} is out of date: run `python -m tooling.scenarios`")
            return 1
        return 0
    CORPUS_FILE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
