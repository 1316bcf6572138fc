"""Step 1's stepper walks a request to its envelope and shows the id at every stage."""

from builders import parts, reference_namespace

from course.widgets.envelope import STAGES, envelope_explorer

pytestmark = []

# The reference answers, as the solution notebooks define them.
REFERENCE = reference_namespace()
make_envelope = REFERENCE["make_envelope"]


def walk(stepper, outcome):
    """Return (id line, view) for each stage of `outcome`."""
    found = parts(stepper)
    found["stepper-outcome"].value = outcome
    seen = []
    for stage in STAGES:
        found["stepper-stage"].value = stage
        seen.append((found["stepper-id-line"].value, found["stepper-view"].value))
    return seen


def test_a_success_keeps_its_id_at_every_stage_and_ends_in_the_students_envelope():
    seen = walk(envelope_explorer({"make_envelope": make_envelope}), "success")
    assert all("req-42" in id_line for id_line, _ in seen)
    assert "lookup_user" in seen[1][1]
    last_view = seen[-1][1]
    assert "&quot;ok&quot;: true" in last_view
    assert "came through unchanged" in last_view


def test_a_failure_keeps_the_id_0_and_shows_only_the_code_in_the_envelope():
    seen = walk(envelope_explorer({"make_envelope": make_envelope}), "failure")
    assert all("<code>0</code>" in id_line for id_line, _ in seen)
    assert "PermissionDeniedError" in seen[1][1]
    assert "permission_denied" in seen[2][1]
    last_view = seen[-1][1]
    assert "&quot;error&quot;: &quot;permission_denied&quot;" in last_view
    assert "may not read" not in last_view


def test_an_unfinished_make_envelope_shows_a_message_instead_of_raising():
    def unfinished(request_id, *, value=None, error=None):
        raise NotImplementedError()

    seen = walk(envelope_explorer({"make_envelope": unfinished}), "failure")
    assert "not finished yet" in seen[-1][1]


def test_an_envelope_that_loses_the_id_gets_a_warning():
    def careless(request_id, *, value=None, error=None):
        return make_envelope(request_id or "unknown", value=value, error=error)

    seen = walk(envelope_explorer({"make_envelope": careless}), "failure")
    assert (
        "its &#x27;id&#x27; is &#x27;unknown&#x27; (str), where 0 (int) was expected" in seen[-1][1]
    )
    assert "⚠" in seen[-1][1]
