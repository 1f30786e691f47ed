"""Parse battles files: the format this project exports and the shapes public arenas publish.

One vote per record: ``{"model_a": "...", "model_b": "...", "winner": "model_a" | "model_b" |
"tie" | "tie (bothbad)"}`` with optional ``"use_case"``, ``"capability"``, ``"modality"``,
``"methodology"`` (strings or null) and ``"weight"`` (a positive number). Records are JSON lines,
or one JSON array of objects (FastChat publishes its clean battles that way). The prompt a vote was
cast on, ``"question_id"`` as FastChat writes it (``"prompt_id"`` is accepted too; a string or an
integer), is the cluster key of cluster-robust intervals (:mod:`ratings.aggregate`): when some record
has it, every record must. Other keys (FastChat's ``judge``, ``anony``, ``conversation_a``, ``tstamp``;
GenAI-Arena's ``inputs``, ``image_a`` ...) are ignored. A UTF-8 byte-order mark at the start is dropped; blank
lines are skipped.

Records that carry no comparison - a model against itself (a "self-battle"), or a ``winner`` of
null / "" (no verdict) - are skipped and counted by :func:`read_battles`; ``strict=True`` refuses
them instead, like any malformed record, with a :class:`~ratings.errors.BattleFormatError` naming
the line and reason. Reading the file (or stdin) stays with the caller.

Files of many votes repeat a few record texts over and over (a million votes among twenty models
hold a few thousand distinct lines when records carry only the models, the winner and tags), so
:func:`read_battles` decodes each distinct line once and keeps how many records it stands for
(:attr:`Battles.multiplicity`); per-vote columns are expanded only when asked for
(:attr:`Battles.votes`). Any line that does not parse cleanly sends the file through the plain
record-by-record reader, so errors, their line numbers and skip counts are the same either way.
"""

from __future__ import annotations

import json
import json.scanner
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, count, islice

import numpy as np

from ratings.errors import BattleFormatError
from ratings.votes import WINNER_CODES, Votes

__all__ = [
    "SKIP_NO_VERDICT",
    "SKIP_SELF_BATTLE",
    "Battles",
    "decode_distinct",
    "decode_records",
    "parse_battles",
    "read_battles",
    "read_records",
]

_TAGS = ("use_case", "capability", "modality", "methodology")
#: Keys naming the prompt of a vote (the cluster key), in order of preference.
CLUSTER_KEYS = ("question_id", "prompt_id")
_BOM = "\ufeff"
#: Lines looked at to decide whether a file repeats its lines (a million votes among 100 models, three keys a
#: record, repeat two thirds of their first 65,536 lines; files whose records carry a voter or a timestamp,
#: almost none).
HEAD_LINES = 1 << 16

#: Reasons a record carrying no comparison is skipped (keys of :attr:`Battles.skipped`).
SKIP_SELF_BATTLE = "a model against itself"
SKIP_NO_VERDICT = "no winner given (null or empty)"


@dataclass(frozen=True, eq=False)
class Battles:
    """Parsed votes and how many records were skipped, by reason.

    Attributes
    ----------
    distinct : Votes
        The kept records, each distinct one once (every record, in file order, when
        ``multiplicity`` is ``None``).
    multiplicity : numpy.ndarray or None
        How many records each entry of ``distinct`` stands for (``None``: one each); pass it to
        :func:`ratings.board.count_votes` to count the votes without expanding them.
    skipped : dict
        Records skipped, by reason.
    order : numpy.ndarray or None
        For each kept record in file order, its entry in ``distinct`` (``None``: the identity).
    """

    distinct: Votes
    multiplicity: np.ndarray | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    order: np.ndarray | None = None

    @cached_property
    def votes(self) -> Votes:
        """One vote per kept record, in file order."""
        if self.order is None:
            return self.distinct
        return self.distinct.take(self.order)

    def __len__(self) -> int:
        """Number of kept records."""
        return len(self.distinct) if self.order is None else len(self.order)

    def notes(self) -> list[str]:
        """One sentence per skip reason, for the CLI's ``note:`` lines."""
        return [f"skipped {n:,} record(s) with {why}" for why, n in sorted(self.skipped.items()) if n]


