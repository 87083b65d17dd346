"""games.lost_at: a game's line of play proven lost from this move on

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03 22:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Existing games: nothing known (a later hint proves it again where it is lost).
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("lost_at", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("lost_at")
