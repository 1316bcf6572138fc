"""The guard reads student values without running student code, and refuses frames if it ever does.

While the guard describes a scenario its checks are off, so a special method of the student's
that it called by mistake (a metaclass's `__hash__` or `__eq__`, a str subclass's `__eq__` met in
a dict lookup) would run with the guard's frames, its key and its records on the stack. Each
cheat below plants such a method where the guard reads; the method prints a mark and tries
to reach the guard's frames. Its twin is the same code without the special method: the mark
must never be printed, and the grader must see exactly what it sees of the twin.
"""

import sys

import pytest
from sandboxes import reference_with, session_for

from grader.hidden.probes import raises, returns, scenario
from grader.sandbox.inside import guard_rules
from grader.sandbox.inside.guard import Guard
from grader.sandbox.inside.picture import entry
from grader.sandbox.problems import SandboxProblem

pytestmark = [pytest.mark.bwrap]

MARK = "RAN-INSIDE-THE-GUARD"
# What the cheat's special method does when it runs: look for the guard's frames above it and
# print the mark if it finds one. (The student's own dict operations run it too, harmlessly, and
# the worker's loop is below every line of student code: neither is the guard.)
INSIDE = (
    "        import sys\n"
    "        GUARD_FILES = ('guard.py', 'report.py', 'picture.py', 'guard_rules.py', 'kinds.py',\n"
    "                       'raising.py')\n"
    "        frame = sys._getframe(1)\n"
    "        while frame is not None:\n"
    "            if frame.f_code.co_filename.endswith(GUARD_FILES):\n"
    f"                print({MARK!r}, frame.f_code.co_name)\n"
    "                break\n"
    "            frame = frame.f_back\n"
)
# Classes with a special method of the student's (CHEAT), or without it (the twin).
CLASSES = (
    "class _Meta(type):\n"
    "    def __hash__(cls):\n"
    "HASH_BODY"
    "        return type.__hash__(cls)\n"
    "    def __eq__(cls, other):\n"
    "EQ_BODY"
    "        return type.__eq__(cls, other)\n"
    "class Passenger(metaclass=_Meta):\n"
    "    pass\n"
    "class Key(str):\n"
    "    def __hash__(self):\n"
    "HASH_BODY"
    "        return str.__hash__(self)\n"
    "    def __eq__(self, other):\n"
    "EQ_BODY"
    "        return str.__eq__(self, other)\n"
)
# Where each cheat puts its object: somewhere the guard reads when invoke_tool returns or raises.
PLACES = {
    "a-type-in-the-envelope": (
        "    envelope = _honest(request, tools, **options)\n"
        "    envelope['passenger'] = Passenger()\n"
        "    return envelope\n"
    ),
    "an-envelope-key-shaped-like-value": (
        "    envelope = _honest(request, tools, **options)\n"
        "    envelope[Key('value')] = envelope.pop('value')\n"
        "    return envelope\n"
    ),
    "a-tools-key-shaped-like-the-tool": (
        "    envelope = _honest(request, tools, **options)\n"
        "    tools[Key('probe')] = tools.pop('probe')\n"
        "    return envelope\n"
    ),
    "a-request-key-shaped-like-arguments": (
        "    envelope = _honest(request, tools, **options)\n"
        "    request[Key('arguments')] = request.pop('arguments')\n"
        "    return envelope\n"
    ),
}
TEMPLATE = "\n" + CLASSES + "def invoke_tool(request, tools, **options):\n"


def submission(place, cheat):
    body = INSIDE if cheat else ""
    code = TEMPLATE.replace("HASH_BODY", body).replace("EQ_BODY", body) + PLACES[place]
    return reference_with(code)


def raising_submission(cheat):
    """A tool's exception goes back up with a note key shaped like `__notes__`."""
    body = INSIDE if cheat else ""
    code = TEMPLATE.replace("HASH_BODY", body).replace("EQ_BODY", body) + (
        "    try:\n"
        "        tools[request['tool']](request['arguments'])\n"
        "    except BaseException as error:\n"
        "        error.__dict__[Key('__notes__')] = ['x']\n"
        "        raise\n"
    )
    return reference_with(code)


FACTS = ("envelopes", "raised", "request_after", "tools_changed", "request_changed", "forbidden")


