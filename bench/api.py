"""Move-request latency of the HTTP service, measured through a real uvicorn on loopback.

Starts `uvicorn app.main:app` on 127.0.0.1 (a free port, a throw-away SQLite file),
registers a player, then plays `--moves` move requests one after another (a legal move
of the current state, a new game when one ends) and reports the median and p99
latency of `POST /api/v1/games/{id}/moves`. Bounded in count and time; stops the
server itself.

    .venv/bin/python bench/api.py [--moves 1000] [--variant rank-and-file] [--write]

`--write` puts the figures under "## HTTP service" in docs/benchmarks.md.
`--database-url` measures against another database (e.g. PostgreSQL).

Move latency while hints run:

    .venv/bin/python bench/api.py --moves 600 --hint-load 2 \
        [--solver-kind process --solver-kind thread] [--hint-deals 9] [--write]

runs a baseline (no hints) and then, for each `--solver-kind` (the server's
`SOLVER_KIND`), the same move loop while N clients ask `POST /api/v1/games/{id}/hint`
again and again on games of deals the solver does not win quickly (rank-and-file deal 9
stays unknown even at 1,000,000 positions), so each hint runs its whole budget.
429 `solver_busy` answers are counted; such a client sleeps for `Retry-After` and goes
on. `--write` then puts the figures under "### Move latency while hints run" at the
end of "## Solver" in docs/benchmarks.md (and leaves "## HTTP service" alone).

A move against a trivial request:

    .venv/bin/python bench/api.py --against-health [--moves 1000] [--hint-load 2] \
        [--server-root before=/path/to/old/checkout --server-root after=.] [--rounds 2]

measures, against one server, `GET /health` (one `SELECT 1` through a session: a
trivial request) and `POST /api/v1/games/{id}/moves` one after the other (a health
request before each move, so both see the same machine), and reports the median and
p99 of each and their ratio; with `--hint-load N`, the same on a second fresh server
while N clients keep the solver pool saturated with hints. `--server-root LABEL=DIR`
(repeatable) runs the servers from other checkouts too (e.g. the code before a change),
in one invocation, so their ratios are comparable; `--rounds` repeats the whole
sequence. `--write` puts the figures under "### Move latency against a trivial request"
in "## HTTP service" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
HEADING = "## HTTP service"
SOLVER_HEADING = "## Solver"
HINT_HEADING = "### Move latency while hints run"
HEALTH_HEADING = "### Move latency against a trivial request"
TIME_LIMIT_S = 300
WIDTH = 90  # docs/benchmarks.md's lines, at most
HINT_WARMUP_S = 60  # the process pool spawns its worker on the first hint


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
    client: httpx.Client,
    moves: int,
    variant: str,
    seed: int,
    per_game: int = 200,
    health: bool = False,
) -> dict[str, Any]:
    """`moves` move requests, one after another; with `health`, a `GET /health` before
    each of them, timed too (the trivial request the moves are compared with)."""
    rng = random.Random(seed)
    token = client.post("/api/v1/players", json={"name": "bench"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    latencies: list[float] = []
    trivial: list[float] = []
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
        if health:
            t0 = time.perf_counter()
            answer = client.get("/health")
            trivial.append((time.perf_counter() - t0) * 1000)
            if answer.status_code != 200:
                raise SystemExit(f"health refused: {answer.status_code} {answer.text}")
        t0 = time.perf_counter()
        response = client.post(f"/api/v1/games/{state['id']}/moves", json=move, headers=auth)
        latencies.append((time.perf_counter() - t0) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"move refused: {response.status_code} {response.text}")
        state = response.json()
    result: dict[str, Any] = {
        "moves": len(latencies),
        "games": games,
        "median_ms": statistics.median(latencies),
        "p99_ms": percentile(latencies, 0.99),
        "mean_ms": statistics.fmean(latencies),
        "max_ms": max(latencies),
    }
    if trivial:
        result["health_median_ms"] = statistics.median(trivial)
        result["health_p99_ms"] = percentile(trivial, 0.99)
    return result


class HintLoad:
    """N client threads asking for hints continuously, each on its own game of a deal
    the solver does not win quickly (a hint there runs out its whole budget)."""

    def __init__(self, base_url: str, clients: int, variant: str, deals: list[int]) -> None:
        self.base_url, self.clients, self.variant, self.deals = base_url, clients, variant, deals
        self.stop = threading.Event()
        self.lock = threading.Lock()
        # (monotonic time of the answer, status, hint result or "", latency ms)
        self.events: list[tuple[float, int, str, float]] = []
        self.threads = [
            threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(clients)
        ]

    def __enter__(self) -> HintLoad:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def _run(self, index: int) -> None:
        with httpx.Client(base_url=self.base_url, timeout=60) as client:
            token = client.post("/api/v1/players", json={"name": f"hint{index}"}).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            deal = self.deals[index % len(self.deals)]
            game = client.post(
                "/api/v1/games", json={"variant": self.variant, "deal": deal}, headers=auth
            ).json()
            while not self.stop.is_set():
                t0 = time.perf_counter()
                try:
                    response = client.post(f"/api/v1/games/{game['id']}/hint", headers=auth)
                except httpx.TransportError:
                    self._record(0, "", t0)
                    self.stop.wait(0.5)
                    continue
                result = response.json().get("result", "") if response.status_code == 200 else ""
                self._record(response.status_code, result, t0)
                if response.status_code == 429:
                    self.stop.wait(float(response.headers.get("Retry-After", "1")))
                elif response.status_code != 200:
                    self.stop.wait(0.5)

    def _record(self, status: int, result: str, t0: float) -> None:
        with self.lock:
            self.events.append(
                (time.monotonic(), status, result, (time.perf_counter() - t0) * 1000)
            )

    def wait_first_answer(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            with self.lock:
                if any(status == 200 for _, status, _, _ in self.events):
                    return
            time.sleep(0.1)
        raise SystemExit("no hint was answered")

    def summary(self, start: float, end: float) -> dict[str, Any]:
        """What the hint clients got back while the moves were measured."""
        with self.lock:
            window = [e for e in self.events if start <= e[0] <= end]
        answered = [e for e in window if e[1] == 200]
        return {
            "window_s": end - start,
            "hints_answered": len(answered),
            "hints_429": sum(e[1] == 429 for e in window),
            "hints_other": sum(e[1] not in (200, 429) for e in window),
            "hint_results": dict(Counter(e[2] for e in answered)),
            "hint_median_ms": statistics.median([e[3] for e in answered]) if answered else 0.0,
        }


def write_section(text: str) -> None:
    """Replace (or add) only our section of docs/benchmarks.md, up to its first subsection
    (those belong to other benchmarks); others own the rest."""
    current = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    lines = current.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == HEADING), None)
    if start is None:
        new = current.rstrip("\n") + "\n\n" + text
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith(("## ", "### "))),
            len(lines),
        )
        rest = "".join(lines[end:])
        new = "".join(lines[:start]) + text + ("\n" + rest if rest else "")
    DOC.write_text(new)


def write_hint_subsection(text: str) -> None:
    """Replace (or add) only our subsection, kept at the end of "## Solver"."""
    write_subsection(SOLVER_HEADING, HINT_HEADING, text)


def write_subsection(parent: str, heading: str, text: str) -> None:
    """Replace (or add, at the end of section `parent`) only subsection `heading`."""
    lines = DOC.read_text().splitlines(keepends=True)
    solver = next(i for i, line in enumerate(lines) if line.strip() == parent)
    section_end = next(
        (i for i in range(solver + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
    )
    start = next((i for i in range(solver, section_end) if lines[i].strip() == heading), None)
    if start is None:
        start = end = section_end
    else:
        # Up to the next heading: a "#### " part under it is written by hand and stays.
        end = next(
            (
                i
                for i in range(start + 1, section_end)
                if lines[i].startswith(("## ", "### ", "#### "))
            ),
            section_end,
        )
    before = "".join(lines[:start]).rstrip("\n") + "\n\n"
    rest = "".join(lines[end:])
    DOC.write_text(before + text + ("\n" + rest if rest else ""))


def commit_of(root: Path) -> str:
    """The short commit checked out at `root` ("" outside a git checkout)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def measured(loads: list[tuple[float, ...]], root: Path | None = ROOT) -> str:
    """A figure's date, commit (of `root`, when given) and the 1-minute load averages seen
    around it, for the line under its table (the machine is said once, atop the page)."""
    commit = commit_of(root) if root is not None else ""
    text = time.strftime("%Y-%m-%d") + (f", at {commit}" if commit else "")
    ones = [load[0] for load in loads]
    if ones:
        low, high = f"{min(ones):.1f}", f"{max(ones):.1f}"
        text += f", load average {low}" + (f"-{high}" if high != low else "")
    return text


