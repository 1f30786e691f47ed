"""Grading images made elsewhere: outputs of an `external` model imported with `arena outputs import`, images a
case names, and a run's --images folder / --manifest; OCR, preservation and the judge all see them."""

from __future__ import annotations

import io
import json
from xml.etree import ElementTree as ET

from PIL import Image
from sqlmodel import Session

from arena.generation.providers.sandbox_draw import draw_sign
from arena.generation.registry import parse_registry, sync_registry
from tests.integration.test_cli import run  # noqa: F401  (the CLI fixture)
from tests.integration.test_eval_run import LOGO, judge_answers

MODELS = """
[[models]]
slug = "team-a"
display_name = "Team A"
organization = "Us"
modality = "text_to_image"
adapter = "external"

[[models]]
slug = "team-edit"
display_name = "Team edit"
organization = "Us"
modality = "image_editing"
adapter = "external"
"""
PROMPT = 'A flyer for a coffee shop with the headline "GRAND OPENING".'
SUITE = f"""
[suite]
name = "imported flyers"
workflow = "generic"

[[models]]
model = "team-a"

[[graders]]
name = "basic"

[[graders]]
name = "ocr_exact_text"

[[cases]]
id = "opening"
task = "generation"
prompt = '{PROMPT}'
"""


def sign(lines: list[str]) -> bytes:
    image = Image.new("RGB", (640, 360), (40, 90, 160))
    draw_sign(image, lines, (40, 60, 600, 300), (248, 244, 232))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_imported_outputs_of_an_external_model_are_graded(run, initialized, settings, tmp_path):  # noqa: F811
    settings.models_file.write_text(MODELS)
    with Session(initialized) as session:
        sync_registry(session, parse_registry(MODELS))
    (tmp_path / "flyer.png").write_bytes(sign(["GRAND OPENING"]))
    line = {
        "model": "team-a",
        "image": "flyer.png",
        "prompt": {
            "id": "own-opening",
            "modality": "text_to_image",
            "text": PROMPT,
            "use_case": "marketing_advertising",
            "capability": "text_rendering",
        },
    }
    (tmp_path / "manifest.jsonl").write_text(json.dumps(line) + "\n")
    imported = run("outputs", "import", str(tmp_path / "manifest.jsonl"))
    assert imported.exit_code == 0, imported.output
    (tmp_path / "suite.toml").write_text(SUITE)
    out = tmp_path / "run"
    result = run("eval", "run", str(tmp_path / "suite.toml"), "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["runs"]["team-a"]["verdicts"]["pass"] == 1
    assert summary["runs"]["team-a"]["gates"]["ocr_exact_text"]["passed"] == 1
    line = json.loads((out / "results.jsonl").read_text())
    ocr = next(s for s in line["scores"] if s["key"] == "ocr_exact_text")
    assert ocr["details"]["read"] == ["GRAND OPENING"]
    junit = ET.parse(out / "junit.xml").getroot()
    assert not junit.findall(".//failure") and "opening" in (out / "report.html").read_text()


def test_a_case_without_an_imported_output_names_what_to_do(run, initialized, settings, tmp_path):  # noqa: F811
    settings.models_file.write_text(MODELS)
    (tmp_path / "suite.toml").write_text(SUITE)
    result = run("eval", "run", str(tmp_path / "suite.toml"), "--out", str(tmp_path / "r"), "--json")
    assert result.exit_code == 1
    line = json.loads((tmp_path / "r" / "results.jsonl").read_text())
    assert "no image for case 'opening' sample 0 of external model 'team-a'" in line["error"]


EDIT_SUITE = """
[suite]
name = "edits made elsewhere"
workflow = "logo_editing"
samples = 2

[[models]]
model = "team-edit"

[[graders]]
name = "basic"

[[graders]]
name = "preservation"
min_outside_ssim = 0.9
min_pass_rate = 0.0

[[graders]]
name = "rubric"
min_pass_rate = 0.0

[[cases]]
id = "ring"
task = "editing"
prompt = "Make the ring red. Change nothing else."
references = ["logo.png"]
edit_region = [0.3, 0.1, 0.7, 0.5]
images = ["case_given.png"]
"""


def test_case_images_a_folder_and_a_manifest_are_graded_by_every_grader(
    run,  # noqa: F811
    settings,
    tmp_path,
    fake_chat,
    monkeypatch,
):
    monkeypatch.setenv("ARENA_JUDGE_BASE_URL", fake_chat.base_url)
    monkeypatch.setenv("ARENA_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("ARENA_JUDGE_API_KEY_ENV", "")
    fake_chat.responder = judge_answers
    settings.models_file.write_text(MODELS)
    logo = LOGO.read_bytes()
    (tmp_path / "logo.png").write_bytes(logo)
    with Image.open(io.BytesIO(logo)) as im:
        damaged = im.convert("RGB")
    damaged.paste(
        (255, 0, 255), (0, damaged.height - 60, damaged.width, damaged.height)
    )  # outside the region
    buffer = io.BytesIO()
    damaged.save(buffer, "PNG")
    (tmp_path / "case_given.png").write_bytes(buffer.getvalue())  # sample 0 by the case ...
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "ring.png").write_bytes(logo)  # ... but the folder wins: the untouched logo
    (tmp_path / "given").mkdir()
    (tmp_path / "given" / "bad.png").write_bytes(buffer.getvalue())
    (tmp_path / "given" / "manifest.jsonl").write_text(
        json.dumps({"case": "ring", "image": "bad.png", "model": "team-edit", "sample": 1}) + "\n"
    )
    (tmp_path / "suite.toml").write_text(EDIT_SUITE)
    out = tmp_path / "run"
    args = ["eval", "run", str(tmp_path / "suite.toml"), "--out", str(out)]
    result = run(
        *args, "--images", str(tmp_path / "folder"), "--manifest", str(tmp_path / "given" / "manifest.jsonl")
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    by_sample = {r["sample"]: {s["key"]: s for s in r["scores"]} for r in rows}
    assert by_sample[0]["preservation"]["passed"] is True  # the folder's untouched logo
    assert by_sample[1]["preservation"]["passed"] is False  # the manifest's damaged one
    assert by_sample[1]["rubric:non_target_invariance"]["value"] == 0.0  # lowered by the failed pixel check
    # each call: the reference, the reference with the edit region outlined, and the output
    assert len(fake_chat.calls) == 2 * 3 and all(len(c.image_urls) == 3 for c in fake_chat.calls)
    bad = run(*args[:-1], str(tmp_path / "r2"), "--images", str(tmp_path / "given"))
    assert bad.exit_code == 2 and "no case 'bad' in the suite" in bad.output


NO_MODELS = """
[suite]
name = "my own signs"
workflow = "generic"

[[graders]]
name = "ocr_exact_text"

[[cases]]
id = "opening"
task = "generation"
prompt = 'A flyer with the headline "GRAND OPENING".'

[[cases]]
id = "closing"
task = "generation"
prompt = 'A flyer with the headline "LAST DAY".'
"""


def test_a_folder_of_your_own_images_is_graded_without_naming_any_model(run, initialized, tmp_path):  # noqa: F811
    """A suite with no [[models]] and a folder of images: the images are the runs (the top level `given`, each
    subfolder its own label); before, the run stopped asking for --models / --tag / --modality."""
    (tmp_path / "suite.toml").write_text(NO_MODELS)
    folder = tmp_path / "mine"
    (folder / "v2").mkdir(parents=True)
    (folder / "opening.png").write_bytes(sign(["GRAND OPENING"]))
    (folder / "closing.png").write_bytes(sign(["LAST DAY"]))
    (folder / "v2" / "opening.png").write_bytes(sign(["GRAND OPENNG"]))
    (folder / "v2" / "closing.png").write_bytes(sign(["LAST DAY"]))
    out = tmp_path / "run"
    result = run("eval", "run", str(tmp_path / "suite.toml"), "--out", str(out), "--images", str(folder))
    assert result.exit_code == 1, result.output  # v2's typo fails its OCR gate
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    verdicts = {(r["run_label"], r["case_id"]): r["verdict"] for r in rows}
    assert verdicts == {
        ("given", "opening"): "pass",
        ("given", "closing"): "pass",
        ("v2", "opening"): "fail",
        ("v2", "closing"): "pass",
    }
    # nothing given and no model named: still the one-line question
    bare = run("eval", "run", str(tmp_path / "suite.toml"), "--out", str(tmp_path / "r2"))
    assert bare.exit_code == 2 and "--models" in bare.output
