"""games.ranked: whether a daily game can still count in the day's ranking; an index on
idempotency_keys (player_id, created_at) for the per-player bound and the expiry.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("ranked", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # Daily games played before the column existed keep the standing they had: an
    # unassisted daily game was ranked.
    op.execute(
        sa.text(
            "UPDATE games SET ranked = :yes WHERE daily_date IS NOT NULL AND assisted = :no"
        ).bindparams(yes=True, no=False)
    )
    op.create_index(
        "ix_idempotency_keys_player_id_created_at",
        "idempotency_keys",
        ["player_id", "created_at"],
    )
    op.create_index("ix_idempotency_keys_created_at", "idempotency_keys", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_idempotency_keys_created_at", table_name="idempotency_keys")
    op.drop_index("ix_idempotency_keys_player_id_created_at", table_name="idempotency_keys")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("ranked")
