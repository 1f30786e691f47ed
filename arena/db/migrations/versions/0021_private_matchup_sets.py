"""private matchup sets: an eval run's outputs shown blind to invited voters, their votes kept apart

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03 18:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        "eval_private_sets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_sha256", TEXT(length=64), nullable=False),
        sa.Column("run_a", TEXT(length=64), nullable=False),
        sa.Column("run_b", TEXT(length=64), nullable=False),
        sa.Column("label_a", TEXT(length=300), nullable=False),
        sa.Column("label_b", TEXT(length=300), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_sha256"),
    )
    op.create_table(
        "eval_private_pairs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("set_id", sa.Integer(), nullable=False),
        sa.Column("case_id", TEXT(length=128), nullable=False),
        sa.Column("sample", sa.Integer(), nullable=False),
        sa.Column("prompt", TEXT(), nullable=False),
        sa.Column("result_a", sa.Integer(), nullable=False),
        sa.Column("result_b", sa.Integer(), nullable=False),
        sa.Column("path_a", TEXT(length=2048), nullable=False),
        sa.Column("path_b", TEXT(length=2048), nullable=False),
        sa.ForeignKeyConstraint(["set_id"], ["eval_private_sets.id"]),
        sa.ForeignKeyConstraint(["result_a"], ["eval_results.id"]),
        sa.ForeignKeyConstraint(["result_b"], ["eval_results.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_eval_private_pairs_set_id", "eval_private_pairs", ["set_id"])
    op.create_table(
        "eval_private_showings",
        sa.Column("id", TEXT(length=32), nullable=False),
        sa.Column("set_id", sa.Integer(), nullable=False),
        sa.Column("pair_id", sa.Integer(), nullable=False),
        sa.Column("voter", TEXT(length=64), nullable=False),
        sa.Column("a_left", sa.Boolean(), nullable=False),
        sa.Column("choice", TEXT(length=8), nullable=False),
        sa.Column("outcome", sa.Integer(), nullable=True),
        sa.Column("shown_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("voted_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["set_id"], ["eval_private_sets.id"]),
        sa.ForeignKeyConstraint(["pair_id"], ["eval_private_pairs.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_eval_private_showings_voter", "eval_private_showings", ["set_id", "voter"])


def downgrade() -> None:
    op.drop_index("ix_eval_private_showings_voter", table_name="eval_private_showings")
    op.drop_table("eval_private_showings")
    op.drop_index("ix_eval_private_pairs_set_id", table_name="eval_private_pairs")
    op.drop_table("eval_private_pairs")
    op.drop_table("eval_private_sets")
