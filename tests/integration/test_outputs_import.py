"""`arena outputs import`: bring your own images on both databases. A manifest of 2 external models x 20 prompts
(half pool prompts, half new ones) is served as matchups at once; every image is normalized and anonymized;
re-importing is a no-op; a bad manifest changes nothing and names each bad line as FILE:LINE: reason."""

from __future__ import annotations

import io
import json

import httpx
import pytest
from PIL import Image, PngImagePlugin
from sqlmodel import Session, func, select

from arena.app import create_app
from arena.db.tables import AuditEntry, Model, Output, Prompt
from arena.generation.registry import parse_registry, sync_registry
from tests.conftest import serve
from tests.integration.test_cli import run  # noqa: F401  (the CLI fixture)

MODELS = """
[[models]]
slug = "team-a"
display_name = "Team A"
organization = "Us"
modality = "text_to_image"
adapter = "external"

[[models]]
slug = "team-b"
display_name = "Team B"
organization = "Us"
modality = "text_to_image"
adapter = "external"
params = { note = "checkpoint 2026-11" }

[[models]]
slug = "sandboxed"
display_name = "Sandboxed"
organization = "Local"
modality = "text_to_image"
adapter = "sandbox"
"""
NEW_PROMPTS = [
    "A fishing harbour at dawn with nets drying on wooden poles",
    "Children picking apples in a hillside orchard under a stormy sky",
    "A baker sliding loaves into a brick oven, flour dust in the air",
    "Rows of leather-bound books climbing a spiral library staircase",
    "A lone kayak drifting beside a blue glacier wall",
    "Spice merchants weighing saffron at a crowded night market",
    "A carpenter planing an oak board in a sunlit workshop",
    "Red sandstone canyon walls reflected in a still river",
    "Tropical plants filling a glass atrium of an old hotel",
    "Seagulls fighting over chips on a rainy seaside pier",
]


def _png(path, colour, size=(800, 600)):
    info = PngImagePlugin.PngInfo()
    info.add_text("Software", "team-a-sampler v3")  # metadata that must not reach voters
    Image.new("RGB", size, colour).save(path, "PNG", pnginfo=info)


@pytest.fixture
def manifest(tmp_path, initialized):
    with Session(initialized) as session:
        sync_registry(session, parse_registry(MODELS))
        pool_ids = session.exec(
            select(Prompt.id).where(Prompt.modality == "text_to_image").order_by(Prompt.id).limit(10)
        ).all()
    (tmp_path / "images").mkdir()
    lines = []
    for m, model in enumerate(("team-a", "team-b")):
        for i in range(20):
            image = f"images/{model}-{i}.png"
            _png(tmp_path / image, (20 * i, 100 + 60 * m, 50))
            line = {
                "model": model,
                "image": image,
                "params": {"seed": 42, "steps": 28},
                "seconds": 3.5 + i / 10,
            }
            if i < 10:
                line["prompt_id"] = pool_ids[i]
            else:
                line["prompt"] = {
                    "id": f"own-{i}",
                    "modality": "text_to_image",
                    "text": NEW_PROMPTS[i - 10],
                    "use_case": "consumer",
                    "capability": "lighting",
                    "styles": ["photorealistic"],
                }
            lines.append(json.dumps(line))
    path = tmp_path / "manifest.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _count(engine, model=Output):
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(model)).one()


