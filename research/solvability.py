"""The solvability tables of docs/solvability.md, from the dataset (research/results.sqlite).

For each game, deals 1 to ``--deals`` within a budget, each deal's verdict by the one rule
(``research/dataset.py``, ``VERDICTS``; research/README.md): proven winnable or lost when
any counted row within the budget proves it, undecided when a row of the budget itself
left it so. The table gives each share with its 95% Wilson score interval; a game with
deals not yet surveyed at the budget (no row of it, and none below it decided them) is
listed apart, not counted. The run fails when two rows contradict each other on a deal
(one says solved, another unsolvable). Run:

    .venv/bin/python -m research solvability [--budget 1m] [--deals 1000] [--until DATE]
"""

from __future__ import annotations

import argparse
import math
import sqlite3
import sys
from pathlib import Path
from statistics import NormalDist

from app.engine import VARIANTS
from research import dataset

Z95 = NormalDist().inv_cdf(0.975)


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial share (better than the normal
    approximation near 0 and 1, where several of these shares lie)."""
    if trials == 0:
        return 0.0, 1.0
    share = successes / trials
    denominator = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    return max(0.0, centre - half / denominator), min(1.0, centre + half / denominator)


def percent(low: float, high: float) -> str:
    return f"{100 * low:.1f}-{100 * high:.1f}%"


def table(connection: sqlite3.Connection, budget: int, deals: int, label: str = "") -> list[str]:
    out = [
        "| game | deals | proven winnable (95% CI) | proven lost (95% CI) | undecided (95% CI) |",
        "| --- | ---: | --- | --- | --- |",
    ]
    found = dataset.verdicts(connection, budget)
    surveyed = {
        row[0]
        for row in connection.execute("SELECT DISTINCT game FROM searches WHERE kind = 'survey'")
    }
    partial = []
    for game in VARIANTS:
        if game not in surveyed:
            continue  # never surveyed
        told = [found.get((game, deal)) for deal in range(1, deals + 1)]
        missing = [deal for deal, verdict in enumerate(told, 1) if verdict is None]
        if missing:
            partial.append(f"{game} ({len(missing)}, the first {missing[0]})")
            continue
        cells = [
            f"{n:,} ({100 * n / deals:.1f}%; {percent(*wilson(n, deals))})"
            for n in (told.count(v) for v in ("solved", "unsolvable", "unknown"))
        ]
        out.append(f"| {game} | {deals:,} | " + " | ".join(cells) + " |")
    if partial:
        out.append("")
        out.append(
            f"Not yet surveyed at {label or f'{budget:,}'} (deals undecided below it): "
            + ", ".join(partial)
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", default="1m", help="positions a deal: 1m, 10m, 30m, ...")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET)
    parser.add_argument(
        "--until",
        metavar="DATE",
        help="only the rows dated up to DATE (YYYY-MM-DD): a table as it stood that day",
    )
    args = parser.parse_args(argv)
    connection = dataset.connect(args.dataset, readonly=True)
    if args.until:
        # A temporary table of that name hides the dataset's in unqualified queries, so
        # the one rule (dataset.VERDICTS) reads only those rows.
        connection.execute(
            "CREATE TEMP TABLE searches AS SELECT * FROM main.searches WHERE date <= ?",
            (args.until,),
        )
    clashes = dataset.contradictions(connection)
    if clashes:
        print("rows contradict each other:", *clashes, sep="\n", file=sys.stderr)
        return 1
    print("\n".join(table(connection, dataset.parse_budget(args.budget), args.deals, args.budget)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
