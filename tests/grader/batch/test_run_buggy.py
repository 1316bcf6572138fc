"""A bug in one rule costs the tests of that rule's category, and no other category's.

A test of another category may step aside (not_judged) for a case the bug decided; it must
never fail.
"""

import pytest

from grader.batch.run import RunSettings, run_submissions
from grader.model import NOT_JUDGED, CodeUnit, Submission
from grader.paths import PROJECT_ROOT

pytestmark = [pytest.mark.bwrap]

REFERENCE = (PROJECT_ROOT / "fixtures/submissions/correct/reference.py").read_text(encoding="utf-8")

# name: (text of the reference, its buggy replacement, the one category that must fail)
BUGS = {
    "ok_is_one": ('"ok": True,', '"ok": 1,', "envelope"),
    "id_lost_when_falsy": (
        'request_id = request["id"]',
        'request_id = request["id"] or None',
        "envelope",
    ),
    "permission_error_is_denied": (
        "isinstance(exc, PermissionDeniedError)",
        "isinstance(exc, (PermissionDeniedError, PermissionError))",
        "error_codes",
    ),
    "swallows_base_exceptions": (
        "except Exception as exc:",
        "except BaseException as exc:",
        "error_codes",
    ),
    "prints_the_exception": (
        "    except Exception as exc:\n        return False, exc",
        "    except Exception as exc:\n        print('failed:', exc)\n        return False, exc",
        # print() is private, but str() of an unprintable exception escapes: rule 8; and the twin
        # of that exception with a printable text gets an envelope, so rule 3 too.
        "error_codes redaction",
    ),
    "trusts_json_dumps": ("    check_json_value(value)\n", "", "vocabulary"),
    # The surrogate's UnicodeEncodeError escapes invoke_tool: rule 8, never raise for a handler.
    # Raising for text that cannot be encoded breaks rule 8 and the invalid_result code: both.
    "misses_surrogates": (
        "except UnicodeEncodeError:",
        "except ZeroDivisionError:",
        "error_codes vocabulary",
    ),
    "refuses_surrogates_late": (
        '        return "invalid_result"\n',
        '        return "result_too_large"\n',
        "vocabulary",
    ),
    "compact_separators": (
        "allow_nan=False)",
        "allow_nan=False, separators=(',', ':'))",
        "unicode_boundary",
    ),
    "no_argument_copy": ("return copy.deepcopy(arguments)", "return arguments", "ownership"),
    "value_not_fresh": ("value=fresh_value(text)", "value=outcome", "ownership"),
    "retries_failures": (
        "    except Exception as exc:\n        return False, exc",
        "    except Exception as exc:\n        try:\n            return True, handler(arguments)\n"
        "        except Exception:\n            return False, exc",
        "no_retry",
    ),
}


@pytest.fixture(scope="module")
def results():
    submissions = []
    for name, (old, new, _) in BUGS.items():
        assert old in REFERENCE, name
        source = REFERENCE.replace(old, new)
        submissions.append(Submission(name, name, "python", (CodeUnit(name, name, source),)))
    runs = run_submissions(submissions, RunSettings(jobs=2))
    return {result.submission.student: result for result in runs}


@pytest.mark.parametrize("name", BUGS)
def test_bug_costs_exactly_its_own_category(results, name):
    failed = {o.category for o in results[name].outcomes if o.status not in ("passed", NOT_JUDGED)}
    assert failed == set(BUGS[name][2].split())
    assert results[name].status == "completed"


@pytest.mark.parametrize("name", BUGS)
def test_a_step_aside_names_the_category_whose_rule_decided_it(results, name):
    """results.json says which rule's fault hid a test: the category its test stepped aside for."""
    for outcome in results[name].outcomes:
        if outcome.status == NOT_JUDGED:
            assert outcome.decided_by in BUGS[name][2].split(), outcome
        else:
            assert outcome.decided_by == "", outcome


def test_some_bug_hides_cases_of_another_category(results):
    hidden = {o.decided_by for r in results.values() for o in r.outcomes if o.status == NOT_JUDGED}
    assert hidden and "" not in hidden
