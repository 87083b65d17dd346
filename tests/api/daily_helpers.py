"""Shared set-up of the daily and statistics tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import time_machine
from asgi_lifespan import LifespanManager
from fastapi import FastAPI
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import create_async_engine

from app.config import Settings
from app.engine import Move, State, deal, get_variant
from app.engine.moves import MOVE, TABLEAU
from app.models import DailyDeal, Player
from app.services import games
from app.services.daily.deals import utc_today
from app.services.games.service import SAME_LAYOUT
from tests.api.conftest import API, STARTUP_SECONDS

SECRET = "daily-test-secret"
# The app's shutdown waits for a running proof (`WorkPool.close`): up to a candidate's
# `daily_max_seconds` (3 s here) and more on a loaded machine, past asgi-lifespan's 5 s.
SHUTDOWN_SECONDS = 60.0
VARIANT = "rank-and-file"


def daily_settings(database_url: str, tmp_path: Path, **changes: Any) -> Settings:
    """Small solver budgets, solving in a thread (no process start-up per test)."""
    seeds = tmp_path / "seeds"
    seeds.mkdir(exist_ok=True)
    values: dict[str, Any] = {
        "database_url": database_url,
        "data_dir": tmp_path / "data",
        "seeds_dir": seeds,
        "secret_key": SECRET,
        "daily_prepare_ahead": False,
        "daily_workers": 0,
        "daily_max_positions": 5_000,
        "daily_max_seconds": 3.0,
        "daily_max_attempts": 200,
        "daily_wait_seconds": 120.0,
        # Dates a year back are daily deals in these tests, whenever they run.
        "daily_first_date": utc_today() - timedelta(days=365),
        **changes,
    }
    return Settings(**values)


async def empty_daily_deals(database_url: str) -> None:
    # The shared fixtures empty the other tables; stored deals must not leak between tests.
    engine = create_async_engine(database_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(delete(DailyDeal))
    finally:
        await engine.dispose()


@pytest.fixture
async def settings(database_url: str, tmp_path: Path) -> AsyncIterator[Settings]:
    await empty_daily_deals(database_url)
    yield daily_settings(database_url, tmp_path)


@pytest.fixture
def small_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads in tests (no process start-up) and small budgets: every search is short.
    A test module turns it on for all its tests with `pytestmark`."""
    monkeypatch.setenv("SOLVER_KIND", "thread")
    monkeypatch.setenv("HINT_MAX_POSITIONS", "5000")
    monkeypatch.setenv("HINT_MAX_SECONDS", "1.0")


def day(days_ago: int) -> str:
    return (utc_today() - timedelta(days=days_ago)).isoformat()


def today() -> date:
    return utc_today()


def on_date(when: str) -> time_machine.travel:
    """The clock at noon (UTC) of the date `when`, running on: a past date's daily game
    played within this block is played while its date was current (ranked)."""
    noon = datetime.combine(date.fromisoformat(when), time(12), tzinfo=UTC)
    return time_machine.travel(noon, tick=True)


def layout(state: dict[str, Any]) -> list[Any]:
    """What a player sees of a deal: the piles."""
    return state["piles"]


async def start_daily(
    client: httpx.AsyncClient, headers: dict[str, str], when: str, variant: str = VARIANT
) -> httpx.Response:
    return await client.post(f"{API}/daily/{variant}/{when}/game", headers=headers)


async def stored_daily(app: FastAPI, variant: str, when: str, slot: str = "") -> DailyDeal:
    """The stored daily deal of a date (`slot`: "" its first deal, else a rating's)."""
    async with app.state.services.database.sessionmaker() as session:
        row: DailyDeal = (
            await session.execute(
                select(DailyDeal).where(
                    DailyDeal.variant == variant,
                    DailyDeal.day == date.fromisoformat(when),
                    DailyDeal.slot == slot,
                )
            )
        ).scalar_one()
    return row


async def stored_line(app: FastAPI, variant: str, when: str, slot: str = "") -> list[Move]:
    row = await stored_daily(app, variant, when, slot)
    return [Move.from_json(m) for m in row.line]


