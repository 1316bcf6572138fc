"""A test module says what it needs, and a test that starts what its module did not declare fails.

The guard (tests/needs.py) reads every process a test starts; these tests show it on the real
choke points, in this process, and in a separate pytest run of small modules.
"""

import contextlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel
from needs import NEEDS, UndeclaredNeedError, needs_of_command

from grader.batch.dispatch import run_job

pytestmark = []
pytest_plugins = ["pytester"]
TESTS = Path(__file__).resolve().parent
VENV_BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    ("command", "needs"),
    [
        (["bwrap", "--ro-bind", "/", "/", "true"], {"bwrap"}),
        ([sys.executable, "-m", "grader.job", "job.jsonl", "results"], {"bwrap"}),
        ([sys.executable, "-m", "grader.job", "--list", "tests.json"], set()),
        ([sys.executable, "-m", "grader", "grade", "class", "--out", "out"], {"bwrap"}),
        ([sys.executable, "-m", "grader", "gradescope-bundle", "a.zip"], set()),
        (["python3", "-I", "-c", "from grader.sandbox.inside.forkserver import serve"], {"bwrap"}),
        (["bash", "/autograder/source/run_autograder"], {"bwrap"}),
        ([sys.executable, "-m", "ipykernel_launcher", "-f", "kernel.json"], {"kernel"}),
        (["jupyter", "nbconvert", "--to", "notebook", "--execute", "a.ipynb"], {"kernel"}),
        ([str(VENV_BIN / "nbgrader"), "autograde", "bounded_results"], {"nbgrader"}),
        ([sys.executable, "-m", "nbgrader", "validate", "a.ipynb"], {"nbgrader"}),
        (["/usr/bin/chromedriver", "--port=9515"], {"browser"}),
        (["vng", "--disable-kvm", "--run", "vmlinuz"], {"vm"}),
        (["sh", "-c", "array=$(sbatch --parsable grade.sh)"], {"slurm"}),
        (["/usr/sbin/slurmd", "-D", "-N", "localhost"], {"slurm"}),
        (["su", "someone", "-c", "cd /x && bwrap --dev /dev true"], {"bwrap"}),
        ([sys.executable, "-c", "print(1)"], set()),
        (["git", "status"], set()),
    ],
)
def test_a_command_needs_what_it_starts(command, needs):
    assert needs_of_command(command) == needs


@pytest.fixture
def refused(request):
    """Return a context expecting the guard to refuse `need`, as raised and as remembered."""
    guard = request.config.pluginmanager.get_plugin("needs-guard")

    @contextlib.contextmanager
    def expect(need):
        with pytest.raises(UndeclaredNeedError, match=f"needs `{need}`.*pytest.mark.{need}"):
            yield
        # Remembered too, to fail a test whose code caught the refusal; forgotten here.
        assert guard.undeclared.pop(request.node.nodeid)

    return expect


def test_a_pure_test_may_not_start_bubblewrap(refused):
    with refused("bwrap"):
        subprocess.run(["bwrap", "--version"], capture_output=True, check=False)


def test_a_pure_test_may_not_start_a_grading_job(refused, tmp_path):
    with refused("bwrap"):
        run_job(["job.jsonl", "results"], tmp_path / "job.log")


def test_a_pure_test_may_not_start_a_jupyter_kernel(refused):
    with refused("kernel"):
        start_new_kernel(kernel_name="python3")


def test_a_pure_test_may_not_run_nbgrader_or_chromium(refused):
    with refused("nbgrader"):
        subprocess.run([str(VENV_BIN / "nbgrader"), "--version"], check=False)
    with refused("browser"):
        subprocess.run(["chromium", "--version"], check=False)


def run_modules(pytester, monkeypatch, modules):
    """Run pytest, in a process of its own, on `modules` ({name: source}) with the guard."""
    pytester.makeconftest(
        "import needs\n\ndef pytest_configure(config):\n    needs.install(config)\n"
    )
    pytester.makeini("[pytest]\nmarkers =\n    bwrap\n")
    for name, source in modules.items():
        pytester.makepyfile(**{name: textwrap.dedent(source)})
    monkeypatch.setenv("PYTHONPATH", f"{TESTS}:{TESTS.parent}")
    return pytester.runpytest_subprocess("-p", "no:cacheprovider")


def test_a_module_that_does_not_say_what_it_needs_is_refused(pytester, monkeypatch):
    result = run_modules(
        pytester, monkeypatch, {"test_silent": "def test_nothing():\n    assert True\n"}
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test modules must declare what they need*test_silent.py*"])


STARTS_BUBBLEWRAP = """
    import subprocess
    import pytest

    pytestmark = [{marks}]

    def test_bubblewrap_runs():
        done = subprocess.run(["bwrap", "--version"], capture_output=True, text=True)
        assert "bubblewrap" in done.stdout

    def test_a_caught_refusal_still_fails():
        try:
            subprocess.run(["bwrap", "--version"], capture_output=True)
        except Exception:
            pass

    @pytest.fixture(scope="module")
    def sandbox():
        return subprocess.run(["bwrap", "--version"], capture_output=True).returncode

    def test_a_module_fixture_is_checked_too(sandbox):
        assert sandbox == 0
"""


def test_a_module_declaring_nothing_fails_each_test_that_starts_bubblewrap(pytester, monkeypatch):
    result = run_modules(pytester, monkeypatch, {"test_starts": STARTS_BUBBLEWRAP.format(marks="")})
    result.assert_outcomes(failed=2, errors=1)
    result.stdout.fnmatch_lines(["*test_bubblewrap_runs starts bwrap --version, which needs*"])
    result.stdout.fnmatch_lines(["*test_a_caught_refusal_still_fails starts bwrap*"])


def test_the_same_module_declaring_bwrap_passes(pytester, monkeypatch):
    module = STARTS_BUBBLEWRAP.format(marks="pytest.mark.bwrap")
    result = run_modules(pytester, monkeypatch, {"test_starts": module})
    result.assert_outcomes(passed=3)


def test_every_need_is_a_declared_marker_that_make_test_fast_leaves_out(pytestconfig):
    makefile = (TESTS.parent / "Makefile").read_text(encoding="utf-8")
    fast = next(line for line in makefile.splitlines() if line.startswith("FAST :="))
    left_out = set(fast.partition("not (")[2].rstrip(")").split(" or "))
    declared = {line.split(":")[0] for line in pytestconfig.getini("markers")}
    assert {*NEEDS, "slow"} == left_out
    assert left_out <= declared
