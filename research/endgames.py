"""Where an undecided search spends its budget: the endgames, and what one costs.

A deal the solver cannot decide is one whose full search runs out of positions; issue
14 asks what limits it. This samples the positions such a search meets once the stock
is out, the *endgames* (a reserve may still hold cards: `phase` tells them apart), and
searches each one alone to the end on the native core (``core.search``): how many
positions proving one endgame lost (or won) takes, and, where the game returns foundation
cards, the same with that rule turned off, to show what the returns cost.

The native search cannot be watched position by position, so the positions are met by a
depth-first walk written here over the core's own moves and keys (:func:`met`): each
child is a legal move with the safe moves after it (``Position.children``), or, where run
arrangement holds, a move of the arranged search (``Position.arranged_children``), and
positions are told apart by the plain key (``Position.key``) or the arranged one
(``Position.arranged_key``). It keeps the engine's order of moves but none of the
search's pruning (obligated moves, deferred draws, the relaxed dead-end test), so it
meets the same kind of positions as the search, not the very same ones.

    nice .venv/bin/python -m research.endgames rainbow 5 --budget 200000
    nice .venv/bin/python -m research.endgames forty-thieves 1 --budget 200000
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections import Counter
from collections.abc import Iterator

from app.engine import Rules, State, deal, get_variant
from app.solver import _core, arrangements, core
from app.solver.tables import SearchTables


def endgame(state: State) -> bool:
    """Nothing left to draw: the stock is out (a reserve may still hold cards)."""
    return not state.stock


def phase(state: State) -> str:
    """Where a position stands: what is left of the stock and the reserve."""
    stock = "stock left" if state.stock else "stock out"
    if not state.variant.reserve_size:
        return stock
    return f"{stock}, {'reserve left' if state.reserve else 'reserve out'}"


class Walk:
    """The moves and keys :func:`met` walks with: plain, or up to run arrangement."""

    def __init__(self, state: State) -> None:
        self.arranged = arrangements.supports(state.variant)
        self.draw_score = SearchTables.of(state.variant).draw_score

    def key(self, position: _core.Position) -> int:
        return position.arranged_key() if self.arranged else position.key()

    def children(self, position: _core.Position) -> Iterator[_core.Position]:
        """Each child with the safe moves after it played, in the search's order."""
        if not self.arranged:
            for _move, _safe, child in position.children():
                yield child
            return
        for _score, before, move in position.arranged_children(self.draw_score):
            child = position
            for text in (*before, move):
                child = child.apply(text)
            yield child.settle()[1]


def met(
    state: State, budget: int, sample: int, seed: int, phases: Counter[str] | None = None
) -> tuple[int, int, list[State]]:
    """A depth-first walk from ``state`` over the core's moves (up to run arrangement
    where the game allows it) until it has met ``budget`` distinct positions, won, or run
    out: children keyed (repeats of positions met included, the start too), how many of
    them endgames, and a uniform sample of those endgames (reservoir sampling: one pass,
    ``sample`` kept). ``phases`` counts the children by :func:`phase`."""
    walk = Walk(state)
    rng = random.Random(seed)
    keyed = endgames = 0
    kept: list[State] = []

    def watch(position: _core.Position) -> int:
        nonlocal keyed, endgames
        keyed += 1
        seen = State.from_bytes(position.to_bytes())
        if phases is not None:
            phases[phase(seen)] += 1
        if endgame(seen):
            endgames += 1
            if len(kept) < sample:
                kept.append(seen)
            elif (slot := rng.randrange(endgames)) < sample:
                kept[slot] = seen
        return walk.key(position)

    start = core.position(state).settle()[1]
    keys = {watch(start)}
    stack = [walk.children(start)] if not start.is_won else []
    while stack and len(keys) < budget:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        key = watch(child)
        if key in keys:
            continue
        keys.add(key)
        if child.is_won:
            break
        stack.append(walk.children(child))
    return keyed, endgames, kept


def cost(positions: list[State], budget: int) -> tuple[Counter[str], list[int]]:
    """Each position searched alone to the end (native): verdicts and positions taken."""
    verdicts: Counter[str] = Counter()
    taken = []
    for position in positions:
        result = core.search(
            position, core.SearchLimits(budget, arranged=arrangements.supports(position.variant))
        )
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("deals", nargs="+", type=int)
    parser.add_argument("--budget", type=int, default=200_000, help="positions of the search")
    parser.add_argument("--sample", type=int, default=50, help="endgames searched alone")
    parser.add_argument("--alone", type=int, default=1_000_000, help="each one's budget")
    args = parser.parse_args(argv)
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
