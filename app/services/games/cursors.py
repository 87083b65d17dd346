"""The cursor of `GET /games`: where a page of the player's games ended, as an opaque
URL-safe string of its last game's (created_at, id)."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

from app.errors import GameNotFound, InvalidCursor
from app.models import Game
from app.services.games.presenter import iso
from app.services.games.repository import checked_id


def encode_cursor(game: Game) -> str:
    raw = json.dumps([iso(game.created_at), game.id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The (created_at, id) a page ended at. Only what `encode_cursor` makes is taken:
    an aware time that stays a valid time in UTC (`0001-01-01T00:00:00+01:00` does not,
    and the database would fail on it), and a game id."""
    invalid = InvalidCursor()
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, game_id = json.loads(raw)
        moment = datetime.fromisoformat(created)
        if moment.tzinfo is None or not isinstance(game_id, str):
            raise invalid
        return moment.astimezone(UTC), checked_id(game_id)
    except (ValueError, TypeError, OverflowError) as exc:
        raise invalid from exc
    except GameNotFound as exc:
        raise invalid from exc
