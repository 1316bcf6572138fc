"""Build what a tool call hands back from the trusted side's recipes: exceptions and values.

Only the guard calls these functions, and only on objects it made itself or on a submission's
objects through exact built-in methods, so no student code runs while they do.
"""

from __future__ import annotations

import asyncio
import builtins
import collections
import decimal
from typing import TYPE_CHECKING, Any, TypeVar

from grader.sandbox.inside.faults import (
    AmbiguousError,
    BrokenTextDeniedError,
    BrokenTextError,
    ClaimsEveryClassError,
    DeepMissingError,
    DeniedPermissionError,
    ExitingMissingError,
    HiddenFaultError,
    HiddenStop,
    InputValueError,
    InterruptedInputError,
    InvalidInputError,
    Items,
    Level,
    LookalikeInputError,
    LookalikeMissingError,
    MissingKeyError,
    NotFoundError,
    PermissionDeniedError,
    QuietDeniedError,
    QuietInputError,
    QuietMissingError,
    Ratio,
    StoppedFaultError,
    Text,
    Thing,
    UnhashableFaultError,
    UnhashableInputError,
    Unprintable,
    ValueInputError,
)
from grader.sandbox.inside.picture import untag

if TYPE_CHECKING:
    from grader.sandbox.inside.protocol import Raising, Tagged

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# Bound now: a submission may replace these in their modules, or give a class in `faults` an
# attribute lookup of its own, and the guard must not call what it put there.
_MRO = type.__dict__["__mro__"].__get__
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, so changeable
_SET_CAUSE = BaseException.__dict__["__cause__"].__set__
_SET_CONTEXT = BaseException.__dict__["__context__"].__set__
_SET_ATTRIBUTE = object.__setattr__
_HIGH = Level.HIGH
_ORDERED_DICT = collections.OrderedDict
_DEFAULT_DICT = collections.defaultdict
_DECIMAL = decimal.Decimal
Made = TypeVar("Made")

EXCEPTION_CLASSES: dict[str, type[BaseException]] = {
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
    "not_implemented": NotImplementedError,
    "os_error": OSError,
    "connection_error": ConnectionError,
    "timeout_error": TimeoutError,
    "memory_error": MemoryError,
    "module_not_found": ModuleNotFoundError,
    "process_lookup": ProcessLookupError,
    "index_error": IndexError,
    "assertion_error": AssertionError,
    "overflow_error": OverflowError,
    "unicode_error": UnicodeError,
    "custom_exception": HiddenFaultError,
    "lookalike": LookalikeInputError,
    "lookalike_not_found": LookalikeMissingError,
    "keyboard_interrupt": KeyboardInterrupt,
    "system_exit": SystemExit,
    "generator_exit": GeneratorExit,
    "custom_base": HiddenStop,
    # The generated scenarios' class zoo (grader/hidden/generated/): classes no table keyed by
    # class can hold, classes that are Exceptions and BaseException kinds at once, deep
    # subclasses, and classes whose own str() and repr() raise.
    "unhashable_invalid_input": UnhashableInputError,
    "unhashable_fault": UnhashableFaultError,
    "claims_every_class": ClaimsEveryClassError,
    "cancelled_error": asyncio.CancelledError,  # a BaseException, not an Exception
    "interrupted_invalid_input": InterruptedInputError,
    "exiting_not_found": ExitingMissingError,
    "stopped_fault": StoppedFaultError,
    "deep_not_found": DeepMissingError,
    "broken_text_fault": BrokenTextError,
    "broken_text_permission_denied": BrokenTextDeniedError,
    "child_process_error": ChildProcessError,
    "is_a_directory": IsADirectoryError,
    "floating_point_error": FloatingPointError,
    "import_error": ImportError,
    "name_error": NameError,
    "broken_pipe": BrokenPipeError,
    "arithmetic_error": ArithmeticError,
    "buffer_error": BufferError,
    "eof_error": EOFError,
    "stop_async_iteration": StopAsyncIteration,
}


# Every value maker `build` knows: the trusted side refuses any other name before asking.
MAKERS = frozenset(
    (
        *("deep_list", "list_cycle", "dict_cycle", "shared_list", "exception"),
        *("str_subclass_key", "str_subclass_top", "int_enum", "list_subclass", "str_subclass"),
        *("float_subclass", "ordered_dict", "default_dict", "decimal", "object"),
        *("bytes", "bytearray", "complex", "coroutine", "placed", "long_text"),
    )
)


