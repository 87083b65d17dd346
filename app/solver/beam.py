"""A beam search by stock level: finds wins the depth-first search stays away from.

The depth-first search commits to its first choices: a mistake made with 60 stock cards
left sits under a subtree far larger than any budget, and no restart of a few thousand
positions gets past it. Where the stock comes out one pass, a position's level is how
many cards have been drawn, and every level is a natural checkpoint: this search keeps,
at each level, the ``width`` most promising positions met, explores from each of them
the moves that do not draw (up to ``closure`` new positions from each), and draws from
the best of all those positions into the next level.

It proves nothing: an exhausted beam says nothing about the positions it dropped, so
it only ever answers a line or nothing, and :func:`app.solver.plan.solve` replays any line
through the engine before it trusts it. It plays no foundation card back to the tableau
(where the rules allow it, returns mostly shuffle cards up and down and fill the
closure). The loop is the native core's (``core.beam``, ``app/solver/native/beam.c``);
this module holds what it is handed and what it answers.

Which passes :func:`app.solver.plan.solve` runs, and why, is
``docs/decisions/0007-beam-passes.md``. The score is hand-weighted from what loses these
games: cards still face down, cards in the waste or the reserve, piles out of sequence,
and cards lying above those the foundations take next
(``docs/decisions/0008-beam-score-weights.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

ENDGAME = 20  # times the closure, from a position with nothing left to draw

# How the score weighs each of a position's features (beam.c, `Features`), in their order
# (buried cards: the best of -1 to -20 on the deals the depth-first surveys left
# undecided; docs/decisions/0008-beam-score-weights.md).
WEIGHTS = (10, -6, -3, -4, 4, -2, -8)


@dataclass(slots=True)
class BeamResult:
    moves: list[str] | None  # a line that wins, or None
    positions: int  # positions met (each counted once)
    stopped: str  # "positions" or "deadline" when cut short; "" when the beam ran out
