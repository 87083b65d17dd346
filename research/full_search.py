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

    nice .venv/bin/python -m research full-search rainbow --deals 200 --budget 10000000 \\
        --name relaxed-full

One row per deal in the dataset (kind ``survey``; a rerun with the same ``--name`` and
options skips the deals it holds); exit 0. ``--only 42 --only 45``
searches just those deals, in that order, where they are left undecided; with
``--again``, even where rows decide them (a verdict measured again by the current search).
``--no-relaxed`` leaves the relaxed tableau's test out (the full search as it was before
the test), as the rows' ``search`` says.
``--relaxed-stock`` and ``--relaxed-states`` say where the relaxed tableau's test is asked
and how far one test may run (``app/solver/relaxation.py``; the row's ``search`` names
them where they are not the defaults): asked at up to 4 stock cards and run to the end,
it proved Rainbow deal 5 lost (docs/decisions/0003-relaxed-tableau-test-room.md):

    nice .venv/bin/python -m research full-search rainbow --deals 200 --budget 10000000 \\
        --relaxed-stock 4 --relaxed-states 4000000 --name deep-full
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from app.engine import VARIANTS, Variant, deal, get_variant
from app.solver import arrangements, core, relaxation
from app.solver.result import wins
from research import dataset

DESCRIBED = "full search alone"
TABLE_SIZE, MAX_DEPTH = 1 << 26, 1 << 22


def undecided(connection: sqlite3.Connection, game: str, budget: int, deals: int) -> list[int]:
    """Deals 1..``deals`` of ``game`` that no row within ``budget`` decides (the rule of
    research/README.md: proven within it, by any counted row at or below it)."""
    found = dataset.verdicts(connection, budget)
    decided = ("solved", "unsolvable", "contradiction")
    return [n for n in range(1, deals + 1) if found.get((game, n)) not in decided]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(VARIANTS))
    parser.add_argument("--deals", type=int, default=200, help="deals 1..N")
    parser.add_argument("--budget", type=int, default=10_000_000, help="positions a deal")
    parser.add_argument(
        "--name", default="full", help="the run's name in its rows' settings (it resumes by it)"
    )
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET)
    parser.add_argument(
        "--only",
        type=int,
        action="append",
        help="search only this deal of those left (repeat it; in the order given)",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="search the --only deals even where rows decide them",
    )
    parser.add_argument(
        "--no-relaxed",
        dest="relaxed",
        action="store_false",
        help="leave the relaxed tableau's test out",
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
    search = described(variant, args.relaxed_stock, args.relaxed_states, args.relaxed)
    settings = {"name": args.name, "search": search, "table_size": TABLE_SIZE}
    settings["max_depth"] = MAX_DEPTH
    connection = dataset.connect(args.dataset)
    held = dataset.rows_of(connection, "survey", variant.name, args.budget, settings)
    done = {row["deal"] for row in held}
    left = undecided(connection, variant.name, args.budget, args.deals)
    if args.only:
        left = [number for number in args.only if args.again or number in left]
    for number in left:
        if number in done:
            continue
        row = full_search(
            variant.name, number, args.budget, args.relaxed_stock, args.relaxed_states, args.relaxed
        )
        row["search"] = search
        record = dataset.survey_row(
            row, game=variant.name, budget=args.budget, settings=settings, source="full-search"
        )
        dataset.append(connection, [record])
        print(json.dumps(row), flush=True)
    connection.close()
    return 0


def described(variant: Variant, stock: int, states: int, relaxed: bool = True) -> str:
    """The search's words in the rows' settings (the relaxed test's limits where they are
    not the defaults; its absence where it would apply)."""
    search = DESCRIBED + (", up to run arrangement" if arrangements.supports(variant) else "")
    if relaxation.applies(variant) and not relaxed:
        search += ", without the relaxed tableau"
    elif relaxation.applies(variant):
        search += ", relaxed tableau"
        if (stock, states) != (relaxation.STOCK_LIMIT, relaxation.STATE_LIMIT):
            search += f" (stock {stock}, {states:,} states a test)"
    return search


def full_search(
    game: str, number: int, budget: int, stock: int, states: int, relaxed: bool = True
) -> dict[str, Any]:
    """One deal's row: the full search alone from its first position (a win's line
    replayed by the engine first)."""
    variant = get_variant(game)
    started = time.perf_counter()
    start = deal(variant, number)
    found = core.search(
        start,
        core.SearchLimits(
            budget,
            arranged=arrangements.supports(variant),
            table_size=TABLE_SIZE,
            max_depth=MAX_DEPTH,
            relaxed=relaxed,
            relaxed_stock=stock,
            relaxed_states=states,
        ),
    )
    if found.result == "solved" and not wins(start, found.moves):
        raise SystemExit(f"deal {number}: the winning line does not replay (a solver bug)")
    return {
        "deal": number,
        "result": found.result,
        "positions": found.positions,
        "elapsed_ms": int((time.perf_counter() - started) * 1000),
        "stopped": found.stopped,
    }


if __name__ == "__main__":
    raise SystemExit(main())
