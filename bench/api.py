"""Move-request latency of the HTTP service, measured through a real uvicorn on loopback.

Starts `uvicorn app.main:app` on 127.0.0.1 (a free port, a throw-away SQLite file),
registers a player, then plays `--moves` move requests one after another (a legal move
of the current state, a new game when one ends) and reports the median and p99
latency of `POST /api/v1/games/{id}/moves`. Bounded in count and time; stops the
server itself.

    .venv/bin/python bench/api.py [--moves 1000] [--variant rank-and-file] [--write]

`--write` puts the figures under "## HTTP service" in docs/benchmarks.md.
`--database-url` measures against another database (e.g. PostgreSQL).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
HEADING = "## HTTP service"
TIME_LIMIT_S = 300


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(client: httpx.Client, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            if client.get("/health").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise SystemExit("the server did not start")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def play(
    client: httpx.Client, moves: int, variant: str, seed: int, per_game: int = 200
) -> dict[str, Any]:
    rng = random.Random(seed)
    token = client.post("/api/v1/players", json={"name": "bench"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    latencies: list[float] = []
    games = 0
    state: dict[str, Any] = {}
    started = time.monotonic()
    while len(latencies) < moves and time.monotonic() - started < TIME_LIMIT_S:
        # Random play can shuffle cards back and forth for ever: start anew now and then.
        ended = not state or state["status"] != "playing" or not state["legal_moves"]
        if ended or state["move_count"] >= per_game:
            state = client.post(
                "/api/v1/games",
                json={"variant": variant, "deal": rng.randrange(1, 1_000_000)},
                headers=auth,
            ).json()
            games += 1
            continue
        candidates = [m for m in state["legal_moves"] if m["action"] == "move"]
        move = rng.choice(candidates) if candidates and rng.random() < 0.7 else None
        move = move or rng.choice(state["legal_moves"])
        t0 = time.perf_counter()
        response = client.post(f"/api/v1/games/{state['id']}/moves", json=move, headers=auth)
        latencies.append((time.perf_counter() - t0) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"move refused: {response.status_code} {response.text}")
        state = response.json()
    return {
        "moves": len(latencies),
        "games": games,
        "median_ms": statistics.median(latencies),
        "p99_ms": percentile(latencies, 0.99),
        "mean_ms": statistics.fmean(latencies),
        "max_ms": max(latencies),
    }


def write_section(text: str) -> None:
    """Replace (or add) only our section of docs/benchmarks.md; others own the rest."""
    current = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    lines = current.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == HEADING), None)
    if start is None:
        new = current.rstrip("\n") + "\n\n" + text
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        rest = "".join(lines[end:])
        new = "".join(lines[:start]) + text + ("\n" + rest if rest else "")
    DOC.write_text(new)


def measure(args: argparse.Namespace, database_url: str) -> dict[str, Any]:
    """One uvicorn on a free loopback port, one database; its move latencies."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "DATA_DIR": tmp,
            "DATABASE_URL": database_url or f"sqlite+aiosqlite:///{tmp}/bench.sqlite3",
        }
        command = [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ]
        server = subprocess.Popen(command, cwd=ROOT, env=env)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
                wait_ready(client, time.monotonic() + 60)
                play(client, min(50, args.moves), args.variant, args.seed + 1)  # warm-up
                result = play(client, args.moves, args.variant, args.seed, args.per_game)
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    result["database"] = "PostgreSQL" if database_url.startswith("postgresql") else "SQLite (WAL)"
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--variant", default="rank-and-file")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-game", type=int, default=200, help="moves before a new game")
    parser.add_argument(
        "--database-url",
        action="append",
        default=[],
        help="database to measure (repeatable); default a throw-away SQLite file",
    )
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()

    rows = []
    for url in args.database_url or [""]:
        result = measure(args, url)
        rows.append(result)
        print(
            f"{result['moves']} move requests over {result['games']} games ({args.variant}, "
            f"{result['database']}): median {result['median_ms']:.2f} ms, "
            f"p99 {result['p99_ms']:.2f} ms, mean {result['mean_ms']:.2f} ms, "
            f"max {result['max_ms']:.2f} ms"
        )
    if args.write:
        command = f".venv/bin/python bench/api.py --moves {args.moves} --variant {args.variant}"
        if any(args.database_url):
            command += " --database-url ''" if "" in args.database_url else ""
            command += " --database-url postgresql+asyncpg://USER@HOST:PORT/DB" * sum(
                url.startswith("postgresql") for url in args.database_url
            )
        table = "".join(
            f"| {r['database']} | {r['moves']} | {r['median_ms']:.2f} ms | "
            f"{r['p99_ms']:.2f} ms | {r['mean_ms']:.2f} ms | {r['max_ms']:.2f} ms |\n"
            for r in rows
        )
        write_section(
            f"{HEADING}\n\n"
            "Latency of `POST /api/v1/games/{id}/moves` measured by a client on loopback\n"
            "against one real uvicorn worker (requests one after another, each a legal\n"
            "move of the current state, 70% tableau/foundation moves; a new game when one\n"
            f"ends or after {args.per_game} moves; 50 warm-up moves first).\n\n"
            "| database | moves | median | p99 | mean | max |\n"
            "| --- | --- | --- | --- | --- | --- |\n"
            f"{table}\n"
            f"Command: `{command}`  \n"
            f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{time.strftime('%Y-%m-%d')}; other work was running on the machine, so\n"
            "these are upper bounds.\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
