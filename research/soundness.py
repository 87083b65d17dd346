"""A wide hunt for wrong verdicts: the solver's searches against the plainest one.

``tests/solver/test_reductions.py`` checks every reduction, together, against
``exhaustive`` (every legal move, each position keyed exactly as it is) on 187 positions
small enough for it. This runs the same comparison on as many positions as time allows,
in the background, writing one row per position to a file it resumes from. The plain
search runs on the native core (``--plain-core``; the same verdicts as the Python one,
``tests/solver/test_exhaustive.py``), so it decides positions far larger than the tests
can afford:

- positions: late positions of greedy and of random play of each game (its house rule
  flipped too; ``--back`` of them, every 12th move from the end), and positions along
  the line ``solve`` wins a deal by, from 70% of the way on, with a few random moves off
  each (where a win turns into a loss nearby: a wrong ``unsolvable`` the search once gave
  was 165 moves into such a line);
- the plain search decides each within ``--plain-budget`` positions; where it does not,
  a position on a winning line is known won all the same, and any other is recorded as
  undecided and left;
- then the native core's full search, plain and up to run arrangement (where the
  variant supports it), each with and without deferred draws, and the hint's own path
  (``plan.solve`` at the hint budget), each at ``--full-budget`` positions.

A search that gives the other verdict than the one known is a contradiction: the row
keeps the position's text, and ``--summary`` fails (exit 1). Searches that run out of
budget are counted, not contradictions.

Each position is a row of the dataset (kind ``soundness``; the plain search's verdict,
the others' in ``extra``), under the run's ``--name``: a stopped sweep resumes over the
rows of its name, and ``--summary`` counts them (the imported runs are named after their
old files, e.g. ``soundness-487d7f2``)::

    nice .venv/bin/python -m research soundness --deals 1-20 --name soundness-NEW
    .venv/bin/python -m research soundness --summary --name soundness-487d7f2
"""

from __future__ import annotations

import argparse
import random
import sqlite3
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from app.config import Settings
from app.engine import VARIANTS, State
from app.solver import arrangements, core
from app.solver.exhaustive import exhaustive
from app.solver.plan import solve
from app.solver.result import replay
from research import dataset
from tests.solver.test_native_core import start, walk

SEARCHES = ("full", "full-undeferred", "arranged", "arranged-undeferred", "hint")


def positions(name: str, flip: bool, number: int, back: int = 8) -> Iterator[tuple[str, State]]:
    """(where it comes from, position) for one deal of one game."""
    for greedy in (True, False):
        rng = random.Random(f"soundness-{name}-{flip}-{number}-{greedy}")
        played = list(walk(start(name, flip, number), rng, 600, greedy))
        kind = "greedy" if greedy else "random"
        for steps, state in enumerate(played[-1::-12][:back]):
            yield f"{kind}-{steps}", state
    state = start(name, flip, number)
    won = solve(state, 1_000_000)
    if won.result != "solved":
        return
    rng = random.Random(f"soundness-line-{name}-{flip}-{number}")
    for share in (0.7, 0.8, 0.88, 0.94, 0.97, 0.99):
        on_line = replay(state, won.moves[: int(len(won.moves) * share)])
        yield f"line-{share}", on_line
        yield f"off-{share}", list(walk(on_line, rng, 12, False))[-1]


def verdicts(state: State, budget: int, hint_budget: int) -> dict[str, str]:
    out: dict[str, str] = {
        "full": core.search(state, core.SearchLimits(budget)).result,
        "full-undeferred": core.search(state, core.SearchLimits(budget, defer_draws=False)).result,
    }
    if arrangements.supports(state.variant):
        out["arranged"] = core.search(state, core.SearchLimits(budget, arranged=True)).result
        out["arranged-undeferred"] = core.search(
            state, core.SearchLimits(budget, arranged=True, defer_draws=False)
        ).result
    out["hint"] = solve(state, hint_budget).result
    return out


def plain(state: State, budget: int, on: str) -> tuple[str, int]:
    """The plain search's verdict and positions, on the native core or in Python."""
    found = core.exhaustive(state, budget) if on == "native" else exhaustive(state, budget)
    return found.result, found.positions


def truth(where: str, plain: str) -> str:
    """The verdict a search must not contradict: the plain search's, and where that ran
    out, ``solved`` for a position on a winning line (the rest of the line wins it)."""
    if plain == "unknown" and where.startswith("line-"):
        return "solved"
    return plain


