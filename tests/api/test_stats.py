"""Player statistics from won, lost and daily games."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.engine import VARIANTS
from app.services.stats import streaks
from tests.api.conftest import API, NewGame, NewPlayer, assert_error
from tests.api.daily_helpers import (
    VARIANT,
    daily_settings,
    day,
    empty_daily_deals,
    on_date,
    start_daily,
    win_with_line,
)
from tests.api.helpers import near_won_rank_and_file, put_state, stuck_rank_and_file


@pytest.fixture
async def settings(database_url: str, tmp_path: Path) -> AsyncIterator[Settings]:
    await empty_daily_deals(database_url)
    yield daily_settings(database_url, tmp_path)


D = date(2026, 3, 10)


def _days(*offsets: int) -> set[date]:
    return {D - timedelta(days=o) for o in offsets}


@pytest.mark.parametrize(
    ("won", "expected"),
    [
        (set(), (0, 0)),
        (_days(0), (1, 1)),
        (_days(0, 1, 2), (3, 3)),
        # Today's not won yet: the run up to yesterday still counts.
        (_days(1, 2), (2, 2)),
        (_days(2, 3), (0, 2)),
        (_days(0, 2, 3, 4, 7), (1, 3)),
    ],
)
def test_streaks(won: set[date], expected: tuple[int, int]) -> None:
    assert streaks(won, D) == expected


async def test_stats_count_won_lost_and_daily_games(
    client: httpx.AsyncClient,
    app: FastAPI,
    auth: dict[str, str],
    new_game: NewGame,
    new_player: NewPlayer,
) -> None:
    empty = (await client.get(f"{API}/players/me/stats", headers=auth)).json()
    assert [v["variant"] for v in empty["variants"]] == list(VARIANTS)
    assert all(v["played"] == 0 and v["win_rate"] is None for v in empty["variants"])

    # An ordinary game won by a move (from a near-won position), one stuck, one playing.
    won = await new_game(deal=7)
    await put_state(app, won["id"], near_won_rank_and_file())
    move = {"action": "move", "from": "tableau-1", "to": "foundation-0"}
    answer = await client.post(f"{API}/games/{won['id']}/moves", json=move, headers=auth)
    assert answer.json()["status"] == "won"
    stuck = await new_game(deal=8)
    await put_state(app, stuck["id"], stuck_rank_and_file())
    await new_game(variant="rainbow")
    # Daily games: won today, yesterday and four days ago; lost (left unplayed) two days ago.
    for days_ago in (0, 1, 4):
        when = day(days_ago)  # before the clock goes back to it
        with on_date(when):
            game = (await start_daily(client, auth, when)).json()
            body = await win_with_line(app, auth, game["id"], VARIANT, when)
        # The number stays secret while the date is current, even once won.
        assert body["deal"] is None and body["ranked"] is True
    await start_daily(client, auth, day(2))
    # Someone else's games never count.
    other = await new_player("bob")
    await start_daily(client, other, day(2))

    response = await client.get(f"{API}/players/me/stats", headers=auth)
    assert response.status_code == 200
    stats = {v["variant"]: v for v in response.json()["variants"]}
    # Two days ago's game, started once its date was over, is practice: it counts in
    # daily_played only.
    assert stats[VARIANT] == {
        "variant": VARIANT,
        "played": 5,
        "won": 4,
        "win_rate": round(4 / 5, 4),
        "daily_played": 4,
        "daily_wins": 3,
        "daily_streak": 2,
        "longest_daily_streak": 2,
    }
    assert stats["rainbow"]["played"] == 1 and stats["rainbow"]["win_rate"] == 0.0
    assert stats["rows-of-four"]["played"] == 0
    bob = (await client.get(f"{API}/players/me/stats", headers=other)).json()
    assert {v["variant"]: v for v in bob["variants"]}[VARIANT]["daily_played"] == 1


async def test_stats_need_a_token(client: httpx.AsyncClient) -> None:
    assert_error(await client.get(f"{API}/players/me/stats"), 401, "unauthorized")
