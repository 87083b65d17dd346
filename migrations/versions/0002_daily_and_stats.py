"""daily deals, daily games and win times

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 15:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "daily_deals",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("deal", sa.String(length=24), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("positions", sa.Integer(), nullable=False),
        sa.Column("elapsed_ms", sa.Integer(), nullable=False),
        sa.Column("line", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_daily_deals")),
        sa.UniqueConstraint("variant", "day", name=op.f("uq_daily_deals_variant_day")),
    )
    # Batch mode: SQLite can add a unique constraint only by rebuilding the table.
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("daily_date", sa.Date(), nullable=True))
        batch_op.add_column(sa.Column("won_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_unique_constraint(
            batch_op.f("uq_games_player_id_variant_daily_date"),
            ["player_id", "variant", "daily_date"],
        )
        batch_op.create_index(
            batch_op.f("ix_games_variant_daily_date"), ["variant", "daily_date"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_variant_daily_date"))
        batch_op.drop_constraint(
            batch_op.f("uq_games_player_id_variant_daily_date"), type_="unique"
        )
        batch_op.drop_column("won_at")
        batch_op.drop_column("daily_date")
    op.drop_table("daily_deals")
