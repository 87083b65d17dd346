"""Players created per client address and 5-minute slot (player_creations), counted by
every instance together: the per-address bound of POST /players.

Revision ID: 0015_player_creations
Revises: 0014_unranked_reasons
Create Date: 2026-12-07 07:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_player_creations"
down_revision: str | None = "0014_unranked_reasons"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_creations",
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("address", "slot", name=op.f("pk_player_creations")),
    )


def downgrade() -> None:
    op.drop_table("player_creations")
