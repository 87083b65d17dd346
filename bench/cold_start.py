"""How a fresh deployment with default settings serves players in its first minutes.

    .venv/bin/python bench/cold_start.py [--minutes 10] [--deadline 120] [--analyses 20]
        [--seed 1] [--max-sleep 30] [--idle-wait 900] [--idle-seconds 60]
        [--database-url postgresql+asyncpg://user@host/db] [--web 1] [--workers 0]
        [--env NAME=VALUE ...] [--server-arg ARG ...] [--out cold_start.json] [--keep]

Measured over HTTP only, against real processes. By default (`--web 1 --workers 0`) one
all-in-one server: `python -m app.server` on a free port of 127.0.0.1, in its own process
group, with a fresh temporary DATA_DIR (so a new secret and, by default, an empty SQLite
database) and the default settings: every environment variable that names a setting of
`app.config.Settings` is dropped, and the server runs in the temporary folder, so no
`.env` file is read either. `--database-url` runs it on PostgreSQL instead; the `public`
schema of that database is dropped and made anew first, so the server starts on an
empty database. `--env NAME=VALUE` (repeated) sets a variable of every process's anyway
and `--server-arg` adds an argument to the web servers' command line, for experiments;
the report lists them.

`--web N --workers M` (docs/deploy.md, "Web instances and workers") runs N web servers
and M workers (`python -m app.worker`: no HTTP, it works the job queue) instead, each in
a process group and a temporary folder (its DATA_DIR) of its own, all with one random
SECRET_KEY and the same DATABASE_URL; with M above 0 the web servers run with
`BACKGROUND_WORK=false` (they only queue background jobs). N above 1 or M above 0 takes
`--database-url`. They are spawned all at once; t0 is the moment just before the first
is spawned; every time below is seconds from t0. A web instance is ready when its
`GET /api/v1/health` answers 200 (within 120 s), a worker when its log says
`worker: taking jobs` (within 60 s); when each was is recorded. Players are spread over
the web instances round-robin: each player (below) is bound to one instance, the next
player to the next.

Once every process is ready, three phases run at once:

1. First solvable deal per game: for each of the variants `GET /api/v1/variants` lists,
   a player of its own sends `POST /api/v1/games {"variant", "solvable": true}`, all at
   once, and retries each 503 (or 429) after its `Retry-After`, until a 201 or
   `--deadline` seconds from t0. Per variant: when it was served, the requests, the
   longest request, and every refusal's status, code and `Retry-After`.
2. First deal of each game and rating (easy, medium, hard, expert): one player per
   variant, one loop per rating sending `{"variant", "solvable": true, "difficulty"}`,
   sleeping each refusal's `Retry-After` (at most `--max-sleep`), until a 201 or
   `--minutes` from t0. Per pair: when it was served, and for the last refusal before it
   the `Retry-After` it said against the seconds it really took from that refusal to the
   201; also how many retries sent after a whole `Retry-After` were refused again.
3. Analyses while the pools fill: `--analyses` times, at moments drawn uniformly within
   the first `--minutes` (seeded by `--seed`), a random game of a random variant, up to 3
   random legal moves (the state's `legal_moves`), resigned, then
   `POST /api/v1/games/{id}/analysis` and `GET` of it every 0.2 s: seconds from the POST
   until it visibly started (`done`, or `positions` or `decided` above 0) and until it is
   `done` (at most 300 s of polling each). Median and worst of both. One player per web
   instance, the analyses dealt to them in turn.

Then 4. Idle CPU: from the end of phases 1-3, or from `--minutes` at the latest (an
analysis still running is background work too), `GET /metrics` of every web instance is
read every 0.5 s until, for 10 s in a row, on every one no solver work waits
(`solitaire_solver_queue_depth`, every kind; `solitaire_work_waiting`) and no worker is
busy (`solitaire_solver_workers_busy`, every lane, the background one included;
`solitaire_work_running`), and the shared job queue (read from the first instance, where
it has one) has no job queued or running (`solitaire_jobs_queued`,
`solitaire_jobs_running`, every kind and priority), at most `--idle-wait` s; then, once
phases 1-3 have ended, the CPU time of every process group over `--idle-seconds` (from
/proc, no request sent meanwhile), in CPU seconds per second, all together and per
process (web-1, ..., worker-1, ...), measured whether or not it became idle (the report
says which).

Prints the shape (web N, workers M), a table per phase (with the web instance of each
row's player when there are several) and the machine (cores, load average at start and
end, date, git commit); `--out` also writes everything as JSON. Bounded: each phase
stops by itself (phase 3's last polling ends at most `--minutes` + 300 s from t0, then at
most `--idle-wait` + `--idle-seconds`), and every process group is stopped at the end
(SIGTERM to each process, then SIGKILL to what is left of each group), also on Ctrl-C,
SIGTERM, an error, or any process exiting early. The temporary folder (with the logs:
`server.log` of the one server, `<process>.log` of several) is removed at the end unless
`--keep` is given or something failed, when its path is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Collection, Coroutine
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import httpx
from prometheus_client.parser import text_string_to_metric_families

from app.config import Settings

ROOT = Path(__file__).resolve().parents[1]
API = "/api/v1"
RATINGS = ("easy", "medium", "hard", "expert")
# Any one request: a cold server under load answers slowly, but never this slowly.
REQUEST_TIMEOUT = 60.0
# From spawning the server to its first 200 on /health.
START_TIMEOUT = 120.0
# From spawning a worker to the line it logs once it takes jobs.
WORKER_TIMEOUT = 60.0
WORKER_READY = "worker: taking jobs"
HEALTH_POLL = 0.1
# After an answer that is no answer (a timeout, a dropped connection) or a 5xx without
# a Retry-After: retry after this long.
RETRY_PAUSE = 1.0
MOVES_BEFORE_RESIGNING = 3
ANALYSIS_POLL = 0.2
ANALYSIS_CAP = 300.0
METRICS_POLL = 0.5
IDLE_STREAK = 10.0
STOP_GRACE = 10.0

T = TypeVar("T")


class Failure(Exception):
    """The run cannot go on (the server died, did not start, answered nonsense)."""


# --- the processes


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def setting_names() -> set[str]:
    return {name.upper() for name in Settings.model_fields}


def server_env(
    data_dir: Path,
    database_url: str | None,
    overrides: list[str],
    preset: dict[str, str] | None = None,
) -> dict[str, str]:
    """This environment without any of the app's settings (pydantic-settings reads them
    in any case, so they are dropped in any case), plus DATA_DIR, DATABASE_URL when given,
    the `preset` settings of the deployment's shape, and the `--env` overrides."""
    settings = setting_names()
    env = {name: value for name, value in os.environ.items() if name.upper() not in settings}
    env["DATA_DIR"] = str(data_dir)
    if database_url:
        env["DATABASE_URL"] = database_url
    # This checkout's app, whatever the folder the server runs in.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(preset or {})
    for item in overrides:
        name, _, value = item.partition("=")
        env[name] = value
    return env


