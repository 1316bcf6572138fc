"""A real `nbgrader collect`, run while the student races it, collects only the student's own work.

A student owns their submission's folder in the exchange, which every student may write, and
collect copies it as the instructor. Here a real student account submits the released lessons
unanswered through the real exchange, as in test_exchange_cycle.py. The instructor's collect
(the course's configuration) runs once with nothing racing it: the honest twin. Then a process
of the student's swaps each submitted notebook, as fast as it can, for a symbolic link to the
instructor's solution notebook (and a hard link, where the kernel lets the student make one) and
back, and every few rounds the whole folder for a link to the solutions' folder, while collect
runs several times. Each collect must take the student's own notebooks, byte for byte, or leave
out (or refuse) with a plain reason; no collected file is a link or a solution. The twin and
every racing collect are then graded in one batch, and no racing collect scores more than the
twin.
"""

import csv
import json
import pwd
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from accounts import python_for_users, remove_account
from classroom import ASSIGNMENT
from exchange_students import COURSE_ID, make_student, run_as

from grader.gradebook.times import TIMESTAMP_FILE
from grader.paths import SOLUTIONS
from tooling.paths import NBGRADER_CONFIG

pytestmark = [pytest.mark.nbgrader, pytest.mark.bwrap, pytest.mark.slow]

COLLECTS = 6  # racing collects
RACE_SECONDS = 120  # the racer stops by itself after this, or when told to (sooner)
TWIN = "twin"

# The student's racing process: a bounded loop that stops by itself (RACE_SECONDS, or a `stop`
# file in its home), leaves the submission as it was, and writes what it did to race.json.
# Every new entry is made in the student's home and renamed over the name in one step, so the
# inbound folder only ever holds the notebooks' names: each the student's own file or a link.
RACER = r"""
import errno, json, os, sys, time

folder, home, solutions, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
names = sorted(name for name in os.listdir(folder) if name.endswith(".ipynb"))
own = {}
for name in names:
    with open(os.path.join(folder, name), "rb") as stream:
        own[name] = stream.read()
spare, away = os.path.join(home, ".spare"), os.path.join(home, ".away")
done = {"rounds": 0, "symbolic": 0, "hard": 0, "folder": 0, "hard_refused": None}


def put(make, name):
    make(spare)
    os.rename(spare, os.path.join(folder, name))


def write_own(name):
    def make(path):
        with open(path, "wb") as stream:
            stream.write(own[name])
    return make


try:  # may the student hard link the solutions? Not where the kernel protects hard links.
    os.link(os.path.join(solutions, names[0]), spare)
    os.unlink(spare)
except OSError as error:
    done["hard_refused"] = f"{errno.errorcode.get(error.errno)}: {error.strerror}"
kinds = ["symbolic"] if done["hard_refused"] else ["symbolic", "hard"]
makers = {
    "symbolic": lambda name: (lambda path: os.symlink(os.path.join(solutions, name), path)),
    "hard": lambda name: (lambda path: os.link(os.path.join(solutions, name), path)),
}
end = time.monotonic() + seconds
try:
    while time.monotonic() < end and not os.path.exists(os.path.join(home, "stop")):
        if done["rounds"] % 5 == 4:  # the whole folder, for a link to the solutions' folder
            os.rename(folder, away)
            os.symlink(solutions, spare)
            os.rename(spare, folder)
            os.unlink(folder)
            os.rename(away, folder)
            done["folder"] += 1
        else:
            kind = kinds[done["rounds"] % len(kinds)]
            for name in names:
                put(makers[kind](name), name)
                done[kind] += 1
            for name in names:
                put(write_own(name), name)
        done["rounds"] += 1
        if done["rounds"] == 1:
            open(os.path.join(home, "racing"), "w").close()
finally:
    if os.path.lexists(away):
        if os.path.lexists(folder):
            os.unlink(folder)
        os.rename(away, folder)
    for name in names:
        put(write_own(name), name)
    with open(os.path.join(home, "race.json"), "w") as stream:
        json.dump(done, stream)
"""


def snapshot(folder):
    """Return {name: bytes} of the files in `folder`, as root reads them."""
    return {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()}


def judge(dest, output, own, solutions):
    """Check one collect's result; return what it gave, in a few words."""
    assert "Traceback" not in output, output
    reasons = [line for line in output.splitlines() if "Not collected" in line]
    if not dest.exists():  # the folder was a link, or away: refused, or not seen at all
        seen = reasons or [line for line in output.splitlines() if "No submissions of" in line]
        assert seen, f"nothing collected and no reason given:\n{output}"
        return "refused: " + seen[0].split("] ", 1)[-1]
    collected = {path.relative_to(dest).as_posix(): path for path in dest.rglob("*")}
    assert set(collected) <= {*own, TIMESTAMP_FILE}, sorted(collected)
    for name, path in collected.items():
        status = path.lstat()
        assert stat.S_ISREG(status.st_mode) and status.st_nlink == 1, (name, status)
        if name != TIMESTAMP_FILE:
            content = path.read_bytes()
            assert content not in solutions.values(), f"{name}: the solution was collected"
            assert content == own[name], f"{name}: not what the student handed in"
    notebooks = [name for name in own if name.endswith(".ipynb")]
    left_out = [name for name in notebooks if name not in collected]
    for name in left_out:
        assert any(f"/{name} is a" in line for line in reasons), (name, output)
    kept = len(notebooks) - len(left_out)
    return f"{kept} own notebooks" + (f", {len(left_out)} left out as links" if left_out else "")


