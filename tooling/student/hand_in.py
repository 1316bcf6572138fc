"""Package a student's saved notebooks into one zip to hand in: `python hand_in.py`.

The handout ships this file at its top (tooling/handout.py copies it there). Run it in the
folder the course was unzipped into, or pass that folder (or the lesson folder itself). It runs
the same checks as step 7's `check-saved-work` cell on the saved notebooks, read exactly as the
grader reads them, says which functions pass, and writes `<assignment>-submission.zip` holding
the notebooks and the student's login and nothing else: no checkpoints, no history, no other
file of the folder. `--student LOGIN` is needed once: the login is kept beside the notebooks.
Step 7's hand-in cell does the same from a notebook (course/handin.py).
"""

import argparse
import sys

from course.checks.harness import say
from course.handin import closing_line, hand_in, remember_student, student_line


def main(argv: list[str] | None = None) -> int:
    """Check and package the notebooks, saying what the zip holds; exit 1 if none is found."""
    parser = argparse.ArgumentParser(prog="python hand_in.py", description=__doc__)
    parser.add_argument("folder", nargs="?", default=".", help="where the course was unzipped")
    parser.add_argument("--out", help="the zip to write (default: <assignment>-submission.zip)")
    parser.add_argument(
        "--student", default="", help="your login, as your teacher knows you (once: it is kept)"
    )
    args = parser.parse_args(argv)
    try:
        done = hand_in(args.folder, args.out, args.student)
        remember_student(args.student, args.folder)  # after: only where notebooks were found
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for line in [*done.lines, closing_line(done), student_line(done)]:
        say(line, err=sys.stdout)
    print(f"Wrote {done.zip_path}: hand it in as your teacher asks.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
