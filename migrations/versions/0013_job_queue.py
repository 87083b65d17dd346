"""One job queue for background work (jobs): daily deals, solvable pools and analyses
are jobs taken by priority, with attempts, leases and timings; the claims it replaces
(work_claims) go.

Revision ID: 0013_job_queue
Revises: 0012_practice_games
Create Date: 2026-12-07 04:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_job_queue"
down_revision: str | None = "0012_practice_games"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subject", sa.String(length=96), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=36), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("run_after", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("kind", "subject", name=op.f("pk_jobs")),
    )
    op.create_index(
        op.f("ix_jobs_state_priority_queued_at"), "jobs", ["state", "priority", "queued_at"]
    )
    # Claims in progress are dropped: their work is queued again by whoever needs it
    # (a daily deal's request, a pool's refill at start-up, an analysis' next request).
    op.drop_table("work_claims")


def downgrade() -> None:
    op.create_table(
        "work_claims",
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subject", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=36), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("kind", "subject", name=op.f("pk_work_claims")),
    )
    op.drop_index(op.f("ix_jobs_state_priority_queued_at"), table_name="jobs")
    op.drop_table("jobs")
