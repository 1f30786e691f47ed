"""outputs.published_at: when an output was first shown with its model's name (a published output is never
served blind again); outputs of prompts that are not active today count as published. The one-row-per-(prompt,
model) unique constraint becomes a partial unique index over unpublished outputs, so a restored prompt can get
new outputs beside its published ones.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01 21:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_UNPUBLISHED = sa.text("published_at IS NULL")
_PAIR = "uq_outputs_prompt_model"
_S = sqlmodel.sql.sqltypes.AutoString
_COLUMNS = (
    "id, prompt_id, model_slug, status, media_id, original_sha256, original_width, original_height, sent_params, "
    "raw_metadata, latency_s, first_byte_s, attempts, error_kind, error_message, created_at"
)


def _rebuild_sqlite_outputs(*, published: bool) -> None:
    """Recreate `outputs` on SQLite as at 0016 (`published`: with published_at, without the (prompt, model)
    unique constraint) or as at 0015, keeping every row and id. Votes, matchups and verdicts point at outputs:
    with foreign keys deferred, the DROP TABLE's dangling references are counted and the copied rows settle them
    again before the commit (a row lost would fail it)."""
    if not op.get_bind().connection.dbapi_connection.in_transaction:  # type: ignore[union-attr]
        # the driver opens none before DDL; deferred checks need one that lasts until the commit
        op.execute("BEGIN")
    op.execute("PRAGMA defer_foreign_keys=ON")
    columns = _COLUMNS + (", published_at" if published else "")
    op.execute(f"CREATE TABLE _outputs_copy AS SELECT {columns} FROM outputs")
    op.drop_table("outputs")
    op.create_table(
        "outputs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("prompt_id", _S(length=80), nullable=False),
        sa.Column("model_slug", _S(length=64), nullable=False),
        sa.Column("status", _S(length=16), nullable=False),
        sa.Column("media_id", _S(length=64), nullable=True),
        sa.Column("original_sha256", _S(length=64), nullable=True),
        sa.Column("original_width", sa.Integer(), nullable=True),
        sa.Column("original_height", sa.Integer(), nullable=True),
        sa.Column("sent_params", sa.JSON(), nullable=False),
        sa.Column("raw_metadata", sa.JSON(), nullable=False),
        sa.Column("latency_s", sa.Float(), nullable=True),
        sa.Column("first_byte_s", sa.Float(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error_kind", _S(length=32), nullable=True),
        sa.Column("error_message", _S(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        *([sa.Column("published_at", sa.DateTime(timezone=True), nullable=True)] if published else []),
        sa.ForeignKeyConstraint(["model_slug"], ["models.slug"]),
        sa.ForeignKeyConstraint(["prompt_id"], ["prompts.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("media_id"),
        *([] if published else [sa.UniqueConstraint("prompt_id", "model_slug", name=_PAIR)]),
    )
    op.execute(f"INSERT INTO outputs ({columns}) SELECT {columns} FROM _outputs_copy")
    op.execute("DROP TABLE _outputs_copy")
    op.create_index("ix_outputs_model_status", "outputs", ["model_slug", "status"], unique=False)


def upgrade() -> None:
    op.add_column("outputs", sa.Column("published_at", sa.DateTime(timezone=True), nullable=True))
    # Every image of a prompt that is not active today may have been shown captioned on a model page.
    op.execute(
        "UPDATE outputs SET published_at = (SELECT COALESCE(prompts.retired_at, CURRENT_TIMESTAMP) "
        "FROM prompts WHERE prompts.id = outputs.prompt_id) "
        "WHERE prompt_id IN (SELECT id FROM prompts WHERE status <> 'active')"
    )
    if op.get_bind().dialect.name == "sqlite":
        _rebuild_sqlite_outputs(published=True)  # SQLite drops a table constraint only by copying the table
    else:
        op.drop_constraint(_PAIR, "outputs", type_="unique")
    op.create_index(
        "uq_outputs_prompt_model_unpublished",
        "outputs",
        ["prompt_id", "model_slug"],
        unique=True,
        sqlite_where=_UNPUBLISHED,
        postgresql_where=_UNPUBLISHED,
    )
    op.create_index("ix_outputs_prompt", "outputs", ["prompt_id", "model_slug"], unique=False)


def downgrade() -> None:
    # Only the latest output per (prompt, model) can keep the old constraint: the earlier ones (published
    # outputs replaced after a restore) block the downgrade rather than being deleted with their votes.
    op.drop_index("ix_outputs_prompt", table_name="outputs")
    op.drop_index("uq_outputs_prompt_model_unpublished", table_name="outputs")
    if op.get_bind().dialect.name == "sqlite":
        _rebuild_sqlite_outputs(published=False)
    else:
        op.create_unique_constraint(_PAIR, "outputs", ["prompt_id", "model_slug"])
        op.drop_column("outputs", "published_at")
