"""Parse the public battles format: one JSON object per line, one vote per object.

``{"model_a": "...", "model_b": "...", "winner": "model_a" | "model_b" | "tie" | "tie (bothbad)"}``
with optional ``"use_case"``, ``"capability"``, ``"modality"``, ``"methodology"`` (strings or
null) and ``"weight"`` (a positive number). Other keys (timestamps, judge ids, ...) are ignored,
so files published by other arenas load as they are. Blank lines are skipped. The first malformed
line stops parsing with a :class:`~ratings.errors.BattleFormatError` naming the line and reason.

Parsing works on an iterable of lines, so reading the file (or stdin) stays with the caller.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

from ratings.errors import BattleFormatError
from ratings.votes import WINNER_CODES, Votes

__all__ = ["parse_battles"]

_TAGS = ("use_case", "capability", "modality", "methodology")


def _model(record: dict[str, object], key: str, line: int) -> str:
    if key not in record:
        raise BattleFormatError(line, f"missing field '{key}'")
    value = record[key]
    if not isinstance(value, str) or not value.strip():
        raise BattleFormatError(line, f"'{key}' must be a non-empty string (got {value!r})")
    return value


def _tag(record: dict[str, object], key: str, line: int) -> str | None:
    value = record.get(key)
    if value is None or isinstance(value, str):
        return value
    raise BattleFormatError(line, f"'{key}' must be a string or null (got {value!r})")


def _weight(record: dict[str, object], line: int) -> float:
    value = record.get("weight", 1.0)
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BattleFormatError(line, f"'weight' must be a number (got {value!r})")
    weight = float(value)
    if not math.isfinite(weight) or weight <= 0:
        raise BattleFormatError(line, f"'weight' must be a positive finite number (got {value!r})")
    return weight


def parse_battles(lines: Iterable[str]) -> Votes:
    """Parse JSON-lines battles into :class:`~ratings.votes.Votes`.

    Parameters
    ----------
    lines : iterable of str
        The file's lines (a file object works).

    Returns
    -------
    Votes
        One vote per non-blank line. Optional columns are present only if some line has the key;
        ``weight`` is present only if some line has a weight.

    Raises
    ------
    BattleFormatError
        On the first malformed line: invalid JSON, not an object, a missing or non-string model,
        an unknown winner, a model against itself, a bad tag or weight.
    """
    model_a: list[str] = []
    model_b: list[str] = []
    winners: list[int] = []
    weights: list[float] = []
    tags: dict[str, list[str | None]] = {k: [] for k in _TAGS}
    seen = {k: False for k in (*_TAGS, "weight")}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BattleFormatError(number, f"invalid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(record, dict):
            raise BattleFormatError(number, f"expected a JSON object, got {type(record).__name__}")
        a = _model(record, "model_a", number)
        b = _model(record, "model_b", number)
        if a == b:
            raise BattleFormatError(number, f"model_a and model_b are the same model ('{a}')")
        if "winner" not in record:
            raise BattleFormatError(number, "missing field 'winner'")
        winner = record["winner"]
        if not isinstance(winner, str) or winner not in WINNER_CODES:
            allowed = ", ".join(f"'{w}'" for w in WINNER_CODES)
            raise BattleFormatError(number, f"'winner' must be one of {allowed} (got {winner!r})")
        for key in _TAGS:
            seen[key] = seen[key] or key in record
            tags[key].append(_tag(record, key, number))
        seen["weight"] = seen["weight"] or record.get("weight") is not None
        weights.append(_weight(record, number))
        model_a.append(a)
        model_b.append(b)
        winners.append(WINNER_CODES[winner])

    def column(key: str) -> list[str | None] | None:
        return tags[key] if seen[key] else None

    return Votes.from_columns(
        model_a,
        model_b,
        winners,
        weight=weights if seen["weight"] else None,
        use_case=column("use_case"),
        capability=column("capability"),
        methodology=column("methodology"),
        modality=column("modality"),
    )
