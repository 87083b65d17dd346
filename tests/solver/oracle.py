"""What the native search is checked against, now that it is the only search: the engine
(every ``solved`` line replays to a win, every move validated: :func:`app.solver.result.wins`)
and the plain search (an ``unsolvable`` must never be a position the plain search wins,
:func:`app.solver.core.exhaustive`, the C copy of :mod:`app.solver.exhaustive` that
tests/solver/test_exhaustive.py checks against it). Also the play that builds the
corpora: every game, each with its house rule flipped, played greedily or at random.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

from app import seeds
from app.engine import VARIANTS, Move, Rules, State, deal
from app.solver import core, tables
from app.solver import moves as solver_moves
from app.solver.result import SolveResult, wins

CONFIGS = [(name, flip) for name in VARIANTS for flip in (False, True)]
SEEDS = Path(__file__).resolve().parents[2] / "seeds"
# Positions of the C plain search behind an `unsolvable` (about 1 M a second, ~200 bytes a key).
PLAIN = 100_000


def start(name: str, flip: bool, number: int) -> State:
    """Deal ``number`` of game ``name``, its house rule (foundation returns) flipped or not."""
    variant = VARIANTS[name]
    rules = Rules(foundation_return=not variant.foundation_return) if flip else None
    return deal(variant, number, rules)


def greedy_move(state: State, rng: random.Random, last: Move | None) -> Move:
    """A safe foundation move, else one of the heuristic's best-scored moves (ties at random)."""
    rules = tables.SearchTables.of(state.variant)
    safe = solver_moves.safe_move(state, rules, False)
    if safe is not None:
        return safe
    scored = solver_moves.scored_moves(state, rules, last, False)
    if not scored:
        return rng.choice(state.legal_moves())
    best = min(score for score, _m, _u in scored)
    return rng.choice([move for score, move, _u in scored if score == best])


def walk(state: State, rng: random.Random, steps: int, greedy: bool) -> Iterator[State]:
    """The positions of ``steps`` moves of play from ``state`` (fewer where play ends)."""
    last = None
    for _ in range(steps):
        yield state
        moves = state.legal_moves()
        if not moves:
            return
        move = greedy_move(state, rng, last) if greedy else rng.choice(moves)
        state, _ = state.apply(move, auto_finish=False, validate=False)
        last = move


def seed_line(name: str, index: int) -> tuple[State, list[Move]]:
    """Deal ``index`` of ``seeds/<name>.json`` and its known winning line."""
    data = json.loads((SEEDS / f"{name}.json").read_text())["deals"][index]
    return deal(VARIANTS[name], data["deal"]), seeds.read_line(data["line"])


def checked(state: State, found: SolveResult, plain: int = PLAIN) -> str:
    """``found``'s verdict, after the oracles: a ``solved`` line wins through the engine;
    an ``unsolvable`` is no position the plain search wins within ``plain`` positions."""
    where = state.to_text()
    if found.result == "solved":
        assert wins(state, found.moves), where
    elif found.result == "unsolvable":
        assert found.moves == [], where
        assert core.exhaustive(state, plain).result != "solved", where
    return found.result


def agree(*verdicts: str) -> bool:
    """Do these verdicts of one position never contradict each other (unknown aside)?"""
    return len(set(verdicts) - {"unknown"}) <= 1


def piles_reordered(state: State, rng: random.Random) -> State:
    """``state`` with its tableau piles in a random order (the same position to every
    key: the rules never name a pile by its index)."""
    order = list(range(len(state.tableau)))
    rng.shuffle(order)
    return state._replace(
        tableau=tuple(state.tableau[i] for i in order),
        hidden=tuple(state.hidden[i] for i in order),
    )
