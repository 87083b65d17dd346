"""What game records imported at once cost the other players of an instance: the
latency of `GET /health` and of another player's move while `--clients` clients each
import the largest record a client can send (`POST /games {"record"}`: 9,990 moves,
51.5 KB), one after another, for `--seconds`.

    .venv/bin/python bench/imports.py [--clients 8] [--seconds 20] [--database-url URL]

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
    created = await client.post(f"{API}/players", json={"name": "bench"})
    return {"Authorization": f"Bearer {created.json()['token']}"}


async def sample(client: httpx.AsyncClient, until: float, mover: dict[str, str]) -> dict:
    """/health every 20 ms, and a draw in another player's game every 100 ms."""
    health: list[float] = []
    moves: list[float] = []
    game = await client.post(f"{API}/games", json={"variant": "canfield"}, headers=mover)
    url = f"{API}/games/{game.json()['id']}/moves"
    tick = 0
    while time.monotonic() < until:
        started = time.monotonic()
        if tick % 5 == 0:
            answer = await client.post(url, json={"action": "draw"}, headers=mover)
            if answer.status_code == 409:  # stock empty: deal it back
                answer = await client.post(url, json={"action": "redeal"}, headers=mover)
            moves.append(time.monotonic() - started)
        else:
            (await client.get("/health")).raise_for_status()
            health.append(time.monotonic() - started)
        tick += 1
        await asyncio.sleep(max(0.0, 0.02 - (time.monotonic() - started)))
    return {"health": health, "move": moves}


async def importer(base: str, record: str, until: float, took: list[float]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        auth = await player(client)
        while time.monotonic() < until:
            started = time.monotonic()
            answer = await client.post(f"{API}/games", json={"record": record}, headers=auth)
            took.append(time.monotonic() - started)
            if answer.status_code != 201:
                print("import answered", answer.status_code, answer.text[:200], file=sys.stderr)
                await asyncio.sleep(1)


async def run(base: str, clients: int, seconds: float) -> dict[str, object]:
    record = drawing_record()
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        mover = await player(client)
        rest = await sample(client, time.monotonic() + 5, mover)
        took: list[float] = []
        until = time.monotonic() + seconds
        tasks = [asyncio.create_task(importer(base, record, until, took)) for _ in range(clients)]
        await asyncio.sleep(1)  # the imports under way
        busy = await sample(client, until, mover)
        await asyncio.gather(*tasks)
    return {
        "record_bytes": len(record.encode()),
        "rest": {name: summary(values) for name, values in rest.items()},
        "imports": {name: summary(values) for name, values in busy.items()},
        "import": summary(took),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"{platform.node()} {platform.machine()}, commit {commit}, {time.strftime('%F')}")
    with tempfile.TemporaryDirectory() as data:
        url = args.database_url or f"sqlite+aiosqlite:///{Path(data) / 'bench.sqlite3'}"
        server = Server(url, Path(data), **ENV)
        try:
            server.start(timeout=120)
            found = asyncio.run(run(server.base_url, args.clients, args.seconds))
        finally:
            server.kill()
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
