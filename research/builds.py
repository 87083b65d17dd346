"""Builds of the native core side by side: the same full searches in each, one run.

Each ``--build LABEL=PATH`` is a compiled ``app.solver._core`` (the ``.so`` file; build
one from another commit with ``git worktree add`` and ``setup.py build_ext --inplace``
there). A build built in place in a tree of its own (``PATH`` is
``<tree>/app/solver/_core*.so``) is loaded under that tree's ``app`` package, its own
bindings; any other under this checkout's. The builds take turns, each round running every build once in a subprocess of
its own (one extension module per process), so the machine's load falls on all of them
alike; the searches are ``core.search_full`` from deals 1 to ``--deals`` of each game at
``--positions`` each, as ``bench/core.py --search`` runs them. Every build must give the
same verdict, positions count and line on every deal (the core's changes are meant to
change speed, never the search), else the run fails.

``--narrow SEED`` runs narrow restart ``SEED`` instead (its jitter, its draw score and
the eager rule, as ``plan.solve`` runs it).

``--arranged`` runs the search up to run arrangement instead (``core.search(...,
arranged=True)``, the full search ``solve()`` ends with in Rank and File and Number Ten;
default games those two).

``--greedy MOVES`` starts the searches from positions along greedy play instead, those
the hint table asks (``bench/solver.py``'s ``greedy_positions``: every 8th of the first
MOVES moves of deals 1001 to 1000 + ``--deals``), worked out once by the checkout's own
build and handed to every build as text: where the relaxed tableau's tests do most of a
Rainbow hint's work.

``--hints`` times hints instead: ``plan.solve`` with the service's hint budget
(``HINT_MAX_POSITIONS`` or ``HINT_MAX_SECONDS``) from the greedy positions (``--greedy``,
default 100 moves), every game by default; per build the median and p99 latency and the
share decided, over every round (a deadline makes answers differ under load: not
compared).

``--cpu`` times each build by its process's CPU time rather than wall time: on a
machine others load, a build's share of the cores moves its wall time, far less its CPU
time.

``--callgrind`` counts instructions instead (valgrind's callgrind, the search alone:
``--toggle-collect=search_run``): exact and the same on a loaded machine, where wall time
swings by a fifth from run to run. Run::

    .venv/bin/python -m research.builds --build before=/tmp/a/_core.so --build after=app/solver/_core.cpython-311-x86_64-linux-gnu.so
    .venv/bin/python -m research.builds --build ... --callgrind --positions 20000
    .venv/bin/python -m research.builds --build ... --variants rainbow --arranged --deals 8 \
        --greedy 80 --positions 20000
    .venv/bin/python -m research.builds --build ... --hints --deals 10 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from app.engine import VARIANTS

ROOT = Path(__file__).resolve().parents[1]

GAMES = ("rank-and-file", "rows-of-four", "rainbow")
ARRANGED = ("rank-and-file", "number-ten")  # the games with run arrangement

# The subprocess's first lines: load the build as app.solver._core.
_LOAD = """
import importlib.machinery, importlib.util, json, sys, time
sys.path.insert(0, {root!r})
loader = importlib.machinery.ExtensionFileLoader("app.solver._core", {path!r})
spec = importlib.util.spec_from_file_location("app.solver._core", {path!r}, loader=loader)
module = importlib.util.module_from_spec(spec)
loader.exec_module(module)
sys.modules["app.solver._core"] = module
"""

# Run in the subprocess: then search.
_CHILD = (
    _LOAD
    + """from app.engine import VARIANTS, State, deal
from app.solver import core
from app.solver.tables import SearchTables
def options(state):
    if {narrow} is None:
        return {{"arranged": {arranged}}}
    rules = SearchTables.of(state.variant)
    return {{"narrow": True, "seed": {narrow}, "eager": rules.eager_foundations,
             "draw_score": rules.restart({narrow}).draw_score}}
try:
    from app.solver.core import SearchLimits
    def run(state):
        return core.search(state, SearchLimits({positions}, **options(state)))
except ImportError:  # a tree from before SearchLimits: the options as keywords
    def run(state):
        return core.search(state, {positions}, **options(state))