async def reset_schema(url: str) -> None:
    """Drop and make anew the `public` schema of the PostgreSQL database at `url`."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            await conn.execute(text("CREATE SCHEMA public"))
    finally:
        await engine.dispose()


class Process:
    """One process of the deployment in a process group of its own (its solver or
    background workers too): a web server (`python -m app.server` on a free port of
    127.0.0.1) or a worker (`python -m app.worker`, no port). Run in `folder`, so no
    `.env` of a checkout is read."""

    def __init__(
        self,
        name: str,
        folder: Path,
        env: dict[str, str],
        log_path: Path,
        server_args: list[str] | None = None,
    ) -> None:
        self.name = name
        self.folder = folder
        self.env = env
        self.log_path = log_path
        self.port = free_port() if server_args is not None else None
        self.url = f"http://127.0.0.1:{self.port}" if self.port else ""
        serve = ["app.server", "--host", "127.0.0.1", "--port", str(self.port)]
        self.command = [
            sys.executable,
            "-m",
            *(["app.worker"] if server_args is None else [*serve, *server_args]),
        ]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def is_web(self) -> bool:
        return self.port is not None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> None:
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                self.command,
                cwd=self.folder,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def exited(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def log_text(self) -> str:
        try:
            return self.log_path.read_bytes().decode(errors="replace")
        except OSError:
            return ""

    def terminate(self) -> None:
        """SIGTERM to the process itself (it stops its workers itself: a SIGTERM to the
        group would kill them under it, and it would log their pool as broken)."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGTERM)

    def wait(self, timeout: float) -> None:
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=max(0.0, timeout))

    def kill_group(self) -> None:
        """SIGKILL to whatever of its process group is left (the group outlives its
        leader while a worker of its is still there)."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.wait(STOP_GRACE)


class Deployment:
    """The processes of one shape: web instances (`web-1`, ...) and workers (`worker-1`,
    ...), spawned all at once."""

    def __init__(self, processes: list[Process], shape: tuple[int, int]) -> None:
        self.processes = processes
        self.shape = shape  # (web instances, workers)
        self.t0 = 0.0
        self.started_at = ""

    @property
    def webs(self) -> list[Process]:
        return [p for p in self.processes if p.is_web]

    @property
    def workers(self) -> list[Process]:
        return [p for p in self.processes if not p.is_web]

    def start(self) -> None:
        self.started_at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        self.t0 = time.monotonic()
        for process in self.processes:
            process.start()

    def exited(self) -> str | None:
        """`<name> exited with <code>` of the first process that exited, if one did."""
        for process in self.processes:
            code = process.exited()
            if code is not None:
                return f"{process.name} exited with {code}"
        return None

    def stop(self) -> None:
        """SIGTERM to every process, STOP_GRACE for them all to end, then SIGKILL to
        what is left of each process group."""
        for process in self.processes:
            process.terminate()
        deadline = time.monotonic() + STOP_GRACE
        for process in self.processes:
            process.wait(deadline - time.monotonic())
        for process in self.processes:
            process.kill_group()


def single(args: argparse.Namespace) -> bool:
    """The shape of one all-in-one server (the default)."""
    return bool(args.web == 1 and args.workers == 0)


def make_deployment(folder: Path, args: argparse.Namespace) -> Deployment:
    """One all-in-one server running in `folder` (its DATA_DIR, so a new secret), or
    `--web` web instances and `--workers` workers, each in a folder of its own (its
    DATA_DIR) in `folder`, sharing one random SECRET_KEY; with workers, the web instances
    run with BACKGROUND_WORK=false."""
    url, shape = args.database_url, (args.web, args.workers)
    if single(args):
        env = server_env(folder, url, args.env)
        web = Process("web-1", folder, env, folder / "server.log", args.server_arg)
        return Deployment([web], shape)
    shared = {"SECRET_KEY": secrets.token_hex(32)}
    web_preset = {**shared, "BACKGROUND_WORK": "false"} if args.workers else shared
    processes = []
    names = [(f"web-{i + 1}", True) for i in range(args.web)]
    names += [(f"worker-{i + 1}", False) for i in range(args.workers)]
    for name, is_web in names:
        own = folder / name
        own.mkdir()
        env = server_env(own, url, args.env, web_preset if is_web else shared)
        server_args = args.server_arg if is_web else None
        processes.append(Process(name, own, env, folder / f"{name}.log", server_args))
    return Deployment(processes, shape)


class Clock:
    def __init__(self, t0: float) -> None:
        self.t0 = t0

    def now(self) -> float:
        """Seconds since t0."""
        return time.monotonic() - self.t0

    async def sleep_until(self, moment: float) -> None:
        await asyncio.sleep(max(0.0, moment - self.now()))


# --- requests


@dataclass
class Instance:
    """A web instance as the players see it."""

    name: str
    http: httpx.AsyncClient


class RoundRobin:
    """Binds each new player to the next web instance: players spread over them all."""

    def __init__(self, instances: list[Instance]) -> None:
        self.instances = instances
        self.count = 0

    def next(self) -> Instance:
        instance = self.instances[self.count % len(self.instances)]
        self.count += 1
        return instance


@dataclass
class Answer:
    status: int | None  # None: no answer (timeout, connection error)
    code: str | None
    retry_after: float | None
    seconds: float
    body: Any = None


def error_code(body: Any) -> str | None:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            return str(error["code"])
        if isinstance(body.get("code"), str):
            return str(body["code"])
    return None


def read_retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None  # an HTTP date: the API says it sends seconds


async def call(
    http: httpx.AsyncClient,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body: dict[str, Any] | None = None,
    timeout: float = REQUEST_TIMEOUT,
    attempts: int = 1,
) -> Answer:
    """One request (tried again, up to `attempts` in all, when no answer came)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = Answer(None, None, None, 0.0)
    for attempt in range(attempts):
        sent = time.perf_counter()
        try:
            response = await http.request(
                method, path, json=body, headers=headers, timeout=max(0.1, timeout)
            )
        except httpx.TimeoutException:
            answer = Answer(None, "timeout", None, time.perf_counter() - sent)
        except httpx.TransportError as exc:
            answer = Answer(None, type(exc).__name__, None, time.perf_counter() - sent)
        else:
            took = time.perf_counter() - sent
            try:
                data: Any = response.json()
            except ValueError:
                data = response.text
            retry = read_retry_after(response.headers.get("Retry-After"))
            return Answer(response.status_code, error_code(data), retry, took, data)
        if attempt + 1 < attempts:
            await asyncio.sleep(RETRY_PAUSE)
    return answer


