"""Live streams of games (GET /games/{id}/events): how long a change takes to reach a
stream, and what idle streams cost in memory and in CPU, in one run.

- **Delay**: two instances (`python -m app.server`) on one PostgreSQL; `--games` games of
  one player, each followed by a stream on instance B and on instance A. Moves are sent
  through A one after another (a draw, or a legal move where the stock is empty); for
  each, the time from the move's answer reaching the client to its `change` event
  reaching the client, on A's stream (same instance: the local notice) and on B's
  (another instance: PostgreSQL's NOTIFY). B's streams read their game's version only
  every 60 s, so only the notice can be in time. Reported: median and p99 of each.
- **Memory**: one instance on SQLite; `--streams` idle streams opened (spread over
  games, four a game), each read up to its first event; the server's resident memory
  (`VmRSS` of its main process) before and after, and the difference per stream.
- **Idle CPU**: one instance on SQLite (default settings: the watched games' versions
  read every second); the CPU time of its main process (`/proc/<pid>/stat`: user +
  system) over `--idle-seconds` with no stream, then with `--idle-streams` idle streams
  (four a game), in cores; and a game's `GET` (`--gets` of them, one after another) with
  no stream and with the streams open, median and max. With `--baseline REV`, the same
  measures of that commit's tree (`git archive`, with this tree's built native solver),
  the two trees taking turns `--rounds` times in the same run: the medians, and ratios.

    .venv/bin/python bench/streams.py --database-url postgresql+asyncpg://user@host/db \
        [--games 20] [--moves 500] [--streams 1000] [--idle-streams 500] [--baseline REV]
    .venv/bin/python bench/streams.py --parts idle --baseline REV   # no PostgreSQL needed

The PostgreSQL database must exist (the first instance's migrations make the tables).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.api.concurrency_helpers import pick  # noqa: E402  (the probes' own client and server)
from tests.probes.server import ROOT, Server  # noqa: E402

API = "/api/v1"
ENV = {"SECRET_KEY": "bench-streams", "SOLVABLE_PREPARE_AHEAD": "false", "LOG_LEVEL": "WARNING"}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class Follower:
    """One stream: when each version's event arrived (perf_counter)."""

    def __init__(self) -> None:
        self.arrived: dict[int, float] = {}
        self.ready = asyncio.Event()

    async def follow(self, client: httpx.AsyncClient, url: str, auth: dict[str, str]) -> None:
        async with client.stream("GET", url, headers=auth) as response:
            if response.status_code != 200:
                raise SystemExit(f"a stream answered {response.status_code}")
            async for line in response.aiter_lines():
                if line.startswith("id:"):
                    self.arrived[int(line[3:].strip())] = time.perf_counter()
                    self.ready.set()


async def delays(one: Server, other: Server, games: int, moves: int) -> dict[str, list[float]]:
    rng = random.Random(1)
    timeout = httpx.Timeout(60, read=None)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with (
        httpx.AsyncClient(base_url=one.base_url, timeout=timeout) as a,
        httpx.AsyncClient(timeout=timeout, limits=limits) as streams,
    ):
        token = (await a.post(f"{API}/players", json={"name": "bench"})).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        states, followers, tasks = [], [], []
        for index in range(games):
            body = {"variant": "rank-and-file", "deal": 1000 + index}
            state = (await a.post(f"{API}/games", json=body, headers=auth)).json()
            states.append(state)
            pair = {}
            for name, server in (("same", one), ("other", other)):
                follower = Follower()
                url = f"{server.base_url}{API}/games/{state['id']}/events"
                tasks.append(asyncio.create_task(follower.follow(streams, url, auth)))
                pair[name] = follower
            followers.append(pair)
        for pair in followers:
            for follower in pair.values():
                await asyncio.wait_for(follower.ready.wait(), 30)
        found: dict[str, list[float]] = {"same": [], "other": []}
        for turn in range(moves):
            index = turn % games
            move = pick(states[index], rng)
            if move is None:
                continue
            answer = await a.post(
                f"{API}/games/{states[index]['id']}/moves", json=move, headers=auth
            )
            answered = time.perf_counter()
            if answer.status_code != 200:
                raise SystemExit(f"a move answered {answer.status_code}: {answer.text}")
            states[index] = answer.json()
            version = states[index]["version"]
            for name, follower in followers[index].items():
                deadline = time.monotonic() + 10
                while version not in follower.arrived and time.monotonic() < deadline:
                    await asyncio.sleep(0.0005)
                if version not in follower.arrived:
                    raise SystemExit(f"no event for version {version} on the {name} instance")
                # Before the answer (the event came first) counts as no delay.
                found[name].append(max(0.0, follower.arrived[version] - answered))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return found


