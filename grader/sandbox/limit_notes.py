"""What a student reads when their submission ran past one of its limits."""

from grader.model import Limits
from grader.sandbox.clock import wall_limit


def held(limits: Limits) -> str:
    """The submission sent the grader more than it keeps for one submission."""
    return (
        f"Your code handed the grader more data than it keeps for one submission "
        f"({limits.held_mb} MB as the grader counts it, about twenty times what a "
        "correct invoke_tool needs), so the tests after that point are marked memory. "
        "Look for very large values or arguments built in invoke_tool."
    )


def trusted_time(limits: Limits) -> str:
    """Reading what the submission sent took the grader longer than its time limit."""
    return (
        "Reading what your code handed the grader took longer than your time limit of "
        f"{limits.timeout:g} seconds, so the tests after that point are marked "
        "timeout. Look for very large or deeply nested values built in invoke_tool."
    )


def restarts(started: int, limits: Limits) -> str:
    """The submission's process ended so often that starting it again used the grader's time."""
    return (
        f"Your code's process ended again and again (the grader started it {started} times: "
        "os._exit() or a crash at nearly every call?), and starting it anew took the grader "
        f"longer than your time limit of {limits.timeout:g} seconds, so the tests after that "
        "point are marked timeout. Look for what ends the process in invoke_tool."
    )


def used_time(spent: float, limits: Limits) -> str:
    """What the code used of its processor time, the limit, and the wall clock's end if met."""
    used = f"Your code used {spent:.1f} seconds of processor time"
    limit = f"the limit is {limits.timeout:g} seconds"
    if spent >= limits.timeout:
        return f"{used}; {limit}."
    return (
        f"{used} ({limit}), but it waited so long (sleeping, or blocked) that it was still "
        f"running after {wall_limit(limits.timeout):g} seconds on the wall clock, when the "
        "grader stops it."
    )