async def new_player(http: httpx.AsyncClient, name: str) -> str:
    answer = await call(http, "POST", f"{API}/players", body={"name": name}, attempts=3)
    if answer.status != 201 or not isinstance(answer.body, dict):
        raise Failure(f"POST /players answered {answer.status} {answer.code}")
    return str(answer.body["token"])


async def wait_health(http: httpx.AsyncClient, clock: Clock, server: Process) -> float:
    """Seconds from t0 to the first 200 of the web instance's /api/v1/health."""
    while clock.now() < START_TIMEOUT:
        code = server.exited()
        if code is not None:
            raise Failure(f"{server.name} exited with {code} before /health answered")
        answer = await call(http, "GET", f"{API}/health", timeout=2.0)
        if answer.status == 200:
            return clock.now()
        await asyncio.sleep(HEALTH_POLL)
    raise Failure(f"/health of {server.name} did not answer 200 within {START_TIMEOUT:.0f} s")


async def wait_worker(clock: Clock, worker: Process) -> float:
    """Seconds from t0 until the worker's log says it takes jobs."""
    while clock.now() < WORKER_TIMEOUT:
        code = worker.exited()
        if code is not None:
            raise Failure(f"{worker.name} exited with {code} before it took jobs")
        if WORKER_READY in worker.log_text():
            return clock.now()
        await asyncio.sleep(HEALTH_POLL)
    raise Failure(f"{worker.name} did not log {WORKER_READY!r} within {WORKER_TIMEOUT:.0f} s")


def pause_after(answer: Answer) -> float | None:
    """How long to wait before retrying a refused request; None: do not retry."""
    if answer.status is None:
        return RETRY_PAUSE
    if answer.status in (429, 503) or answer.status >= 500:
        return answer.retry_after if answer.retry_after is not None else RETRY_PAUSE
    return None


# --- phase 1: the first solvable deal of each game


@dataclass
class Refusal:
    at_s: float  # when it was sent
    status: int | None
    code: str | None
    retry_after: float | None
    seconds: float  # the request's own duration
    slept: float = 0.0  # how long the loop then waited before its next request


@dataclass
class FirstDeal:
    variant: str
    difficulty: str | None = None
    web: str | None = None  # the web instance its player is bound to
    outcome: str = "not served"  # "served", "not served", or "error <status> <code>"
    served_s: float | None = None  # from t0 to the 201's arrival
    requests: int = 0
    longest_request_s: float = 0.0
    refusals: list[Refusal] = field(default_factory=list)

    @property
    def last_refusal_to_success(self) -> float | None:
        if self.served_s is None or not self.refusals:
            return None
        last = self.refusals[-1]
        return self.served_s - (last.at_s + last.seconds)  # from its arrival

    @property
    def early(self) -> int:
        """Retries sent after a refusal's whole Retry-After that were refused again: the
        Retry-After said too little."""
        return sum(
            1
            for before, after in zip(self.refusals, self.refusals[1:], strict=False)
            if before.retry_after is not None
            and before.slept >= before.retry_after - 0.05
            and after.status in (429, 503)
        )


async def first_deal(
    http: httpx.AsyncClient,
    clock: Clock,
    token: str,
    result: FirstDeal,
    until: float,
    max_sleep: float | None,
) -> None:
    """POST /games solvable (of `result.difficulty`) until a 201 or `until` from t0."""
    body: dict[str, Any] = {"variant": result.variant, "solvable": True}
    if result.difficulty is not None:
        body["difficulty"] = result.difficulty
    while (left := until - clock.now()) > 0:
        sent = clock.now()
        answer = await call(
            http, "POST", f"{API}/games", token=token, body=body, timeout=min(REQUEST_TIMEOUT, left)
        )
        result.requests += 1
        result.longest_request_s = max(result.longest_request_s, answer.seconds)
        if answer.status == 201:
            result.served_s = clock.now()
            result.outcome = "served"
            return
        refusal = Refusal(sent, answer.status, answer.code, answer.retry_after, answer.seconds)
        result.refusals.append(refusal)
        pause = pause_after(answer)
        if pause is None:
            result.outcome = f"error {answer.status} {answer.code}"
            return
        if max_sleep is not None:
            pause = min(pause, max_sleep)
        started = clock.now()
        await asyncio.sleep(max(0.0, min(pause, until - started)))
        refusal.slept = clock.now() - started


