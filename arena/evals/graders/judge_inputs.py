"""What the rubric judge is shown besides the output: the case's references, its mask (as a black / white map)
and edit region (outlined on the first reference), a ground-truth image when the case names one, and for
text-accuracy questions zoomed views of the output (the edit region enlarged, or a 2x2 grid of enlarged
tiles), each image captioned with its role so the judge knows what it is looking at."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from arena.evals.graders.preservation import editable_mask
from arena.evals.scores import Sample
from arena.evals.textmatch import quoted_lines
from arena.judge import JudgeImage

ZOOM_SIDE = 1024  # zoomed views are sent at the served size, so each tile is enlarged about 1.8x
TILE_SHARE = 0.55  # each of the 2x2 tiles covers 55% of each side: text across the middle is whole in one
OUTLINE = (255, 0, 0)
TILE_NAMES = ("top-left", "top-right", "bottom-left", "bottom-right")


@dataclass(frozen=True)
class ShownImage:
    """One image of a judge call with its role: reference, mask, region, ground truth, output or zoom."""

    role: str
    image: JudgeImage


def judge_images(sample: Sample, *, zoom: bool) -> list[ShownImage]:
    """Every image the judge sees for `sample`, in order: references, mask, region overlay, ground truth, the
    output, then (when `zoom` and the case asks for text) the zoomed views of the output."""
    assert sample.output is not None
    case = sample.case
    region = getattr(case, "edit_region", None)
    shown = [
        ShownImage("reference", JudgeImage.normalized(ref, f"Reference image {i} (an input of the edit)"))
        for i, ref in enumerate(sample.references, 1)
    ]
    first = sample.references[0] if sample.references else None
    if first is not None and (sample.mask is not None or region is not None):
        area = editable_mask(_size(first), sample.mask, region)
        assert area is not None
        if sample.mask is not None:
            shown.append(
                ShownImage(
                    "mask",
                    JudgeImage.normalized(
                        _png(Image.fromarray(np.where(area, 255, 0).astype(np.uint8), "L")),
                        "Mask of the edit: white is where the edit may change pixels; "
                        "black must stay unchanged",
                    ),
                )
            )
        shown.append(
            ShownImage(
                "region",
                JudgeImage.normalized(
                    _outlined(first, area),
                    "Edit region: reference image 1 with the area the edit may change outlined in red; "
                    "anything changed outside the outline is unrequested",
                ),
            )
        )
    truth = getattr(case, "ground_truth", None)
    if truth is not None:
        shown.append(
            ShownImage(
                "ground truth",
                JudgeImage.normalized(
                    truth.read_bytes(),
                    "Ground truth: what a correct output looks like (from the design source)",
                ),
            )
        )
    shown.append(ShownImage("output", JudgeImage.normalized(sample.output, "Output to grade")))
    if zoom and wants_zoom(case):
        shown.extend(zoomed(sample.output, _output_box(sample, region)))
    return shown


def wants_zoom(case: Any) -> bool:
    """True when the case asks for text to be rendered (required lines, quoted strings, or a `small_text` tag)."""
    lines = getattr(case, "required_text", ()) or quoted_lines(getattr(case, "prompt", ""))
    return bool(lines) or "small_text" in getattr(case, "tags", ())


def zoomed(output: bytes, box: tuple[float, float, float, float] | None) -> list[ShownImage]:
    """The zoom pass: the `box` (fractions of the output) enlarged, or without one the 2x2 enlarged tiles."""
    with Image.open(io.BytesIO(output)) as opened:
        image = opened.convert("RGB")
    if box is not None:
        x0, y0, x1, y1 = _padded(box)
        crop = _square(image.crop(_pixels(image.size, (x0, y0, x1, y1))))
        label = "Zoom: the edit region of the output, enlarged, to read small text and check each character"
        return [ShownImage("zoom", JudgeImage.normalized(_png(crop), label))]
    out = []
    rest = 1 - TILE_SHARE
    corners = ((0, 0), (rest, 0), (0, rest), (rest, rest))
    for n, (name, (fx, fy)) in enumerate(zip(TILE_NAMES, corners, strict=True), 1):
        crop = _square(image.crop(_pixels(image.size, (fx, fy, fx + TILE_SHARE, fy + TILE_SHARE))))
        label = f"Zoom {n} of 4: the {name} of the output, enlarged, to read small text"
        out.append(ShownImage("zoom", JudgeImage.normalized(_png(crop), label)))
    return out


def describe(shown: list[ShownImage]) -> str:
    """The user-text line listing the attached images in order by role."""
    names: list[str] = []
    refs = 0
    for item in shown:
        if item.role == "reference":
            refs += 1
            names.append(f"reference {refs}")
        elif item.role == "region":
            names.append("reference 1 with the edit region outlined")
        else:
            names.append(item.role)
    zooms = names.count("zoom")
    if zooms > 1:
        first = names.index("zoom")
        names[first : first + zooms] = [f"{zooms} zoomed tiles of the output"]
    return "Images attached, in order: " + ", ".join(names) + "."


def _output_box(sample: Sample, region: Any) -> tuple[float, float, float, float] | None:
    """Where to zoom on the output: the edit region, else the bounding box of the mask's editable area."""
    if region is not None:
        return tuple(region)  # type: ignore[return-value]
    if sample.mask is None:
        return None
    area = editable_mask(_size(sample.mask), sample.mask, None)
    if area is None or not area.any():
        return None
    ys, xs = np.nonzero(area)
    h, w = area.shape
    return xs.min() / w, ys.min() / h, (xs.max() + 1) / w, (ys.max() + 1) / h


def _padded(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """`box` grown by a fifth of its size on each side (the characters next to an edit matter too)."""
    x0, y0, x1, y1 = box
    dx, dy = (x1 - x0) / 5, (y1 - y0) / 5
    return max(0.0, x0 - dx), max(0.0, y0 - dy), min(1.0, x1 + dx), min(1.0, y1 + dy)


def _pixels(size: tuple[int, int], box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    w, h = size
    x0, y0, x1, y1 = box
    left, top = int(x0 * w), int(y0 * h)
    return left, top, max(left + 1, round(x1 * w)), max(top + 1, round(y1 * h))


def _square(image: Image.Image) -> Image.Image:
    """`image` letterboxed onto a white square and enlarged to ZOOM_SIDE (serving crops squares to fit)."""
    side = max(image.size)
    canvas = Image.new("RGB", (side, side), (255, 255, 255))
    canvas.paste(image, ((side - image.width) // 2, (side - image.height) // 2))
    return canvas.resize((ZOOM_SIDE, ZOOM_SIDE), Image.Resampling.LANCZOS)


def _outlined(reference: bytes, area: np.ndarray) -> bytes:
    """`reference` with the bounding box of the editable `area` drawn in red."""
    with Image.open(io.BytesIO(reference)) as opened:
        image = opened.convert("RGB")
    if area.any():
        ys, xs = np.nonzero(area)
        width = max(2, round(max(image.size) / 150))
        box = (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max()))
        ImageDraw.Draw(image).rectangle(box, outline=OUTLINE, width=width)
    return _png(image)


def _size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
