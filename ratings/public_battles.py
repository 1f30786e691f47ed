"""Battles in the layouts public arenas publish, as JSON lines, a JSON array or CSV, read into :class:`Battles`.

Three layouts, told apart by their columns (or named):

- ``fastchat``: ``model_a``, ``model_b``, ``winner`` (``model_a`` | ``model_b`` | ``tie`` | ``tie (bothbad)``), the
  layout of :mod:`ratings.battles` and of this project's export;
- ``lmarena``: lmarena-ai's human-preference releases (arena-human-preference-55k/100k/140k): ``model_a``,
  ``model_b`` and three 0/1 columns ``winner_model_a``, ``winner_model_b``, ``winner_tie``, exactly one of them 1;
- ``genai-bench``: TIGER-Lab's GenAI-Arena votes as GenAI-Bench publishes them: ``left_model``, ``right_model``
  and ``vote_type`` (``leftvote`` | ``rightvote`` | ``tievote`` | ``bothbad_vote``).

A public record becomes a battles record (``model_a``, ``model_b``, ``winner``; its ``prompt`` text, when given,
as ``prompt_id``, the cluster key of the intervals) and goes through the checks and skips of
:func:`ratings.battles.read_records`. CSV values are text: an empty cell is a missing value. Parquet is read by
the caller (it needs pyarrow) and handed to :func:`read_rows` as decoded rows. :func:`read_battles_bytes` is the
quick reader of a FastChat JSON-lines file whose lines repeat (`arena ratings fit` tries it first).
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from itertools import chain, count

import numpy as np

from ratings.battles import HEAD_LINES, Battles, decode_distinct, decode_records, read_battles, read_records
from ratings.errors import BattleFormatError, RatingsError, UnknownBattleFormatError

__all__ = [
    "AUTO",
    "FORMATS",
    "csv_records",
    "detect_format",
    "read_battles_bytes",
    "read_rows",
    "read_text",
    "to_battle",
]

AUTO = "auto"
#: Each format and the columns that identify it, in the order detection tries them.
FORMATS: dict[str, tuple[str, ...]] = {
    "fastchat": ("model_a", "model_b", "winner"),
    "lmarena": ("model_a", "model_b", "winner_model_a", "winner_model_b", "winner_tie"),
    "genai-bench": ("left_model", "right_model", "vote_type"),
}
_LMARENA_FLAGS = {"winner_model_a": "model_a", "winner_model_b": "model_b", "winner_tie": "tie"}
_GENAI_VOTES = {
    "leftvote": "model_a",
    "rightvote": "model_b",
    "tievote": "tie",
    "bothbad_vote": "tie (bothbad)",
}
_BOM = "\ufeff"
_BOM_BYTES = _BOM.encode("utf-8")
Where = tuple[int, str]


def detect_format(columns: Iterable[str]) -> str:
    """The first format whose identifying columns are all among `columns`.

    Raises
    ------
    UnknownBattleFormatError
        Naming the columns seen and the formats known.
    """
    seen = list(columns)
    for name, needed in FORMATS.items():
        if set(needed) <= set(seen):
            return name
    raise UnknownBattleFormatError(seen, FORMATS)


def _flag(record: dict[str, object], key: str, where: Where) -> bool:
    if key not in record:
        raise BattleFormatError(where[0], f"missing field '{key}'", where[1])
    value = record[key]
    if isinstance(value, str):
        value = value.strip()
    if value in (0, 1, "0", "1") and not isinstance(value, bool):
        return value in (1, "1")
    raise BattleFormatError(where[0], f"'{key}' must be 0 or 1 (got {value!r})", where[1])


def _required(record: dict[str, object], key: str, where: Where) -> object:
    if key not in record:
        raise BattleFormatError(where[0], f"missing field '{key}'", where[1])
    return record[key]


def to_battle(record: object, fmt: str, where: Where) -> object:
    """One record of format `fmt` as a battles record (a fastchat record, or what is not an object, as is)."""
    if fmt == "fastchat" or not isinstance(record, dict):
        return record
    if fmt == "lmarena":
        model_a, model_b = _required(record, "model_a", where), _required(record, "model_b", where)
        flags = {key: _flag(record, key, where) for key in _LMARENA_FLAGS}
        won = [winner for key, winner in _LMARENA_FLAGS.items() if flags[key]]
        if len(won) != 1:
            got = ", ".join(f"{k}={int(v)}" for k, v in flags.items())
            reason = f"exactly one of winner_model_a, winner_model_b, winner_tie must be 1 (got {got})"
            raise BattleFormatError(where[0], reason, where[1])
        winner: object = won[0]
    elif fmt == "genai-bench":
        model_a, model_b = _required(record, "left_model", where), _required(record, "right_model", where)
        vote = _required(record, "vote_type", where)
        if vote is not None and vote != "" and vote not in _GENAI_VOTES:
            allowed = ", ".join(f"'{v}'" for v in _GENAI_VOTES)
            raise BattleFormatError(
                where[0], f"'vote_type' must be one of {allowed} (got {vote!r})", where[1]
            )
        winner = _GENAI_VOTES.get(vote) if isinstance(vote, str) else None
    else:
        raise ValueError(f"unknown battles format '{fmt}'; known: {', '.join(FORMATS)}")
    battle: dict[str, object] = {"model_a": model_a, "model_b": model_b, "winner": winner}
    prompt = record.get("prompt")
    if isinstance(prompt, str) and prompt:
        battle["prompt_id"] = prompt
    return battle


def _translated(records: Iterable[tuple[Where, object]], fmt: str) -> Iterator[tuple[Where, object]]:
    """`records` as battles records; `fmt` "auto" is decided by the first record's columns."""
    iterator = iter(records)
    first = next(iterator, None)
    if first is None:
        return
    if fmt == AUTO:
        fmt = detect_format(first[1]) if isinstance(first[1], dict) else "fastchat"
    for where, record in chain([first], iterator):
        yield where, to_battle(record, fmt, where)


