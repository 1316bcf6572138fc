"""Due date and late policy: when each submission came in, and what lateness costs.

    policy = parse_policy("per-hour:2", parse_due("2026-03-01T23:59+01:00"))
    policy.penalty(62.5, submitted)    # 2 points for every hour, or part of one, after the due date

The methods are nbgrader's: "none" (lateness is recorded, nothing is taken off), "zero" (a late
submission scores 0), and "per-hour:P" (P points off for every started hour, as nbgrader's
documented per-hour plugin does; `grader.integrations.nbgrader_plugins.PerHourPenalty` gives
nbgrader this very rule). A penalty never takes a score below 0.

When a submission was handed in comes only from sources the student cannot set
(grader.gradebook.times); without one, nothing is taken off.
"""

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grader.model import UsageError

METHODS = ("none", "zero", "per-hour")
SECONDS_PER_HOUR = 3600
_UTC_NAMES = ("UTC", "GMT", "Z")
# nbgrader writes "%Y-%m-%d %H:%M:%S.%f %Z"; its zone may also be a number such as +0100.
_ZONE_AT_END = re.compile(r"^(?P<time>.+?)\s+(?P<zone>[A-Za-z_/+-][\w/+-]*)$")


@dataclass(frozen=True)
class LatePolicy:
    """A due date and what a late submission loses."""

    due: datetime  # aware
    method: str = "none"  # one of METHODS
    points_per_hour: float = 0.0

    def seconds_late(self, submitted: datetime | None) -> float:
        """Return how many seconds after the due date `submitted` is (0 if on time or unknown)."""
        if submitted is None:
            return 0.0
        return max(0.0, (submitted - self.due).total_seconds())

    def penalty(self, score: float, submitted: datetime | None) -> float:
        """Return the points a submission scoring `score`, made at `submitted`, loses."""
        late = self.seconds_late(submitted)
        return late_penalty(self.method, self.points_per_hour, score, late)

    def describe(self) -> str:
        """Say the policy in one line for the run's summary."""
        due = self.due.isoformat(sep=" ", timespec="minutes")
        if self.method == "none":
            return f"due {due}; lateness is recorded, no points are taken off"
        if self.method == "zero":
            return f"due {due}; a late submission scores 0"
        points = f"{self.points_per_hour:g} point" + ("" if self.points_per_hour == 1 else "s")
        return f"due {due}; {points} off for every hour or part of one late"


def late_penalty(method: str, points_per_hour: float, score: float, seconds_late: float) -> float:
    """Return what a score loses `seconds_late` after the due date under `method`, never more."""
    if seconds_late <= 0 or method == "none":
        return 0.0
    if method == "zero":
        return round(max(score, 0.0), 2)
    hours = math.ceil(seconds_late / SECONDS_PER_HOUR)
    return round(max(0.0, min(score, hours * points_per_hour)), 2)


def parse_due(text: str) -> datetime:
    """Return the due date given on the command line; raise UsageError if it is not one.

    ISO 8601 with an offset ("2026-03-01T23:59+01:00"), or a date and time followed by a zone
    name ("2026-03-01 23:59 Europe/Paris", "… UTC"); without either, this machine's local time.
    """
    try:
        return parse_time(text, local=True)
    except ValueError:
        raise UsageError(
            f"--due {text!r} is not a date and time such as 2026-03-01T23:59+01:00 or "
            "'2026-03-01 23:59 Europe/Paris'"
        ) from None


def parse_policy(text: str | None, due: datetime | None) -> LatePolicy | None:
    """Return the policy for `--late-policy text` and `--due`; raise UsageError if unusable."""
    if due is None:
        if text is not None:
            raise UsageError("--late-policy needs --due, the date it counts lateness from")
        return None
    method, _, amount = (text or "none").partition(":")
    if method not in METHODS or (method == "per-hour") != bool(amount):
        raise UsageError(
            f"--late-policy {text!r} is not one of none, zero or per-hour:POINTS "
            "(such as per-hour:2, two points off for every hour or part of one)"
        )
    if method != "per-hour":
        return LatePolicy(due, method)
    try:
        points = float(amount)
    except ValueError:
        points = math.nan
    if not (math.isfinite(points) and points > 0):
        raise UsageError(f"--late-policy {text!r}: the points per hour must be a number above 0")
    return LatePolicy(due, method, points)


def parse_time(text: str, local: bool = False) -> datetime:
    """Return the aware datetime `text` names; raise ValueError if it names none.

    A time without a zone is UTC, as nbgrader reads it, unless `local` says it is local time.
    """
    text = text.strip()
    zone = None
    match = _ZONE_AT_END.match(text)
    if match:
        text, zone = match["time"], _zone(match["zone"])
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is not None:
        return moment
    if zone is not None:
        return moment.replace(tzinfo=zone)
    return moment.astimezone() if local else moment.replace(tzinfo=UTC)


def _zone(name: str) -> tzinfo | None:
    """Return the time zone `name` (UTC, Europe/Paris, +0100) means; raise ValueError if none."""
    if name.upper() in _UTC_NAMES:
        return UTC
    if re.fullmatch(r"[+-]\d{2}:?\d{2}", name):
        return datetime.strptime(name, "%z").tzinfo
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}") from None
