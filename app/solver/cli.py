"""``python -m app.solver prove``: the public lists of proven-winnable deals (seeds/).

The surveys of solvability (``python -m research survey``) are research, beside the
product: research/README.md."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app import seeds
from app.engine import deal, get_variant
from app.solver.plan import solve
from app.solver.result import replay

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
    add_search_bounds(prove)
    args = parser.parse_args(argv)
    return run_prove(
        args.variant,
        args.count,
        args.budget,
        args.out,
        args.table_size,
        args.max_depth,
    )


def add_search_bounds(command: argparse.ArgumentParser) -> None:
    """The native search's two bounds, as options of ``command``."""
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


def _load(path: Path, variant: str) -> dict[str, Any]:
    if path.exists():
        data = seeds.load(path)
        if data.get("variant") != variant:
            raise SystemExit(f"{path} holds {data.get('variant')!r}, not {variant!r}")
        return data
    return {"variant": variant, "deals": []}


def _save(path: Path, data: dict[str, Any]) -> None:
    seeds.save(path, data)  # format 2 (app/seeds.py), written then renamed


def _progress(proven: int, count: int, number: int) -> None:
    """One line on stderr, rewritten in place: deals proven so far, and the deal tried."""
    print(f"\r{proven}/{count} deals proven (deal {number})", end="", file=sys.stderr, flush=True)


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
    last_save = last_shown = time.monotonic()
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
        data["searched_through"] = number
        if time.monotonic() - last_shown > 1:
            _progress(len(deals), count, number)
            last_shown = time.monotonic()
        if time.monotonic() - last_save > 5 or len(deals) >= count:
            _save(path, data)
            last_save = time.monotonic()
        number += 1
    _save(path, data)
    _progress(len(deals), count, number - 1)
    print(file=sys.stderr)
    print(f"{path}: {len(deals)} proven deals (searched deals 1 to {number - 1})")
    return 0
