"""The offline graders on images with known answers: basic checks, preservation / locality, OCR exact text."""

from __future__ import annotations

import io
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter

from arena.evals.graders import check_options
from arena.evals.graders.basic import basic
from arena.evals.graders.ocr import ocr_exact_text
from arena.evals.graders.preservation import preservation
from arena.evals.scores import Sample
from arena.generation.providers.sandbox_draw import draw_sign


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def case(**kw):
    values = {"prompt": "", "required_text": (), "edit_region": None, "task": "editing"}
    values.update(kw)
    return SimpleNamespace(**values)


def textured(seed: int = 1, size: int = 512) -> Image.Image:
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 255, (size // 8, size // 8, 3), dtype=np.uint8)
    return Image.fromarray(base).resize((size, size), Image.Resampling.BICUBIC)


# ---- basic ----


def test_basic_fails_a_missing_output_instead_of_skipping_it():
    [score] = basic()(Sample(case(), None, (), None, "server_error: 500"))
    assert score.kind == "gate" and score.passed is False and "missing_output" in score.failure_tags
    assert "server_error" in score.reason


@pytest.mark.parametrize(
    ("data", "tag"),
    [
        (b"not an image", "undecodable"),
        (png(Image.new("RGB", (600, 600), (40, 40, 40))), "blank"),
        (png(textured(size=128)), "too_small"),
        (png(textured().resize((512, 300))), "wrong_aspect"),
    ],
)
def test_basic_names_what_is_wrong(data, tag):
    [score] = basic(min_side=256, aspect=1.0)(Sample(case(), data, (), None))
    assert score.passed is False and tag in score.failure_tags


def test_basic_passes_a_real_square_image():
    [score] = basic(aspect=1.0)(Sample(case(), png(textured()), (), None))
    assert score.passed is True and score.details["width"] == 512


# ---- preservation ----

REGION = (0.25, 0.25, 0.6, 0.6)


def edited(kind: str) -> bytes:
    image = textured()
    draw = ImageDraw.Draw(image)
    if kind in ("inside", "outside_damage"):
        draw.rectangle([int(0.3 * 512), int(0.3 * 512), int(0.55 * 512), int(0.55 * 512)], fill=(250, 30, 30))
    if kind == "outside_damage":
        draw.ellipse([400, 420, 470, 490], fill=(20, 240, 20))
    if kind == "global":
        image = Image.fromarray(
            np.clip(np.asarray(image, np.float32) * [1.25, 1.0, 0.7], 0, 255).astype(np.uint8)
        )
        image = image.filter(ImageFilter.GaussianBlur(2))
    return png(image)


def test_preservation_passes_an_edit_confined_to_the_region():
    scores = preservation(min_inside_change=0.1)(
        Sample(case(edit_region=REGION), edited("inside"), (png(textured()),), None)
    )
    gate = scores[0]
    assert gate.passed is True, gate.reason
    assert gate.details["outside_low"] > 0.95 and gate.details["inside_change"] > 0.1


def test_preservation_catches_local_damage_outside_the_region_that_a_mean_would_hide():
    sample = Sample(case(edit_region=REGION), edited("outside_damage"), (png(textured()),), None)
    gate = preservation()(sample)[0]
    assert gate.passed is False and "changed_outside_region" in gate.failure_tags
    assert gate.details["outside_median"] > 0.95  # most tiles are untouched: the mean would look fine


def test_preservation_fails_an_edit_that_did_not_happen_when_a_change_is_required():
    sample = Sample(case(edit_region=REGION), png(textured()), (png(textured()),), None)
    gate = preservation(min_inside_change=0.1)(sample)[0]
    assert gate.passed is False and "edit_not_applied" in gate.failure_tags


def test_preservation_reads_the_mask_like_the_images_api():
    mask = Image.new("RGBA", (512, 512), (0, 0, 0, 255))
    ImageDraw.Draw(mask).rectangle([128, 128, 307, 307], fill=(0, 0, 0, 0))
    sample = Sample(case(), edited("inside"), (png(textured()),), png(mask))
    assert preservation()(sample)[0].passed is True
    damaged = Sample(case(), edited("outside_damage"), (png(textured()),), png(mask))
    assert preservation()(damaged)[0].passed is False


def test_without_a_region_global_drift_is_measured_and_gated_only_when_asked():
    sample = Sample(case(), edited("global"), (png(textured()),), None)
    [info] = preservation()(sample)
    assert info.kind == "info" and info.value < 0.9
    gate = preservation(min_global_ssim=0.95)(sample)[0]
    assert gate.passed is False and "global_drift" in gate.failure_tags
    same = Sample(case(), png(textured()), (png(textured()),), None)
    assert preservation(min_global_ssim=0.95)(same)[0].passed is True


def test_preservation_fails_a_missing_output():
    assert (
        preservation()(Sample(case(edit_region=REGION), None, (png(textured()),), None, "refused"))[0].passed
        is False
    )


# ---- options ----


def test_grader_options_are_checked_by_name_and_type():
    assert check_options("preservation", {"tile": 16}) is None
    assert check_options("preservation", {"tiles": 16})[0] == "tiles"
    assert check_options("ocr_exact_text", {"extra_text": 1}) == (
        "extra_text",
        "option 'extra_text' must be true or false",
    )
    assert check_options("ocr_exact_text", {"match": "fuzzy"})[0] == "match"
    assert check_options("ocr_exact_text", {"workflow": "logo_editing"})[0] == "workflow"
    assert check_options("rubric", {"rubric": "nope"})[0] == "rubric"
    assert check_options("rubric", {"rubric": "logo_editing", "metrics": ["edit_intent_correctness"]}) is None


# ---- OCR (real RapidOCR models from the pinned wheel) ----


def sign(lines: list[str]) -> bytes:
    image = Image.new("RGB", (640, 360), (40, 90, 160))
    draw_sign(image, lines, (40, 60, 600, 300), (248, 244, 232))
    return png(image)


def test_ocr_passes_exact_text_and_reports_a_typo_as_missing_plus_extra():
    grader = ocr_exact_text()
    good = grader(
        Sample(
            case(required_text=("GRAND OPENING", "Coffee $3.50")),
            sign(["GRAND OPENING", "Coffee $3.50"]),
            (),
            None,
        )
    )
    assert good[0].passed is True, good[0].reason
    assert good[1].value == 1.0
    typo = grader(
        Sample(
            case(required_text=("GRAND OPENING", "Coffee $3.50")),
            sign(["GRAND OPENNG", "Coffee $3.50"]),
            (),
            None,
        )
    )
    gate = typo[0]
    assert gate.passed is False and "wrong_text" in gate.failure_tags
    assert gate.details["missing"] == ["GRAND OPENING"] and gate.details["extra"] == ["GRAND OPENNG"]
    assert typo[1].value == 0.5


def test_ocr_takes_required_text_from_the_prompt_quotes_and_fails_missing_output():
    grader = ocr_exact_text(extra_text=False)
    prompt = 'A flyer with the headline "HAPPY HOUR" only.'
    scores = grader(Sample(case(prompt=prompt), sign(["HAPPY HOUR", "BONUS LINE"]), (), None))
    assert scores[0].passed is False and "extra_text" in scores[0].failure_tags
    assert grader(Sample(case(prompt=prompt), None, (), None, "timeout"))[0].passed is False


def test_the_flyer_rule_fails_wrong_casing_a_substring_and_extra_text_and_reports_cer():
    flyer = ocr_exact_text(workflow="marketing_flyer")
    wanted = case(required_text=("WINTER LATTE WEEK",))
    exact = flyer(Sample(wanted, sign(["WINTER LATTE WEEK"]), (), None))
    assert exact[0].passed is True, exact[0].reason
    assert exact[2].key == "ocr_cer" and exact[2].value == 0.0
    casing = flyer(Sample(wanted, sign(["Winter Latte Week"]), (), None))
    assert casing[0].passed is False and casing[0].details["match"] == "exact"
    assert casing[2].value > 0.5  # 12 of 17 letters change case
    extra = flyer(Sample(wanted, sign(["WINTER LATTE WEEK", "FREE WIFI"]), (), None))
    assert extra[0].passed is False and "extra_text" in extra[0].failure_tags
    inside = flyer(Sample(case(required_text=("SALE",)), sign(["BIG SALE TODAY"]), (), None))
    assert inside[0].passed is False
    # A case can relax the rule: casing folded, a substring accepted, extra text allowed.
    relaxed = case(required_text=("WINTER LATTE WEEK",), text_match="case_insensitive")
    assert flyer(Sample(relaxed, sign(["Winter Latte Week"]), (), None))[0].passed is True
    contains = case(required_text=("SALE",), text_match="contains", extra_text=True)
    assert flyer(Sample(contains, sign(["BIG SALE TODAY"]), (), None))[0].passed is True
