"""Build the exceptions a tool raises from the trusted side's recipes (protocol.Raising).

Only the guard calls these functions, on classes of its own (faults.py) or built-in ones, and
makes each instance with its nearest built-in base's own `__new__` and `__init__`, so no student
code runs while it does.
"""

from __future__ import annotations

import asyncio
import builtins
from typing import TYPE_CHECKING, TypeVar

from grader.sandbox.inside.faults import (
    AmbiguousError,
    BrokenTextDeniedError,
    BrokenTextError,
    ClaimsEveryClassError,
    DeepMissingError,
    DeniedPermissionError,
    EmptyMissingError,
    ExitingMissingError,
    FalsyFaultError,
    FalsyInputError,
    HashlessFaultError,
    HashlessInputError,
    HiddenFaultError,
    HiddenStop,
    InputValueError,
    InterruptedInputError,
    InvalidInputError,
    LookalikeInputError,
    LookalikeMissingError,
    MissingKeyError,
    NotFoundError,
    PermissionDeniedError,
    QuietDeniedError,
    QuietInputError,
    QuietMissingError,
    StoppedFaultError,
    TouchyDeniedError,
    TouchyFaultError,
    UnhashableFaultError,
    UnhashableInputError,
    Unprintable,
    ValueInputError,
)
from grader.sandbox.inside.picture import untag

if TYPE_CHECKING:
    from grader.sandbox.inside.protocol import Raising

# Private built-ins: see grader/sandbox/inside/picture.py.
__builtins__ = dict(vars(builtins))  # type: ignore[assignment]

# Bound now: a submission may replace these in their modules, or give a class in `faults` an
# attribute lookup of its own, and the guard must not call what it put there.
_MRO = type.__dict__["__mro__"].__get__
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, so changeable
_SET_CAUSE = BaseException.__dict__["__cause__"].__set__
_SET_CONTEXT = BaseException.__dict__["__context__"].__set__
_SET_ATTRIBUTE = object.__setattr__
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
    # The generated scenarios' class zoo (grader/hidden/judge/): classes no table keyed by
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
    # Instances that a careless submission tests for truth, asks for an attribute or hashes:
    # falsy ones, ones whose unknown attributes raise RuntimeError, unhashable ones.
    "falsy_invalid_input": FalsyInputError,
    "falsy_fault": FalsyFaultError,
    "empty_not_found": EmptyMissingError,
    "touchy_fault": TouchyFaultError,
    "touchy_permission_denied": TouchyDeniedError,
    "hashless_invalid_input": HashlessInputError,
    "hashless_fault": HashlessFaultError,
}


def make_raised(raising: Raising) -> BaseException:
    """Return the exception a tool's answer describes: a kind, with its message or its own args.

    With "args", a kind of EXCEPTION_CLASSES is made with exactly those arguments (none: a
    class raised bare), and "attributes" are set on it (an errno, a retry_after, a code).
    """
    kind = raising["kind"]
    if "args" not in raising and "attributes" not in raising:
        return make_exception(kind, raising["message"])
    arguments = [untag(argument) for argument in raising.get("args", [raising["message"]])]
    error = instance(EXCEPTION_CLASSES[kind], *arguments)
    for name, value in raising.get("attributes", {}).items():
        _SET_ATTRIBUTE(error, name, untag(value))
    return error


def make_exception(kind: str, message: str) -> BaseException:
    """Return a new exception of the named kind, carrying `message` in its args or notes."""
    if kind == "unicode_encode_error":
        return UnicodeEncodeError("utf-8", message, 0, 1, "surrogates not allowed")
    if kind == "exception_group":
        return ExceptionGroup(message, [instance(InvalidInputError, message)])
    if kind == "group_of_codes":  # every member has a code; the group itself has none
        members = [instance(NotFoundError, message), instance(PermissionDeniedError, message)]
        return ExceptionGroup(message, members)
    if kind in ("interrupt_group", "interrupt_and_course_group"):
        # A KeyboardInterrupt makes the group a BaseExceptionGroup, not an Exception.
        held: list[BaseException] = [instance(KeyboardInterrupt, message)]
        if kind == "interrupt_and_course_group":
            held.insert(0, instance(NotFoundError, message))
        return instance(BaseExceptionGroup, message, held)
    if kind == "course_in_args":  # a course error carried as data, not raised
        return instance(RuntimeError, instance(NotFoundError, message))
    if kind == "deep_cause_chain":  # the course error two links down the chain
        outer, middle = instance(ValueError, message), instance(RuntimeError, message)
        _SET_CONTEXT(middle, instance(InvalidInputError, message))
        _SET_CAUSE(outer, middle)
        return outer
    if kind == "chained":
        error: BaseException = instance(RuntimeError, message)
        _SET_CAUSE(error, instance(InvalidInputError, message))
        return error
    if kind in _WRAPPED:  # the code must come from the class alone, never from what it carries
        cls, clue = _WRAPPED[kind]
        return _with_clue(instance(cls, message), clue)
    if kind == "with_notes":
        error = instance(HiddenFaultError, "a tool failed")
        BaseException.add_note(error, message)
        return error
    if kind == "unprintable":
        return instance(RuntimeError, instance(Unprintable))
    if kind == "unprintable_course":
        return instance(NotFoundError, instance(Unprintable))
    if kind == "structured_args":
        return instance(InvalidInputError, {"detail": message, "rows": [message]}, 42)
    return instance(EXCEPTION_CLASSES[kind], message)


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
        *("group_of_codes", "interrupt_group", "interrupt_and_course_group"),
        *("course_in_args", "deep_cause_chain"),
    )
)


def _with_clue(error: BaseException, clue: str) -> BaseException:
    """Give `error` a clue that names another code: an attribute, a cause, a context or a note."""
    if clue == "attribute":
        for name in ("code", "error", "error_code"):
            _SET_ATTRIBUTE(error, name, "permission_denied")
    elif clue == "cause":
        _SET_CAUSE(error, instance(NotFoundError, "the record was not found"))
    elif clue == "context":
        _SET_CONTEXT(error, instance(InvalidInputError, "invalid_input"))
    elif clue == "connection cause":  # what a retry loop looks at to call a failure temporary
        _SET_CAUSE(error, instance(ConnectionError, "connection reset"))
    elif clue == "timeout context":
        _SET_CONTEXT(error, instance(TimeoutError, "timed out"))
    else:
        for note in ("not_found", "code: permission_denied", "error=not_found", "[unknown_tool]"):
            BaseException.add_note(error, note)
    return error


def instance(cls: type[Made], *args: object) -> Made:
    """Make an instance of `cls` with its nearest built-in base's own `__new__` and `__init__`.

    A submission can give the classes in `faults` (or the course's) a `__new__` or `__init__` of
    its own; calling them would run student code inside the guard.
    """
    base = next(b for b in _MRO(cls) if not b.__flags__ & _HEAP_TYPE)
    made: Made = base.__new__(cls, *args)
    if base is not object:
        base.__init__(made, *args)
    return made
