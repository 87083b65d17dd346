"""Core speed: the same seeded random playouts in the Python engine and in the native
core, side by side; with ``--search``, the native full search's rate; with ``--beam``, the
native beam's; with ``--memory``, the transposition table's bound and leaks.

Playouts: one position = legal moves + a position key + apply of the move a 64-bit
generator picks (``state = state * 6364136223846793005 + 1442695040888963407 mod 2**64``,
move number ``(state >> 33) % count``: ``lcg_next`` in ``playout.h``). The engine side is
written here (:func:`engine_playout`: ``State.legal_moves`` and ``State.apply``, with a
small reference key, :func:`reference_key`, in place of the native plain key, which has
no Python counterpart any more: the same parts, hashed by Python, so the work per
position stays comparable). The native side runs each whole playout in C
(``_core.playout``), so the Python boundary is crossed once per playout, not per
position. Both sides must end every playout on the same position (bytes), else the run
fails; the ratio is native over engine. Run:

    .venv/bin/python bench/core.py [--games 20] [--steps 500] [--seed 1] [--json]
    .venv/bin/python bench/core.py --search [--deals 5] [--positions 20000] [--rounds 1]
        [--clock wall|cpu] [--variants ...]
    .venv/bin/python bench/core.py --beam [--deals 5] [--positions 20000] [--width 64]
        [--rounds 1] [--variants ...]
    .venv/bin/python bench/core.py --memory [--table-size 8388608] [--searches 1000]

``--search``: ``core.search_full`` from deals 1 to ``--deals`` of each game at
``--positions`` each: positions per second (distinct positions, as the search counts
them) and the search's work per new position (children played, obligated moves
expanded, children after a bare draw skipped). The searches are repeated within a round
for at least a second (they take milliseconds), and with ``--rounds`` the rate is the
median over the rounds.

``--beam``: the native beam (``core.beam``, ``app/solver/beam.py``) from deals 1 to
``--deals``, ``--width`` positions a level, ``--positions`` at most: positions met per
second, the median over ``--rounds``.

``--memory``: one native full search with a budget of 100,000,000 positions from a deal
it cannot decide (Rank and File deal 9): it stops when the table holds ``--table-size``
keys, and the process's peak resident memory (VmHWM) grows by no more than the table and
the search's stacks. Then ``--searches`` searches one after another (a small budget each,
deals of all nine games): the resident memory after the last is compared with that after
the first tenth.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine import VARIANTS, Rules, State, deal  # noqa: E402
from app.solver import core, tables  # noqa: E402

SEARCHED = ("rank-and-file", "rows-of-four", "rainbow")
MIN_SECONDS = 1.0  # --search: the searches are repeated within a round for as long
MASK = 2**64 - 1


class Lcg:
    """The native playout's generator (``lcg_next`` in ``playout.h``), so the engine's
    playout makes the same choices."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def below(self, n: int) -> int:
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & MASK
        return (self.state >> 33) % n


def reference_key(state: State, single_pass: bool) -> int:
    """A position key in Python, the parts the solver's plain key reads (piles sorted,
    foundation tops sorted, the stock by its length where there is one pass)."""
    tableau = tuple(sorted(zip(state.hidden, state.tableau, strict=True)))
    found = tuple(sorted(f[-1] if f else -1 for f in state.foundations))
    stock: Any = len(state.stock) if single_pass else state.stock
    return hash((tableau, found, stock, state.waste, len(state.reserve), state.redeals_left))


def engine_playout(state: State, seed: int, steps: int) -> tuple[int, State]:
    """The native ``playout`` in the engine: at each position the legal moves and the
    reference key, then the move :class:`Lcg` picks. (positions visited, final position)"""
    single_pass = tables.SearchTables.of(state.variant).single_pass
    rng = Lcg(seed)
    positions = 0
    for _ in range(steps):
        moves = state.legal_moves()
        reference_key(state, single_pass)
        positions += 1
        if not moves:
            break
        state, _ = state.apply(moves[rng.below(len(moves))], auto_finish=False, validate=False)
    return positions, state


def starts(name: str, games: int, seed: int) -> list[tuple[State, int]]:
    """The deals and playout seeds, the same for both sides."""
    rng = random.Random(seed)
    return [
        (deal(VARIANTS[name], rng.randint(1, 1_000_000)), rng.getrandbits(64)) for _ in range(games)
    ]


