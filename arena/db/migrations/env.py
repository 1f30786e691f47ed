"""Alembic environment: uses the engine handed over in `config.attributes` (see arena.db.migrate)."""

from alembic import context
from sqlmodel import SQLModel

import arena.db.tables  # noqa: F401  (registers the tables on SQLModel.metadata)

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    """Run the migrations on the configured engine; batch mode lets SQLite alter tables."""
    engine = config.attributes["engine"]
    with engine.begin() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
        )
        context.run_migrations()


run_migrations_online()