class _Skip(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


def _model(record: dict[str, object], key: str, where: tuple[int, str]) -> str:
    if key not in record:
        raise BattleFormatError(where[0], f"missing field '{key}'", where[1])
    value = record[key]
    if not isinstance(value, str) or not value.strip():
        raise BattleFormatError(where[0], f"'{key}' must be a non-empty string (got {value!r})", where[1])
    return value


def _tag(record: dict[str, object], key: str, where: tuple[int, str]) -> str | None:
    value = record.get(key)
    if value is None or isinstance(value, str):
        return value
    raise BattleFormatError(where[0], f"'{key}' must be a string or null (got {value!r})", where[1])


def _weight(record: dict[str, object], where: tuple[int, str]) -> float:
    value = record.get("weight", 1.0)
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BattleFormatError(where[0], f"'weight' must be a number (got {value!r})", where[1])
    weight = float(value)
    if not math.isfinite(weight) or weight <= 0:
        reason = f"'weight' must be a positive finite number (got {value!r})"
        raise BattleFormatError(where[0], reason, where[1])
    return weight


def decode_records(lines: Iterable[str]) -> Iterator[tuple[tuple[int, str], object]]:
    """Yield ``((number, unit), decoded JSON)`` per record, from JSON lines or one JSON array."""
    iterator = iter(lines)
    number = 0
    first = True
    for text in iterator:
        number += 1
        if number == 1 and text.startswith(_BOM):
            text = text[len(_BOM) :]
        if not text.strip():
            continue
        if first and text.lstrip().startswith("["):
            whole = text + "".join(iterator)
            try:
                items = json.loads(whole)
            except json.JSONDecodeError as exc:
                reason = f"invalid JSON array ({exc.msg} at line {number + exc.lineno - 1})"
                raise BattleFormatError(number, reason) from None
            if not isinstance(items, list):
                raise BattleFormatError(number, "expected a JSON array of battle objects")
            for k, item in enumerate(items, start=1):
                yield (k, "record"), item
            return
        first = False
        try:
            yield (number, "line"), json.loads(text)
        except json.JSONDecodeError as exc:
            reason = f"invalid JSON ({exc.msg} at column {exc.colno})"
            raise BattleFormatError(number, reason) from None


def _vote(record: object, where: tuple[int, str], strict: bool) -> tuple[str, str, int]:
    if not isinstance(record, dict):
        raise BattleFormatError(where[0], f"expected a JSON object, got {type(record).__name__}", where[1])
    a = _model(record, "model_a", where)
    b = _model(record, "model_b", where)
    if a == b:
        if strict:
            raise BattleFormatError(where[0], f"model_a and model_b are the same model ('{a}')", where[1])
        raise _Skip(SKIP_SELF_BATTLE)
    if "winner" not in record:
        raise BattleFormatError(where[0], "missing field 'winner'", where[1])
    winner = record["winner"]
    if (winner is None or winner == "") and not strict:
        raise _Skip(SKIP_NO_VERDICT)
    if not isinstance(winner, str) or winner not in WINNER_CODES:
        allowed = ", ".join(f"'{w}'" for w in WINNER_CODES)
        raise BattleFormatError(where[0], f"'winner' must be one of {allowed} (got {winner!r})", where[1])
    return a, b, WINNER_CODES[winner]


def read_battles(lines: Iterable[str], *, strict: bool = False) -> Battles:
    """Parse battle records into :class:`Battles` (votes plus counted skips).

    Parameters
    ----------
    lines : iterable of str
        The file's lines (a file object works).
    strict : bool
        Refuse records that carry no comparison instead of skipping them.

    Returns
    -------
    Battles
        The kept records (distinct ones with their multiplicities; ``.votes`` gives one vote per
        record). Optional columns are present only if some record has the key; ``weight`` only if
        some record has a weight.

    Raises
    ------
    BattleFormatError
        On the first malformed record: invalid JSON, not an object, a missing or non-string
        model, an unknown winner, a bad tag or weight (and, when strict, a record skipped otherwise).
    """
    rest = iter(lines)
    head = list(islice(rest, HEAD_LINES))
    if head and head[0].startswith(_BOM):
        head[0] = head[0][len(_BOM) :]
    if len(set(head)) * 4 > len(head) * 3:  # few repeats: nothing to gain over decoding every line
        return _read_each(chain(head, rest), strict)
    texts = head + list(rest)
    # One dictionary lookup per line, in C: a new line gets the next number (distinct lines in order of first
    # appearance). A second pass to number them cost as much again once the distinct lines outgrow the cache.
    index: defaultdict[str, int] = defaultdict(count().__next__)
    ids = np.fromiter(map(index.__getitem__, texts), dtype=np.int64, count=len(texts))
    fast = decode_distinct(ids, index, strict)
    return fast if fast is not None else _read_each(texts, strict)


def decode_distinct(
    ids: np.ndarray, index: dict[str, int] | dict[bytes, int], strict: bool
) -> Battles | None:
    """Decode each distinct line once (`index`: line to number, `ids`: each line's number); ``None`` if any line
    is not a clean record (or the file is an array). Bytes are decoded as UTF-8 (``UnicodeDecodeError``)."""
    counts = np.bincount(ids, minlength=len(index))
    columns = _Columns()
    row_of = [-1] * len(index)
    skipped: Counter[str] = Counter()
    first = True
    for k, line in enumerate(index):
        text = line if isinstance(line, str) else line.decode("utf-8")
        if not text.strip():
            continue
        if first and text.lstrip().startswith("["):
            return None
        first = False
        where = (k + 1, "line")
        try:
            record = _json_value(text)
            if not columns.add_plain(record, where):
                columns.add(record, where, strict)
        except _Skip as skip:
            skipped[skip.reason] += int(counts[k])
            continue
        except (json.JSONDecodeError, BattleFormatError):
            return None  # the record-by-record reader names the first bad line
        row_of[k] = len(columns) - 1
    rows = np.array(row_of, dtype=np.int64)
    order = rows[ids]
    return Battles(columns.votes(), counts[rows >= 0], dict(skipped), order[order >= 0])


_scan = json.scanner.make_scanner(json.JSONDecoder())  # the C scanner json.loads runs, without its wrapping


def _json_value(text: str) -> object:
    """``json.loads(text)``, a few times faster for the usual line (no leading whitespace): the scanner reads
    the value and only the whitespace JSON allows may follow it; anything else goes through ``json.loads``."""
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        return json.loads(text)  # raises the JSONDecodeError naming the column, or reads leading whitespace
    if end != len(text) and text[end:].strip(" \t\n\r"):
        return json.loads(text)
    return value


def _read_each(texts: Iterable[str], strict: bool) -> Battles:
    """The record-by-record reader (JSON arrays, files with few repeated lines, and the exact first error of
    a malformed file)."""
    return read_records(decode_records(texts), strict=strict)


def read_records(records: Iterable[tuple[tuple[int, str], object]], *, strict: bool = False) -> Battles:
    """Read records already decoded, each with ``(number, unit)`` saying where it is (CSV rows, Parquet rows,
    records translated from a public arena's layout), with the checks and skips of :func:`read_battles`."""
    columns = _Columns()
    skipped: Counter[str] = Counter()
    for where, record in records:
        try:
            columns.add(record, where, strict)
        except _Skip as skip:
            skipped[skip.reason] += 1
    return Battles(columns.votes(), None, dict(skipped))


class _Columns:
    """Vote columns built record by record; :meth:`add` checks a record in a fixed order (models,
    winner, then tags, then weight) so the first error of a file is always the same one."""

    def __init__(self) -> None:
        self.model_a: list[str] = []
        self.model_b: list[str] = []
        self.winners: list[int] = []
        self.weights: list[float] = []
        self.tags: dict[str, list[str | None]] = {k: [] for k in _TAGS}
        self.seen = {k: False for k in (*_TAGS, "weight")}
        self.clusters: list[str | None] = []
        self.cluster_missing: tuple[int, str] | None = None  # where the first record without one is

    def __len__(self) -> int:
        return len(self.winners)

    def add(self, record: object, where: tuple[int, str], strict: bool) -> None:
        """Append one record; raises :class:`BattleFormatError`, or ``_Skip`` for a record to skip
        (after an error the columns are incomplete: callers discard them)."""
        a, b, outcome = _vote(record, where, strict)
        assert isinstance(record, dict)
        seen, tags = self.seen, self.tags
        for key in _TAGS:
            seen[key] = seen[key] or key in record
            tags[key].append(_tag(record, key, where))
        seen["weight"] = seen["weight"] or record.get("weight") is not None
        self.weights.append(_weight(record, where))
        self.clusters.append(_cluster(record, where))
        if self.clusters[-1] is None and self.cluster_missing is None:
            self.cluster_missing = where
        self.model_a.append(a)
        self.model_b.append(b)
        self.winners.append(outcome)

    def add_plain(self, record: object, where: tuple[int, str]) -> bool:
        """Append a record that is exactly ``model_a``, ``model_b`` and ``winner``, two different non-blank model
        names and a known winner (the usual line), with fewer checks than :meth:`add`; ``False`` (nothing
        appended) for any other record, which :meth:`add` then checks in full."""
        if type(record) is not dict or len(record) != 3:
            return False
        a, b, winner = record.get("model_a"), record.get("model_b"), record.get("winner")
        outcome = WINNER_CODES.get(winner) if type(winner) is str else None
        if outcome is None or type(a) is not str or type(b) is not str or a == b:
            return False
        if not a.strip() or not b.strip():
            return False
        for column in self.tags.values():
            column.append(None)
        self.weights.append(1.0)
        self.clusters.append(None)
        if self.cluster_missing is None:
            self.cluster_missing = where
        self.model_a.append(a)
        self.model_b.append(b)
        self.winners.append(outcome)
        return True

    def votes(self) -> Votes:
        """The columns as :class:`Votes` (optional columns only where some record had the key)."""

        def column(key: str) -> list[str | None] | None:
            return self.tags[key] if self.seen[key] else None

        clusters = None
        if any(c is not None for c in self.clusters):
            if self.cluster_missing is not None:
                line, unit = self.cluster_missing
                raise BattleFormatError(
                    line,
                    "no 'question_id' (or 'prompt_id'): other records have one, so every record needs it",
                    unit,
                )
            clusters = self.clusters
        return Votes.from_columns(
            self.model_a,
            self.model_b,
            self.winners,
            weight=self.weights if self.seen["weight"] else None,
            use_case=column("use_case"),
            capability=column("capability"),
            methodology=column("methodology"),
            modality=column("modality"),
            cluster=clusters,
        )


def _cluster(record: dict[str, object], where: tuple[int, str]) -> str | None:
    """The record's prompt id (``question_id``, else ``prompt_id``) as a string, or ``None``."""
    for key in CLUSTER_KEYS:
        value = record.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise BattleFormatError(
                where[0], f"'{key}' must be a string or an integer (got {value!r})", where[1]
            )
        return f"{type(value).__name__}:{value}"
    return None


def parse_battles(lines: Iterable[str]) -> Votes:
    """Parse battle records strictly (every record must be a comparison) into :class:`Votes`."""
    return read_battles(lines, strict=True).votes
