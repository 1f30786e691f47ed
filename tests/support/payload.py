"""Strip every non-pixel part of a served image and read its encoding parameters: what an attacker who
ignores padding, comments and metadata would compare between outputs. JPEG: drop APPn and COM segments, fill
bytes and anything after EOI; parameters are the quantization tables and the frame header (sampling factors).
PNG: drop every ancillary chunk and anything after IEND; parameters are IHDR, the IDAT split, the zlib header,
the deflate block types and the filter type of every row."""

from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Stripped:
    """What is left of an image once every non-pixel part is removed, and how it was encoded."""

    kind: str  # "jpeg", "png" or "other"
    length: int  # bytes left after stripping
    width: int
    height: int
    params: tuple  # the encoding parameters, compared for equality across outputs
    quality: float  # a numeric summary: mean luminance quantization step (JPEG), 0 for PNG
    filtered_rows: float  # share of PNG rows with a filter other than 0 (0 for JPEG)
    block_type: int  # first deflate block's type (0 stored, 1 fixed, 2 dynamic); -1 for JPEG

    def features(self) -> list[float]:
        """Numbers for a classifier: stripped length, dimensions and the encoding parameters."""
        signature = int(hashlib.sha256(repr(self.params).encode()).hexdigest()[:6], 16) / 0xFFFFFF
        return [
            float(self.length),
            float(self.width),
            float(self.height),
            self.quality,
            self.filtered_rows,
            float(self.block_type),
            signature,
        ]


def strip(data: bytes) -> Stripped:
    """The stripped payload of a JPEG or PNG (anything else: its whole length, no parameters)."""
    if data[:2] == b"\xff\xd8":
        return _jpeg(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _png(data)
    return Stripped("other", len(data), 0, 0, (), 0.0, 0.0, -1)


def _jpeg(data: bytes) -> Stripped:
    kept = 2  # SOI
    tables: list[bytes] = []
    frame = b""
    width = height = 0
    i = 2
    while i < len(data):
        if data[i] != 0xFF:
            raise ValueError(f"not a marker at {i}")
        while i < len(data) and data[i] == 0xFF:  # fill bytes before a marker carry nothing
            i += 1
        marker = data[i]
        i += 1
        if marker == 0xD9:  # EOI: anything after it is not part of the image
            kept += 2
            break
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            kept += 2
            continue
        (length,) = struct.unpack(">H", data[i : i + 2])
        segment = data[i + 2 : i + length]
        end = i + length
        if marker == 0xDB:
            tables.append(segment)
        elif marker in (0xC0, 0xC1, 0xC2, 0xC3):
            frame = bytes([marker]) + segment
            height, width = struct.unpack(">HH", segment[1:5])
        if 0xE0 <= marker <= 0xEF or marker == 0xFE:
            i = end  # APPn (EXIF, JFIF, ICC, XMP, ...) and comments: not pixels
            continue
        kept += 2 + length
        i = end
        if marker == 0xDA:
            j = _scan_end(data, i)
            kept += j - i
            i = j
    luminance = _first_table(tables)
    return Stripped("jpeg", kept, width, height, (tuple(tables), frame), luminance, 0.0, -1)


def _scan_end(data: bytes, start: int) -> int:
    """Where the entropy-coded data after an SOS header ends: the first 0xFF (of a run of fill bytes) that
    starts a marker other than a stuffed zero or a restart."""
    arr = np.frombuffer(data, np.uint8, offset=start)
    nxt = arr[1:]
    hits = np.nonzero((arr[:-1] == 0xFF) & (nxt != 0) & (nxt != 0xFF) & ((nxt < 0xD0) | (nxt > 0xD7)))[0]
    if not len(hits):
        return len(data)
    j = int(hits[0])
    while j > 0 and arr[j - 1] == 0xFF:
        j -= 1
    return start + j


def _first_table(tables: list[bytes]) -> float:
    if not tables:
        return 0.0
    segment = tables[0]
    precision = segment[0] >> 4
    values = np.frombuffer(segment[1:129], ">u2") if precision else np.frombuffer(segment[1:65], np.uint8)
    return float(values.mean())


def _png(data: bytes) -> Stripped:
    kept = 8
    i = 8
    ihdr = b""
    idat: list[bytes] = []
    layout: list[tuple[bytes, int]] = []
    while i + 8 <= len(data):
        (length,) = struct.unpack(">I", data[i : i + 4])
        kind = data[i + 4 : i + 8]
        body = data[i + 8 : i + 8 + length]
        i += 12 + length
        if not kind[0] & 0x20:  # critical chunk (upper-case first letter): IHDR, PLTE, IDAT, IEND
            kept += 12 + length
            layout.append((kind, length if kind != b"IDAT" else -1))
            if kind == b"IHDR":
                ihdr = body
            elif kind == b"IDAT":
                idat.append(body)
        if kind == b"IEND":
            break
    width, height = struct.unpack(">II", ihdr[:8])
    stream = b"".join(idat)
    block_type = (stream[2] >> 1) & 3 if len(stream) > 2 else -1
    raw = zlib.decompress(stream)
    bits, colour = ihdr[8], ihdr[9]
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    stride = (width * channels * bits + 7) // 8 + 1
    filters = np.frombuffer(raw, np.uint8)[::stride][:height] if ihdr[12] == 0 else np.zeros(0)
    filtered = float((filters != 0).mean()) if len(filters) else 0.0
    params = (ihdr, tuple(len(c) for c in idat), stream[:2], block_type, tuple(layout), filters.tobytes())
    return Stripped("png", kept, width, height, params, 0.0, filtered, block_type)
