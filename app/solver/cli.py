"""``python -m app.solver prove|survey``: proven deal lists and solvability figures."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from itertools import repeat
from pathlib import Path
from typing import Any

from tqdm import tqdm

from app.engine import VARIANTS, deal, get_variant
from app.services import seeds
from app.solver.plan import solve
from app.solver.result import SolveResult, replay

SEEDS_DIR = Path(__file__).resolve().parents[2] / "seeds"
# Per-deal budget of `prove`: enough for the winnable deals the solver finds quickly
# (most take a few hundred positions); the list needs proven deals, not every deal decided.
PROVE_BUDGET = 4_000


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.solver")
    sub = parser.add_subparsers(dest="command", required=True)
    prove = sub.add_parser("prove", help="append proven-winnable deals to seeds/<variant>.json")
    prove.add_argument("variant")
    prove.add_argument("--count", type=int, default=500, help="deals wanted in the file")
    prove.add_argument("--budget", type=int, default=PROVE_BUDGET, help="positions per deal")
    prove.add_argument("--out", type=Path, default=None, help="default seeds/<variant>.json")
    survey = sub.add_parser("survey", help="solve a range of deals and print the figures")
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
    for command in (prove, survey):
        command.add_argument(
            "--table-size",
            type=int,
            default=None,
            help="the native transposition table's bound in keys (default 2^23); a search "
            "that fills it answers unknown",
        )
        command.add_argument(
            "--max-depth",
            type=int,
            default=None,
            help="the native search's stack bound in frames (default 2^20, about 500 bytes "
            "each); a search that fills it answers unknown. Past 2^20 positions a deep "
            "search can reach it: give the budget to spend all of it",
        )
    args = parser.parse_args(argv)
    if args.command == "prove":
        return run_prove(
            args.variant,
            args.count,
            args.budget,
            args.out,
            args.table_size,
            args.max_depth,
        )
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


def _load(path: Path, variant: str) -> dict[str, Any]:
    if path.exists():
        data = seeds.load(path)
        if data.get("variant") != variant:
            raise SystemExit(f"{path} holds {data.get('variant')!r}, not {variant!r}")
        return data
    return {"variant": variant, "deals": []}


def _save(path: Path, data: dict[str, Any]) -> None:
    seeds.save(path, data)  # format 2 (app/services/seeds.py), written then renamed


def run_prove(
    name: str,
    count: int,
    budget: int,
    out: Path | None,
    table_size: int | None = None,
    max_depth: int | None = None,
) -> int:
    variant = get_variant(name)
    path = out or SEEDS_DIR / f"{variant.name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _load(path, variant.name)
    deals: list[dict[str, Any]] = data["deals"]
    known = {e["deal"] for e in deals}
    # Resumable: carry on after the last deal tried (kept in the file), never retrying.
    number = max([data.get("searched_through", 0), *known]) + 1
    bar = tqdm(total=count, initial=min(len(deals), count), unit="deal", file=sys.stderr)
    last_save = time.monotonic()
    while len(deals) < count:
        start = deal(variant, number)
        result = solve(start, max_positions=budget, table_size=table_size, max_depth=max_depth)
        if result.result == "solved" and replay(start, result.moves).is_won:
            deals.append(
                {
                    "deal": number,
                    "positions": result.positions,
                    "line": seeds.format_line(result.moves),
                }
            )
            bar.update(1)
        bar.set_postfix(deal=number, refresh=False)
        data["searched_through"] = number
        if time.monotonic() - last_save > 5 or len(deals) >= count:
            _save(path, data)
            last_save = time.monotonic()
        number += 1
    _save(path, data)
    bar.close()
    print(f"{path}: {len(deals)} proven deals (searched deals 1 to {number - 1})")
    return 0


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
