"""The beam passes of ``solve``'s plan, each run alone to its end, and what a plan's
budget makes of them.

``run`` searches each beam pass that :func:`app.solver.plan.plan` lists for a deal, in
the plan's order, with no shared budget (each up to ``--cap`` positions), and appends one
row per pass to ``--out`` (resumable): won or not, and the positions it met. A pass is
deterministic and does not depend on the passes before it, so these rows say exactly
which passes a deal's search could win with, and at what cost.

``plan`` replays the plan of a budget over those rows: the restarts and the full search
are taken to win nothing (true of the deals the surveys leave undecided, the ones worth
running this on: a survey's row says whether they did), each pass has what the passes
before it left of the beam's share, and a pass wins when its winning cost fits in that.
It prints, for each deal, the positions ``solve`` would spend before the win, or that it
wins none of its passes within the budget. ``docs/decisions/0006-solve-plan-budget-shares.md``
has the figures::

    .venv/bin/python -m research.passes run rank-and-file:39 rank-and-file:129 --out /tmp/passes.jsonl
    .venv/bin/python -m research.passes plan --rows /tmp/passes.jsonl --budget 10000000
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from app.engine import deal
from app.engine.variants import VARIANTS
from app.solver import arrangements, plan
from app.solver.tables import SearchTables

Pass = tuple[str, int]  # (kind, width)
Outcome = tuple[bool, int, bool]  # won, positions, cut at the cap


def _deals(texts: list[str]) -> list[tuple[str, int]]:
    return [(game, int(number)) for game, _, number in (t.partition(":") for t in texts)]


def _plan(game: str, budget: int) -> list[plan.Try]:
    """``solve``'s plan for a deal of ``game`` (its kind of full search, as solve picks)."""
    variant = VARIANTS[game]
    return plan.plan(SearchTables.of(variant), budget, arrangements.supports(variant))


def run(deals: list[tuple[str, int]], budget: int, cap: int, widest: int | None, out: Path) -> None:
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done.add((row["game"], row["deal"], row["kind"], row["width"]))
    with out.open("a") as sink:
        for game, number in deals:
            state = deal(VARIANTS[game], number)
            for one in _plan(game, budget):
                kind, width = one.kind, one.width
                if kind not in plan.BEAMS or (game, number, kind, width) in done:
                    continue
                if widest and width > widest:
                    continue
                started = time.perf_counter()
                best, single = kind == plan.BEST_BEAM, kind == plan.SINGLE_BEAM
                result, _, used, stopped = plan._beam(state, width, best, cap, None, single)
                row = {
                    "game": game,
                    "deal": number,
                    "kind": kind,
                    "width": width,
                    "result": result,
                    "positions": used,
                    "stopped": stopped,  # "positions": cut at the cap, not run out
                    "seconds": round(time.perf_counter() - started, 1),
                }
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                print(json.dumps(row), flush=True)


def spent_before_win(game: str, passes: dict[Pass, Outcome], budget: int) -> int | None:
    """The positions ``solve`` at ``budget`` spends up to the win of a pass, or None
    when no pass wins within its part of the budget. KeyError: a pass the plan reaches
    that the rows do not have; ValueError: one cut at a cap below what the plan gives it."""
    positions = beam_spent = 0
    for one in _plan(game, budget):
        kind, width, share = one.kind, one.width, one.budget
        allowed = min(share, budget - positions)
        if kind not in plan.BEAMS:
            positions += max(allowed, 0)  # a restart, or the full search: no win
            continue
        allowed = min(allowed, share - beam_spent)
        if allowed <= 0:
            continue
        won, cost, cut = passes[(kind, width)]
        if won and cost <= allowed:
            return positions + cost
        if cut and cost < allowed:
            raise ValueError(f"the {kind} of width {width} was cut at {cost:,} positions")
        used = min(cost, allowed)
        beam_spent += used
        positions += used
    return None


def replay(rows: Path, budget: int) -> None:
    by_deal: dict[tuple[str, int], dict[Pass, Outcome]] = {}
    for line in rows.read_text().splitlines():
        row = json.loads(line)
        passes = by_deal.setdefault((row["game"], row["deal"]), {})
        won = row["result"] == "solved"
        passes[(row["kind"], row["width"])] = (
            won,
            row["positions"],
            row.get("stopped") == "positions",
        )
    for (game, number), passes in sorted(by_deal.items()):
        try:
            spent = spent_before_win(game, passes, budget)
        except KeyError as missing:
            print(f"{game} {number}: no row for the pass {missing}")
            continue
        except ValueError as cut:
            print(f"{game} {number}: {cut}; run it again with a larger --cap")
            continue
        verdict = "no pass wins" if spent is None else f"won after {spent:,} positions"
        print(f"{game} {number} at {budget:,}: {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    runs = sub.add_parser("run", help="each beam pass of the plan alone, one row each")
    runs.add_argument("deals", nargs="+", help="game:deal")
    runs.add_argument("--budget", type=int, default=10_000_000, help="whose plan's passes")
    runs.add_argument("--cap", type=int, default=20_000_000, help="positions per pass")
    runs.add_argument("--widest", type=int, default=None, help="no passes wider than this")
    runs.add_argument("--out", type=Path, required=True)
    plans = sub.add_parser("plan", help="what a budget's plan makes of the rows")
    plans.add_argument("--rows", type=Path, required=True)
    plans.add_argument("--budget", type=int, default=10_000_000)
    args = parser.parse_args(argv)
    if args.command == "run":
        run(_deals(args.deals), args.budget, args.cap, args.widest, args.out)
    else:
        replay(args.rows, args.budget)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
