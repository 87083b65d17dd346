"""Forget the positions proven lost before 487d7f2: drawing three with redeals (Canfield),
the solver's safe moves put the waste's top up, which could hide a winning line, so some
stored `unsolvable` facts may be wrong. Lines (won positions) replay and stay; a lost
position is proven again the next time a hint asks.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03 23:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The key is a digest of the position: the variant cannot be told, so every lost fact
    # goes (they are a cache of searches, cheap to redo).
    op.execute(sa.text("DELETE FROM solver_positions WHERE line_id IS NULL"))


def downgrade() -> None:
    pass  # what was forgotten is not restored
