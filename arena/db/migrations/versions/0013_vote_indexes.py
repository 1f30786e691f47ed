"""votes indexed by model pair, by second model and by taxonomy cell: the head-to-head page, a model's
example matchups and combined boards read a few votes out of many instead of scanning the modality

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-30 19:40:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("votes", schema=None) as batch_op:
        batch_op.create_index("ix_votes_pair", ["model_a", "model_b"], unique=False)
        batch_op.create_index("ix_votes_model_b", ["model_b"], unique=False)
        batch_op.create_index("ix_votes_cell", ["use_case", "capability"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("votes", schema=None) as batch_op:
        batch_op.drop_index("ix_votes_cell")
        batch_op.drop_index("ix_votes_model_b")
        batch_op.drop_index("ix_votes_pair")
