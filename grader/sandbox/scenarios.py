"""The trusted scenario library: tool handlers built from plain data, for the worker to run.

A hidden test never sends code to the sandbox. It describes handlers as data (return this value,
raise this kind of exception, mutate the arguments, hand out a fixture's own object), and this
module builds them inside the worker. Every handler counts its calls and remembers what it
received, returned and raised, so `grader.sandbox.observe` can report on them.
"""

import builtins
import collections
import decimal
import enum

from course import supplied
from grader.sandbox.values import tag, untag

# Built before student code runs; see grader/sandbox/values.py for why built-ins are copied.
__builtins__ = dict(vars(builtins))

# The course's own classes, bound before a submission could replace them in `course.supplied`.
InvalidInputError = supplied.InvalidInputError
PermissionDeniedError = supplied.PermissionDeniedError
NotFoundError = supplied.NotFoundError


class QuietInputError(InvalidInputError):
    """A subclass of a course class, as a tool's own error type would be."""


class QuietDeniedError(PermissionDeniedError):
    """A subclass of a course class."""


class QuietMissingError(NotFoundError):
    """A subclass of a course class."""


class InputValueError(InvalidInputError, ValueError):
    """A course class mixed with a built-in exception, course class first."""


class ValueInputError(ValueError, InvalidInputError):
    """A course class mixed with a built-in exception, built-in first."""


class DeniedPermissionError(PermissionError, PermissionDeniedError):
    """A course class mixed with the built-in PermissionError."""


class MissingKeyError(KeyError, NotFoundError):
    """A course class mixed with KeyError, whose str() adds quotes."""


class AmbiguousError(InvalidInputError, NotFoundError):
    """An instance of two course classes: either code is correct."""


class HiddenFaultError(Exception):
    """A plain bug in a tool, with a type name that must never reach an envelope."""


class Unprintable:
    """An exception argument whose str() and repr() raise, so the exception's own do too.

    Carried by exceptions of exact built-in or course classes, so a test of rule 3 does not
    also depend on how a submission treats subclasses.
    """

    def __str__(self):
        raise RuntimeError("str() of this argument fails on purpose")

    def __repr__(self):
        raise RuntimeError("repr() of this argument fails on purpose")


class HiddenStop(BaseException):
    """A BaseException that is not an Exception, defined by a tool."""


# Same name as the course class, but unrelated to it: only the class decides the code.
LookalikeInputError = type("InvalidInputError", (Exception,), {"__module__": __name__})


class Level(enum.IntEnum):
    """An int subclass: equal to an int, but outside the vocabulary."""

    HIGH = 3


class Items(list):
    """A list subclass."""


class Text(str):
    """A str subclass."""


class Ratio(float):
    """A float subclass."""


class Thing:
    """A plain object with no JSON meaning."""


EXCEPTION_CLASSES = {
    "invalid_input": InvalidInputError,
    "permission_denied": PermissionDeniedError,
    "not_found": NotFoundError,
    "invalid_input_subclass": QuietInputError,
    "permission_denied_subclass": QuietDeniedError,
    "not_found_subclass": QuietMissingError,
    "invalid_input_mixin": InputValueError,
    "invalid_input_mixin_builtin_first": ValueInputError,
    "permission_denied_mixin": DeniedPermissionError,
    "not_found_mixin": MissingKeyError,
    "ambiguous": AmbiguousError,
    "key_error": KeyError,
    "value_error": ValueError,
    "permission_error": PermissionError,
    "file_not_found": FileNotFoundError,
    "lookup_error": LookupError,
    "type_error": TypeError,
    "runtime_error": RuntimeError,
    "recursion_error": RecursionError,
    "zero_division": ZeroDivisionError,
    "attribute_error": AttributeError,
    "stop_iteration": StopIteration,
    "plain_exception": Exception,
    "custom_exception": HiddenFaultError,
    "lookalike": LookalikeInputError,
    "keyboard_interrupt": KeyboardInterrupt,
    "system_exit": SystemExit,
    "generator_exit": GeneratorExit,
    "custom_base": HiddenStop,
}


