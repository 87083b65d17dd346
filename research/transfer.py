"""Wins of one game carried to a larger one: a winning line of ``--source`` on a deal,
replayed with validation in ``--target`` on the same deal number.

Where two games deal the same layout and one has every move of the other, a line that
wins the smaller one wins the larger: Deauville (single cards, no returns) inside Emperor
(the same, with foundation returns) and inside Rank and File (runs move). The engine
replays the line in the target game with every move validated, so a row is written only
for a line that wins there; the search may still have missed it in the target's own
larger space. Rows go to the dataset as survey rows of the target game, their settings'
``"via"`` naming the source game (``positions`` are the source search's)::

    .venv/bin/python -m research transfer --source deauville --target emperor \\
        --budget 10000000 268 338
"""

from __future__ import annotations

import argparse
import json
import time
from contextlib import closing
from pathlib import Path

from app.engine import deal, get_variant
from app.solver.plan import solve
from app.solver.result import wins
from research import dataset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="the smaller game, searched")
    parser.add_argument("--target", required=True, help="the larger game, replayed in")
    parser.add_argument("--budget", type=int, default=10_000_000)
    parser.add_argument("--name", default="via", help="the run's name in its rows' settings")
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET)
    parser.add_argument("deals", type=int, nargs="+")
    args = parser.parse_args(argv)
    source, target = get_variant(args.source), get_variant(args.target)
    settings = {"name": args.name, "table_size": 1 << 24, "max_depth": 1 << 24}
    with closing(dataset.connect(args.dataset)) as connection:
        for number in args.deals:
            started = time.perf_counter()
            found = solve(
                deal(source, number),
                max_positions=args.budget,
                table_size=1 << 24,
                max_depth=1 << 24,
            )
            won = found.result == "solved" and wins(deal(target, number), found.moves)
            row = {
                "deal": number,
                "result": "solved" if won else "unknown",
                "positions": found.positions,
                "elapsed_ms": int((time.perf_counter() - started) * 1000),
                "via": args.source,
            }
            record = dataset.survey_row(
                row, game=target.name, budget=args.budget, settings=settings, source="transfer"
            )
            dataset.append(connection, [record])
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
