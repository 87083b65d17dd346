"""The search's moves: which to play at once, which to try, in which order, which to skip.

Every move comes from ``State.legal_moves()`` (or, for the moves paired with an
obligation, is built with the engine's own tests, ``foundation_takes``/``tableau_takes``
and the run rule ``run_start``) and is played by ``State.apply``. What this module adds
is knowledge about the moves:

- safe foundation moves (:func:`settle`, read from :class:`app.solver.tables.SearchTables`) are
  played without branching: a card goes up when no card that could ever need it as a
  tableau parent is still out of the foundations (two decks: both copies must be up);
- pruning: a whole pile to an empty pile, the same move to a second empty pile or a
  second foundation with the same top, undoing the previous move;
- obligations: a move whose only effect is to uncover a card (splitting a run) or to
  empty a pile is tried only together with a move that uses what it uncovered (see
  :func:`scored_moves` for why no win is lost);
- ordering: turn a face-down card up or empty a pile first, then foundation moves, then
  the rest; draw (irreversible with a single-pass stock) last, but before building from
  the waste when redeals bring passed cards round again.

Every pruning above keeps a winning line when one exists, so an exhausted full search
(:mod:`app.solver.search`) is a proof.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, NamedTuple

from app.engine import F_PILES, RESERVE_PILE, T_PILES, WASTE_PILE, Move, Pile, State
from app.engine.moves import DRAW, FOUNDATION, MOVE, REDEAL, TABLEAU

if TYPE_CHECKING:
    from app.solver.tables import SearchTables

# Move scores: children are tried lowest first (a stable sort: equal scores keep the
# engine's order). The plain moves of scored_moves and the arranged ones of
# app.solver.arrangements.children share these names where the meaning is the same.
FOUNDATION_UNCOVERS = 0  # to a foundation, turning a card up or emptying a pile: pure gain
TURN_UP = 1  # a whole face-up run off face-down cards (+ how many are face down: fewest first)
CLEARED_FIRST = 2  # arranged: the run on a card moves to a class sibling first (+ the plain score)
TURN_UP_TO_EMPTY = 3  # arranged: a base into an empty pile (+ face-down cards under it)
REFILLED = 5  # empties a pile the reserve refills at once: progress, nothing spent
TO_FOUNDATION = 10  # any other foundation move: seldom wrong
DRAW_EARLY = 15  # with redeals: draw before building from the waste (passed cards come back)
FROM_WASTE = 20  # the waste's (or reserve's) top onto a tableau card
ROOT_TO_TOP = 25  # arranged: a root (a whole pile) onto a top of its parent class: frees a pile
EMPTY_PILE = 30  # the last face-up run onto another pile: an empty pile, kept for later
DRAW_BEFORE_SPLITS = 40  # one pass, every other restart: draw before splitting runs
FROM_WASTE_TO_EMPTY = 40  # the waste's top into an empty pile: spends the empty pile
SPLIT_RUN = 50  # part of a run onto another card: only for what it uncovers (an obligation)
SPLIT_TO_EMPTY = 60  # part of a run into an empty pile: spends it as well
FROM_FOUNDATION = 70  # a card back from a foundation: undoes progress
FROM_FOUNDATION_TO_EMPTY = 75  # arranged: back from a foundation into an empty pile
DRAW_LAST = 90  # one pass: drawing is irreversible, so after every tableau move
REDEAL_LAST = 95  # the stock comes round again: after everything else
PAIRED = 0  # an obligated move's pairings take its place, in their own order

_JITTER = 12

NO_USE = -1  # a move with no obligation: the next move may use any pile


class Child(NamedTuple):
    """A child of a search node: ``move`` played from ``before``, which the node reaches
    by the moves of ``line`` (none, or a move that clears the way, or an obligated move
    and the safe moves after it). A placeholder for an obligated move not yet paired has
    ``before`` None and ``must_use`` the tableau pile the move after it must use."""

    score: int
    line: list[Move]
    before: State | None
    move: Move
    must_use: int = NO_USE


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
    tableau = state.tableau
    hidden = state.hidden
    out: list[tuple[int, Move, int]] = []
    seen_empty: set[tuple[Pile, int]] = set()
    seen_found: set[tuple[Pile, int]] = set()
    for move in state.legal_moves():
        action = move.action
        if action == DRAW:
            out.append((rules.draw_score, move, NO_USE))
            continue
        if action == REDEAL:
            out.append((REDEAL_LAST, move, NO_USE))
            continue
        src, dst, count = move.src, move.dst, move.count
        assert src is not None and dst is not None
        if (
            last is not None
            and last.action == MOVE
            and last.src == dst
            and last.dst == src
            and last.count == count
        ):
            continue  # straight back where it came from
        if dst.kind == FOUNDATION:
            top = state.foundations[dst.index]
            marker = (src, top[-1] if top else -1)
            if marker in seen_found:
                continue  # the same card onto an equal foundation
            seen_found.add(marker)
            score = TO_FOUNDATION
            if src.kind == TABLEAU:
                left = len(tableau[src.index]) - 1
                if left == 0 or hidden[src.index] == left:
                    score = FOUNDATION_UNCOVERS  # also turns a card up or empties a pile
            elif src.kind == FOUNDATION:
                continue
            out.append((score, move, NO_USE))
            continue
        to_empty = not tableau[dst.index]
        if to_empty:
            marker = (src, count)
            if marker in seen_empty:
                continue  # a second empty pile is the same position
            seen_empty.add(marker)
        if src.kind == TABLEAU:
            pile = tableau[src.index]
            down = hidden[src.index]
            if count == len(pile) - down:
                if down:
                    out.append((TURN_UP + down, move, NO_USE))  # turns a card up
                elif to_empty:
                    continue  # whole pile to an empty pile: nothing changes
                elif rules.reserve_fills and state.reserve:
                    out.append((REFILLED, move, NO_USE))  # the reserve refills it: progress
                else:
                    out.append((EMPTY_PILE, move, src.index))  # empties a pile
            else:
                score = SPLIT_TO_EMPTY if to_empty else SPLIT_RUN
                out.append((score, move, src.index))  # splits a run
        elif src.kind == FOUNDATION:
            if not narrow:  # the narrow search never takes cards back from foundations
                out.append((FROM_FOUNDATION, move, NO_USE))
        else:
            out.append((FROM_WASTE_TO_EMPTY if to_empty else FROM_WASTE, move, NO_USE))
    return out


def follow_ups(state: State, index: int, last: Move, runs_any: bool, narrow: bool) -> list[Move]:
    """The moves that use tableau pile ``index`` right after ``last`` uncovered it: its
    top card to a foundation (or, where single cards move, anywhere), or something onto
    it. Built from the engine's own tests (``foundation_takes``, ``tableau_takes`` and
    the run rule ``run_start``; ``tableau_takes`` inlined in the loops over piles: this
    is the search's hottest loop)."""
    if not runs_any:
        # Single cards: a built sequence moves only card by card, and that relocation is
        # what these games need; the narrow limits (meant for whole-run rotation) would
        # forbid it. Full follow-ups in narrow searches too doubled the deals proven at
        # 20,000 positions (Deauville 1-70: 8 -> 16; Rows of Four 1-50: 33 -> 42).
        narrow = False
    out: list[Move] = []
    empty_takes = not (state.variant.reserve_fills_empty and state.reserve)
    if state.tableau[index]:
        _uncovered_moves(out, state, index, runs_any, empty_takes)
    _runs_onto(out, state, index, last, runs_any, narrow, empty_takes)
    _tops_onto(out, state, index, state.variant.foundation_return and not narrow)
    if not runs_any:
        _onto_moved(out, state, index, last)
    return out