def collect_into(root, student, grading, as_whom):
    """Run the instructor's `nbgrader collect`; move what it took to grading/`as_whom`."""
    dest = root / "submitted" / student / ASSIGNMENT
    shutil.rmtree(root / "submitted" / student, ignore_errors=True)
    output = run_as(None, root, "collect", ASSIGNMENT, check=False)
    if dest.exists():
        shutil.copytree(dest, grading / as_whom / ASSIGNMENT, symlinks=True)
    return dest, output


@pytest.fixture(scope="module")
def student():
    """A student account, made for the test and removed after it."""
    name = f"nbxr{secrets.token_hex(3)}"
    base = Path(tempfile.mkdtemp(prefix="nbgrader-race-"))
    base.chmod(0o755)  # the student reaches their home and the exchange through it
    try:
        make_student(base, name)
        yield base, name
    finally:
        remove_account(name)
        shutil.rmtree(base, ignore_errors=True)


def test_collect_raced_by_the_student_takes_only_their_own_notebooks(student):
    base, user = student
    root, grading = base / "course", base / "grading" / "submitted"
    root.mkdir(mode=0o700)  # the instructor's: solutions and gradebook, no student reads it
    grading.mkdir(parents=True)
    shutil.copytree(SOLUTIONS / ASSIGNMENT, root / "solutions" / ASSIGNMENT)
    config = NBGRADER_CONFIG.read_text(encoding="utf-8")
    config += f"\nc.Exchange.root = {str(base / 'exchange')!r}\n"
    (root / "nbgrader_config.py").write_text(config, encoding="utf-8")
    (root / "students.csv").write_text(f"id\n{user}\n", encoding="utf-8")
    run_as(None, root, "generate_assignment", ASSIGNMENT, "--force")
    run_as(None, root, "db", "student", "import", "students.csv")
    run_as(None, root, "release_assignment", ASSIGNMENT)
    python, home = python_for_users(base), Path(pwd.getpwnam(user).pw_dir)
    run_as(user, home, "fetch_assignment", ASSIGNMENT, python=python)
    run_as(user, home, "submit", ASSIGNMENT, python=python)
    [folder] = (base / "exchange" / COURSE_ID / "inbound").glob(f"{user}+{ASSIGNMENT}+*")
    own = snapshot(folder)
    solution_folder = root / "solutions" / ASSIGNMENT
    solutions = snapshot(solution_folder)
    assert solutions and not set(solutions.values()) & set(own.values())

    dest, output = collect_into(root, user, grading, TWIN)
    assert judge(dest, output, own, solutions) == f"{len(solutions)} own notebooks"

    racer_script = base / "racer.py"
    racer_script.write_text(RACER, encoding="utf-8")
    account = pwd.getpwnam(user)
    arguments = (racer_script, folder, home, solution_folder, RACE_SECONDS)
    racer = subprocess.Popen(
        [str(python), *map(str, arguments)],
        cwd=home,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        user=account.pw_uid,
        group=account.pw_gid,
        extra_groups=[],
        stderr=subprocess.PIPE,
        text=True,
    )
    gave = []
    try:
        while not (home / "racing").exists():
            assert racer.poll() is None, racer.stderr.read()
            time.sleep(0.01)
        for number in range(1, COLLECTS + 1):
            dest, output = collect_into(root, user, grading, f"racer-{number}")
            assert racer.poll() is None, "the race ended before the collect did"
            gave.append(judge(dest, output, own, solutions))
    finally:
        (home / "stop").touch()
        _, errors = racer.communicate(timeout=30)
    assert racer.returncode == 0, errors
    race = json.loads((home / "race.json").read_text(encoding="utf-8"))
    assert snapshot(folder) == own  # the racer left the submission as it was
    print(f"\nrace: {race}\ncollects: {gave}")

    grades = base / "grading" / "grades"
    graded = subprocess.run(
        [sys.executable, "-m", "grader", "grade", "submitted", "--out", str(grades)],
        cwd=grading.parent,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert graded.returncode == 0, graded.stdout + graded.stderr
    with open(grades / "grades.csv", newline="", encoding="utf-8") as stream:
        scores = {row["student"]: float(row["score"]) for row in csv.DictReader(stream)}
    print(f"scores: {scores}")
    racers = {name: score for name, score in scores.items() if name != TWIN}
    assert TWIN in scores and len(racers) == len(list(grading.glob("racer-*")))
    assert all(score <= scores[TWIN] for score in racers.values()), scores
