"""The Alembic migrations build exactly the schema the SQLModel tables describe, on both databases."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import arena.db.tables  # noqa: F401
from arena.db import upgrade_database
from arena.db.migrate import current_revision


def test_migrations_reach_head_and_match_the_table_definitions(engine):
    upgrade_database(engine)
    assert current_revision(engine) is not None
    with engine.connect() as conn:
        diff = compare_metadata(
            MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata
        )
    assert diff == []


def test_upgrading_an_up_to_date_database_is_a_no_op(engine):
    upgrade_database(engine)
    first = current_revision(engine)
    upgrade_database(engine)
    assert current_revision(engine) == first


def test_every_migration_downgrades_to_empty_and_upgrades_again(engine):
    from alembic import command
    from sqlalchemy import inspect

    from arena.db.migrate import alembic_config

    upgrade_database(engine)
    command.downgrade(alembic_config(engine), "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    upgrade_database(engine)
    assert {"matchups", "outputs", "votes"} <= set(inspect(engine).get_table_names())