def command_line(command: str, when: str) -> str:
    """The line under a table: its command and when (`measured`), wrapped as the page is."""
    return textwrap.fill(f"`{command}`, {when}.", WIDTH, break_on_hyphens=False) + "\n"


def plain_section(rows: list[dict[str, Any]], command: str, per_game: int, when: str) -> str:
    """The "## HTTP service" section: move latency, one row per database."""
    table = "".join(
        f"| {r['database']} | {r['moves']} | {r['median_ms']:.2f} ms | {r['p99_ms']:.2f} ms "
        f"| {r['max_ms']:.2f} ms |\n"
        for r in rows
    )
    return (
        f"{HEADING}\n\n"
        "`bench/api.py` times `POST /api/v1/games/{id}/moves` sent one after another by a client on\n"
        "loopback to one real uvicorn worker, each a legal move of the current state (70%\n"
        f"tableau/foundation moves; a new game when one ends or after {per_game} moves; 50 "
        "warm-up moves\nfirst).\n\n"
        "| database | moves | median | p99 | max |\n"
        "| --- | --- | --- | --- | --- |\n"
        f"{table}\n" + command_line(command, when)
    )


def health_section(rows: list[dict[str, Any]], command: str, moves: int, when: str) -> str:
    """The "### Move latency against a trivial request" subsection."""
    table = "".join(
        f"| {r['round']} | {r['label']} | {r['hint_load']} | "
        f"{r['health_median_ms']:.2f} ms, {r['median_ms']:.2f} ms, "
        f"**x{r['median_ms'] / r['health_median_ms']:.2f}** | "
        f"{r['health_p99_ms']:.2f} ms, {r['p99_ms']:.2f} ms, "
        f"x{r['p99_ms'] / r['health_p99_ms']:.2f} | "
        + (f"{r['hints_answered']} in {r['window_s']:.0f} s |\n" if r["hint_load"] else "- |\n")
        for r in rows
    )
    return (
        f"{HEALTH_HEADING}\n\n"
        "`bench/api.py --against-health`: the move loop above with a `GET /health` (a session and\n"
        f"`SELECT 1`) before each move; a fresh server a row, {moves} moves; hint clients keep "
        "the\nsolver pool saturated meanwhile (`--hint-load`). Ratio: move / health.\n\n"
        "| round | server | hint clients | median: health, move, ratio "
        "| p99: health, move, ratio | hints answered |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        f"{table}\n" + command_line(command, when)
    )


