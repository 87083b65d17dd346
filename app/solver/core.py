"""The solver's search: the native core (``app.solver._core``, C sources in
``app/solver/native/``), built by ``pip install`` (a C compiler and the Python headers are
needed: ``docs/native-core.md``).

It holds the position, legal moves, apply, the position keys, the safe foundation moves,
the depth-first search, narrow or full, with the restarts' jitter, plain or up to run
arrangement (:func:`search`), the beam search (:func:`beam`), the shortening of winning
lines (:func:`shorten`), and a native plain search (:func:`exhaustive`). Moves cross the
boundary as their text (``str(Move)``). The core is handed each variant's tables from
here, built from the same :class:`~app.engine.Variant` (and the solver's
:class:`~app.solver.tables.SearchTables`), so no game is typed twice. The engine is the
authority on the rules: :func:`app.solver.plan.solve` replays every winning line through
it, and the tests check the core against the engine and the plain search of
:mod:`app.solver.exhaustive`.
"""

from __future__ import annotations

import time
from dataclasses import KW_ONLY, dataclass, replace
from functools import cache
from types import ModuleType

from app.engine import CorruptState, Move, State, UnknownVariant, Variant, get_variant
from app.engine import Rules as HouseRules
from app.solver import arrangements, relaxation
from app.solver import beam as beam_module
from app.solver.exhaustive import Exhausted
from app.solver.result import Result, SolveResult
from app.solver.tables import SearchTables

try:
    from app.solver import _core
except ImportError as exc:  # pragma: no cover - an install without its build
    raise ImportError(
        f"app.solver._core is not built ({exc}): reinstall with a C compiler and the Python "
        "headers (on Debian: apt-get install gcc python3-dev; then pip install -e .)"
    ) from exc


# The full search's reductions by name, in list order (the C list, search.c).
FULL_REDUCTIONS: tuple[str, ...] = _core.FULL_REDUCTIONS


def native() -> ModuleType:
    """The loaded ``app.solver._core`` module."""
    return _core


@cache
def tables(variant: Variant) -> _core.Tables:
    """The core's tables for ``variant`` (one per variant value, as its lookup tables)."""
    rules = SearchTables.of(variant)
    children, narrow_children = bytearray(52 * 52), bytearray(52 * 52)
    for table, rows in ((children, rules.children), (narrow_children, rules.narrow_children)):
        for card, kids in enumerate(rows):
            for kid in kids:
                table[card * 52 + kid] = 1
    # The run-arrangement classes where the argument holds or the relaxed tableau's test
    # applies, which counts by class too (a parent class -1 as 255).
    arranged = arrangements.supports(variant)
    relaxed = relaxation.applies(variant)
    classes = arrangements._classes(variant) if arranged or relaxed else None
    klass, parent = classes if classes is not None else ((0,) * 52, (0,) * 52)
    return _core.Tables(
        name=variant.name,
        decks=variant.decks,
        tableau_piles=variant.tableau_piles,
        foundation_count=variant.foundation_count,
        draw=variant.draw,
        runs_any=rules.runs_any,
        reserve_fills_empty=variant.reserve_fills_empty,
        foundation_return=variant.foundation_return,
        single_pass=rules.single_pass,
        stack_ok=bytes(variant.stack_ok),
        found_next=bytes(255 if card < 0 else card for card in variant.found_next),
        children=bytes(children),
        narrow_children=bytes(narrow_children),
        arranged=arranged,
        klass=bytes(klass),
        parent_class=bytes(255 if c < 0 else c for c in parent),
        relaxed=relaxed,
    )


def position(state: State) -> _core.Position:
    """``state`` as a native position."""
    return _core.Position(tables(state.variant), state.to_bytes())


def load(data: bytes) -> _core.Position:
    """A native position from ``State.to_bytes()`` bytes (:class:`CorruptState` when they do
    not decode). The variant is named as the engine names it; the core reads the rest."""
    try:
        name = bytes(data[2 : 2 + data[1]]).decode()
        returns = bool(data[2 + data[1]])
        variant = get_variant(name).with_rules(HouseRules(foundation_return=returns))
        return _core.Position(tables(variant), data)
    except (IndexError, ValueError, UnknownVariant) as exc:
        raise CorruptState("corrupt_state", f"bytes do not decode to a position: {exc}") from None


# The transposition table's default bound, in keys (11 to 21 bytes each, so at most
# about 176 MB); a search never allocates room for more keys than its position budget.
DEFAULT_TABLE_SIZE = 1 << 23
# The stack's default bound, in frames (search.h): past it a search stops, ``unknown``.
DEFAULT_MAX_DEPTH: int = _core.DEFAULT_MAX_DEPTH


_RESULTS: dict[str, Result] = {
    "solved": "solved",
    "unsolvable": "unsolvable",
    "unknown": "unknown",
}


