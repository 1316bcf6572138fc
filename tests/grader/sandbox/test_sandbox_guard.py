"""The sealed worker: each way into the grader's records is refused, its honest twin is not.

Every cheat below is a line a determined student could add to a correct `invoke_tool`; the same
code without that line is its honest twin. A cheat must end the test as `forbidden` (or change
nothing the trusted side counts), and its twin must pass, in both isolation modes.
"""

import pytest
from sandboxes import session_for

from grader.hidden.probes import flaky, returns, scenario
from grader.paths import PROJECT_ROOT
from grader.sandbox.problems import SandboxProblem

pytestmark = [pytest.mark.bwrap]

REFERENCE = (PROJECT_ROOT / "fixtures/submissions/correct/reference.py").read_text(encoding="utf-8")
# A wrapper around the reference: CHEAT runs first inside every call.
TEMPLATE = (
    REFERENCE
    + "\n_honest = invoke_tool\n\n"
    + "def invoke_tool(request, tools, **options):\n"
    + "    import gc, signal, sys, threading\n"
    + "    CHEAT\n"
    + "    return _honest(request, tools, **options)\n"
)
CHEATS = {
    "scans-gc-objects": "gc.get_objects()",
    "lists-gc-referrers": "gc.get_referrers(tools)",
    "reads-other-threads-frames": "sys._current_frames()",
    "installs-profile-hook": "sys.setprofile(lambda *a: None)",
    "installs-trace-hook": "sys.settrace(lambda *a: None)",
    "installs-signal-handler": "signal.signal(signal.SIGALRM, lambda *a: None)",
    "starts-a-thread": "threading.Thread(target=print).start()",
    "adds-an-audit-hook": "sys.addaudithook(lambda *a: None)",
    "sends-the-loops-events": "sys.audit('grader.end', [None, None])",
    "lists-its-descriptors": "import os; os.listdir('/proc/self/fd')",
    # The hook's own frame is in the traceback of the ImportError it raises for ctypes.
    "hides-the-frame-type": (
        "import types\n"
        "    types.FrameType = int\n"
        "    try:\n"
        "        import ctypes\n"
        "    except ImportError as error:\n"
        "        trace = error.__traceback__\n"
        "        while trace is not None:\n"
        "            trace.tb_frame.f_locals\n"
        "            trace = trace.tb_next"
    ),
    "opens-the-channel": "open(4, 'wb', closefd=False).write(b'{}\\n')",
    "opens-the-channel-by-an-int-subclass": (
        "class Descriptor(int): pass\n    open(Descriptor(4), 'wb', closefd=False).write(b'{}\\n')"
    ),
    "opens-proc-by-a-str-subclass": (
        "class Text(str): pass\n    open(Text('/proc/self/status'), 'rb').read()"
    ),
    # Its own link into /proc, with os.lstat replaced so that os.path.realpath sees no link.
    "lies-about-links": (
        "import os, tempfile\n"
        "    link = os.path.join(tempfile.mkdtemp(), 'status')\n"
        "    os.symlink('/proc/self/status', link)\n"
        "    real_lstat = os.lstat\n"
        "    os.lstat = lambda path, *args, **kwargs: real_lstat('/usr')\n"
        "    open(link, 'rb').read()"
    ),
    "answers-the-reply-channel": (
        "import os\n"
        "    for fd in range(3, 64):\n"
        "        try:\n"
        "            os.write(fd, b'{\"observation\": {}}\\n')\n"
        "        except OSError:\n"
        "            pass"
    ),
}


def outcome(server, source, test=None):
    """Run one scenario; return its observation, or the status it ended with."""
    session = session_for(server, source, timeout=20.0, test_timeout=5.0)
    try:
        return session.call(test or scenario(returns({"n": 1})))
    except SandboxProblem as problem:
        return problem.status
    finally:
        session.stop()


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_a_way_into_the_grader_is_refused_as_forbidden(fork_server, name):
    assert outcome(fork_server, TEMPLATE.replace("CHEAT", CHEATS[name])) == "forbidden"


def test_the_honest_twin_of_every_cheat_passes(fork_server):
    observation = outcome(fork_server, TEMPLATE.replace("CHEAT", "pass"))
    assert observation.envelope == {"id": "req-7", "ok": True, "value": {"n": 1}, "error": None}


# The honest twin of a link into /proc: a link to a file of its own opens and reads.
LINKS_TO_ITS_OWN_FILE = """
_honest = invoke_tool


def invoke_tool(request, tools, **options):
    import os, tempfile
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "notes"), "w") as notes:
        notes.write("kept")
    os.symlink(os.path.join(folder, "notes"), os.path.join(folder, "link"))
    envelope = _honest(request, tools, **options)
    envelope["value"] = open(os.path.join(folder, "link")).read()
    return envelope
"""


