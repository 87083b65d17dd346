"""Fairness of the solver between players, through a real server.

Starts `python -m app.server` on 127.0.0.1 (a free port, a fresh SQLite file in a
temporary directory, no background preparation, the default pool: one worker, a queue
of two), then for `--seconds`:

- player A loops `POST /api/v1/games/{id}/finish` from three clients on one game of a
  deal whose finish runs out its whole budget (Rainbow deal 5: unknown after 1,000,000
  positions, about 17 s here). A is a hostile client: it ignores `Retry-After` (half a
  second after a 429, then again);
- player B asks `POST /api/v1/games/{id}/hint` once a second, each time on a game of its
  own freshly dealt, so that every hint searches (a hint along a line already found, or
  on a position remembered unknown, answers without a worker): the Rank and File deals
  left unknown at 1,000,000 positions (research/results.sqlite, the rows of
  rank-and-file-1m-native.jsonl) and
  not among the proven ones of seeds/, whose hints run out their whole budget.

Reports the share of B's hints answered 200 (target at least 90%), their median and
worst latency (target: median under 1 s), their results, and A's answers
counted by status and code. A warm-up first (a hint of B beside one of a third player,
not counted) starts the worker processes. Bounded in time; stops the server itself.

    .venv/bin/python bench/fairness.py [--seconds 30] \\
        [--server-root before=/path/to/old/checkout --server-root after=.] [--write]

`--server-root LABEL=DIR` (repeatable) runs the server from another checkout (e.g. the
code before a change), one after the other; `--env LABEL:NAME=VALUE` (repeatable) sets a
setting for the run of that label (e.g. `SOLVER_UNKNOWN_TTL_SECONDS=0`: A's finish then
searches all the window long, and B's hints run beside it). `--write` puts the figures under
"### Fairness between players" at the end of "## Solver" in
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api import (  # bench/api.py, beside this file
    WIDTH,
    command_line,
    free_port,
    measured,
    percentile,
    server_root,
    wait_ready,
    write_subsection,
)  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOLVER_HEADING = "## Solver"
HEADING = "### Fairness between players"
FINISH_GAME = ("rainbow", [5])  # finish: unknown after its whole budget
# Hints: unknown within theirs (and within 1,000,000 positions; not in seeds/).
HINT_GAME = (
    "rank-and-file",
    [9, 31, 34, 39, 58, 77, 96, 105, 115, 123, 124, 129, 175, 183, 192, 210, 214, 243]
    + [244, 255, 268, 302, 320, 361, 425, 450, 454, 474, 484, 532, 547, 577, 590, 641]
    + [642, 645, 669, 710, 714, 722, 731, 745, 808, 881, 914, 947, 972, 973, 990],
)
A_CLIENTS = 3
WARMUP_S = 60  # the worker processes start on the first searches
STOP_S = 30  # after the window: answers still on their way


class Player:
    """One player's token and game, on a server."""

    def __init__(self, client: httpx.Client, name: str, game: tuple[str, list[int]]) -> None:
        token = client.post("/api/v1/players", json={"name": name}).json()["token"]
        self.auth = {"Authorization": f"Bearer {token}"}
        self.variant, self.deals = game[0], list(game[1])
        self.game_id = self.new_game(client)

    def new_game(self, client: httpx.Client) -> str:
        """A game of the next deal (round again past the last)."""
        deal = self.deals.pop(0)
        self.deals.append(deal)
        body = {"variant": self.variant, "deal": deal}
        answer = client.post("/api/v1/games", json=body, headers=self.auth)
        if answer.status_code != 201:
            raise SystemExit(f"no game: {answer.status_code} {answer.text}")
        game_id: str = answer.json()["id"]
        return game_id

    def ask(self, client: httpx.Client, what: str) -> tuple[httpx.Response, float]:
        t0 = time.perf_counter()
        answer = client.post(f"/api/v1/games/{self.game_id}/{what}", headers=self.auth)
        return answer, time.perf_counter() - t0


