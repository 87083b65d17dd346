"""Test helpers that reach under the API (only to set up positions)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select, update

from app.engine import State, deal, get_variant, parse_card
from app.models import Game


def cards(*codes: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in codes)


def suit_run(suit: str, upto: int) -> tuple[int, ...]:
    return cards(*[f"{r}{suit}" for r in "A23456789TJQK"[:upto]])


def near_won_rank_and_file() -> State:
    """Every card home but QC and KC, which sit on tableau-1 and tableau-0."""
    foundations = tuple(suit_run(s, 13) for s in "CSHDCSHD")
    foundations = (suit_run("C", 11), *foundations[1:])
    tableau = (cards("KC"), cards("QC")) + ((),) * 8
    return _rank_and_file(tableau, foundations)


def stuck_rank_and_file() -> State:
    """Ten single cards with nothing to go on and an empty stock."""
    tableau = tuple(cards(c) for c in ("5C", "5S", "5C", "5S", "9C", "9S", "9C", "9S", "KC", "KS"))
    return _rank_and_file(tableau, ((),) * 8)


def _rank_and_file(
    tableau: tuple[tuple[int, ...], ...], foundations: tuple[tuple[int, ...], ...]
) -> State:
    """A Rank and File position with all cards face up and nothing in stock or waste."""
    return deal(get_variant("rank-and-file"), 1)._replace(
        tableau=tableau,
        hidden=(0,) * 10,
        foundations=foundations,
        stock=(),
        waste=(),
        reserve=(),
        redeals_left=0,
        base_rank=None,
    )


async def put_state(app: FastAPI, game_id: str, state: State) -> None:
    """Replace a game's position in place (a test-only shortcut to a chosen position).
    The version goes up, as with every write of a game: the service counts on it (a
    process's copy of a game is only used where the version is unchanged)."""
    async with app.state.services.database.sessionmaker() as session:
        await session.execute(
            update(Game)
            .where(Game.id == game_id)
            .values(state=state.to_bytes(), status=state.status, version=Game.version + 1)
        )
        await session.commit()


async def stored_state(app: FastAPI, game_id: str) -> State:
    async with app.state.services.database.sessionmaker() as session:
        game = (await session.execute(select(Game).where(Game.id == game_id))).scalar_one()
    return State.from_bytes(game.state)


async def stored_game(app: FastAPI, game_id: str) -> Any:
    async with app.state.services.database.sessionmaker() as session:
        return (await session.execute(select(Game).where(Game.id == game_id))).scalar_one()


async def get_with_sqlite_gone(app: FastAPI, path: Path, url: str) -> httpx.Response:
    """GET `url` from a running `app` whose SQLite file at `path` can no longer be opened
    (a directory stands where it was)."""
    threads_before = set(threading.enumerate())
    await app.state.services.database.engine.dispose()
    path.unlink()
    path.mkdir()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get(url)
    # aiosqlite (0.22) stops a connection that failed to open without waiting for its
    # worker thread, which then reports to this test's event loop: let it, while the
    # loop still runs (else "Event loop is closed" in that thread, now and then).
    for thread in set(threading.enumerate()) - threads_before:
        if thread.name.endswith("(_connection_worker_thread)"):
            await asyncio.to_thread(thread.join, 5)
    return response