def contradicts(truth: str, got: str) -> bool:
    return {truth, got} == {"solved", "unsolvable"}


def run_rows(connection: sqlite3.Connection, name: str) -> list[dict[str, Any]]:
    """The rows of the run ``name``, as the sweep made them (id, game, plain, truth and
    the searches' verdicts, the position where one contradicts)."""
    rows = connection.execute(
        "SELECT * FROM searches WHERE kind = 'soundness' "
        "AND json_extract(settings, '$.name') = ? ORDER BY id",
        (name,),
    )
    out = []
    for row in rows:
        told: dict[str, Any] = {"game": row["game"], **dataset.extra(row)}
        if row["verdict"] is not None:
            told |= {"plain": row["verdict"], "plain_positions": row["positions"]}
        out.append(told)
    return out


def sweep(args: argparse.Namespace) -> None:
    connection = dataset.connect(args.dataset)
    done = {row["id"] for row in run_rows(connection, args.name)}
    first, last = (int(part) for part in args.deals.split("-"))
    hint_budget = Settings().hint_max_positions
    settings = {"name": args.name, "plain_core": args.plain_core, "back": args.back}
    settings["full_budget"] = args.full_budget

    def add(row: dict[str, Any]) -> None:
        record = dataset.soundness_row(
            row, budget=args.plain_budget, settings=settings, source="soundness"
        )
        dataset.append(connection, [record])

    for number in range(first, last + 1):
        for name in args.games:
            for flip in (False, True):
                prefix = f"{name}/{int(flip)}/{number}"
                if f"{prefix}/done" in done:
                    continue
                for where, state in positions(name, flip, number, args.back):
                    if f"{prefix}/{where}" not in done:
                        add(searched(f"{prefix}/{where}", name, where, state, args, hint_budget))
                add({"id": f"{prefix}/done", "game": name})
    connection.close()


def searched(
    row_id: str, name: str, where: str, state: State, args: argparse.Namespace, hint_budget: int
) -> dict[str, Any]:
    """One position's row: the plain search, and where it knows the verdict, the others."""
    row: dict[str, Any] = {"id": row_id, "game": name}
    row["plain"], row["plain_positions"] = plain(state, args.plain_budget, args.plain_core)
    row["truth"] = truth(where, row["plain"])
    if row["truth"] != "unknown":
        row.update(verdicts(state, args.full_budget, hint_budget))
        if any(contradicts(row["truth"], row.get(s, "")) for s in SEARCHES):
            row["position"] = state.to_text()
    return row


def summary(args: argparse.Namespace) -> int:
    with closing(dataset.connect(args.dataset)) as connection:
        rows = [row for row in run_rows(connection, args.name) if "plain" in row]
    print("| game | positions | known (won, lost) | search | agrees | undecided | contradicts |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    bad = 0
    for name in VARIANTS:
        mine = [row for row in rows if row["game"] == name]
        decided = [row for row in mine if row.get("truth", row["plain"]) != "unknown"]
        won = sum(row.get("truth", row["plain"]) == "solved" for row in decided)
        for search in SEARCHES:
            results = Counter(
                "contradicts"
                if contradicts(row.get("truth", row["plain"]), row[search])
                else "undecided"
                if row[search] == "unknown"
                else "agrees"
                for row in decided
                if search in row
            )
            if not results:
                continue
            bad += results["contradicts"]
            print(
                f"| {name} | {len(mine)} | {len(decided)} ({won}, {len(decided) - won}) | {search}"
                f" | {results['agrees']} | {results['undecided']} | {results['contradicts']} |"
            )
    print(f"{len(rows)} positions, {bad} contradictions")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=list(VARIANTS))
    parser.add_argument("--deals", default="1-10", help="first-last")
    parser.add_argument("--plain-budget", type=int, default=2_000_000)
    parser.add_argument("--plain-core", choices=["native", "python"], default="native")
    parser.add_argument("--back", type=int, default=8, help="late positions of each play")
    parser.add_argument("--full-budget", type=int, default=200_000)
    parser.add_argument("--name", required=True, help="the run's name (it resumes by it)")
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET)
    parser.add_argument("--summary", action="store_true", help="the run's table, then stop")
    args = parser.parse_args(argv)
    if args.summary:
        return summary(args)
    sweep(args)
    return summary(args)


if __name__ == "__main__":
    raise SystemExit(main())