def test_a_manifest_of_2_models_x_20_prompts_is_served_at_once(run, manifest, initialized, settings):  # noqa: F811
    result = run("outputs", "import", str(manifest), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (
        report["added"] == 40
        and len(report["prompts_created"]) == 10
        and report["models"] == ["team-a", "team-b"]
    )
    with Session(initialized) as session:
        rows = session.exec(select(Output)).all()
        assert {p.id for p in session.exec(select(Prompt).where(Prompt.id.startswith("own-"))).all()} == set(
            report["prompts_created"]
        )
    assert len(rows) == 40 and all(r.status == "ok" for r in rows)
    row = rows[0]
    assert row.raw_metadata["source"] == "import" and row.sent_params == {"seed": 42, "steps": 28}
    assert (row.original_width, row.original_height) == (800, 600) and row.latency_s >= 3.5
    served = (settings.media_dir / "served" / f"{row.media_id}.jpg").read_bytes()
    with Image.open(io.BytesIO(served)) as image:
        assert image.format == "JPEG" and image.size == (1024, 1024) and not image.info.get("exif")
    assert b"team-a-sampler" not in served and b"Software" not in served

    with (
        serve(create_app(settings, engine=initialized)) as url,
        httpx.Client(base_url=url, timeout=20) as voter,
    ):
        for _ in range(6):
            response = voter.post("/api/v1/matchups", json={"modality": "text_to_image"})
            assert response.status_code == 200, response.text
            body = response.text
            assert "team-a" not in body and "team-b" not in body and "Team" not in body
            for image_url in response.json()["images"].values():
                assert voter.get(image_url).status_code == 200


def test_reimporting_the_same_manifest_changes_nothing(run, manifest, initialized):  # noqa: F811
    assert run("outputs", "import", str(manifest)).exit_code == 0
    with Session(initialized) as session:
        before = {(o.prompt_id, o.model_slug): o.media_id for o in session.exec(select(Output)).all()}
    again = run("outputs", "import", str(manifest), "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["added"] == 0 and json.loads(again.stdout)["unchanged"] == 40
    with Session(initialized) as session:
        after = {(o.prompt_id, o.model_slug): o.media_id for o in session.exec(select(Output)).all()}
    assert after == before


def test_a_bad_manifest_changes_nothing_and_names_each_bad_line(run, manifest, initialized, tmp_path):  # noqa: F811
    lines = manifest.read_text().splitlines()
    (tmp_path / "images" / "broken.png").write_bytes(b"not an image at all")
    bad = [
        *lines[:3],
        json.dumps({"model": "nobody", "image": "images/team-a-0.png", "prompt_id": "x"}),  # 4: unknown model
        json.dumps(
            {
                "model": "sandboxed",
                "image": "images/team-a-0.png",
                "prompt_id": json.loads(lines[0])["prompt_id"],
            }
        ),
        json.dumps(
            {"model": "team-a", "image": "images/broken.png", "prompt_id": json.loads(lines[1])["prompt_id"]}
        ),
        lines[0],  # 7: the same (prompt, model) twice
        "{not json",
        json.dumps(
            {"model": "team-b", "image": "images/team-b-0.png", "prompt": {"id": "own-x", "text": "short"}}
        ),
        *lines[20:22],
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(bad) + "\n")
    outputs, prompts, audits = (
        _count(initialized),
        _count(initialized, Prompt),
        _count(initialized, AuditEntry),
    )
    result = run("outputs", "import", str(path))
    assert result.exit_code == 2
    errors = result.stderr.splitlines()
    for line, reason in [
        (4, "unknown or inactive model 'nobody'"),
        (5, 'adapter = "external"'),
        (6, "not an image"),
        (7, "already given on line 1"),
        (8, "not valid JSON"),
        (9, "prompt:"),
    ]:
        assert any(e.startswith(f"{path}:{line}: ") and reason in e for e in errors), (line, errors)
    assert errors[-1] == "error: 6 bad line(s); nothing was imported"
    assert (_count(initialized), _count(initialized, Prompt), _count(initialized, AuditEntry)) == (
        outputs,
        prompts,
        audits,
    )


def test_external_models_are_never_generated_or_timed(run, manifest, initialized):  # noqa: F811
    with Session(initialized) as session:
        assert session.get(Model, "team-a").adapter == "external"
    result = run("generate", "--model", "team-a")
    assert result.exit_code == 0 and "nothing to generate" in result.output
    timed = run("latency", "run", "--model", "team-a")
    assert timed.exit_code == 2 and "external" in timed.stderr


def _files(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_manifest_images_outside_its_folder_are_refused_and_nothing_is_imported(
    run,  # noqa: F811
    manifest,
    initialized,
    settings,
    tmp_path,
):
    """An absolute path, a `..` escape or a symlink leading out (say, to the media store's originals) refuses
    its line, and with it the whole manifest: no output, prompt or media file is written."""
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    _png(outside / "private.png", (250, 5, 120))
    (tmp_path / "images" / "innocent.png").symlink_to(outside / "private.png")
    (tmp_path / "images" / "elsewhere").symlink_to(outside, target_is_directory=True)
    lines = manifest.read_text().splitlines()
    pool_ids = [json.loads(line)["prompt_id"] for line in lines[:4]]
    refs = ["../" + outside.name + "/private.png", str(outside / "private.png"), "images/innocent.png"]
    refs.append("images/elsewhere/private.png")
    bad = [
        json.dumps({"model": "team-a", "image": ref, "prompt_id": pid})
        for ref, pid in zip(refs, pool_ids, strict=True)
    ]
    path = tmp_path / "outside.jsonl"
    path.write_text("\n".join([lines[5], *bad, lines[6]]) + "\n")
    before = (_count(initialized), _count(initialized, Prompt), _files(settings.media_dir))
    result = run("outputs", "import", str(path))
    assert result.exit_code == 2, result.output
    errors = result.stderr.splitlines()
    for number, ref in enumerate(refs, start=2):
        reason = "is an absolute path" if ref.startswith("/") else "leads outside"
        assert any(e.startswith(f"{path}:{number}: image '{ref}' {reason}") for e in errors), (number, errors)
    assert errors[-1] == "error: 4 bad line(s); nothing was imported"
    assert (_count(initialized), _count(initialized, Prompt), _files(settings.media_dir)) == before


def _noise_manifest(folder, model: str, prompt_ids: list[str], seed: int) -> list[str]:
    """One incompressible ~1 MB PNG per prompt for `model`, and the manifest lines naming them."""
    import numpy as np

    rng = np.random.default_rng(seed)
    folder.mkdir(exist_ok=True)
    lines = []
    for i, prompt_id in enumerate(prompt_ids):
        name = f"{model}-{i}.png"
        Image.fromarray(rng.integers(0, 256, (600, 600, 3), dtype=np.uint8)).save(folder / name, "PNG")
        lines.append(json.dumps({"model": model, "image": name, "prompt_id": prompt_id}))
    return lines


def _import_peak(session, lines, folder, settings) -> int:
    """Peak bytes the Python heap held during one import (the images' bytes objects are counted)."""
    import tracemalloc

    from arena.generation.outputs_import import import_outputs
    from arena.media.store import MediaStore
    from prompts_taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    tracemalloc.start()
    try:
        report = import_outputs(
            session, lines, base_dir=folder, store=MediaStore(settings.media_dir), taxonomy=taxonomy,
            media_dir=settings.media_dir, threshold=settings.near_duplicate_threshold,
            max_chars=settings.max_prompt_chars, source="memory-test",
        )  # fmt: skip
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.added == len(lines)
    return peak


def test_an_import_streams_its_images_so_memory_stays_flat_in_the_batch_size(initialized, settings, tmp_path):
    """An import used to hold every image until the end (30 x 20 MB: 840 MB); now each is read, checked and
    stored one at a time, so three times the lines take no more memory than one image more."""
    with Session(initialized) as session:
        sync_registry(session, parse_registry(MODELS))
        ids = session.exec(
            select(Prompt.id).where(Prompt.modality == "text_to_image").order_by(Prompt.id).limit(12)
        ).all()
    small = _noise_manifest(tmp_path / "small", "team-a", ids[:3], seed=1)
    large = _noise_manifest(tmp_path / "large", "team-b", ids[3:12], seed=2)
    size = (tmp_path / "small" / "team-a-0.png").stat().st_size
    assert size > 1_000_000
    with Session(initialized) as session:
        peak_small = _import_peak(session, small, tmp_path / "small", settings)
    with Session(initialized) as session:
        peak_large = _import_peak(session, large, tmp_path / "large", settings)
    # Holding the images would add 6 images' bytes (twice: the file and its normalized copy) for 6 more lines.
    assert peak_large - peak_small < size, (peak_small, peak_large, size)


def test_a_restored_prompt_takes_new_imported_images_but_never_its_published_ones(
    initialized, settings, tmp_path
):
    from arena.generation.outputs_import import import_outputs
    from arena.media.store import MediaStore
    from arena.prompts import admin as prompt_admin
    from arena.prompts.pool import ImportFailed
    from arena.voting.matchup_cache import PoolCache
    from prompts_taxonomy import load_taxonomy

    with Session(initialized) as session:
        sync_registry(session, parse_registry(MODELS))
        target = session.exec(
            select(Prompt.id).where(Prompt.modality == "text_to_image").order_by(Prompt.id)
        ).first()
    first = _noise_manifest(tmp_path / "first", "team-a", [target], 1) + _noise_manifest(
        tmp_path / "first", "team-b", [target], 2
    )
    second = _noise_manifest(tmp_path / "second", "team-a", [target], 3) + _noise_manifest(
        tmp_path / "second", "team-b", [target], 4
    )

    def load(lines, folder):
        with Session(initialized) as session:
            return import_outputs(
                session, lines, base_dir=folder, store=MediaStore(settings.media_dir), taxonomy=load_taxonomy(),
                media_dir=settings.media_dir, threshold=settings.near_duplicate_threshold,
                max_chars=settings.max_prompt_chars, source="restore-test",
            )  # fmt: skip

    assert load(first, tmp_path / "first").added == 2
    prompt_admin.set_status(initialized, target, retire=True, reason="r", actor="t")
    assert load(first, tmp_path / "first").unchanged == 2  # a re-import of a retired prompt changes nothing
    prompt_admin.set_status(initialized, target, retire=False, reason="r", actor="t")
    with pytest.raises(ImportFailed, match="published with its model's name"):
        load(first, tmp_path / "first")
    assert target not in PoolCache(initialized).load("text_to_image").prompts
    assert load(second, tmp_path / "second").added == 2
    pool = PoolCache(initialized).load("text_to_image")
    assert target in pool.prompts and len(pool.outputs[target]) == 2
    assert _count(initialized) == 4


def test_every_problem_of_a_line_is_reported_not_only_the_first(run, manifest, initialized, tmp_path):  # noqa: F811
    """Issue 28: the import named only the first problem of a line, so fixing a manifest took a run per field."""
    lines = manifest.read_text().splitlines()
    (tmp_path / "images" / "broken.png").write_bytes(b"not an image at all")
    many = {"model": "nobody", "image": "images/broken.png", "prompt_id": "x", "seconds": -1, "colour": "red"}
    prompt = {"model": "sandboxed", "image": "images/missing.png", "prompt": {"id": "own-x", "text": "short"}}
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(many), json.dumps(prompt)]) + "\n")
    outputs = _count(initialized)
    result = run("outputs", "import", str(path))
    assert result.exit_code == 2
    errors = result.stderr.splitlines()
    assert errors[-1] == "error: 2 bad line(s); nothing was imported"
    (second,) = [e for e in errors if e.startswith(f"{path}:2: ")]
    for reason in (
        "unknown field(s): colour",
        "field 'seconds' must be a generation time",
        "image 'images/broken.png': ",
        "unknown or inactive model 'nobody'",
        "unknown prompt id 'x'",
    ):
        assert reason in second, (reason, second)
    (third,) = [e for e in errors if e.startswith(f"{path}:3: ")]
    for reason in (
        "image 'images/missing.png' not found",
        'adapter = "external"',
        "prompt: ",
        "missing field",
    ):
        assert reason in third, (reason, third)
    assert _count(initialized) == outputs
