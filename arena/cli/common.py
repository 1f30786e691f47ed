"""Shared CLI helpers: settings and engine from the environment, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer
from pydantic import ValidationError
from sqlalchemy import Engine

from arena.db import make_engine
from arena.settings import Settings

EXIT_USAGE = 2


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print `error: message` on stderr and exit non-zero (no traceback for users)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def load_settings() -> Settings:
    """Settings from the environment, or a one-line error naming the bad variable."""
    try:
        return Settings()
    except ValidationError as exc:
        err = exc.errors()[0]
        name = "ARENA_" + str(err["loc"][0]).upper() if err["loc"] else "ARENA_*"
        fail(f"bad setting {name}: {err['msg']}")


def engine_for(settings: Settings) -> Engine:
    """The database engine for these settings."""
    return make_engine(settings.database_url)


def print_json(data: Any) -> None:
    """Write data as indented JSON on stdout."""
    json.dump(data, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")