async def phase_first_solvable(
    spread: RoundRobin, clock: Clock, results: list[FirstDeal], deadline: float
) -> None:
    """One player per variant; their first requests all at once."""
    bound = [spread.next() for _ in results]
    for result, instance in zip(results, bound, strict=True):
        result.web = instance.name
    tokens = await asyncio.gather(
        *(new_player(i.http, f"first-{r.variant}") for r, i in zip(results, bound, strict=True))
    )
    await asyncio.gather(
        *(
            first_deal(instance.http, clock, token, result, deadline, None)
            for token, result, instance in zip(tokens, results, bound, strict=True)
        )
    )


# --- phase 2: the first deal of each game and rating


async def phase_ratings(
    spread: RoundRobin,
    clock: Clock,
    results: list[FirstDeal],
    until: float,
    max_sleep: float,
) -> None:
    """One player per variant (its four ratings' loops share it)."""
    variants = list(dict.fromkeys(r.variant for r in results))
    bound = {v: spread.next() for v in variants}
    tokens = await asyncio.gather(*(new_player(bound[v].http, f"rated-{v}") for v in variants))
    players = dict(zip(variants, tokens, strict=True))
    for result in results:
        result.web = bound[result.variant].name
    await asyncio.gather(
        *(
            first_deal(bound[r.variant].http, clock, players[r.variant], r, until, max_sleep)
            for r in results
        )
    )


# --- phase 3: analyses while the pools fill


@dataclass
class Analysis:
    index: int
    at_s: float  # the moment drawn, from t0
    variant: str
    web: str | None = None  # the web instance its player is bound to
    game_id: str | None = None
    moves: int = 0
    status: str | None = None  # the game's when its analysis was asked for
    posted_s: float | None = None  # from t0
    post_status: int | None = None
    started_after_s: float | None = None  # from the POST
    running_after_s: float | None = None  # from the POST: first seen `running`
    done_after_s: float | None = None  # from the POST
    state: str | None = None  # the last seen
    positions: int | None = None
    decided: int | None = None
    polls: int = 0
    error: str | None = None


async def play_a_little(
    http: httpx.AsyncClient, token: str, state: dict[str, Any], rng: random.Random
) -> tuple[dict[str, Any], int]:
    """Up to MOVES_BEFORE_RESIGNING random legal moves; the state after them."""
    played = 0
    for _ in range(MOVES_BEFORE_RESIGNING):
        moves = state.get("legal_moves") or []
        if state.get("status") != "playing" or not moves:
            break
        path = f"{API}/games/{state['id']}/moves"
        answer = await call(http, "POST", path, token=token, body=rng.choice(moves))
        if answer.status != 200 or not isinstance(answer.body, dict):
            break  # a move is not what is measured: analyse the game as it is
        state, played = answer.body, played + 1
    return state, played


async def poll_analysis(
    http: httpx.AsyncClient, clock: Clock, token: str, result: Analysis, first: Any
) -> None:
    assert result.posted_s is not None and result.game_id is not None
    path = f"{API}/games/{result.game_id}/analysis"
    body = first
    while True:
        elapsed = clock.now() - result.posted_s
        if isinstance(body, dict):
            result.state = body.get("state")
            result.positions = body.get("positions")
            result.decided = body.get("decided")
            if result.state == "running" and result.running_after_s is None:
                result.running_after_s = elapsed
            started = (
                result.state == "done" or (result.positions or 0) > 0 or (result.decided or 0) > 0
            )
            if started and result.started_after_s is None:
                result.started_after_s = elapsed
            if result.state == "done":
                result.done_after_s = elapsed
                return
        if elapsed >= ANALYSIS_CAP:
            return
        await asyncio.sleep(ANALYSIS_POLL)
        answer = await call(http, "GET", path, token=token, timeout=REQUEST_TIMEOUT)
        result.polls += 1
        body = answer.body if answer.status == 200 else None


async def one_analysis(
    http: httpx.AsyncClient, clock: Clock, token: str, result: Analysis, seed: int
) -> None:
    rng = random.Random(seed)
    await clock.sleep_until(result.at_s)
    games = f"{API}/games"
    created = await call(http, "POST", games, token=token, body={"variant": result.variant})
    if created.status != 201 or not isinstance(created.body, dict):
        result.error = f"POST /games answered {created.status} {created.code}"
        return
    result.game_id = str(created.body["id"])
    state, result.moves = await play_a_little(http, token, created.body, rng)
    result.status = str(state.get("status"))
    if result.status == "playing":
        resigned = await call(http, "POST", f"{games}/{result.game_id}/resign", token=token)
        if resigned.status != 200:
            result.error = f"resign answered {resigned.status} {resigned.code}"
            return
        result.status = "resigned"
    result.posted_s = clock.now()
    posted = await call(http, "POST", f"{games}/{result.game_id}/analysis", token=token)
    result.post_status = posted.status
    if posted.status not in (200, 202):
        result.error = f"POST analysis answered {posted.status} {posted.code}"
        return
    await poll_analysis(http, clock, token, result, posted.body)


def draw_analyses(variants: list[str], count: int, within: float, seed: int) -> list[Analysis]:
    """`count` moments uniform within `within` s from t0, each with a random variant."""
    rng = random.Random(seed)
    moments = sorted(rng.uniform(0.0, within) for _ in range(count))
    return [Analysis(i, at, rng.choice(variants)) for i, at in enumerate(moments)]


