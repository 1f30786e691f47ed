"""OCR exact-text gate, offline: RapidOCR on ONNX Runtime with the detection and recognition models the pinned
`rapidocr` wheel ships. Model paths are set explicitly, so it never downloads anything."""

from __future__ import annotations

import io
import threading
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from arena.evals.scores import Grader, Sample, Score
from arena.evals.textmatch import Normalization, match_lines, quoted_lines

MODEL_FILES = {
    "Det.model_path": "PP-OCRv6_det_small.onnx",
    "Cls.model_path": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
    "Rec.model_path": "PP-OCRv6_rec_small.onnx",
}
MAX_SIDE = 1024
_lock = threading.Lock()


def model_dir() -> Path:
    """Where the pinned wheel keeps its ONNX models."""
    import rapidocr

    return Path(rapidocr.__file__).parent / "models"


@cache
def _engine() -> Any:
    from rapidocr import RapidOCR

    root = model_dir()
    params: dict[str, Any] = {"Global.log_level": "error", "Global.use_cls": False}
    for key, name in MODEL_FILES.items():
        path = root / name
        if not path.is_file():
            raise RuntimeError(f"OCR model {path} is missing; reinstall the pinned rapidocr wheel")
        params[key] = str(path)
    return RapidOCR(params=params)


def read_lines(image_bytes: bytes, min_confidence: float = 0.5) -> list[str]:
    """Text lines RapidOCR recognizes, top to bottom (images larger than 1024 px a side are scaled down)."""
    with Image.open(io.BytesIO(image_bytes)) as image:
        rgb = image.convert("RGB")
    if max(rgb.size) > MAX_SIDE:
        rgb.thumbnail((MAX_SIDE, MAX_SIDE))
    with _lock:  # one inference at a time: ONNX Runtime already uses every core
        result = _engine()(np.asarray(rgb))
    texts = result.txts or ()
    scores = result.scores or ()
    boxes = result.boxes if result.boxes is not None else [None] * len(texts)
    rows = [
        (float(np.min(b[:, 1])) if b is not None else 0.0, t)
        for t, s, b in zip(texts, scores, boxes, strict=False)
        if s >= min_confidence
    ]
    return [t for _, t in sorted(rows, key=lambda r: r[0])]


def required_text(case: Any) -> list[str]:
    """The case's required lines, or the quoted strings of its prompt when none are given."""
    return list(case.required_text) if case.required_text else quoted_lines(case.prompt)


def ocr_exact_text(
    *,
    case_sensitive: bool = False,
    collapse_whitespace: bool = True,
    fold_punctuation: bool = True,
    tight_punctuation: bool = True,
    allow_extra_lines: bool = True,
    min_confidence: float = 0.5,
) -> Grader:
    """Gate "ocr_exact_text": every required line is read back exactly (after the normalization options);
    missing lines and lines nobody asked for are reported; extra lines fail only with allow_extra_lines=false."""
    norm = Normalization(case_sensitive, collapse_whitespace, fold_punctuation, tight_punctuation)

    def grade(sample: Sample) -> list[Score]:
        required = required_text(sample.case)
        if sample.output is None:
            return [
                Score.gate("ocr_exact_text", "ocr", False, f"no output: {sample.error}", "missing_output")
            ]
        if not required:
            return [Score("ocr_exact_text", "ocr", "info", None, "no required text for this case")]
        lines = read_lines(sample.output, min_confidence)
        match = match_lines(required, lines, norm)
        details = {
            "required": required,
            "read": lines,
            "missing": list(match.missing),
            "extra": list(match.extra),
        }
        passed = match.ok and (allow_extra_lines or not match.extra)
        parts = []
        if match.missing:
            parts.append("missing: " + "; ".join(f'"{m}"' for m in match.missing))
        if match.extra:
            parts.append("extra: " + "; ".join(f'"{e}"' for e in match.extra))
        reason = ", ".join(parts) or f"all {len(required)} required lines read exactly"
        tags = []
        if match.missing:
            tags.append("wrong_text")
        if match.extra and not allow_extra_lines:
            tags.append("extra_text")
        return [
            Score.gate("ocr_exact_text", "ocr", passed, reason, *tags, **details),
            Score("text_line_accuracy", "ocr", "info", len(match.found) / len(required), reason),
        ]

    return grade
