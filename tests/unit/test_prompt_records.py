"""Validation of prompt records: every kind of bad line gets a message that names the problem."""

import json

import pytest

from prompts_taxonomy import PromptRecordError, load_taxonomy, parse_prompt_lines, validate_record

TAX = load_taxonomy()
GOOD = {
    "id": "t2i-test-01",
    "modality": "text_to_image",
    "text": "A ceramic mug on a wooden desk next to a window at dawn",
    "use_case": "retail_ecommerce",
    "capability": "material",
    "styles": ["photorealistic"],
}
EDIT = {
    "id": "edit-test-01",
    "modality": "image_editing",
    "text": "Replace the cup on the table with a glass of orange juice",
    "use_case": "consumer",
    "capability": "material",
    "styles": [],
    "reference_image": "photo.png",
    "edit_kind": "object_replace",
    "edit_region": [0.2, 0.3, 0.6, 0.9],
}


def test_a_good_text_to_image_record_validates_to_its_cell():
    record = validate_record(GOOD, TAX)
    assert record.cell == ("retail_ecommerce", "material")
    assert record.styles == ("photorealistic",)


def test_a_good_edit_record_keeps_reference_kind_and_region():
    record = validate_record(EDIT, TAX)
    assert record.reference_image == "photo.png"
    assert record.edit_region == (0.2, 0.3, 0.6, 0.9)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"use_case": "cooking"}, "unknown use case 'cooking'"),
        ({"capability": "vibes"}, "unknown capability 'vibes'"),
        ({"styles": ["oil-on-velvet"]}, "unknown style 'oil-on-velvet'"),
        ({"modality": "video"}, "unknown modality 'video'"),
        ({"use_case": None}, "missing field 'use_case'"),
        ({"text": "   "}, "field 'text' is empty"),
        ({"text": "x" * 2001}, "too long (2001 > 2000"),
        ({"text": "a cat"}, "too short"),
        ({"negative_prompt": "blurry"}, "negative prompts are not allowed"),
        ({"Negative-Prompt": ""}, "negative prompts are not allowed"),
        ({"seed": 42}, "unknown field(s): seed"),
        ({"id": "Bad Id!"}, "must be 1-80 characters"),
        ({"reference_image": "a.png"}, "only for image_editing"),
        ({"batch": "2026-13"}, "YYYY-MM"),
        ({"styles": "photorealistic"}, "must be a list"),
    ],
)
def test_each_kind_of_bad_text_to_image_record_is_refused_with_its_reason(change, message):
    obj = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    with pytest.raises(PromptRecordError, match=None) as info:
        validate_record(obj, TAX)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"reference_image": None}, "needs 'reference_image'"),
        ({"edit_kind": "teleport"}, "'edit_kind' must be one of"),
        ({"edit_region": [0.5, 0.5, 0.4, 0.9]}, "0 <= x0 < x1 <= 1"),
        ({"edit_region": [0, 0, 1]}, "[x0, y0, x1, y1]"),
    ],
)
def test_each_kind_of_bad_edit_record_is_refused_with_its_reason(change, message):
    obj = {k: v for k, v in {**EDIT, **change}.items() if v is not None}
    with pytest.raises(PromptRecordError) as info:
        validate_record(obj, TAX)
    assert message in str(info.value)


def test_parsing_reports_every_bad_line_with_its_number_and_keeps_good_ones():
    lines = [
        json.dumps(GOOD),
        "",
        "{not json",
        json.dumps({**GOOD, "id": "t2i-test-02", "capability": "vibes"}),
        json.dumps({**GOOD, "text": "Another prompt that is distinct from the first one"}),
        json.dumps(EDIT),
    ]
    result = parse_prompt_lines(
        lines, TAX, check_reference=lambda name: f"reference image '{name}' not found"
    )
    assert [n for n, _ in result.records] == [1]
    assert [(e.line, e.message.split(" (")[0]) for e in result.errors] == [
        (3, "not valid JSON"),
        (4, "unknown capability 'vibes'"),
        (5, "id 't2i-test-01' already used on line 1"),
        (6, "reference image 'photo.png' not found"),
    ]
    assert str(result.errors[0]).startswith("line 3: not valid JSON")


@pytest.mark.parametrize(
    "change",
    [
        {"text": "A ceramic mug on a wooden desk \ud800 next to a window at dawn"},
        {"styles": ["photorealistic\udfff"]},
        {"id": "t2i-test-\udc00"},
    ],
)
def test_a_line_holding_a_lone_surrogate_is_refused_by_line(change):
    """`"\\ud800"` is valid JSON but no text: such a line was accepted and failed when stored (a 500)."""
    result = parse_prompt_lines(
        [json.dumps({**GOOD, **change}), json.dumps({**GOOD, "id": "t2i-test-09"})], TAX
    )
    assert [(e.line, e.message.split(" (")[0]) for e in result.errors] == [
        (1, "holds a lone UTF-16 surrogate escape")
    ]
    assert [n for n, _ in result.records] == [2]
