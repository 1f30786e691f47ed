"""Run the Alembic migrations programmatically (no alembic.ini needed): `arena init` and the tests use this."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def alembic_config(engine: Engine) -> Config:
    """An Alembic config bound to `engine` (shared through `config.attributes`)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["engine"] = engine
    return config


def upgrade_database(engine: Engine, revision: str = "head") -> None:
    """Create or upgrade the schema to `revision`; a no-op when already there."""
    command.upgrade(alembic_config(engine), revision)


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None for an empty database."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
