"""Rubrics in four parts per scenario, the single-output aggregation with the safety hard stop, answer checks."""

from pathlib import Path

import pytest

from arena.judge.calibset import calibration_items
from arena.judge.scenario_rubrics import RubricError, load_rubrics, pairwise_schema, rubric_for, single_schema
from arena.judge.single import AnswerError, aggregate, grade_of, read_pairwise, read_single

RUBRICS = load_rubrics()


def test_every_rubric_renders_four_parts_and_has_a_safety_criterion():
    assert set(RUBRICS) == {"text_to_image", "text_to_image.ui_ux_design", "image_editing"}
    for rubric in RUBRICS.values():
        text = rubric.system_text()
        parts = text.split("\n\n")
        assert (
            parts[0] == rubric.part_role()
            and "0 = " in rubric.part_criteria()
            and "10 = " in rubric.part_criteria()
        )
        assert "safety" in rubric.part_criteria() and "hard stop" in rubric.part_aggregation()
        assert text.endswith(rubric.part_format(False)) and "JSON" in rubric.part_format(False)
        assert rubric.pairwise_rules.strip() in rubric.system_text(pairwise=True)


def test_the_use_case_with_its_own_rubric_gets_it_and_others_get_the_modality_rubric():
    assert rubric_for(RUBRICS, "text_to_image", "ui_ux_design").scenario == "text_to_image.ui_ux_design"
    assert rubric_for(RUBRICS, "text_to_image", "consumer").scenario == "text_to_image"
    assert rubric_for(RUBRICS, "image_editing", "ui_ux_design").scenario == "image_editing"
    with pytest.raises(RubricError):
        rubric_for(RUBRICS, "video", None)


def test_the_digest_changes_with_any_text_change(tmp_path: Path):
    source = (Path(__file__).resolve().parents[2] / "arena/judge/rubrics/text_to_image.toml").read_text()
    (tmp_path / "a.toml").write_text(source)
    before = load_rubrics(tmp_path)["text_to_image"].digest
    (tmp_path / "a.toml").write_text(source.replace("ignore compression", "disregard compression"))
    after = load_rubrics(tmp_path)["text_to_image"]
    assert after.digest != before and after.version == "1"


def test_a_rubric_without_safety_or_with_a_lax_safety_threshold_is_refused(tmp_path: Path):
    source = (Path(__file__).resolve().parents[2] / "arena/judge/rubrics/text_to_image.toml").read_text()
    (tmp_path / "x.toml").write_text(source.replace('name = "safety"', 'name = "harmless"'))
    with pytest.raises(RubricError, match="safety"):
        load_rubrics(tmp_path)
    (tmp_path / "x.toml").write_text(source.replace("safety_min = 8", "safety_min = 5"))
    with pytest.raises(RubricError, match="strict"):
        load_rubrics(tmp_path)
    (tmp_path / "x.toml").write_text("scenario = [")
    with pytest.raises(RubricError, match=r"x\.toml"):
        load_rubrics(tmp_path)


def _scores(rubric, quality, safety):
    return {**{name: quality for name in rubric.quality_criteria}, "safety": safety}


def test_overall_is_the_mean_of_quality_and_safety_is_a_hard_stop():
    r = RUBRICS["text_to_image"]
    assert aggregate(r, _scores(r, 9, 10)) == (9.0, "pass")
    assert aggregate(r, _scores(r, 10, 7)) == (10.0, "fail")  # safety below its own stricter threshold (8)
    assert aggregate(r, _scores(r, 10, 6)) == (3.0, "fail")  # under 7: overall capped at 3
    assert aggregate(r, _scores(r, 6, 10)) == (6.0, "fail")
    mixed = {"prompt_fidelity": 10, "text_accuracy": 5, "visual_quality": 6, "safety": 9}
    assert aggregate(r, mixed) == (7.0, "pass")


def test_calibration_grades_follow_the_rubric_bands():
    r = RUBRICS["image_editing"]
    assert [grade_of(r, x) for x in (9.0, 7.5, 7.4, 4.0, 3.9)] == [
        "ideal",
        "ideal",
        "medium",
        "medium",
        "bad",
    ]


def test_read_single_recomputes_the_verdict_and_records_a_judge_that_broke_the_rule():
    r = RUBRICS["text_to_image"]
    answer = {"scores": _scores(r, 10, 5), "overall": 10, "verdict": "pass", "reason": "great"}
    score = read_single(r, answer)
    assert (score.overall, score.verdict) == (3.0, "fail") and score.judge_disagrees_with_rule


@pytest.mark.parametrize(
    "bad",
    [
        {"scores": {"safety": 10}, "overall": 1, "verdict": "pass", "reason": ""},
        {"scores": "x", "overall": 1, "verdict": "pass", "reason": ""},
        {"overall": 1, "verdict": "pass", "reason": ""},
    ],
)
def test_read_single_refuses_answers_that_do_not_follow_the_rubric(bad):
    with pytest.raises(AnswerError):
        read_single(RUBRICS["text_to_image"], bad)


def test_read_single_refuses_out_of_range_and_fractional_scores():
    r = RUBRICS["text_to_image"]
    for value in (11, -1, 7.5, True):
        scores = {**_scores(r, 8, 9), "prompt_fidelity": value}
        with pytest.raises(AnswerError):
            read_single(r, {"scores": scores, "overall": 8, "verdict": "pass", "reason": ""})


def test_pairwise_answers_are_checked():
    assert read_pairwise({"preferred": "tie", "reason": "same"}) == ("tie", "same")
    with pytest.raises(AnswerError):
        read_pairwise({"preferred": "A", "reason": ""})


def test_schemas_are_strict_every_property_required_and_closed():
    for schema in (single_schema(RUBRICS["image_editing"]), pairwise_schema()):
        assert schema["additionalProperties"] is False and set(schema["required"]) == set(
            schema["properties"]
        )


def test_the_calibration_set_has_ideal_medium_and_bad_for_every_scenario():
    items = calibration_items()
    for scenario in RUBRICS:
        grades = sorted(i.grade for i in items if i.scenario == scenario)
        assert grades == ["bad", "ideal", "medium"]
    assert all(i.image[:3] == b"\xff\xd8\xff" for i in items)  # normalized like served images
    assert all((i.reference is not None) == (i.scenario == "image_editing") for i in items)
