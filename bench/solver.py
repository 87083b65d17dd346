"""Solver benchmarks on the native core: search speed, hint and finish latency, daily
preparation, and what a search does to the event loop.

    nice .venv/bin/python bench/solver.py [--deals 5] [--skip lag proofs]

1. positions per second of ``solve`` on fixed deals (deals 1..N of each game, or the
   ``--at`` game:deal pairs, a fixed position budget each, so the work is the same from
   run to run), by CPU time, one row a game: run it in each checkout to compare builds;
2. hints: from positions along greedy play (``suggest``, move after move) of fresh deals
   of all nine games, a search with the service's hint budget (``HINT_MAX_POSITIONS``,
   ``HINT_MAX_SECONDS``): median, p99 and the share decided, per game and overall;
3. finish: the same positions, the finish budget: median and worst;
3b. hints in lost positions (``lost``): of the same positions, those a full search of
   ``--lost-proof`` positions proves lost, and how many of them the hint, at its budget,
   answers ``unsolvable`` ("this game can no longer be won"), and how fast;
3c. what the hint leaves undecided (``--fate-budget N``, off by default: minutes): of the
   same positions, those the hint's budget leaves ``unknown``, searched again by ``solve``
   at N positions: how many it wins, proves lost or leaves undecided, and how many deals
   the last come from (positions are taken along each deal's greedy play, so a deal
   the search cannot decide from its first move gives all of its positions);
   ``--fate-games`` limits it to some games (at 10,000,000 positions all nine take over
   an hour: split them across processes);
4. daily preparation: the 18 daily deals (nine games, two days) proven one after another
   as the server does (candidate deals from a throw-away secret, the daily budgets);
5. event-loop lag while two searches run in a thread pool and in a process pool (why
   the pool uses processes);
6. proofs: the full search (``core.search``) with the plain position key and up to run
   arrangement (:mod:`app.solver.arrangements`), one after the other on the same
   positions of random play, same budget: the share each decides and its positions per
   second.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.config import Settings  # noqa: E402
from app.engine import VARIANTS, State, deal, get_variant  # noqa: E402
from app.services.background.cpu_pool import WorkPool  # noqa: E402
from app.services.background.proving import prove  # noqa: E402
from app.services.daily.deals import candidate  # noqa: E402
from app.solver import arrangements  # noqa: E402
from app.solver import core as native_core  # noqa: E402
from app.solver.plan import solve, suggest  # noqa: E402

GAMES = ("rank-and-file", "rows-of-four", "rainbow")
CORE = "the native core"


def speed(deals: int, budget: int, games: list[str], at: list[str]) -> None:
    """Deals 1..``deals`` of each game, or the ``game:deal`` pairs of ``at`` (deals that
    stay unknown search the whole budget, so a deal won early cannot shrink the work):
    the positions ``solve`` meets and their rate by CPU time, one row a game."""
    chosen = [(name, range(1, deals + 1)) for name in games]
    if at:
        pairs = [item.rsplit(":", 1) for item in at]
        chosen = [(name, range(int(number), int(number) + 1)) for name, number in pairs]
    which = ", ".join(at) or f"deals 1-{deals}"
    print(f"## positions per second on {CORE} ({which}, budget {budget:,} positions each)")
    print("| game | positions | positions/s (CPU) |")
    print("|---|---|---|")
    for name, numbers in chosen:
        positions = 0
        cpu = 0.0
        for number in numbers:
            state = deal(get_variant(name), number)
            start = time.process_time()
            result = solve(state, max_positions=budget)
            cpu += time.process_time() - start
            positions += result.positions
        # CPU time: on a shared machine it moves less than the wall clock.
        print(f"| {name} | {positions:,} | {positions / max(cpu, 1e-9):,.0f} ({cpu:.2f} s) |")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def greedy_games(name: str, deals: range, moves: int, every: int) -> list[list[State]]:
    """Positions along greedy play: from each deal, ``suggest``'s move again and again
    (a safe foundation move, else the search's first choice), every ``every``th kept; one
    list a deal, in the order of play."""
    out: list[list[State]] = []
    for number in deals:
        state = deal(get_variant(name), number)
        game: list[State] = []
        for step in range(moves):
            if state.is_won:
                break
            move = suggest(state)
            if move is None:
                break
            if step % every == 0:
                game.append(state)
            state, _ = state.apply(move, auto_finish=False, validate=False)
        out.append(game)
    return out


def greedy_positions(name: str, deals: range, moves: int, every: int) -> list[State]:
    """:func:`greedy_games`' positions, one deal after another."""
    return [state for game in greedy_games(name, deals, moves, every) for state in game]


def asked_in_order(games: list[list[State]], results: list[str]) -> tuple[int, int]:
    """The service's answers when each game's hints are asked in the order of play
    (``results``: the searches', game after game): once one position of a game is proven
    lost, every later one descends from it and is answered ``unsolvable`` without a search
    (``Game.lost_at``). (decided, decided only so: the search alone left them undecided)."""
    decided = carried = at = 0
    for game in games:
        lost = False
        for result in results[at : at + len(game)]:
            if lost and result != "unsolvable":
                carried += 1
            lost = lost or result == "unsolvable"
            decided += lost or result == "solved"
        at += len(game)
    return decided, carried


def line_positions(name: str, deals: range, every: int) -> list[State]:
    """Positions along a winning line (``solve`` at 100,000 positions) of each deal it
    wins, every ``every``th: a game a player can still win, as finish mostly meets."""
    out: list[State] = []
    for number in deals:
        state = deal(get_variant(name), number)
        won = solve(state, max_positions=100_000)
        if won.result != "solved":
            continue
        for step, move in enumerate(won.moves):
            if step % every == 0:
                out.append(state)
            state, _ = state.apply(move, auto_finish=False, validate=False)
    return out


def _searches(
    positions: list[State],
    budget: int,
    seconds: float,
    results: list[str] | None = None,
) -> tuple[list[float], dict[str, int]]:
    """Each position searched alone: the times and the count of each result (each one
    appended to ``results`` too, in order, where given)."""
    times: list[float] = []
    outcomes: dict[str, int] = {}
    for state in positions:
        started = time.perf_counter()
        result = solve(state, max_positions=budget, max_seconds=seconds)
        times.append((time.perf_counter() - started) * 1000)
        outcomes[result.result] = outcomes.get(result.result, 0) + 1
        if results is not None:
            results.append(result.result)
    return times, outcomes


def _line(label: str, times: list[float], outcomes: dict[str, int]) -> str:
    decided = outcomes.get("solved", 0) + outcomes.get("unsolvable", 0)
    return (
        f"| {label} | {len(times)} | {statistics.median(times):.1f} | "
        f"{_percentile(times, 0.99):.1f} | {max(times):.0f} | "
        f"{100 * decided / len(times):.1f}% | {outcomes.get('unsolvable', 0)} |"
    )


def hints_and_finish(
    deals: range,
    moves: int,
    every: int,
    settings: Settings,
    finish: bool,
    hint_budgets: list[int],
) -> None:
    """``hint_budgets``: position budgets to try in place of the setting (a sweep), each
    with the hint's time limit."""
    budgets = [
        ("hint", budget, settings.hint_max_seconds)
        for budget in hint_budgets or [settings.hint_max_positions]
    ]
    if finish:
        budgets.append(("finish", settings.finish_max_positions, settings.finish_max_seconds))
    games = {name: greedy_games(name, deals, moves, every) for name in VARIANTS}
    greedy = {name: [state for game in games[name] for state in game] for name in VARIANTS}
    runs = [(what, budget, seconds, "greedy play", greedy) for what, budget, seconds in budgets]
    if finish:
        lines = {name: line_positions(name, deals, every) for name in VARIANTS}
        what, budget, seconds = budgets[-1]
        runs.append((what, budget, seconds, "winning lines", lines))
    for what, budget, seconds, source, corpus in runs:
        print(
            f"## {what} latency on {CORE}: budget {budget:,} positions or "
            f"{seconds} s, positions along {source} of deals {deals.start}-{deals.stop - 1}"
            f" (every {every}th move"
            + (f" of the first {moves})" if source == "greedy play" else ")")
        )
        print("| game | searches | median ms | p99 ms | worst ms | decided | unsolvable |")
        print("|---|---|---|---|---|---|---|")
        every_time: list[float] = []
        every_outcome: dict[str, int] = {}
        in_order = [0, 0]  # decided, and only so: each game's hints asked in turn
        for name, positions in corpus.items():
            if not positions:
                print(f"| {name} | 0 | - | - | - | - | - |")  # no deal of the range won
                continue
            results: list[str] = []
            times, outcomes = _searches(positions, budget, seconds, results)
            print(_line(name, times, outcomes))
            if source == "greedy play":
                decided, carried = asked_in_order(games[name], results)
                in_order[0] += decided
                in_order[1] += carried
            if source == "winning lines" and outcomes.get("unsolvable"):
                # Every position of a line solve won is winnable: this is a wrong proof.
                raise SystemExit(f"{name}: unsolvable on a winning line (a wrong proof)")
            every_time += times
            for key, value in outcomes.items():
                every_outcome[key] = every_outcome.get(key, 0) + value
        print(_line("all nine", every_time, every_outcome))
        if source == "greedy play":
            print(
                f"Asked in the order of play, as the service answers them (a line proven "
                f"lost stays lost): {100 * in_order[0] / len(every_time):.1f}% decided, "
                f"{in_order[1]} of them only so (the search alone left them undecided)."
            )


def lost_hints(deals: range, moves: int, every: int, settings: Settings, proof: int) -> None:
    """Hints in lost positions: of the positions along greedy play (as for the hint
    latency), those a long full search proves lost (``proof`` positions, native, up to
    run arrangement where it holds); then the hint at its budget from each: how many it
    answers ``unsolvable``, and how fast."""
    print(
        f"## Hints in lost positions on {CORE}: positions along greedy play "
        f"of deals {deals.start}-{deals.stop - 1} (every {every}th of the first {moves} "
        f"moves) that a full search of {proof:,} positions proves lost; the hint's budget "
        f"{settings.hint_max_positions:,} positions or {settings.hint_max_seconds} s"
    )
    print("| game | positions | proven lost | hint says unsolvable | median ms | p99 ms |")
    print("|---|---|---|---|---|---|")
    every_lost = every_said = every_count = 0
    every_time: list[float] = []
    for name in VARIANTS:
        positions = greedy_positions(name, deals, moves, every)
        arranged = arrangements.supports(get_variant(name))
        lost = [
            state
            for state in positions
            if native_core.search(state, native_core.SearchLimits(proof, arranged=arranged)).result
            == "unsolvable"
        ]
        times, outcomes = _searches(lost, settings.hint_max_positions, settings.hint_max_seconds)
        said = outcomes.get("unsolvable", 0)
        every_count += len(positions)
        every_lost += len(lost)
        every_said += said
        every_time += times
        print(f"| {name} | {len(positions)} | {len(lost)} | {said} | {_timing(times)} |")
    print(f"| all nine | {every_count} | {every_lost} | {every_said} | {_timing(every_time)} |")


def hint_fate(
    deals: range,
    moves: int,
    every: int,
    settings: Settings,
    budget: int,
    games: list[str],
) -> None:
    """What becomes of the hints the hint's budget leaves undecided, at ``budget``, in
    ``games`` (``--fate-games``)."""
    print(
        f"## Undecided hints at {budget:,} positions on {CORE}: positions "
        f"along greedy play of deals {deals.start}-{deals.stop - 1} (every {every}th of the "
        f"first {moves} moves) that the hint's budget ({settings.hint_max_positions:,} "
        f"positions or {settings.hint_max_seconds} s) leaves undecided"
    )
    print("| game | positions | hint undecided | then won | then lost | still undecided | deals |")
    print("|---|---|---|---|---|---|---|")
    totals = [0] * 6
    for name in games:
        counts = [0] * 6
        left: set[int] = set()
        for number in deals:
            for state in greedy_positions(name, range(number, number + 1), moves, every):
                counts[0] += 1
                hint = solve(state, settings.hint_max_positions, settings.hint_max_seconds)
                if hint.result != "unknown":
                    continue
                counts[1] += 1
                again = solve(state, budget, None).result
                slot = {"solved": 2, "unsolvable": 3}.get(again, 4)
                counts[slot] += 1
                if slot == 4:
                    left.add(number)
        counts[5] = len(left)
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        print(f"| {name} | " + " | ".join(str(n) for n in counts) + " |")
    label = "all nine" if len(games) == len(VARIANTS) else "these"
    print(f"| {label} | " + " | ".join(str(n) for n in totals) + " |")


def _timing(times: list[float]) -> str:
    """Median and p99 cells of a table row ("-" without searches)."""
    if not times:
        return "- | -"
    return f"{statistics.median(times):.1f} | {_percentile(times, 0.99):.1f}"


def daily(settings: Settings) -> None:
    """The 18 deals the server prepares at start-up (today's and tomorrow's of each game),
    one after another with the daily budgets, candidates from a fresh secret."""
    secret = secrets.token_urlsafe(16)
    today = date.today()
    started = time.perf_counter()
    attempts = 0
    for name in VARIANTS:
        for day in (today, today + timedelta(days=1)):
            for attempt in range(settings.daily_max_attempts):
                attempts += 1
                number = candidate(secret, name, day, attempt)
                proof = prove(
                    settings.daily_prover,
                    name,
                    number,
                    settings.daily_max_positions,
                    settings.daily_max_seconds,
                    settings.solver_table_size,
                )
                if proof is not None:
                    break
    took = time.perf_counter() - started
    print(
        f"## daily preparation on {CORE}: 18 deals proven in {took:.1f} s "
        f"({attempts} candidates; budget {settings.daily_max_positions:,} positions or "
        f"{settings.daily_max_seconds} s each)"
    )


async def _loop_lag(kind: str, busy: bytes, seconds: float) -> tuple[float, float]:
    lags: list[float] = []
    # The service's pool, two players' workers of this kind, no background lane to borrow.
    settings = Settings(solver_workers=2, solver_kind=kind, daily_workers=0)  # type: ignore[arg-type]
    work = WorkPool(settings)
    try:
        if kind == "process":  # start the workers before measuring
            await asyncio.gather(*(work.search(busy, 10, None) for _ in range(2)))
        searches = [asyncio.create_task(work.search(busy, 10**9, seconds)) for _ in range(2)]
        while not all(t.done() for t in searches):
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append((time.perf_counter() - before - 0.005) * 1000)
        await asyncio.gather(*searches)
    finally:
        work.close()
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
                    found = native_core.search(
                        state, native_core.SearchLimits(budget, arranged=arranged)
                    )
                    result, positions = found.result, found.positions
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
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--games", nargs="*", default=list(GAMES), help="for the speed part")
    parser.add_argument("--at", nargs="*", default=[], help="speed: game:deal pairs instead")
    parser.add_argument("--budget", type=int, default=5_000)
    parser.add_argument("--hint-deals", default="1001-1010", help="fresh deals, first-last")
    parser.add_argument("--hint-moves", type=int, default=100, help="greedy moves per deal")
    parser.add_argument("--every", type=int, default=5, help="keep every Nth position")
    parser.add_argument(
        "--hint-budgets", nargs="*", type=int, default=[], help="hint budgets to sweep"
    )
    parser.add_argument("--proof-games", type=int, default=20)
    parser.add_argument("--proof-budget", type=int, default=20_000)
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=["speed", "hints", "finish", "lost", "daily", "lag", "proofs"],
    )
    parser.add_argument(
        "--fate-budget",
        type=int,
        default=0,
        help="fate: search the hints left undecided again at this many positions (0: skip)",
    )
    parser.add_argument(
        "--fate-games", nargs="*", choices=list(VARIANTS), default=list(VARIANTS), help="fate"
    )
    parser.add_argument(
        "--lost-proof",
        type=int,
        default=2_000_000,
        help="lost: the full search's budget that proves a position lost",
    )
    args = parser.parse_args()
    settings = Settings()
    if "speed" not in args.skip:
        speed(args.deals, args.budget, args.games, args.at)
    first, last = (int(n) for n in args.hint_deals.split("-"))
    # Hints, finish and lost hints start from the same positions of greedy play.
    positions = (range(first, last + 1), args.hint_moves, args.every, settings)
    if "hints" not in args.skip:
        hints_and_finish(*positions, "finish" not in args.skip, args.hint_budgets)
    if "lost" not in args.skip:
        lost_hints(*positions, args.lost_proof)
    if args.fate_budget:
        hint_fate(*positions, args.fate_budget, args.fate_games)
    if "daily" not in args.skip:
        daily(settings)
    if "lag" not in args.skip:
        loop_lag(3.0)
    if "proofs" not in args.skip:
        proofs(args.proof_games, args.proof_budget)


if __name__ == "__main__":
    main()
