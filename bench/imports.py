"""What game records imported at once cost the other players of an instance: the
latency of `GET /health` and of another player's move while `--clients` clients each
import the largest record a client can send (`POST /games {"record"}`: 9,990 moves,
51.5 KB), one after another, for `--seconds`.

    .venv/bin/python bench/imports.py [--clients 8] [--seconds 20] [--database-url URL]
        [--lane-kind process|thread]

Starts a real server (`python -m app.server`, default settings but the background
work, which would share the cores) on a throw-away SQLite database, or on the given
PostgreSQL database (which must exist). Reported: /health and move latency at rest and
during the imports (median, p99, worst), the imports' own time, and the imports done.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.probes.records import drawing_record  # noqa: E402
from tests.probes.server import Server  # noqa: E402

API = "/api/v1"
ENV = {
    "SECRET_KEY": "bench-imports",
    "SOLVABLE_PREPARE_AHEAD": "false",
    "BACKGROUND_WORK": "false",
    "LOG_LEVEL": "WARNING",
}


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "count": len(ordered),
        "median_ms": round(statistics.median(ordered) * 1000, 1),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 1),
        "worst_ms": round(ordered[-1] * 1000, 1),
    }


async def player(client: httpx.AsyncClient) -> dict[str, str]:
    while True:  # a server that fails writes under the load is asked again
        created = await client.post(f"{API}/players", json={"name": "bench"})
        if created.status_code == 201:
            return {"Authorization": f"Bearer {created.json()['token']}"}
        await asyncio.sleep(0.5)


async def sample(
    client: httpx.AsyncClient, until: float, url: str, mover: dict[str, str]
) -> dict[str, list[float]]:
    """/health every 20 ms, and a draw in another player's game every 100 ms; the time of
    every answer, whatever its status (the failed ones counted in `failed`)."""
    health: list[float] = []
    moves: list[float] = []
    failed: list[float] = []
    tick = 0
    while time.monotonic() < until:
        started = time.monotonic()
        try:
            answer = await _one(client, tick, url, mover)
        except httpx.TransportError:  # the connection dropped: counted as failed
            failed.append(0.0)
            continue
        finally:
            (moves if tick % 5 == 0 else health).append(time.monotonic() - started)
            tick += 1
        if answer.status_code >= 500:
            failed.append(float(answer.status_code))
        await asyncio.sleep(max(0.0, 0.02 - (time.monotonic() - started)))
    return {"health": health, "move": moves, "failed": failed}


async def _one(
    client: httpx.AsyncClient, tick: int, url: str, mover: dict[str, str]
) -> httpx.Response:
    """Every fifth, a move in the other player's game; else /health."""
    if tick % 5:
        return await client.get("/health")
    answer = await client.post(url, json={"action": "draw"}, headers=mover)
    if answer.status_code == 422:  # stock empty: deal it back
        answer = await client.post(url, json={"action": "redeal"}, headers=mover)
    return answer


async def importer(
    base: str, record: str, until: float, took: list[float], refused: list[int]
) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        auth = await player(client)
        while time.monotonic() < until:
            started = time.monotonic()
            try:
                answer = await client.post(f"{API}/games", json={"record": record}, headers=auth)
                status = answer.status_code
            except httpx.TransportError:
                status = 0  # the connection dropped
            took.append(time.monotonic() - started)
            if status != 201:
                refused.append(status)
                await asyncio.sleep(1)


async def run(base: str, clients: int, seconds: float) -> dict[str, object]:
    record = drawing_record()
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        mover = await player(client)
        game = await client.post(f"{API}/games", json={"variant": "canfield"}, headers=mover)
        url = f"{API}/games/{game.json()['id']}/moves"
        rest = await sample(client, time.monotonic() + 5, url, mover)
        took: list[float] = []
        refused: list[int] = []
        until = time.monotonic() + seconds
        tasks = [
            asyncio.create_task(importer(base, record, until, took, refused))
            for _ in range(clients)
        ]
        await asyncio.sleep(1)  # the imports under way
        busy = await sample(client, until, url, mover)
        await asyncio.gather(*tasks)
    return {
        "record_bytes": len(record.encode()),
        "rest": {name: summary(values) for name, values in rest.items() if name != "failed"},
        "imports": {name: summary(values) for name, values in busy.items() if name != "failed"},
        "failed_during_imports": {
            str(int(c)): busy["failed"].count(c) for c in set(busy["failed"])
        },
        "imports_done": len(took) - len(refused),
        "imports_refused": {str(c): refused.count(c) for c in set(refused)},
        "import": summary(took),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--database-url", default="")
    parser.add_argument(
        "--lane-kind", default="process", choices=("process", "thread"), help="LANE_KIND"
    )
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"{platform.node()} {platform.machine()}, commit {commit}, {time.strftime('%F')}")
    with tempfile.TemporaryDirectory() as data:
        url = args.database_url or f"sqlite+aiosqlite:///{Path(data) / 'bench.sqlite3'}"
        server = Server(url, Path(data), **ENV, LANE_KIND=args.lane_kind)
        try:
            server.start(timeout=120)
            found = asyncio.run(run(server.base_url, args.clients, args.seconds))
        finally:
            server.kill()
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
