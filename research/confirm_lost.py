"""The deals the surveys prove lost, searched again from their first position by the
plainest search there is.

A lost proof rests on every reduction of ``docs/solver.md`` together. ``exhaustive``
(``app/solver/exhaustive.py``, here its native mirror) rests on nothing but the engine's
rules: every legal move, each position keyed exactly as it is, no safe moves, no
obligations, no pruning. Where it exhausts a deal within its budget it proves the deal
lost on its own, and where it wins one that a survey proved lost, that proof is wrong.
``research/soundness.py`` makes the same comparison on positions late in play; this makes
it on the surveys' own verdicts, whole deals, smallest proofs first (the plain search
needs many times the positions the solver does, so the small proofs are the ones it can
finish).

    nice .venv/bin/python -m research confirm-lost canfield forty-thieves rainbow \\
        --budget 100000000

One row per deal in the dataset (kind ``plain``; a rerun at the same budget skips the
deals it holds); the table at the end counts the rows of the budget; exit 1 on a
contradiction. Memory grows with the budget (10,000,000 positions of
Forty Thieves deal 238: 146 MB, 17 s; a deep path costs more, ``core.exhaustive``).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from app.engine import VARIANTS, deal, get_variant
from app.solver import core
from research import dataset

SETTINGS = {"search": "plain (core.exhaustive)"}


def proven_lost(connection: sqlite3.Connection, game: str) -> list[tuple[int, int]]:
    """(deal, positions of its smallest proof) for every deal of ``game`` that some row
    proves lost (a survey's, an early survey's or a reproof's, at any budget), smallest
    proof first."""
    rows = connection.execute(
        "SELECT deal, MIN(positions) FROM searches WHERE game = ? AND verdict = 'unsolvable' "
        "AND kind IN ('survey', 'early-survey', 'reproof') GROUP BY deal",
        (game,),
    )
    return sorted(((deal, positions) for deal, positions in rows), key=lambda i: (i[1], i[0]))


def confirm(game: str, number: int, proof: int, budget: int) -> dict[str, Any]:
    """The plain search on deal ``number`` of ``game`` from its first position."""
    started = time.perf_counter()
    found = core.exhaustive(deal(get_variant(game), number), budget)
    return {
        "game": game,
        "deal": number,
        "proof_positions": proof,
        "plain": found.result,
        "plain_positions": found.positions,
        "seconds": round(time.perf_counter() - started, 1),
        "contradiction": found.result == "solved",
    }


def table(rows: list[dict[str, Any]]) -> str:
    counts: Counter[tuple[str, str]] = Counter((row["game"], row["plain"]) for row in rows)
    lines = ["| game | proven lost, searched | plain: lost too | plain: won | plain: undecided |"]
    lines.append("| --- | ---: | ---: | ---: | ---: |")
    for game in sorted({game for game, _ in counts}):
        told = [counts[(game, verdict)] for verdict in ("unsolvable", "solved", "unknown")]
        lines.append(f"| {game} | {sum(told)} | " + " | ".join(str(n) for n in told) + " |")
    return "\n".join(lines)


def held(connection: sqlite3.Connection, game: str, budget: int) -> list[dict[str, Any]]:
    """The plain search's rows of ``game`` at ``budget`` (whatever run wrote them), as
    :func:`confirm` gives them."""
    return [
        {
            "game": row["game"],
            "deal": row["deal"],
            "plain": row["verdict"],
            "plain_positions": row["positions"],
            "seconds": row["seconds"],
            **dataset.extra(row),
        }
        for row in connection.execute(
            "SELECT * FROM searches WHERE kind = 'plain' AND game = ? AND budget = ? ORDER BY id",
            (game, budget),
        )
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+", choices=sorted(VARIANTS))
    parser.add_argument("--budget", type=int, default=10_000_000, help="plain positions a deal")
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET)
    parser.add_argument("--limit", type=int, default=None, help="at most this many deals a game")
    parser.add_argument(
        "--deal", type=int, action="append", default=None, help="only this deal (repeatable)"
    )
    args = parser.parse_args(argv)
    connection = dataset.connect(args.dataset)
    rows = []
    for game in args.games:
        done = {row["deal"] for row in held(connection, game, args.budget)}
        for number, proof in proven_lost(connection, game)[: args.limit]:
            if number in done or (args.deal and number not in args.deal):
                continue
            row = confirm(game, number, proof, args.budget)
            record = dataset.plain_row(
                row, budget=args.budget, settings=SETTINGS, source="confirm-lost"
            )
            dataset.append(connection, [record])
            print(json.dumps(row), flush=True)
        rows += held(connection, game, args.budget)
    connection.close()
    print(table(rows))
    bad = [row for row in rows if row["contradiction"]]
    for row in bad:
        print(f"CONTRADICTION: {row['game']} deal {row['deal']} is won", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
