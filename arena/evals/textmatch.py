"""Exact-text matching for the OCR gate: the match rule, normalization, the missing / extra line report and the
character error rate.

Required text is a list of lines. The match rule says how each must be read back: `exact` (one recognized line,
or several consecutive ones joined by a space when OCR splits a long line, equals it: casing, letters, digits and
punctuation), `case_insensitive` (the same, casing folded) or `contains` (it appears inside a recognized line on
word boundaries, casing folded). `extra_text = false` also fails any recognized line nobody asked for. Required
lines can also be taken from the quoted strings of a prompt ("... a banner that reads \"GRAND OPENING\" ...").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace

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


MODES = ("exact", "case_insensitive", "contains")


@dataclass(frozen=True)
class MatchRule:
    """How required lines are matched (`mode`, one of MODES) and whether extra recognized text fails."""

    mode: str = "exact"
    extra_text: bool = True

    def normalization(self, base: Normalization) -> Normalization:
        """`base` with casing kept for `exact` and folded otherwise."""
        return replace(base, case_sensitive=self.mode == "exact")


# The rule each workflow's cases get unless the case or the grader says otherwise. Flyers and logos: the copy
# must be exactly right (spelling, punctuation, casing, symbols) and extra text is an error. UI mockups: the
# button and link labels must be exact, but a screen carries other text (item names, prices) by design.
WORKFLOW_RULES: dict[str, MatchRule] = {
    "marketing_flyer": MatchRule("exact", extra_text=False),
    "logo_editing": MatchRule("exact", extra_text=False),
    "ui_mockup": MatchRule("exact", extra_text=True),
}


def default_rule(workflow: str) -> MatchRule:
    """The workflow's match rule (exact, extra text allowed when the workflow has none of its own)."""
    return WORKFLOW_RULES.get(workflow, MatchRule())


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


def match_lines(
    required: list[str], recognized: list[str], norm: Normalization, *, contains: bool = False
) -> TextMatch:
    """Match required lines against OCR lines. A required line is found when it equals one recognized line or
    several consecutive ones joined by spaces (OCR splits long lines); with `contains`, also when it appears
    inside one (or inside such a join) on word boundaries."""
    seen = [norm.apply(line) for line in recognized if norm.apply(line)]
    used = [False] * len(seen)
    found, missing = [], []
    for line in required:
        want = norm.apply(line)
        hit = _find(want, seen, used, contains)
        (found if hit else missing).append(line)
    extra = tuple(
        orig for orig, flag in zip([r for r in recognized if norm.apply(r)], used, strict=True) if not flag
    )
    return TextMatch(tuple(found), tuple(missing), extra)


def _find(want: str, seen: list[str], used: list[bool], contains: bool) -> bool:
    for i, line in enumerate(seen):
        if line == want or (contains and _contains_words(line, want)):
            used[i] = True
            return True
    for start in range(len(seen)):
        joined = seen[start]
        for end in range(start + 1, min(len(seen), start + 4)):
            joined = f"{joined} {seen[end]}"
            if joined == want or (contains and _contains_words(joined, want)):
                for k in range(start, end + 1):
                    used[k] = True
                return True
    return False


def _contains_words(line: str, want: str) -> bool:
    """`want` appears in `line` on word boundaries (so "SALE" is not found inside "WHOLESALE")."""
    if not want:
        return False
    return re.search(rf"(?<!\w){re.escape(want)}(?!\w)", line) is not None


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions of one character each)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def char_error_rate(
    required: list[str], recognized: list[str], norm: Normalization, *, contains: bool = False
) -> float:
    """Character error rate of the required text: for each required line, the edit distance to the closest
    recognized line or run of up to 4 consecutive lines joined by spaces (after `norm`; with `contains`, also any
    run of whole words inside those), capped at the line's length (nothing read); summed over lines and divided by
    the required characters. 0 is exact."""
    seen = [norm.apply(line) for line in recognized if norm.apply(line)]
    candidates = {
        " ".join(seen[i:j]) for i in range(len(seen)) for j in range(i + 1, min(len(seen), i + 4) + 1)
    }
    if contains:
        words = [c.split(" ") for c in candidates]
        candidates |= {
            " ".join(w[a:b]) for w in words for a in range(len(w)) for b in range(a + 1, len(w) + 1)
        }
    errors = total = 0
    for line in required:
        want = norm.apply(line)
        total += len(want)
        errors += min([len(want), *(_distance(want, c) for c in candidates)])
    return errors / total if total else 0.0