def _code(answer: httpx.Response) -> str:
    if answer.status_code == 200:
        return "200"
    try:
        return f"{answer.status_code} {answer.json()['error']['code']}"
    except (ValueError, KeyError, TypeError):
        return str(answer.status_code)


def flood_finish(base_url: str, a: Player, stop: threading.Event, got: Counter[str]) -> None:
    """One of A's clients: finish again and again until `stop`."""
    with httpx.Client(base_url=base_url, timeout=120) as client:
        while not stop.is_set():
            try:
                answer, _seconds = a.ask(client, "finish")
            except httpx.TransportError:
                got["transport error"] += 1
                stop.wait(0.5)
                continue
            if not stop.is_set():
                got[_code(answer)] += 1  # an answer after the window is not counted
            if answer.status_code != 409:
                stop.wait(0.5)


def hint_each_second(
    base_url: str, b: Player, seconds: float, hints: list[tuple[str, float, str]]
) -> None:
    """B: a hint a second for `seconds`, each on a new game; (code, latency s, result and
    whether it searched) of each."""
    with httpx.Client(base_url=base_url, timeout=60) as client:
        start = time.monotonic()
        for tick in range(int(seconds)):
            time.sleep(max(0.0, start + tick - time.monotonic()))
            answer, took = b.ask(client, "hint")
            body = answer.json() if answer.status_code == 200 else {}
            searched = "searched" if body.get("positions", 0) else "known"
            hints.append((_code(answer), took, f"{body.get('result', '-')}, {searched}"))
            b.game_id = b.new_game(client)


