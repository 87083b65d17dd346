"""The depth-first search over the engine's moves, with a transposition table.

The solver sees the whole position (face-down cards, stock order): it decides whether
the deal *as dealt* can be won. It tries the moves of :mod:`app.solver.moves` (safe
foundation moves played at once, pruning, obligations, ordering: the soundness of each
is argued there) and plays them with ``State.apply``; a winning line is replayed with
validation before it is returned (:func:`app.solver.plan.solve`), so the solver can
never disagree with the rules.

- The position key treats tableau piles and same-suit foundations as interchangeable;
  the table keeps only the key's 64-bit hash (a collision could only hide a position,
  never invent a win, and every winning line is replayed before it is returned).
- Where whole runs move (:mod:`app.solver.arrangements`), the search can also run over
  positions up to run arrangement, a far smaller space, with that module's key and moves.

``unsolvable`` is returned only when the search space was exhausted without a budget
cut, and every pruning keeps a winning line when one exists, so it is a proof. How the
searches are combined (narrow restarts, then the full search) is :mod:`app.solver.plan`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

from app.engine import EngineError, Move, State
from app.engine.moves import DRAW, FOUNDATION, RESERVE, TABLEAU
from app.solver import arrangements, relaxation
from app.solver.moves import Child, children, expand, jittered, settle, wanted_cards
from app.solver.tables import SearchTables

Result = Literal["solved", "unsolvable", "unknown"]

_TIME_CHECK_EVERY = 512


class SolveResult(NamedTuple):
    result: Result
    moves: list[Move]
    positions: int
    elapsed_ms: int
    # Why an unknown search stopped: "positions" (its budget), "deadline", "table" (the
    # native table was full) or "depth" (its stack was); "" when it decided.
    stopped: str = ""


def _key_fn(rules: SearchTables) -> Callable[[State], int]:
    single_pass = rules.single_pass

    def key(state: State) -> int:
        return hash(_key_parts(state, single_pass))

    return key


def _key_parts(state: State, single_pass: bool) -> tuple[Any, ...]:
    """What :func:`_key_fn` hashes (the native core's key is equal exactly when this is)."""
    tableau = tuple(sorted(zip(state.hidden, state.tableau, strict=True)))
    found = tuple(sorted(f[-1] if f else -1 for f in state.foundations))
    # With one pass, the stock is always a prefix of the dealt stock: its length says it.
    stock: Any = len(state.stock) if single_pass else state.stock
    return (tableau, found, stock, state.waste, len(state.reserve), state.redeals_left)


def _finish_line(state: State) -> list[Move] | None:
    """When the engine's auto-finish would win from here, its moves; else None."""
    if not state.auto_finish_ready():
        return None
    final, events = state.auto_finish()
    if not final.is_won:
        return None
    return [e.move for e in events if e.move is not None]


# _Frame.drawn when the position was not reached by a bare draw; else the draw covered
# the waste top it names (a card), or NOTHING_COVERED when the waste was empty.
NOT_DRAWN, NOTHING_COVERED = -2, -1


class _Frame:
    __slots__ = ("state", "children", "next", "line", "drawn")

    def __init__(
        self, state: State, children: list[Child], line: list[Move], drawn: int = NOT_DRAWN
    ) -> None:
        self.state = state
        self.children = children
        self.next = 0
        self.line = line  # the moves that led here from the parent (chosen + safe ones)
        self.drawn = drawn  # reached by a bare draw, covering this card (see _deferred)


def _deferred(line: list[Move], child: State, covered: int, rules: SearchTables) -> bool:
    """Is this child of a position reached by a bare draw one the search skips, because
    the same moves played before the draw reach the same position (docs/solver.md,
    "Deferred draws")? So it is when the child's line (its safe moves included) moves
    cards only from tableau piles, the reserve or foundations (returns), onto tableau
    piles or foundations, and, where it puts a card up, the card the draw ``covered`` was
    not safe at any point of the line: before the draw that card was the waste top, and
    settling would have played it. Each copy was up at most as often as it is in the
    child plus the line's returns, so that bound is checked."""
    up = False
    returned = 0
    for move in line:
        src, dst = move.src, move.dst
        if src is None or dst is None:
            return False
        if src.kind == FOUNDATION and dst.kind == TABLEAU:
            returned += 1
        elif src.kind not in (TABLEAU, RESERVE):
            return False
        elif dst.kind == FOUNDATION:
            up = True
        elif dst.kind != TABLEAU:
            return False
    return not (up and covered >= 0 and rules.safe_to_foundation(child, covered, returned))


def _search(
    state: State,
    rules: SearchTables,
    max_positions: int,
    deadline: float | None,
    narrow: bool,
    jitter: random.Random | None = None,
    arranged: bool = False,
    defer_draws: bool = True,
    relaxed: bool = True,
    relaxed_stock: int = relaxation.STOCK_LIMIT,
    relaxed_states: int = relaxation.STATE_LIMIT,
) -> tuple[Result, list[Move], int]:
    """One depth-first search. ``arranged``: positions up to run arrangement, with the
    moves of :mod:`app.solver.arrangements` (where it :func:`~arrangements.supports` the
    variant); else the engine's moves with the pruning and obligations above.
    ``defer_draws`` (never in a narrow search): after a bare draw, skip the children that
    could have been played before it (:func:`_deferred`); such a position is keyed apart
    from the same position reached otherwise, whose children are all tried.
    ``relaxed`` (never in a narrow search): a position the relaxed game shows lost
    (:mod:`app.solver.relaxation`, where the variant allows it) is met but not expanded;
    asked where the stock holds at most ``relaxed_stock`` cards, each test giving up at
    ``relaxed_states`` relaxed positions."""
    if narrow:
        # A narrow search proves nothing, it finds wins: its safe moves need not be a
        # proof (tables.py), nor its straight-back skip (below), and it keeps every
        # child after a draw (deferring draws changes the order positions are met in).
        rules = rules.narrowed()
        defer_draws = False
    dead_end = None
    if relaxed and not narrow:
        dead_end = relaxation.for_search(
            state, state_limit=relaxed_states, stock_limit=relaxed_stock
        )
        if dead_end is not None:
            dead_end.deadline = deadline
    key: Callable[[State], int]
    bases: arrangements.Bases = {}  # this search's run bases (arranged: see arrangements)
    if arranged:
        single_pass = rules.single_pass

        def key(position: State) -> int:
            return arrangements.key(position, single_pass, bases)

        def kids(position: State, last: Move | None) -> list[Child]:
            out = arrangements.children(position, wanted_cards(position), rules.draw_score, bases)
            return out if jitter is None else jittered(out, jitter)

    else:
        key = _key_fn(rules)

        def kids(position: State, last: Move | None) -> list[Child]:
            return children(position, rules, last, narrow, jitter)

    line: list[Move] = []
    eager = narrow and rules.eager_foundations
    state = settle(state, rules, line, eager)
    if state.is_won:
        return "solved", line, 1
    finish = _finish_line(state)
    if finish is not None:
        return "solved", line + finish, 1
    if dead_end is not None and dead_end.lost(state):
        return "unsolvable", [], 1
    seen: set[Any] = {key(state)}
    positions = 1
    stack = [_Frame(state, kids(state, None), line)]
    while stack:
        frame = stack[-1]
        if frame.next >= len(frame.children):
            stack.pop()
            continue
        _score, prefix, before, move, must_use = frame.children[frame.next]
        if before is None:
            # An obligated move reached: replace it by its pairings, in place.
            pairs = expand(frame.state, rules, move, must_use, narrow)
            frame.children[frame.next : frame.next + 1] = pairs
            continue
        frame.next += 1
        child, _ = before.apply(move, auto_finish=False, validate=False)
        child_line = [*prefix, move]
        child = settle(child, rules, child_line, eager)
        if frame.drawn != NOT_DRAWN and _deferred(child_line, child, frame.drawn, rules):
            continue
        drawn = NOT_DRAWN
        if defer_draws and len(child_line) == 1 and move.action == DRAW:
            drawn = before.waste[-1] if before.waste else NOTHING_COVERED
        h: Any = key(child)
        if drawn != NOT_DRAWN:
            h = (h, "drawn", drawn)  # what it skips reads the card covered too
        if h in seen:
            continue
        seen.add(h)
        positions += 1
        if child.is_won or (finish := _finish_line(child)) is not None:
            moves = [m for f in stack for m in f.line] + child_line
            if not child.is_won:
                moves += finish or []
            return "solved", moves, positions
        if positions >= max_positions:
            return "unknown", [], positions
        if (
            deadline is not None
            and positions % _TIME_CHECK_EVERY == 0
            and time.perf_counter() > deadline
        ):
            return "unknown", [], positions
        if dead_end is not None and dead_end.lost(child):
            continue
        # A narrow search skips straight back after any step (it finds wins sooner so:
        # Rank and File deal 11 in 1,190 positions, not past 4,000); a proof only where
        # that is exact.
        last = move if narrow else _reversible(before, child, child_line)
        stack.append(_Frame(child, kids(child, last), child_line, drawn))
    return "unsolvable", [], positions


def _reversible(before: State, child: State, line: list[Move]) -> Move | None:
    """The child's move when playing it straight back would give ``before`` exactly (the
    children skip that move: the position is in the table already), else None. Not so
    when safe moves followed it, nor when it turned a card up or the reserve refilled the
    pile it emptied: straight back then reaches a new position, which may be the only
    way on (docs/solver.md, "Straight back")."""
    if len(line) != 1:
        return None
    move = line[0]
    src = move.src
    if (
        src is not None
        and src.kind == TABLEAU
        and (
            child.hidden[src.index] != before.hidden[src.index]
            or len(child.reserve) != len(before.reserve)
        )
    ):
        return None
    return move


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
