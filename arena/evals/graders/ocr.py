"""OCR exact-text gate, offline: RapidOCR on ONNX Runtime with the detection and recognition models the pinned
`rapidocr` wheel ships. Model paths are set explicitly, so it never downloads anything.

Concurrent reads each take an engine from a small pool (`ocr_workers`, default one per core, at most 4) instead
of queueing on one engine: every engine has its own ONNX Runtime sessions, whose threads split the cores, so
no engine object is ever used by two threads at once (nothing here relies on RapidOCR being thread-safe)."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from arena.evals.scores import Grader, Sample, Score
from arena.evals.textmatch import (
    MODES,
    MatchRule,
    Normalization,
    char_error_rate,
    default_rule,
    match_lines,
    quoted_lines,
)

MODEL_FILES = {
    "Det.model_path": "PP-OCRv6_det_small.onnx",
    "Cls.model_path": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
    "Rec.model_path": "PP-OCRv6_rec_small.onnx",
}
MAX_SIDE = 1024
CORES = os.cpu_count() or 1


def model_dir() -> Path:
    """Where the pinned wheel keeps its ONNX models."""
    import rapidocr

    return Path(rapidocr.__file__).parent / "models"


class EnginePool:
    """At most `size` OCR engines, made on first need and lent to one thread at a time."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._idle: list[Any] = []
        self._made = 0
        self._cond = threading.Condition()

    @contextmanager
    def engine(self) -> Iterator[Any]:
        """An engine for the caller alone; waits while all `size` are lent."""
        with self._cond:
            while not self._idle and self._made >= self.size:
                self._cond.wait()
            engine = self._idle.pop() if self._idle else None
            if engine is None:
                self._made += 1
        if engine is None:
            try:
                engine = _engine()
            except BaseException:
                with self._cond:
                    self._made -= 1
                    self._cond.notify()
                raise
        try:
            yield engine
        finally:
            with self._cond:
                self._idle.append(engine)
                self._cond.notify()


_pool = EnginePool(min(4, CORES))


def set_ocr_workers(n: int) -> None:
    """Use a pool of `n` engines from now on (1: one inference at a time on all cores, the old behaviour)."""
    global _pool
    _pool = EnginePool(n)


def ocr_workers() -> int:
    """How many OCR engines may run at once."""
    return _pool.size


def _engine() -> Any:
    """A new RapidOCR engine; its ONNX Runtime sessions get the pool's share of the cores."""
    from rapidocr import RapidOCR

    root = model_dir()
    params: dict[str, Any] = {"Global.log_level": "error", "Global.use_cls": False}
    if _pool.size > 1:  # one engine alone keeps ONNX Runtime's default: every core
        params["EngineConfig.onnxruntime.intra_op_num_threads"] = max(1, CORES // _pool.size)
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
    with _pool.engine() as engine:
        result = engine(np.asarray(rgb))
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


def case_rule(case: Any, base: MatchRule) -> MatchRule:
    """The case's own `text_match` / `extra_text` over `base` (the grader's or the workflow's rule)."""
    mode = getattr(case, "text_match", "") or base.mode
    extra = getattr(case, "extra_text", None)
    return MatchRule(mode, base.extra_text if extra is None else extra)


def check_ocr_options(options: dict[str, Any]) -> tuple[str, str] | None:
    """(option, reason) for a bad `match` rule or a non-boolean `extra_text`; None when fine."""
    if options.get("match", "exact") not in MODES:
        return "match", f"option 'match' must be one of {', '.join(MODES)}"
    if not isinstance(options.get("extra_text", True), bool):
        return "extra_text", "option 'extra_text' must be true or false"
    return None


def ocr_exact_text(
    *,
    match: str = "",
    extra_text: bool | None = None,
    collapse_whitespace: bool = True,
    fold_punctuation: bool = True,
    tight_punctuation: bool = True,
    min_confidence: float = 0.5,
    workflow: str = "generic",
) -> Grader:
    """Gate "ocr_exact_text": every required line is read back under the case's match rule (the case's
    `text_match` / `extra_text`, else this grader's `match` / `extra_text`, else the workflow's default); missing
    lines and lines nobody asked for are reported, and the character error rate is stored beside the gate."""
    default = default_rule(workflow)
    base = MatchRule(match or default.mode, default.extra_text if extra_text is None else extra_text)
    norm = Normalization(True, collapse_whitespace, fold_punctuation, tight_punctuation)

    def grade(sample: Sample) -> list[Score]:
        required = required_text(sample.case)
        if sample.output is None:
            return [
                Score.gate("ocr_exact_text", "ocr", False, f"no output: {sample.error}", "missing_output")
            ]
        if not required:
            return [Score("ocr_exact_text", "ocr", "info", None, "no required text for this case")]
        rule = case_rule(sample.case, base)
        rule_norm = rule.normalization(norm)
        lines = read_lines(sample.output, min_confidence)
        found = match_lines(required, lines, rule_norm, contains=rule.mode == "contains")
        cer = char_error_rate(required, lines, rule_norm, contains=rule.mode == "contains")
        details = {
            "required": required,
            "read": lines,
            "missing": list(found.missing),
            "extra": list(found.extra),
            "match": rule.mode,
            "extra_text": rule.extra_text,
            "cer": cer,
        }
        passed = found.ok and (rule.extra_text or not found.extra)
        parts = []
        if found.missing:
            parts.append("missing: " + "; ".join(f'"{m}"' for m in found.missing))
        if found.extra:
            parts.append("extra: " + "; ".join(f'"{e}"' for e in found.extra))
        rule_text = f"{rule.mode}, extra text {'allowed' if rule.extra_text else 'fails'}"
        reason = (
            ", ".join(parts) or f"all {len(required)} required lines read"
        ) + f" ({rule_text}; CER {cer:.3f})"
        tags = []
        if found.missing:
            tags.append("wrong_text")
        if found.extra and not rule.extra_text:
            tags.append("extra_text")
        return [
            Score.gate("ocr_exact_text", "ocr", passed, reason, *tags, **details),
            Score("text_line_accuracy", "ocr", "info", len(found.found) / len(required), reason),
            Score(
                "ocr_cer",
                "ocr",
                "info",
                cer,
                f"character error rate of the required text ({rule_text})",
                details={"lower_is_better": True},
            ),
        ]

    return grade