def seen(server, source, test):
    """Run one scenario; return what the grader saw of it, and what the code printed."""
    session = session_for(server, source, timeout=20.0, test_timeout=5.0)
    try:
        try:
            observation = session.call(test)
            facts = {name: observation[name] for name in FACTS}
        except SandboxProblem as problem:
            facts = {"status": problem.status}
        return facts, session.take_output()
    finally:
        session.stop()


@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_special_method_where_the_guard_reads_never_runs(fork_server, place):
    test = scenario(returns({"n": 1}))
    cheat, printed = seen(fork_server, submission(place, cheat=True), test)
    twin, _ = seen(fork_server, submission(place, cheat=False), test)
    assert MARK not in printed
    assert cheat == twin


def test_a_key_planted_in_a_raised_exception_never_runs(fork_server):
    test = scenario(raises("value_error"))
    cheat, printed = seen(fork_server, raising_submission(cheat=True), test)
    twin, _ = seen(fork_server, raising_submission(cheat=False), test)
    assert MARK not in printed
    assert cheat == twin
    assert cheat["raised"]["same_object"] is True  # the tool's own exception, read as such


def busy_guard():
    guard = Guard(channel=None, own_files=frozenset())  # type: ignore[arg-type]
    guard.busy = True
    return guard


@pytest.mark.parametrize(
    ("event", "arguments"),
    [
        ("sys._getframe", (sys._getframe(),)),
        ("object.__getattr__", (None, "tb_frame")),
        ("object.__getattr__", (None, "gi_frame")),
    ],
)
def test_code_that_reads_a_frame_while_the_guard_is_busy_is_forbidden(event, arguments):
    guard = busy_guard()
    with pytest.raises(RuntimeError, match="does not allow running code while the grader"):
        guard.hook(event, arguments)
    assert guard.forbidden == ["running code while the grader reads a value"]


def test_the_guard_reading_a_frame_itself_while_busy_is_allowed():
    guard = busy_guard()
    guard.reading_frame = True
    guard.hook("sys._getframe", (sys._getframe(),))
    guard.hook("object.__getattr__", (None, "tb_frame"))
    assert guard.forbidden == []


def test_other_events_while_the_guard_is_busy_pass_quietly():
    guard = busy_guard()
    for event, arguments in [("builtins.id", (1,)), ("object.__getattr__", (None, "f_code"))]:
        guard.hook(event, arguments)
    assert guard.forbidden == []
    assert guard_rules.reaches_frames("object.__getattr__", (None, "ag_frame"))


class Shaped(str):
    """A str subclass whose hash matches its text and whose __eq__ (never equal) is counted."""

    asked = 0

    def __hash__(self):
        return str.__hash__(self)

    def __eq__(self, other):
        Shaped.asked += 1
        return False


def test_a_dict_is_read_by_exact_text_without_asking_its_keys():
    shaped_first = {Shaped("value"): "shaped", "value": "exact", "other": 1}
    only_shaped = {Shaped("value"): "shaped"}
    Shaped.asked = 0  # building the dicts asked it; reading them must not
    assert entry(shaped_first, "value") == "exact"  # the exact key, as dict.get finds it
    assert entry(only_shaped, "value") == "shaped"  # a subclass with that text, else
    assert entry(only_shaped, "missing") is None
    assert Shaped.asked == 0


def namespace():
    return {"name": object(), "__builtins__": {"len": len, "range": range}}


def test_the_loops_module_is_unchanged_while_it_holds_the_very_same_objects():
    module = namespace()
    kept = guard_rules.snapshot(module)
    assert guard_rules.unchanged(module, kept)


@pytest.mark.parametrize(
    "change",
    [
        "replace a value",
        "replace a built-in",
        "add a name",
        "take a name out and put it back",
        "swap the built-ins",
    ],
)
def test_any_change_to_the_loops_module_is_seen(change):
    module = namespace()
    kept = guard_rules.snapshot(module)
    if change == "replace a value":
        module["name"] = object()
    elif change == "replace a built-in":
        module["__builtins__"]["range"] = lambda *a: []
    elif change == "add a name":
        module["extra"] = 1
    elif change == "take a name out and put it back":
        module["name"] = module.pop("name")
    else:
        module["__builtins__"] = dict(module["__builtins__"])
    assert not guard_rules.unchanged(module, kept)


def test_a_key_shaped_like_a_name_is_a_change_and_is_never_asked():
    module = namespace()
    kept = guard_rules.snapshot(module)
    module[Shaped("name")] = module.pop("name")
    Shaped.asked = 0
    assert not guard_rules.unchanged(module, kept)
    assert Shaped.asked == 0
