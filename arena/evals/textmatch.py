"""Exact-text matching for the OCR gate: normalization options and the missing / extra line report.

Required text is a list of lines; each must appear, after normalization, as one recognized line or inside one
(a sign's line may be read together with its neighbour). Required lines can also be taken from the quoted
strings of a prompt ("... a banner that reads \"GRAND OPENING\" ...").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u00b4`"
DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"
BULLETS = "\u2022\u00b7\u2023\u2043\u25e6\u2219\u25cf\u25aa"
TIGHT = re.compile(r"\s*([.,:;!?/&+*()'\"-])\s*")
QUOTED = re.compile(r"\"([^\"]+)\"|\u201c([^\u201d]+)\u201d")


@dataclass(frozen=True)
class Normalization:
    """How strictly lines are compared. Defaults: case-insensitive, whitespace collapsed, typographic
    variants of dashes, quotes and bullets folded to one form; letters, digits and the rest compared exactly."""

    case_sensitive: bool = False
    collapse_whitespace: bool = True
    fold_punctuation: bool = True
    tight_punctuation: bool = True  # "EST. 2014" == "EST.2014": OCR often loses a space after punctuation

    def apply(self, text: str) -> str:
        """`text` normalized for comparison."""
        text = unicodedata.normalize("NFKC", text)
        if self.fold_punctuation:
            text = text.translate(_FOLD)
        if not self.case_sensitive:
            text = text.casefold()
        if self.collapse_whitespace:
            text = " ".join(text.split())
        if self.tight_punctuation:
            text = TIGHT.sub(r"\1", text)
        return text.strip()


_FOLD = str.maketrans(
    {
        **dict.fromkeys(DASHES, "-"),
        **dict.fromkeys(SINGLE_QUOTES, "'"),
        **dict.fromkeys(DOUBLE_QUOTES, '"'),
        **dict.fromkeys(BULLETS, "*"),
    }
)


def quoted_lines(prompt: str) -> list[str]:
    """The quoted strings of a prompt, in order: the text it asks to see rendered."""
    return [(a or b).strip() for a, b in QUOTED.findall(prompt) if (a or b).strip()]


@dataclass(frozen=True)
class TextMatch:
    """Which required lines were found, which are missing, and which recognized lines were not asked for."""

    found: tuple[str, ...]
    missing: tuple[str, ...]
    extra: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Every required line was found."""
        return not self.missing


def match_lines(required: list[str], recognized: list[str], norm: Normalization) -> TextMatch:
    """Match required lines against OCR lines. A required line is found when it equals one recognized line, is
    contained in one, or equals several consecutive recognized lines joined by spaces (OCR splits long lines)."""
    seen = [norm.apply(line) for line in recognized if norm.apply(line)]
    used = [False] * len(seen)
    found, missing = [], []
    for line in required:
        want = norm.apply(line)
        hit = _find(want, seen, used)
        (found if hit else missing).append(line)
    extra = tuple(
        orig for orig, flag in zip([r for r in recognized if norm.apply(r)], used, strict=True) if not flag
    )
    return TextMatch(tuple(found), tuple(missing), extra)


def _find(want: str, seen: list[str], used: list[bool]) -> bool:
    for i, line in enumerate(seen):
        if line == want or _contains_words(line, want):
            used[i] = True
            return True
    for start in range(len(seen)):
        joined = seen[start]
        for end in range(start + 1, min(len(seen), start + 4)):
            joined = f"{joined} {seen[end]}"
            if joined == want or _contains_words(joined, want):
                for k in range(start, end + 1):
                    used[k] = True
                return True
    return False


def _contains_words(line: str, want: str) -> bool:
    """`want` appears in `line` on word boundaries (so "SALE" is not found inside "WHOLESALE")."""
    if not want:
        return False
    return re.search(rf"(?<!\w){re.escape(want)}(?!\w)", line) is not None