def resident_kb(server: Server) -> int:
    assert server.process is not None
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1])


async def idle_memory(server: Server, count: int) -> dict[str, float]:
    timeout = httpx.Timeout(60, read=None)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=timeout, limits=limits) as c:
        token = (await c.post(f"{API}/players", json={"name": "idle"})).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        games = []
        for index in range(count // 4):
            body = {"variant": "rank-and-file", "deal": index + 1}
            games.append((await c.post(f"{API}/games", json=body, headers=auth)).json()["id"])
        await asyncio.sleep(1)
        before = resident_kb(server)
        followers = [Follower() for _ in range(count)]
        tasks = [
            asyncio.create_task(f.follow(c, f"{API}/games/{games[i % len(games)]}/events", auth))
            for i, f in enumerate(followers)
        ]
        for follower in followers:
            await asyncio.wait_for(follower.ready.wait(), 60)
        await asyncio.sleep(2)
        after = resident_kb(server)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "before_mb": before / 1024,
        "after_mb": after / 1024,
        "per_stream_kb": (after - before) / count,
    }


class TreeServer(Server):
    """A server of another tree than this one (a baseline commit's)."""

    def __init__(self, root: Path, database_url: str, data_dir: Path, **env: str) -> None:
        super().__init__(database_url, data_dir, **env)
        self.root = root


