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
from app.engine import (
    F_PILES,
    RESERVE_PILE,
    T_PILES,
    VARIANTS,
    WASTE_PILE,
    Move,
    Rules,
    State,
    deal,
)
from app.engine.moves import MOVE
from app.solver import core, tables
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
    """A safe foundation move, else one of the core's best-scored children (the full
    search's, as it would try them from here after ``last``; ties at random)."""
    safe = core.position(state).safe_move()
    if safe is not None:
        return Move.parse(safe)
    scored = core.scored_children(state, last)
    if not scored:
        return rng.choice(state.legal_moves())
    best = min(score for score, _m, _u in scored)
    return rng.choice([move for score, move, _u in scored if score == best])


# The safe foundation moves as SearchTables states them (its children tables), in Python:
# the core's settle is checked against them (tests/solver/test_native_core.py).


def wanted_cards(state: State) -> dict[int, int]:
    """The cards the foundations take now, each with the first foundation that takes it."""
    nxt = state.variant.found_next
    wanted: dict[int, int] = {}
    empty = -1
    for f, pile in enumerate(state.foundations):
        if not pile:
            if empty < 0:
                empty = f
        elif len(pile) < 13:
            wanted.setdefault(nxt[pile[-1]], f)
    if empty >= 0:
        for suit in range(4):
            wanted.setdefault(suit * 13 + state.first_rank - 1, empty)
    return wanted


def safe_move(state: State, rules: tables.SearchTables, eager: bool) -> Move | None:
    """The first safe foundation move (``eager``: the first foundation move): from the
    tableau (not a pile's last card where the reserve refills emptied piles), then the
    waste (where :attr:`SearchTables.waste_settles`), then the reserve."""
    wanted = wanted_cards(state)
    for i, pile in enumerate(state.tableau):
        if pile and pile[-1] in wanted and state.hidden[i] < len(pile):
            if rules.reserve_fills and len(pile) == 1 and state.reserve:
                continue
            if eager or rules.safe_to_foundation(state, pile[-1]):
                return Move(MOVE, T_PILES[i], F_PILES[wanted[pile[-1]]], 1)
    stacks = ((WASTE_PILE, state.waste), (RESERVE_PILE, state.reserve))
    for src, cards in stacks if rules.waste_settles else stacks[1:]:
        if cards and cards[-1] in wanted and (eager or rules.safe_to_foundation(state, cards[-1])):
            return Move(MOVE, src, F_PILES[wanted[cards[-1]]], 1)
    return None


def settle(state: State, rules: tables.SearchTables, line: list[Move], eager: bool) -> State:
    """Play :func:`safe_move` until none is left, appending the moves to ``line``."""
    while (move := safe_move(state, rules, eager)) is not None:
        state, _ = state.apply(move, auto_finish=False, validate=False)
        line.append(move)
    return state


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
