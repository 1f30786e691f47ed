"""Per-serve image variants for matchups: no two serves of an output share bytes, and every served file has
the same length, so neither a hash nor a byte size names the model.

Each serve decodes the stored JPEG, shifts a few random 8x8 blocks of one colour channel by one level (far
below what an eye sees, but it survives JPEG quantization, so the entropy-coded data differs on every serve),
re-encodes, and pads the file to exactly `target_bytes` with JPEG comment segments of zero bytes. An image
that does not fit at the stored quality is re-encoded at the next lower quality until it does. What remains
recognisable is the picture itself (a model's style; a perceptual hash of the decoded pixels): the online
filters against favouritism are the defence there, not the bytes.
"""

from __future__ import annotations

import io
import struct

import numpy as np
from PIL import Image

from arena.media import JPEG_QUALITY, SERVED_FORMAT

BLOCK = 8
SHIFTED_BLOCKS = 48
QUALITY_STEPS = (JPEG_QUALITY, 85, 80, 75, 70, 60, 50, 40)
_COM = b"\xff\xfe"
_MAX_SEGMENT = 65535  # the length field counts itself (2 bytes), so 65533 bytes of payload


class TooLarge(ValueError):
    """The image does not fit in the target size even at the lowest quality step."""


def _vary(pixels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    height, width, channels = pixels.shape
    rows, cols = height // BLOCK, width // BLOCK
    out = pixels.astype(np.int16)
    picks = rng.choice(rows * cols, size=min(SHIFTED_BLOCKS, rows * cols), replace=False)
    for pick in picks.tolist():
        y, x = divmod(pick, cols)
        channel = int(rng.integers(channels))
        delta = 1 if rng.random() < 0.5 else -1
        out[y * BLOCK : (y + 1) * BLOCK, x * BLOCK : (x + 1) * BLOCK, channel] += delta
    return np.clip(out, 0, 255).astype(np.uint8)


def _encode(pixels: np.ndarray, quality: int) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(buffer, SERVED_FORMAT, quality=quality, subsampling=0)
    return buffer.getvalue()


def _padding(length: int) -> bytes:
    """Comment segments whose total size is exactly `length` bytes (length 0 or >= 4)."""
    parts: list[bytes] = []
    while length > 0:
        size = min(length, _MAX_SEGMENT + 2)
        if 0 < length - size < 4:  # leave room for a last segment of at least 4 bytes
            size -= 4
        parts.append(_COM + struct.pack(">H", size - 2) + bytes(size - 4))
        length -= size
    return b"".join(parts)


def serve_variant(stored: bytes, target_bytes: int, rng: np.random.Generator | None = None) -> bytes:
    """A fresh JPEG of the stored image, imperceptibly varied and exactly `target_bytes` long."""
    rng = rng or np.random.default_rng()
    with Image.open(io.BytesIO(stored)) as image:
        pixels = np.asarray(image.convert("RGB"))
    varied = _vary(pixels, rng)
    for quality in QUALITY_STEPS:
        data = _encode(varied, quality)
        spare = target_bytes - len(data)
        if spare == 0 or spare >= 4:
            # The comment segments go right after the SOI marker, before any other segment.
            return data[:2] + _padding(spare) + data[2:]
    raise TooLarge(f"image does not fit in {target_bytes} bytes")
