"""Every explorer judges with the student's current code, agrees with the check, and never raises.

Each explorer takes the notebook's namespace and looks the student's functions up each time it
shows something: a kernel without them (a restart) gets a sentence, a redefined function is
used at once, and a last line gives the visible check's verdict on it.
"""

import ipywidgets as widgets
import pytest
from builders import all_parts, part, reference_namespace

from course.widgets.envelope import envelope_explorer
from course.widgets.error_codes import error_codes_explorer
from course.widgets.invoke_tool import invoke_tool_explorer
from course.widgets.no_retry import no_retry_explorer
from course.widgets.ownership import ownership_explorer
from course.widgets.unicode_boundary import unicode_boundary_explorer
from course.widgets.vocabulary import vocabulary_explorer

pytestmark = []

# Each explorer, the function whose check it shows, the class of its check line, and a version
# of that function the check rejects.
EXPLORERS = {
    "envelope": (envelope_explorer, "make_envelope", "stepper-check", lambda i, **k: {"id": i}),
    "error_codes": (error_codes_explorer, "failure_code", "failure-check", lambda e: "x"),
    "vocabulary": (vocabulary_explorer, "encode_json", "vocabulary-step-check", repr),
    "unicode_boundary": (
        unicode_boundary_explorer,
        "budget_error",
        "budget-check",
        lambda t, b: None,
    ),
    "ownership": (ownership_explorer, "fresh_value", "ownership-check", lambda text: {}),
    "no_retry": (no_retry_explorer, "call_once", "no-retry-check", lambda h, a: (True, 1)),
    "invoke_tool": (invoke_tool_explorer, "invoke_tool", "playground-check", lambda r, t, **k: {}),
}


def shown(explorer, css_class):
    """Show the explorer's check line: the playground fills it in when it runs."""
    if "playground" in explorer._dom_classes:
        part(explorer, "playground-run").click()
    return part(explorer, css_class).value


@pytest.mark.parametrize("name", EXPLORERS)
def test_on_the_reference_the_check_line_says_it_passes(name):
    build, function, css_class, _wrong = EXPLORERS[name]
    line = shown(build(reference_namespace()), css_class)
    assert line.startswith("✓ The check of this step passes on your")
    assert f"<code>{function}</code>" in line


@pytest.mark.parametrize("name", EXPLORERS)
def test_on_a_version_the_check_rejects_the_explorer_does_not_praise_it(name):
    build, function, css_class, wrong = EXPLORERS[name]
    namespace = dict(reference_namespace(), **{function: wrong})
    line = shown(build(namespace), css_class)
    assert line.startswith("⚠ The check of this step does not pass on your")
    assert "✓" not in line


@pytest.mark.parametrize("name", EXPLORERS)
def test_without_the_students_functions_the_explorer_says_so_and_raises_nothing(name):
    build, function, css_class, _wrong = EXPLORERS[name]
    explorer = build({})
    assert f"Your <code>{function}</code> is not defined in this kernel" in shown(
        explorer, css_class
    )


@pytest.mark.parametrize("name", EXPLORERS)
def test_every_label_is_shown_at_its_natural_width(name):
    explorer = EXPLORERS[name][0](reference_namespace())
    described = [w for w in all_parts(explorer) if getattr(w, "description", "")]
    labelled = [w for w in described if not isinstance(w, widgets.Button)]
    assert labelled, "the explorer has no labelled control"
    for control in labelled:
        assert control.style.description_width == "initial", control.description
    for control in described:
        if isinstance(control, widgets.Button):
            assert control.layout.width == "auto", control.description


def test_a_function_redefined_after_the_explorer_was_shown_is_the_one_used():
    namespace = reference_namespace()
    explorer = unicode_boundary_explorer(namespace)
    namespace["budget_error"] = lambda text, budget: "result_too_large"  # the student re-ran a cell
    part(explorer, "budget-bytes").value = 9
    assert "Your budget_error says result_too_large" in part(explorer, "budget-verdict").value
    assert part(explorer, "budget-check").value.startswith("⚠")


@pytest.mark.parametrize("name", EXPLORERS)
def test_an_explorer_with_a_text_box_says_ctrl_s_there_does_not_save(name):
    # The issue: Ctrl+S in the step 3 and step 7 boxes silently did not save; only step 4 said so.
    explorer = EXPLORERS[name][0](reference_namespace())
    boxes = [w for w in all_parts(explorer) if isinstance(w, widgets.Text | widgets.Textarea)]
    notes = [w for w in all_parts(explorer) if "save-note" in w._dom_classes]
    assert len(notes) == (1 if boxes else 0), name
    if notes:
        assert "does not save the notebook" in notes[0].value