def engine_rate(games: list[tuple[State, int]], steps: int) -> tuple[int, float, list[bytes]]:
    positions, ends = 0, []
    started = time.perf_counter()
    for state, seed in games:
        count, end = engine_playout(state, seed, steps)
        positions += count
        ends.append(end.to_bytes())
    return positions, time.perf_counter() - started, ends


def native_rate(games: list[tuple[State, int]], steps: int) -> tuple[int, float, list[bytes]]:
    playout = core.native().playout
    loaded = [(core.position(state), seed) for state, seed in games]
    positions, ends = 0, []
    started = time.perf_counter()
    for position, seed in loaded:
        count, _keys, end = playout(position, seed, steps)
        positions += count
        ends.append(end)
    seconds = time.perf_counter() - started
    return positions, seconds, [end.to_bytes() for end in ends]


def playout_rates(games: int, steps: int, seed: int) -> dict[str, dict[str, float]]:
    """Each game's playouts in the engine and in the core: positions, rates, ratio."""
    results: dict[str, dict[str, float]] = {}
    for name in VARIANTS:
        chosen = starts(name, games, seed)
        engine_positions, engine_seconds, engine_ends = engine_rate(chosen, steps)
        native_positions, native_seconds, native_ends = native_rate(chosen, steps)
        if engine_ends != native_ends or engine_positions != native_positions:
            raise SystemExit(f"{name}: the engine and the core ended a playout apart")
        engine = round(engine_positions / engine_seconds)
        native = round(native_positions / native_seconds)
        results[name] = {
            "positions": native_positions,
            "engine_per_second": engine,
            "native_per_second": native,
            "ratio": round(native / max(engine, 1), 1),
        }
    return results


def print_playouts(results: dict[str, dict[str, float]]) -> None:
    print(f"{'variant':<15}{'positions':>10}{'engine pos/s':>16}{'native pos/s':>16}{'ratio':>8}")
    for name, row in results.items():
        print(
            f"{name:<15}{row['positions']:>10}{row['engine_per_second']:>16,.0f}"
            f"{row['native_per_second']:>16,.0f}{row['ratio']:>8}"
        )


def native_work(states: list[State], budget: int) -> tuple[float, float, float]:
    """The native full search's work per new position on these deals: children played
    (and keyed), obligated moves expanded, children after a bare draw skipped unplayed."""
    native = core.native()
    children = expansions = skipped = positions = 0
    for state in states:
        draw_score = tables.SearchTables.of(state.variant).draw_score
        found = native.search(core.position(state), budget, None, budget, draw_score)
        positions += found[2]
        children += found[4][0]
        expansions += found[4][1]
        skipped += found[4][2]
    return children / positions, expansions / positions, skipped / positions


def _median_rate(
    run: Callable[[], int], rounds: int, timer: Callable[[], float], at_least: float
) -> float:
    """Positions per second of ``run`` (which returns the positions it met): each round
    repeats it until it has run for ``at_least`` seconds; the median over ``rounds``."""
    measured: list[float] = []
    for _ in range(rounds):
        positions, seconds = 0, 0.0
        while seconds <= at_least:
            started = timer()
            positions += run()
            seconds += timer() - started
        measured.append(positions / seconds)
    return statistics.median(measured)


def search_rates(names: list[str], deals: int, budget: int, rounds: int, clock: str) -> None:
    """The native full search from deals 1..deals of each game: its rate (the median over
    the rounds, so a burst of load on the shared machine falls on one round, not on the
    median) and its work per position. ``clock``: ``wall`` (time.perf_counter) or ``cpu``
    (the process's CPU time, time.process_time: what other processes take is not
    counted)."""
    timer = time.process_time if clock == "cpu" else time.perf_counter
    print(
        f"{'variant':<15}{'decided':>8}{'positions':>11}{'native pos/s':>16}"
        f"{'children/pos':>14}{'expanded/pos':>14}{'skipped/pos':>13}"
    )
    for name in names:
        states = [deal(VARIANTS[name], number) for number in range(1, deals + 1)]
        found = [core.search_full(state, budget) for state in states]

        def run(states: list[State] = states) -> int:
            return sum(core.search_full(state, budget).positions for state in states)

        # Repeated for MIN_SECONDS: the searches take milliseconds, where a moment's load
        # elsewhere weighs too much.
        rate = _median_rate(run, rounds, timer, MIN_SECONDS)
        decided = sum(result.result != "unknown" for result in found)
        positions = sum(result.positions for result in found)
        children, expansions, skipped = native_work(states, budget)
        print(
            f"{name:<15}{decided:>8}{positions:>11}{rate:>16,.0f}"
            f"{children:>14.2f}{expansions:>14.2f}{skipped:>13.2f}"
        )


