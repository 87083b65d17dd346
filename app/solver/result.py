"""What a search answers, and the engine's check of a winning line.

The solver sees the whole position (face-down cards, stock order): it decides whether
the deal *as dealt* can be won. A ``solved`` answer carries a line that
:func:`wins` replays through the engine, every move validated, before anyone is told
(:func:`app.solver.plan.solve`), so the solver can never disagree with the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from app.engine import EngineError, Move, State

Result = Literal["solved", "unsolvable", "unknown"]


class SolveResult(NamedTuple):
    result: Result
    moves: list[Move]
    positions: int
    elapsed_ms: int
    # Why an unknown search stopped: "positions" (its budget), "deadline", "table" (the
    # transposition table was full) or "depth" (its stack was); "" when it decided.
    stopped: str = ""


def replay(state: State, moves: Sequence[Move]) -> State:
    """Play ``moves`` with full validation and auto-finish off; the final position."""
    for move in moves:
        state, _ = state.apply(move, auto_finish=False, validate=True)
    return state


def wins(state: State, moves: Sequence[Move]) -> bool:
    """Does the line win from ``state``, every move checked by the engine?"""
    try:
        return replay(state, moves).is_won
    except EngineError:
        return False