def baseline_tree(revision: str, into: Path) -> Path:
    """The tree of `revision`, with this tree's built native solver (untracked)."""
    archive = subprocess.run(
        ["git", "archive", revision], cwd=ROOT, capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    for built in (ROOT / "app" / "solver").glob("_core*.so"):
        shutil.copy2(built, into / "app" / "solver" / built.name)
    return into


def cpu_seconds(server: Server) -> float:
    """User + system CPU time of the server's main process so far."""
    assert server.process is not None
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def timed_gets(
    c: httpx.AsyncClient, url: str, auth: dict[str, str], count: int
) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        answer = await c.get(url, headers=auth)
        times.append(time.perf_counter() - started)
        if answer.status_code != 200:
            raise SystemExit(f"a GET answered {answer.status_code}")
        await asyncio.sleep(0.01)
    return times


async def idle_cost(server: Server, count: int, seconds: float, gets: int) -> dict[str, float]:
    timeout = httpx.Timeout(60, read=None)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=timeout, limits=limits) as c:
        token = (await c.post(f"{API}/players", json={"name": "idle"})).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        games = []
        for index in range(max(1, count // 4)):
            body = {"variant": "rank-and-file", "deal": index + 1}
            games.append((await c.post(f"{API}/games", json=body, headers=auth)).json()["id"])
        url = f"{API}/games/{games[0]}"
        await timed_gets(c, url, auth, 20)  # warm
        alone = await timed_gets(c, url, auth, gets)
        await asyncio.sleep(2)
        before = cpu_seconds(server)
        await asyncio.sleep(seconds)
        quiet = cpu_seconds(server) - before
        followers = [Follower() for _ in range(count)]
        tasks = [
            asyncio.create_task(f.follow(c, f"{API}/games/{games[i % len(games)]}/events", auth))
            for i, f in enumerate(followers)
        ]
        for follower in followers:
            await asyncio.wait_for(follower.ready.wait(), 60)
        await asyncio.sleep(3)
        before = cpu_seconds(server)
        await asyncio.sleep(seconds)
        streaming = cpu_seconds(server) - before
        beside = await timed_gets(c, url, auth, gets)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "idle_core": quiet / seconds,
        "streams_core": streaming / seconds,
        "get_median_ms": statistics.median(alone) * 1000,
        "get_max_ms": max(alone) * 1000,
        "get_streams_median_ms": statistics.median(beside) * 1000,
        "get_streams_max_ms": max(beside) * 1000,
    }


def measure_idle(root: Path | None, args: argparse.Namespace) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as data:
        many = str(args.idle_streams + 100)
        env = {
            **ENV,
            "STREAM_MAX_PER_PLAYER": many,
            "STREAM_MAX_PER_INSTANCE": many,
            "MAX_CONNECTIONS": many,
            "BACKGROUND_WORK": "false",
        }
        url = f"sqlite+aiosqlite:///{Path(data) / 'bench.sqlite3'}"
        server = (
            Server(url, Path(data), **env)
            if root is None
            else TreeServer(root, url, Path(data), **env)
        )
        try:
            server.start(timeout=120)
            return asyncio.run(idle_cost(server, args.idle_streams, args.idle_seconds, args.gets))
        finally:
            server.kill()


def idle_line(name: str, count: int, found: dict[str, float]) -> str:
    return (
        f"idle CPU, {name}: {found['idle_core']:.3f} core with no stream, "
        f"{found['streams_core']:.3f} core with {count} idle streams; a game's GET "
        f"{found['get_median_ms']:.1f}/{found['get_max_ms']:.1f} ms (median/max) alone, "
        f"{found['get_streams_median_ms']:.1f}/{found['get_streams_max_ms']:.1f} ms beside them"
    )


def idle_part(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Each tree measured `--rounds` times, the two trees taking turns (the order swapped
    every round, so that neither always runs first): the median of each figure."""
    trees: dict[str, Path | None] = {"this tree": None}
    rounds: dict[str, list[dict[str, float]]] = {"this tree": []}
    with tempfile.TemporaryDirectory() as tree:
        if args.baseline:
            trees[args.baseline] = baseline_tree(args.baseline, Path(tree))
            rounds[args.baseline] = []
        for turn in range(args.rounds):
            for name in list(trees)[:: 1 if turn % 2 == 0 else -1]:
                rounds[name].append(measure_idle(trees[name], args))
                print(idle_line(f"{name} (round {turn + 1})", args.idle_streams, rounds[name][-1]))
    found = {
        name: {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        for name, runs in rounds.items()
    }
    for name, figures in found.items():
        print(idle_line(f"{name}, median of {args.rounds}", args.idle_streams, figures))
    if args.baseline:
        now, then = found["this tree"], found[args.baseline]
        print(
            f"ratios, {args.baseline} / this tree: streams' CPU "
            f"{then['streams_core'] / max(now['streams_core'], 1e-9):.1f}x, GET beside the "
            f"streams median {then['get_streams_median_ms'] / now['get_streams_median_ms']:.1f}x, "
            f"max {then['get_streams_max_ms'] / now['get_streams_max_ms']:.1f}x"
        )
    return found


def summary(values: list[float]) -> str:
    return (
        f"median {statistics.median(values) * 1000:.1f} ms, p99 {percentile(values, 0.99) * 1000:.1f} ms"
        f" ({len(values)} moves)"
    )


def delay_part(args: argparse.Namespace) -> dict[str, str]:
    if not args.database_url:
        raise SystemExit("the delay part needs --database-url (PostgreSQL)")
    with tempfile.TemporaryDirectory() as data:
        env = {**ENV, "STREAM_RESYNC_SECONDS": "60", "STREAM_MAX_PER_PLAYER": str(args.games)}
        servers = [Server(args.database_url, Path(data), **env) for _ in range(2)]
        try:
            for server in servers:
                server.start(timeout=120)
            found = asyncio.run(delays(servers[0], servers[1], args.games, args.moves))
        finally:
            for server in servers:
                server.kill()
    print(f"delay, same instance:    {summary(found['same'])}")
    print(f"delay, another instance: {summary(found['other'])}")
    return {k: summary(v) for k, v in found.items()}


def memory_part(args: argparse.Namespace) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as data:
        many = str(args.streams + 100)
        env = {
            **ENV,
            "STREAM_MAX_PER_PLAYER": many,
            "STREAM_MAX_PER_INSTANCE": many,
            "MAX_CONNECTIONS": many,
        }
        server = Server(f"sqlite+aiosqlite:///{Path(data) / 'bench.sqlite3'}", Path(data), **env)
        try:
            server.start(timeout=120)
            memory = asyncio.run(idle_memory(server, args.streams))
        finally:
            server.kill()
    print(
        f"memory, {args.streams} idle streams: {memory['before_mb']:.1f} MB before, "
        f"{memory['after_mb']:.1f} MB after, {memory['per_stream_kb']:.1f} KB a stream"
    )
    return memory


PARTS = {"delay": delay_part, "memory": memory_part, "idle": idle_part}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="PostgreSQL, for two instances (the delay)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--moves", type=int, default=500)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--idle-streams", type=int, default=500)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--gets", type=int, default=200)
    parser.add_argument("--baseline", help="a commit to measure the idle CPU of beside this tree")
    parser.add_argument("--rounds", type=int, default=2, help="idle measures of each tree")
    parser.add_argument(
        "--parts", default="delay,memory,idle", help="which measures, of: delay, memory, idle"
    )
    args = parser.parse_args()
    parts = [part.strip() for part in args.parts.split(",")]
    if unknown := set(parts) - set(PARTS):
        parser.error(f"no such part: {', '.join(sorted(unknown))}")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"{platform.node()} {platform.processor() or platform.machine()}, commit {commit}")
    found = {part: PARTS[part](args) for part in parts}
    print(json.dumps(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
