"""Nearest-neighbour tagging of free-text prompts with a use case and a capability (pure numpy).

The references are the taxonomy's own words: for each label its example tasks, its display name and its
description (`reference_texts`). A prompt takes the label of its single most similar reference (1-NN by cosine
of L2-normalized vectors). The embedding is the caller's (`arena.prompts.embeddings`); this module only ranks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from prompts_taxonomy.taxonomy import Taxonomy

TAG_AXES = ("use_case", "capability")

__all__ = ["TAG_AXES", "AxisTags", "accuracy", "nearest_labels", "reference_texts"]


def reference_texts(taxonomy: Taxonomy, axis: str) -> tuple[list[str], list[str]]:
    """(texts, label slugs) of one axis's references: every example, the name and the description of each
    label, in the taxonomy file's order; empty strings are left out."""
    if axis not in TAG_AXES:
        raise ValueError(f"cannot tag on axis {axis!r} (one of {', '.join(TAG_AXES)})")
    texts: list[str] = []
    slugs: list[str] = []
    for label in taxonomy.axes()[axis]:
        for text in (*label.examples, label.name, label.description):
            if text.strip():
                texts.append(text.strip())
                slugs.append(label.slug)
    return texts, slugs


@dataclass(frozen=True)
class AxisTags:
    """Per query: the chosen label, the cosine similarity of its nearest reference, and that reference's index."""

    labels: list[str]
    similarity: np.ndarray
    reference: np.ndarray


def nearest_labels(queries: np.ndarray, references: np.ndarray, slugs: Sequence[str]) -> AxisTags:
    """The label of each query row's most similar reference row (rows L2-normalized, so a dot product is the
    cosine). Ties go to the earlier reference, so the result is deterministic."""
    if references.shape[0] != len(slugs) or references.shape[0] == 0:
        raise ValueError("need one label per reference row and at least one reference")
    if queries.shape[0] == 0:
        return AxisTags([], np.zeros(0), np.zeros(0, dtype=np.int64))
    scores = np.asarray(queries @ references.T, dtype=np.float64)
    best = scores.argmax(axis=1)
    return AxisTags(
        labels=[slugs[int(i)] for i in best],
        similarity=scores[np.arange(scores.shape[0]), best],
        reference=best.astype(np.int64),
    )


def accuracy(predicted: Sequence[str], truth: Sequence[str]) -> float:
    """Share of positions where the prediction equals the known label."""
    if len(predicted) != len(truth):
        raise ValueError("predictions and truth differ in length")
    if not truth:
        return float("nan")
    return sum(p == t for p, t in zip(predicted, truth, strict=True)) / len(truth)
