"""Unranked reasons and revealed lines: a daily game keeps why it lost its rank
(games.unranked_reason), and the layouts the solver showed for a daily deal while its
date was current are kept (revealed_positions), so a win that replays them is not ranked.

Revision ID: 0014_unranked_reasons
Revises: 0013_job_queue
Create Date: 2026-12-07 07:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_unranked_reasons"
down_revision: str | None = "0013_job_queue"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("unranked_reason", sa.String(length=16), nullable=True))
    op.create_table(
        "revealed_positions",
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("slot", sa.String(length=8), nullable=False),
        sa.Column("key", sa.LargeBinary(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(
            "variant", "day", "slot", "key", name=op.f("pk_revealed_positions")
        ),
    )
    op.create_index(op.f("ix_revealed_positions_day"), "revealed_positions", ["day"])


def downgrade() -> None:
    op.drop_index(op.f("ix_revealed_positions_day"), table_name="revealed_positions")
    op.drop_table("revealed_positions")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("unranked_reason")