def _onto_moved(out: list[Move], state: State, index: int, last: Move) -> None:
    """Where single cards move, a card onto the one ``last`` moved, where it went (from
    the tableau, but the pile ``last`` uncovered, whose top moves anywhere already; the
    waste, the reserve, a foundation where cards return). The move can be postponed to
    just before such a move too, not only before the next move on the pile it left: a
    card it then holds could not be put on it where it was and moved along with it
    (docs/solver.md, "Obligations")."""
    assert last.dst is not None and last.dst.kind == TABLEAU
    there = last.dst.index
    target = T_PILES[there]
    for j, other in enumerate(state.tableau):
        face_up = len(other) > state.hidden[j]
        if j not in (index, there) and face_up and state.tableau_takes(there, other[-1]):
            out.append(Move(MOVE, T_PILES[j], target, 1))
    _tops_onto(out, state, there, state.variant.foundation_return)


def _tops_onto(out: list[Move], state: State, index: int, returns: bool) -> None:
    """The waste's and the reserve's tops onto tableau pile ``index`` where it takes
    them, and with ``returns`` the foundations' tops."""
    here = T_PILES[index]
    for src, cards in ((WASTE_PILE, state.waste), (RESERVE_PILE, state.reserve)):
        if cards and state.tableau_takes(index, cards[-1]):
            out.append(Move(MOVE, src, here, 1))
    if returns:
        for f, cards in enumerate(state.foundations):
            if cards and state.tableau_takes(index, cards[-1]):
                out.append(Move(MOVE, F_PILES[f], here, 1))


