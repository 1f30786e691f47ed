"""`arena simulate`: simulated voters with known true strengths vote through the service path."""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer
from sqlmodel import Session, select

from arena.cli.common import engine_for, fail, load_settings, print_json
from arena.db.tables import Model, utcnow
from arena.simulation import default_truth, load_truth, simulate
from arena.voting.service import ArenaService, VoteError
from prompts_taxonomy import load_taxonomy


def simulate_command(
    votes: Annotated[int, typer.Option(min=1, help="How many votes to cast.")] = 1000,
    voters: Annotated[int, typer.Option(min=1, help="How many simulated voter sessions.")] = 100,
    truth: Annotated[
        Path | None, typer.Option(help="JSON {model slug: true rating}; default: seeded random.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Random seed (reproducible votes).")] = 0,
    modality: Annotated[str, typer.Option(help="text_to_image or image_editing.")] = "text_to_image",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Cast simulated votes (marked `simulated`; published boards include them only in demo mode)."""
    settings = load_settings()
    taxonomy = load_taxonomy()
    if not taxonomy.has("modality", modality):
        fail(f"unknown modality '{modality}'")
    try:
        true_ratings = load_truth(truth) if truth is not None else None
    except (OSError, ValueError) as exc:
        fail(str(exc).splitlines()[0])
    with engine_for(settings) as engine:
        with Session(engine) as session:
            slugs = [
                m.slug for m in session.exec(select(Model).where(Model.modality == modality, Model.active))
            ]
        if len(slugs) < 2:
            fail(f"simulation needs at least two active {modality} models with outputs (arena generate)")
        true_ratings = true_ratings or default_truth(slugs, seed)
        service = ArenaService(engine, settings, taxonomy)
        start = utcnow() - timedelta(days=1)
        step = max(1, votes // 10)

        def show(done: int) -> None:
            if done % step == 0:
                print(f"  {done}/{votes} votes", file=sys.stderr)

        try:
            report = simulate(
                service,
                votes=votes,
                voters=voters,
                truth=true_ratings,
                seed=seed,
                modality=modality,
                start=start,
                progress=show,
            )
        except VoteError as exc:
            fail(exc.message)
    result = {"votes": report.votes, "voters": voters, "modality": modality, "truth": true_ratings}
    if as_json:
        print_json(result)
        return
    typer.echo(f"cast {report.votes} simulated {modality} votes from {voters} voters")
    typer.echo("true ratings: " + json.dumps({k: round(v, 1) for k, v in sorted(true_ratings.items())}))
