"""rating snapshots keep the standard error of every pairwise rating difference (and the ranks' critical value),
so the leaderboard can give the interval of a model's gap to the anchor or to any chosen model

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02 20:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("rating_snapshots", sa.Column("differences", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("rating_snapshots", "differences")
