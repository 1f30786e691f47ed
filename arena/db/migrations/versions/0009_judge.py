"""the LLM judge: runs, pairwise verdicts on human-voted matchups, calibration-set scores

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30 15:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table('judge_runs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', S(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('status', S(length=16), nullable=False),
    sa.Column('judge_model', S(length=128), nullable=False),
    sa.Column('params', sa.JSON(), nullable=False),
    sa.Column('rubrics', sa.JSON(), nullable=False),
    sa.Column('message', S(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('judge_verdicts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('modality', S(length=32), nullable=False),
    sa.Column('prompt_id', S(length=80), nullable=False),
    sa.Column('use_case', S(length=64), nullable=False),
    sa.Column('capability', S(length=64), nullable=False),
    sa.Column('model_a', S(length=64), nullable=False),
    sa.Column('model_b', S(length=64), nullable=False),
    sa.Column('output_a_id', sa.Integer(), nullable=False),
    sa.Column('output_b_id', sa.Integer(), nullable=False),
    sa.Column('human_a', sa.Integer(), nullable=False),
    sa.Column('human_b', sa.Integer(), nullable=False),
    sa.Column('human_tie', sa.Integer(), nullable=False),
    sa.Column('human_outcome', sa.Integer(), nullable=False),
    sa.Column('answer_a_left', S(length=8), nullable=True),
    sa.Column('answer_b_left', S(length=8), nullable=True),
    sa.Column('reason_a_left', S(), nullable=False),
    sa.Column('reason_b_left', S(), nullable=False),
    sa.Column('outcome', sa.Integer(), nullable=True),
    sa.Column('position_flip', sa.Boolean(), nullable=False),
    sa.Column('order_dependent', sa.Boolean(), nullable=False),
    sa.Column('unscored_reason', S(), nullable=True),
    sa.Column('rubric_scenario', S(length=64), nullable=False),
    sa.Column('rubric_version', S(length=32), nullable=False),
    sa.Column('rubric_digest', S(length=16), nullable=False),
    sa.Column('judge_model', S(length=128), nullable=False),
    sa.Column('params', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['model_a'], ['models.slug'], ),
    sa.ForeignKeyConstraint(['model_b'], ['models.slug'], ),
    sa.ForeignKeyConstraint(['output_a_id'], ['outputs.id'], ),
    sa.ForeignKeyConstraint(['output_b_id'], ['outputs.id'], ),
    sa.ForeignKeyConstraint(['prompt_id'], ['prompts.id'], ),
    sa.ForeignKeyConstraint(['run_id'], ['judge_runs.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_id', 'output_a_id', 'output_b_id', name='uq_judge_verdict_pair')
    )
    with op.batch_alter_table('judge_verdicts', schema=None) as batch_op:
        batch_op.create_index('ix_judge_verdicts_run_id', ['run_id'], unique=False)
    op.create_table('judge_calibration_scores',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('scenario', S(length=64), nullable=False),
    sa.Column('rubric_version', S(length=32), nullable=False),
    sa.Column('rubric_digest', S(length=16), nullable=False),
    sa.Column('judge_model', S(length=128), nullable=False),
    sa.Column('item_id', S(length=80), nullable=False),
    sa.Column('reference_grade', S(length=8), nullable=False),
    sa.Column('scores', sa.JSON(), nullable=False),
    sa.Column('overall', sa.Float(), nullable=True),
    sa.Column('verdict', S(length=8), nullable=True),
    sa.Column('grade', S(length=8), nullable=True),
    sa.Column('reason', S(), nullable=False),
    sa.Column('unscored_reason', S(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['judge_runs.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('judge_calibration_scores', schema=None) as batch_op:
        batch_op.create_index('ix_judge_calibration_scores_run_id', ['run_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('judge_calibration_scores', schema=None) as batch_op:
        batch_op.drop_index('ix_judge_calibration_scores_run_id')
    op.drop_table('judge_calibration_scores')
    with op.batch_alter_table('judge_verdicts', schema=None) as batch_op:
        batch_op.drop_index('ix_judge_verdicts_run_id')
    op.drop_table('judge_verdicts')
    op.drop_table('judge_runs')
