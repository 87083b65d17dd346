"""The full search alone (no restarts, no beam passes), on the deals a budget's surveys
leave undecided.

``solve``'s plan spends most of a large budget on the beam passes, which win deals; the
full search, whose exhaustion is a lost proof, has what they leave (``app/solver/plan.py``,
``FULL_LEAST``). This gives the full search the whole budget on each deal that no row of
the game's survey files at or below the budget decides, to see which of them it proves
lost (or wins) on its own; a win's line is replayed by the engine first (as the
survey's). It is the complete search of ``solve`` (up to run arrangement where that
applies, with every reduction of ``docs/solver.md``), so its rows are survey rows like
any other and ``research/solvability.py`` counts them.

    nice .venv/bin/python -m research.full_search rainbow --deals 200 --budget 10000000 \\
        --out bench/surveys/rainbow-10m-relaxed-full.jsonl

One row per deal (a rerun skips the deals the file holds); exit 0. ``--only 42 --only 45``
searches just those deals, in that order, where they are left undecided.
``--relaxed-stock`` and ``--relaxed-states`` say where the relaxed tableau's test is asked
and how far one test may run (``app/solver/relaxation.py``; the row's ``search`` names
them where they are not the defaults): asked at up to 4 stock cards and run to the end,
it proved Rainbow deal 5 lost (docs/benchmarks.md, twenty-fifth session):

    nice .venv/bin/python -m research.full_search rainbow --deals 200 --budget 10000000 \\
        --relaxed-stock 4 --relaxed-states 4000000 --out bench/surveys/rainbow-10m-deep-full.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from app.engine import VARIANTS, deal, get_variant
from app.solver import arrangements, core, relaxation
from app.solver.result import wins
from research.solvability import BUDGETS, SURVEYS, verdicts
from research.survey import end_torn_line, read_rows

DESCRIBED = "full search alone"


def positions(name: str) -> int:
    """A survey file's budget part as positions: "10m" is 10,000,000."""
    return int(name.removesuffix("m")) * 1_000_000


def undecided(game: str, budget: int, deals: int, surveys: Path = SURVEYS) -> list[int]:
    """Deals 1..``deals`` of ``game`` that no row of ``surveys`` within ``budget``
    decides (the budgets of the files' names, ``research/solvability.py``, up to it)."""
    sizes = [name for name in BUDGETS if positions(name) <= budget]  # smallest first
    if not sizes:
        raise ValueError(f"no survey budget within {budget:,} positions (the least is 1m)")
    found, missing = verdicts(game, sizes[-1], deals, surveys)
    left = [number for number, verdict in found.items() if verdict == "unknown"] + missing
    return sorted(number for number in left if number <= deals)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(VARIANTS))
    parser.add_argument("--deals", type=int, default=200, help="deals 1..N")
    parser.add_argument("--budget", type=int, default=10_000_000, help="positions a deal")
    parser.add_argument("--out", type=Path, required=True, help="rows, appended; resumed")
    parser.add_argument("--surveys", type=Path, default=SURVEYS, help="where the rows are")
    parser.add_argument(
        "--only",
        type=int,
        action="append",
        help="search only this deal of those left (repeat it; in the order given)",
    )
    parser.add_argument(
        "--relaxed-stock",
        type=int,
        default=relaxation.STOCK_LIMIT,
        help="the relaxed tableau's test is asked where the stock holds at most this many",
    )
    parser.add_argument(
        "--relaxed-states",
        type=int,
        default=relaxation.STATE_LIMIT,
        help="one test gives up at this many relaxed positions",
    )
    args = parser.parse_args(argv)
    variant = get_variant(args.game)
    arranged = arrangements.supports(variant)
    end_torn_line(args.out)
    done = {row["deal"] for row in read_rows(args.out)}
    search = DESCRIBED + (", up to run arrangement" if arranged else "")
    if relaxation.applies(variant):
        search += ", relaxed tableau"
        if (args.relaxed_stock, args.relaxed_states) != (
            relaxation.STOCK_LIMIT,
            relaxation.STATE_LIMIT,
        ):
            search += f" (stock {args.relaxed_stock}, {args.relaxed_states:,} states a test)"
    left = undecided(args.game, args.budget, args.deals, args.surveys)
    if args.only:
        left = [number for number in args.only if number in left]
    for number in left:
        if number in done:
            continue
        started = time.perf_counter()
        start = deal(variant, number)
        found = core.search(
            start,
            args.budget,
            arranged=arranged,
            table_size=1 << 26,
            max_depth=1 << 22,
            relaxed_stock=args.relaxed_stock,
            relaxed_states=args.relaxed_states,
        )
        if found.result == "solved" and not wins(start, found.moves):
            raise SystemExit(f"deal {number}: the winning line does not replay (a solver bug)")
        row = {
            "deal": number,
            "result": found.result,
            "positions": found.positions,
            "elapsed_ms": int((time.perf_counter() - started) * 1000),
            "stopped": found.stopped,
            "search": search,
        }
        with args.out.open("a") as rows:
            rows.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
