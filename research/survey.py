"""``python -m research survey``: a range of deals searched by ``solve``, one row per deal
in the dataset (research/results.sqlite), and the figures (research/README.md).

A survey resumes: the deals that rows of the same game, budget and settings (``--name``
among them) already hold are not searched again, so a stopped survey goes on where it
ended, and a finished one prints its figures without searching. A new search of the same
deals takes a new ``--name``."""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

from tqdm import tqdm

from app.engine import deal, get_variant
from app.solver.cli import add_search_bounds
from app.solver.plan import solve
from app.solver.result import SolveResult, replay
from research import dataset

SEARCH = "plan.solve"  # the settings' word for the service's own search


@dataclass(frozen=True)
class Survey:
    """What to search: deals ``first`` on, ``count`` of them, of ``game``, with ``solve``'s
    budget and bounds."""

    game: str
    first: int = 1
    count: int = 200
    budget: int = 1_000_000
    seconds: float | None = None
    table_size: int | None = None
    max_depth: int | None = None
    name: str = "survey"

    def settings(self) -> dict[str, Any]:
        """The row's settings: what, besides the game and the budget, made the search."""
        bounds = {"seconds": self.seconds, "table_size": self.table_size}
        bounds["max_depth"] = self.max_depth
        return {"name": self.name, "search": SEARCH, **bounds}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research survey",
        description="solve a range of deals, add a row per deal to the dataset, print the figures",
    )
    parser.add_argument("variant")
    parser.add_argument("--from", dest="first", type=int, default=1)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--budget", type=int, default=1_000_000, help="positions per deal")
    parser.add_argument("--seconds", type=float, default=None, help="wall time per deal")
    parser.add_argument("--json", action="store_true", help="one JSON object per deal")
    parser.add_argument(
        "--name",
        default="survey",
        help="the run's name, in each row's settings; a run resumes over the rows of its name",
    )
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET)
    parser.add_argument(
        "--no-record", action="store_true", help="add no rows to the dataset (and resume none)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="deals searched at once (processes)")
    parser.add_argument(
        "--undecided",
        action="store_true",
        help="search only the deals of the range that the dataset leaves undecided within "
        "the budget (the rule of research/README.md)",
    )
    add_search_bounds(parser)
    args = parser.parse_args(argv)
    survey = Survey(
        get_variant(args.variant).name,
        args.first,
        args.count,
        args.budget,
        args.seconds,
        args.table_size,
        args.max_depth,
        args.name,
    )
    return run_survey(
        survey, args.dataset, args.json, args.jobs, args.undecided, record=not args.no_record
    )


def _survey_one(
    name: str,
    number: int,
    budget: int,
    seconds: float | None,
    table_size: int | None = None,
    max_depth: int | None = None,
) -> dict[str, Any]:
    variant = get_variant(name)
    start = deal(variant, number)
    result = solve(
        start,
        max_positions=budget,
        max_seconds=seconds,
        table_size=table_size,
        max_depth=max_depth,
    )
    if result.result == "solved" and not replay(start, result.moves).is_won:
        raise SystemExit(f"deal {number}: the winning line does not replay (a solver bug)")
    row: dict[str, Any] = {
        "deal": number,
        "result": result.result,
        "positions": result.positions,
        "elapsed_ms": result.elapsed_ms,
    }
    if result.stopped:
        row["stopped"] = result.stopped  # which limit left it undecided
    return row


def _undecided(connection: sqlite3.Connection, survey: Survey, numbers: Sequence[int]) -> list[int]:
    """Of ``numbers``, the deals the dataset's rows leave undecided within the budget."""
    found = dataset.verdicts(connection, survey.budget)
    decided = ("solved", "unsolvable", "contradiction")
    return [n for n in numbers if found.get((survey.game, n)) not in decided]


def _searched(survey: Survey, todo: Sequence[int], jobs: int) -> Iterator[dict[str, Any]]:
    """The rows of the deals ``todo``, in deal order with any ``jobs``."""
    arguments = (survey.budget, survey.seconds, survey.table_size, survey.max_depth)
    if jobs <= 1:
        yield from (_survey_one(survey.game, n, *arguments) for n in todo)
        return
    with ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(_survey_one, repeat(survey.game), todo, *map(repeat, arguments))


def run_survey(
    survey: Survey,
    where: Path,
    as_json: bool = False,
    jobs: int = 1,
    undecided: bool = False,
    record: bool = True,
) -> int:
    """Search the deals of ``survey`` that the rows of its settings in the dataset at
    ``where`` do not hold yet, add a row per deal (unless not ``record``: then it neither
    resumes nor adds), and print the figures (or, ``as_json``, each new row)."""
    with closing(dataset.connect(where)) as connection:
        numbers: Sequence[int] = range(survey.first, survey.first + survey.count)
        if undecided:
            numbers = _undecided(connection, survey, numbers)
        held = (
            dataset.rows_of(connection, "survey", survey.game, survey.budget, survey.settings())
            if record
            else []
        )
        done = {row["deal"]: dataset.survey_json(row) for row in held}
        rows = {n: done[n] for n in numbers if n in done}
        progress = tqdm(
            total=len(numbers), initial=len(rows), unit="deal", file=sys.stderr, disable=as_json
        )
        for row in _searched(survey, [n for n in numbers if n not in done], jobs):
            rows[row["deal"]] = row
            if as_json:
                print(json.dumps(row), flush=True)
            if record:
                dataset.append(connection, [_record(survey, row)])
            progress.update(1)
        progress.close()
    if not as_json:
        results = [
            SolveResult(r["result"], [], r["positions"], r["elapsed_ms"])
            for _n, r in sorted(rows.items())
        ]
        searched = f"deals {survey.first}-{survey.first + survey.count - 1}"
        if undecided:
            searched += " left undecided"
        print(summary(survey.game, survey.first, results, survey.budget, searched))
    return 0


def _record(survey: Survey, row: dict[str, Any]) -> dict[str, Any]:
    return dataset.survey_row(
        row,
        game=survey.game,
        budget=survey.budget,
        settings=survey.settings(),
        source="survey",
    )


def summary(
    name: str, first: int, results: list[SolveResult], budget: int, searched: str = ""
) -> str:
    """One line of figures; ``searched`` names the deals (default: ``first`` on, in a row)."""
    n = len(results)
    if not n:
        return f"{name}: no deals"
    counts = {
        r: sum(1 for x in results if x.result == r) for r in ("solved", "unsolvable", "unknown")
    }
    times = [x.elapsed_ms for x in results]
    positions = sum(x.positions for x in results)
    rate = positions / max(sum(times) / 1000, 1e-9)
    share = ", ".join(f"{k} {v} ({100 * v / n:.1f}%)" for k, v in counts.items())
    decided = counts["solved"] + counts["unsolvable"]
    return (
        f"{name} {searched or f'deals {first}-{first + n - 1}'}, "
        f"budget {budget:,} positions: {share}; "
        f"decided {100 * decided / n:.1f}%; {rate:,.0f} positions/s; "
        f"time per deal median {statistics.median(times) / 1000:.2f} s, "
        f"worst {max(times) / 1000:.2f} s"
    )
