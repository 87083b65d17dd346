"""The move knowledge of the heuristic suggestion (:func:`app.solver.plan.suggest`): which
foundation move is safe, and which moves are worth trying, in which order.

The search itself is the native core's (``app/solver/native/``): its safe foundation
moves, pruning, obligations and ordering are these, argued in ``docs/solver.md``. Here
they serve a hint that has no winning line to give, and the tests' greedy play:

- safe foundation moves (:func:`safe_move`, read from
  :class:`app.solver.tables.SearchTables`): a card goes up when no card that could ever
  need it as a tableau parent is still out of the foundations (two decks: both copies
  must be up);
- pruning: a whole pile to an empty pile, the same move to a second empty pile or a
  second foundation with the same top, undoing the previous move;
- ordering: turn a face-down card up or empty a pile first, then foundation moves, then
  the rest; draw (irreversible with a single-pass stock) last, but before building from
  the waste when redeals bring passed cards round again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine import F_PILES, RESERVE_PILE, T_PILES, WASTE_PILE, Move, Pile, State
from app.engine.moves import DRAW, FOUNDATION, MOVE, REDEAL, TABLEAU

if TYPE_CHECKING:
    from app.solver.tables import SearchTables

# Move scores: moves are tried lowest first (a stable sort: equal scores keep the
# engine's order); the native search scores by the same names (scores.h).
FOUNDATION_UNCOVERS = 0  # to a foundation, turning a card up or emptying a pile: pure gain
TURN_UP = 1  # a whole face-up run off face-down cards (+ how many are face down: fewest first)
REFILLED = 5  # empties a pile the reserve refills at once: progress, nothing spent
TO_FOUNDATION = 10  # any other foundation move: seldom wrong
DRAW_EARLY = 15  # with redeals: draw before building from the waste (passed cards come back)
FROM_WASTE = 20  # the waste's (or reserve's) top onto a tableau card
EMPTY_PILE = 30  # the last face-up run onto another pile: an empty pile, kept for later
DRAW_BEFORE_SPLITS = 40  # one pass, every other restart: draw before splitting runs
FROM_WASTE_TO_EMPTY = 40  # the waste's top into an empty pile: spends the empty pile
SPLIT_RUN = 50  # part of a run onto another card: only for what it uncovers (an obligation)
SPLIT_TO_EMPTY = 60  # part of a run into an empty pile: spends it as well
FROM_FOUNDATION = 70  # a card back from a foundation: undoes progress
DRAW_LAST = 90  # one pass: drawing is irreversible, so after every tableau move
REDEAL_LAST = 95  # the stock comes round again: after everything else

NO_USE = -1  # a move with no obligation: the next move may use any pile


def settle(state: State, rules: SearchTables, line: list[Move], eager: bool = False) -> State:
    """Play safe foundation moves until none is left, appending them to ``line``.

    ``eager`` (narrow search, where foundation cards may return and the stock has
    redeals) plays every foundation move: a card that goes up can still come back, so
    it is rarely wrong, but not provably.
    """
    while True:
        move = safe_move(state, rules, eager)
        if move is None:
            return state
        state, _ = state.apply(move, auto_finish=False, validate=False)
        line.append(move)


def wanted_cards(state: State) -> dict[int, int]:
    """The cards the foundations take now, each with the first foundation that takes it."""
    foundations, variant = state.foundations, state.variant
    first = state.first_rank
    nxt = variant.found_next
    wanted: dict[int, int] = {}
    empty = -1
    for f, pile in enumerate(foundations):
        if not pile:
            if empty < 0:
                empty = f
        elif len(pile) < 13:
            wanted.setdefault(nxt[pile[-1]], f)
    if empty >= 0:
        for suit in range(4):
            wanted.setdefault(suit * 13 + first - 1, empty)
    return wanted


def safe_move(state: State, rules: SearchTables, eager: bool) -> Move | None:
    # settle asks again after each move, and a move copies only the piles it touches:
    # most asks meet the foundations of the last one (the same tuple), so the answer is
    # kept with them (read once: another thread may replace it meanwhile).
    last = rules.last_wanted
    if last[0] is state.foundations and last[1] == state.first_rank:
        wanted = last[2]
    else:
        wanted = wanted_cards(state)
        rules.last_wanted = (state.foundations, state.first_rank, wanted)
    for i, pile in enumerate(state.tableau):
        if pile and pile[-1] in wanted and state.hidden[i] < len(pile):
            # Emptying a pile refills it from the reserve: not provably harmless, so skip.
            if rules.reserve_fills and len(pile) == 1 and state.reserve:
                continue
            if eager or rules.safe_to_foundation(state, pile[-1]):
                return Move(MOVE, T_PILES[i], F_PILES[wanted[pile[-1]]], 1)
    stacks = ((WASTE_PILE, state.waste), (RESERVE_PILE, state.reserve))
    for src, cards in stacks if rules.waste_settles else stacks[1:]:
        if cards and cards[-1] in wanted and (eager or rules.safe_to_foundation(state, cards[-1])):
            return Move(MOVE, src, F_PILES[wanted[cards[-1]]], 1)
    return None


def scored_moves(
    state: State, rules: SearchTables, last: Move | None, narrow: bool
) -> list[tuple[int, Move, int]]:
    """Legal moves worth trying with a score (lower first) and, for a move whose only
    point is what it uncovers, the tableau pile that the next move must use (else -1).

    Why the obligation is sound: a move that splits a run (uncovering card P) or empties
    a pile changes nothing else anyone could use, so in any winning line it can be
    postponed until just before the next move on that pile, which must then put something
    on P (or into the empty pile), or send P to a foundation (or, where single cards
    move, move P). Moving P together with the split-off cards and splitting afterwards
    replaces the remaining case when runs move together.
    """
    out: list[tuple[int, Move, int]] = []
    seen_empty: set[tuple[Pile, int]] = set()
    seen_found: set[tuple[Pile, int]] = set()
    for move in state.legal_moves():
        if move.action == DRAW:
            out.append((rules.draw_score, move, NO_USE))
        elif move.action == REDEAL:
            out.append((REDEAL_LAST, move, NO_USE))
        elif not _straight_back(last, move):
            scored = (
                _foundation_score(state, move, seen_found)
                if move.dst is not None and move.dst.kind == FOUNDATION
                else _tableau_score(state, rules, move, narrow, seen_empty)
            )
            if scored is not None:
                out.append((scored[0], move, scored[1]))
    return out


def _straight_back(last: Move | None, move: Move) -> bool:
    """Does ``move`` go straight back where ``last`` came from?"""
    return (
        last is not None
        and last.action == MOVE
        and last.src == move.dst
        and last.dst == move.src
        and last.count == move.count
    )


def _foundation_score(
    state: State, move: Move, seen_found: set[tuple[Pile, int]]
) -> tuple[int, int] | None:
    """A foundation move's score and obligation (none), or None when not worth trying."""
    src, dst = move.src, move.dst
    assert src is not None and dst is not None
    top = state.foundations[dst.index]
    marker = (src, top[-1] if top else -1)
    if marker in seen_found or src.kind == FOUNDATION:
        return None  # the same card onto an equal foundation; a foundation's own top
    seen_found.add(marker)
    if src.kind == TABLEAU:
        left = len(state.tableau[src.index]) - 1
        if left == 0 or state.hidden[src.index] == left:
            return FOUNDATION_UNCOVERS, NO_USE  # also turns a card up or empties a pile
    return TO_FOUNDATION, NO_USE


