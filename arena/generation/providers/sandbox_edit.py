"""Edits for the sandbox editing models: a change confined to the edit region, or a global style filter.

The operation follows the prompt (quoted text -> a sign, "remove" -> a patch, a colour word -> recolour, "add"
-> an overlay shape) and falls back to the model's `edit_style`. Pixels outside the region (grown by the
model's `edit_spill`) are left exactly as they were, which is what a preservation grader checks.
"""

from __future__ import annotations

import io
import random
import re

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageOps

from arena.generation.providers.params import SandboxParams
from arena.generation.providers.sandbox_draw import (
    degrade,
    draw_sign,
    named_colour,
    palette_colours,
    quoted_texts,
    visible_text,
)

Region = tuple[float, float, float, float]
REMOVE = re.compile(r"\b(remove|erase|delete|clear|get rid of)\b", re.IGNORECASE)
ADD = re.compile(r"\b(add|place|put|insert|draw)\b", re.IGNORECASE)


def open_reference(data: bytes, native_size: int) -> Image.Image:
    """The reference as RGB, scaled so its longer side is the model's native size."""
    with Image.open(io.BytesIO(data)) as image:
        rgb = image.convert("RGB")
    scale = native_size / max(rgb.size)
    if abs(scale - 1) > 1e-9:
        rgb = rgb.resize((round(rgb.width * scale), round(rgb.height * scale)), Image.Resampling.LANCZOS)
    return rgb


def region_from_mask(mask: bytes) -> Region | None:
    """The bounding box of the mask's transparent (editable) pixels, as fractions; None if there are none."""
    with Image.open(io.BytesIO(mask)) as image:
        alpha = np.asarray(image.convert("RGBA"))[..., 3]
    ys, xs = np.nonzero(alpha < 128)
    if not len(xs):
        return None
    h, w = alpha.shape
    return xs.min() / w, ys.min() / h, (xs.max() + 1) / w, (ys.max() + 1) / h


def region_box(region: Region, size: tuple[int, int], spill: float) -> tuple[int, int, int, int]:
    """Pixel box of a fractional region, grown by `spill` x the image size on every side and clipped."""
    w, h = size
    x0, y0, x1, y1 = region
    grow_x, grow_y = round(spill * w), round(spill * h)
    box = (
        int(np.floor(x0 * w)) - grow_x,
        int(np.floor(y0 * h)) - grow_y,
        int(np.ceil(x1 * w)) + grow_x,
        int(np.ceil(y1 * h)) + grow_y,
    )
    left, top = max(0, box[0]), max(0, box[1])
    return left, top, max(left + 1, min(w, box[2])), max(top + 1, min(h, box[3]))


def choose_operation(prompt: str, default: str) -> str:
    """Which edit the prompt asks for; the model's default when it does not say."""
    if quoted_texts(prompt):
        return "text"
    if REMOVE.search(prompt):
        return "patch"
    if ADD.search(prompt):
        return "overlay"
    if named_colour(prompt) is not None:
        return "recolour"
    return default


def global_style(image: Image.Image, style: str) -> Image.Image:
    """A whole-image change for edits without a region."""
    if style == "warm":
        return Image.fromarray(
            np.clip(np.asarray(image, np.float32) * [1.12, 1.0, 0.82], 0, 255).astype(np.uint8)
        )
    if style == "cool":
        return Image.fromarray(
            np.clip(np.asarray(image, np.float32) * [0.85, 1.0, 1.15], 0, 255).astype(np.uint8)
        )
    if style == "sepia":
        return ImageOps.colorize(ImageOps.grayscale(image), "#2e1f14", "#f4e1c1")
    if style == "posterize":
        return ImageOps.posterize(image, 3)
    if style == "soften":
        return image.filter(ImageFilter.GaussianBlur(radius=image.width / 400))
    return ImageEnhance.Contrast(ImageEnhance.Color(image).enhance(1.9)).enhance(1.15)


