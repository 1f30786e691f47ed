"""`arena simulate`: simulated voters with known true strengths vote through the service path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json


def simulate_command(
    votes: Annotated[int, typer.Option(min=1, help="How many votes to cast.")] = 1000,
    voters: Annotated[int, typer.Option(min=1, help="How many simulated voter sessions.")] = 100,
    truth: Annotated[
        Path | None,
        typer.Option(
            help="JSON {model slug: true rating}; default: from sandbox `quality`, else seeded random."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Random seed (reproducible votes).")] = 0,
    modality: Annotated[str, typer.Option(help="text_to_image or image_editing.")] = "text_to_image",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    actor: Annotated[
        str | None, typer.Option(help="Who is acting (audit log); default: the OS user.")
    ] = None,
) -> None:
    """Cast simulated votes (marked `simulated`; published boards include them only in demo mode); the audit
    log records who cast how many."""
    from arena.cli.progress import progress_bars
    from arena.ops import audit
    from arena.simulation.voters import load_truth, run_simulation
    from arena.voting.service import VoteError
    from prompts_taxonomy import load_taxonomy

    settings = load_settings()
    if not load_taxonomy().has("modality", modality):
        fail(f"unknown modality '{modality}'")
    try:
        given = load_truth(truth) if truth is not None else None
    except (OSError, ValueError) as exc:
        fail(str(exc).splitlines()[0])
    with engine_for(settings) as engine:
        try:
            with progress_bars("votes", as_json=as_json) as bars:
                report, true = run_simulation(
                    engine,
                    settings,
                    votes=votes,
                    voters=voters,
                    modality=modality,
                    seed=seed,
                    truth=given,
                    progress=lambda done: bars("simulate", done, votes),
                )
        except VoteError as exc:
            fail(exc.message)
        except ValueError as exc:
            fail(str(exc))
        audit.record_now(
            engine,
            actor=audit.cli_actor(actor),
            action="votes.simulate",
            target=modality,
            votes=report.votes,
            voters=voters,
            seed=seed,
            truth=str(truth) if truth is not None else "default",
        )
    if as_json:
        print_json({"votes": report.votes, "voters": voters, "modality": modality, "truth": true})
        return
    typer.echo(f"cast {report.votes} simulated {modality} votes from {voters} voters")
    typer.echo("true ratings: " + json.dumps({k: round(v, 1) for k, v in sorted(true.items())}))
