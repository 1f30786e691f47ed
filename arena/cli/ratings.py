"""`arena ratings ...`: fit leaderboards from a battles file (no database) and store snapshots.

It imports only Typer at load time and `arena.cli`'s `__init__` imports nothing (the full command line is
assembled in `arena.cli.main`), so `arena ratings fit` starts without loading the web application, the
database layer or the provider SDKs (see `arena.entry`), and `--help` or a usage error answers before numpy
and scipy are loaded: the `ratings` package is imported when the command runs."""

from __future__ import annotations

import json
import math
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from arena.cli.battles_file import BattlesFileError, BattlesFormat, read_battles_file

if TYPE_CHECKING:
    import numpy as np

    import ratings as rt

#: Option defaults, equal to `ratings.DEFAULT_LEVEL`, `ratings.DEFAULT_MIN_VOTES` and
#: `ratings.DEFAULT_ANCHOR_RATING` (a unit test checks it): spelled out so that the options can be declared
#: without importing the ratings package and numpy.
DEFAULT_LEVEL = 0.95
DEFAULT_MIN_VOTES = 300
DEFAULT_ANCHOR_RATING = 1000.0

app = typer.Typer(help="Bradley-Terry leaderboards from votes.", no_args_is_help=True)


class IntervalMethod(StrEnum):
    """Interval choices of ``arena ratings fit``."""

    bootstrap = "bootstrap"
    sandwich = "sandwich"


def _fail(message: str) -> NoReturn:
    """Print a one-line error on stderr and exit with status 2 (no traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


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
        typer.echo(f"note: {note}", err=True)
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


@app.command("fit")
def fit(
    battles: Annotated[
        str,
        typer.Option(
            "--battles", help="Battles file (.jsonl, .json, .csv or .parquet), or - for JSON on stdin."
        ),
    ],
    file_format: Annotated[
        BattlesFormat,
        typer.Option(
            "--format",
            help="Column layout: fastchat (model_a, model_b, winner), lmarena (winner_model_a, "
            "winner_model_b, winner_tie), genai-bench (left_model, right_model, vote_type); auto detects it.",
        ),
    ] = BattlesFormat.auto,
    anchor: Annotated[
        str | None,
        typer.Option(
            help="Anchor model and its rating, MODEL=1000 (default: flux-1-schnell on the overall "
            "board, flux-2-dev on use-case and capability boards)."
        ),
    ] = None,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap rounds.", min=1)] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed (same data and seed, same digits).")] = 0,
    level: Annotated[
        float, typer.Option(help="Interval coverage, between 0 and 1 (ranks use the same level).")
    ] = DEFAULT_LEVEL,
    interval: Annotated[IntervalMethod, typer.Option(help="Interval method.")] = IntervalMethod.bootstrap,
    board: Annotated[str, typer.Option(help="overall, use_case=NAME or capability=NAME.")] = "overall",
    modality: Annotated[str | None, typer.Option(help="Modality to rate (required if several).")] = None,
    min_votes: Annotated[
        int, typer.Option(help="Models with fewer votes are marked provisional.", min=0)
    ] = DEFAULT_MIN_VOTES,
    current_methodology: Annotated[
        str | None, typer.Option(help="Apply the cohort filter with this current methodology version.")
    ] = None,
    current_model: Annotated[
        list[str] | None, typer.Option(help="A current-cohort model (repeatable); others are legacy.")
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            help="Fail on unbounded ratings instead of excluding those models, and on "
            "records with no comparison (self-battles, no winner) instead of skipping them.",
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='Print a JSON list instead of a table (an unbounded interval end is "inf" or "-inf").',
        ),
    ] = False,
) -> None:
    """Fit a Bradley-Terry leaderboard from a battles file and print it."""
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
        typer.echo(f"note: excluded {excluded.model}: {excluded.reason}", err=True)
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    if not result.n_clusters and votes.cluster is None:
        typer.echo(
            "note: no question_id (or prompt_id) in the battles file: intervals are vote-level, treating votes "
            "on one prompt as independent (too narrow when prompts repeat)",
            err=True,
        )
    if as_json:
        typer.echo(json.dumps([_row_json(r) for r in result.rows], indent=2))
    else:
        typer.echo(_table(result))


def fit_main(args: list[str]) -> None:
    """Run `arena ratings fit` with `args` (what follows `fit` on the command line) as its own command."""
    solo = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    solo.command()(fit)
    typer.main.get_command(solo).main(args=args, prog_name="arena ratings fit")