def apply_edit(
    reference: bytes,
    prompt: str,
    region: Region | None,
    params: SandboxParams,
    *,
    seed: int,
    extras: tuple[bytes, ...] = (),
) -> tuple[Image.Image, dict[str, object]]:
    """The edited image and what was done (operation, pixel box, text drawn). Further reference images
    (`extras`, e.g. a try-on's garment) are composited into the edit region, or the lower middle without one."""
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    image = open_reference(reference, params.native_size)
    colours = palette_colours(params.palette, prompt)
    texts = [
        visible_text(t, params.text_fidelity, typo_rate=params.typo_rate, drop_rate=params.drop_rate, rng=rng)
        for t in quoted_texts(prompt)
    ]
    if extras:
        return composite(image, extras, region, params, nprng)
    if region is None:
        image = global_style(image, params.global_style)
        if texts:
            w, h = image.size
            draw_sign(image, texts, (w // 6, int(h * 0.72), w - w // 6, int(h * 0.9)), (250, 248, 240))
        image = degrade(image, params.quality, nprng)
        return image, {"operation": f"global:{params.global_style}", "rendered_text": texts}
    box = region_box(region, image.size, params.edit_spill)
    operation = choose_operation(prompt, params.edit_style)
    patch = image.crop(box)
    if operation == "text":
        lines = texts or [" ".join(prompt.split()[:2]) or "TEXT"]
        draw_sign(patch, lines, (0, 0, *patch.size), (250, 248, 240))
    elif operation == "patch":
        mean = tuple(int(c) for c in np.asarray(patch, np.float32).reshape(-1, 3).mean(axis=0))
        smooth = patch.filter(ImageFilter.GaussianBlur(radius=max(patch.size) / 6))
        patch = Image.blend(smooth, Image.new("RGB", patch.size, mean), 0.5)
    elif operation == "recolour":
        target = named_colour(prompt) or colours[rng.randrange(len(colours))]
        dark = tuple(int(c * 0.35) for c in target)
        light = tuple(int(c + (255 - c) * 0.6) for c in target)
        tinted = ImageOps.colorize(ImageOps.grayscale(patch), dark, light, mid=target)
        patch = Image.blend(patch, tinted, 0.8)
    else:
        fill = named_colour(prompt) or colours[rng.randrange(len(colours))]
        draw = ImageDraw.Draw(patch)
        pw, ph = patch.size
        inset = (pw // 8, ph // 8, pw - pw // 8 - 1, ph - ph // 8 - 1)
        draw.ellipse(inset, fill=fill, outline=(20, 20, 20), width=max(1, pw // 60))
    patch = degrade(patch, params.quality, nprng)
    image.paste(patch, box[:2])
    return image, {
        "operation": operation,
        "box_px": list(box),
        "rendered_text": texts if operation == "text" else [],
    }


def composite(
    image: Image.Image,
    extras: tuple[bytes, ...],
    region: Region | None,
    params: SandboxParams,
    rng: np.random.Generator,
) -> tuple[Image.Image, dict[str, object]]:
    """Blend the further reference images, side by side, into the edit region (spill applies as usual)."""
    w, h = image.size
    box = (
        region_box(region, image.size, params.edit_spill)
        if region
        else (w // 4, h // 2, 3 * w // 4, h * 19 // 20)
    )
    patch = image.crop(box)
    pw, ph = patch.size
    width = max(1, pw // len(extras))
    for i, data in enumerate(extras):
        with Image.open(io.BytesIO(data)) as other:
            piece = other.convert("RGB").resize((width, ph), Image.Resampling.LANCZOS)
        patch.paste(
            Image.blend(patch.crop((i * width, 0, i * width + width, ph)), piece, 0.85), (i * width, 0)
        )
    patch = degrade(patch, params.quality, rng)
    image.paste(patch, box[:2])
    return image, {
        "operation": "composite",
        "box_px": list(box),
        "references": 1 + len(extras),
        "rendered_text": [],
    }
