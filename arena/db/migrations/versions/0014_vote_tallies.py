"""vote tallies counted incrementally (the rating job and the batch filters read them instead of every vote),
their high-water mark, the head-to-head counts and example votes stored with each snapshot (model pages), and
votes indexed by prompt (a retired prompt's latest votes)

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-30 22:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        "vote_tallies",
        sa.Column("modality", _S(length=32), nullable=False),
        sa.Column("use_case", _S(length=64), nullable=False),
        sa.Column("capability", _S(length=64), nullable=False),
        sa.Column("model_a", _S(length=64), nullable=False),
        sa.Column("model_b", _S(length=64), nullable=False),
        sa.Column("winner", _S(length=16), nullable=False),
        sa.Column("methodology", _S(length=16), nullable=False),
        sa.Column("source", _S(length=16), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.Column("kept", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "modality", "use_case", "capability", "model_a", "model_b", "winner", "methodology", "source"
        ),
    )
    op.create_table(
        "tally_marks",
        sa.Column("name", _S(length=16), nullable=False),
        sa.Column("last_vote_id", sa.Integer(), nullable=False),
        sa.Column("gaps", sa.JSON(), nullable=False),
        sa.Column("counted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_table(
        "snapshot_tallies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("modality", _S(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("models", sa.JSON(), nullable=False),
        sa.Column("cells", sa.JSON(), nullable=False),
        sa.Column("counts", sa.LargeBinary(), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.Column("examples", sa.JSON(), nullable=False),
        sa.Column("examples_basis", _S(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("snapshot_tallies", schema=None) as batch_op:
        batch_op.create_index("ix_snapshot_tallies_at", ["modality", "created_at"], unique=False)
    with op.batch_alter_table("votes", schema=None) as batch_op:
        batch_op.create_index("ix_votes_prompt", ["prompt_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("votes", schema=None) as batch_op:
        batch_op.drop_index("ix_votes_prompt")
    with op.batch_alter_table("snapshot_tallies", schema=None) as batch_op:
        batch_op.drop_index("ix_snapshot_tallies_at")
    op.drop_table("snapshot_tallies")
    op.drop_table("tally_marks")
    op.drop_table("vote_tallies")
