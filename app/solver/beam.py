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
closure), and this loop runs on either core through the same few calls: the native
``Position`` (:mod:`app.solver.core`) or :class:`EnginePosition` over the engine's
``State``, which answer those calls alike (``tests/solver/test_native_core.py``), so both
cores meet the same positions. On the native core :func:`app.solver.plan.solve` runs the
whole loop natively instead (``core.beam``, ``app/solver/native/beam.c``, several times
faster); this loop is its reference (``tests/solver/test_beam.py``).

Measured on the deals the depth-first search left undecided at 10,000,000 positions
(``docs/benchmarks.md``, "The beam search"). The score is hand-weighted from what loses
these games: cards still face down, cards in the waste or the reserve, piles out of
sequence, and cards lying above those the foundations take next.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, Protocol, Self

from app.engine import Move, State
from app.solver import relaxation
from app.solver.moves import settle, wanted_cards
from app.solver.search import _key_parts
from app.solver.tables import SearchTables

LEVEL_MOVES = frozenset({"draw", "redeal"})  # the moves that end a level
RUN_MARK = "x"  # in a move's text only where it moves a run: "t3>t5x2"
ENDGAME = 20  # times the closure, from a position with nothing left to draw
DRAWS_BETWEEN_CLOCKS = 16  # a level's draws between looks at the clock

# How the score weighs each of a position's :class:`Features`, in their order (buried
# cards: the best of -1 to -20 on the deals the surveys left undecided, docs/benchmarks.md).
WEIGHTS = (10, -6, -3, -4, 4, -2, -8)


class BeamPosition(Protocol):
    """What the beam needs of a position (the native ``Position`` has exactly this)."""

    def legal_moves(self) -> list[str]: ...
    def apply(self, move: str) -> Self: ...
    def settle(self, eager: bool = False) -> tuple[list[str], Self]: ...
    def key(self) -> int: ...
    def features(self) -> tuple[int, ...]: ...
    def children(self) -> list[tuple[str, list[str], Self]]: ...
    def to_bytes(self) -> bytes: ...
    @property
    def is_won(self) -> bool: ...


class EnginePosition:
    """A :class:`BeamPosition` over the engine's ``State`` and the Python solver's safe
    moves and key: the reference for the native ``Position``."""

    __slots__ = ("state", "rules")

    def __init__(self, state: State, rules: SearchTables | None = None) -> None:
        self.state = state
        self.rules = SearchTables.of(state.variant) if rules is None else rules

    def legal_moves(self) -> list[str]:
        return [str(move) for move in self.state.legal_moves()]

    def apply(self, move: str) -> EnginePosition:
        after, _ = self.state.apply(Move.parse(move), auto_finish=False, validate=False)
        return EnginePosition(after, self.rules)

    def to_bytes(self) -> bytes:
        return self.state.to_bytes()

    def settle(self, eager: bool = False) -> tuple[list[str], EnginePosition]:
        line: list[Move] = []
        after = settle(self.state, self.rules, line, eager)
        return [str(move) for move in line], EnginePosition(after, self.rules)

    def key(self) -> int:
        return hash(_key_parts(self.state, self.rules.single_pass))

    def features(self) -> Features:
        return features(self.state)

    def children(self) -> list[tuple[str, list[str], EnginePosition]]:
        """One per legal move: (the move, the safe moves after it, the position after)."""
        return [(move, *self.apply(move).settle()) for move in self.legal_moves()]

    @property
    def is_won(self) -> bool:
        return self.state.is_won


class Features(NamedTuple):
    """What the score reads of a position (the native ``Position.features()`` gives the
    same tuple)."""

    on_foundations: int
    face_down: int
    in_waste: int
    in_reserve: int
    empty_piles: int
    out_of_sequence: int  # face-up cards on a card that does not take them
    # For each card the foundations take next, the cards above its copy nearest the top
    # of the waste, the reserve or a tableau pile (none where every copy is in the stock
    # or on a foundation): what must move before the foundations can grow.
    buried: int


def features(state: State) -> Features:
    """What the score reads of ``state``."""
    stack_ok = state.variant.stack_ok
    out_of_sequence = 0
    for hidden, pile in zip(state.hidden, state.tableau, strict=True):
        for below, card in zip(pile[max(hidden - 1, 0) :], pile[max(hidden, 1) :], strict=False):
            out_of_sequence += not stack_ok[below * 52 + card]
    return Features(
        sum(len(pile) for pile in state.foundations),
        sum(state.hidden),
        len(state.waste),
        len(state.reserve),
        sum(not pile for pile in state.tableau),
        out_of_sequence,
        sum(_depth(state, card) for card in wanted_cards(state)),
    )


def _depth(state: State, card: int) -> int:
    """The cards above the copy of ``card`` nearest the top of the waste, the reserve
    or a tableau pile (each top last); 0 where none lies there."""
    depths = [
        len(cards) - 1 - index
        for cards in (state.waste, state.reserve, *state.tableau)
        for index, held in enumerate(cards)
        if held == card
    ]
    return min(depths, default=0)


def score(found: tuple[int, ...]) -> int:
    """How promising a position looks, from its :class:`Features` (higher is better)."""
    up, down, waste, reserve, empty, out, buried = found
    w_up, w_down, w_waste, w_reserve, w_empty, w_out, w_buried = WEIGHTS
    return (
        w_up * up
        + w_down * down
        + w_waste * waste
        + w_reserve * reserve
        + w_empty * empty
        + w_out * out
        + w_buried * buried
    )


