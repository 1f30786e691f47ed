"""open-prompt battles: open_battles, open_votes (append-only), open_vote_verdicts, open_spend, open_switches,
and models.open_excluded (a model taken out of open battles)

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-03 22:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("models", sa.Column("open_excluded", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "open_battles",
        sa.Column("id", TEXT(length=64), nullable=False),
        sa.Column("modality", TEXT(length=32), nullable=False),
        sa.Column("prompt_text", sa.Text(), nullable=False),
        sa.Column("reference_media_id", TEXT(length=64), nullable=True),
        sa.Column("left_model", TEXT(length=64), nullable=False),
        sa.Column("right_model", TEXT(length=64), nullable=False),
        sa.Column("left_status", TEXT(length=16), nullable=False),
        sa.Column("right_status", TEXT(length=16), nullable=False),
        sa.Column("left_media_id", TEXT(length=64), nullable=True),
        sa.Column("right_media_id", TEXT(length=64), nullable=True),
        sa.Column("left_latency_s", sa.Float(), nullable=True),
        sa.Column("right_latency_s", sa.Float(), nullable=True),
        sa.Column("left_error", TEXT(length=500), nullable=True),
        sa.Column("right_error", TEXT(length=500), nullable=True),
        sa.Column("left_token", TEXT(length=64), nullable=False),
        sa.Column("right_token", TEXT(length=64), nullable=False),
        sa.Column("status", TEXT(length=16), nullable=False),
        sa.Column("failure", TEXT(length=32), nullable=True),
        sa.Column("session_id", TEXT(length=64), nullable=False),
        sa.Column("client_hash", TEXT(length=64), nullable=True),
        sa.Column("challenge", TEXT(length=64), nullable=False),
        sa.Column("consent", sa.Boolean(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("spend_day", TEXT(length=10), nullable=False),
        sa.Column("moderation", sa.JSON(), nullable=False),
        sa.Column("use_case", TEXT(length=64), nullable=True),
        sa.Column("capability", TEXT(length=64), nullable=True),
        sa.Column("tagged_at", WHEN, nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("ready_at", WHEN, nullable=True),
        sa.Column("left_fetched_at", WHEN, nullable=True),
        sa.Column("right_fetched_at", WHEN, nullable=True),
        sa.Column("finished_at", WHEN, nullable=True),
        sa.Column("expires_at", WHEN, nullable=False),
        sa.Column("deleted_at", WHEN, nullable=True),
        sa.ForeignKeyConstraint(["left_model"], ["models.slug"]),
        sa.ForeignKeyConstraint(["right_model"], ["models.slug"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("left_token"),
        sa.UniqueConstraint("right_token"),
    )
    op.create_index("ix_open_battles_session", "open_battles", ["session_id", "created_at"])
    op.create_index(
        "ix_open_battles_window", "open_battles", ["modality", "created_at", "left_model", "right_model"]
    )
    op.create_index("ix_open_battles_status", "open_battles", ["status", "created_at"])
    op.create_index("ix_open_battles_created", "open_battles", ["created_at"])
    op.create_table(
        "open_votes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("battle_id", TEXT(length=64), nullable=False),
        sa.Column("modality", TEXT(length=32), nullable=False),
        sa.Column("model_a", TEXT(length=64), nullable=False),
        sa.Column("model_b", TEXT(length=64), nullable=False),
        sa.Column("a_side", TEXT(length=5), nullable=False),
        sa.Column("winner", TEXT(length=16), nullable=False),
        sa.Column("methodology", TEXT(length=16), nullable=False),
        sa.Column("session_id", TEXT(length=64), nullable=False),
        sa.Column("client_hash", TEXT(length=64), nullable=True),
        sa.Column("served_at", WHEN, nullable=False),
        sa.Column("voted_at", WHEN, nullable=False),
        sa.Column("images_fetched", sa.Boolean(), nullable=False),
        sa.Column("signals", sa.JSON(), nullable=False, server_default="{}"),
        sa.ForeignKeyConstraint(["battle_id"], ["open_battles.id"]),
        sa.ForeignKeyConstraint(["model_a"], ["models.slug"]),
        sa.ForeignKeyConstraint(["model_b"], ["models.slug"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("battle_id", name="uq_open_votes_battle"),
    )
    op.create_index("ix_open_votes_modality", "open_votes", ["modality", "methodology"])
    op.create_index("ix_open_votes_session", "open_votes", ["session_id"])
    op.create_index("ix_open_votes_pair", "open_votes", ["model_a", "model_b"])
    op.create_table(
        "open_vote_verdicts",
        sa.Column("vote_id", sa.Integer(), nullable=False),
        sa.Column("filter", TEXT(length=32), nullable=False),
        sa.Column("filter_version", TEXT(length=16), nullable=False),
        sa.Column("kept", sa.Boolean(), nullable=False),
        sa.Column("reason", TEXT(), nullable=False),
        sa.Column("decided_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(["vote_id"], ["open_votes.id"]),
        sa.PrimaryKeyConstraint("vote_id", "filter"),
    )
    op.create_table(
        "open_spend",
        sa.Column("day", TEXT(length=10), nullable=False),
        sa.Column("model_slug", TEXT(length=64), nullable=False),
        sa.Column("reserved_usd", sa.Float(), nullable=False),
        sa.Column("battles", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("day", "model_slug"),
    )
    op.create_table(
        "open_switches",
        sa.Column("name", TEXT(length=32), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("changed_at", WHEN, nullable=False),
        sa.Column("changed_by", TEXT(length=128), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("open_switches")
    op.drop_table("open_spend")
    op.drop_table("open_vote_verdicts")
    op.drop_index("ix_open_votes_pair", table_name="open_votes")
    op.drop_index("ix_open_votes_session", table_name="open_votes")
    op.drop_index("ix_open_votes_modality", table_name="open_votes")
    op.drop_table("open_votes")
    for name in ("ix_open_battles_created", "ix_open_battles_status", "ix_open_battles_window", "ix_open_battles_session"):
        op.drop_index(name, table_name="open_battles")
    op.drop_table("open_battles")
    op.drop_column("models", "open_excluded")
