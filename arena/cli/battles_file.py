"""Read a battles file of any format and file kind (.jsonl, .json, .csv, .parquet or stdin) into `ratings.Battles`.

Shared by `arena ratings fit` and `arena votes import-public`. JSON and CSV are parsed by the pure
`ratings.public_battles`; Parquet needs pyarrow (the `parquet` extra), imported only when a Parquet file is read, so
`arena ratings fit` still starts without it. Every failure is a `BattlesFileError` with a one-line message.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ratings as rt

__all__ = ["BattlesFileError", "BattlesFormat", "file_kind", "file_rows", "read_battles_file"]

#: Parquet rows converted to Python objects per batch (a large file is never held as Python objects at once).
_BATCH = 8192


class BattlesFormat(StrEnum):
    """The `--format` choices: detected from the columns, or named."""

    auto = "auto"
    fastchat = "fastchat"
    lmarena = "lmarena"
    genai_bench = "genai-bench"


class BattlesFileError(Exception):
    """The battles file cannot be read; the message is one line naming the file and the reason."""


def file_kind(path: str) -> str:
    """ "csv", "parquet" or "json" (JSON lines or one JSON array: .jsonl, .json, stdin and anything else)."""
    suffix = Path(path).suffix.lower() if path != "-" else ""
    return {".csv": "csv", ".parquet": "parquet"}.get(suffix, "json")


def _parquet_rows(path: str) -> Iterator[tuple[tuple[int, str], object]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise BattlesFileError(
            f"reading '{path}' needs pyarrow: pip install 'image-arena[parquet]' (or pip install pyarrow)"
        ) from None
    try:
        handle = pq.ParquetFile(path)
    except OSError as exc:  # pyarrow's ArrowInvalid and ArrowIOError are OSError subclasses
        raise BattlesFileError(f"cannot read Parquet file '{path}': {exc}") from None
    number = 0
    for batch in handle.iter_batches(batch_size=_BATCH):
        for row in batch.to_pylist():
            number += 1
            yield (number, "row"), row


def read_battles_file(
    path: str, fmt: BattlesFormat = BattlesFormat.auto, *, strict: bool = False
) -> rt.Battles:
    """Read `path` (or stdin for "-") in format `fmt`; raises `BattlesFileError` with a one-line message."""
    import ratings as rt
    from ratings.public_battles import read_battles_bytes, read_rows, read_text

    kind = file_kind(path)
    try:
        if kind == "parquet":
            return read_rows(_parquet_rows(path), fmt=fmt.value, strict=strict)
        if kind == "json" and path != "-" and fmt in (BattlesFormat.auto, BattlesFormat.fastchat):
            # the quick reader of repeated JSON lines; None sends the file through the text reader below
            with open(path, "rb") as raw:
                fast = read_battles_bytes(raw.read(), strict=strict, detect=fmt == BattlesFormat.auto)
            if fast is not None:
                return fast
        if path == "-":
            return read_text(sys.stdin, fmt=fmt.value, kind=kind, strict=strict)
        with open(path, encoding="utf-8", newline="" if kind == "csv" else None) as handle:
            return read_text(handle, fmt=fmt.value, kind=kind, strict=strict)
    except OSError as exc:
        raise BattlesFileError(f"cannot read battles file '{path}': {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise BattlesFileError(f"battles file '{path}' is not UTF-8 text ({exc.reason})") from None
    except (rt.RatingsError, ValueError) as exc:
        raise BattlesFileError(str(exc)) from None


def _json_rows(lines: list[str]) -> Iterator[tuple[tuple[int, str], object]]:
    """JSON lines one by one, a line that is not JSON as a `BattleFormatError` in its place (so every bad line
    can be named); a JSON array as its records."""
    import json

    from ratings.battles import decode_records
    from ratings.errors import BattleFormatError

    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    if next((t for t in lines if t.strip()), "").lstrip().startswith("["):
        yield from decode_records(lines)
        return
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            yield (number, "line"), json.loads(text)
        except json.JSONDecodeError as exc:
            yield (
                (number, "line"),
                BattleFormatError(number, f"invalid JSON ({exc.msg} at column {exc.colno})"),
            )


def file_rows(path: str) -> list[tuple[tuple[int, str], object]]:
    """Every row of a battles file, decoded but not checked (`arena votes import-public` checks each one)."""
    from ratings.errors import RatingsError
    from ratings.public_battles import csv_records

    kind = file_kind(path)
    try:
        if kind == "parquet":
            return list(_parquet_rows(path))
        with open(path, encoding="utf-8", newline="" if kind == "csv" else None) as handle:
            if kind == "csv":
                return list(csv_records(handle))
            return list(_json_rows(handle.readlines()))
    except OSError as exc:
        raise BattlesFileError(f"cannot read battles file '{path}': {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise BattlesFileError(f"battles file '{path}' is not UTF-8 text ({exc.reason})") from None
    except (RatingsError, ValueError) as exc:
        raise BattlesFileError(str(exc)) from None
