"""`arena ratings ...`: fit leaderboards from a battles file (no database) and store snapshots.

It imports only Typer at load time and `arena.cli`'s `__init__` imports nothing (the full command line is
assembled in `arena.cli.main`), so `arena ratings fit` starts without loading the web application, the
database layer or the provider SDKs (see `arena.entry`), and `--help` or a usage error answers before numpy
is loaded: the `ratings` package is imported when the command runs. The command's steps are in
`arena.cli.ratings_fit` (which the console script also runs without Typer for its usual command lines)."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer

from arena.cli.battles_file import BattlesFormat
from arena.cli.ratings_fit import (
    DEFAULT_ANCHOR_RATING,
    DEFAULT_LEVEL,
    DEFAULT_MIN_VOTES,
    FitError,
    IntervalMethod,
    run_fit,
)

__all__ = [
    "DEFAULT_ANCHOR_RATING",
    "DEFAULT_LEVEL",
    "DEFAULT_MIN_VOTES",
    "IntervalMethod",
    "app",
    "fit",
    "fit_main",
]

app = typer.Typer(help="Bradley-Terry leaderboards from votes.", no_args_is_help=True)


def _fail(message: str) -> NoReturn:
    """Print a one-line error on stderr and exit with status 2 (no traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


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
    try:
        run_fit(
            battles,
            file_format,
            anchor,
            bootstrap,
            seed,
            level,
            interval,
            board,
            modality,
            min_votes,
            current_methodology,
            current_model,
            strict,
            as_json,
        )
    except FitError as exc:
        _fail(str(exc))


def fit_main(args: list[str]) -> None:
    """Run `arena ratings fit` with `args` (what follows `fit` on the command line) as its own command."""
    solo = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    solo.command()(fit)
    typer.main.get_command(solo).main(args=args, prog_name="arena ratings fit")