def warm_up(client: httpx.Client, base_url: str, b: Player) -> None:
    """A hint of B beside another player's, both answered: the workers are started."""
    other = Player(client, "warm-up", (HINT_GAME[0], HINT_GAME[1][-1:]))
    answers: list[int] = []

    def ask(player: Player) -> None:
        with httpx.Client(base_url=base_url, timeout=WARMUP_S) as c:
            answers.append(player.ask(c, "hint")[0].status_code)

    threads = [threading.Thread(target=ask, args=(p,)) for p in (b, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WARMUP_S)
    if 200 not in answers:
        raise SystemExit(f"the warm-up hints were not answered: {answers}")
    b.game_id = b.new_game(client)  # the measured hints start on a position not searched


def measure(root: Path, seconds: float, settings: dict[str, str]) -> dict[str, Any]:
    """One server from checkout `root` with `settings` (environment), one database; what
    A and B got."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "DATA_DIR": tmp,
            "DATABASE_URL": f"sqlite+aiosqlite:///{tmp}/bench.sqlite3",
            "DAILY_PREPARE_AHEAD": "false",
            "SOLVABLE_PREPARE_AHEAD": "false",
            "LOG_LEVEL": "WARNING",
            "PYTHONPATH": str(root),  # the checkout's code, whatever the bench runs with
            **settings,
        }
        command = [sys.executable, "-m", "app.server", "--host", "127.0.0.1", "--port", str(port)]
        server = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.DEVNULL)
        try:
            base_url = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=base_url, timeout=60) as client:
                wait_ready(client, time.monotonic() + 60)
                a = Player(client, "a", FINISH_GAME)
                b = Player(client, "b", HINT_GAME)
                warm_up(client, base_url, b)
            return _window(base_url, a, b, seconds)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()


def _window(base_url: str, a: Player, b: Player, seconds: float) -> dict[str, Any]:
    stop = threading.Event()
    got: Counter[str] = Counter()
    flood = [
        threading.Thread(target=flood_finish, args=(base_url, a, stop, got), daemon=True)
        for _ in range(A_CLIENTS)
    ]
    for thread in flood:
        thread.start()
    time.sleep(0.5)  # A's first finish has its worker
    hints: list[tuple[str, float, str]] = []
    hint_each_second(base_url, b, seconds, hints)
    stop.set()
    for thread in flood:
        thread.join(STOP_S)
    answered = [took for code, took, _ in hints if code == "200"]
    return {
        "hints": len(hints),
        "hints_200": len(answered),
        "hint_results": dict(Counter(result for code, _, result in hints if code == "200")),
        "hint_codes": dict(Counter(code for code, _, _ in hints)),
        "median_s": statistics.median(answered) if answered else float("nan"),
        "p90_s": percentile(answered, 0.9) if answered else float("nan"),
        "max_s": max(answered) if answered else float("nan"),
        "a": dict(got),
    }


def _row(label: str, r: dict[str, Any]) -> str:
    a = ", ".join(f"{code}: {n}" for code, n in sorted(r["a"].items()))
    share = 100 * r["hints_200"] / max(1, r["hints"])
    results = ", ".join(f"{k}: {n}" for k, n in sorted(r["hint_results"].items()))
    others = ", ".join(f"{c}: {n}" for c, n in sorted(r["hint_codes"].items()) if c != "200")
    latency = "-"
    if r["hints_200"]:
        latency = f"**{r['median_s']:.2f} s**, {r['p90_s']:.2f} s, {r['max_s']:.2f} s"
    return (
        f"| {label} | {r['hints_200']} of {r['hints']} (**{share:.0f}%**) | {latency} "
        f"| {results or 'none'} | {others or 'none'} | {a} |\n"
    )


def section(rows: list[str], seconds: float, command: str, when: str) -> str:
    """The subsection: what runs, the table (a row a server), the command and when."""
    what = (
        f"Player A loops `finish` from {A_CLIENTS} clients on Rainbow deal 5 (unknown after its "
        f"budget), ignoring `Retry-After`, for {seconds:g} s; player B asks a hint a second, "
        "each on a new game (Rank and File deals unknown at 1,000,000 positions). One server, "
        "default pool, fresh SQLite."
    )
    return (
        f"{HEADING}\n\n" + textwrap.fill(what, WIDTH, break_on_hyphens=False) + "\n\n"
        "| server | B's hints answered 200 | B's latency: median, p90, worst | "
        "B's 200s by result | B's other answers | A's answers |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        + "".join(rows)
        + "\n"
        + command_line(command, when)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="the measured window")
    parser.add_argument(
        "--server-root",
        type=server_root,
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="run the server from this checkout (repeatable); default: this one",
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="LABEL:NAME=VALUE",
        help="a setting for the server of that label (repeatable)",
    )
    parser.add_argument("--write", action="store_true", help="write docs/benchmarks.md")
    args = parser.parse_args()
    settings: dict[str, dict[str, str]] = {}
    for text in args.env:
        label, _, setting = text.rpartition(":")
        name, _, value = setting.partition("=")
        settings.setdefault(label, {})[name] = value
    roots: list[tuple[str, Path]] = args.server_root or [("this checkout", ROOT)]
    load_before = os.getloadavg()
    rows = []
    for label, root in roots:
        result = measure(root, args.seconds, settings.get(label, {}))
        print(label, result)
        rows.append(_row(label, result))
    print("".join(rows))
    if args.write:
        # The command as a newcomer runs it: this checkout is ".", another one DIR.
        roots_args = " ".join(
            f"--server-root '{label}={'.' if root == ROOT else 'DIR'}'" for label, root in roots
        )
        roots_args += "".join(f" --env '{text}'" for text in args.env)
        command = (
            f".venv/bin/python bench/fairness.py --seconds {args.seconds:g} {roots_args} --write"
        )
        only_this = all(root == ROOT for _, root in roots)
        when = measured([load_before, os.getloadavg()], root=ROOT if only_this else None)
        write_subsection(SOLVER_HEADING, HEADING, section(rows, args.seconds, command, when))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
