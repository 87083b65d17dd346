"""Core speed: the same seeded random playouts in the Python engine and in the native core;
with ``--search``, the same full depth-first searches in both.

One position = legal moves + the solver's plain position key + apply of the move the
shared generator (``core.Lcg``) picks, as in ``core.python_playout``. The native side
runs each whole playout in C (``_core.playout``), so the Python boundary is crossed
once per playout, not per position: what the search will see once it is native too.
Both sides must end every playout on the same position (bytes), else the run fails.
``--search``: ``search._search(narrow=False)`` against ``core.search_full`` from deals
1 to ``--deals`` of each game at ``--positions`` each; with both cores the run fails
unless they give the same verdicts, positions and lines; the native search's work per
new position (children played, obligated moves expanded) is printed beside. Each core's
searches are repeated for at least a second (the native ones take milliseconds), and with
``--rounds`` each core's rate is its median over the rounds, the cores taking turns. Run:

    .venv/bin/python bench/core.py [--core python|native|both] [--games 20] [--steps 500]
    .venv/bin/python bench/core.py --search [--core both] [--deals 5] [--positions 20000]
        [--rounds 1] [--clock wall|cpu]
    .venv/bin/python bench/core.py --memory [--table-size 8388608] [--searches 1000]
    .venv/bin/python bench/core.py --beam [--deals 5] [--positions 20000] [--width 64]
        [--rounds 1] [--variants ...]

``--beam``: the beam search (``app/solver/beam.py``) from deals 1 to ``--deals``, depth
first, ``--width`` positions a level, ``--positions`` at most: the Python loop over
native positions (``beam.beam(core.position(state), ...)``, what ``plan.solve`` ran
before the tenth session) against the native loop (``core.beam``). The run fails unless
both meet the same positions and give the same line. ``--core`` is ignored there.

``--memory``: the transposition table's bound and leaks. One native full search with a
budget of 100,000,000 positions from a deal it cannot decide (Rank and File deal 9): it
stops when the table holds ``--table-size`` keys, and the process's peak resident memory
(VmHWM) grows by no more than the table and the search's stacks. Then ``--searches``
searches one after another (a small budget each, deals of all nine games): the resident
memory after the last is compared with that after the first tenth.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine import VARIANTS, State, deal  # noqa: E402
from app.solver import core, search, tables  # noqa: E402

SEARCHED = ("rank-and-file", "rows-of-four", "rainbow")
MIN_SECONDS = 1.0  # --search: each core's searches are repeated within a round for as long
Answer = tuple[str, int, list[str]]


def starts(name: str, games: int, seed: int) -> list[tuple[State, int]]:
    """The deals and playout seeds, the same for both cores."""
    rng = random.Random(seed)
    return [
        (deal(VARIANTS[name], rng.randint(1, 1_000_000)), rng.getrandbits(64)) for _ in range(games)
    ]


def python_rate(games: list[tuple[State, int]], steps: int) -> tuple[int, float, list[bytes]]:
    positions, ends = 0, []
    started = time.perf_counter()
    for state, seed in games:
        count, end = core.python_playout(state, seed, steps)
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


def python_search(state: State, positions: int) -> Answer:
    rules = tables.SearchTables.of(state.variant)
    result, moves, used = search._search(state, rules, positions, None, narrow=False)
    return result, used, [str(m) for m in moves]


def native_search(state: State, positions: int) -> Answer:
    found = core.search_full(state, positions)
    return found.result, found.positions, [str(m) for m in found.moves]


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


def search_rates(
    names: list[str], cores: tuple[str, ...], deals: int, budget: int, rounds: int, clock: str
) -> None:
    """The full search from deals 1..deals of each game, in each core, side by side: each
    round runs every core once, and each core's rate is its median over the rounds (the
    cores take turns, so a burst of load on the shared machine falls on one round of one
    core, not on its median). ``clock``: ``wall`` (time.perf_counter) or ``cpu`` (the
    process's CPU time, time.process_time: what other processes take is not counted)."""
    timer = time.process_time if clock == "cpu" else time.perf_counter
    header = f"{'variant':<15}{'decided':>8}{'positions':>11}"
    header += "".join(f"{which + ' pos/s':>16}" for which in cores)
    header += f"{'ratio':>8}" if len(cores) == 2 else ""
    work = f"{'children/pos':>14}{'expanded/pos':>14}{'skipped/pos':>13}"
    print(header + (work if "native" in cores else ""))
    for name in names:
        states = [deal(VARIANTS[name], number) for number in range(1, deals + 1)]
        rates: dict[str, float] = {}
        answers: dict[str, list[Answer]] = {}
        measured: dict[str, list[float]] = {which: [] for which in cores}
        for _ in range(rounds):
            for which in cores:
                run = python_search if which == "python" else native_search
                # The same searches again until they have run for MIN_SECONDS: the native
                # ones take milliseconds, where a moment's load elsewhere weighs too much.
                positions, seconds = 0, 0.0
                while seconds < MIN_SECONDS:
                    started = timer()
                    answers[which] = [run(state, budget) for state in states]
                    seconds += timer() - started
                    positions += sum(used for _r, used, _m in answers[which])
                measured[which].append(positions / seconds)
        rates = {which: statistics.median(measured[which]) for which in cores}
        if len(answers) == 2 and answers["python"] != answers["native"]:
            raise SystemExit(f"{name}: the cores' searches differ")
        first = answers[cores[0]]
        decided = sum(result != "unknown" for result, _u, _m in first)
        line = f"{name:<15}{decided:>8}{sum(used for _r, used, _m in first):>11}"
        line += "".join(f"{rates[which]:>16,.0f}" for which in cores)
        if len(cores) == 2:
            line += f"{rates['native'] / rates['python']:>8.1f}"
        if "native" in cores:
            children, expansions, skipped = native_work(states, budget)
            line += f"{children:>14.2f}{expansions:>14.2f}{skipped:>13.2f}"
        print(line)


def beam_rates(names: list[str], deals: int, budget: int, width: int, rounds: int) -> None:
    """The Python beam loop against the native one, the same beams, ``rounds`` times in
    turn; each side's rate is its median over the rounds."""
    from app.engine import Rules
    from app.solver import beam

    print(f"{'variant':<15}{'positions':>10}{'python loop/s':>16}{'native/s':>14}{'ratio':>8}")
    for name in names:
        variant = VARIANTS[name]
        if variant.foundation_return:  # as plan._beam plays it
            variant = variant.with_rules(Rules(foundation_return=False))
        states = [deal(variant, number) for number in range(1, deals + 1)]
        rates: dict[str, list[float]] = {"python": [], "native": []}
        answers: dict[str, list[beam.BeamResult]] = {}
        for _ in range(rounds):
            for which in ("python", "native"):
                started = time.perf_counter()
                found = [
                    beam.beam(core.position(state), width, budget)
                    if which == "python"
                    else core.beam(state, width, budget)
                    for state in states
                ]
                seconds = time.perf_counter() - started
                answers[which] = found
                rates[which].append(sum(r.positions for r in found) / seconds)
        if answers["python"] != answers["native"]:
            raise SystemExit(f"{name}: the two loops met different positions")
        positions = sum(r.positions for r in answers["native"])
        python, native = (statistics.median(rates[which]) for which in ("python", "native"))
        print(f"{name:<15}{positions:>10}{python:>16,.0f}{native:>14,.0f}{native / python:>8.1f}")


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
    result, _texts, positions, stop, _work = core.native().search(
        core.position(state),
        100_000_000,
        None,
        table_size,
        tables.SearchTables.of(state.variant).draw_score,
    )
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
        core.search(deal(VARIANTS[names[n % len(names)]], 1 + n // len(names)), 2_000)
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
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--core", choices=("python", "native", "both"), default="both")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--search", action="store_true", help="time the full search")
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--positions", type=int, default=20_000)
    parser.add_argument("--variants", nargs="*", default=list(SEARCHED))
    parser.add_argument("--memory", action="store_true", help="table bound and leaks")
    parser.add_argument("--table-size", type=int, default=core.DEFAULT_TABLE_SIZE)
    parser.add_argument("--searches", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=1, help="--search: median of rounds")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="--search")
    parser.add_argument("--beam", action="store_true", help="the beam: Python loop vs native")
    parser.add_argument("--width", type=int, default=64, help="--beam: positions a level")
    args = parser.parse_args()
    cores = ("python", "native") if args.core == "both" else (args.core,)
    if "native" in cores and not core.available():
        parser.error(core.missing_reason())
    if args.memory:
        memory(args.table_size, args.searches)
        return
    if args.beam:
        if not core.available():
            parser.error(core.missing_reason())
        beam_rates(args.variants, args.deals, args.positions, args.width, args.rounds)
        return
    if args.search:
        search_rates(args.variants, cores, args.deals, args.positions, args.rounds, args.clock)
        return
    results: dict[str, dict[str, float]] = {}
    for name in VARIANTS:
        games = starts(name, args.games, args.seed)
        row: dict[str, float] = {}
        ends: dict[str, list[bytes]] = {}
        for which in cores:
            measure = python_rate if which == "python" else native_rate
            positions, seconds, ends[which] = measure(games, args.steps)
            row[f"{which}_positions"] = positions
            row[f"{which}_per_second"] = round(positions / seconds)
        if len(ends) == 2:
            if ends["python"] != ends["native"]:
                raise SystemExit(f"{name}: the cores ended a playout on different positions")
            row["ratio"] = round(row["native_per_second"] / row["python_per_second"], 1)
        results[name] = row
    if args.json:
        print(json.dumps(results, indent=1))
        return
    header = f"{'variant':<15}{'positions':>10}"
    header += "".join(f"{which + ' pos/s':>16}" for which in cores)
    header += f"{'ratio':>8}" if len(cores) == 2 else ""
    print(header)
    for name, row in results.items():
        line = f"{name:<15}{row[cores[0] + '_positions']:>10}"
        line += "".join(f"{row[which + '_per_second']:>16,.0f}" for which in cores)
        print(line + (f"{row['ratio']:>8}" if "ratio" in row else ""))


if __name__ == "__main__":
    main()
