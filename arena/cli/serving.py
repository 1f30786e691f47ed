"""Serving the web app from the command line (`arena serve`, `arena demo --serve`): uvicorn with the project's
HTTP protocol, and the in-process scheduler unless it runs elsewhere."""

from __future__ import annotations

from typing import Any

__all__ = ["run_server"]


def run_server(app_: Any, settings: Any, host: str | None, port: int | None, *, workers: int = 1) -> None:
    """Serve `app_` (None: `create_app(settings)`) with uvicorn, with the in-process scheduler unless
    ARENA_SCHEDULER_ENABLED is false; several workers each build their app from the same environment."""
    import uvicorn

    from arena.runtime.server_options import uvicorn_options
    from arena.web.protocol import HTTP_PROTOCOL, protocol_for

    # host, port, log level, JSON log config, and proxy headers believed only from ARENA_TRUSTED_PROXIES
    bind = uvicorn_options(settings, host=host, port=port)
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