starts = json.load(open({starts!r})) if {starts!r} else {{}}
rows = {{}}
for name in {games!r}:
    if name in starts:
        states = [State.from_text(text) for text in starts[name]]
    else:
        states = [deal(VARIANTS[name], number) for number in range(1, {deals} + 1)]
    answers, positions = [], 0
    clock = time.process_time if {cpu} else time.perf_counter
    started = clock()
    for state in states:
        found = run(state)
        answers.append([found.result, found.positions, [str(m) for m in found.moves]])
        positions += found.positions
    rows[name] = {{"seconds": clock() - started, "positions": positions,
                   "answers": answers}}
print(json.dumps(rows))
"""
)


# Run in the subprocess for --hints: each start searched with the hint's budget.
_HINTS_CHILD = (
    _LOAD
    + """from app.config import Settings
from app.engine import State
from app.solver.plan import solve
settings = Settings()
starts = json.load(open({starts!r}))
rows = {{}}
for name in {games!r}:
    answers = []
    for text in starts[name]:
        started = time.perf_counter()
        found = solve(State.from_text(text), settings.hint_max_positions,
                      settings.hint_max_seconds)
        answers.append([found.result, (time.perf_counter() - started) * 1000])
    rows[name] = {{"answers": answers}}
print(json.dumps(rows))
"""
)


def hint_table(results: dict[str, list[dict[str, dict]]], games: tuple[str, ...]) -> None:
    """Per build: the hints' median and p99 latency and the share decided, all games and
    rounds together, then the median of each game."""
    print("| build | hints | median ms | p99 ms | decided | " + " | ".join(games) + " |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(games))
    for label, runs in results.items():
        answers = [a for run in runs for game in games for a in run[game]["answers"]]
        ms = sorted(a[1] for a in answers)
        decided = sum(a[0] != "unknown" for a in answers) / len(answers)
        per_game = [
            statistics.median(a[1] for run in runs for a in run[game]["answers"]) for game in games
        ]
        print(
            f"| {label} | {len(ms)} | {statistics.median(ms):.0f} | "
            f"{ms[min(len(ms) - 1, int(len(ms) * 0.99))]:.0f} | {decided:.1%} | "
            + " | ".join(f"{m:.0f}" for m in per_game)
            + " |"
        )


def greedy_starts(games: tuple[str, ...], deals: int, moves: int) -> dict[str, list[str]]:
    """The hint table's positions of each game, as text (this checkout's build plays)."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from solver import greedy_positions

    return {
        game: [
            state.to_text() for state in greedy_positions(game, range(1001, 1001 + deals), moves, 8)
        ]
        for game in games
    }


def tree_of(path: Path) -> Path:
    """The tree whose ``app`` package loads the build at ``path``: its own where it was
    built in place there, else this checkout."""
    tree = path.parents[2] if len(path.parents) > 2 else ROOT
    return tree if (tree / "app" / "solver" / "core.py").exists() else ROOT


