"""Basic checks of an output: it exists, decodes, has the expected size and aspect, and is not blank."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from arena.evals.scores import Grader, Sample, Score


def basic(
    *, min_side: int = 256, aspect: float | None = None, aspect_tolerance: float = 0.05, min_std: float = 4.0
) -> Grader:
    """Gate "basic": decodes, shorter side >= `min_side`, width/height within `aspect_tolerance` of `aspect`
    (when given), and pixel standard deviation above `min_std` (a blank or uniform image fails)."""

    def grade(sample: Sample) -> list[Score]:
        if sample.output is None:
            return [Score.gate("basic", "basic", False, f"no output: {sample.error}", "missing_output")]
        try:
            with Image.open(io.BytesIO(sample.output)) as image:
                image.load()
                rgb = image.convert("RGB")
        except Exception as exc:  # PIL raises many types for broken bytes
            return [Score.gate("basic", "basic", False, f"does not decode: {exc}", "undecodable")]
        width, height = rgb.size
        problems: list[tuple[str, str]] = []
        if min(width, height) < min_side:
            problems.append((f"{width}x{height} is smaller than {min_side} px a side", "too_small"))
        if aspect is not None and abs(width / height - aspect) > aspect_tolerance * aspect:
            problems.append((f"aspect {width / height:.3f} is not {aspect:.3f}", "wrong_aspect"))
        std = float(np.asarray(rgb.resize((256, 256)), np.float32).std())
        if std < min_std:
            problems.append((f"uniform image (pixel std {std:.2f})", "blank"))
        if problems:
            reason = "; ".join(p for p, _ in problems)
            return [
                Score.gate(
                    "basic", "basic", False, reason, *(t for _, t in problems), width=width, height=height
                )
            ]
        return [
            Score.gate(
                "basic", "basic", True, f"{width}x{height}, pixel std {std:.1f}", width=width, height=height
            )
        ]

    return grade