def hint_section(
    rows: list[dict[str, Any]], command: str, variant: str, deals: list[int], when: str
) -> str:
    """The "### Move latency while hints run" subsection (of "## Solver")."""
    base = rows[0]
    table = "".join(
        f"| {r['solver_kind']} | {r['hint_load']} | {r['moves']} | "
        f"{r['median_ms']:.2f} ms (x{r['median_ms'] / base['median_ms']:.1f}) | "
        f"{r['p99_ms']:.2f} ms (x{r['p99_ms'] / base['p99_ms']:.1f}) | "
        + (
            f"{r['hints_answered']} in {r['window_s']:.0f} s | {r['hints_429']} |\n"
            if r["hint_load"]
            else "- | - |\n"
        )
        for r in rows
    )
    what = (
        f'`bench/api.py --hint-load N`: the move loop of "## HTTP service" on {base["database"]} '
        f"while N clients ask for hints on games of {variant} deal "
        f"{', '.join(map(str, deals))}, each running its whole budget, on the default pool of "
        "`SOLVER_KIND`; a fresh server a row; ratios to the baseline."
    )
    return (
        f"{HINT_HEADING}\n\n"
        + textwrap.fill(what, WIDTH, break_on_hyphens=False)
        + "\n\n| pool kind | hint clients | moves | median | p99 | hints answered | 429s |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n"
        f"{table}\n" + command_line(command, when)
    )