def test_a_link_to_an_ordinary_file_opens(fork_server):
    observation = outcome(fork_server, REFERENCE + LINKS_TO_ITS_OWN_FILE)
    assert observation.envelope == {"id": "req-7", "ok": True, "value": "kept", "error": None}


# Module functions the guard uses, each replaced by a spy that notes every call: what ran in
# their place would run with the guard's frames, and its key, below it.
SPIED = """
import gc, sys

_spied = []


def _spy_on(module, name):
    original = getattr(module, name)

    def spy(*args):
        _spied.append(name)
        return original(*args)

    setattr(module, name, spy)


for _module, _name in ((sys, "getrecursionlimit"), (sys, "setrecursionlimit"),
                       (sys, "_getframe"), (gc, "isenabled"), (gc, "disable"), (gc, "enable")):
    _spy_on(_module, _name)
_honest = invoke_tool


def invoke_tool(request, tools, **options):
    envelope = _honest(request, tools, **options)
    envelope["value"] = list(_spied)
    return envelope
"""


def test_the_guard_calls_none_of_the_module_functions_a_submission_replaced(fork_server):
    observation = outcome(fork_server, REFERENCE + SPIED, scenario(flaky({"n": 1})))
    assert observation.envelope["value"] == []


def test_forging_the_tools_call_count_does_not_hide_a_retry(fork_server):
    retrying = (
        REFERENCE + "\ndef invoke_tool(request, tools, **options):\n"
        "    tool = tools[request['tool']]\n"
        "    for attempt in range(2):\n"
        "        try:\n"
        "            value = tool(dict(request['arguments']))\n"
        "            break\n"
        "        except Exception:\n"
        "            value = None\n"
        "    for forged in ('calls', 'received', 'raised'):\n"
        "        setattr(tool, forged, 1 if forged == 'calls' else [])\n"
        "    return {'id': request['id'], 'ok': True, 'value': value, 'error': None}\n"
    )
    observation = outcome(fork_server, retrying, scenario(flaky({"n": 1})))
    assert observation["calls"] == {"probe": 2}
    assert len(observation["received"]["probe"]) == 2


def test_a_tool_shows_nothing_of_what_it_will_do_before_it_is_called(fork_server):
    snooping = (
        REFERENCE + "\n_honest = invoke_tool\n\n"
        "def invoke_tool(request, tools, **options):\n"
        "    tool = tools[request['tool']]\n"
        "    cells = [c.cell_contents for c in tool.__closure__ or ()]\n"
        "    seen = sorted(vars(tool)) + sorted(tool.__globals__) + [repr(c) for c in cells]\n"
        "    return {'id': request['id'], 'ok': True, 'value': seen, 'error': None}\n"
    )
    observation = outcome(fork_server, snooping, scenario(returns({"secret": "PRIVATE-value"})))
    assert observation["calls"] == {"probe": 0}
    assert "PRIVATE-value" not in repr(observation.envelope)


def test_the_main_module_is_the_submission_not_the_worker(fork_server):
    probe = (
        REFERENCE + "\nimport sys\n_honest = invoke_tool\n\n"
        "def invoke_tool(request, tools, **options):\n"
        "    main = sys.modules['__main__']\n"
        "    envelope = _honest(request, tools, **options)\n"
        "    envelope['value'] = [main.__name__, hasattr(main, '_honest')]\n"
        "    return envelope\n"
    )
    observation = outcome(fork_server, probe)
    assert observation.envelope["value"] == ["submission", True]


def test_ctypes_cannot_be_imported_and_trying_costs_nothing(fork_server):
    probe = (
        REFERENCE + "\n_honest = invoke_tool\n\n"
        "def invoke_tool(request, tools, **options):\n"
        "    try:\n"
        "        import ctypes\n"
        "        found = 'imported'\n"
        "    except ImportError:\n"
        "        found = 'unavailable'\n"
        "    envelope = _honest(request, tools, **options)\n"
        "    envelope['value'] = found\n"
        "    return envelope\n"
    )
    assert outcome(fork_server, probe).envelope["value"] == "unavailable"


def test_a_scenario_asked_again_is_answered_from_the_first_run(fork_server):
    printing = TEMPLATE.replace("CHEAT", "print('ran')")
    session = session_for(fork_server, printing, timeout=20.0, test_timeout=5.0)
    try:
        first = session.call(scenario(returns({"n": 1})))
        assert session.take_output().count("ran") == 1
        again = session.call(scenario(returns({"n": 1})))
        assert again is first and "ran" not in session.take_output()
        other = session.call(scenario(returns({"n": 2})))
        assert other is not first and session.take_output().count("ran") == 1
    finally:
        session.stop()
