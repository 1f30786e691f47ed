"""Edit preservation and locality, offline (scikit-image SSIM): with a mask or an edit region, how much changed
inside it and how well everything outside it was kept, as tile-level SSIM (the minimum and a low percentile: a
mean would hide a small damaged patch); without one, the global drift of the whole image."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image

from arena.evals.scores import Grader, Sample, Score

WORK_SIDE = 512


@dataclass(frozen=True)
class TileStats:
    """SSIM per tile inside / outside the editable area (tiles straddling its border, with margin, are left out)."""

    inside: np.ndarray
    outside: np.ndarray

    def low(self, which: str, percentile: float) -> float | None:
        values = self.inside if which == "inside" else self.outside
        return float(np.percentile(values, percentile)) if values.size else None

    def median(self, which: str) -> float | None:
        values = self.inside if which == "inside" else self.outside
        return float(np.median(values)) if values.size else None


def _rgb(data: bytes, size: tuple[int, int]) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB").resize(size, Image.Resampling.BILINEAR), np.float32)


def work_size(reference: bytes) -> tuple[int, int]:
    """The reference's aspect at WORK_SIDE on its longer side."""
    with Image.open(io.BytesIO(reference)) as image:
        w, h = image.size
    scale = WORK_SIDE / max(w, h)
    return max(16, round(w * scale)), max(16, round(h * scale))


def editable_mask(
    size: tuple[int, int], mask: bytes | None, region: tuple[float, float, float, float] | None
) -> np.ndarray | None:
    """Boolean (h, w) array, True where the edit may change pixels; None when the case gives neither."""
    w, h = size
    if mask is not None:  # the Images API convention: transparent pixels may be edited (opaque masks: white)
        with Image.open(io.BytesIO(mask)) as image:
            rgba = np.asarray(image.convert("RGBA").resize(size, Image.Resampling.NEAREST))
        alpha = rgba[..., 3]
        if (alpha < 255).any():
            return alpha < 128
        return rgba[..., :3].mean(axis=2) >= 128
    if region is not None:
        x0, y0, x1, y1 = region
        out = np.zeros((h, w), bool)
        out[int(y0 * h) : int(np.ceil(y1 * h)), int(x0 * w) : int(np.ceil(x1 * w))] = True
        return out
    return None


def tile_ssim(
    before: np.ndarray, after: np.ndarray, editable: np.ndarray | None, tile: int, margin: int
) -> TileStats:
    """Mean SSIM per `tile` x `tile` block, computed separately over the block's pixels inside the editable area
    and over its pixels outside the margin-dilated area (a part counts when it covers a quarter of the block),
    so a narrow spill just past the region's edge is measured, not dropped with the straddling tile."""
    from skimage.metrics import (
        structural_similarity,
    )  # scikit-image loads slowly; only a preservation run needs it

    _, full = structural_similarity(before, after, channel_axis=2, data_range=255.0, full=True)
    ssim = full.mean(axis=2)
    h, w = ssim.shape
    near = np.zeros((h, w), bool) if editable is None else _dilate(editable, margin)
    inside_area = np.zeros((h, w), bool) if editable is None else editable
    enough = tile * tile / 4
    inside, outside = [], []
    for y in range(0, h - tile + 1, tile):
        for x in range(0, w - tile + 1, tile):
            block = ssim[y : y + tile, x : x + tile]
            out_px = ~near[y : y + tile, x : x + tile]
            in_px = inside_area[y : y + tile, x : x + tile]
            if out_px.sum() >= enough:
                outside.append(float(block[out_px].mean()))
            if in_px.sum() >= enough:
                inside.append(float(block[in_px].mean()))
    if editable is not None and not inside and editable.any():  # a region thinner than a quarter tile
        inside.append(float(ssim[editable].mean()))
    return TileStats(np.array(inside), np.array(outside))


