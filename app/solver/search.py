"""Depth-first search over the engine's own moves, with a transposition table.

The solver sees the whole position (face-down cards, stock order): it decides whether
the deal *as dealt* can be won. Every move it tries comes from ``State.legal_moves()``
(or, for the moves paired with an obligation, is built with the engine's own tests,
``foundation_takes``/``tableau_takes``/``run_length``) and is played by ``State.apply``;
a winning line is replayed with validation before it is returned, so the solver can
never disagree with the rules. What it adds is knowledge about which moves to try
first, which to skip, and which to play at once:

- safe foundation moves (:class:`Rules`) are played without branching: a card goes up
  when no card that could ever need it as a tableau parent is still out of the
  foundations (two decks: both copies must be up);
- a position key that treats tableau piles and same-suit foundations as interchangeable;
  the table keeps only the key's 64-bit hash (a collision could only hide a position,
  never invent a win, and every winning line is replayed before it is returned);
- pruning: a whole pile to an empty pile, the same move to a second empty pile or a
  second foundation with the same top, undoing the previous move;
- obligations: a move whose only effect is to uncover a card (splitting a run) or to
  empty a pile is tried only together with a move that uses what it uncovered (see
  :func:`_scored_moves` for why no win is lost);
- ordering: turn a face-down card up or empty a pile first, then foundation moves, then
  the rest; draw (irreversible with a single-pass stock) last, but before building from
  the waste when redeals bring passed cards round again.

:func:`app.solver.plan.solve` first runs a few short *narrow* searches (no chains of run splits, every
foundation move played at once where cards may come back and the stock comes round
again) with restarts (at most 2,000 positions long where single cards move); they find
most wins quickly but prove nothing. The *full* search that follows keeps only the sound
reductions above. Where whole runs move (:mod:`app.solver.arrangements`), restarts and
the full search also run over positions up to run arrangement, a far smaller space; where
runs move otherwise (Rainbow, Canfield), restarts of the plain full search are paired
with the narrow ones instead.

``unsolvable`` is returned only when the search space was exhausted without a budget
cut, and every pruning above keeps a winning line when one exists, so it is a proof.
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from app.engine import Move, State, Variant
from app.engine.cards import RANK, SUIT
from app.engine.moves import DRAW, FOUNDATION, MOVE, REDEAL, RESERVE, TABLEAU, WASTE, Pile
from app.solver import arrangements

T_PILES = tuple(Pile(TABLEAU, i) for i in range(16))
F_PILES = tuple(Pile(FOUNDATION, i) for i in range(16))
W_PILE, R_PILE = Pile(WASTE), Pile(RESERVE)

Result = Literal["solved", "unsolvable", "unknown"]

DEFAULT_MAX_POSITIONS = 1_000_000
FIRST_TRY = 500
_JITTER = 12
_TIME_CHECK_EVERY = 512
NARROW, ARRANGED, FULL = "narrow", "arranged", "full"  # the kinds of search in solve()


class SolveResult(NamedTuple):
    result: Result
    moves: list[Move]
    positions: int
    elapsed_ms: int


class Rules:
    """Per-variant tables the search reads on its hot path (built once per variant)."""

    _cache: dict[Variant, Rules] = {}

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.decks = variant.decks
        self.runs_any = variant.runs == "any"
        self.single_pass = variant.redeals == 0
        self.reserve_fills = variant.reserve_fills_empty
        self.returns = variant.foundation_return
        # Narrow restarts play every foundation move at once where cards may come back,
        # but only where the stock comes round again: with one pass, the cards kept in
        # the tableau are the parents the waste is unloaded onto. Measured with one pass
        # (eager against not): Rainbow deals 1-30 at 200,000 positions 18 -> 19 proven,
        # Emperor 1-30 at 100,000 10 -> 10, six of them in fewer positions; with redeals,
        # Rows of Four 1-60 at 20,000 needs it (52 eager, 44 not).
        self.eager_foundations = self.returns and not self.single_pass
        # With redeals a card passed by comes round again: draw before building on the
        # tableau from the waste, which buries low cards. One pass: draw last.
        self.draw_score = 90 if self.single_pass else 15
        # Where single cards move, many short restarts beat a few long ones: a short
        # depth-first search revises only its last choices, and these games are lost by
        # early ones. Restarts up to 2,000 positions, against growing without bound:
        # Deauville deals 1-60 at 100,000 positions 17 -> 20 proven, Emperor 1-30 9 -> 10;
        # at 1,000,000, Deauville 1-11 the same deals, deal 8 in 87,258 positions, not 416,512.
        self.largest_restart: int | None = None if self.runs_any else FIRST_TRY << 2
        self._early_draw: Rules | None = None
        ok = variant.stack_ok
        # A card nothing can be built on, of the foundations' first rank (an Ace without
        # wrap), never needs a tableau parent: an empty foundation always takes it (as
        # many foundations as such cards).
        needs_parent = [
            not (not any(ok[m * 52 + x] for x in range(52)) and self._first_rank_card(m))
            for m in range(52)
        ]
        # children[c]: the cards that could ever want c as their tableau parent.
        self.children: tuple[tuple[int, ...], ...] = tuple(
            tuple(m for m in range(52) if ok[c * 52 + m] and needs_parent[m]) for c in range(52)
        )

    def _first_rank_card(self, card: int) -> bool:
        return self.variant.foundation_base == "ace" and RANK[card] == 1

    def restart(self, seed: int) -> Rules:
        """The tables for narrow restart ``seed``: with a single-pass stock, every other
        restart draws before splitting runs (some deals need the next card sooner)."""
        if not self.single_pass or seed % 2 == 0:
            return self
        if self._early_draw is None:
            self._early_draw = copy.copy(self)
            self._early_draw.draw_score = 40
        return self._early_draw

    @classmethod
    def of(cls, variant: Variant) -> Rules:
        rules = cls._cache.get(variant)
        if rules is None:
            rules = cls._cache[variant] = cls(variant)
        return rules

    def on_foundations(self, state: State, card: int) -> int:
        """How many copies of ``card`` are on the foundations."""
        suit = SUIT[card]
        first = state.first_rank
        position = (RANK[card] - first) % 13
        return sum(1 for f in state.foundations if f and SUIT[f[0]] == suit and len(f) > position)

    def safe_to_foundation(self, state: State, card: int) -> bool:
        decks = self.decks
        return all(self.on_foundations(state, m) == decks for m in self.children[card])


def _key_fn(rules: Rules) -> Callable[[State], int]:
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


def settle(state: State, rules: Rules, line: list[Move], eager: bool = False) -> State:
    """Play safe foundation moves until none is left, appending them to ``line``.

    ``eager`` (narrow search, where foundation cards may return and the stock has
    redeals) plays every foundation move: a card that goes up can still come back, so
    it is rarely wrong, but not provably.
    """
    while True:
        move = _safe_move(state, rules, eager)
        if move is None:
            return state
        state, _ = state.apply(move, auto_finish=False, validate=False)
        line.append(move)


# The last answer of _wanted, with the foundations it was computed for: a move copies
# only the piles it touches, so a position mostly shares its foundations with the one
# before. The entry holds those foundations, so their id cannot be reused meanwhile.
_wanted_last: tuple[Any, Any, int, dict[int, int]] = ((), None, 0, {})


def _wanted(state: State) -> dict[int, int]:
    """The cards the foundations take now, each with the first foundation that takes it
    (shared between calls: read only)."""
    global _wanted_last
    foundations, variant = state.foundations, state.variant
    first = state.first_rank
    last = _wanted_last  # read once: another thread may replace it meanwhile
    if last[0] is foundations and last[1] is variant and last[2] == first:
        return last[3]
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
    _wanted_last = (foundations, variant, first, wanted)
    return wanted


def _safe_move(state: State, rules: Rules, eager: bool) -> Move | None:
    wanted = _wanted(state)
    for i, pile in enumerate(state.tableau):
        if pile and pile[-1] in wanted and state.hidden[i] < len(pile):
            # Emptying a pile refills it from the reserve: not provably harmless, so skip.
            if rules.reserve_fills and len(pile) == 1 and state.reserve:
                continue
            if eager or rules.safe_to_foundation(state, pile[-1]):
                return Move(MOVE, T_PILES[i], F_PILES[wanted[pile[-1]]], 1)
    for src, cards in ((W_PILE, state.waste), (R_PILE, state.reserve)):
        if cards and cards[-1] in wanted and (eager or rules.safe_to_foundation(state, cards[-1])):
            return Move(MOVE, src, F_PILES[wanted[cards[-1]]], 1)
    return None


def _finish_line(state: State) -> list[Move] | None:
    """When the engine's auto-finish would win from here, its moves; else None."""
    if not state.auto_finish_ready():
        return None
    final, events = state.auto_finish()
    if not final.is_won:
        return None
    return [e.move for e in events if e.move is not None]