async def phase_analyses(
    spread: RoundRobin, clock: Clock, results: list[Analysis], seed: int
) -> None:
    """One player per web instance (one for all on one instance), the analyses dealt to
    them in turn; each analysis's moves from its own seeded generator."""
    if not results:
        return
    bound = [spread.next() for _ in range(min(len(results), len(spread.instances)))]
    tokens = await asyncio.gather(*(new_player(i.http, f"analyses-{i.name}") for i in bound))
    for result in results:
        result.web = bound[result.index % len(bound)].name
    await asyncio.gather(
        *(
            one_analysis(
                bound[r.index % len(bound)].http,
                clock,
                tokens[r.index % len(bound)],
                r,
                seed * 1000 + r.index,
            )
            for r in results
        )
    )


# --- phase 4: idle CPU


# The job queue's gauges: read from the database, the same on every web instance.
QUEUE_GAUGES = ("solitaire_jobs_queued", "solitaire_jobs_running")


def is_process_gauge(name: str) -> bool:
    """The gauges of a process's own solver work waiting and running:
    `solitaire_solver_queue_depth` (by kind), `solitaire_solver_workers_busy` (by lane),
    and, where the server has them, `solitaire_work_waiting` (by kind and priority) and
    `solitaire_work_running` (by kind)."""
    if "solver" not in name and "work_" not in name:
        return False
    return any(word in name for word in ("busy", "queue_depth", "waiting", "running"))