def _dilate(area: np.ndarray, margin: int) -> np.ndarray:
    out = area.copy()
    if margin <= 0 or not area.any():
        return out
    h, w = area.shape
    # A box dilation is enough for the rectangular regions and blob masks suites use.
    padded = np.pad(area, margin)
    acc = np.zeros_like(area)
    for dy in range(-margin, margin + 1, max(1, margin // 4)):
        for dx in range(-margin, margin + 1, max(1, margin // 4)):
            acc |= padded[margin + dy : margin + dy + h, margin + dx : margin + dx + w]
    return out | acc


def preservation(
    *,
    tile: int = 32,
    percentile: float = 0.0,
    margin: int = 4,
    min_outside_ssim: float = 0.80,
    min_inside_change: float = 0.0,
    min_global_ssim: float | None = None,
) -> Grader:
    """Gate "preservation". With an editable area: the `percentile` (0 = the minimum, the default: a small
    damaged patch covers fewer tiles than a 5th percentile would notice) of outside tiles' SSIM must reach
    `min_outside_ssim` (and, when set, the inside must have changed by `min_inside_change` = 1 - median inside
    SSIM). Without one: the global low percentile must reach `min_global_ssim` when set, else it is reported."""

    def grade(sample: Sample) -> list[Score]:
        if sample.output is None:
            return [
                Score.gate(
                    "preservation", "preservation", False, f"no output: {sample.error}", "missing_output"
                )
            ]
        if not sample.references:
            return [
                Score.gate(
                    "preservation", "preservation", False, "the case has no reference image", "no_reference"
                )
            ]
        size = work_size(sample.references[0])
        before = _rgb(sample.references[0], size)
        try:
            after = _rgb(sample.output, size)
        except Exception as exc:  # undecodable output
            return [
                Score.gate(
                    "preservation", "preservation", False, f"output does not decode: {exc}", "undecodable"
                )
            ]
        editable = editable_mask(size, sample.mask, getattr(sample.case, "edit_region", None))
        stats = tile_ssim(before, after, editable, tile, margin)
        if editable is None:
            return _global(stats, percentile, min_global_ssim)
        return _local(stats, percentile, min_outside_ssim, min_inside_change)

    return grade


def _local(stats: TileStats, percentile: float, min_outside: float, min_change: float) -> list[Score]:
    low = stats.low("outside", percentile)
    worst = float(stats.outside.min()) if stats.outside.size else None
    med_in = stats.median("inside")
    change = None if med_in is None else 1.0 - med_in
    details = {
        "outside_low": low,
        "outside_min": worst,
        "outside_median": stats.median("outside"),
        "inside_change": change,
        "tiles_outside": int(stats.outside.size),
        "tiles_inside": int(stats.inside.size),
    }
    if low is None:
        return [
            Score.gate(
                "preservation", "preservation", True, "the edit area covers the whole image", **details
            )
        ]
    problems, tags = [], []
    if low < min_outside:
        problems.append(
            f"outside the edit area, the p{percentile:g} tile SSIM is {low:.3f} < {min_outside:.2f}"
        )
        tags.append("changed_outside_region")
    if min_change > 0 and (change is None or change < min_change):
        problems.append(f"inside change {change or 0:.3f} < {min_change:.2f}: the edit was not made")
        tags.append("edit_not_applied")
    reason = (
        "; ".join(problems)
        or f"outside p{percentile:g} SSIM {low:.3f}, min {worst:.3f}; inside change {change or 0:.3f}"
    )
    return [
        Score.gate("preservation", "preservation", not problems, reason, *tags, **details),
        Score("outside_ssim_low", "preservation", "info", low, reason),
    ]


def _global(stats: TileStats, percentile: float, min_global: float | None) -> list[Score]:
    low = stats.low("outside", percentile)
    median = stats.median("outside")
    details = {"global_low": low, "global_median": median}
    reason = f"global drift: p{percentile:g} tile SSIM {low:.3f}, median {median:.3f}"
    scores = [Score("global_ssim_low", "preservation", "info", low, reason, details=details)]
    if min_global is not None:
        passed = low is not None and low >= min_global
        scores.insert(
            0, Score.gate("preservation", "preservation", passed, reason, "global_drift", **details)
        )
    return scores