def make_exception(kind, message):
    """Return a new exception of the named kind, carrying `message` in its args or notes."""
    if kind == "unicode_encode_error":
        return UnicodeEncodeError("utf-8", message, 0, 1, "surrogates not allowed")
    if kind == "exception_group":
        return ExceptionGroup(message, [InvalidInputError(message)])
    if kind == "chained":
        error = RuntimeError(message)
        error.__cause__ = InvalidInputError(message)
        return error
    if kind == "with_notes":
        error = HiddenFaultError("a tool failed")
        error.add_note(message)
        return error
    if kind == "unprintable":
        return RuntimeError(Unprintable())
    if kind == "unprintable_course":
        return NotFoundError(Unprintable())
    if kind == "structured_args":
        return InvalidInputError({"detail": message, "rows": [message]}, 42)
    return EXCEPTION_CLASSES[kind](message)


def build(recipe):
    """Return a new value from a recipe: a tagged value, or a named maker for what JSON lacks."""
    maker = recipe.get("make")
    if maker is None:
        return untag(recipe)
    if maker == "deep_list":
        value = []
        for _ in range(recipe["depth"] - 1):
            value = [value]
        return value
    if maker == "list_cycle":
        value = [1, 2]
        value.append(value)
        return {"items": value}
    if maker == "dict_cycle":
        value = {"name": "loop"}
        value["self"] = value
        return [value]
    if maker == "shared_list":
        shared = [1, "two", {"three": 3.0}]
        return {"first": shared, "second": shared}
    if maker == "exception":
        return {"error": HiddenFaultError(recipe.get("message", ""))}
    return _foreign(maker)


def _foreign(maker):
    """Return a value of a type outside the JSON vocabulary, wrapped in an ordinary dict."""
    makers = {
        "int_enum": lambda: Level.HIGH,
        "list_subclass": lambda: Items([1, 2]),
        "str_subclass": lambda: Text("text"),
        "float_subclass": lambda: Ratio(1.5),
        "ordered_dict": lambda: collections.OrderedDict(a=1),
        "default_dict": lambda: collections.defaultdict(list, a=[1]),
        "bytes": lambda: b"bytes",
        "bytearray": lambda: bytearray(b"bytes"),
        "complex": lambda: 1 + 2j,
        "decimal": lambda: decimal.Decimal("1.5"),
        "object": Thing,
        "function": lambda: len,
    }
    return {"data": [makers[maker]()]}


def mutate_deeply(value):
    """Change every list and dict reachable from `value`, at every depth."""
    containers, stack = [], [value]
    while stack and len(containers) < 100_000:
        node = stack.pop()
        # issubclass on the real type: an object cannot fake it the way it can fake __class__.
        if issubclass(type(node), dict):
            containers.append(node)
            stack.extend(dict.values(node))
        elif issubclass(type(node), list):
            containers.append(node)
            stack.extend(list.__iter__(node))
    for node in containers:
        if issubclass(type(node), dict):
            keys = list(dict.keys(node))
            if keys:
                dict.pop(node, keys[0])
            dict.__setitem__(node, "__changed__", [True])
        else:
            list.reverse(node)
            list.append(node, "__changed__")


class Handler:
    """A tool handler described by data: it counts calls and remembers what it saw."""

    def __init__(self, spec, fixture):
        self.spec = spec
        self.fixture = fixture
        self.calls = 0
        self.received = []
        self.returned = []
        self.raised = []

    def __call__(self, arguments):
        self.calls += 1
        self.received.append(tag(arguments))
        does = self.spec["does"]
        if does in ("mutate", "mutate_then_raise"):
            mutate_deeply(arguments)
        if does in ("raise", "mutate_then_raise") or (does == "flaky" and self.calls == 1):
            error = make_exception(self.spec["exception"], self.spec.get("message", ""))
            self.raised.append(error)
            raise error
        if does == "return_fixture":
            result = self.fixture
        elif does == "return_arguments":
            result = arguments
        else:
            result = build(self.spec.get("value", {"t": "none"}))
        self.returned.append(result)
        return result


def build_tools(specs):
    """Return the tools table for a scenario: a fresh dict of named handlers."""
    tools = {}
    for name, spec in specs.items():
        fixture = build(spec["fixture"]) if "fixture" in spec else None
        tools[name] = Handler(spec, fixture)
    return tools