def run_build(
    path: Path,
    games: tuple[str, ...],
    deals: int,
    positions: int,
    callgrind: bool,
    arranged: bool,
    starts: str = "",
    hints: bool = False,
    narrow: int | None = None,
    cpu: bool = False,
) -> dict[str, dict]:
    if hints:
        code = _HINTS_CHILD.format(
            root=str(tree_of(path)), path=str(path), games=games, starts=starts
        )
        done = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        )
        return json.loads(done.stdout)
    code = _CHILD.format(
        root=str(tree_of(path)),
        path=str(path),
        games=games,
        deals=deals,
        positions=positions,
        arranged=arranged,
        starts=starts,
        narrow=narrow,
        cpu=cpu,
    )
    if not callgrind:
        done = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        )
        return json.loads(done.stdout)
    rows: dict[str, dict] = {}
    for game in games:  # one game per run, so that each count is its own
        with tempfile.TemporaryDirectory() as work:
            out = Path(work) / "callgrind.out"
            code_one = _CHILD.format(
                root=str(tree_of(path)),
                path=str(path),
                games=(game,),
                deals=deals,
                positions=positions,
                arranged=arranged,
                starts=starts,
                narrow=narrow,
                cpu=cpu,
            )
            done = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    "--toggle-collect=search_run",
                    f"--callgrind-out-file={out}",
                    sys.executable,
                    "-c",
                    code_one,
                ],
                check=True,
                capture_output=True,
                text=True,
            )
            row = json.loads(done.stdout)[game]
            summary = out.read_text().split("summary:")[1].split()[0]
            row["instructions"] = int(re.sub(r"\D", "", summary))
            rows[game] = row
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--build", action="append", required=True, metavar="LABEL=PATH")
    parser.add_argument("--variants", nargs="*")
    parser.add_argument("--arranged", action="store_true", help="the search up to run arrangement")
    parser.add_argument("--narrow", type=int, metavar="SEED", help="narrow restart SEED")
    parser.add_argument(
        "--cpu", action="store_true", help="CPU time of each build's process, not wall time"
    )
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--positions", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--callgrind", action="store_true", help="instruction counts")
    parser.add_argument("--greedy", type=int, metavar="MOVES", help="from greedy play's positions")
    parser.add_argument("--hints", action="store_true", help="hint latency, every game")
    args = parser.parse_args(argv)
    if args.hints:
        args.greedy = args.greedy or 100
        args.variants = args.variants or sorted(VARIANTS)
    builds = [
        (label, Path(path).resolve()) for label, _, path in (b.partition("=") for b in args.build)
    ]
    games = tuple(args.variants or (ARRANGED if args.arranged else GAMES))
    if args.callgrind and not shutil.which("valgrind"):
        sys.exit("--callgrind needs valgrind")
    rounds = 1 if args.callgrind else args.rounds
    results: dict[str, list[dict[str, dict]]] = {label: [] for label, _ in builds}
    with tempfile.TemporaryDirectory() as work:
        starts = Path(work) / "starts.json"
        starts.write_text(
            json.dumps(greedy_starts(games, args.deals, args.greedy) if args.greedy else {})
        )
        for _ in range(rounds):
            for label, path in builds:
                results[label].append(
                    run_build(
                        path,
                        games,
                        args.deals,
                        args.positions,
                        args.callgrind,
                        args.arranged,
                        str(starts),
                        args.hints,
                        args.narrow,
                        args.cpu,
                    )
                )
    if args.hints:
        print(
            f"hints (plan.solve at the hint's budget), positions along greedy play of deals "
            f"1001-{1000 + args.deals} (every 8th of {args.greedy} moves); {rounds} rounds"
        )
        hint_table(results, games)
        return 0
    reference = results[builds[0][0]][0]
    for label, runs in results.items():
        for run in runs:
            for game in games:
                for at, (got, want) in enumerate(
                    zip(run[game]["answers"], reference[game]["answers"], strict=True)
                ):
                    if got != want:
                        sys.exit(
                            f"{label} searched {game}'s search {at + 1} otherwise: "
                            f"{got[:2]} and a line of {len(got[2])} against {want[:2]} "
                            f"and {len(want[2])}"
                        )
    kind = "search up to run arrangement" if args.arranged else "full search"
    if args.narrow is not None:
        kind = f"narrow restart {args.narrow}"
    where = (
        f"positions along greedy play of deals 1001-{1000 + args.deals} (every 8th of "
        f"{args.greedy} moves)"
        if args.greedy
        else f"deals 1-{args.deals}"
    )
    print(
        f"{kind}, {where} at {args.positions:,} positions; "
        + (
            "callgrind instructions"
            if args.callgrind
            else f"{rounds} rounds, positions per {'CPU ' if args.cpu else ''}second (median, "
            "then each round)"
        )
    )
    for game in games:
        print(f"{game} ({reference[game]['positions']:,} positions)")
        first = None
        for label, runs in results.items():
            if args.callgrind:
                count = runs[0][game]["instructions"]
                per = count / runs[0][game]["positions"]
                first = first or count
                print(
                    f"  {label:>12}: {count:>15,} ({per:,.0f} a position, "
                    f"{count / first:.3f} of the first)"
                )
            else:
                rates = [r[game]["positions"] / r[game]["seconds"] for r in runs]
                median = statistics.median(rates)
                first = first or median
                print(
                    f"  {label:>12}: {median:>11,.0f}/s ({median / first:.2f}x the first)  "
                    + " ".join(f"{rate:,.0f}" for rate in rates)
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