def make_raised(raising: Raising) -> BaseException:
    """Return the exception a tool's answer describes: a kind, with its message or its own args.

    With "args", a kind of EXCEPTION_CLASSES is made with exactly those arguments (none: a
    class raised bare), and "attributes" are set on it (an errno, a retry_after, a code).
    """
    kind = raising["kind"]
    if "args" not in raising and "attributes" not in raising:
        return make_exception(kind, raising["message"])
    arguments = [untag(argument) for argument in raising.get("args", [raising["message"]])]
    error = _instance(EXCEPTION_CLASSES[kind], *arguments)
    for name, value in raising.get("attributes", {}).items():
        _SET_ATTRIBUTE(error, name, untag(value))
    return error


def make_exception(kind: str, message: str) -> BaseException:
    """Return a new exception of the named kind, carrying `message` in its args or notes."""
    if kind == "unicode_encode_error":
        return UnicodeEncodeError("utf-8", message, 0, 1, "surrogates not allowed")
    if kind == "exception_group":
        return ExceptionGroup(message, [_instance(InvalidInputError, message)])
    if kind == "chained":
        error: BaseException = _instance(RuntimeError, message)
        _SET_CAUSE(error, _instance(InvalidInputError, message))
        return error
    if kind in _WRAPPED:  # the code must come from the class alone, never from what it carries
        cls, clue = _WRAPPED[kind]
        return _with_clue(_instance(cls, message), clue)
    if kind == "with_notes":
        error = _instance(HiddenFaultError, "a tool failed")
        BaseException.add_note(error, message)
        return error
    if kind == "unprintable":
        return _instance(RuntimeError, _instance(Unprintable))
    if kind == "unprintable_course":
        return _instance(NotFoundError, _instance(Unprintable))
    if kind == "structured_args":
        return _instance(InvalidInputError, {"detail": message, "rows": [message]}, 42)
    return _instance(EXCEPTION_CLASSES[kind], message)


# Exceptions that carry a misleading clue: (class, where the clue is).
_WRAPPED: dict[str, tuple[type[BaseException], str]] = {
    "code_attribute": (ValueError, "attribute"),
    "course_code_attribute": (NotFoundError, "attribute"),
    "caused_by_course": (ValueError, "cause"),
    "course_caused_by_other": (PermissionDeniedError, "cause"),
    "context_of_course": (KeyError, "context"),
    "caused_by_connection": (RuntimeError, "connection cause"),
    "timeout_in_context": (ValueError, "timeout context"),
    "notes_spell_a_code": (RuntimeError, "notes"),
    "course_notes_spell_a_code": (InvalidInputError, "notes"),
}

# Every exception kind `make_exception` knows, for the trusted side to check its recipes against.
EXCEPTION_KINDS = frozenset(
    (
        *EXCEPTION_CLASSES,
        *_WRAPPED,
        *("unicode_encode_error", "exception_group", "chained", "with_notes"),
        *("unprintable", "unprintable_course", "structured_args"),
    )
)


def _with_clue(error: BaseException, clue: str) -> BaseException:
    """Give `error` a clue that names another code: an attribute, a cause, a context or a note."""
    if clue == "attribute":
        for name in ("code", "error", "error_code"):
            _SET_ATTRIBUTE(error, name, "permission_denied")
    elif clue == "cause":
        _SET_CAUSE(error, _instance(NotFoundError, "the record was not found"))
    elif clue == "context":
        _SET_CONTEXT(error, _instance(InvalidInputError, "invalid_input"))
    elif clue == "connection cause":  # what a retry loop looks at to call a failure temporary
        _SET_CAUSE(error, _instance(ConnectionError, "connection reset"))
    elif clue == "timeout context":
        _SET_CONTEXT(error, _instance(TimeoutError, "timed out"))
    else:
        for note in ("not_found", "code: permission_denied", "error=not_found", "[unknown_tool]"):
            BaseException.add_note(error, note)
    return error


def _instance(cls: type[Made], *args: object) -> Made:
    """Make an instance of `cls` with its nearest built-in base's own `__new__` and `__init__`.

    A submission can give the classes in `faults` (or the course's) a `__new__` or `__init__` of
    its own; calling them would run student code inside the guard.
    """
    base = next(b for b in _MRO(cls) if not b.__flags__ & _HEAP_TYPE)
    made: Made = base.__new__(cls, *args)
    if base is not object:
        base.__init__(made, *args)
    return made


