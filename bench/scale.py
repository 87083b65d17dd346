"""Moves per second with many clients on many games, for 1, 2 and 4 instances of the
service on one PostgreSQL, and for one process on SQLite, in one run.

Each configuration starts its instances (`python -m app.server`, as `make run` does, on
free ports of 127.0.0.1, background preparation off, one secret), then `--clients`
clients, each with its own connection and its own game, spread over the instances in
turn, play for `--seconds`: each reads nothing, sends a legal move of the state its last
answer gave (a draw where there is one, else a random legal move; a new game when it
ends). A separate client sends `GET /health` meanwhile, for a trivial request's latency
in the same run. Reported: acknowledged moves per second, the moves' median and p99
latency, and /health's median.

    .venv/bin/python bench/scale.py --database-url postgresql+asyncpg://user@host/db \
        [--instances 1 2 4] [--clients 32] [--seconds 20] [--write]

(or `bench/api.py --scale` with the same options).

The PostgreSQL database must exist (its tables are made by the first instance's
migrations). `--write` puts the table under "### Moves per second with several
instances" in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.api.concurrency_helpers import pick  # noqa: E402  (the probes' own client and server)
from tests.probes.server import Server  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api import command_line, measured  # noqa: E402  (bench/api.py, beside this file)

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
PARENT = "## HTTP service"
HEADING = "### Moves per second with several instances"
API = "/api/v1"


def start_instances(count: int, database_url: str, data_dir: Path) -> list[Server]:
    """`count` instances on one database, each as the probes start one (`python -m
    app.server`, its own process group), started and answering `/health`."""
    env = {
        "SECRET_KEY": "bench-scale",
        "SOLVABLE_PREPARE_AHEAD": "false",
        "LOG_LEVEL": "WARNING",
        # Enough connections for the clients an instance gets (PostgreSQL).
        "DB_POOL_SIZE": "10",
    }
    servers = [Server(database_url, data_dir, **env) for _ in range(count)]
    for server in servers:
        server.start(timeout=120)
    return servers


async def client(url: str, index: int, until: float, latencies: list[float]) -> int:
    rng = random.Random(index)
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        token = (await c.post(f"{API}/players", json={"name": f"c{index}"})).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        acknowledged = 0
        state: dict[str, Any] | None = None
        while time.monotonic() < until:
            move = pick(state, rng) if state else None
            if move is None or state is None or state["move_count"] >= 150:
                body = {"variant": "rank-and-file", "deal": rng.randrange(1, 10**6)}
                state = (await c.post(f"{API}/games", json=body, headers=auth)).json()
                continue
            sent = time.perf_counter()
            answer = await c.post(f"{API}/games/{state['id']}/moves", json=move, headers=auth)
            took = time.perf_counter() - sent
            if answer.status_code != 200:
                raise SystemExit(f"a move answered {answer.status_code}: {answer.text}")
            latencies.append(took)
            acknowledged += 1
            state = answer.json()
        return acknowledged


async def health(url: str, until: float, latencies: list[float]) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        while time.monotonic() < until:
            sent = time.perf_counter()
            await c.get("/health")
            latencies.append(time.perf_counter() - sent)
            await asyncio.sleep(0.02)


async def load(urls: list[str], clients: int, seconds: float) -> dict[str, float]:
    until = time.monotonic() + seconds
    latencies: list[float] = []
    trivial: list[float] = []
    started = time.monotonic()
    counts = await asyncio.gather(
        *(client(urls[i % len(urls)], i, until, latencies) for i in range(clients)),
        health(urls[0], until, trivial),
    )
    elapsed = time.monotonic() - started
    moves = sum(c for c in counts if c is not None)
    ordered = sorted(latencies)
    return {
        "moves_per_s": moves / elapsed,
        "median_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] * 1000,
        "health_ms": statistics.median(trivial) * 1000 if trivial else float("nan"),
        "moves": moves,
    }


def measure(label: str, count: int, url: str, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        started = start_instances(count, url, Path(tmp))
        try:
            figures = asyncio.run(load([s.base_url for s in started], args.clients, args.seconds))
        finally:
            for server in started:
                server.kill()
    print(
        f"{label}: {figures['moves_per_s']:.0f} moves/s, median {figures['median_ms']:.1f} ms, "
        f"p99 {figures['p99_ms']:.1f} ms, /health {figures['health_ms']:.1f} ms",
        flush=True,
    )
    return {"label": label, **figures, "load_average": os.getloadavg()}


def table(rows: list[dict[str, Any]], args: argparse.Namespace, when: str = "") -> str:
    """The subsection's text under its heading: the table, then the command and when."""
    base = rows[0]["moves_per_s"]
    lines = [
        "| configuration | moves/s | against SQLite | move median | move p99 | /health median |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        lines.append(
            f"| {row['label']} | {row['moves_per_s']:.0f} | {row['moves_per_s'] / base:.2f}x "
            f"| {row['median_ms']:.1f} ms | {row['p99_ms']:.1f} ms | {row['health_ms']:.1f} ms |"
        )
    command = (
        f".venv/bin/python bench/scale.py --database-url <PostgreSQL> --instances "
        f"{' '.join(map(str, args.instances))} --clients {args.clients} --seconds {args.seconds:g}"
    )
    note = (
        f"one run, one configuration after the other; the server, PostgreSQL and the "
        f"{args.clients} clients share the machine"
    )
    lines += ["", command_line(command, f"{when}: {note}" if when else note).rstrip("\n")]
    return "\n".join(lines) + "\n"


def write(text: str) -> None:
    doc = DOC.read_text()
    block = f"{HEADING}\n\n{text}\n"
    if HEADING in doc:
        start = doc.index(HEADING)
        rest = doc[start + len(HEADING) :]
        # A hand-written "#### " part under the table stays.
        marks = ("\n## ", "\n### ", "\n#### ")
        ends = [i for i in (rest.find(mark) for mark in marks) if i != -1]
        end = start + len(HEADING) + (min(ends) + 1 if ends else len(rest))
        doc = doc[:start] + block + doc[end:]
    else:
        start = doc.index(PARENT)
        following = doc.find("\n## ", start + len(PARENT))
        at = following + 1 if following != -1 else len(doc)
        doc = doc[:at] + block + ("\n" if following != -1 else "") + doc[at:]
    DOC.write_text(doc)


def run(database_url: str, instances: list[int], clients: int, seconds: float, out: bool) -> int:
    args = argparse.Namespace(instances=instances, clients=clients, seconds=seconds)
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_url = f"sqlite+aiosqlite:///{tmp}/scale.sqlite3"
        rows.append(measure("SQLite, 1 process", 1, sqlite_url, args))
    for count in instances:
        name = f"PostgreSQL, {count} instance{'s' if count > 1 else ''}"
        rows.append(measure(name, count, database_url, args))
    text = table(rows, args, measured([load_before, *(row["load_average"] for row in rows)]))
    print(text)
    if out:
        write(text)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL URL (asyncpg)")
    parser.add_argument("--instances", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    return run(args.database_url, args.instances, args.clients, args.seconds, args.write)


if __name__ == "__main__":
    raise SystemExit(main())