def _dead_end(root: BeamPosition) -> Callable[[BeamPosition], bool] | None:
    """The relaxed tableau's test for one beam from ``root`` (None where it does not
    apply), over the engine's state of a position of either kind: the native beam runs
    the native mirror of the same test, which answers alike."""
    test = relaxation.for_search(_state(root), relaxation.BEAM_STATE_LIMIT)
    if test is None:
        return None
    return lambda position: test.lost(_state(position))


def _state(position: BeamPosition) -> State:
    if isinstance(position, EnginePosition):
        return position.state
    return State.from_bytes(position.to_bytes())


# A line as a chain of steps, shared between the positions that extend it.
Line = tuple["Line", list[str]] | None


def _moves(line: Line) -> list[str]:
    steps: list[list[str]] = []
    while line is not None:
        line, step = line
        steps.append(step)
    return [move for step in reversed(steps) for move in step]


class _Best:
    """The ``width`` highest-scored positions added, ties to the first added (as
    ``heapq.nlargest``), keeping no more than those: a level meets up to ``width`` times
    the closure positions, and a native position is about 2.5 KB."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.heap: list[tuple[int, int, BeamPosition, Line]] = []  # (score, -order, ...)
        self.added = 0

    def add(self, value: int, position: BeamPosition, line: Line) -> None:
        self.added += 1
        entry = (value, -self.added, position, line)
        if len(self.heap) < self.width:
            heapq.heappush(self.heap, entry)
        elif entry[:2] > self.heap[0][:2]:
            heapq.heapreplace(self.heap, entry)

    def ranked(self) -> list[tuple[BeamPosition, Line]]:
        """Best first; equal scores in the order they were added."""
        return [
            (entry[2], entry[3]) for entry in sorted(self.heap, key=lambda e: e[:2], reverse=True)
        ]


@dataclass(slots=True)
class BeamResult:
    moves: list[str] | None  # a line that wins, or None
    positions: int  # positions met (each counted once)
    stopped: str  # "positions" or "deadline" when cut short; "" when the beam ran out


def beam(
    start: BeamPosition,
    width: int,
    max_positions: int,
    *,
    best: bool = False,
    single: bool = False,
    closure: int = 200,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    relaxed: bool = True,
) -> BeamResult:
    """Search from ``start`` (settled first) for a winning line, ``width`` positions
    kept per level, at most ``closure`` new positions explored from each: depth first
    in the engine's move order, or ``best`` first by the score (each wins deals the
    other does not: depth first more of Rank and File's, where runs move, best first
    more of Deauville's, where single cards do). ``single`` moves no run of two cards or
    more: where runs move, the game of single cards is a smaller one inside it, with
    wins that the beam over every move leaves behind (Rank and File deals 58 and 96).
    ``relaxed``: a position the relaxed tableau shows lost (:mod:`app.solver.relaxation`,
    where the variant allows it) is met and counted, but neither kept nor explored: no
    win lies beyond it, and in Rainbow most of the passes' positions with a few stock
    cards left are such (docs/benchmarks.md, eighteenth session)."""
    moves, first = start.settle()
    if first.is_won:
        return BeamResult(moves, 1, "")
    seen = {first.key()}
    lost = _dead_end(first) if relaxed else None
    if lost is not None and lost(first):
        return BeamResult(None, 1, "")
    level: list[tuple[BeamPosition, Line]] = [(first, (None, moves))]
    positions = 1
    while level:
        candidates = _Best(width)
        for root, root_line in level:
            root_score = score(root.features())
            candidates.add(root_score, root, root_line)
            frontier = [(-root_score, 0, root, root_line)]
            found = 0
            # Where nothing is left to draw, the closure is the rest of the game: looked
            # at further (best first finds a won endgame well before this cap).
            last = not any(move in LEVEL_MOVES for move in root.legal_moves())
            cap = closure * ENDGAME if last else closure
            while frontier and found < cap:
                _, _, position, line = heapq.heappop(frontier) if best else frontier.pop()
                for move, safe, child in position.children():
                    if move in LEVEL_MOVES or move[0] == "f":  # no returns
                        continue
                    if single and RUN_MARK in move:
                        continue
                    key = child.key()
                    if key in seen:
                        continue
                    seen.add(key)
                    positions += 1
                    found += 1
                    child_line: Line = (line, [move, *safe])
                    if child.is_won:
                        return BeamResult(_moves(child_line), positions, "")
                    if lost is None or not lost(child):
                        child_score = score(child.features())
                        candidates.add(child_score, child, child_line)
                        entry = (-child_score, found, child, child_line)
                        if best:
                            heapq.heappush(frontier, entry)
                        else:
                            frontier.append(entry)
                    if positions >= max_positions:
                        return BeamResult(None, positions, "positions")
            if deadline is not None and clock() > deadline:
                return BeamResult(None, positions, "deadline")
        level = []
        for drawn, (position, line) in enumerate(candidates.ranked()):
            # A wide level's draws, each tested, take long: the clock inside them too.
            late = drawn % DRAWS_BETWEEN_CLOCKS == DRAWS_BETWEEN_CLOCKS - 1
            if late and deadline is not None and clock() > deadline:
                return BeamResult(None, positions, "deadline")
            level_move = next((m for m in position.legal_moves() if m in LEVEL_MOVES), None)
            if level_move is None:
                continue
            safe, child = position.apply(level_move).settle()
            key = child.key()
            if key in seen:
                continue
            seen.add(key)
            positions += 1
            child_line = (line, [level_move, *safe])
            if child.is_won:
                return BeamResult(_moves(child_line), positions, "")
            if lost is None or not lost(child):
                level.append((child, child_line))
            if positions >= max_positions:
                return BeamResult(None, positions, "positions")
    return BeamResult(None, positions, "")
