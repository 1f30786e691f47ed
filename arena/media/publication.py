"""Outputs shown with their model's name are published, and a published output is never served blind again.

Retiring a prompt publishes its outputs (model pages, /compare and the examples API caption them, /media serves
their bytes); `Output.published_at` records it, matchmaking skips published outputs for good, and a restored
prompt returns to matchups only once the backfill (or an import) has made new outputs for at least two models.
`looks_alike` compares images by a perceptual hash, so a regenerated image that merely re-encodes a published
one is refused as well as a byte-identical one.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from datetime import datetime

from PIL import Image
from sqlalchemy import Connection, update
from sqlmodel import Session

from arena.db.tables import Output, utcnow

HASH_SIZE = 8
ALIKE_BITS = 6  # of 64: re-encodes and resizes of one image differ by a few bits, different images by ~32


def publish_prompts(db: Session | Connection, prompt_ids: Iterable[str], now: datetime | None = None) -> int:
    """Mark every not yet published output with an image of these prompts published; returns how many."""
    ids = sorted(set(prompt_ids))
    if not ids:
        return 0
    result = db.execute(
        update(Output)
        .where(Output.prompt_id.in_(ids), Output.published_at.is_(None), Output.media_id.is_not(None))  # type: ignore[union-attr,attr-defined]
        .values(published_at=now or utcnow())
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def publish_output(db: Session | Connection, output_id: int, now: datetime | None = None) -> None:
    """Mark one output published (a no-op when it already is)."""
    db.execute(
        update(Output)
        .where(Output.id == output_id, Output.published_at.is_(None))  # type: ignore[arg-type,union-attr]
        .values(published_at=now or utcnow())
    )


def image_hash(data: bytes) -> int:
    """A 64-bit difference hash of an image: brightness gradients of a 9x8 greyscale thumbnail."""
    with Image.open(io.BytesIO(data)) as image:
        small = image.convert("L").resize((HASH_SIZE + 1, HASH_SIZE), Image.Resampling.LANCZOS)
    pixels = small.tobytes()  # one byte per pixel, row by row
    bits = 0
    for row in range(HASH_SIZE):
        for col in range(HASH_SIZE):
            left, right = pixels[row * (HASH_SIZE + 1) + col], pixels[row * (HASH_SIZE + 1) + col + 1]
            bits = (bits << 1) | (left > right)
    return bits


def looks_alike(a: bytes, b: bytes, *, max_bits: int = ALIKE_BITS) -> bool:
    """Whether two images are the same picture (identical bytes, or hashes within `max_bits` bits)."""
    return a == b or bin(image_hash(a) ^ image_hash(b)).count("1") <= max_bits
