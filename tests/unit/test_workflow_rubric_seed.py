"""The workflow rubrics carry what the seed states: the try-on verdict rule and its human labels (artifacts none /
minor / major), the UI clarity label (1-5), the UI and flyer edge cases in the judge's questions, and which
questions are about text (those get the zoom pass)."""

from __future__ import annotations

import pytest

from arena.evals.workflow_rubrics import load_rubric, system_prompt
from arena.judge.anchors import reference_agreement


def prompts(workflow: str) -> dict[str, str]:
    loaded = load_rubric(workflow)
    return {m.key: system_prompt(loaded, m) for m in loaded.metrics}


def test_try_on_metrics_pass_at_3_and_fail_at_2_as_the_seed_states():
    metrics = load_rubric("virtual_tryon").metrics
    assert [m.key for m in metrics] == ["facial_similarity", "outfit_fidelity", "body_shape_preservation"]
    assert all(m.threshold == 3 and len(m.scale) == 6 for m in metrics)


def test_try_on_human_labels_include_the_artifacts_scale():
    from arena.evals.labels import human_label_values  # (imported here: absent before this change)

    labels = {h.key: h for h in load_rubric("virtual_tryon").human_labels}
    assert labels["artifacts"].kind == "choice" and labels["artifacts"].choices == ("none", "minor", "major")
    assert labels["identity_preserved"].kind == labels["garment_matches"].kind == "yes_no"
    rubric = load_rubric("virtual_tryon")
    got = human_label_values(
        rubric, {"h_artifacts": "minor", "h_identity_preserved": "no", "h_garment_matches": ""}
    )
    assert got == {"artifacts": "minor", "identity_preserved": False}
    with pytest.raises(ValueError, match="artifacts: one of none, minor, major"):
        human_label_values(rubric, {"h_artifacts": "severe"})
    # A word label agrees with the reference only when it is the same word (anchors and drift read these).
    assert reference_agreement({"artifacts": "minor"}, {"artifacts": "minor"}) == 1.0
    assert reference_agreement({"artifacts": "minor"}, {"artifacts": "major"}) == 0.0


def test_ui_human_labels_include_usability_clarity_from_1_to_5():
    from arena.evals.labels import human_label_values

    rubric = load_rubric("ui_mockup")
    clarity = next(h for h in rubric.human_labels if h.key == "usability_clarity")
    assert (clarity.kind, clarity.low, clarity.high) == ("scale", 1, 5)
    assert human_label_values(rubric, {"h_usability_clarity": "5"}) == {"usability_clarity": 5}
    for bad in ("0", "6", "3.5", "high"):
        with pytest.raises(ValueError, match="from 1 to 5"):
            human_label_values(rubric, {"h_usability_clarity": bad})


def test_flyer_questions_cover_the_seed_edge_cases_palette_accessibility_and_punctuation():
    flyer = prompts("marketing_flyer")
    gate = flyer["instruction_following"]
    assert "only cream, dark brown and muted orange" in gate and "allows no other colours" in gate
    assert "high contrast, large text and a plain background" in gate
    assert "two offers" in gate and "minimal flyer" in gate
    assert "outside a requested palette" in flyer["style_brand_fit"]
    assert "punctuation" in flyer["text_rendering"] and "en dash" in flyer["text_rendering"]
    layout_scale = load_rubric("marketing_flyer").metric("layout_hierarchy").scale
    assert [s.split(":")[0] for s in layout_scale] == ["0", "1", "2", "3", "4", "5"]


def test_ui_questions_cover_the_seed_edge_cases():
    ui = prompts("ui_mockup")
    assert "a mobile screen is not a desktop page" in ui["instruction_following"]
    assert "directly above the primary call to action" in ui["instruction_following"]
    assert "read exactly as given" in ui["instruction_following"]
    assert "secondary actions stay visibly subordinate" in ui["layout_hierarchy"]
    assert "dense one" in ui["layout_hierarchy"] and "sparse screen" in ui["layout_hierarchy"]


def test_text_accuracy_questions_are_the_ones_marked_for_the_zoom_pass():
    zoomed = {w: {m.key for m in load_rubric(w).metrics if m.zoom} for w in ("ui_mockup", "marketing_flyer")}
    assert zoomed == {"ui_mockup": {"text_rendering"}, "marketing_flyer": {"text_rendering"}}
    logo = {m.key for m in load_rubric("logo_editing").metrics if m.zoom}
    assert logo == {"edit_intent_correctness", "character_and_style_integrity"}
    assert not any(m.zoom for m in load_rubric("virtual_tryon").metrics)
