"""Step 3's explorer compares json.dumps, the vocabulary's verdict and the student's encode_json."""

import json

from builders import part, parts, reference_namespace, unfinished

from course.widgets.vocabulary import EXAMPLES, OWN_VALUE, vocabulary_explorer

pytestmark = []

# The reference answers, as the solution notebooks define them.
REFERENCE = reference_namespace()
encode_json = REFERENCE["encode_json"]


def pick(found, start):
    found["vocabulary-pick"].value = next(
        i for i, (label, _) in enumerate(EXAMPLES) if label.startswith(start)
    )


def test_a_tuple_is_turned_into_a_list_by_json_dumps_but_refused_by_the_vocabulary():
    found = parts(vocabulary_explorer({"encode_json": encode_json}))
    pick(found, "tuple")
    assert "[1, 2, 3]" in found["vocabulary-dumps"].value
    assert "✗ outside" in found["vocabulary-check"].value
    assert "refuses it with <code>TypeError</code>" in found["vocabulary-encode"].value


def test_an_int_keyed_dict_and_nan_show_what_json_dumps_quietly_changes():
    found = parts(vocabulary_explorer({"encode_json": encode_json}))
    pick(found, "dict with int keys")
    assert "{&quot;1&quot;: &quot;one&quot;" in found["vocabulary-dumps"].value
    pick(found, "NaN")
    assert "NaN" in found["vocabulary-dumps"].value
    assert "ValueError" in found["vocabulary-encode"].value


def test_a_nested_ok_value_is_in_the_vocabulary_and_encoded_with_raw_characters():
    found = parts(vocabulary_explorer({"encode_json": encode_json}))
    pick(found, "nested record")
    assert "✓ in the vocabulary" in found["vocabulary-check"].value
    assert "山田 花子" in found["vocabulary-encode"].value
    assert "\\u5c71" in found["vocabulary-dumps"].value


def test_every_example_renders_with_an_unfinished_encode_json():
    found = parts(vocabulary_explorer({"encode_json": unfinished}))
    for index in range(len(EXAMPLES)):
        found["vocabulary-pick"].value = index
        assert "not finished yet" in found["vocabulary-encode"].value
        assert found["vocabulary-check"].value


def pick_own(explorer, literal):
    part(explorer, "vocabulary-pick").value = OWN_VALUE
    part(explorer, "vocabulary-own").value = literal
    return part(explorer, "vocabulary-verdict").value


def test_a_value_of_the_students_own_gets_a_verdict_on_their_encode_json():
    explorer = vocabulary_explorer({"encode_json": encode_json})
    assert pick_own(explorer, "(1, 2)").startswith("✓ Right: the value is outside the vocabulary")
    assert pick_own(explorer, "{'city': '東京'}").startswith("✓ Right: the exact JSON text")
    assert "東京" in part(explorer, "vocabulary-encode").value


def test_a_lenient_encode_json_is_told_it_should_refuse():
    lenient = {"encode_json": lambda value: json.dumps(value)}
    verdict = pick_own(vocabulary_explorer(lenient), "{1: 'one'}")
    assert verdict.startswith("✗ The value is outside the vocabulary, yet your encode_json")


def test_text_that_is_no_python_literal_is_told_in_a_sentence():
    explorer = vocabulary_explorer({"encode_json": encode_json})
    assert pick_own(explorer, "open('x')").startswith("That is not a Python literal.")
    assert part(explorer, "vocabulary-value").value == ""
