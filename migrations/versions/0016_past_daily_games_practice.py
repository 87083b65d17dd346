"""A daily game started once its date was over is practice (games.practice): never
ranked, and not counted in the player's played and won games (docs/decisions/0024).
Such games already stored are marked so: a daily game, not ranked, whose start (UTC)
falls after its date.

Revision ID: 0016_past_daily_practice
Revises: 0015_player_creations
Create Date: 2026-12-07 11:00:00
"""

from collections.abc import Sequence
from datetime import UTC

import sqlalchemy as sa
from alembic import op

revision: str = "0016_past_daily_practice"
down_revision: str | None = "0015_player_creations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

games = sa.table(
    "games",
    sa.column("id", sa.String()),
    sa.column("daily_date", sa.Date()),
    sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("ranked", sa.Boolean()),
    sa.column("practice", sa.Boolean()),
)


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(games.c.id, games.c.daily_date, games.c.created_at).where(
            games.c.daily_date.is_not(None), games.c.ranked.is_(False)
        )
    ).all()
    past = []
    for game_id, day, created in rows:
        # SQLite hands back naive datetimes: every time stored is UTC.
        moment = created.astimezone(UTC) if created.tzinfo else created.replace(tzinfo=UTC)
        if moment.date() > day:
            past.append(game_id)
    for start in range(0, len(past), 500):
        bind.execute(
            sa.update(games).where(games.c.id.in_(past[start : start + 500])).values(practice=True)
        )


def downgrade() -> None:
    # The games were counted before: they are again.
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(games.c.id, games.c.daily_date, games.c.created_at).where(
            games.c.daily_date.is_not(None), games.c.practice.is_(True)
        )
    ).all()
    ids = [game_id for game_id, _day, _created in rows]
    for start in range(0, len(ids), 500):
        bind.execute(
            sa.update(games).where(games.c.id.in_(ids[start : start + 500])).values(practice=False)
        )
