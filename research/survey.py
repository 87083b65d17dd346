"""``python -m research survey``: a range of deals searched by ``solve``, one row per deal,
and the figures (research/README.md).

Moved from ``python -m app.solver`` (which keeps ``prove``, the product's seeds lists):
the product never imports research."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from itertools import repeat
from pathlib import Path
from typing import Any

from tqdm import tqdm

from app.engine import VARIANTS, deal, get_variant
from app.solver.cli import add_search_bounds
from app.solver.plan import solve
from app.solver.result import SolveResult, replay


def main(argv: Sequence[str] | None = None) -> int:
    survey = argparse.ArgumentParser(
        prog="python -m research survey", description="solve a range of deals and print the figures"
    )
    survey.add_argument("variant")
    survey.add_argument("--from", dest="first", type=int, default=1)
    survey.add_argument("--count", type=int, default=200)
    survey.add_argument("--budget", type=int, default=1_000_000, help="positions per deal")
    survey.add_argument("--seconds", type=float, default=None, help="wall time per deal")
    survey.add_argument("--json", action="store_true", help="one JSON object per deal")
    survey.add_argument(
        "--out",
        type=Path,
        default=None,
        help="also append each deal's JSON line to this file, and skip the deals it holds "
        "(a long survey resumes where a stopped one ended)",
    )
    survey.add_argument("--jobs", type=int, default=1, help="deals searched at once (processes)")
    survey.add_argument(
        "--undecided-in",
        type=Path,
        action="append",
        default=None,
        help="search only the deals of the range that this earlier survey's rows leave "
        "undecided (repeatable: undecided in all of them)",
    )
    add_search_bounds(survey)
    args = survey.parse_args(argv)
    return run_survey(
        args.variant,
        args.first,
        args.count,
        args.budget,
        args.seconds,
        args.json,
        out=args.out,
        jobs=args.jobs,
        table_size=args.table_size,
        max_depth=args.max_depth,
        undecided_in=args.undecided_in,
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


def read_rows(path: Path | None) -> list[dict[str, Any]]:
    """The JSON rows an earlier run wrote to ``path`` (none when it does not exist); a
    torn line, the last one of a run stopped mid-write, is left out."""
    if path is None or not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def survey_game(path: Path) -> str | None:
    """The game a survey file's name starts with (``<game>-<budget>-<name>.jsonl``), else
    None: a file of several games names the game in each row."""
    return next((name for name in VARIANTS if path.name.startswith(name + "-")), None)


def end_torn_line(path: Path) -> None:
    """End the torn last line of a run stopped mid-write, so that rows appended to
    ``path`` start on a line of their own."""
    if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
        with path.open("a") as sink:
            sink.write("\n")


def _done(out: Path | None) -> dict[int, dict[str, Any]]:
    """The deals an earlier run already wrote to ``out`` (a torn last line is ignored)."""
    return {row["deal"]: row for row in read_rows(out)}


def run_survey(
    name: str,
    first: int,
    count: int,
    budget: int,
    seconds: float | None,
    as_json: bool,
    out: Path | None = None,
    jobs: int = 1,
    table_size: int | None = None,
    max_depth: int | None = None,
    undecided_in: Sequence[Path] | None = None,
) -> int:
    variant = get_variant(name)
    done = _done(out)
    numbers: Sequence[int] = range(first, first + count)
    for earlier in undecided_in or ():
        decided = {n for n, row in _done(earlier).items() if row["result"] != "unknown"}
        numbers = [n for n in numbers if n not in decided]
    todo = [n for n in numbers if n not in done]
    rows: dict[int, dict[str, Any]] = {n: done[n] for n in numbers if n in done}
    progress = tqdm(
        total=len(numbers), initial=len(rows), unit="deal", file=sys.stderr, disable=as_json
    )
    if out is not None:
        end_torn_line(out)
    sink = out.open("a") if out is not None else None
    found: Iterator[dict[str, Any]]
    with ProcessPoolExecutor(jobs) if jobs > 1 else nullcontext() as pool:
        # In deal order either way, so the output reads the same with any --jobs.
        if pool is None:
            found = (
                _survey_one(variant.name, n, budget, seconds, table_size, max_depth) for n in todo
            )
        else:
            found = pool.map(
                _survey_one,
                repeat(variant.name),
                todo,
                repeat(budget),
                repeat(seconds),
                repeat(table_size),
                repeat(max_depth),
            )
        for row in found:
            rows[row["deal"]] = row
            text = json.dumps(row)
            if as_json:
                print(text, flush=True)
            if sink is not None:
                sink.write(text + "\n")
                sink.flush()
            progress.update(1)
    if sink is not None:
        sink.close()
    progress.close()
    if not as_json:
        results = [
            SolveResult(r["result"], [], r["positions"], r["elapsed_ms"])
            for _n, r in sorted(rows.items())
        ]
        searched = f"deals {first}-{first + count - 1}"
        if undecided_in:
            searched += " left undecided"
        print(summary(variant.name, first, results, budget, searched))
    return 0


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
