"""`arena ratings fit` itself, without Typer: its steps, and a reader of its usual command lines.

`arena ratings fit` is a fresh process per run, and Typer cost it about 0.15 s each time (its import, pydantic
for the option values, a converter per option), a fifth of a 20-model run (docs/benchmarks.md, `bench_cli`).
:func:`quick_main` reads the command lines the command is usually given (the options spelled out, with plain
values) and runs :func:`run_fit` directly; any other command line (``--help``, an unknown or repeated option,
a value it does not read exactly as Typer would) goes to the Typer command in `arena.cli.ratings`, which runs
the same :func:`run_fit`. ``tests/unit/test_ratings_cli_quick.py`` checks both readings agree.
"""

from __future__ import annotations

import errno
import json
import math
import re
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, NoReturn

from arena.cli.battles_file import BattlesFileError, BattlesFormat, read_battles_file

if TYPE_CHECKING:
    import numpy as np

    import ratings as rt

__all__ = ["DEFAULT_ANCHOR_RATING", "DEFAULT_LEVEL", "DEFAULT_MIN_VOTES", "FitError", "IntervalMethod"]
__all__ += ["parse_quick", "quick_main", "run_fit"]

#: Option defaults, equal to `ratings.DEFAULT_LEVEL`, `ratings.DEFAULT_MIN_VOTES` and
#: `ratings.DEFAULT_ANCHOR_RATING` (a unit test checks it): spelled out so that the options can be declared
#: without importing the ratings package and numpy.
DEFAULT_LEVEL = 0.95
DEFAULT_MIN_VOTES = 300
DEFAULT_ANCHOR_RATING = 1000.0


class IntervalMethod(StrEnum):
    """Interval choices of ``arena ratings fit``."""

    bootstrap = "bootstrap"
    sandwich = "sandwich"


class FitError(Exception):
    """The command cannot go on: the message is one line (the caller prints it and exits with status 2)."""


def _fail(message: str) -> NoReturn:
    raise FitError(message)


def _echo(text: str, *, err: bool = False) -> None:
    """One line of output (what `typer.echo` writes for plain text: the text, a line break, a flush)."""
    print(text, file=sys.stderr if err else sys.stdout, flush=True)


def _parse_anchor(text: str) -> tuple[str, float]:
    """``MODEL=RATING`` or ``MODEL`` (rating 1000)."""
    name, sep, value = text.rpartition("=")
    if sep and name:
        try:
            rating = float(value)
        except ValueError:
            return text, DEFAULT_ANCHOR_RATING
        if not math.isfinite(rating):
            _fail(f"the anchor rating must be a finite number (got {value!r})")
        return name, rating
    return text, DEFAULT_ANCHOR_RATING


def _read_battles(path: str, strict: bool = False, fmt: BattlesFormat = BattlesFormat.auto) -> rt.Battles:
    try:
        battles = read_battles_file(path, fmt, strict=strict)
    except BattlesFileError as exc:
        _fail(str(exc))
    for note in battles.notes():
        _echo(f"note: {note}", err=True)
    return battles


def _one_modality(battles: rt.Battles, modality: str | None) -> tuple[rt.Votes, np.ndarray | None]:
    """The distinct votes of the chosen modality and how many votes each stands for."""
    votes, multiplicity = battles.distinct, battles.multiplicity
    found = votes.modalities()
    if modality is not None:
        mask = votes.modality == modality if votes.modality is not None else None
        if mask is None or not mask.any():
            names = ", ".join(m for m in found if m is not None) or "none"
            _fail(f"no votes with modality '{modality}' (modalities in the file: {names})")
        return votes.select(mask), None if multiplicity is None else multiplicity[mask]
    if len(found) > 1:
        names = ", ".join(m if m is not None else "(no modality)" for m in found)
        _fail(f"the battles mix modalities ({names}); choose one with --modality")
    return votes, multiplicity


def _number(x: float) -> float | str | None:
    """A JSON value for a number: unbounded ends keep their sign as "inf" / "-inf"; undefined is null."""
    if math.isfinite(x):
        return x
    return None if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _row_json(row: rt.BoardRow) -> dict[str, object]:
    return {
        "model": row.model,
        "rating": _number(row.rating),
        "ci_low": _number(row.ci_low),
        "ci_high": _number(row.ci_high),
        "rank": row.rank,
        "above": list(row.above),
        "votes": row.votes,
        "wins": row.wins,
        "losses": row.losses,
        "ties": row.ties,
        "provisional": row.provisional,
    }


