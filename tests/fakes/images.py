"""Small real images for the fake servers to return."""

from __future__ import annotations

import hashlib
import io

from PIL import Image


def png_bytes(size: str = "64x64", seed_text: str = "") -> bytes:
    """A solid-colour PNG of `size` ("WxH", capped at 2048 a side), its colour taken from `seed_text`."""
    try:
        width, height = (min(2048, max(1, int(v))) for v in size.split("x"))
    except ValueError:
        width, height = 64, 64
    r, g, b = hashlib.sha256(seed_text.encode()).digest()[:3]
    out = io.BytesIO()
    Image.new("RGB", (width, height), (r, g, b)).save(out, "PNG")
    return out.getvalue()
