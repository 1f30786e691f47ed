"""eval generation cache: successful eval images keyed by what made them, reused across runs; each eval result
says where its image came from (generated, cache, given)

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-03 18:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        "eval_generation_cache",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", _S(length=64), nullable=False),
        sa.Column("model_slug", _S(length=64), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.Column("image_sha256", _S(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    with op.batch_alter_table("eval_results") as batch:
        batch.add_column(sa.Column("source", _S(length=16), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("eval_results") as batch:
        batch.drop_column("source")
    op.drop_table("eval_generation_cache")
