"""What the rest of the grader may use of the worker's code: the one door into sandbox/inside/.

    from grader.sandbox.crossing import ToolSpec, untag

sandbox/inside/ is exactly what the worker gets, and only grader.sandbox talks to a worker.
Outside this package, code needs the worker's vocabulary without its machinery: the hidden tests
and the visible checks name the messages that cross (inside/protocol.py) and decode the pictures
values cross as (inside/picture.py); the contract model builds a scenario's values and
exceptions, and answers a call, exactly as the worker does (inside/kinds.py, raising.py,
recipes.py), so the two never read a scenario differently. Those names are listed here, and
`make check` refuses any other import of sandbox/inside/ from outside grader.sandbox
(pyproject.toml's import contracts), so this list is all the rest relies on of the worker.
The one exception is the job's files (grader.jobfiles, grader.batch.dispatch), which name the
code-unit message straight from inside/protocol.py: the parent must not load the value
builders this module brings in.
"""

from grader.sandbox.inside.kinds import build
from grader.sandbox.inside.picture import Limit, Opaque, tag, untag
from grader.sandbox.inside.protocol import (
    CheckReply,
    CodeUnitMessage,
    Nest,
    NestedFact,
    ObservationData,
    RaisedFact,
    Tagged,
    Then,
    ToolSpec,
)
from grader.sandbox.inside.raising import EXCEPTION_CLASSES, make_raised
from grader.sandbox.inside.recipes import NESTED, answer_call, every_tool, inner_key, then_answer

__all__ = [
    "EXCEPTION_CLASSES",
    "NESTED",
    "CheckReply",
    "CodeUnitMessage",
    "Limit",
    "Nest",
    "NestedFact",
    "ObservationData",
    "Opaque",
    "RaisedFact",
    "Tagged",
    "Then",
    "ToolSpec",
    "answer_call",
    "build",
    "every_tool",
    "inner_key",
    "make_raised",
    "tag",
    "then_answer",
    "untag",
]
