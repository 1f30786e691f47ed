"""Serving the web app from the command line (`arena serve`, `arena demo --serve`): uvicorn with the project's
HTTP protocol, and the in-process scheduler unless it runs elsewhere. In demo mode it first prints a one-time
sign-in link to the operator console, so a demo's console opens without the CLI."""

from __future__ import annotations

from typing import Any

__all__ = ["announce_console", "run_server"]


def run_server(app_: Any, settings: Any, host: str | None, port: int | None, *, workers: int = 1) -> None:
    """Serve `app_` (None: `create_app(settings)`) with uvicorn, with the in-process scheduler unless
    ARENA_SCHEDULER_ENABLED is false; several workers each build their app from the same environment and
    share their metrics through files (set up before anything imports prometheus_client)."""
    if workers > 1:
        from arena.runtime.metrics_files import prepare_shared_metrics

        prepare_shared_metrics()
    import uvicorn

    from arena.runtime.server_options import uvicorn_options
    from arena.web.protocol import HTTP_PROTOCOL, protocol_for

    # host, port, log level, JSON log config, and proxy headers believed only from ARENA_TRUSTED_PROXIES
    bind = uvicorn_options(settings, host=host, port=port)
    announce_console(settings, bind["host"], bind["port"])
    service = None
    if settings.scheduler_enabled:  # ARENA_SCHEDULER_ENABLED=false leaves scheduling to `arena scheduler`
        from scheduler.service import SchedulerService

        service = SchedulerService(settings).start()
    try:
        if workers > 1:  # each worker imports the factory and builds its app from the same environment
            uvicorn.run("arena.asgi:create", factory=True, workers=workers, http=HTTP_PROTOCOL, **bind)
        else:
            if app_ is None:
                from arena.app import create_app

                app_ = create_app(settings)
            uvicorn.run(app_, http=protocol_for(settings), **bind)
    finally:
        if service is not None:
            service.stop()


def announce_console(settings: Any, host: str, port: int) -> None:
    """In demo mode only, print one line with a one-time sign-in link for the demo operator (added the first
    time); nothing when demo mode is off or the demo operator was revoked; a note when there is no schema yet."""
    if not settings.demo_mode:
        return
    import typer
    from sqlalchemy.exc import OperationalError, ProgrammingError
    from sqlmodel import Session

    from arena.cli.common import engine_for
    from arena.db.tables import utcnow
    from arena.ops import operators
    from arena.ops.audit import cli_actor

    actor = cli_actor(None)
    try:
        with engine_for(settings) as engine, Session(engine) as session:
            name = operators.demo_operator(session, actor=actor)
            secret = None if name is None else operators.open_link(session, name, actor=actor, now=utcnow())
    except (OperationalError, ProgrammingError):  # no schema yet: `arena serve` before `arena init`
        typer.echo("no operator console link: the database is not initialised (`arena init`)", err=True)
        return
    if secret is not None:
        shown = "127.0.0.1" if host in ("", "0.0.0.0", "::") else f"[{host}]" if ":" in host else host
        typer.echo(
            f"Operator console: http://{shown}:{port}/admin/sign-in?once={secret} (works once, for an hour)"
        )
