"""vote tallies keep the prompt (the rating job's intervals resample prompts: votes on one prompt share its
stored outputs); the table is recreated and its mark cleared, so the next run recounts every vote once

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01 22:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_S = sqlmodel.sql.sqltypes.AutoString
_KEYS = ("modality", "use_case", "capability", "model_a", "model_b", "winner", "methodology", "source")


def _create(with_prompt: bool) -> None:
    columns = [
        sa.Column("modality", _S(length=32), nullable=False),
        sa.Column("use_case", _S(length=64), nullable=False),
        sa.Column("capability", _S(length=64), nullable=False),
        sa.Column("model_a", _S(length=64), nullable=False),
        sa.Column("model_b", _S(length=64), nullable=False),
        sa.Column("winner", _S(length=16), nullable=False),
        sa.Column("methodology", _S(length=16), nullable=False),
        sa.Column("source", _S(length=16), nullable=False),
    ]
    if with_prompt:
        columns.append(sa.Column("prompt_id", _S(length=80), nullable=False))
    keys = (*_KEYS, "prompt_id") if with_prompt else _KEYS
    op.create_table(
        "vote_tallies",
        *columns,
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.Column("kept", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(*keys),
    )


def upgrade() -> None:
    op.drop_table("vote_tallies")
    _create(with_prompt=True)
    op.execute("DELETE FROM tally_marks WHERE name = 'votes'")


def downgrade() -> None:
    op.drop_table("vote_tallies")
    _create(with_prompt=False)
    op.execute("DELETE FROM tally_marks WHERE name = 'votes'")
