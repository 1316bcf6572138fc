"""The lesson's manifest: its assignment name and its steps, read from course/steps.toml.

Each step is one notebook with its exercise cells, the names they define and the grading
categories it teaches. The lessons, the visible checks, the grader and the build tools all
read the steps from here.
"""

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from course.contract import category_named

STEPS_FILE = Path(__file__).with_name("steps.toml")


@dataclass(frozen=True)
class Step:
    """One step of the lesson: a notebook, its exercise cells and the names they define."""

    number: int
    notebook: str
    title: str
    exercises: tuple[str, ...]
    defines: tuple[str, ...]
    categories: tuple[str, ...]

    @property
    def label(self) -> str:
        """How messages name this step to a student (a notebook outside the lesson by its name)."""
        return f"Step {self.number} ({self.notebook})" if self.number else self.notebook

    @property
    def module(self) -> str:
        """The name of the step's check and explorer modules (course/checks/, course/widgets/).

        One name per idea: a step is named after the grading category it teaches (its first,
        when it teaches two), and a step no category grades after its notebook.
        """
        if self.categories:
            return self.categories[0]
        return self.notebook.removesuffix(".ipynb").split("-", 1)[-1].replace("-", "_")


@dataclass(frozen=True)
class Course:
    """The lesson's assignment name, its graded steps in order, and the practice steps after."""

    assignment: str
    steps: tuple[Step, ...]
    # Steps after the graded ones: they load every graded step and the grader never reads them.
    practice: tuple[Step, ...] = ()

    def step_for_notebook(self, notebook_name: str) -> Step | None:
        """Return the step taught in `notebook_name`, or None for a notebook outside the lesson."""
        return next((s for s in self.all_steps if s.notebook == notebook_name), None)

    def step_defining(self, name: str) -> Step | None:
        """Return the step whose exercise defines `name`, or None."""
        return next((s for s in self.all_steps if name in s.defines), None)

    @property
    def all_steps(self) -> tuple[Step, ...]:
        """Every step, graded then practice, in lesson order."""
        return self.steps + self.practice


def load_course(steps_file: str | Path = STEPS_FILE) -> Course:
    """Read the lesson's steps from the course manifest.

    A category the contract does not have raises KeyError naming the categories it has.
    """
    data = tomllib.loads(Path(steps_file).read_text(encoding="utf-8"))
    entries: list[dict[str, Any]] = [*data["steps"], *data.get("practice", ())]
    steps = tuple(
        Step(
            number=number,
            notebook=entry["notebook"],
            title=entry["title"],
            exercises=tuple(entry["exercises"]),
            defines=tuple(entry["defines"]),
            categories=tuple(category_named(name).name for name in entry["categories"]),
        )
        for number, entry in enumerate(entries, start=1)
    )
    graded = len(data["steps"])
    return Course(assignment=data["assignment"], steps=steps[:graded], practice=steps[graded:])