async def stored_deal_number(app: FastAPI, variant: str, when: str, slot: str = "") -> int:
    return int((await stored_daily(app, variant, when, slot)).deal)


async def player_of(app: FastAPI, headers: dict[str, str]) -> Player:
    from app.services.players import hash_token, player_for_hash

    token = headers["Authorization"].removeprefix("Bearer ")
    async with app.state.services.database.sessionmaker() as session:
        player = await player_for_hash(session, hash_token(token))
    assert player is not None
    return player


def with_detour(start: State, line: list[Move]) -> list[Move]:
    """``line`` with one tableau move and its exact reverse inserted where both are legal:
    the same win in two more moves, whatever the deal and however auto-finish falls."""
    state = start
    for i, move in enumerate(line):
        for there in state.legal_moves():
            src, dst = there.src, there.dst
            if src is None or dst is None or src.kind != TABLEAU or dst.kind != TABLEAU:
                continue
            middle, _ = state.apply(there, auto_finish=False)
            back = Move(MOVE, dst, src, there.count)
            if middle.is_legal(back) and middle.apply(back, auto_finish=False)[0] == state:
                return [*line[:i], there, back, *line[i:]]
        state, _ = state.apply(move, auto_finish=False)
    raise AssertionError("no reversible tableau move anywhere along the line")


# A person's pace: a second a move (the ranking takes a median under 250 ms as a script).
HUMAN_PACE = timedelta(seconds=1)


async def win_with_line(
    app: FastAPI,
    headers: dict[str, str],
    game_id: str,
    variant: str,
    when: str,
    detour: bool = False,
    slot: str = "",
    pace: timedelta | None = HUMAN_PACE,
) -> dict[str, Any]:
    """Play the stored proof through the service's own move path, one move at a time
    `pace` apart (the clock moved on for each: no test waits), as a person plays it;
    `pace` None: all of it in one write (one transaction, one moment). ``detour`` adds a
    move there and back (two more moves)."""
    player = await player_of(app, headers)
    line = await stored_line(app, variant, when, slot)
    if detour:
        number = await stored_deal_number(app, variant, when, slot)
        line = with_detour(deal(get_variant(variant), number), line)
    answer = await play_paced(app, player, game_id, line, pace)
    assert answer.body.status == "won"
    return answer.body.model_dump(mode="json")


async def play_paced(
    app: FastAPI, player: Player, game_id: str, line: list[Move], pace: timedelta | None
) -> games.Answer[Any]:
    """Play `line` on the game, each move of the player's own `pace` after the one before
    it from now (the clock travels there for the move; `pace` None: all the moves at once),
    the draws and redeals after it at the same moment (`_paced`). Once the game is won
    (auto-finish), the rest are left out. The last answer."""
    if pace is None:
        async with app.state.services.database.sessionmaker() as session:
            return await games.apply_moves(session, player, game_id, line)
    start = datetime.now(UTC)
    answer = None
    for i, moves in enumerate(_paced(line), start=1):
        with time_machine.travel(start + i * pace, tick=False):
            async with app.state.services.database.sessionmaker() as session:
                answer = await games.apply_moves(session, player, game_id, moves)
        if answer.body.status == "won":
            break
    assert answer is not None
    return answer


def _paced(line: list[Move]) -> list[list[Move]]:
    """The line in the groups `play_paced` plays at one moment each: a move the pace counts
    (`ranking.pace_ms`: the time since the move before it), with the draws and redeals
    that follow it (not counted). Each counted move is still `pace` after the move before
    it, so the pace is a person's as if each move came alone, in one write for a few."""
    groups: list[list[Move]] = []
    for move in line:
        if groups and move.action in SAME_LAYOUT:
            groups[-1].append(move)
        else:
            groups.append([move])
    return groups


def lifespan(app: FastAPI) -> LifespanManager:
    """The app started and stopped, waiting for its shutdown as long as a proof can run."""
    return LifespanManager(app, startup_timeout=STARTUP_SECONDS, shutdown_timeout=SHUTDOWN_SECONDS)