def measure(
    args: argparse.Namespace,
    database_url: str,
    solver_kind: str = "",
    hint_load: int = 0,
    root: Path = ROOT,
    health: bool = False,
) -> dict[str, Any]:
    """One uvicorn on a free loopback port, one database; its move latencies, with
    `hint_load` clients asking for hints meanwhile. `root`: the checkout the server runs
    from; `health`: time a `GET /health` before each move too."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "DATA_DIR": tmp,
            "DATABASE_URL": database_url or f"sqlite+aiosqlite:///{tmp}/bench.sqlite3",
            # No background proofs (daily deals, solvable pools) competing for the cores.
            "DAILY_PREPARE_AHEAD": "false",
            "SOLVABLE_PREPARE_AHEAD": "false",
            # The server's code is the checkout's, whatever PYTHONPATH the bench ran with.
            "PYTHONPATH": str(root),
        }
        if solver_kind:
            env["SOLVER_KIND"] = solver_kind
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
            "--ws",
            "none",  # as `python -m app.server`: no WebSocket
        ]
        server = subprocess.Popen(command, cwd=root, env=env)
        try:
            base_url = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=base_url, timeout=60) as client:
                wait_ready(client, time.monotonic() + 60)
                if hint_load:
                    load = HintLoad(base_url, hint_load, args.hint_variant, args.hint_deals)
                    with load:
                        load.wait_first_answer(time.monotonic() + HINT_WARMUP_S)
                        play(client, min(50, args.moves), args.variant, args.seed + 1)
                        start = time.monotonic()
                        result = play(
                            client, args.moves, args.variant, args.seed, args.per_game, health
                        )
                        result.update(load.summary(start, time.monotonic()))
                else:
                    play(client, min(50, args.moves), args.variant, args.seed + 1)  # warm-up
                    result = play(
                        client, args.moves, args.variant, args.seed, args.per_game, health
                    )
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    result["database"] = "PostgreSQL" if database_url.startswith("postgresql") else "SQLite (WAL)"
    result["solver_kind"] = solver_kind or "process"
    result["hint_load"] = hint_load
    result["load_average"] = os.getloadavg()
    return result


def hint_main(args: argparse.Namespace) -> int:
    """Baseline, then each pool kind under `--hint-load` hint clients, in one run."""
    url = args.database_url[0] if args.database_url else ""
    kinds = args.solver_kind or ["process", "thread"]
    load_before = os.getloadavg()
    rows = [measure(args, url, kinds[0], 0)]
    rows += [measure(args, url, kind, n) for n in args.hint_load for kind in kinds]
    base = rows[0]
    for r in rows:
        hints = (
            f"; hints answered {r['hints_answered']} ({r['hint_results']}, median "
            f"{r['hint_median_ms']:.0f} ms), 429s {r['hints_429']}, other {r['hints_other']}"
            if r["hint_load"]
            else ""
        )
        print(
            f"{r['solver_kind']} pool, {r['hint_load']} hint clients: {r['moves']} moves, "
            f"median {r['median_ms']:.2f} ms (x{r['median_ms'] / base['median_ms']:.1f}), "
            f"p99 {r['p99_ms']:.2f} ms (x{r['p99_ms'] / base['p99_ms']:.1f}), "
            f"max {r['max_ms']:.2f} ms{hints}; load average after "
            + ", ".join(f"{x:.2f}" for x in r["load_average"])
        )
    if args.write:
        command = (
            f".venv/bin/python bench/api.py --moves {args.moves} --variant {args.variant} "
            + "".join(f"--hint-load {n} " for n in args.hint_load)
            + f"--hint-deals {','.join(map(str, args.hint_deals))}"
            + "".join(f" --solver-kind {k}" for k in kinds)
            + " --write"
        )
        when = measured([load_before, *(r["load_average"] for r in rows)])
        write_hint_subsection(hint_section(rows, command, args.hint_variant, args.hint_deals, when))
    return 0


def server_root(text: str) -> tuple[str, Path]:
    """`LABEL=DIR` (or `DIR`, labelled by its name): a checkout to run the server from."""
    label, _, path = text.rpartition("=")
    root = Path(path).resolve()
    if not (root / "app" / "main.py").is_file():
        raise argparse.ArgumentTypeError(f"{root} is not a checkout of this service")
    return label or root.name, root


def health_main(args: argparse.Namespace) -> int:
    """Moves against `GET /health` on one server: quiet, then with the solver pool
    saturated (`--hint-load`), for each `--server-root`, `--rounds` times, in one run."""
    url = args.database_url[0] if args.database_url else ""
    kind = (args.solver_kind or ["process"])[0]
    roots = args.server_root or [("this checkout", ROOT)]
    loads = [0, *args.hint_load]
    load_before = os.getloadavg()
    rows = []
    for round_ in range(1, args.rounds + 1):
        for label, root in roots:
            for n in loads:
                r = measure(args, url, kind, n, root=root, health=True)
                r.update(label=label, round=round_)
                rows.append(r)
                print(
                    f"round {round_}, {label}, {n} hint clients: health median "
                    f"{r['health_median_ms']:.2f} ms p99 {r['health_p99_ms']:.2f} ms; move "
                    f"median {r['median_ms']:.2f} ms p99 {r['p99_ms']:.2f} ms; ratio median "
                    f"x{r['median_ms'] / r['health_median_ms']:.2f}, p99 "
                    f"x{r['p99_ms'] / r['health_p99_ms']:.2f}"
                    + (
                        f"; hints answered {r['hints_answered']} in {r['window_s']:.0f} s, "
                        f"429s {r['hints_429']}"
                        if n
                        else ""
                    )
                    + "; load average after "
                    + ", ".join(f"{x:.2f}" for x in r["load_average"]),
                    flush=True,
                )
    if args.write:
        command = (
            f".venv/bin/python bench/api.py --against-health --moves {args.moves} "
            f"--variant {args.variant}"
            + "".join(f" --hint-load {n}" for n in args.hint_load)
            + "".join(f" --server-root {label}=DIR" for label, _ in args.server_root)
            + f" --rounds {args.rounds} --write"
        )
        # The servers' commits, when their checkouts say (a `git archive` tree does not).
        commits = ", ".join(
            f"{label} {commit}" for label, root in roots if (commit := commit_of(root))
        )
        when = measured([load_before, *(r["load_average"] for r in rows)], root=None)
        when += f" (servers: {commits})" if commits else ""
        write_subsection(HEADING, HEALTH_HEADING, health_section(rows, command, args.moves, when))
    return 0


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
    parser.add_argument(
        "--hint-load",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="N clients asking for hints meanwhile (repeatable; runs a baseline first)",
    )
    parser.add_argument(
        "--solver-kind",
        action="append",
        choices=["process", "thread"],
        default=[],
        help="SOLVER_KIND of the server under hint load (repeatable; default both)",
    )
    parser.add_argument("--hint-variant", default="rank-and-file")
    parser.add_argument(
        "--hint-deals",
        type=lambda text: [int(d) for d in text.split(",")],
        default=[9],
        help="deals of the hint games, comma-separated (not won quickly)",
    )
    parser.add_argument(
        "--against-health",
        action="store_true",
        help="time GET /health beside each move and report the ratio",
    )
    parser.add_argument(
        "--server-root",
        type=server_root,
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="with --against-health: run the servers from this checkout (repeatable)",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="with --against-health: repeat the sequence"
    )
    parser.add_argument(
        "--scale",
        action="store_true",
        help="moves per second of many clients for 1, 2, 4 instances on the PostgreSQL of "
        "--database-url and one process on SQLite (bench/scale.py)",
    )
    parser.add_argument("--instances", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    if args.scale:
        import scale  # bench/scale.py, beside this file

        urls = [u for u in args.database_url if u.startswith("postgresql")]
        if not urls:
            parser.error("--scale needs --database-url postgresql+asyncpg://...")
        return scale.run(urls[0], args.instances, args.clients, args.seconds, args.write)
    if args.against_health:
        return health_main(args)
    if args.hint_load:
        return hint_main(args)

    load_before = os.getloadavg()
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
        loads = [load_before, *(r["load_average"] for r in rows)]
        write_section(plain_section(rows, command, args.per_game, measured(loads)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
