"""Safe image opening: refuse non-images, unsupported formats and decompression bombs with a clear reason."""

from __future__ import annotations

import io
import warnings

from PIL import Image, UnidentifiedImageError

MAX_PIXELS = 40_000_000
ALLOWED_FORMATS = frozenset({"PNG", "JPEG", "WEBP"})


class ImageRejected(ValueError):
    """The bytes are not an acceptable image; the message says why."""


def open_image(data: bytes, *, max_pixels: int = MAX_PIXELS) -> Image.Image:
    """Decode `data` fully and return the image, or raise `ImageRejected` with a one-line reason."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            probe = Image.open(io.BytesIO(data))
            if probe.format not in ALLOWED_FORMATS:
                raise ImageRejected(f"unsupported image format {probe.format or 'unknown'}")
            width, height = probe.size
            if width * height > max_pixels:
                raise ImageRejected(f"image too large ({width}x{height} > {max_pixels} pixels)")
            probe.verify()
            image = Image.open(io.BytesIO(data))
            image.load()
    except ImageRejected:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageRejected("image too large (decompression bomb)") from exc
    except UnidentifiedImageError as exc:
        raise ImageRejected("not an image") from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageRejected(f"unreadable image ({exc.__class__.__name__})") from exc
    return image
