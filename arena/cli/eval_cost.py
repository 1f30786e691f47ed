"""`arena eval run`'s cache and cost options: --no-cache, --max-cost and --dry-run (the estimate, checked and
printed before the run folder is written or any provider or judge is called)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import fail, print_json

if TYPE_CHECKING:  # `arena --help` must not load sqlalchemy (tests/unit/test_cli_startup.py)
    from sqlalchemy import Engine

NoCache = Annotated[
    bool,
    typer.Option(
        "--no-cache", help="Call the provider even when the generation cache has the image (refreshes it)."
    ),
]
MaxCost = Annotated[
    float | None,
    typer.Option(
        "--max-cost", min=0, help="Refuse to start (exit 2) when the estimated cost in USD is above this."
    ),
]
DryRun = Annotated[
    bool,
    typer.Option(
        "--dry-run", help="Print the cost estimate and exit: nothing is generated, graded or written."
    ),
]


def check_budget(
    runner: Any,
    engine: Engine,
    folder: Path,
    resume: bool,
    max_cost: float | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Refuse a run whose estimate exceeds --max-cost (or is unknown); print the estimate and exit on --dry-run."""
    if max_cost is None and not dry_run:
        return
    from arena.evals.cost import estimate_lines, estimate_run, existing_items, refusal

    estimate = estimate_run(runner, existing_items(engine, folder, resume))
    if max_cost is not None and (reason := refusal(estimate, max_cost)):
        fail(reason)
    if dry_run:
        if as_json:
            print_json({"dry_run": True, "estimate": estimate})
        else:
            for line in estimate_lines(estimate):
                typer.echo(line)
        raise typer.Exit(0)