# A child of a node: (score, moves from the node to ``before``, ``before``, the move).
# A placeholder for an obligated move has ``before`` None and the pile index to use.
Child = tuple[int, list[Move] | int, State | None, Move]

_NO_USE = -1


def _scored_moves(
    state: State, rules: Rules, last: Move | None, narrow: bool
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
            out.append((rules.draw_score, move, _NO_USE))
            continue
        if action == REDEAL:
            out.append((95, move, _NO_USE))
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
            score = 10
            if src.kind == TABLEAU:
                left = len(tableau[src.index]) - 1
                if left == 0 or hidden[src.index] == left:
                    score = 0  # also turns a card up or empties a pile
            elif src.kind == FOUNDATION:
                continue
            out.append((score, move, _NO_USE))
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
                    out.append((1 + down, move, _NO_USE))  # turns a card up
                elif to_empty:
                    continue  # whole pile to an empty pile: nothing changes
                elif rules.reserve_fills and state.reserve:
                    out.append((5, move, _NO_USE))  # the reserve refills it: progress
                else:
                    out.append((30, move, src.index))  # empties a pile
            else:
                out.append((60 if to_empty else 50, move, src.index))  # splits a run
        elif src.kind == FOUNDATION:
            if not narrow:  # the narrow search never takes cards back from foundations
                out.append((70, move, _NO_USE))
        else:
            out.append((40 if to_empty else 20, move, _NO_USE))
    return out


def _follow_ups(state: State, index: int, last: Move, runs_any: bool, narrow: bool) -> list[Move]:
    """The moves that use tableau pile ``index`` right after ``last`` uncovered it: its
    top card to a foundation (or, where single cards move, anywhere), or something onto
    it. Built from the engine's own tests (``foundation_takes``, ``tableau_takes`` and
    ``run_length``, inlined here: this is the search's hottest loop)."""
    if not runs_any:
        # Single cards: a built sequence moves only card by card, and that relocation is
        # what these games need; the narrow limits (meant for whole-run rotation) would
        # forbid it. Full follow-ups in narrow searches too doubled the deals proven at
        # 20,000 positions (Deauville 1-70: 8 -> 16; Rows of Four 1-50: 33 -> 42).
        narrow = False
    out: list[Move] = []
    append = out.append
    tableau, hidden = state.tableau, state.hidden
    ok = state.variant.stack_ok
    empty_takes = not (state.variant.reserve_fills_empty and state.reserve)
    pile = tableau[index]
    here = T_PILES[index]
    if pile:
        top = pile[-1]
        for f in range(len(state.foundations)):
            if state.foundation_takes(f, top):
                append(Move(MOVE, here, F_PILES[f], 1))
                break
        # Where single cards move, P itself may move on.
        if not runs_any:
            for j, other in enumerate(tableau):
                if j != index and (ok[other[-1] * 52 + top] if other else empty_takes):
                    append(Move(MOVE, here, T_PILES[j], 1))
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
        k = size - 1  # run_length(j), inlined
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
    for src, cards in ((W_PILE, state.waste), (R_PILE, state.reserve)):
        if cards and state.tableau_takes(index, cards[-1]):
            append(Move(MOVE, src, here, 1))
    if state.variant.foundation_return and not narrow:
        for f, cards in enumerate(state.foundations):
            if cards and state.tableau_takes(index, cards[-1]):
                append(Move(MOVE, F_PILES[f], here, 1))
    return out


def children(
    state: State, rules: Rules, last: Move | None, narrow: bool, jitter: random.Random | None
) -> list[Child]:
    """The node's children, best first. An obligated move comes as a placeholder
    (``before`` is None, the move's pile index in place of a line) that :func:`expand`
    replaces by the move paired with each of its uses, when the search reaches it."""
    out: list[Child] = []
    for score, move, must_use in _scored_moves(state, rules, last, narrow):
        if must_use == _NO_USE:
            out.append((score, [], state, move))
        else:
            out.append((score, must_use, None, move))
    if jitter is None:
        out.sort(key=lambda child: child[0])
        return out
    return _jittered(out, jitter)


def _jittered(out: list[Child], jitter: random.Random) -> list[Child]:
    """Restarts: the same move classes, neighbouring ones shuffled a little."""
    noisy = [(child[0] + jitter.random() * _JITTER, n) for n, child in enumerate(out)]
    return [out[n] for _s, n in sorted(noisy)]


def expand(state: State, rules: Rules, move: Move, must_use: int, narrow: bool) -> list[Child]:
    """An obligated ``move`` followed by each move that uses the pile it uncovered."""
    mid, _ = state.apply(move, auto_finish=False, validate=False)
    prefix = [move]
    mid = settle(mid, rules, prefix, narrow and rules.eager_foundations)
    if len(prefix) > 1 and mid.tableau[must_use] != state.tableau[must_use][: -move.count]:
        return [(0, [], state, move)]  # the uncovered card went up: used already
    follows = _follow_ups(mid, must_use, move, rules.runs_any, narrow)
    return [(0, prefix, mid, follow) for follow in follows]


class _Frame:
    __slots__ = ("state", "children", "next", "line")

    def __init__(self, state: State, children: list[Child], line: list[Move]) -> None:
        self.state = state
        self.children = children
        self.next = 0
        self.line = line  # the moves that led here from the parent (chosen + safe ones)


def _search(
    state: State,
    rules: Rules,
    max_positions: int,
    deadline: float | None,
    narrow: bool,
    jitter: random.Random | None = None,
    arranged: bool = False,
) -> tuple[Result, list[Move], int]:
    """One depth-first search. ``arranged``: positions up to run arrangement, with the
    moves of :mod:`app.solver.arrangements` (where it :func:`~arrangements.supports` the
    variant); else the engine's moves with the pruning and obligations above."""
    key: Callable[[State], int]
    if arranged:
        single_pass = rules.single_pass

        def key(position: State) -> int:
            return arrangements.key(position, single_pass)

        def kids(position: State, last: Move | None) -> list[Child]:
            out: list[Child] = list(
                arrangements.children(position, _wanted(position), rules.draw_score)
            )
            return out if jitter is None else _jittered(out, jitter)

    else:
        key = _key_fn(rules)

        def kids(position: State, last: Move | None) -> list[Child]:
            return children(position, rules, last, narrow, jitter)

    line: list[Move] = []
    eager = narrow and rules.eager_foundations
    state = settle(state, rules, line, eager)
    if arranged:
        state = arrangements.normalize(state, line)
    if state.is_won:
        return "solved", line, 1
    finish = _finish_line(state)
    if finish is not None:
        return "solved", line + finish, 1
    seen = {key(state)}
    positions = 1
    stack = [_Frame(state, kids(state, None), line)]
    while stack:
        frame = stack[-1]
        if frame.next >= len(frame.children):
            stack.pop()
            continue
        _score, prefix, before, move = frame.children[frame.next]
        if before is None or isinstance(prefix, int):
            # An obligated move reached: replace it by its pairings, in place.
            assert isinstance(prefix, int)
            pairs = expand(frame.state, rules, move, prefix, narrow)
            frame.children[frame.next : frame.next + 1] = pairs
            continue
        frame.next += 1
        child, _ = before.apply(move, auto_finish=False, validate=False)
        child_line = [*prefix, move]
        child = settle(child, rules, child_line, eager)
        if arranged:
            child = arrangements.normalize(child, child_line)
        h = key(child)
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
        stack.append(_Frame(child, kids(child, move), child_line))
    return "unsolvable", [], positions


def suggest(state: State) -> Move | None:
    """A heuristic move when no winning line is known: a safe foundation move, else the
    move the search would try first (None when there is no move at all)."""
    rules = Rules.of(state.variant)
    safe = _safe_move(state, rules, False)
    if safe is not None:
        return safe
    scored = sorted(_scored_moves(state, rules, None, False), key=lambda entry: entry[0])
    return scored[0][1] if scored else None


def replay(state: State, moves: list[Move]) -> State:
    """Play ``moves`` with full validation and auto-finish off; the final position."""
    for move in moves:
        state, _ = state.apply(move, auto_finish=False, validate=True)
    return state
