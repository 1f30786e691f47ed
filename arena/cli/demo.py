"""`arena demo`: bring a fresh directory to a populated arena in one step (what `make run` does).

Creates or upgrades the database, generates every missing sandbox output, casts a simulated vote history
once (only when the database has no simulated votes yet), writes simulated timing samples once (run ids
`simulated-...`, see arena.simulation.latency_samples) and takes a snapshot in demo mode, so the
leaderboard has numbers before anyone votes. Running it again only fills what is missing.

With `--serve` (what `make run` does) the arena is served as soon as the database is ready and the rest is
prepared behind it in a thread: matchups are drawn from the prompts that already have two outputs (the pool
cache refreshes every 15 s), the arena page shows the progress, and the boards appear with the snapshot.
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.common import engine_for, fail, load_settings
from arena.cli.generate import generate

if TYPE_CHECKING:
    from arena.settings import Settings


@dataclass
class DemoProgress:
    """Where a demo being prepared behind the server is: shown on the arena page until `stage` is ready."""

    stage: str = "generating the sandbox images"
    ready: bool = False


def demo_command(
    votes: Annotated[
        int, typer.Option(min=0, help="Simulated text-to-image votes (editing gets a third).")
    ] = 1500,
    voters: Annotated[int, typer.Option(min=1, help="Simulated voter sessions.")] = 150,
    seed: Annotated[int, typer.Option(help="Random seed of the simulated votes.")] = 0,
    serve: Annotated[
        bool,
        typer.Option("--serve", help="Serve at once and prepare the demo behind (what `make run` does)."),
    ] = False,
    host: Annotated[str | None, typer.Option(help="With --serve: bind address (default ARENA_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="With --serve: port (default ARENA_PORT).")] = None,
) -> None:
    """Initialise, generate the sandbox outputs, add a simulated vote history and snapshot the boards."""
    from arena.initialize import initialize

    settings = load_settings()
    # the demo shows the opt-in "Rank four" mode too, unless ARENA_KWISE says otherwise
    kwise = settings.kwise if "ARENA_KWISE" in os.environ else True
    settings = settings.model_copy(update={"demo_mode": True, "kwise": kwise})
    with engine_for(settings) as engine:
        report = initialize(settings, engine)
        typer.echo(f"database ready; {report.prompts_added} prompt(s) added", err=True)
        if _only_sandbox(engine):  # the "Your prompt" tab costs nothing with sandbox models only: show it
            settings = settings.model_copy(update={"open_prompts": True})
    if not serve:
        _prepare(settings, votes, voters, seed, DemoProgress())
        return
    from arena.app import create_app
    from arena.cli.serving import run_server
    from arena.web.context import context_of

    progress = DemoProgress()
    app_ = create_app(settings)
    context_of(app_).live.demo_progress = progress

    def behind() -> None:
        try:
            _prepare(settings, votes, voters, seed, progress)
        except (Exception, SystemExit) as exc:  # the server keeps running; the page says what happened
            progress.stage = f"stopped: {exc}"
        context_of(app_).pool.invalidate()

    threading.Thread(target=behind, name="demo-prepare", daemon=True).start()
    typer.echo("serving now; the demo is prepared behind (progress on the arena page)", err=True)
    run_server(app_, settings, host, port)


def _prepare(settings: Settings, votes: int, voters: int, seed: int, progress: DemoProgress) -> None:
    """Generate, simulate the vote history once, simulate timing samples once, and snapshot."""
    from sqlalchemy import func, select

    from arena.db.tables import Vote, utcnow
    from arena.leaderboard.snapshots import take_snapshot
    from arena.prompts.showcase import retire_showcase
    from arena.simulation.latency_samples import has_simulated_timing, simulate_timing
    from arena.simulation.voters import run_simulation

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
                progress.stage = f"simulating {n} {modality.replace('_', '-')} votes"
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
        if retired := retire_showcase(engine, settings):
            typer.echo(
                f"retired {retired} showcase prompt(s): their images are shown with model names on model pages",
                err=True,
            )
        if not has_simulated_timing(engine):
            progress.stage = "simulating timing samples"
            written = simulate_timing(engine, utcnow(), seed=seed)
            typer.echo(f"simulated {written} timing sample(s) over 14 days", err=True)
        progress.stage = "computing the boards"
        snap = take_snapshot(engine, settings)
    if not snap.boards:
        fail("no board could be computed: " + "; ".join(f"{k}: {v}" for k, v in snap.failures.items()))
    progress.stage, progress.ready = "ready", True
    typer.echo(
        f"demo ready: {len(snap.boards)} board(s) in the snapshot; start it with `arena serve` "
        "(ARENA_DEMO_MODE=true labels the simulated votes on every page)"
    )


def _dot(done: int, total: int) -> None:
    if done % max(1, total // 10) == 0:
        print(f"  {done}/{total}", file=sys.stderr)


def _only_sandbox(engine: object) -> bool:
    """Whether every active model is a local sandbox model (so open-prompt battles spend nothing)."""
    from sqlmodel import Session, select

    from arena.db.tables import Model

    with Session(engine) as session:  # type: ignore[arg-type]
        adapters = set(session.exec(select(Model.adapter).where(Model.active.is_(True))).all())  # type: ignore[attr-defined]
    return adapters == {"sandbox"}
