"""What the rubric judge is shown, read from the HTTP requests the judge client sends to the fake Chat Completions
server: the mask and the outlined edit region, a ground-truth image, zoomed views for text questions (each
captioned by role), and the try-on verdict the seed states (fail at 2 or below, pass at 3 or above)."""

from __future__ import annotations

import asyncio
import base64
import io
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from arena.evals.graders.llm_judge import rubric
from arena.evals.scores import Sample
from arena.evals.suite import load_suite
from arena.evals.suite_types import Case, SuiteError
from arena.evals.verdicts import verdict
from arena.judge import JudgeClient, JudgeConfig
from tests.fakes.chat_server import Answer

REGION = (0.5, 0.0, 1.0, 0.5)  # top-right quarter


def answers(score: int):
    def respond(call) -> Answer:
        schema = call.body["response_format"]["json_schema"]["schema"]
        if "passed" in schema["properties"]:
            return Answer.json({"passed": True, "reason": "fine", "failure_tags": []})
        return Answer.json({"score": score, "reason": "seen", "failure_tags": []})

    return respond


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def picture(colour: tuple[int, int, int]) -> bytes:
    """A 512x512 grey image with a coloured block in the top-right quarter (where the 'text' is)."""
    image = Image.new("RGB", (512, 512), (128, 128, 128))
    ImageDraw.Draw(image).rectangle((300, 40, 480, 200), fill=colour)
    return png(image)


def images_api_mask() -> bytes:
    """Opaque everywhere except the transparent top-right quarter (the Images API's editable area)."""
    mask = Image.new("RGBA", (512, 512), (0, 0, 0, 255))
    ImageDraw.Draw(mask).rectangle((256, 0, 511, 255), fill=(0, 0, 0, 0))
    return png(mask)


def decoded(url: str) -> np.ndarray:
    data = base64.b64decode(url.split(",", 1)[1])
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"), np.float32)


def grade(fake_chat, sample: Sample, workflow: str, **options):
    async def go():
        client = JudgeClient(JudgeConfig(base_url=fake_chat.base_url, model="fake-judge"))
        try:
            return await rubric(judge=client, workflow=workflow, **options)(sample)
        finally:
            await client.aclose()

    return asyncio.run(go())


def call_for(fake_chat, metric: str):
    return next(c for c in fake_chat.calls if c.schema_name.endswith(metric))


def test_an_edit_shows_the_mask_the_outlined_region_and_a_zoom_for_text(fake_chat, tmp_path):
    fake_chat.responder = answers(5)
    case = Case(
        "year",
        "editing",
        'Change the year to "2026". Change nothing else.',
        references=(tmp_path / "ref.png",),
    )
    reference, output = picture((0, 0, 0)), picture((250, 250, 250))
    grade(fake_chat, Sample(case, output, (reference,), images_api_mask()), "logo_editing")

    text_call = call_for(fake_chat, "edit_intent_correctness")
    captions = "\n".join(text_call.texts)
    for role in ("Mask of the edit", "Edit region", "Zoom", "Reference image 1", "Output to grade"):
        assert role in captions, role
    assert (
        "Images attached, in order: reference 1, mask, reference 1 with the edit region outlined, output, zoom."
        in captions
    )
    assert len(text_call.image_urls) == 5
    # The mask is sent as a plain map: white where the edit may change pixels (the transparent quarter).
    mask = decoded(text_call.image_urls[1]).mean(axis=2)
    assert mask[100, 900] > 200 and mask[900, 100] < 50 and mask[100, 100] < 50
    # The region overlay is the reference with a red outline.
    overlay = decoded(text_call.image_urls[2])
    red = (overlay[..., 0] > 180) & (overlay[..., 1] < 80) & (overlay[..., 2] < 80)
    assert red.sum() > 1000
    # The zoom enlarges the edit region of the output (found from the mask): its light block fills more of it.
    light = lambda a: (a.mean(axis=2) > 200).mean()  # noqa: E731
    assert light(decoded(text_call.image_urls[4])) > 2 * light(decoded(text_call.image_urls[3]))

    # A question that is not about text gets the same inputs but no zoom.
    other = call_for(fake_chat, "non_target_invariance")
    assert len(other.image_urls) == 4 and not any("Zoom" in t for t in other.texts)
    assert "Mask of the edit" in "\n".join(other.texts)


