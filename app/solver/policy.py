"""Simulated players: fixed playing policies that see only what a player sees.

A policy picks one of the engine's legal moves from :class:`Seen`, the public part of a
position: the face-up cards of each tableau pile and how many lie face down, the
foundations, the waste, the reserve's top card and how many lie under it, how many cards
the stock holds (never which, nor their order) and the redeals left. Legal moves are a
function of that part too (a face-down card is never moved, the stock is only drawn),
so two positions that differ only in their hidden cards get the same choices from the
same random generator (``tests/solver/test_difficulty.py`` checks it).

Two policies:

- :func:`human_move`, a human-like player. Its preferences, highest first: a safe
  foundation move (every card that could ever want the card as a tableau parent is up,
  both copies with two decks); a whole face-up run moved off face-down cards (turns one
  up); a foundation move that turns a card up or empties a pile; a pile emptied that the
  reserve refills at once; any other foundation move; the waste's or reserve's top onto
  a tableau card; a whole ordered run moved off a face-up card out of order; an empty pile
  made while there is none; where single cards move, a run that is all a pile shows taken
  apart card by card; part of a run moved to free a card the foundations take; the
  face-up cards of a pile moved into an empty pile to turn a card up; the waste's or
  reserve's top into an empty pile; a run off a face-up card into an empty pile; then
  drawing, then redealing. Last of all, only when none of those leads to a position it
  has not seen, the moves it does not like: a card back from a foundation, a whole pile
  into an empty one, other splits of runs. Ties are broken by the random generator.
- :func:`random_move`, a random legal-move player with foundation moves first: any move
  to a foundation when there is one, else any legal move.

Both never go back to a position they have seen in the game (compared by :class:`Seen`,
so by what is public), and :func:`play` stops a game at ``max_moves``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import NamedTuple

from app.engine import RANK, SUIT, Move, State, Variant, run_start
from app.engine.moves import DRAW, FOUNDATION, REDEAL, TABLEAU
from app.solver.tables import SearchTables

Cards = tuple[int, ...]

# The most moves of one simulated game (a won game of these games takes a few hundred).
MAX_MOVES = 1500


class Seen(NamedTuple):
    """The public part of a position: what a policy may read."""

    tableau: tuple[Cards, ...]  # each pile's face-up cards, bottom first
    hidden: tuple[int, ...]  # how many face-down cards lie under them
    foundations: tuple[Cards, ...]
    waste: Cards
    reserve_top: int  # -1: empty
    reserve_under: int  # face-down cards under the reserve's top
    stock: int  # how many cards the stock holds
    redeals_left: int | None
    first_rank: int


def seen(state: State) -> Seen:
    """What a player sees of ``state`` (nothing of the face-down cards but their count)."""
    reserve = state.reserve
    return Seen(
        tuple(pile[down:] for pile, down in zip(state.tableau, state.hidden, strict=True)),
        state.hidden,
        state.foundations,
        state.waste,
        reserve[-1] if reserve else -1,
        max(len(reserve) - 1, 0),
        len(state.stock),
        state.redeals_left,
        state.first_rank,
    )


Policy = Callable[[Variant, Seen, list[Move], random.Random], list[Move]]

# The human-like policy's preferences (higher first).
SAFE_UP = 100  # a card up that nothing could still need as a tableau parent
TURN_UP = 80  # a whole face-up run off face-down cards: turns one up
UP_UNCOVERS = 75  # to a foundation, turning a card up or emptying a pile
REFILLED = 70  # empties a pile the reserve refills at once
UP = 60  # any other foundation move
FROM_STACK = 50  # the waste's (or the reserve's) top onto a tableau card
UNCOVERS = 45  # a whole ordered run off a face-up card out of order
EMPTIES = 40  # the last face-up run of a pile onto another card: an empty pile
DIG = 35  # single cards move: the top card of a run that is all a pile shows
SPLIT = 30  # part of a run onto another card, uncovering a card the foundations take
TURN_UP_TO_EMPTY = 25  # a pile's face-up cards into an empty pile: turns one up
INTO_EMPTY = 20  # the waste's or reserve's top into an empty pile
UNCOVERS_TO_EMPTY = 15  # a whole run off a face-up card into an empty pile
DRAW_SCORE = 2
REDEAL_SCORE = 1
# Only when nothing else is left: back from a foundation; a whole pile into an empty
# pile; other splits of runs.
LAST = -1


def _on_foundations(view: Seen, card: int) -> int:
    suit, position = SUIT[card], (RANK[card] - view.first_rank) % 13
    return sum(1 for f in view.foundations if f and SUIT[f[0]] == suit and len(f) > position)


def _safe_up(variant: Variant, view: Seen, card: int) -> bool:
    tables = SearchTables.of(variant)
    return all(_on_foundations(view, kid) >= variant.decks for kid in tables.children[card])


def _top(view: Seen, move: Move) -> int:
    """The card a move to a foundation takes (the top of its source)."""
    src = move.src
    assert src is not None
    if src.kind == TABLEAU:
        return view.tableau[src.index][-1]
    if src.kind == FOUNDATION:
        return view.foundations[src.index][-1]
    return view.waste[-1] if src.kind == "waste" else view.reserve_top


def wanted(variant: Variant, view: Seen) -> set[int]:
    """The cards the foundations take now."""
    nxt = variant.found_next
    out = {nxt[f[-1]] for f in view.foundations if f and len(f) < 13}
    if any(not f for f in view.foundations):
        out.update(suit * 13 + view.first_rank - 1 for suit in range(4))
    out.discard(-1)
    return out


def human_score(variant: Variant, view: Seen, move: Move) -> int:
    """How much the human-like player likes ``move`` (higher first; ``LAST``: only when
    nothing else is left)."""
    if move.action == DRAW:
        return DRAW_SCORE
    if move.action == REDEAL:
        return REDEAL_SCORE
    src, dst = move.src, move.dst
    assert src is not None and dst is not None
    if src.kind == FOUNDATION:
        return LAST
    if dst.kind == FOUNDATION:
        if _safe_up(variant, view, _top(view, move)):
            return SAFE_UP
        if src.kind == TABLEAU and len(view.tableau[src.index]) == 1:
            return UP_UNCOVERS
        return UP
    to_empty = not view.tableau[dst.index]
    if src.kind != TABLEAU:
        return INTO_EMPTY if to_empty else FROM_STACK
    return _tableau_score(variant, view, src.index, move.count, to_empty)


def _tableau_score(variant: Variant, view: Seen, index: int, count: int, to_empty: bool) -> int:
    """A move of ``count`` cards from tableau pile ``index`` onto a tableau pile (an
    empty one: ``to_empty``)."""
    pile = view.tableau[index]
    run = len(pile) - run_start(pile, 0, variant.stack_ok)  # the ordered run on top
    if count < run:
        if to_empty:
            return LAST
        # Splits a run: to send the card it uncovers to a foundation, or, where single
        # cards move, to take apart a run that is all the pile shows (a card to turn
        # up under it, or an empty pile to make).
        if pile[-count - 1] in wanted(variant, view):
            return SPLIT
        single = variant.runs == "single"
        if single and run == len(pile) and (view.hidden[index] or all(view.tableau)):
            return DIG
        return LAST
    if count < len(pile):
        # A whole run off a face-up card out of order (into an empty pile: spends it).
        return UNCOVERS_TO_EMPTY if to_empty else UNCOVERS
    if view.hidden[index]:
        return TURN_UP_TO_EMPTY if to_empty else TURN_UP
    if to_empty:
        return LAST  # a whole pile into an empty one: nothing changes
    if variant.reserve_fills_empty and view.reserve_top >= 0:
        return REFILLED
    # An empty pile: worth making while there is none.
    return EMPTIES if all(view.tableau) else LAST


def human_move(variant: Variant, view: Seen, legal: list[Move], rng: random.Random) -> list[Move]:
    """The legal moves in the human-like player's order of preference (ties shuffled), the
    ones it does not like (``LAST``) last: it plays one of them only when none of the
    others leads to a position it has not seen, rather than give up."""
    scored = [(human_score(variant, view, move), rng.random(), move) for move in legal]
    scored.sort(key=lambda entry: (-entry[0], entry[1]))
    return [move for _, _, move in scored]


def random_move(variant: Variant, view: Seen, legal: list[Move], rng: random.Random) -> list[Move]:
    """The legal moves in a random order, moves to a foundation first."""
    order = list(legal)
    rng.shuffle(order)
    up = [m for m in order if m.dst is not None and m.dst.kind == FOUNDATION]
    return up + [m for m in order if m.dst is None or m.dst.kind != FOUNDATION]


def choose(
    state: State, policy: Policy, rng: random.Random, visited: set[Seen]
) -> tuple[Move, State] | None:
    """The policy's move from ``state`` that leads to a position not in ``visited``, and
    that position; None when there is none (the simulated player gives up)."""
    variant = state.variant
    for move in policy(variant, seen(state), state.legal_moves(), rng):
        after, _ = state.apply(move, validate=False)
        if seen(after) not in visited:
            return move, after
    return None


def play(state: State, policy: Policy, rng: random.Random, max_moves: int = MAX_MOVES) -> int:
    """Play one game from ``state`` with ``policy``; how many cards it put up (all of
    them: won)."""
    visited = {seen(state)}
    for _ in range(max_moves):
        if state.is_won:
            break
        chosen = choose(state, policy, rng, visited)
        if chosen is None:
            break
        state = chosen[1]
        visited.add(seen(state))
    return sum(len(f) for f in state.foundations)
