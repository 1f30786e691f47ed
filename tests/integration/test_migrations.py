"""The Alembic migrations build exactly the schema the SQLModel tables describe, on both databases."""

import numpy as np
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


def test_matchups_served_before_0015_get_their_models_from_the_outputs(settings, initialized):
    """0015 copies each stored matchup's two models from its outputs (the window index reads them there)."""
    from alembic import command
    from sqlalchemy import select
    from sqlalchemy.orm import aliased

    from arena.db.migrate import alembic_config
    from arena.db.tables import Matchup, Output, utcnow
    from arena.voting.matchup_cache import PoolCache
    from arena.voting.service import ArenaService, Voter
    from prompts_taxonomy import load_taxonomy
    from tests.support.demo_field import build_demo_field

    build_demo_field(settings, initialized)
    service = ArenaService(initialized, settings, load_taxonomy(), pool=PoolCache(initialized))
    rng = np.random.default_rng(3)
    for i in range(30):
        service.serve_matchup(Voter(f"s{i % 3}"), "text_to_image", rng, utcnow())
    command.downgrade(alembic_config(initialized), "0014")
    command.upgrade(alembic_config(initialized), "head")
    left, right = aliased(Output), aliased(Output)
    with initialized.connect() as conn:
        rows = conn.execute(
            select(Matchup.left_model, Matchup.right_model, left.model_slug, right.model_slug)
            .join(left, left.id == Matchup.left_output_id)
            .join(right, right.id == Matchup.right_output_id)
        ).all()
    assert len(rows) == 30
    assert all(stored_l == out_l and stored_r == out_r for stored_l, stored_r, out_l, out_r in rows)
    assert "" not in {r[0] for r in rows} | {r[1] for r in rows}


def test_0016_counts_the_outputs_of_prompts_not_active_today_as_published(settings, initialized):
    """0016 marks every output of a retired prompt published (it may have been shown captioned on a model page);
    a new output of a published (prompt, model) pair then fits beside it, a second unpublished one does not."""
    from alembic import command
    from sqlalchemy import insert, select, update

    from arena.db.migrate import alembic_config
    from arena.db.tables import Output, Prompt, utcnow
    from tests.support.demo_field import build_demo_field

    build_demo_field(settings, initialized, models=2, prompts=2)
    with initialized.connect() as conn:
        prompts = sorted({p for (p,) in conn.execute(select(Output.prompt_id))})
    command.downgrade(alembic_config(initialized), "0015")
    with initialized.begin() as conn:
        conn.execute(
            update(Prompt.__table__).where(Prompt.__table__.c.id == prompts[0]).values(status="retired")
        )
    command.upgrade(alembic_config(initialized), "head")
    with initialized.connect() as conn:
        rows = conn.execute(select(Output.prompt_id, Output.model_slug, Output.published_at)).all()
    assert len(rows) == 4
    assert {p for p, _, at in rows if at is not None} == {prompts[0]}
    assert all(at is None for p, _, at in rows if p != prompts[0])
    with initialized.begin() as conn:  # the retired prompt's pair takes a new, unpublished output
        conn.execute(
            insert(Output).values(
                prompt_id=prompts[0], model_slug=rows[0][1], status="failed", sent_params={}, raw_metadata={},
                attempts=1, created_at=utcnow(),
            )
        )  # fmt: skip
    import pytest
    from sqlalchemy.exc import IntegrityError

    with (
        pytest.raises(IntegrityError),
        initialized.begin() as conn,
    ):  # but one unpublished output per pair only
        conn.execute(
            insert(Output).values(
                prompt_id=prompts[1], model_slug=rows[0][1], status="failed", sent_params={}, raw_metadata={},
                attempts=1, created_at=utcnow(),
            )
        )  # fmt: skip
