"""Bug classes that only large inputs show: a shortcut taken for arguments "too big to copy".

Rule 5 speaks of every call: arguments of a few MiB are copied as arguments of a few bytes are
(tooling/scenarios/sizes.py gives the hidden suite such calls).
"""

from tooling.mutation.anchors import FIRST_COPY, SECOND_COPY
from tooling.mutation.edits import ClassMutation, Edit

# Arguments whose JSON text is over 64 KiB are handed over as they are: 'default=str' keeps the
# measure itself from failing on what JSON cannot say.
LARGE = 'len(__import__("json").dumps(request["arguments"], default=str)) > 65536'


def _uncopied_when_large(anchor: str) -> str:
    copied = anchor.strip().removeprefix("arguments = ")
    return f'    arguments = request["arguments"] if {LARGE} else {copied}\n'


SIZE_MUTATIONS = (
    ClassMutation(
        "no-copy-for-large-arguments",
        ("ownership",),
        Edit("invoke_tool", FIRST_COPY, _uncopied_when_large(FIRST_COPY)),
        Edit("invoke_tool", SECOND_COPY, _uncopied_when_large(SECOND_COPY)),
    ),
)
