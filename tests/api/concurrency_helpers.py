"""Clients that play one game at once, and the check that its move log is what they were told.

Shared by tests/api/test_concurrency.py (in-process ASGI) and tests/probes (a real
uvicorn, and a `kill -9` of it): a client reads the game, picks a draw or a legal
move, sends it (with `expected_version` or not, with an `Idempotency-Key` that it
then retries, or not) and records every move the server acknowledged (a 200 answer)
at the version that answer reported.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

API = "/api/v1"


@dataclass(frozen=True)
class Ack:
    """A move the server answered 200 to, at the version it reported."""

    game_id: str
    version: int
    move: dict[str, Any]


@dataclass
class Tally:
    acks: list[Ack] = field(default_factory=list)
    conflicts: int = 0  # 409 version_conflict (only with expected_version)
    refused: int = 0  # 422: the move picked from a stale read is no longer legal
    replays: int = 0  # retries answered from the stored answer
    lost: int = 0  # no answer (the connection broke: the server was killed)
    finished_games: int = 0

    def add(self, other: Tally) -> None:
        self.acks += other.acks
        self.conflicts += other.conflicts
        self.refused += other.refused
        self.replays += other.replays
        self.lost += other.lost
        self.finished_games += other.finished_games


@dataclass(frozen=True)
class Style:
    """How one client sends its moves."""

    expect_version: bool
    idempotent: bool

    @classmethod
    def of(cls, index: int) -> Style:
        # Half send expected_version; every third uses (and retries) an Idempotency-Key.
        return cls(expect_version=index % 2 == 1, idempotent=index % 3 == 0)


def pick(state: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A draw when there is one (it keeps the game going), else a random legal move."""
    moves: list[dict[str, Any]] = state["legal_moves"]
    if state["status"] != "playing" or not moves:
        return None
    draws = [m for m in moves if m["action"] == "draw"]
    if draws and rng.random() < 0.7:
        return draws[0]
    return rng.choice(moves)


async def play(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    game_id: str,
    *,
    index: int,
    rounds: int | None = None,
    stop: asyncio.Event | None = None,
    on_ack: Callable[[], None] | None = None,
) -> Tally:
    """One client's moves on one game: `rounds` of them, or until `stop` is set, the game
    has no move left, or the connection breaks; `on_ack` is called on each move answered."""
    rng = random.Random(index)
    style = Style.of(index)
    tally = Tally()
    done = 0
    while (rounds is None or done < rounds) and not (stop is not None and stop.is_set()):
        done += 1
        try:
            read = await client.get(f"{API}/games/{game_id}", headers=auth)
            assert read.status_code == 200, read.text
            state = read.json()
            move = pick(state, rng)
            if move is None:
                tally.finished_games += 1
                return tally
            body = {**move, "expected_version": state["version"]} if style.expect_version else move
            headers = dict(auth)
            if style.idempotent:
                headers["Idempotency-Key"] = f"client-{index}-{done}"
            answer = await client.post(f"{API}/games/{game_id}/moves", json=body, headers=headers)
        except httpx.TransportError:
            tally.lost += 1
            return tally
        if answer.status_code == 200:
            version = answer.json()["version"]
            tally.acks.append(Ack(game_id, version, move))
            if on_ack is not None:
                on_ack()
            if style.idempotent:
                try:
                    retry = await client.post(
                        f"{API}/games/{game_id}/moves", json=body, headers=headers
                    )
                except httpx.TransportError:
                    tally.lost += 1
                    return tally
                assert retry.status_code == 200, retry.text
                assert retry.headers.get("Idempotent-Replayed") == "true"
                assert retry.json()["version"] == version
                tally.replays += 1
        elif answer.status_code == 409:
            assert style.expect_version, f"409 without expected_version: {answer.text}"
            assert answer.json()["error"]["code"] == "version_conflict", answer.text
            tally.conflicts += 1
        elif answer.status_code == 422:
            assert answer.json()["error"]["code"] == "illegal_move", answer.text
            tally.refused += 1
        else:
            raise AssertionError(f"unexpected answer {answer.status_code}: {answer.text}")
    return tally


def check_log(items: list[dict[str, Any]], acks: list[Ack], *, unacknowledged: int = 0) -> int:
    """The log is a contiguous line (seq 1..n, versions rising) holding every acknowledged
    move once, at the version its answer reported; at most `unacknowledged` other moves
    (sent, committed, but the answer was lost) may be in it. Returns how many there are."""
    assert [e["seq"] for e in items] == list(range(1, len(items) + 1))
    versions = [e["version"] for e in items]
    assert versions == sorted(set(versions)), versions
    by_version = {e["version"]: e["move"] for e in items}
    acked = {a.version: a.move for a in acks}
    assert len(acked) == len(acks), "two acknowledged moves reported one version"
    missing = {v: m for v, m in acked.items() if by_version.get(v) != m}
    assert not missing, f"acknowledged moves not in the log at their version: {missing}"
    extra = len(items) - len(acked)
    assert extra <= unacknowledged, f"{extra} moves in the log that no answer acknowledged"
    return extra
