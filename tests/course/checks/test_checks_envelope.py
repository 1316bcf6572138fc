"""Step 1's check passes the reference and names what is wrong with realistic mistakes."""

from builders import failure_of, reference

from course.checks.envelope import check_make_envelope

pytestmark = []


def test_the_reference_passes_every_case():
    report = check_make_envelope(reference("make_envelope"))
    assert report.summary() == "All 6 checks of `make_envelope` passed."
    assert len(report.passed) == report.total == 6


def test_any_key_order_and_a_helper_of_the_students_own_are_accepted():
    def ordered(request_id, ok, value, error):
        return {"error": error, "value": value, "ok": ok, "id": request_id}

    def make_envelope(request_id, *, value=None, error=None):
        if error is not None:
            return ordered(request_id, False, None, error)
        return ordered(request_id, True, value, None)

    assert check_make_envelope(make_envelope).summary() == "All 6 checks of `make_envelope` passed."


def test_ok_given_as_an_int_is_caught_with_a_hint_about_bools():
    def make_envelope(request_id, *, value=None, error=None):
        ok = 1 if error is None else 0
        return {"id": request_id, "ok": ok, "value": value, "error": error}

    message = failure_of(check_make_envelope, make_envelope)
    assert "'ok' is 1 (int)" in message
    assert "must be the bool True or False" in message


def test_ok_the_wrong_way_round_gets_a_hint_about_its_direction_not_its_type():
    def make_envelope(request_id, *, value=None, error=None):
        ok = error is not None  # the wrong way round, but a real bool
        return {"id": request_id, "ok": ok, "value": value, "error": error}

    message = failure_of(check_make_envelope, make_envelope)
    assert "'ok' is False (bool)" in message
    assert "must be the bool" not in message
    assert "True for a success" in message


def test_replacing_a_falsy_id_is_caught():
    def make_envelope(request_id, *, value=None, error=None):
        request_id = request_id or "unknown"
        if error is None:
            return {"id": request_id, "ok": True, "value": value, "error": None}
        return {"id": request_id, "ok": False, "value": None, "error": error}

    message = failure_of(check_make_envelope, make_envelope)
    assert message.startswith('The ids 0, "", "0"')
    assert "'unknown'" in message


def test_treating_an_empty_value_as_a_failure_is_caught():
    def make_envelope(request_id, *, value=None, error=None):
        if value:
            return {"id": request_id, "ok": True, "value": value, "error": None}
        return {"id": request_id, "ok": False, "value": None, "error": error}

    message = failure_of(check_make_envelope, make_envelope)
    assert "make_envelope('req-" in message
    assert "'ok' is False (bool)" in message


def test_a_missing_key_is_named():
    def make_envelope(request_id, *, value=None, error=None):
        return {"id": request_id, "ok": error is None, "value": value}

    assert "exactly the keys 'error', 'id', 'ok' and 'value'" in failure_of(
        check_make_envelope, make_envelope
    )


def test_an_unfinished_exercise_gets_the_not_finished_message():
    def make_envelope(request_id, *, value=None, error=None):
        raise NotImplementedError()

    assert "`make_envelope` is not finished yet" in failure_of(check_make_envelope, make_envelope)