def _uncovered_moves(
    out: list[Move], state: State, index: int, runs_any: bool, empty_takes: bool
) -> None:
    """The uncovered top card P of pile ``index`` to a foundation (the first that takes
    it) and, where single cards move, onto any tableau pile that takes it."""
    tableau = state.tableau
    top = tableau[index][-1]
    here = T_PILES[index]
    for f in range(len(state.foundations)):
        if state.foundation_takes(f, top):
            out.append(Move(MOVE, here, F_PILES[f], 1))
            break
    # Where single cards move, P itself may move on.
    if not runs_any:
        ok = state.variant.stack_ok
        for j, other in enumerate(tableau):
            if j != index and (ok[other[-1] * 52 + top] if other else empty_takes):
                out.append(Move(MOVE, here, T_PILES[j], 1))


def _runs_onto(
    out: list[Move],
    state: State,
    index: int,
    last: Move,
    runs_any: bool,
    narrow: bool,
    empty_takes: bool,
) -> None:
    """Cards from the other tableau piles onto pile ``index`` (a run, or any part of one
    outside the narrow search), except straight back where ``last`` took them from."""
    tableau, hidden = state.tableau, state.hidden
    ok = state.variant.stack_ok
    append = out.append
    pile = tableau[index]
    here = T_PILES[index]
    # What pile ``index`` takes: ok[parent + card] on a card, anything (or nothing) empty.
    parent = pile[-1] * 52 if pile else -1
    back = last.dst
    back_pile = back.index if back is not None and back.kind == TABLEAU else -1
    back_count = last.count
    for j, other in enumerate(tableau):
        if j == index or not other:
            continue
        size = len(other)
        low = hidden[j]
        # State.run_length(j): the engine's run_start, inlined (this is the search's
        # hottest loop; a call per pile cost the Python search a tenth of its time).
        k = size - 1
        if runs_any:
            while k > low and ok[other[k - 1] * 52 + other[k]]:
                k -= 1
        longest = size - k
        # Narrow search: no chains of splits (they rotate runs among equal parents).
        if narrow:
            if longest != size - low:
                continue
            counts = range(longest, longest + 1)
        else:
            counts = range(1, longest + 1)
        for count in counts:
            if count == size and parent < 0 and low == 0:
                continue  # a whole pile into an empty one
            if j == back_pile and count == back_count:
                continue
            if ok[parent + other[-count]] if parent >= 0 else empty_takes:
                append(Move(MOVE, T_PILES[j], here, count))


def children(
    state: State, rules: SearchTables, last: Move | None, narrow: bool, jitter: random.Random | None
) -> list[Child]:
    """The node's children, best first. An obligated move comes as a placeholder
    (``before`` is None, ``must_use`` the pile it uncovers) that :func:`expand`
    replaces by the move paired with each of its uses, when the search reaches it."""
    out: list[Child] = []
    for score, move, must_use in scored_moves(state, rules, last, narrow):
        if must_use == NO_USE:
            out.append(Child(score, [], state, move))
        else:
            out.append(Child(score, [], None, move, must_use))
    if jitter is None:
        out.sort(key=lambda child: child[0])
        return out
    return jittered(out, jitter)


def jittered(out: list[Child], jitter: random.Random) -> list[Child]:
    """Restarts: the same move classes, neighbouring ones shuffled a little."""
    noisy = [(child[0] + jitter.random() * _JITTER, n) for n, child in enumerate(out)]
    return [out[n] for _s, n in sorted(noisy)]


def expand(
    state: State, rules: SearchTables, move: Move, must_use: int, narrow: bool
) -> list[Child]:
    """An obligated ``move`` followed by each move that uses the pile it uncovered."""
    mid, _ = state.apply(move, auto_finish=False, validate=False)
    prefix = [move]
    mid = settle(mid, rules, prefix, narrow and rules.eager_foundations)
    if len(prefix) > 1 and mid.tableau[must_use] != state.tableau[must_use][: -move.count]:
        return [Child(PAIRED, [], state, move)]  # the uncovered card went up: used already
    follows = follow_ups(mid, must_use, move, rules.runs_any, narrow)
    return [Child(PAIRED, prefix, mid, follow) for follow in follows]
