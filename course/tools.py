"""Example tool handlers built on the small records in course/records, used by the lessons.

Each handler takes one positional dict of arguments, as CONTRACT.md says a handler does. Some
succeed, and some fail on purpose so a lesson can show each failure code: a lookup that finds
nothing, a permission check, an argument check, a value too large, a value outside the JSON
vocabulary and a plain bug whose message holds a private marker.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from course.supplied import InvalidInputError, NotFoundError, PermissionDeniedError

# Package data, so a normal (non-editable) install of the course still finds them.
RECORDS_DIR = Path(__file__).resolve().parent / "records"

# A string that stands for private context (a host name, a secret, a row of someone's data).
# If it ever shows up in an envelope, exception text has leaked to the model.
PRIVATE_MARKER = "PRIVATE-7f3a"

# What a handler is given, and a handler: one positional dict of JSON values in, anything out.
Arguments = dict[str, Any]
Handler = Callable[[Arguments], Any]


def load_records(name: str, records_dir: str | Path = RECORDS_DIR) -> Any:
    """Read one record file, such as "users", from the records folder."""
    return json.loads((Path(records_dir) / f"{name}.json").read_text(encoding="utf-8"))


class FixtureTools:
    """Tool handlers that share one in-memory copy of the records, as a real service would."""

    def __init__(self, records_dir: str | Path = RECORDS_DIR) -> None:
        users, documents = (
            load_records("users", records_dir),
            load_records("documents", records_dir),
        )
        self.users: dict[str, dict[str, Any]] = {user["id"]: user for user in users}
        # Looked up by whatever id a request sends, of any type: a miss is a NotFoundError.
        self.documents: dict[Any, dict[str, Any]] = {doc["id"]: doc for doc in documents}
        self.teams: dict[Any, dict[str, Any]] = load_records("teams", records_dir)

    def handlers(self) -> dict[str, Handler]:
        """Return a new dict from tool name to handler, ready to pass to `invoke_tool`."""
        return {
            "lookup_user": self.lookup_user,
            "read_document": self.read_document,
            "convert_temperature": self.convert_temperature,
            "team_roster": self.team_roster,
            "export_everything": self.export_everything,
            "user_tags": self.user_tags,
            "usage_stats": self.usage_stats,
        }

    def _user(self, arguments: Arguments, key: str = "user_id") -> dict[str, Any]:
        user_id = arguments.get(key)
        if not isinstance(user_id, str):
            raise InvalidInputError(f"{key} must be a string, got {user_id!r}")
        if user_id not in self.users:
            raise NotFoundError(f"no user with id {user_id!r}")
        return self.users[user_id]

    def lookup_user(self, arguments: Arguments) -> dict[str, Any]:
        """Return a user's name, city and role; NotFoundError for an unknown id."""
        user = self._user(arguments)
        return {"id": user["id"], "name": user["name"], "city": user["city"], "role": user["role"]}

    def read_document(self, arguments: Arguments) -> dict[str, Any]:
        """Return a document; private ones only to their owner (PermissionDeniedError)."""
        reader = self._user(arguments, key="as_user")
        document = self.documents.get(arguments.get("document_id"))
        if document is None:
            raise NotFoundError(f"no document {arguments.get('document_id')!r}")
        if document["visibility"] == "private" and document["owner"] != reader["id"]:
            raise PermissionDeniedError(f"{reader['id']} may not read {document['id']}")
        return {"title": document["title"], "body": document["body"]}

    def convert_temperature(self, arguments: Arguments) -> dict[str, Any]:
        """Convert Celsius to Fahrenheit; InvalidInputError for a non-number or below -273.15."""
        celsius: Any = arguments.get("celsius")
        if type(celsius) not in (int, float):
            raise InvalidInputError(f"celsius must be a number, got {celsius!r}")
        if celsius < -273.15:
            raise InvalidInputError(f"{celsius} °C is below absolute zero")
        return {"celsius": celsius, "fahrenheit": round(celsius * 9 / 5 + 32, 2)}

    def team_roster(self, arguments: Arguments) -> dict[str, Any]:
        """Return a team's nested member and shift lists: the very lists the records hold."""
        team = self.teams.get(arguments.get("team_id"))
        if team is None:
            raise NotFoundError(f"no team {arguments.get('team_id')!r}")
        # Handing out internal lists is the hazard the ownership step is about.
        return {"name": team["name"], "members": team["members"], "shifts": team["shifts"]}

    def export_everything(self, arguments: Arguments) -> list[dict[str, Any]]:
        """Return every user many times over: far more than a small byte budget allows."""
        copies = arguments.get("copies", 40)
        return [dict(user, copy=n) for n in range(copies) for user in self.users.values()]

    def user_tags(self, arguments: Arguments) -> set[str]:
        """Return a user's tags as a set: a Python value that JSON has no word for."""
        return set(self._user(arguments)["tags"])

    def usage_stats(self, arguments: Arguments) -> int:
        """Fail with a plain bug whose message holds private context, as real bugs often do."""
        user = self._user(arguments)
        # The bug: a lookup in a table that has no row for this user, keyed by private context.
        quotas = {f"{PRIVATE_MARKER} db=prod-eu-1 user=u-999": 10}
        return quotas[f"{PRIVATE_MARKER} db=prod-eu-1 user={user['id']}"]


def fixture_tools(records_dir: str | Path = RECORDS_DIR) -> dict[str, Handler]:
    """Return a fresh dict of the example tools, each sharing one fresh copy of the records."""
    return FixtureTools(records_dir).handlers()


class CallCounter:
    """Wrap a handler and count how many times it is called: the test aid for "no retry"."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.calls = 0

    def __call__(self, arguments: Arguments) -> Any:
        self.calls += 1
        return self.handler(arguments)
