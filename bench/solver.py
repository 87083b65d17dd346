"""Solver benchmarks: search speed, hint latency, and what a search does to the event loop.

    nice .venv/bin/python bench/solver.py [--deals 5] [--hint-seconds 2]

1. positions per second of the search on fixed deals (deals 1..N of each game, a fixed
   position budget each, so the work is the same from run to run);
2. hint latency (median, p99): a hint search (the hint budget) from positions along
   played games: along each deal's winning line (a player following hints) and along a
   random playout (positions that are often lost, the slow case);
3. event-loop lag while two searches run in a thread pool and in a process pool (why
   the pool uses processes);
4. proofs: the full search with the plain position key and up to run arrangement
   (:mod:`app.solver.arrangements`), one after the other on the same positions of
   random play, same budget: the share each decides and its positions per second.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine import State, deal, get_variant  # noqa: E402
from app.solver.plan import solve  # noqa: E402
from app.solver.pool import SolverPool  # noqa: E402
from app.solver.search import Rules, _search, replay  # noqa: E402

GAMES = ("rank-and-file", "rows-of-four", "rainbow")


def speed(deals: int, budget: int, games: list[str], at: list[str]) -> None:
    """Deals 1..``deals`` of each game, or the ``game:deal`` pairs of ``at`` (deals that
    stay unknown search the whole budget, so a deal won early cannot shrink the work)."""
    chosen = [(name, range(1, deals + 1)) for name in games]
    if at:
        pairs = [item.rsplit(":", 1) for item in at]
        chosen = [(name, range(int(number), int(number) + 1)) for name, number in pairs]
    which = ", ".join(at) or f"deals 1-{deals}"
    print(f"## positions per second ({which}, budget {budget:,} positions each)")
    for name, numbers in chosen:
        positions, seconds, cpu = 0, 0.0, 0.0
        for number in numbers:
            start = time.process_time()
            result = solve(deal(get_variant(name), number), max_positions=budget)
            cpu += time.process_time() - start
            positions += result.positions
            seconds += result.elapsed_ms / 1000
        # CPU time as well: on a shared machine it moves less than the wall clock.
        print(
            f"{name}: {positions:,} positions in {seconds:.1f} s = {positions / seconds:,.0f}/s"
            f" (CPU {cpu:.1f} s = {positions / cpu:,.0f}/s)"
        )


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def hints(deals: int, hint_seconds: float, every: int) -> None:
    print(f"## hint latency (hint budget {hint_seconds} s, every {every}th position)")
    rng = random.Random(1)
    for name in GAMES:
        along_line: list[float] = []
        along_random: list[float] = []
        outcomes: dict[str, int] = {}
        for number in range(1, deals + 1):
            start = deal(get_variant(name), number)
            won = solve(start, max_positions=20_000)
            positions: list[State] = []
            state = start
            for move in won.moves:
                positions.append(state)
                state = replay(state, [move])
            for state in positions[::every]:
                along_line.append(_hint(state, hint_seconds, outcomes))
            state = start
            for step in range(300):
                moves = state.legal_moves()
                if not moves or state.is_won:
                    break
                if step % every == 0:
                    along_random.append(_hint(state, hint_seconds, outcomes))
                state, _ = state.apply(rng.choice(moves), auto_finish=False, validate=False)
        for label, times in (("winning lines", along_line), ("random play", along_random)):
            if times:
                print(
                    f"{name} {label}: {len(times)} hints, median {statistics.median(times):.0f} ms, "
                    f"p99 {_percentile(times, 0.99):.0f} ms"
                )
        print(f"{name} hint results: {outcomes}")


def _hint(state: State, seconds: float, outcomes: dict[str, int]) -> float:
    result = solve(state, max_seconds=seconds)
    outcomes[result.result] = outcomes.get(result.result, 0) + 1
    return float(result.elapsed_ms)


async def _loop_lag(kind: str, busy: bytes, seconds: float) -> tuple[float, float]:
    lags: list[float] = []
    async with SolverPool(workers=2, kind=kind) as pool:  # type: ignore[arg-type]
        if kind == "process":  # start the workers before measuring
            await asyncio.gather(*(pool.solve(busy, max_positions=10) for _ in range(2)))
        searches = [
            asyncio.create_task(pool.solve(busy, max_positions=10**9, max_seconds=seconds))
            for _ in range(2)
        ]
        while not all(t.done() for t in searches):
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append((time.perf_counter() - before - 0.005) * 1000)
        await asyncio.gather(*searches)
    return statistics.median(lags), _percentile(lags, 0.99)


def loop_lag(seconds: float) -> None:
    print(f"## event-loop lag while 2 searches run for {seconds} s (a 5 ms sleep's overshoot)")
    busy = deal(get_variant("rank-and-file"), 9).to_bytes()
    for kind in ("thread", "process"):
        median, p99 = asyncio.run(_loop_lag(kind, busy, seconds))
        print(f"{kind} pool: median {median:.1f} ms, p99 {p99:.1f} ms")


def proofs(games: int, budget: int) -> None:
    """Plain against arranged full search on the same late positions of random play."""
    print(f"## full search, plain key vs up to run arrangement ({budget:,} positions each)")
    for name in ("rank-and-file", "number-ten"):
        variant = get_variant(name)
        rules = Rules.of(variant)
        for steps in (100, 200, 300, 400):
            tally: dict[bool, dict[str, int]] = {False: {}, True: {}}
            work = {False: [0, 0.0], True: [0, 0.0]}
            for game in range(games):
                rng = random.Random(game)
                state = deal(variant, game + 1)
                for _ in range(steps):
                    moves = state.legal_moves()
                    if not moves or state.is_won:
                        break
                    state, _ = state.apply(rng.choice(moves), auto_finish=False, validate=False)
                for arranged in (False, True):
                    start = time.perf_counter()
                    result, _, positions = _search(
                        state, rules, budget, None, False, arranged=arranged
                    )
                    work[arranged][0] += positions
                    work[arranged][1] += time.perf_counter() - start
                    tally[arranged][result] = tally[arranged].get(result, 0) + 1
            for arranged in (False, True):
                counts = tally[arranged]
                decided = counts.get("solved", 0) + counts.get("unsolvable", 0)
                label = "arranged" if arranged else "plain"
                print(
                    f"{name} after {steps} random moves, {label}: decided {decided}/{games} "
                    f"(solved {counts.get('solved', 0)}, unsolvable {counts.get('unsolvable', 0)}), "
                    f"{work[arranged][0] / work[arranged][1]:,.0f} positions/s"
                )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--games", nargs="*", default=list(GAMES), help="for the speed part")
    parser.add_argument("--at", nargs="*", default=[], help="speed: game:deal pairs instead")
    parser.add_argument("--budget", type=int, default=5_000)
    parser.add_argument("--hint-seconds", type=float, default=2.0)
    parser.add_argument("--every", type=int, default=25)
    parser.add_argument("--proof-games", type=int, default=20)
    parser.add_argument("--proof-budget", type=int, default=20_000)
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["speed", "hints", "lag", "proofs"]
    )
    args = parser.parse_args()
    if "speed" not in args.skip:
        speed(args.deals, args.budget, args.games, args.at)
    if "hints" not in args.skip:
        hints(args.deals, args.hint_seconds, args.every)
    if "lag" not in args.skip:
        loop_lag(3.0)
    if "proofs" not in args.skip:
        proofs(args.proof_games, args.proof_budget)


if __name__ == "__main__":
    main()
