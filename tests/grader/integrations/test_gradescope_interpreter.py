"""The hidden suite asks of an over-long int only what the grading interpreter's json.dumps does.

Python 3.11.0rc2 and later refuse to turn an int of more than 4,300 digits into text; Ubuntu
22.04's python3.11 (3.11.0rc1) does not, so there the reference encoded 10**5000, answered
result_too_large, and lost the point of a test expecting invalid_result. Such an interpreter is
stood in for here by one whose limit is switched off and whose getter is removed.
"""

import json
import subprocess
import sys

from gradescope_roots import PROJECT, REFERENCE

from grader.hidden.results import LONG_INTS_REFUSED, OUTSIDE

pytestmark = []

WITHOUT_LIMIT = "import sys; del sys.get_int_max_str_digits; sys.set_int_max_str_digits(0)\n"
ANSWERS = """
import json
from course import supplied
from grader.hidden.results import OUTSIDE
namespace = dict(vars(supplied))
exec(open(sys.argv[1], encoding="utf-8").read(), namespace)
request = {"id": 1, "tool": "big", "arguments": {}}
envelope = namespace["invoke_tool"](request, {"big": lambda arguments: {"n": 10**5000}})
print(json.dumps({"error": envelope["error"], "asked": "huge_int" in OUTSIDE}))
"""


def python(code, *arguments, isolated=False):
    flags = ["-I"] if isolated else []
    completed = subprocess.run(
        [sys.executable, *flags, "-c", code, *arguments],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return completed.stdout


def test_here_a_worker_refuses_the_long_int_and_the_suite_asks_for_invalid_result():
    refused = python(
        "import json\ntry: json.dumps(10**5000)\nexcept ValueError: print('no')", isolated=True
    )
    assert refused.strip() == "no"
    assert LONG_INTS_REFUSED
    assert OUTSIDE["huge_int"][1] == {"n": 10**5000}


def test_the_reference_answers_the_long_int_as_its_interpreter_allows_and_is_asked_no_more():
    here = json.loads(python("import sys\n" + ANSWERS, str(REFERENCE)))
    assert here == {"error": "invalid_result", "asked": True}
    without_limit = json.loads(python(WITHOUT_LIMIT + ANSWERS, str(REFERENCE)))
    assert without_limit == {"error": "result_too_large", "asked": False}