def test_a_ground_truth_named_by_the_case_is_shown_before_the_output(fake_chat, tmp_path):
    fake_chat.responder = answers(5)
    truth = tmp_path / "truth.png"
    truth.write_bytes(picture((0, 200, 0)))
    case = Case("lny", "editing", "Make the lunar new year logo.", references=(tmp_path / "r.png",))
    case = replace(case, **{"ground_truth": truth})
    grade(fake_chat, Sample(case, picture((250, 250, 250)), (picture((0, 0, 0)),), None), "logo_editing")
    for call in fake_chat.calls:
        texts = "\n".join(call.texts)
        assert "Ground truth: what a correct output looks like" in texts
        assert "Images attached, in order: reference 1, ground truth, output" in texts
        assert decoded(call.image_urls[1])[240, 800, 1] > 150  # the green picture


def test_an_edit_region_without_a_mask_is_outlined_and_zoomed(fake_chat, tmp_path):
    fake_chat.responder = answers(5)
    case = Case(
        "tm", "editing", 'Add "TM" after the name.', references=(tmp_path / "r.png",), edit_region=REGION
    )
    grade(fake_chat, Sample(case, picture((250, 250, 250)), (picture((0, 0, 0)),), None), "logo_editing")
    call = call_for(fake_chat, "character_and_style_integrity")
    texts = "\n".join(call.texts)
    assert "Edit region" in texts and "Mask of the edit" not in texts
    assert "Zoom: the edit region of the output" in texts and len(call.image_urls) == 4


def test_required_text_gets_a_2x2_tiled_zoom_with_the_text_question_only(fake_chat):
    fake_chat.responder = answers(5)
    case = Case(
        "offer",
        "generation",
        "A coffee flyer with an offer.",
        required_text=("20% OFF • Mon–Thu", "Order Ahead"),
    )
    grade(fake_chat, Sample(case, picture((250, 250, 250)), (), None), "marketing_flyer")
    text_call = call_for(fake_chat, "text_rendering")
    texts = "\n".join(text_call.texts)
    assert len(text_call.image_urls) == 5
    assert all(f"Zoom {n} of 4" in texts for n in (1, 2, 3, 4))
    assert "Required text, exactly as written:\n- 20% OFF • Mon–Thu\n- Order Ahead" in texts
    assert "output, 4 zoomed tiles of the output." in texts
    # The top-right tile is an enlargement: the light block fills more of it than of the whole output.
    whole, top_right = decoded(text_call.image_urls[0]), decoded(text_call.image_urls[2])
    assert (top_right.mean(axis=2) > 200).mean() > 1.5 * (whole.mean(axis=2) > 200).mean()
    layout = call_for(fake_chat, "layout_hierarchy")
    assert len(layout.image_urls) == 1 and "Zoom" not in "\n".join(layout.texts)


@pytest.mark.parametrize(("score", "outcome"), [(3, "pass"), (2, "fail")])
def test_try_on_fails_at_2_or_below_and_passes_at_3_or_above(fake_chat, score, outcome):
    fake_chat.responder = answers(score)
    case = Case("jacket", "editing", "Put the person into the jacket.")
    sample = Sample(case, picture((250, 250, 250)), (picture((0, 0, 0)), picture((200, 0, 0))), None)
    scores = grade(fake_chat, sample, "virtual_tryon")
    assert [s.value for s in scores] == [float(score)] * 3
    assert verdict(scores)[0] == outcome


SUITE = """
[suite]
name = "truth"
workflow = "logo_editing"

[[models]]
model = "sandbox-retouch"

[[graders]]
name = "rubric"

[[cases]]
id = "year"
task = "editing"
prompt = "Change the year to 2026."
references = ["ref.png"]
ground_truth = "{truth}"
"""


def test_a_case_may_name_a_ground_truth_checked_like_references(tmp_path: Path):
    (tmp_path / "ref.png").write_bytes(picture((0, 0, 0)))
    (tmp_path / "truth.png").write_bytes(picture((0, 200, 0)))
    path = tmp_path / "suite.toml"
    path.write_text(SUITE.replace("{truth}", "truth.png"))
    assert load_suite(path).cases[0].ground_truth == (tmp_path / "truth.png").resolve()
    for bad, reason in (("missing.png", "not found"), ("../outside.png", "image")):
        path.write_text(SUITE.replace("{truth}", bad))
        with pytest.raises(SuiteError) as err:
            load_suite(path)
        assert f"{path}:" in str(err.value) and reason in str(err.value)