def read_rows(rows: Iterable[tuple[Where, object]], *, fmt: str = AUTO, strict: bool = False) -> Battles:
    """Read decoded rows (``((number, unit), record)``, e.g. Parquet rows) of format `fmt` (or "auto")."""
    if fmt != AUTO and fmt not in FORMATS:
        raise ValueError(f"unknown battles format '{fmt}'; known: {AUTO}, {', '.join(FORMATS)}")
    return read_records(_translated(rows, fmt), strict=strict)


def _cell(value: str | None) -> object:
    """A CSV cell: empty is missing."""
    return None if value is None or value == "" else value


def csv_records(lines: Iterable[str]) -> Iterator[tuple[Where, dict[str, object]]]:
    """The data rows of a CSV file with a header line, numbered from 1 (the header is not counted)."""
    iterator = iter(lines)
    first = next(iterator, "")
    reader = csv.DictReader(chain([first.removeprefix(_BOM)], iterator))
    for number, row in enumerate(reader, start=1):
        if None in row:
            raise BattleFormatError(
                number, f"more cells than the header's {len(reader.fieldnames or [])}", "row"
            )
        record: dict[str, object] = {k: _cell(v) for k, v in row.items()}
        weight = record.get("weight")
        if isinstance(weight, str):
            try:
                record["weight"] = float(weight)
            except ValueError:
                raise BattleFormatError(
                    number, f"'weight' must be a number (got {weight!r})", "row"
                ) from None
        yield (number, "row"), record


def read_text(lines: Iterable[str], *, fmt: str = AUTO, kind: str = "json", strict: bool = False) -> Battles:
    """Read a battles file's lines: `kind` "json" (JSON lines or one array) or "csv"; `fmt` a format or "auto".

    Fastchat JSON goes through :func:`ratings.battles.read_battles` (its fast path for repeated lines).
    """
    if fmt != AUTO and fmt not in FORMATS:
        raise ValueError(f"unknown battles format '{fmt}'; known: {AUTO}, {', '.join(FORMATS)}")
    if kind == "csv":
        return read_rows(csv_records(lines), fmt=fmt, strict=strict)
    if kind != "json":
        raise ValueError(f"unknown file kind '{kind}'; known: json, csv")
    iterator = iter(lines)
    head: list[str] = []
    for text in iterator:
        head.append(text)
        if text.removeprefix(_BOM).strip():
            break
    lines = chain(head, iterator)
    first = head[-1].removeprefix(_BOM).strip() if head else ""
    if fmt == "fastchat" or not first:
        return read_battles(lines, strict=strict)
    if first.startswith("["):
        return read_rows(decode_records(lines), fmt=fmt, strict=strict)
    if fmt == AUTO:
        try:
            record = json.loads(first)
        except json.JSONDecodeError:
            record = None  # the battles reader names the line and what is wrong with it
        fmt = detect_format(record) if isinstance(record, dict) else "fastchat"
        if fmt == "fastchat":
            return read_battles(lines, strict=strict)
    return read_rows(decode_records(lines), fmt=fmt, strict=strict)


def read_battles_bytes(data: bytes, *, strict: bool = False, detect: bool = True) -> Battles | None:
    """:func:`ratings.battles.read_battles` on a whole JSON-lines file as bytes, or ``None`` when it cannot be quick.

    A million lines cost about 0.15 s as Python strings (decoded and split by the text layer) and 0.1 s as
    bytes (``bytes.split``); the distinct lines are numbered as bytes and only they are decoded. ``None``
    whenever the answer needs the text reader: a line that is not a clean record (the text reader names it),
    bytes that are not UTF-8, a lone carriage return (a line break to the text layer), few repeated lines, a
    JSON array, or with ``detect`` a first record that is not in FastChat's layout. The caller then reads the
    file as text, so every error and skip count is the text reader's.
    """
    if data.startswith(_BOM_BYTES):
        data = data[len(_BOM_BYTES) :]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
        if b"\r" in data:
            return None
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()  # the final line break ends the last line
    head = lines[:HEAD_LINES]
    if len(set(head)) * 4 > len(head) * 3:
        return None
    first = next((line for line in head if line.strip()), b"")
    if not first or first.lstrip().startswith(b"["):
        return None
    if detect:
        try:
            record = json.loads(first.decode("utf-8"))
            if isinstance(record, dict) and detect_format(record) != "fastchat":
                return None
        except (UnicodeDecodeError, json.JSONDecodeError, RatingsError):
            return None
    index: defaultdict[bytes, int] = defaultdict(count().__next__)
    ids = np.fromiter(map(index.__getitem__, lines), dtype=np.int64, count=len(lines))
    try:
        return decode_distinct(ids, index, strict)
    except UnicodeDecodeError:
        return None
