"""Resigned games (a status of the game row: no column) and the analyses of games that
are over, one per game, shared by every instance

Revision ID: 0010_resign_and_analyses
Revises: 0009
Create Date: 2026-12-06 19:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_resign_and_analyses"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_analyses",
        sa.Column("game_id", sa.String(length=36), nullable=False),
        sa.Column("line", sa.String(length=24), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("move_count", sa.Integer(), nullable=False),
        sa.Column("decided", sa.Integer(), nullable=False),
        sa.Column("positions", sa.Integer(), nullable=False),
        sa.Column("plies", sa.JSON(), nullable=True),
        sa.Column("losing_ply", sa.Integer(), nullable=True),
        sa.Column("losing_move", sa.JSON(), nullable=True),
        sa.Column("winning_line", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_analyses_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_analyses")),
    )


def downgrade() -> None:
    op.drop_table("game_analyses")
