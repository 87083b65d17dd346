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

    nice .venv/bin/python -m research.confirm_lost canfield forty-thieves rainbow \\
        --budget 100000000 --out bench/checks/plain-lost.jsonl

One row per deal (a rerun skips the deals the file holds); the table at the end counts
them; exit 1 on a contradiction. Memory grows with the budget (10,000,000 positions of
Forty Thieves deal 238: 146 MB, 17 s; a deep path costs more, ``core.exhaustive``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from app.engine import VARIANTS, deal, get_variant
from app.solver import core
from research.survey import end_torn_line, read_rows, survey_game

SURVEYS = Path(__file__).resolve().parents[1] / "bench" / "surveys"


def proven_lost(game: str, surveys: Path) -> list[tuple[int, int]]:
    """(deal, positions of its smallest proof) for every deal of ``game`` some survey row
    proves lost (in a file of the game's, or of several games that names it in the row),
    smallest proof first."""
    smallest: dict[int, int] = {}
    for rows in sorted(surveys.glob("*.jsonl")):
        named = survey_game(rows)
        for row in read_rows(rows):
            if row.get("game", named) == game and row["result"] == "unsolvable":
                number = row["deal"]
                smallest[number] = min(row["positions"], smallest.get(number, row["positions"]))
    return sorted(smallest.items(), key=lambda item: (item[1], item[0]))


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+", choices=sorted(VARIANTS))
    parser.add_argument("--budget", type=int, default=10_000_000, help="plain positions a deal")
    parser.add_argument("--out", type=Path, required=True, help="rows, appended; resumed")
    parser.add_argument("--surveys", type=Path, default=SURVEYS, help="where the rows are")
    parser.add_argument("--limit", type=int, default=None, help="at most this many deals a game")
    parser.add_argument(
        "--deal", type=int, action="append", default=None, help="only this deal (repeatable)"
    )
    args = parser.parse_args(argv)
    done = {(row["game"], row["deal"]) for row in read_rows(args.out)}
    end_torn_line(args.out)
    with args.out.open("a") as sink:
        for game in args.games:
            for number, proof in proven_lost(game, args.surveys)[: args.limit]:
                if (game, number) in done or (args.deal and number not in args.deal):
                    continue
                row = confirm(game, number, proof, args.budget)
                print(json.dumps(row), file=sink, flush=True)
                print(json.dumps(row), flush=True)
    rows = [row for row in read_rows(args.out) if row["game"] in args.games]
    print(table(rows))
    bad = [row for row in rows if row["contradiction"]]
    for row in bad:
        print(f"CONTRADICTION: {row['game']} deal {row['deal']} is won", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
