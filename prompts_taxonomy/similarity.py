"""Near-duplicate detection for prompt texts: Jaccard similarity of character 5-gram shingles.

Text is normalized first (case folded, punctuation dropped, whitespace collapsed), so two prompts that differ
only in capitals, commas or spacing score 1.0. Measured examples: a light rewording of a 90-character prompt
("..., warm lamp light, a cat asleep on a knitted blanket" vs "... with warm lamp light and a cat asleep on a
wool blanket") scores 0.65; two posters built on one template with different subjects and quoted text score
0.39; "a ceramic mug on a wooden table" vs "a ceramic teapot on a marble table" product shots score 0.44.
The default threshold (0.60, the `ARENA_NEAR_DUPLICATE_THRESHOLD` setting) refuses copies and light
rewordings and leaves distinct prompts on a shared template alone; the starter pool's closest pair is below it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SHINGLE = 5
DEFAULT_THRESHOLD = 0.60
_NON_WORD = re.compile(r"[^\w\s]+", re.UNICODE)
_SPACES = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Case-folded, accent-stable text without punctuation and with single spaces."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _NON_WORD.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def shingles(text: str, size: int = SHINGLE) -> frozenset[str]:
    """The set of `size`-character shingles of the normalized text (the text itself when shorter)."""
    norm = normalize_text(text)
    if len(norm) <= size:
        return frozenset([norm])
    return frozenset(norm[i : i + size] for i in range(len(norm) - size + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b|, 1.0 for two empty sets."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def text_similarity(a: str, b: str) -> float:
    """Similarity of two prompt texts in [0, 1]."""
    return jaccard(shingles(a), shingles(b))


@dataclass(frozen=True)
class NearDuplicate:
    """Item `index` of the candidates is too close to `other` (a key from the pool or another candidate)."""

    index: int
    other: str
    similarity: float


class ShingleIndex:
    """Shingle sets of a pool of texts with an inverted index, so a lookup only scores texts that share shingles."""

    def __init__(self) -> None:
        self._sets: dict[str, frozenset[str]] = {}
        self._postings: dict[str, set[str]] = {}

    def add(self, key: str, text: str) -> None:
        """Add `text` under `key`."""
        sh = shingles(text)
        self._sets[key] = sh
        for s in sh:
            self._postings.setdefault(s, set()).add(key)

    def best_match(self, text: str) -> tuple[str, float] | None:
        """The most similar indexed text (key, similarity), or None when the index shares nothing."""
        sh = shingles(text)
        overlap: dict[str, int] = {}
        for s in sh:
            for key in self._postings.get(s, ()):
                overlap[key] = overlap.get(key, 0) + 1
        best: tuple[str, float] | None = None
        for key, inter in overlap.items():
            sim = inter / (len(sh) + len(self._sets[key]) - inter)
            if best is None or sim > best[1]:
                best = (key, sim)
        return best


def find_near_duplicates(
    candidates: Sequence[str],
    pool: Iterable[tuple[str, str]] = (),
    threshold: float = DEFAULT_THRESHOLD,
    candidate_keys: Sequence[str] | None = None,
) -> list[NearDuplicate]:
    """Candidates whose similarity to a pool text or an earlier candidate exceeds `threshold`.

    `pool` yields (key, text); `candidate_keys` names candidates in messages (defaults to "line N").
    """
    index = ShingleIndex()
    for key, text in pool:
        index.add(key, text)
    keys = (
        list(candidate_keys)
        if candidate_keys is not None
        else [f"line {i + 1}" for i in range(len(candidates))]
    )
    found: list[NearDuplicate] = []
    for i, text in enumerate(candidates):
        match = index.best_match(text)
        if match is not None and match[1] > threshold:
            found.append(NearDuplicate(index=i, other=match[0], similarity=match[1]))
        index.add(keys[i], text)
    return found
