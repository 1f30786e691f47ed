"""`arena demo`: bring a fresh directory to a populated arena in one step (what `make run` does).

Creates or upgrades the database, generates every missing sandbox output, casts a simulated vote history
once (only when the database has no simulated votes yet) and takes a snapshot in demo mode, so the
leaderboard has numbers before anyone votes. Running it again only fills what is missing.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from sqlalchemy import func, select

from arena.cli.common import engine_for, fail, load_settings
from arena.cli.generate import generate
from arena.db.tables import Vote
from arena.initialize import initialize
from arena.simulation import run_simulation
from arena.snapshots import take_snapshot


def demo_command(
    votes: Annotated[
        int, typer.Option(min=0, help="Simulated text-to-image votes (editing gets a third).")
    ] = 1500,
    voters: Annotated[int, typer.Option(min=1, help="Simulated voter sessions.")] = 150,
    seed: Annotated[int, typer.Option(help="Random seed of the simulated votes.")] = 0,
) -> None:
    """Initialise, generate the sandbox outputs, add a simulated vote history and snapshot the boards."""
    settings = load_settings().model_copy(update={"demo_mode": True})
    with engine_for(settings) as engine:
        report = initialize(settings, engine)
        typer.echo(f"database ready; {report.prompts_added} prompt(s) added", err=True)
    generate(
        model=None,
        modality=None,
        limit=None,
        concurrency=4,
        retry_failed=False,
        failures=False,
        as_json=False,
    )
    with engine_for(settings) as engine:
        with engine.connect() as conn:
            simulated = conn.execute(
                select(func.count()).select_from(Vote).where(Vote.source == "simulated")
            ).scalar()
        if not simulated and votes:
            for modality, n in (("text_to_image", votes), ("image_editing", max(1, votes // 3))):
                typer.echo(f"simulating {n} {modality} votes...", err=True)
                try:
                    run_simulation(
                        engine,
                        settings,
                        votes=n,
                        voters=voters,
                        modality=modality,
                        seed=seed,
                        progress=lambda done, n=n: _dot(done, n),
                    )
                except ValueError as exc:
                    typer.echo(f"  skipped: {exc}", err=True)
        snap = take_snapshot(engine, settings)
    if not snap.boards:
        fail("no board could be computed: " + "; ".join(f"{k}: {v}" for k, v in snap.failures.items()))
    typer.echo(
        f"demo ready: {len(snap.boards)} board(s) in the snapshot; start it with `arena serve` "
        "(ARENA_DEMO_MODE=true labels the simulated votes on every page)"
    )


def _dot(done: int, total: int) -> None:
    if done % max(1, total // 10) == 0:
        print(f"  {done}/{total}", file=sys.stderr)