def solver_gauges(text: str) -> tuple[dict[str, float], dict[str, float]]:
    """`name{labels}` -> value of the process's own gauges (`is_process_gauge`) and,
    where the server has them, of the job queue's (QUEUE_GAUGES, by kind and priority)."""
    own, queue = {}, {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            key = f"{sample.name}{{{labels}}}"
            if sample.name in QUEUE_GAUGES:
                queue[key] = sample.value
            elif is_process_gauge(sample.name):
                own[key] = sample.value
    return own, queue


async def scrape(instances: list[Instance]) -> tuple[dict[str, float], str | None]:
    """Every web instance's own gauges (named `<instance> <gauge>` when there are
    several) and the job queue's, from the first instance's `/metrics`; and what went
    wrong, if an instance's `/metrics` did not answer with its own gauges."""
    answers = await asyncio.gather(
        *(call(i.http, "GET", "/metrics", timeout=10.0) for i in instances)
    )
    gauges: dict[str, float] = {}
    errors = []
    for index, (instance, answer) in enumerate(zip(instances, answers, strict=True)):
        own, queue = solver_gauges(answer.body) if isinstance(answer.body, str) else ({}, {})
        if answer.status != 200 or not own:
            errors.append(
                f"/metrics of {instance.name} answered {answer.status}, solver gauges {sorted(own)}"
            )
        prefix = f"{instance.name} " if len(instances) > 1 else ""
        gauges.update({prefix + name: value for name, value in own.items()})
        if index == 0:
            gauges.update(queue)
    return gauges, "; ".join(errors) or None


@dataclass
class Idle:
    waited_from_s: float = 0.0
    idle_from_s: float | None = None  # the start of the quiet streak, from t0
    confirmed_s: float | None = None  # IDLE_STREAK later
    scrapes: int = 0
    last_gauges: dict[str, float] = field(default_factory=dict)
    error: str | None = None


async def wait_idle(instances: list[Instance], clock: Clock, limit: float) -> Idle:
    idle = Idle(waited_from_s=clock.now())
    quiet_since: float | None = None
    while clock.now() - idle.waited_from_s < limit:
        gauges, idle.error = await scrape(instances)
        idle.scrapes += 1
        if idle.error is None:
            idle.last_gauges = gauges
        if idle.error is not None or any(value > 0 for value in gauges.values()):
            quiet_since = None
        elif quiet_since is None:
            quiet_since = clock.now()
        elif clock.now() - quiet_since >= IDLE_STREAK:
            idle.idle_from_s, idle.confirmed_s = quiet_since, clock.now()
            return idle
        await asyncio.sleep(METRICS_POLL)
    return idle


def group_times(pgids: Collection[int]) -> dict[int, dict[int, tuple[str, float]]]:
    """CPU seconds (user + system) of every live process of each process group of
    `pgids`, pgid -> pid -> (name, seconds)."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, dict[int, tuple[str, float]]] = {pgid: {} for pgid in pgids}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        # After the name: state, ppid, pgrp, ..., utime (the 12th), stime (the 13th).
        fields = stat[stat.rindex(")") + 2 :].split()
        group = found.get(int(fields[2]))
        if group is not None:
            group[int(entry.name)] = (name, (int(fields[11]) + int(fields[12])) / tick)
    return found


@dataclass
class GroupCpu:
    """The CPU one process group (one process of the deployment and its workers) used."""

    cpu_seconds: float
    per_second: float
    processes_before: int
    processes_after: int
    per_process: dict[str, float]


@dataclass
class IdleCpu:
    seconds: float  # wall
    cpu_seconds: float  # every process group together
    per_second: float
    processes_before: int
    processes_after: int
    groups: dict[str, GroupCpu]  # by process of the deployment: web-1, ..., worker-1, ...
    gauges_after: dict[str, float]


def group_cpu(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]], wall: float
) -> GroupCpu:
    # A process that started within the window used all its time within it.
    used = {pid: cpu - before.get(pid, (name, 0.0))[1] for pid, (name, cpu) in after.items()}
    total = sum(used.values())
    return GroupCpu(
        cpu_seconds=total,
        per_second=total / wall,
        processes_before=len(before),
        processes_after=len(after),
        per_process={f"{after[pid][0]}[{pid}]": round(s, 3) for pid, s in sorted(used.items())},
    )


async def idle_cpu(instances: list[Instance], processes: list[Process], seconds: float) -> IdleCpu:
    """The CPU the deployment's process groups used over `seconds` of no requests, each
    and together. Processes of a group that exit within the window are lost with what
    they used in it (their parent's cutime would count their whole life, not the
    window's part)."""
    pgids = {process.name: process.pid for process in processes}
    before = group_times(pgids.values())
    started = time.monotonic()
    await asyncio.sleep(seconds)
    after = group_times(pgids.values())
    wall = time.monotonic() - started
    groups = {name: group_cpu(before[pgid], after[pgid], wall) for name, pgid in pgids.items()}
    gauges, _ = await scrape(instances)
    total = sum(group.cpu_seconds for group in groups.values())
    return IdleCpu(
        seconds=wall,
        cpu_seconds=total,
        per_second=total / wall,
        processes_before=sum(group.processes_before for group in groups.values()),
        processes_after=sum(group.processes_after for group in groups.values()),
        groups=groups,
        gauges_after=gauges,
    )


# --- the run


@dataclass
class Report:
    machine: dict[str, Any]
    server: dict[str, Any]
    health_s: float | None = None  # the last web instance's first 200 on /health
    ready_s: dict[str, float] = field(default_factory=dict)  # per process, from t0
    variants: list[str] = field(default_factory=list)
    first_solvable: list[FirstDeal] = field(default_factory=list)
    ratings: list[FirstDeal] = field(default_factory=list)
    analyses: list[Analysis] = field(default_factory=list)
    idle: Idle | None = None
    idle_cpu: IdleCpu | None = None
    failure: str | None = None


async def until_exit(deployment: Deployment) -> None:
    while (exited := deployment.exited()) is None:
        await asyncio.sleep(0.5)
    raise Failure(exited)


async def guarded(deployment: Deployment, work: Coroutine[Any, Any, T]) -> T:
    """`work`, stopped as soon as any process of the deployment exits."""
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(until_exit(deployment))
    try:
        await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            watch.result()  # raises: a process is gone
        return task.result()
    finally:
        for pending in (task, watch):
            pending.cancel()
        await asyncio.gather(task, watch, return_exceptions=True)


async def wait_ready(
    instances: list[Instance], deployment: Deployment, clock: Clock, report: Report
) -> None:
    """Every web instance answering /health, every worker taking jobs, all at once."""
    webs, workers = deployment.webs, deployment.workers
    times = await asyncio.gather(
        *(wait_health(i.http, clock, p) for i, p in zip(instances, webs, strict=True)),
        *(wait_worker(clock, p) for p in workers),
    )
    report.ready_s = {p.name: t for p, t in zip([*webs, *workers], times, strict=True)}
    report.health_s = max(times[: len(webs)])


async def phases(
    instances: list[Instance], clock: Clock, args: argparse.Namespace, report: Report
) -> None:
    """Phases 1-3 at once, then waiting for idleness."""
    listed = await call(instances[0].http, "GET", f"{API}/variants", attempts=3)
    if listed.status != 200 or not isinstance(listed.body, list):
        raise Failure(f"GET /variants answered {listed.status} {listed.code}")
    report.variants = variants = [str(v["id"]) for v in listed.body]
    within = args.minutes * 60.0
    # Filled in place as the phases go: a failure still reports what there was.
    report.first_solvable = [FirstDeal(v) for v in variants]
    report.ratings = [FirstDeal(v, rating) for v in variants for rating in RATINGS]
    report.analyses = draw_analyses(variants, args.analyses, within, args.seed)
    spread = RoundRobin(instances)
    running = asyncio.gather(
        phase_first_solvable(spread, clock, report.first_solvable, args.deadline),
        phase_ratings(spread, clock, report.ratings, within, args.max_sleep),
        phase_analyses(spread, clock, report.analyses, args.seed),
    )
    try:
        # Waiting for idleness starts when phases 1-3 end, or at --minutes; the
        # analyses still being polled then are background work it waits for.
        await asyncio.wait({running}, timeout=max(0.0, within - clock.now()))
        if running.done():
            running.result()
        report.idle = await wait_idle(instances, clock, args.idle_wait)
        await running  # bounded: the last polling ends ANALYSIS_CAP after its POST
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)


async def run(deployment: Deployment, args: argparse.Namespace, report: Report) -> None:
    clock = Clock(deployment.t0)
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=50)
    async with contextlib.AsyncExitStack() as stack:
        instances = [
            Instance(
                p.name,
                await stack.enter_async_context(httpx.AsyncClient(base_url=p.url, limits=limits)),
            )
            for p in deployment.webs
        ]
        await wait_ready(instances, deployment, clock, report)
        await phases(instances, clock, args, report)
        report.idle_cpu = await idle_cpu(instances, deployment.processes, args.idle_seconds)


# --- the summary