@dataclass(frozen=True)
class SearchLimits:
    """What one depth-first search of the core (:func:`search`) may do: its budgets and
    which search it is. The core reads these fields by name (``module_search.c``, ``Limits``).

    ``narrow`` is the restarts' search (no chains of run splits, nothing back down;
    proves nothing), else the full one (its exhaustion is a proof); ``seed`` jitters the
    move order (0: none); ``arranged`` searches up to run arrangement; ``defer_draws``
    (deferred draws) and ``relaxed`` (the relaxed tableau's dead-end test, where the
    stock holds at most ``relaxed_stock`` cards; each test gives up at
    ``relaxed_states``) are reductions of the full search. ``draw_score`` is the rules'
    (of ``SearchTables.restart(seed)`` in a restart; None: the variant's), ``eager`` is
    ``narrow and rules.eager_foundations``. ``without`` leaves reductions of the full
    search out by name (:data:`FULL_REDUCTIONS`; the differential tests switch each off
    alone). The search also stops, ``unknown``, when its transposition table
    (``table_size`` keys) or its stack (``max_depth`` frames) is full."""

    max_positions: int
    max_seconds: float | None = None
    _: KW_ONLY
    table_size: int = DEFAULT_TABLE_SIZE
    draw_score: int | None = None
    narrow: bool = False
    eager: bool = False
    seed: int = 0
    arranged: bool = False
    defer_draws: bool = True
    max_depth: int = DEFAULT_MAX_DEPTH
    relaxed: bool = True
    relaxed_stock: int = relaxation.STOCK_LIMIT
    relaxed_states: int = relaxation.STATE_LIMIT
    without: tuple[str, ...] = ()


def search(state: State, limits: SearchLimits) -> SolveResult:
    """One depth-first search from ``state`` within ``limits``, with the GIL released.
    ``unknown`` also when the transposition table or the stack is full: the result says
    which in ``stopped``. The line is not replayed here (``plan.solve`` replays)."""
    if limits.draw_score is None:
        limits = replace(limits, draw_score=SearchTables.of(state.variant).draw_score)
    started = time.perf_counter()
    result, texts, positions, stop, _work = _core.search(position(state), limits)
    moves = [Move.parse(text) for text in texts]
    elapsed = int((time.perf_counter() - started) * 1000)
    return SolveResult(_RESULTS[result], moves, positions, elapsed, stop)


def scored_children(state: State, last: Move | None = None) -> list[tuple[int, Move, int]]:
    """The full search's children at ``state`` reached by ``last``, in the order the core
    makes them: (score, move, the tableau pile the next move must use or -1). The search
    tries them lowest score first, equal scores in this order (``scores.h``)."""
    draw_score = SearchTables.of(state.variant).draw_score
    found = position(state).scored_children(draw_score, None if last is None else str(last))
    return [(score, Move.parse(text), must_use) for score, text, must_use in found]


def search_full(
    state: State,
    max_positions: int,
    max_seconds: float | None = None,
    table_size: int = DEFAULT_TABLE_SIZE,
) -> SolveResult:
    """The full search (:func:`search` with ``narrow=False``, no jitter, not arranged)."""
    return search(state, SearchLimits(max_positions, max_seconds, table_size=table_size))


def beam(
    state: State,
    width: int,
    max_positions: int,
    *,
    best: bool = False,
    single: bool = False,
    closure: int = 200,
    deadline: float | None = None,
    relaxed: bool = True,
) -> beam_module.BeamResult:
    """A beam pass (:mod:`app.solver.beam`) from ``state``, with the GIL released.
    ``deadline`` is a ``time.perf_counter()`` time, looked at after each closure and
    every 16 of a level's draws."""
    seconds = None if deadline is None else max(0.0, deadline - time.perf_counter())
    texts, positions, stopped = _core.beam(
        position(state),
        width,
        max_positions,
        seconds,
        closure,
        beam_module.ENDGAME,
        beam_module.WEIGHTS,
        best=best,
        single=single,
        relaxed=relaxed,
    )
    return beam_module.BeamResult(texts, positions, stopped)


def exhaustive(state: State, max_positions: int) -> Exhausted:
    """:func:`app.solver.exhaustive.exhaustive` in C, with the GIL released: the same
    verdict and the same count of positions. The budget bounds its memory too: the
    table holds ``max_positions`` keys, and the path at most as many positions with their
    moves (2,000,000 positions of Rank and File deal 1 peaked at 389 MB)."""
    result, positions = _core.exhaustive(position(state), max_positions)
    return Exhausted(result, positions)


def shorten(state: State, line: list[str], deadline: float | None = None) -> list[str]:
    """``line`` (moves as text, from ``state``) without its detours, with the GIL released:
    the line is replayed once, noting each position's exact bytes, then walked from the
    start, from each position to the latest position of the line that one legal move
    reaches (``docs/solver.md``, "Shorter lines"). Every step is a legal move and the walk
    ends where the line ends, so the shorter line wins too (``plan.solve`` replays it).
    ``deadline`` is a ``time.perf_counter()`` time. A move that is not legal where the
    line plays it raises ValueError."""
    seconds = None if deadline is None else max(0.0, deadline - time.perf_counter())
    return _core.shorten(position(state), line, seconds)


def playout(state: State, seed: int, steps: int) -> tuple[int, State]:
    """A seeded random playout in the core (the benchmark's and the tests' walk): at each
    position the legal moves and the plain key, then move number ``rng % count`` of the
    64-bit generator in ``playout.h`` (``lcg_next``). (positions visited, final position)"""
    positions, _keys, end = _core.playout(position(state), seed, steps)
    return positions, State.from_bytes(end.to_bytes())