def beam_rates(names: list[str], deals: int, budget: int, width: int, rounds: int) -> None:
    """The native beam from deals 1..deals of each game, ``rounds`` times; the rate is the
    median over the rounds."""
    print(f"{'variant':<15}{'positions':>10}{'won':>5}{'native/s':>14}")
    for name in names:
        variant = VARIANTS[name]
        if variant.foundation_return:  # as plan._beam plays it
            variant = variant.with_rules(Rules(foundation_return=False))
        states = [deal(variant, number) for number in range(1, deals + 1)]
        found = [core.beam(state, width, budget) for state in states]

        def run(states: list[State] = states) -> int:
            return sum(core.beam(state, width, budget).positions for state in states)

        rate = _median_rate(run, rounds, time.perf_counter, 0.0)
        positions = sum(result.positions for result in found)
        won = sum(result.moves is not None for result in found)
        print(f"{name:<15}{positions:>10}{won:>5}{rate:>14,.0f}")


def _memory_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise SystemExit(f"no {field} in /proc/self/status")


def memory(table_size: int, searches: int) -> None:
    """The table bound under a 100,000,000-position budget, then many searches in a row."""
    state = deal(VARIANTS["rank-and-file"], 9)
    before = _memory_kib("VmHWM")
    started = time.perf_counter()
    found = core.search_full(state, 100_000_000, table_size=table_size)
    result, positions, stop = found.result, found.positions, found.stopped
    took = time.perf_counter() - started
    grown = (_memory_kib("VmHWM") - before) / 1024
    print(
        f"one search, budget 100,000,000 positions, table bound {table_size:,} keys: {result} "
        f"(stop: {stop}) after {positions:,} positions in {took:.0f} s; peak resident memory "
        f"grew {grown:.0f} MiB (the table's slots: {_slots_mib(table_size):.0f} MiB)"
    )
    names = list(VARIANTS)
    marks: list[int] = []
    for n in range(searches):
        core.search(
            deal(VARIANTS[names[n % len(names)]], 1 + n // len(names)), core.SearchLimits(2_000)
        )
        if n + 1 in (max(1, searches // 10), searches):
            marks.append(_memory_kib("VmRSS"))
    print(
        f"{searches:,} searches of 2,000 positions: resident {marks[0] / 1024:.1f} MiB after "
        f"{max(1, searches // 10)}, {marks[-1] / 1024:.1f} MiB after {searches} "
        f"({(marks[-1] - marks[0]) / 1024:+.1f} MiB)"
    )


def _slots_mib(table_size: int) -> float:
    slots = 16
    while slots // 4 * 3 < table_size:  # at most three quarters full (table.c)
        slots *= 2
    return slots * 8 / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20, help="playouts: deals per game")
    parser.add_argument("--steps", type=int, default=500, help="playouts: moves at most")
    parser.add_argument("--seed", type=int, default=1, help="playouts: deals and seeds")
    parser.add_argument("--json", action="store_true", help="playouts: print JSON")
    parser.add_argument("--search", action="store_true", help="the native full search's rate")
    parser.add_argument("--beam", action="store_true", help="the native beam's rate")
    parser.add_argument("--memory", action="store_true", help="table bound and leaks")
    parser.add_argument("--deals", type=int, default=5, help="--search, --beam")
    parser.add_argument("--positions", type=int, default=20_000, help="--search, --beam")
    parser.add_argument("--variants", nargs="*", default=list(SEARCHED), help="--search, --beam")
    parser.add_argument("--rounds", type=int, default=1, help="--search, --beam: median of")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="--search")
    parser.add_argument("--width", type=int, default=64, help="--beam: positions a level")
    parser.add_argument("--table-size", type=int, default=core.DEFAULT_TABLE_SIZE)
    parser.add_argument("--searches", type=int, default=1_000, help="--memory")
    args = parser.parse_args()
    if args.memory:
        memory(args.table_size, args.searches)
    elif args.beam:
        beam_rates(args.variants, args.deals, args.positions, args.width, args.rounds)
    elif args.search:
        search_rates(args.variants, args.deals, args.positions, args.rounds, args.clock)
    else:
        results = playout_rates(args.games, args.steps, args.seed)
        if args.json:
            print(json.dumps(results, indent=1))
        else:
            print_playouts(results)


if __name__ == "__main__":
    main()
