"""solvable_deals: proven deals for solvable games, derived from the server secret

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "solvable_deals",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("deal", sa.String(length=24), nullable=False),
        sa.Column("positions", sa.Integer(), nullable=False),
        sa.Column("elapsed_ms", sa.Integer(), nullable=False),
        sa.Column("line", sa.JSON(), nullable=False),
        sa.Column("proven_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("dealt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("game_id", sa.String(length=36), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_solvable_deals")),
        sa.UniqueConstraint("variant", "seq", name=op.f("uq_solvable_deals_variant_seq")),
        sa.UniqueConstraint("variant", "deal", name=op.f("uq_solvable_deals_variant_deal")),
    )
    op.create_index(
        op.f("ix_solvable_deals_variant_dealt_at_seq"),
        "solvable_deals",
        ["variant", "dealt_at", "seq"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_solvable_deals_variant_dealt_at_seq"), table_name="solvable_deals")
    op.drop_table("solvable_deals")
