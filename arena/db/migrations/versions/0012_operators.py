"""named operators, console sign-in sessions, and an append-only audit log with source / before / after

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-30 15:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SQLITE_TRIGGERS = [
    "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log "
    "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
    "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log "
    "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
]
_PG_TRIGGERS = [
    "CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$",
    "CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log "
    "FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()",
]


def upgrade() -> None:
    op.create_table('operators',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('role', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('key_id', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(length=256), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_by', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key_id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('operator_sessions',
    sa.Column('id_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('operator_name', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('role', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id_hash')
    )
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.add_column(sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=16), server_default='system', nullable=False))
        batch_op.add_column(sa.Column('target', sqlmodel.sql.sqltypes.AutoString(length=128), server_default='', nullable=False))
        batch_op.add_column(sa.Column('before', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('after', sa.JSON(), nullable=True))
        batch_op.create_index('ix_audit_log_actor', ['actor', 'at'], unique=False)
        batch_op.create_index('ix_audit_log_action', ['action', 'at'], unique=False)
    for statement in _PG_TRIGGERS if op.get_bind().dialect.name == 'postgresql' else _SQLITE_TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log')
        op.execute('DROP FUNCTION IF EXISTS audit_log_append_only()')
    else:
        op.execute('DROP TRIGGER IF EXISTS audit_log_no_update')
        op.execute('DROP TRIGGER IF EXISTS audit_log_no_delete')
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_log_action')
        batch_op.drop_index('ix_audit_log_actor')
        batch_op.drop_column('after')
        batch_op.drop_column('before')
        batch_op.drop_column('target')
        batch_op.drop_column('source')
    op.drop_table('operator_sessions')
    op.drop_table('operators')
