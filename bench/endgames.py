"""Where an undecided search spends its budget: the endgames, and what one costs.

A deal the solver cannot decide is one whose full search runs out of positions; issue
14 asks what limits it. This samples the positions such a search meets once the stock
is out, the *endgames* (a reserve may still hold cards: `phase` tells them apart), and searches each one alone to the end on
the native core: how many positions proving one endgame lost (or won) takes, and, where
the game returns foundation cards, the same with that rule turned off, to show what the
returns cost. The search that meets them is the Python reference (it can be watched
position by position; the native core meets the same positions in the same order).

    nice .venv/bin/python bench/endgames.py rainbow 5 --budget 200000
    nice .venv/bin/python bench/endgames.py forty-thieves 1 --budget 200000
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine import Rules, State, deal, get_variant  # noqa: E402
from app.solver import arrangements, core, search  # noqa: E402
from app.solver.tables import SearchTables  # noqa: E402


def endgame(state: State) -> bool:
    """Nothing left to draw: the stock is out (a reserve may still hold cards)."""
    return not state.stock


def phase(state: State) -> str:
    """Where a position stands: what is left of the stock and the reserve."""
    stock = "stock left" if state.stock else "stock out"
    if not state.variant.reserve_size:
        return stock
    return f"{stock}, {'reserve left' if state.reserve else 'reserve out'}"


def met(
    state: State, budget: int, sample: int, seed: int, phases: Counter[str] | None = None
) -> tuple[int, int, list[State]]:
    """The full search from ``state`` (up to run arrangement where the game allows it) for
    ``budget`` positions: children keyed (repeats of positions met included), how many of
    them endgames, and a uniform sample of those endgames (reservoir sampling: one pass,
    ``sample`` kept). ``phases`` counts the children by :func:`phase`."""
    arranged = arrangements.supports(state.variant)
    rng = random.Random(seed)
    keyed = endgames = 0
    kept: list[State] = []

    def watch(position: State) -> None:
        nonlocal keyed, endgames
        keyed += 1
        if phases is not None:
            phases[phase(position)] += 1
        if endgame(position):
            endgames += 1
            if len(kept) < sample:
                kept.append(position)
            elif (slot := rng.randrange(endgames)) < sample:
                kept[slot] = position

    if arranged:
        key = arrangements.key

        def watched_key(position: State, *rest: Any) -> Any:
            watch(position)
            return key(position, *rest)

        patch = mock.patch.object(arrangements, "key", watched_key)
    else:
        parts = search._key_parts

        def watched_parts(position: State, *rest: Any) -> Any:
            watch(position)
            return parts(position, *rest)

        patch = mock.patch.object(search, "_key_parts", watched_parts)
    with patch:
        search._search(
            state, SearchTables.of(state.variant), budget, None, False, arranged=arranged
        )
    return keyed, endgames, kept


def cost(positions: list[State], budget: int) -> tuple[Counter[str], list[int]]:
    """Each position searched alone to the end (native): verdicts and positions taken."""
    verdicts: Counter[str] = Counter()
    taken = []
    for position in positions:
        result = core.search(position, budget, arranged=arrangements.supports(position.variant))
        verdicts[result.result] += 1
        taken.append(result.positions)
    return verdicts, taken


def describe(label: str, verdicts: Counter[str], taken: list[int]) -> str:
    ordered = sorted(taken)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    told = ", ".join(f"{count} {verdict}" for verdict, count in sorted(verdicts.items()))
    return (
        f"  {label}: {told}; positions median {statistics.median(ordered):,.0f}, "
        f"90th percentile {p90:,}, most {ordered[-1]:,}, all {sum(ordered):,}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("deals", nargs="+", type=int)
    parser.add_argument("--budget", type=int, default=200_000, help="positions of the search")
    parser.add_argument("--sample", type=int, default=50, help="endgames searched alone")
    parser.add_argument("--alone", type=int, default=1_000_000, help="each one's budget")
    args = parser.parse_args()
    if not core.available():
        raise SystemExit(f"the native core is not built: {core.missing_reason()}")
    variant = get_variant(args.game)
    for number in args.deals:
        phases: Counter[str] = Counter()
        start = deal(variant, number)
        keyed, endgames, sample = met(start, args.budget, args.sample, number, phases)
        print(
            f"{args.game} deal {number}: {keyed:,} children keyed, {endgames:,} of them "
            f"endgames ({endgames / max(keyed, 1):.0%}); {len(sample)} searched alone"
        )
        shares = ", ".join(f"{name} {count / keyed:.0%}" for name, count in phases.most_common())
        print(f"  by phase: {shares}")
        if not sample:
            continue
        print(describe("as dealt", *cost(sample, args.alone)))
        if variant.foundation_return:
            without = Rules(foundation_return=False)
            flipped = [p._replace(variant=variant.with_rules(without)) for p in sample]
            print(describe("no foundation returns", *cost(flipped, args.alone)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
