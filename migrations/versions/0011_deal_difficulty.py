"""Deal difficulty: the rating of proven deals (solvable pools, daily deals) and of the
games dealt from them; a daily deal per rating (daily_deals.slot, games.daily_slot).

Revision ID: 0011_deal_difficulty
Revises: 0010_resign_and_analyses
Create Date: 2026-12-06 19:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_deal_difficulty"
down_revision: str | None = "0010_resign_and_analyses"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Batch mode: SQLite changes a unique constraint only by rebuilding the table.
    with op.batch_alter_table("solvable_deals", schema=None) as batch_op:
        batch_op.add_column(sa.Column("difficulty", sa.String(length=8), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_solvable_deals_variant_difficulty_dealt_at_seq"),
            ["variant", "difficulty", "dealt_at", "seq"],
            unique=False,
        )
    with op.batch_alter_table("daily_deals", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("slot", sa.String(length=8), server_default="", nullable=False)
        )
        batch_op.add_column(sa.Column("difficulty", sa.String(length=8), nullable=True))
        batch_op.drop_constraint(batch_op.f("uq_daily_deals_variant_day"), type_="unique")
        batch_op.create_unique_constraint(
            batch_op.f("uq_daily_deals_variant_day_slot"), ["variant", "day", "slot"]
        )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("daily_slot", sa.String(length=8), server_default="", nullable=False)
        )
        batch_op.add_column(sa.Column("difficulty", sa.String(length=8), nullable=True))
        batch_op.add_column(
            sa.Column("difficulty_asked", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.drop_constraint(
            batch_op.f("uq_games_player_id_variant_daily_date"), type_="unique"
        )
        batch_op.create_unique_constraint(
            batch_op.f("uq_games_player_id_variant_daily_date_daily_slot"),
            ["player_id", "variant", "daily_date", "daily_slot"],
        )


def downgrade() -> None:
    # The deals of the other ratings go: one daily deal per variant and date again.
    op.execute(sa.text("DELETE FROM games WHERE daily_slot <> ''"))
    op.execute(sa.text("DELETE FROM daily_deals WHERE slot <> ''"))
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("uq_games_player_id_variant_daily_date_daily_slot"), type_="unique"
        )
        batch_op.create_unique_constraint(
            batch_op.f("uq_games_player_id_variant_daily_date"),
            ["player_id", "variant", "daily_date"],
        )
        batch_op.drop_column("difficulty_asked")
        batch_op.drop_column("difficulty")
        batch_op.drop_column("daily_slot")
    with op.batch_alter_table("daily_deals", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_daily_deals_variant_day_slot"), type_="unique")
        batch_op.create_unique_constraint(
            batch_op.f("uq_daily_deals_variant_day"), ["variant", "day"]
        )
        batch_op.drop_column("difficulty")
        batch_op.drop_column("slot")
    with op.batch_alter_table("solvable_deals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_solvable_deals_variant_difficulty_dealt_at_seq"))
        batch_op.drop_column("difficulty")
