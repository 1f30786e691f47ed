"""Per-serve image variants for matchups: no two serves of an output share bytes, and nothing outside the
pixels differs between outputs, so neither a hash nor a byte count nor an encoding parameter names the model.

A compressed image's size tracks its content (and so its model), whatever padding surrounds it: strip the
padding and the real size is left. So matchup images go out as PNG without entropy coding: filter type 0 on
every row, the zlib stream made of deflate *stored* blocks written here (not by zlib, whose block layout is
its own business), chunks IHDR, one IDAT, IEND and nothing else. The file's length and every byte outside the
pixel rows (signature, chunk lengths and types, IHDR, zlib and block headers) are a pure function of the side
length; the CRCs and the Adler-32 checksum are functions of the pixels. Each serve decodes the stored master,
scales it to the requested size class, and shifts a few random 8x8 blocks of one channel by one level (far
below what an eye sees; the encoding is lossless, so it survives), so no two serves are byte-identical. What
remains recognisable is the picture itself (a model's style; a perceptual hash of the decoded pixels): the
vote filters against favouritism are the defence there, not the bytes.
"""

from __future__ import annotations

import hashlib
import io
import struct
import time
import zlib

import numpy as np
from PIL import Image

BLOCK = 8
SHIFTED_BLOCKS = 48
#: The side lengths a matchup image is served at. The page picks one per device from the displayed size (both
#: sides and the reference alike, never per model); 1024 (the stored size) is the full-size view.
SIZE_CLASSES = (512, 768, 1024)
FULL_SIZE = SIZE_CLASSES[-1]
MEDIA_TYPE = "image/png"
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_STORED_MAX = 65535  # a stored deflate block holds at most this many bytes
#: CPU seconds that decoding a stored master is padded to (see `decode`): above the decode time of the most
#: detailed 1024 px master (pure noise, about 2 MB at quality 90: 30 ms measured here).
DECODE_CPU_SECONDS = 0.04
_BURN = bytes(16384)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _stored_zlib(raw: bytes) -> bytes:
    """A zlib stream of `raw` in stored (uncompressed) deflate blocks of 65,535 bytes, the last one shorter."""
    parts = [b"\x78\x01"]  # deflate, 32 KiB window, no preset dictionary, "fastest" level; header check ok
    view = memoryview(raw)
    for start in range(0, len(raw), _STORED_MAX):
        block = view[start : start + _STORED_MAX]
        final = 1 if start + _STORED_MAX >= len(raw) else 0
        parts.append(struct.pack("<BHH", final, len(block), 0xFFFF ^ len(block)))
        parts.append(block)
    parts.append(struct.pack(">I", zlib.adler32(raw)))
    return b"".join(parts)


def encode_png(pixels: np.ndarray) -> bytes:
    """An 8-bit RGB PNG of `pixels` (height x width x 3, uint8) with no filtering and no compression."""
    height, width, channels = pixels.shape
    if channels != 3 or pixels.dtype != np.uint8:
        raise ValueError("expected 8-bit RGB pixels")
    rows = np.zeros((height, width * 3 + 1), dtype=np.uint8)  # column 0: filter type 0 (None) on every row
    rows[:, 1:] = pixels.reshape(height, width * 3)
    header = struct.pack(
        ">IIBBBBB", width, height, 8, 2, 0, 0, 0
    )  # 8 bits, truecolour, deflate, no interlace
    return (
        _SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", _stored_zlib(rows.tobytes()))
        + _chunk(b"IEND", b"")
    )


def png_length(side: int) -> int:
    """The byte length of every served image of `side` x `side` pixels, whatever it shows."""
    raw = side * (side * 3 + 1)
    blocks = -(-raw // _STORED_MAX)
    zlib_length = 2 + raw + 5 * blocks + 4
    return len(_SIGNATURE) + (12 + 13) + (12 + zlib_length) + 12


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


def _burn_until(cpu_deadline: float) -> None:
    """Spend this thread's CPU time up to `cpu_deadline` (by `time.thread_time`), hashing a buffer, which
    releases the GIL, so other threads and the event loop keep running."""
    while time.thread_time() < cpu_deadline:
        hashlib.sha256(_BURN)


def decode(stored: bytes) -> Image.Image:
    """The stored master as RGB, after exactly DECODE_CPU_SECONDS of this thread's CPU time (unless decoding
    alone takes longer). Decoding a detailed JPEG takes longer than a flat one (about 6 ms against 18 ms for a
    1024 px master here); under load that difference grows with the wall time and reaches the voter as response
    time, which the response deadline alone cannot hide. Padding CPU time, not wall time, holds under load."""
    started = time.thread_time()
    with Image.open(io.BytesIO(stored)) as image:
        rgb = image.convert("RGB")
    _burn_until(started + DECODE_CPU_SECONDS)
    return rgb


def scaled_pixels(stored: bytes, side: int) -> np.ndarray:
    """The stored image decoded and scaled to `side` x `side` (the same work for every picture: a 2x2 box
    average for half the stored size, Lanczos otherwise)."""
    image = decode(stored)
    if image.size == (2 * side, 2 * side):
        image = image.reduce(2)
    elif image.size != (side, side):
        image = image.resize((side, side), Image.Resampling.LANCZOS)
    return np.asarray(image)


def serve_variant(stored: bytes, side: int = FULL_SIZE, rng: np.random.Generator | None = None) -> bytes:
    """A fresh PNG of the stored image at `side` (one of SIZE_CLASSES), imperceptibly varied, exactly
    `png_length(side)` bytes long."""
    if side not in SIZE_CLASSES:
        raise ValueError(f"size must be one of {', '.join(map(str, SIZE_CLASSES))}")
    return encode_png(_vary(scaled_pixels(stored, side), rng or np.random.default_rng()))
