"""Practice games: a game not dealt fresh by the server (a game record played again, a
copy of a game at a position of its line) is practice, never ranked nor counted in the
player's statistics (games.practice); a copy made while its original's deal was secret
keeps it secret (games.deal_secret).

Revision ID: 0012_practice_games
Revises: 0011_deal_difficulty
Create Date: 2026-12-06 21:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_practice_games"
down_revision: str | None = "0011_deal_difficulty"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("practice", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(
            sa.Column("deal_secret", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("deal_secret")
        batch_op.drop_column("practice")
