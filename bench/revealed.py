"""How much of a win follows a revealed line: the share of a win's distinct layouts
(`ranking.layout_key`) that lie on a line the solver revealed, for honest-looking wins
and for replays (docs/decisions/0001-daily-ranking.md).

For proven deals of seeds/ (the revealed line: the deal's proven line, as a finish from
the deal shows it), per variant:

- a win that is not a replay: the first `--opening` moves played by the heuristic
  (`plan.suggest`, the move the search tries first: a plausible player's; reported apart
  where they are the revealed line's own first moves, from where the solver, which is
  deterministic, finds the same line again) or at random (`--random` openings per
  deal: a legal move that is not a draw where there is one), then a winning line found
  by the solver from there; its share of revealed layouts;
- "replay": the revealed line itself (share 1);
- "swapped pairs": the revealed line with each pair of adjacent independent moves
  played in the other order (both orders legal and ending in the same position): what a
  program rewriting the line to dodge the measure gets.

    .venv/bin/python bench/revealed.py [--deals 8] [--opening 10 --opening 30]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.engine import Move, State, deal, get_variant  # noqa: E402
from app.seeds import read_line  # noqa: E402
from app.services.daily.ranking import layout_key, revealed_share  # noqa: E402
from app.solver.plan import solve, suggest  # noqa: E402

STEADY = ("draw", "redeal")


def layouts(start: State, line: list[Move]) -> list[bytes]:
    """The layout after each layout-changing move, the won end left out."""
    keys, state = [], start
    for move in line:
        state, _ = state.apply(move, auto_finish=False)
        if move.action not in STEADY and not state.is_won:
            keys.append(layout_key(state))
    return keys


def other_line(
    start: State, opening: int, budget: int, rng: random.Random | None = None
) -> list[Move] | None:
    """The first `opening` moves by the heuristic (or, with `rng`, a legal move at random,
    a draw only where nothing else is legal), then the solver's line from there."""
    played: list[Move] = []
    state = start
    for _ in range(opening):
        move = suggest(state) if rng is None else _random_move(state, rng)
        if move is None:
            return None
        state, _ = state.apply(move, auto_finish=False)
        played.append(move)
        if state.is_won:
            return played
    result = solve(state, max_positions=budget, max_seconds=20)
    return None if result.result != "solved" else [*played, *result.moves]


def _random_move(state: State, rng: random.Random) -> Move | None:
    legal = state.legal_moves()
    moves = [m for m in legal if m.action not in STEADY] or legal
    return rng.choice(moves) if moves else None


def swapped(start: State, line: list[Move]) -> list[Move]:
    out, state, i = [], start, 0
    while i < len(line):
        a = line[i]
        if i + 1 < len(line):
            b = line[i + 1]
            ab = state.apply(a, auto_finish=False)[0].apply(b, auto_finish=False)[0]
            if state.is_legal(b):
                mid = state.apply(b, auto_finish=False)[0]
                if mid.is_legal(a) and mid.apply(a, auto_finish=False)[0] == ab:
                    out += [b, a]
                    state, i = ab, i + 2
                    continue
        out.append(a)
        state, i = state.apply(a, auto_finish=False)[0], i + 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--opening", type=int, action="append")
    parser.add_argument("--budget", type=int, default=300_000)
    parser.add_argument("--random", type=int, default=3, help="random openings per deal")
    args = parser.parse_args()
    openings = args.opening or [10, 30]
    began = time.perf_counter()
    for path in sorted((ROOT / "seeds").glob("*.json")):
        data = json.loads(path.read_text())
        variant = get_variant(data["variant"])
        rows: dict[str, list[float]] = {"replay": [], "swapped pairs": []}
        for entry in data["deals"][: args.deals]:
            start = deal(variant, int(entry["deal"]))
            line = read_line(entry["line"])
            revealed = set(layouts(start, line))
            rows["replay"].append(revealed_share(layouts(start, line), revealed))
            rows["swapped pairs"].append(
                revealed_share(layouts(start, swapped(start, line)), revealed)
            )
            for opening in openings:
                other = other_line(start, opening, args.budget)
                if other is not None:
                    same = other[:opening] == line[:opening]
                    share = revealed_share(layouts(start, other), revealed)
                    name = f"heuristic {opening} ({'= line' if same else 'differs'})"
                    rows.setdefault(name, []).append(share)
                for seed in range(args.random):
                    rng = random.Random(f"{variant.name}|{entry['deal']}|{seed}")
                    other = other_line(start, opening, args.budget, rng)
                    if other is not None:
                        share = revealed_share(layouts(start, other), revealed)
                        rows.setdefault(f"random {opening}, then solver", []).append(share)
        for name, shares in rows.items():
            if shares:
                print(
                    f"{variant.name:14} {name:28} n={len(shares):2} "
                    f"median {statistics.median(shares):.2f} max {max(shares):.2f}"
                )
    print(f"({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
