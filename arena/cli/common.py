"""Shared CLI helpers: settings and engine from the environment, and one-line errors with exit code 2.

Like every command module, it imports only Typer and the standard library at load time (the database layer,
pydantic and the settings are imported when a helper runs), so `arena --help` answers without loading them."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import typer

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlmodel import Session

    from arena.settings import Settings

EXIT_USAGE = 2


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print `error: message` on stderr and exit non-zero (no traceback for users)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def load_settings() -> Settings:
    """Settings from the environment, or a one-line error naming the bad variable."""
    from pydantic import ValidationError

    from arena.settings import Settings

    try:
        return Settings()
    except ValidationError as exc:
        err = exc.errors()[0]
        name = "ARENA_" + str(err["loc"][0]).upper() if err["loc"] else "ARENA_*"
        fail(f"bad setting {name}: {err['msg']}")


@contextmanager
def engine_for(settings: Settings) -> Iterator[Engine]:
    """The database engine for these settings, disposed (connections closed) on exit."""
    from arena.db import make_engine

    engine = make_engine(settings.database_url)
    try:
        yield engine
    finally:
        engine.dispose()


@contextmanager
def database_session(settings: Settings) -> Iterator[Session]:
    """A session on an initialised database; a missing schema becomes a one-line error."""
    from sqlalchemy.exc import OperationalError, ProgrammingError
    from sqlmodel import Session

    with engine_for(settings) as engine, Session(engine) as session:
        try:
            yield session
        except (OperationalError, ProgrammingError) as exc:
            if "no such table" in str(exc) or "does not exist" in str(exc):
                fail("the database is not initialised: run `arena init` first")
            fail(f"database error ({exc.orig.__class__.__name__}): check ARENA_DATABASE_URL")


def print_json(data: Any) -> None:
    """Write data as indented JSON on stdout."""
    json.dump(data, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")


def printable(text: str) -> str:
    """`text` safe for a terminal: control characters (ESC sequences, NUL, ...) shown as escapes."""
    from prompts_taxonomy.records import CONTROL_CHARS

    return CONTROL_CHARS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
