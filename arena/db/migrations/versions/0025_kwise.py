"""k-wise battles: served sets of K outputs, their image tokens, the votes (an order or all-equal) and verdicts

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-03 22:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "kwise_matchups",
        sa.Column("id", TEXT(length=64), nullable=False),
        sa.Column("session_id", TEXT(length=64), nullable=False),
        sa.Column("client_hash", TEXT(length=64), nullable=True),
        sa.Column("modality", TEXT(length=32), nullable=False),
        sa.Column("prompt_id", TEXT(length=80), nullable=False),
        sa.Column("k", sa.Integer(), nullable=False),
        sa.Column("models", sa.JSON(), nullable=False),
        sa.Column("output_ids", sa.JSON(), nullable=False),
        sa.Column("challenge", TEXT(length=64), nullable=False),
        sa.Column("source", TEXT(length=16), nullable=False),
        sa.Column("served_at", WHEN, nullable=False),
        sa.Column("expires_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(["prompt_id"], ["prompts.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_kwise_matchups_session", "kwise_matchups", ["session_id", "served_at"])
    op.create_index("ix_kwise_matchups_window", "kwise_matchups", ["modality", "served_at"])
    op.create_table(
        "kwise_images",
        sa.Column("token", TEXT(length=64), nullable=False),
        sa.Column("matchup_id", TEXT(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("output_id", sa.Integer(), nullable=False),
        sa.Column("fetched_at", WHEN, nullable=True),
        sa.ForeignKeyConstraint(["matchup_id"], ["kwise_matchups.id"]),
        sa.ForeignKeyConstraint(["output_id"], ["outputs.id"]),
        sa.PrimaryKeyConstraint("token"),
    )
    op.create_index("ix_kwise_images_matchup", "kwise_images", ["matchup_id"])
    op.create_table(
        "kwise_votes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("matchup_id", TEXT(length=64), nullable=False),
        sa.Column("modality", TEXT(length=32), nullable=False),
        sa.Column("prompt_id", TEXT(length=80), nullable=False),
        sa.Column("use_case", TEXT(length=64), nullable=False),
        sa.Column("capability", TEXT(length=64), nullable=False),
        sa.Column("k", sa.Integer(), nullable=False),
        sa.Column("models", sa.JSON(), nullable=False),
        sa.Column("ranking", sa.JSON(), nullable=False),
        sa.Column("order", sa.JSON(), nullable=False),
        sa.Column("all_equal", sa.Boolean(), nullable=False),
        sa.Column("methodology", TEXT(length=16), nullable=False),
        sa.Column("session_id", TEXT(length=64), nullable=False),
        sa.Column("source", TEXT(length=16), nullable=False),
        sa.Column("client_hash", TEXT(length=64), nullable=True),
        sa.Column("served_at", WHEN, nullable=False),
        sa.Column("voted_at", WHEN, nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("signals", sa.JSON(), server_default="{}", nullable=False),
        sa.ForeignKeyConstraint(["matchup_id"], ["kwise_matchups.id"]),
        sa.ForeignKeyConstraint(["prompt_id"], ["prompts.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("matchup_id", name="uq_kwise_votes_matchup"),
    )
    op.create_index("ix_kwise_votes_modality", "kwise_votes", ["modality", "id"])
    op.create_index("ix_kwise_votes_session", "kwise_votes", ["session_id"])
    op.create_table(
        "kwise_vote_verdicts",
        sa.Column("vote_id", sa.Integer(), nullable=False),
        sa.Column("filter", TEXT(length=32), nullable=False),
        sa.Column("filter_version", TEXT(length=16), nullable=False),
        sa.Column("kept", sa.Boolean(), nullable=False),
        sa.Column("reason", TEXT(), nullable=False),
        sa.Column("decided_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(["vote_id"], ["kwise_votes.id"]),
        sa.PrimaryKeyConstraint("vote_id", "filter"),
    )


def downgrade() -> None:
    op.drop_table("kwise_vote_verdicts")
    op.drop_index("ix_kwise_votes_session", table_name="kwise_votes")
    op.drop_index("ix_kwise_votes_modality", table_name="kwise_votes")
    op.drop_table("kwise_votes")
    op.drop_index("ix_kwise_images_matchup", table_name="kwise_images")
    op.drop_table("kwise_images")
    op.drop_index("ix_kwise_matchups_window", table_name="kwise_matchups")
    op.drop_index("ix_kwise_matchups_session", table_name="kwise_matchups")
    op.drop_table("kwise_matchups")