def _fmt(x: float) -> str:
    return f"{x:.1f}" if math.isfinite(x) else ("inf" if x > 0 else "-inf" if x < 0 else "n/a")


def _table(board: rt.Board) -> str:
    """Aligned leaderboard table (ratings to one decimal)."""
    what = (
        f"{board.n_bootstrap}-round bootstrap, seed {board.seed}"
        if board.interval == "bootstrap"
        else "sandwich (normal)"
    )
    what += (
        f", cluster-robust over {board.n_clusters} prompts"
        if board.n_clusters
        else ", vote-level (no prompt ids)"
    )
    header = (
        f"board {board.key}: anchor {board.anchor} = {board.anchor_rating:g}; "
        f"{board.level:.0%} intervals by {what}; {board.n_votes} votes, {len(board.rows)} models"
    )
    cols = ["rank", "model", "rating", "ci_low", "ci_high", "votes", "wins", "losses", "ties", "note"]
    body = [
        [
            str(r.rank),
            r.model,
            _fmt(r.rating),
            _fmt(r.ci_low),
            _fmt(r.ci_high),
            str(r.votes),
            str(r.wins),
            str(r.losses),
            str(r.ties),
            "provisional" if r.provisional else "",
        ]
        for r in board.rows
    ]
    widths = [max(len(c), *(len(line[k]) for line in body)) for k, c in enumerate(cols)]
    left = {1, 9}

    def line(cells: list[str]) -> str:
        parts = [
            c.ljust(w) if k in left else c.rjust(w)
            for k, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    lines = [header, "", line(cols), line(["-" * w for w in widths])]
    lines += [line(cells) for cells in body]
    lines += [
        "",
        f"rank: 1 + the models whose lead is significant (simultaneous {board.level:.0%} interval of the "
        "rating difference above zero, all pairs of the board together);",
        "the anchor only sets where the scale reads its rating: another anchor shifts every number "
        "by one constant and changes no rank",
    ]
    if any(r.provisional for r in board.rows):
        lines += ["", f"provisional: fewer than {board.min_votes} votes on this board"]
    return "\n".join(lines)


def run_fit(
    battles: str,
    file_format: BattlesFormat = BattlesFormat.auto,
    anchor: str | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    interval: IntervalMethod = IntervalMethod.bootstrap,
    board: str = "overall",
    modality: str | None = None,
    min_votes: int = DEFAULT_MIN_VOTES,
    current_methodology: str | None = None,
    current_model: list[str] | None = None,
    strict: bool = False,
    as_json: bool = False,
) -> None:
    """Fit a Bradley-Terry leaderboard from a battles file and print it (the options are the command's);
    raises :class:`FitError` with a one-line message when it cannot."""
    import ratings as rt

    try:
        key = rt.BoardKey.parse(board)
    except ValueError as exc:
        _fail(str(exc))
    if current_model and current_methodology is None:
        _fail("--current-model needs --current-methodology")
    cohorts = None
    if current_methodology is not None:
        cohorts = rt.CohortRule(current_methodology, frozenset(current_model or ()))
    name, rating = _parse_anchor(anchor) if anchor else (rt.default_anchor(key), DEFAULT_ANCHOR_RATING)
    votes, multiplicity = _one_modality(_read_battles(battles, strict, file_format), modality)
    try:
        # distinct votes counted with their multiplicities: the same rows as the votes one by one
        rows = rt.count_votes(votes, cohorts, multiplicity=multiplicity)
        result = rt.compute_board(
            rows,
            board=key,
            anchor=name,
            anchor_rating=rating,
            interval=interval.value,
            n_bootstrap=bootstrap,
            seed=seed,
            level=level,
            min_votes=min_votes,
            unbounded="raise" if strict else "exclude",
            extras=False,  # the certainty figures and difference errors: neither the table nor the JSON has them
        )
    except (rt.RatingsError, ValueError) as exc:
        _fail(str(exc))
    for excluded in result.excluded:
        _echo(f"note: excluded {excluded.model}: {excluded.reason}", err=True)
    for note in result.notes:
        _echo(f"note: {note}", err=True)
    if not result.n_clusters and votes.cluster is None:
        _echo(
            "note: no question_id (or prompt_id) in the battles file: intervals are vote-level, treating votes "
            "on one prompt as independent (too narrow when prompts repeat)",
            err=True,
        )
    if as_json:
        _echo(json.dumps([_row_json(r) for r in result.rows], indent=2))
    else:
        _echo(_table(result))


# The options `parse_quick` reads: option -> (run_fit's parameter, how its value is read). Values are read only
# where Typer reads them the same way for certain: plain decimal integers and numbers, the exact choice names.
_INT = re.compile(r"0|[1-9][0-9]{0,17}")
_FLOAT = re.compile(r"(0|[1-9][0-9]{0,17})?(\.[0-9]{1,17})?")
_TEXT = "text"
_VALUES: dict[str, tuple[str, object]] = {
    "--battles": ("battles", _TEXT),
    "--format": ("file_format", BattlesFormat),
    "--anchor": ("anchor", _TEXT),
    "--bootstrap": ("bootstrap", _INT),
    "--seed": ("seed", _INT),
    "--level": ("level", _FLOAT),
    "--interval": ("interval", IntervalMethod),
    "--board": ("board", _TEXT),
    "--modality": ("modality", _TEXT),
    "--min-votes": ("min_votes", _INT),
    "--current-methodology": ("current_methodology", _TEXT),
    "--current-model": ("current_model", _TEXT),  # repeatable
}
_FLAGS = {"--json": ("as_json", True), "--strict": ("strict", True), "--no-strict": ("strict", False)}


def _value(kind: object, text: str) -> object:
    """``text`` read as Typer reads it, or ``None`` if it might read it otherwise (or refuse it)."""
    if not text or text.startswith("-"):
        return None
    if kind is _TEXT:
        return text
    if kind is _INT:
        return int(text) if _INT.fullmatch(text) else None
    if kind is _FLOAT:
        return float(text) if _FLOAT.fullmatch(text) and any(c.isdigit() for c in text) else None
    assert isinstance(kind, type)
    return next((choice for choice in kind if choice.value == text), None)  # type: ignore[attr-defined]


def parse_quick(args: list[str]) -> dict[str, object] | None:
    """The keyword arguments of :func:`run_fit` for a usual command line, or ``None`` to leave it to Typer.

    Usual: each option spelled out in full (``--opt VALUE`` or ``--opt=VALUE``), given once (``--current-model``
    any number of times), ``--battles`` among them, every value plain (see :func:`_value`), nothing else.
    Anything else, including ``--help`` and every mistake, is Typer's to answer, with its messages.
    """
    kwargs: dict[str, object] = {}
    models: list[str] = []
    k = 0
    while k < len(args):
        option, sep, text = args[k].partition("=")
        if option in _FLAGS and not sep:
            name, flag = _FLAGS[option]
            if name in kwargs:
                return None
            kwargs[name] = flag
            k += 1
            continue
        if option not in _VALUES:
            return None
        if not sep:
            if k + 1 >= len(args):
                return None
            text = args[k + 1]
        k += 1 if sep else 2
        name, kind = _VALUES[option]
        value = _value(kind, text)
        if value is None:
            return None
        if name == "current_model":
            models.append(text)
            continue
        if name in kwargs:
            return None
        kwargs[name] = value
    if "battles" not in kwargs or kwargs.get("bootstrap") == 0:  # Typer refuses --bootstrap 0 (at least 1)
        return None
    if models:
        kwargs["current_model"] = models
    return kwargs


def quick_main(args: list[str]) -> bool:
    """Run `arena ratings fit` with `args` without Typer if :func:`parse_quick` reads them; ``False`` (nothing
    done) otherwise. Ends as the Typer command would: status 2 and a one-line error when the fit cannot be
    made, status 1 with no traceback on a closed output pipe or an interrupt."""
    kwargs = parse_quick(args)
    if kwargs is None:
        return False
    try:
        run_fit(**kwargs)  # type: ignore[arg-type]
    except FitError as exc:
        _echo(f"error: {exc}", err=True)
        raise SystemExit(2) from None
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout = sys.stderr = _Quiet()  # as click does: nothing more to write, and no traceback
        raise SystemExit(1) from None
    except (KeyboardInterrupt, EOFError):
        _echo("Aborted!", err=True)
        raise SystemExit(1) from None
    return True


class _Quiet:
    """A stream that drops everything (stdout after a closed pipe: flushing it at exit must not fail)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None
