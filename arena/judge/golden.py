"""The golden set shipped with the arena (`arena judge check --golden`): 16 labelled pairs whose truth holds by
construction, made from the local sandbox models' images (no person labelled them, no model judged them).

Kinds: a prompt's image against a blank grey image (the image wins); a sign prompt's image against the image of
another sign prompt, whose sign reads other words (the right text wins); the exact-text model's sign against the
typo model's sign of the same prompt, kept only when the typo model really misspelled it (exact wins); the same
image on both sides (a tie). Sides alternate so `a` and `b` win equally often.

`build(folder)` regenerates the files (`python -m arena.judge.golden FOLDER`); the shipped copy is `SHIPPED`.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

from PIL import Image

from arena.generation.providers import GenerationRequest, build_provider
from arena.generation.registry import load_registry

__all__ = ["SHIPPED", "build"]

SHIPPED = Path(__file__).parent / "golden" / "golden.jsonl"
SIDE = 512  # small files; the judge is sent every image normalized to the served size anyway
MODELS_FILE = Path(__file__).resolve().parents[2] / "models.toml"
SIGNS = (
    'A bakery storefront at dawn with a sign that reads "FRESH BREAD DAILY"',
    'A concert poster on a city wall that reads "LIVE MUSIC TONIGHT"',
    'A chalkboard menu outside a cafe that reads "COFFEE & CAKE"',
    'A shop window banner that reads "GRAND OPENING"',
)
PLAIN = (
    "A mountain lake at sunset with pine trees",
    "A red bicycle leaning against a blue door",
    "A bowl of oranges on a wooden table",
    "A lighthouse on a rocky coast in a storm",
)


async def _no_wait(_seconds: float) -> None:
    return None


class _Sandbox:
    """The sandbox models of the shipped registry, generating synchronously."""

    def __init__(self) -> None:
        self.entries = {e.slug: e for e in load_registry(MODELS_FILE)}

    def image(self, slug: str, prompt: str, seed: int = 0) -> tuple[Image.Image, list[str]]:
        entry = self.entries[slug]
        provider = build_provider(entry.adapter, entry.params, slug=slug, sleep=_no_wait)
        result = asyncio.run(provider.generate(GenerationRequest(prompt=prompt, seed=seed)))
        with Image.open(io.BytesIO(result.image)) as image:
            rgb = image.convert("RGB").resize((SIDE, SIDE), Image.Resampling.LANCZOS)
        return rgb, list(result.raw_metadata.get("rendered_text", []))


def _norm(text: str) -> str:
    return " ".join(text.upper().split())


def _misspelled(sandbox: _Sandbox, prompt: str) -> Image.Image:
    """The typo model's image of `prompt` at the first seed where its sign really differs from the quote."""
    wanted = [_norm(t) for t in re.findall(r'"([^"]+)"', prompt)]
    for seed in range(50):
        image, drawn = sandbox.image("sandbox-ember", prompt, seed)
        if [_norm(t) for t in drawn] != wanted:
            return image
    raise RuntimeError(f"the typo model spelled {prompt!r} right at every seed")


Named = tuple[str, Image.Image]  # (file name, image)


def _items(sandbox: _Sandbox) -> list[tuple[str, str, str, Named, Named, str]]:
    """(id, how, prompt, better image, other image, kind): `better` is the one the truth prefers."""
    grey = ("grey.jpg", Image.new("RGB", (SIDE, SIDE), (128, 128, 128)))
    prompts = SIGNS + PLAIN
    good = {p: (f"aurora-{k + 1}.jpg", sandbox.image("sandbox-aurora", p)[0]) for k, p in enumerate(prompts)}
    out = []
    for k, prompt in enumerate(SIGNS + PLAIN[:2]):
        out.append(
            (f"blank-{k + 1}", "the image against a blank grey image", prompt, good[prompt], grey, "win")
        )
    for k, prompt in enumerate(SIGNS):
        other = SIGNS[(k + 1) % len(SIGNS)]
        how = "the sign with the prompt's words against a sign with another prompt's words"
        out.append((f"wrong-text-{k + 1}", how, prompt, good[prompt], good[other], "win"))
    for k, prompt in enumerate(SIGNS):
        how = "the exact-text model's sign against the typo model's misspelled sign"
        typo = (f"typo-{k + 1}.jpg", _misspelled(sandbox, prompt))
        out.append((f"typo-{k + 1}", how, prompt, good[prompt], typo, "win"))
    for k, prompt in enumerate(PLAIN[2:]):
        out.append(
            (f"same-{k + 1}", "the same image on both sides", prompt, good[prompt], good[prompt], "tie")
        )
    return out


def build(folder: Path) -> Path:
    """Write golden.jsonl and its images into `folder`; returns the labels file."""
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for n, (item_id, how, prompt, better, other, kind) in enumerate(_items(_Sandbox())):
        first, second = (better, other) if n % 2 == 0 else (other, better)
        for name, image in (first, second):
            image.save(folder / name, "JPEG", quality=90)
        names = [first[0], second[0]]
        label = "tie" if kind == "tie" else ("a" if n % 2 == 0 else "b")
        rows.append(
            {
                "id": item_id,
                "modality": "text_to_image",
                "prompt": prompt,
                "image_a": names[0],
                "image_b": names[1],
                "label": label,
                "how": how,
            }
        )
    path = folder / "golden.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else SHIPPED.parent))
