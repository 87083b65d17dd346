"""Forget the positions proven lost before the obligations' fix for runs round the whole
cycle (Rainbow, Canfield: a split whose next move takes the rest of the pile onto the
split-off cards was never paired, so a won position could be proven lost). Lines (won
positions) replay and stay; a lost position is proven again the next time a hint asks,
and a game's `lost_at` mark, which rests on such a proof, is cleared.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The key is a digest of the position: the variant cannot be told, so every lost fact
    # goes (they are a cache of searches, cheap to redo).
    op.execute(sa.text("DELETE FROM solver_positions WHERE line_id IS NULL"))
    op.execute(sa.text("UPDATE games SET lost_at = NULL WHERE lost_at IS NOT NULL"))


def downgrade() -> None:
    pass  # what was forgotten is not restored
