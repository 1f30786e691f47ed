"""Personal-data patterns removed from a voter's prompt before it enters the live corpus or an export.

Each match is replaced by a bracketed placeholder naming what was there ([email], [url], [phone], [number],
[handle], [ip]), so a prompt keeps its shape ("a poster with the address [url]") without the data. The rules
err on removing: a date written 2026-12-03 (8 digits joined by dashes) reads as a phone number and goes too.
Kept on purpose: short numbers people put in image prompts (years, counts, prices, sizes like 1920x1080,
ratios like 16:9), and a bare "@" in "2 @ 5 dollars".
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["PLACEHOLDERS", "scrub", "scrub_counts"]

# order matters: e-mails before handles (the part after @), URLs before bare domains and numbers
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", re.compile(r"[\w.+%-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.IGNORECASE)),
    (
        "url",
        re.compile(
            r"(?:\b[a-z][a-z0-9+.-]*://|\bwww\.)\S+"
            r"|\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|co|me|info|biz|app|dev|ly|gg|tv|xyz|de|fr|es|uk|it|nl|ru|br)"
            r"(?:/\S*)?\b",
            re.IGNORECASE,
        ),
    ),
    ("ip", re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")),
    # 7+ digits in a run joined by spaces, dots, dashes or brackets, optionally after a +: phone numbers
    ("phone", re.compile(r"(?<![\w.])\+?\(?\d(?:[\s().-]{0,2}\d){6,}\b")),
    ("number", re.compile(r"\d{6,}")),
    ("handle", re.compile(r"(?<![\w@])@[A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?")),
)
PLACEHOLDERS = tuple(f"[{name}]" for name, _ in _RULES)
_SPACES = re.compile(r"[ \t]+")


def scrub_counts(text: str) -> tuple[str, dict[str, int]]:
    """The text with personal-data patterns replaced, and how many of each kind were replaced."""
    out = unicodedata.normalize("NFKC", text)
    counts: dict[str, int] = {}
    for name, pattern in _RULES:
        out, n = pattern.subn(f"[{name}]", out)
        if n:
            counts[name] = n
    return _SPACES.sub(" ", out).strip(), counts


def scrub(text: str) -> str:
    """The text with e-mails, URLs, IP addresses, phone numbers, long digit runs and @handles replaced."""
    return scrub_counts(text)[0]
