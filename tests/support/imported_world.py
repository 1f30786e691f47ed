"""A world of imported outputs (`arena outputs import`) whose encoded sizes differ as much as real ones can:
flat colour fields, noisy photos, large detailed scans and tiny upscaled sketches, one external model each,
with an output for the same first prompts. Stored as normalized JPEG masters, their file sizes run from tens of
kilobytes to well over a megabyte, so any size or encoding parameter that reaches a voter would name the model
(the case bench/bench_anonymity.py --world imported and tests/integration/test_payload_blindness.py check)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image
from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.db.tables import Prompt
from arena.generation.outputs_import import import_outputs
from arena.generation.registry import ModelEntry, parse_registry, sync_registry
from arena.media.store import MediaStore
from arena.settings import Settings
from prompts_taxonomy import load_taxonomy

MODALITY = "text_to_image"
#: slug -> (display name, how its images look)
STYLES = {
    "import-flatcolour": "Flatcolour Studio",
    "import-noisyphoto": "Noisyphoto Camera",
    "import-largescan": "Largescan Archive",
    "import-tinysketch": "Tinysketch Pencil",
}


def _pixels(slug: str, rng: np.random.Generator) -> np.ndarray:
    if slug == "import-flatcolour":  # one colour with a faint ramp: a JPEG of a few tens of KB
        base = rng.integers(40, 220, 3)
        ramp = np.linspace(0, 12, 768)[None, :, None]
        return np.clip(base + ramp + np.zeros((768, 768, 3)), 0, 255).astype(np.uint8)
    if slug == "import-noisyphoto":  # smooth light with sensor noise
        y, x = np.mgrid[0:1024, 0:1024] / 1024
        light = 60 + 140 * (0.5 + 0.5 * np.sin(3 * x + rng.uniform(0, 6)) * np.cos(2 * y))
        image = light[..., None] * rng.uniform(0.6, 1.0, 3) + rng.normal(0, 14, (1024, 1024, 3))
        return np.clip(image, 0, 255).astype(np.uint8)
    if slug == "import-largescan":  # 3000 x 2000 of fine texture: the largest masters
        texture = rng.normal(128, 45, (2000, 3000, 3))
        texture[:, ::3] += 40
        return np.clip(texture, 0, 255).astype(np.uint8)
    blocks = rng.integers(0, 256, (12, 12, 3), dtype=np.uint8)  # a 96 px sketch, upscaled by the store
    return np.kron(blocks, np.ones((8, 8, 1), dtype=np.uint8))


def _toml() -> str:
    return "".join(
        f'[[models]]\nslug = "{slug}"\ndisplay_name = "{name}"\norganization = "Imported {name}"\n'
        f'modality = "{MODALITY}"\nadapter = "external"\n\n'
        for slug, name in STYLES.items()
    )


def build_imported_world(
    settings: Settings, engine: Engine, *, prompts: int, seed: int = 0
) -> list[ModelEntry]:
    """Register the external models and import an output of each for the first `prompts` prompts."""
    text = _toml()
    settings.models_file.write_text(text, encoding="utf-8")
    entries = parse_registry(text)
    folder = Path(settings.media_dir).parent / "imports"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    with Session(engine) as session:
        sync_registry(session, entries)
        ids = session.exec(
            select(Prompt.id)
            .where(Prompt.modality == MODALITY, Prompt.status == "active")
            .order_by(Prompt.id)
        ).all()[:prompts]
        lines = []
        for slug in STYLES:
            for prompt_id in ids:
                name = f"{slug}-{prompt_id}.png"
                Image.fromarray(_pixels(slug, rng)).save(folder / name, "PNG", compress_level=1)
                lines.append(json.dumps({"model": slug, "image": name, "prompt_id": prompt_id}))
        import_outputs(
            session,
            lines,
            base_dir=folder,
            store=MediaStore(settings.media_dir),
            taxonomy=load_taxonomy(),
            media_dir=settings.media_dir,
            threshold=settings.near_duplicate_threshold,
            max_chars=settings.max_prompt_chars,
            source="outputs:imported-world",
        )
    return entries
