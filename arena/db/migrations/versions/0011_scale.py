"""the batch filters' high-water mark per modality; votes indexed by client
address (incremental filters); matchups by (modality, served_at) (recent shares)

Revision ID: 0011
Revises: 0009
Create Date: 2026-11-30 15:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0011'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('batch_filter_marks',
    sa.Column('modality', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('filter_version', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('last_vote_id', sa.Integer(), nullable=False),
    sa.Column('ran_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('modality')
    )
    with op.batch_alter_table('votes', schema=None) as batch_op:
        batch_op.create_index('ix_votes_client', ['client_hash'], unique=False)
    with op.batch_alter_table('matchups', schema=None) as batch_op:
        batch_op.create_index('ix_matchups_recent', ['modality', 'served_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('matchups', schema=None) as batch_op:
        batch_op.drop_index('ix_matchups_recent')
    with op.batch_alter_table('votes', schema=None) as batch_op:
        batch_op.drop_index('ix_votes_client')

    op.drop_table('batch_filter_marks')
