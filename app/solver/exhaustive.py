"""The plainest search there is: the oracle every reduction of the solver is checked against.

Depth first over every legal move of the engine, in the engine's order, each position
keyed by itself: no pile sorting, no safe moves, no obligations, no pruning, no deferred
draws, no arrangement (``docs/solver.md``, "All the reductions together"). Its
``unsolvable`` rests on nothing but the engine's rules: every position reachable from
the start was met and none is won.

It is slow in Python (a few thousand positions a second), so the native core has it too
(``app/solver/native/exhaustive.c``, :func:`app.solver.core.exhaustive`): the same moves
in the same order, so the same verdict and the same count of positions, which
``tests/solver/test_exhaustive.py`` checks against this one. That lets
``research/soundness.py`` decide positions a hundred times larger than this one can.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from app.engine import State


class Exhausted(NamedTuple):
    result: str  # "solved", "unsolvable" or "unknown" (the budget ran out)
    positions: int  # different positions met, the start among them


def exhaustive(state: State, max_positions: int) -> Exhausted:
    """Search every position reachable from ``state``, up to ``max_positions`` of them."""

    def exact(position: State) -> tuple[object, ...]:
        return tuple(position[1:])  # everything but the variant

    seen = {exact(state)}
    if state.is_won:
        return Exhausted("solved", len(seen))

    def successors(position: State) -> Iterator[State]:
        for move in position.legal_moves():
            yield position.apply(move, auto_finish=False, validate=False)[0]

    stack: list[Iterator[State]] = [successors(state)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        key = exact(child)
        if key in seen:
            continue
        seen.add(key)
        if child.is_won:
            return Exhausted("solved", len(seen))
        if len(seen) >= max_positions:
            return Exhausted("unknown", len(seen))
        stack.append(successors(child))
    return Exhausted("unsolvable", len(seen))
