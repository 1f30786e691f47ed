"""each matchup stores its two models' slugs (the variety rules count the recent window's pairs from one index,
with no join to outputs), backfilled from the outputs; the window index replaces ix_matchups_recent

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 01:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    # A plain ADD COLUMN with a default (no table copy on SQLite), then the slugs of the stored matchups.
    op.add_column("matchups", sa.Column("left_model", _S(length=64), nullable=False, server_default=""))
    op.add_column("matchups", sa.Column("right_model", _S(length=64), nullable=False, server_default=""))
    op.execute(
        "UPDATE matchups SET "
        "left_model = (SELECT model_slug FROM outputs WHERE outputs.id = matchups.left_output_id), "
        "right_model = (SELECT model_slug FROM outputs WHERE outputs.id = matchups.right_output_id)"
    )
    with op.batch_alter_table("matchups", schema=None) as batch_op:
        batch_op.drop_index("ix_matchups_recent")
        batch_op.create_index(
            "ix_matchups_window", ["modality", "served_at", "left_model", "right_model"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("matchups", schema=None) as batch_op:
        batch_op.drop_index("ix_matchups_window")
        batch_op.create_index("ix_matchups_recent", ["modality", "served_at"], unique=False)
        batch_op.drop_column("right_model")
        batch_op.drop_column("left_model")