def _tableau_score(
    state: State,
    rules: SearchTables,
    move: Move,
    narrow: bool,
    seen_empty: set[tuple[Pile, int]],
) -> tuple[int, int] | None:
    """A move onto a tableau pile: its score and the pile the next move must use (else
    -1), or None when not worth trying."""
    src, dst, count = move.src, move.dst, move.count
    assert src is not None and dst is not None
    to_empty = not state.tableau[dst.index]
    if to_empty:
        if (src, count) in seen_empty:
            return None  # a second empty pile is the same position
        seen_empty.add((src, count))
    if src.kind == FOUNDATION:
        # the narrow search never takes cards back from foundations
        return None if narrow else (FROM_FOUNDATION, NO_USE)
    if src.kind != TABLEAU:
        return (FROM_WASTE_TO_EMPTY if to_empty else FROM_WASTE), NO_USE
    down = state.hidden[src.index]
    if count != len(state.tableau[src.index]) - down:
        return (SPLIT_TO_EMPTY if to_empty else SPLIT_RUN), src.index  # splits a run
    if down:
        return TURN_UP + down, NO_USE  # turns a card up
    if to_empty:
        return None  # whole pile to an empty pile: nothing changes
    if rules.reserve_fills and state.reserve:
        return REFILLED, NO_USE  # the reserve refills it: progress
    return EMPTY_PILE, src.index  # empties a pile