def made_by_maker(recipe: Tagged) -> bool:
    """Say whether `build` makes the recipe's value with a maker, not from a plain picture.

    Only such a value can hold an object outside the pictures' types, a coroutine among them.
    """
    return type(recipe) is dict and recipe.get("make") is not None


def build(recipe: Tagged) -> object:
    """Return a new value from a recipe: a picture, or a named maker for what JSON lacks."""
    maker = recipe.get("make") if type(recipe) is dict else None
    if maker is None:
        return untag(recipe, hashing=True)  # the trusted side's own picture: real sets and keys
    if maker == "deep_list":
        value: list[Any] = []
        for _ in range(recipe["depth"] - 1):
            value = [value]
        return value
    if maker == "list_cycle":
        value = [1, 2]
        value.append(value)
        return {"items": value}
    if maker == "dict_cycle":
        record: dict[str, object] = {"name": "loop"}
        record["self"] = record
        return [record]
    if maker == "shared_list":
        shared = [1, "two", {"three": 3.0}]
        return {"first": shared, "second": shared}
    if maker == "str_subclass_key":
        return {str.__new__(Text, "key"): 1}
    if maker == "str_subclass_top":
        return str.__new__(Text, "text")
    if maker == "exception":
        return {"error": _instance(HiddenFaultError, recipe.get("message", ""))}
    if maker == "placed":
        return _placed(recipe)
    if maker == "long_text":  # a text of a mebibyte or more, without a mebibyte of recipe
        text = str.__mul__(recipe["text"], recipe["count"])
        return [text] if recipe.get("in_list") else text
    return {"data": [_foreign(maker)]}


def _placed(recipe: dict[str, Any]) -> object:
    """Return a picture's value with one foreign object put where the recipe says.

    "at" is a path of list indexes and dict keys to a list or dict of the value; the object
    (made by the maker named in "item") goes in that list at the path's last index, or in that
    dict under its last key. The generated scenarios hide values this way anywhere in a tree.
    """
    item = _foreign(recipe["item"])
    if not recipe["at"]:
        return item  # the value itself
    value = untag(recipe["value"], hashing=True)
    *path, last = recipe["at"]
    node: Any = value
    for step in path:
        node = node[step]
    if type(node) is list:
        list.insert(node, last, item)
    else:
        dict.__setitem__(node, last, item)
    return value


async def _pending() -> int:
    """A coroutine function of the guard's own: its coroutine is a value outside the vocabulary."""
    return 1


def _foreign(maker: str) -> object:
    """Return a value of a type outside the JSON vocabulary (classes bound at import, see above)."""
    if maker == "int_enum":
        return _HIGH
    if maker == "list_subclass":
        items = _instance(Items)
        list.extend(items, [1, 2])
        return items
    if maker == "str_subclass":
        return str.__new__(Text, "text")
    if maker == "float_subclass":
        return float.__new__(Ratio, 1.5)
    if maker == "ordered_dict":
        return _ORDERED_DICT(a=1)
    if maker == "default_dict":
        return _DEFAULT_DICT(list, a=[1])
    if maker == "decimal":
        return _DECIMAL("1.5")
    if maker == "object":
        return _instance(Thing)
    if maker == "coroutine":
        return _pending()  # closed by the guard when its scenario ends (report.close_coroutines)
    simple = {"bytes": b"bytes", "bytearray": bytearray(b"bytes"), "complex": 1 + 2j}
    return simple[maker]  # the trusted side names only makers of MAKERS (handlers.check_spec)


def mutate_deeply(value: object, released: list[object]) -> None:
    """Change every list and dict reachable from `value`, at every depth.

    Only exact built-in methods touch the nodes, and a cleared dict gains a plain `str` key, so
    no key's `__eq__` or `__hash__` runs. Whatever the change lets go of is appended to
    `released` instead of being freed here: a student's `__del__` must not run inside the guard.
    """
    containers: list[Any] = []
    stack: list[Any] = [value]
    while stack and len(containers) < 100_000:
        node = stack.pop()
        # issubclass on the real type: an object cannot fake it the way it can fake __class__.
        if issubclass(type(node), dict):
            containers.append(node)
            stack.extend(dict.values(node))
        elif issubclass(type(node), list):
            containers.append(node)
            stack.extend(list.__iter__(node))
    released.append(containers)
    for node in containers:
        if issubclass(type(node), dict):
            released.append(list(dict.items(node)))
            dict.clear(node)
            dict.__setitem__(node, "__changed__", [True])
        else:
            list.reverse(node)
            list.append(node, "__changed__")
