"""Stored eval runs for the pairwise tests: solid-colour artifacts per model run (so a fake judge can tell the
models apart from the images alone), cases.json in the run folder, results in the eval tables."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from PIL import Image
from sqlalchemy import Engine

from arena.evals.scores import Score
from arena.evals.store import RunStore

COLOURS = {"red": (230, 20, 20), "green": (20, 200, 20), "blue": (20, 20, 230)}


def solid_png(colour: tuple[int, int, int]) -> bytes:
    """A 64x64 PNG of one colour."""
    out = io.BytesIO()
    Image.new("RGB", (64, 64), colour).save(out, "PNG")
    return out.getvalue()


def stored_eval(engine: Engine, run_id: str, out: Path, labels: dict[str, str], cases: int) -> None:
    """Run `run_id` in folder `out`: each label (model run) made one image per case in its colour name."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.json").write_text(json.dumps({"run_id": run_id}))
    case_ids = [f"c{i}" for i in range(cases)]
    (out / "cases.json").write_text(
        json.dumps(
            {
                "cases": {
                    c: {"task": "generation", "prompt": f"poster {c}", "steps": [], "inputs": []}
                    for c in case_ids
                }
            }
        )
    )
    store = RunStore(engine, run_id)
    store.start(suite_name="posters", workflow="generic", out_dir=str(out))
    for label, colour in labels.items():
        (out / "artifacts" / label).mkdir(parents=True, exist_ok=True)
        for case_id in case_ids:
            rel = f"artifacts/{label}/{case_id}.png"
            (out / rel).write_bytes(solid_png(COLOURS[colour]))
            rid = store.record_output(
                case_id=case_id,
                run_label=label,
                sample=0,
                model_slug=f"sandbox-{label}",
                params={},
                status="ok",
                error="",
                artifact_path=rel,
                artifact_sha256="",
                latency_s=1.0,
            )
            store.record_grades(rid, [Score.gate("basic", "basic", True, "ok")], "pass", [])
    store.finish({}, 0)


def colour_of(data_url: str) -> str:
    """Which of COLOURS a judge image (a data URL) is closest to."""
    raw = base64.b64decode(data_url.split(",", 1)[1])
    pixel = Image.open(io.BytesIO(raw)).convert("RGB").getpixel((10, 10))
    return min(COLOURS, key=lambda name: sum((a - b) ** 2 for a, b in zip(COLOURS[name], pixel, strict=True)))