def git(*command: str) -> str:
    try:
        done = subprocess.run(
            ["git", *command], cwd=ROOT, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip()


def machine() -> dict[str, Any]:
    return {
        "cpu_count": os.cpu_count(),
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "git_head": git("rev-parse", "--short", "HEAD"),
        # Changes not committed (the benchmark ran on them): tracked files only.
        "git_changed": git("status", "--porcelain", "--untracked-files=no").splitlines(),
    }


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = [headers, ["-" * w for w in widths], *rows]
    return "\n".join(
        "  ".join(str(cell).ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def seconds(value: float | None, none: str = "-") -> str:
    return none if value is None else f"{value:.1f}"


def refusals_in_brief(refusals: list[Refusal]) -> str:
    """`503 no_solvable_deals x4 (Retry-After 10,10,20,20)`, per status and code."""
    groups: dict[tuple[int | None, str | None], list[Refusal]] = {}
    for refusal in refusals:
        groups.setdefault((refusal.status, refusal.code), []).append(refusal)
    parts = []
    for (status, code), same in groups.items():
        said = [seconds(r.retry_after, "none") for r in same]
        shown = ",".join(said if len(said) <= 8 else [*said[:4], "...", *said[-3:]])
        parts.append(f"{status} {code} x{len(same)} (Retry-After {shown})")
    return "; ".join(parts) or "none"


def served(result: FirstDeal) -> str:
    if result.served_s is not None:
        return f"{result.served_s:.1f}"
    return result.outcome


def with_web(
    report: Report, headers: list[str], rows: list[list[str]], webs: list[str | None]
) -> tuple[list[str], list[list[str]]]:
    """The table with a second column, the web instance of each row's player, when
    there are several."""
    if report.server["shape"]["web"] <= 1:
        return headers, rows
    return (
        [headers[0], "web", *headers[1:]],
        [[row[0], web or "", *row[1:]] for row, web in zip(rows, webs, strict=True)],
    )


def print_first_solvable(report: Report, args: argparse.Namespace) -> None:
    print(f"\n1. First solvable deal per game (deadline {args.deadline:.0f} s from t0)")
    rows = [
        [
            r.variant,
            served(r),
            str(r.requests),
            f"{r.longest_request_s:.2f}",
            refusals_in_brief(r.refusals),
        ]
        for r in report.first_solvable
    ]
    headers = ["variant", "served at", "requests", "longest req", "refusals"]
    webs = [r.web for r in report.first_solvable]
    print(table(*with_web(report, headers, rows, webs)))


def print_ratings(report: Report, args: argparse.Namespace) -> None:
    print(
        f"\n2. First deal per game and rating (until {args.minutes:g} min from t0; "
        f"sleeps capped at {args.max_sleep:g} s)"
    )
    rows = [
        [
            r.variant,
            r.difficulty or "",
            served(r),
            str(r.requests),
            seconds(r.refusals[-1].retry_after if r.refusals else None),
            seconds(r.last_refusal_to_success),
            str(r.early),
        ]
        for r in report.ratings
    ]
    headers = ["variant", "rating", "served at", "requests", "last RA", "RA->201", "re-refused"]
    print(table(*with_web(report, headers, rows, [r.web for r in report.ratings])))
    print(
        "   last RA: the Retry-After of the last refusal before the 201; RA->201: seconds "
        "from that refusal to the 201;\n   re-refused: retries sent after a whole "
        "Retry-After that were refused again"
    )


def median_and_worst(values: list[float | None]) -> str:
    """Of the analyses asked for (`values`: None where not reached within the cap)."""
    got = [v for v in values if v is not None]
    total = len(values)
    if not got:
        return f"none of {total}"
    missing = total - len(got)
    worst = f">{ANALYSIS_CAP:.0f}" if missing else f"{max(got):.1f}"
    # Those never reached count as the cap, for the median.
    padded = got + [ANALYSIS_CAP] * missing
    return f"median {statistics.median(padded):.1f} s, worst {worst} s ({len(got)} of {total})"


def print_analyses(report: Report) -> None:
    print(f"\n3. Analyses while the pools fill ({len(report.analyses)})")
    rows = [
        [
            str(a.index),
            f"{a.at_s:.0f}",
            a.variant,
            str(a.moves),
            a.status or "",
            str(a.post_status or ""),
            seconds(a.started_after_s),
            seconds(a.done_after_s, a.state or "-"),
            str(a.positions if a.positions is not None else "-"),
            a.error or "",
        ]
        for a in report.analyses
    ]
    headers = ["#", "at", "variant", "moves", "game", "POST", "started", "done", "positions", ""]
    print(table(*with_web(report, headers, rows, [a.web for a in report.analyses])))
    asked = [a for a in report.analyses if a.post_status in (200, 202)]
    print(f"   started: {median_and_worst([a.started_after_s for a in asked])}")
    print(f"   done:    {median_and_worst([a.done_after_s for a in asked])}")


def nonzero(gauges: dict[str, float]) -> str:
    shown = [
        f"{name.replace('solitaire_', '').replace('solver_', '')}={value:g}"
        for name, value in gauges.items()
        if value > 0
    ]
    return ", ".join(shown) or "all 0"


def shape(report: Report) -> str:
    web, workers = report.server["shape"]["web"], report.server["shape"]["workers"]
    return f"web {web}, workers {workers}"


def print_cpu(report: Report, cpu: IdleCpu) -> None:
    groups = "its process group" if len(cpu.groups) == 1 else "all process groups together"
    print(
        f"   CPU over {cpu.seconds:.1f} s, {groups} ({shape(report)}): "
        f"{cpu.cpu_seconds:.2f} s, {cpu.per_second:.3f} CPU s per s "
        f"({cpu.processes_after} processes)"
    )
    for name, group in cpu.groups.items():
        print(
            f"     {name}: {group.cpu_seconds:.2f} s, {group.per_second:.3f} CPU s per s "
            f"({group.processes_after} processes: {group.per_process})"
        )
    if any(value > 0 for value in cpu.gauges_after.values()):
        print(f"   not idle at the end: {nonzero(cpu.gauges_after)}")


def print_idle(report: Report, args: argparse.Namespace) -> None:
    print("\n4. Idle")
    idle = report.idle
    if idle is None:
        print("   not reached")
    elif idle.idle_from_s is not None:
        print(
            f"   idle (no solver work or job waiting or running, on any instance, for "
            f"{IDLE_STREAK:.0f} s) from {idle.idle_from_s:.1f} s after t0"
        )
    else:
        print(
            f"   never idle within {args.idle_wait:g} s from {idle.waited_from_s:.1f} s; "
            f"last seen: {nonzero(idle.last_gauges)} {idle.error or ''}"
        )
    if report.idle_cpu is not None:
        print_cpu(report, report.idle_cpu)


def print_readiness(report: Report) -> None:
    if report.server["shape"] == {"web": 1, "workers": 0}:
        print(f"/health first answered 200 at {seconds(report.health_s)} s after t0")
        return
    ready = ", ".join(f"{name} {at:.1f}" for name, at in report.ready_s.items()) or "-"
    print(f"ready (web: /health 200, worker: taking jobs), s after t0: {ready}")


def print_summary(report: Report, args: argparse.Namespace) -> None:
    m, s = report.machine, report.server
    print(
        f"machine: {m['cpu_count']} cores, load {m['load_average_start']} at start, "
        f"{m.get('load_average_end')} at end; {m['date']}; git {m['git_head']}"
        + (f" with {len(m['git_changed'])} files changed" if m["git_changed"] else "")
    )
    print(f"shape: {shape(report)} ({s['shape_note']})")
    print(
        f"server: {s['database']}, dropped settings from the environment "
        f"{s['dropped'] or 'none'}, overrides {s['overrides'] or 'none'}; log {s['log']}"
    )
    print_readiness(report)
    if report.first_solvable:
        print_first_solvable(report, args)
    if report.ratings:
        print_ratings(report, args)
    if report.analyses:
        print_analyses(report)
    print_idle(report, args)


def to_json(report: Report) -> dict[str, Any]:
    data = asdict(report)
    for key, results in (("first_solvable", report.first_solvable), ("ratings", report.ratings)):
        for entry, result in zip(data[key], results, strict=True):
            entry["last_refusal_to_success_s"] = result.last_refusal_to_success
            entry["re_refused"] = result.early
    return data


# --- the command line


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="phases 2 and 3 (from t0)")
    parser.add_argument("--deadline", type=float, default=120.0, help="phase 1 (s from t0)")
    parser.add_argument("--analyses", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-sleep", type=float, default=30.0, help="phase 2's longest sleep")
    parser.add_argument("--idle-wait", type=float, default=900.0)
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument("--database-url", help="postgresql+asyncpg://...; its schema is reset")
    parser.add_argument("--web", type=int, default=1, metavar="N", help="web instances")
    parser.add_argument(
        "--workers", type=int, default=0, metavar="M", help="`python -m app.worker` processes"
    )
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG")
    parser.add_argument("--out", type=Path, help="write the report as JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    if args.database_url and not args.database_url.startswith("postgresql"):
        parser.error("--database-url takes a PostgreSQL url (the default is SQLite)")
    if args.web < 1 or args.workers < 0:
        parser.error("--web takes 1 or more, --workers 0 or more")
    if not single(args) and not args.database_url:
        parser.error(
            f"--web {args.web} --workers {args.workers}: more than one process shares one "
            "database, and that takes PostgreSQL: give --database-url postgresql+asyncpg://..."
        )
    for item in args.env:
        if "=" not in item or not item.partition("=")[0]:
            parser.error(f"--env takes NAME=VALUE, not {item!r}")
    if min(args.minutes, args.deadline, args.idle_seconds) <= 0 or args.analyses < 0:
        parser.error("--minutes, --deadline and --idle-seconds must be positive")
    return args


def on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through the finally that kills the processes


def describe(deployment: Deployment, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """The deployment as the report shows it."""
    first = deployment.processes[0]
    if single(args):
        note = "one all-in-one server: web and background work"
    else:
        background = "BACKGROUND_WORK=false" if args.workers else "background work on"
        note = f"web instances with {background}; one random SECRET_KEY shared by all"
    return {
        "shape": {"web": args.web, "workers": args.workers},
        "shape_note": note,
        "processes": {
            p.name: {"command": p.command[1:], "log": str(p.log_path), "url": p.url or None}
            for p in deployment.processes
        },
        "command": first.command[1:],
        "database": "PostgreSQL (schema reset)" if args.database_url else "SQLite (fresh)",
        "dropped": sorted(name for name in os.environ if name.upper() in setting_names()),
        "overrides": args.env,
        "server_args": args.server_arg,
        "log": str(first.log_path) if single(args) else f"{folder}/<process>.log",
    }


def finish(report: Report, args: argparse.Namespace, folder: Path, failed: bool) -> None:
    """Print (and write) the report; remove the temporary folder unless kept."""
    report.machine["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    print_summary(report, args)
    if args.out:
        args.out.write_text(json.dumps(to_json(report), indent=2) + "\n")
        print(f"\nwritten: {args.out}")
    if failed or args.keep:
        print(f"\n{report.failure or 'kept'}: logs {report.server['log']}")
    else:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    args = parse_args()
    signal.signal(signal.SIGTERM, on_sigterm)
    folder = Path(tempfile.mkdtemp(prefix="cold-start-"))
    deployment = make_deployment(folder, args)
    report = Report(machine=machine(), server=describe(deployment, args, folder))
    failed, failed_with = True, 1
    try:
        if args.database_url:
            asyncio.run(asyncio.wait_for(reset_schema(args.database_url), 60.0))
        deployment.start()
        report.server["started_at"] = deployment.started_at
        asyncio.run(guarded(deployment, run(deployment, args, report)))
        failed = False
    except Exception as exc:
        report.failure = f"{type(exc).__name__}: {exc}"
        if not isinstance(exc, Failure):
            traceback.print_exc()
    except KeyboardInterrupt:
        report.failure = "interrupted"
        failed_with = 130
    except SystemExit as stop:  # SIGTERM
        report.failure = "interrupted"
        failed_with = stop.code if isinstance(stop.code, int) else 1
    finally:
        deployment.stop()
        finish(report, args, folder, failed)
    if failed:
        sys.exit(failed_with)


if __name__ == "__main__":
    main()
