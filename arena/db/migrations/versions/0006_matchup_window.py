"""index matchups by modality and time, for the matchmaking window of the last 200 matchups

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 15:30:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matchups", schema=None) as batch_op:
        batch_op.create_index("ix_matchups_modality_served", ["modality", "served_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("matchups", schema=None) as batch_op:
        batch_op.drop_index("ix_matchups_modality_served")
