"""eval harness and judge

Revision ID: 0008
Revises: 0005
Create Date: 2026-11-30 15:09:42.313902
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0008'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    
    op.create_table('eval_runs',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('suite_name', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('suite_path', sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=False),
    sa.Column('suite_sha256', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('workflow', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('out_dir', sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('exit_code', sa.Integer(), nullable=True),
    sa.Column('summary', sa.JSON(), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('judge_cache',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('rubric_version', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('judge_model', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('inputs_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('rubric_id', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('data', sa.JSON(), nullable=True),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('rubric_version', 'judge_model', 'inputs_hash', name='uq_judge_cache_key')
    )
    op.create_table('eval_results',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('case_id', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('run_label', sqlmodel.sql.sqltypes.AutoString(length=256), nullable=False),
    sa.Column('sample', sa.Integer(), nullable=False),
    sa.Column('model_slug', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('params', sa.JSON(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('error', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('artifact_path', sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=False),
    sa.Column('artifact_sha256', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('verdict', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('failure_tags', sa.JSON(), nullable=False),
    sa.Column('latency_s', sa.Float(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['eval_runs.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_id', 'case_id', 'run_label', 'sample', name='uq_eval_results_item')
    )
    with op.batch_alter_table('eval_results', schema=None) as batch_op:
        batch_op.create_index('ix_eval_results_run_verdict', ['run_id', 'verdict'], unique=False)

    op.create_table('eval_anchors',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('workflow', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('grade', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('result_id', sa.Integer(), nullable=True),
    sa.Column('reference_labels', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['result_id'], ['eval_results.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('eval_scores',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('result_id', sa.Integer(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('grader', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('value', sa.Float(), nullable=True),
    sa.Column('passed', sa.Boolean(), nullable=True),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('failure_tags', sa.JSON(), nullable=False),
    sa.Column('details', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['result_id'], ['eval_results.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('result_id', 'key', name='uq_eval_scores_key')
    )
    op.create_table('eval_labels',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('result_id', sa.Integer(), nullable=False),
    sa.Column('anchor_id', sa.Integer(), nullable=True),
    sa.Column('labeller', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('labels', sa.JSON(), nullable=False),
    sa.Column('failure_tags', sa.JSON(), nullable=False),
    sa.Column('note', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['anchor_id'], ['eval_anchors.id'], ),
    sa.ForeignKeyConstraint(['result_id'], ['eval_results.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('eval_labels', schema=None) as batch_op:
        batch_op.create_index('ix_eval_labels_result', ['result_id'], unique=False)

    op.create_table('output_grades',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('output_id', sa.Integer(), nullable=False),
    sa.Column('model_slug', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('prompt_id', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('grader', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('passed', sa.Boolean(), nullable=True),
    sa.Column('value', sa.Float(), nullable=True),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['output_id'], ['outputs.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('output_id', 'grader', name='uq_output_grades_output_grader')
    )
    with op.batch_alter_table('output_grades', schema=None) as batch_op:
        batch_op.create_index('ix_output_grades_grader_model', ['grader', 'model_slug'], unique=False)




def downgrade() -> None:
    
    with op.batch_alter_table('output_grades', schema=None) as batch_op:
        batch_op.drop_index('ix_output_grades_grader_model')

    op.drop_table('output_grades')
    with op.batch_alter_table('eval_labels', schema=None) as batch_op:
        batch_op.drop_index('ix_eval_labels_result')

    op.drop_table('eval_labels')
    op.drop_table('eval_scores')
    op.drop_table('eval_anchors')
    with op.batch_alter_table('eval_results', schema=None) as batch_op:
        batch_op.drop_index('ix_eval_results_run_verdict')

    op.drop_table('eval_results')
    op.drop_table('judge_cache')
    op.drop_table('eval_runs')

