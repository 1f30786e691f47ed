"""The `arena` command line: one Typer app with a sub-app per area (prompts, ratings, ...)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena import __version__
from arena.cli import (
    demo,
    evals,
    export,
    generate,
    jobs,
    latency,
    models,
    open_board,
    operators,
    outputs,
    prompt_ops,
    prompts,
    simulate,
    snapshot,
    votes,
    webhooks,
)
from arena.cli import judge as judge_cli
from arena.cli import ratings as ratings_cli
from arena.cli import retirement as retirement_cli
from arena.cli.common import engine_for, fail, load_settings, print_json
from arena.cli.serving import run_server

app = typer.Typer(
    name="arena",
    help="Self-hostable image-model arena: blind pairwise votes, Bradley-Terry leaderboards, timing runs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: flags without a `<bool>` type, no Rich import to answer --help
)
app.add_typer(prompts.app, name="prompts")
prompts.app.command("retire")(retirement_cli.retire_command)
prompts.app.command("refresh")(retirement_cli.refresh_command)
prompts.app.command("corpus")(retirement_cli.corpus_command)
prompts.app.command("search")(prompt_ops.search_command)
prompts.app.command("show")(prompt_ops.show_command)
prompts.app.command("retire-prompt")(prompt_ops.retire_prompt_command)
prompts.app.command("restore")(prompt_ops.restore_command)
app.add_typer(operators.app, name="operators")
app.add_typer(operators.audit_app, name="audit")
app.add_typer(models.app, name="models")
ratings_cli.app.command("snapshot")(snapshot.snapshot_command)
app.add_typer(ratings_cli.app, name="ratings")
app.add_typer(votes.app, name="votes")
app.command("generate")(generate.generate)
app.command("simulate")(simulate.simulate_command)
app.command("export")(export.export_command)
app.command("demo")(demo.demo_command)
app.add_typer(latency.app, name="latency")
app.add_typer(jobs.app, name="jobs")
app.command("scheduler")(jobs.scheduler_command)
app.add_typer(outputs.app, name="outputs")
app.add_typer(judge_cli.app, name="judge")
app.add_typer(evals.app, name="eval")
app.add_typer(webhooks.app, name="webhooks")
app.add_typer(open_board.app, name="open")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _cli_source(
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_print_version, help="Print the version and exit."),
    ] = False,
) -> None:
    """Self-hostable image-model arena: blind pairwise votes, Bradley-Terry leaderboards, timing runs."""
    from arena.ops.audit_source import SOURCE

    SOURCE.set("cli")  # audit rows written by a CLI command say "cli"


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


@app.command()
def init(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Create or upgrade the database and load the taxonomy, starter pool, timing set and models file."""
    from sqlalchemy.exc import OperationalError

    from arena.generation.registry import RegistryError
    from arena.initialize import initialize
    from arena.prompts.pool import ImportFailed

    settings = load_settings()
    try:
        with engine_for(settings) as engine:
            report = initialize(settings, engine)
    except RegistryError as exc:
        fail(str(exc))
    except ImportFailed as exc:
        fail(f"the starter pool failed validation: {exc}")
    except OperationalError as exc:
        fail(f"cannot reach the database ({exc.orig.__class__.__name__}): check ARENA_DATABASE_URL")
    if as_json:
        print_json(report.__dict__)
        return
    typer.echo(
        f"database ready at {settings.database_url}\n"
        f"taxonomy labels written: {report.labels_written}\n"
        f"prompts added: {report.prompts_added} (already present: {report.prompts_present})\n"
        f"timing prompts added: {report.timing_added}\n"
        f"models: {report.models}"
    )


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default ARENA_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default ARENA_PORT).")] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="Worker processes (set ARENA_REDIS_URL so they share rate limits).")
    ] = 1,
) -> None:
    """Run the web app (arena page, leaderboard, JSON API) with uvicorn, and the scheduler unless disabled."""
    settings = load_settings()
    run_server(None, settings, host, port, workers=workers)


def main() -> None:
    """Console-script entry point."""
    app()
