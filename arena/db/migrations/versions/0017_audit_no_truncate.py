"""audit_log refuses TRUNCATE on PostgreSQL too (the row triggers of 0012 refuse UPDATE and DELETE, but TRUNCATE
fires no row trigger); SQLite has no TRUNCATE (its DELETE without WHERE is refused already)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01 22:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log "
            "FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS audit_log_no_truncate ON audit_log")
