"""The media store: every served image is normalized and stored under an opaque random id.

Normalization (the stored master: model pages show it as is; matchups serve it as an uncompressed PNG made
per serve by `arena.media.variants`, whose size and encoding say nothing about the picture): decode with a pixel
limit, apply the orientation tag, convert to sRGB using the embedded ICC profile, flatten transparency onto
white, centre-crop to square and resize to 1024x1024, then re-encode as baseline JPEG (quality 90, no chroma
subsampling, so rendered text stays crisp) from bare pixels, so no metadata block of the original (EXIF, XMP,
ICC, text chunks, C2PA manifests, comments) can survive. JPEG over WebP: the same quality encodes about 30x
faster here (3 ms vs 100 ms for a 1024x1024 image), which matters when a backfill normalizes thousands of
outputs. The provider's original bytes are kept by content hash for audit, in a folder that no route serves.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageCms, ImageOps

from arena.media.images import open_image

SERVED_SIZE = 1024
SERVED_FORMAT = "JPEG"
SERVED_SUFFIX = ".jpg"
SERVED_MEDIA_TYPE = "image/jpeg"
JPEG_QUALITY = 90
TEMP_SUFFIX = ".tmp"
STALE_TEMP_SECONDS = 60.0
MEDIA_ID = re.compile(r"^[A-Za-z0-9_-]{32}$")
_SRGB = ImageCms.createProfile("sRGB")


def new_media_id() -> str:
    """192 random bits, URL-safe: unguessable and unrelated to content, model or time."""
    return secrets.token_urlsafe(24)


def _to_srgb(image: Image.Image) -> Image.Image:
    icc = image.info.get("icc_profile")
    if icc and image.mode in {"RGB", "RGBA", "CMYK", "L"}:
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            mode = "RGBA" if image.mode == "RGBA" else "RGB"
            converted = ImageCms.profileToProfile(image, source, _SRGB, outputMode=mode)
            if converted is not None:
                return converted
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass  # A broken profile: treat the pixels as sRGB, as browsers do.
    return image


def normalize_image(data: bytes, *, size: int = SERVED_SIZE) -> bytes:
    """Decode `data` and return the served JPEG bytes (size x size, sRGB, no metadata).

    Raises `arena.media.images.ImageRejected` for non-images, unsupported formats and decompression bombs.
    """
    image = open_image(data)
    image = ImageOps.exif_transpose(image)
    image = _to_srgb(image)
    if image.mode in {"RGBA", "LA", "PA"} or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        image = flat
    image = image.convert("RGB")
    if image.size != (size, size):
        image = ImageOps.fit(image, (size, size), method=Image.Resampling.LANCZOS)
    bare = Image.frombytes("RGB", image.size, image.tobytes())  # drops every info/metadata entry
    out = io.BytesIO()
    bare.save(out, SERVED_FORMAT, quality=JPEG_QUALITY, subsampling=0)
    return out.getvalue()


@dataclass(frozen=True)
class StoredImage:
    """Where one output went: the served media id and the audit copy's content hash."""

    media_id: str
    original_sha256: str
    original_width: int
    original_height: int


class MediaStore:
    """Files under `root`: `served/<id>.jpg` (what voters get) and `originals/<sha256>` (audit only)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.served_dir = self.root / "served"
        self.originals_dir = self.root / "originals"

    def store(self, original: bytes) -> StoredImage:
        """Normalize and store `original`; both files are written atomically (temp file, then rename)."""
        served = normalize_image(original)
        with Image.open(io.BytesIO(original)) as probe:
            width, height = probe.size
        sha = hashlib.sha256(original).hexdigest()
        _atomic_write(self.originals_dir / sha, original)
        media_id = new_media_id()
        _atomic_write(self.served_dir / f"{media_id}{SERVED_SUFFIX}", served)
        return StoredImage(media_id, sha, width, height)

    def store_normalized(self, data: bytes) -> str:
        """Normalize and store `data` without keeping the original (a voter's upload, an open battle's output:
        nothing but the normalized pixels is kept); returns the new media id. Raises `ImageRejected`."""
        served = normalize_image(data)
        media_id = new_media_id()
        _atomic_write(self.served_dir / f"{media_id}{SERVED_SUFFIX}", served)
        return media_id

    def served_path(self, media_id: str) -> Path | None:
        """The file for a served id, or None for anything that is not a well-formed, existing id."""
        if not MEDIA_ID.match(media_id):
            return None
        path = self.served_dir / f"{media_id}{SERVED_SUFFIX}"
        return path if path.is_file() else None

    def clean_temp(self, *, older_than: float = STALE_TEMP_SECONDS) -> int:
        """Remove temp files a killed writer left behind (older than `older_than` seconds, so another process's
        write in flight is left alone); returns how many. Run before a backfill."""
        removed = 0
        cutoff = time.time() - older_than
        for folder in (self.served_dir, self.originals_dir):
            if folder.is_dir():
                for stale in folder.glob(f".*{TEMP_SUFFIX}"):
                    with contextlib.suppress(FileNotFoundError):
                        if stale.stat().st_mtime < cutoff:
                            stale.unlink()
                            removed += 1
        return removed

    def discard(self, media_id: str) -> None:
        """Remove a served file that no row points to (a lost race in the backfill)."""
        path = self.served_path(media_id)
        if path is not None:
            path.unlink(missing_ok=True)


def _atomic_write(path: Path, data: bytes) -> None:
    """Write a temp file, fsync, rename; a failed write (a full disk) removes its temp file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
