"""The native search core (``app.solver._core``, C sources in ``app/solver/native/``).

Built by ``pip install`` where a C compiler and the Python headers are present; else
:func:`available` is False and :func:`missing_reason` says why, and the solver runs on
its Python search, which stays the reference the core is tested against
(``tests/solver/test_native_core.py``, ``docs/native-core.md``).

So far the core holds the position, legal moves, apply, the plain position key, the
safe foundation moves, the depth-first search, narrow or full, with the restarts' jitter,
plain or up to run arrangement (:func:`search`), the beam search (:func:`beam`), the
line shortening of :mod:`app.solver.lines` (:func:`shorten`), the plain search the
reductions are checked against (:func:`exhaustive`), and the run-arrangement
key and moves of :mod:`app.solver.arrangements` on their own (``Position.arranged_key``,
``arranged_children``); moves cross the boundary as their text (``str(Move)``). The core
is handed each variant's tables from here, built from the same
:class:`~app.engine.Variant` (and the solver's :class:`~app.solver.tables.SearchTables`)
the Python search reads, so no game is typed twice.
"""

from __future__ import annotations

import time
from functools import cache
from types import ModuleType

from app.engine import CorruptState, Move, State, UnknownVariant, Variant, get_variant
from app.engine import Rules as HouseRules
from app.solver import arrangements, relaxation
from app.solver import beam as beam_module
from app.solver import search as search_module
from app.solver.exhaustive import Exhausted
from app.solver.tables import SearchTables

try:
    from app.solver import _core
except ImportError as exc:  # not built here: the Python search serves alone
    _core = None  # type: ignore[assignment]
    _MISSING = f"app.solver._core is not built ({exc}); reinstall with a C compiler"
else:
    _MISSING = ""


def available() -> bool:
    """Is the native core built and loaded?"""
    return _core is not None


def missing_reason() -> str:
    """Why the native core is not available ("" when it is)."""
    return _MISSING


def native() -> ModuleType:
    """The loaded ``app.solver._core`` module (RuntimeError saying why when it is not)."""
    _require()
    return _core


def _require() -> None:
    if _core is None:
        raise RuntimeError(_MISSING)


@cache
def tables(variant: Variant) -> _core.Tables:
    """The core's tables for ``variant`` (one per variant value, as its lookup tables)."""
    _require()
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


_RESULTS: dict[str, search_module.Result] = {
    "solved": "solved",
    "unsolvable": "unsolvable",
    "unknown": "unknown",
}


def search(
    state: State,
    max_positions: int,
    max_seconds: float | None = None,
    *,
    draw_score: int | None = None,
    narrow: bool = False,
    eager: bool = False,
    seed: int = 0,
    arranged: bool = False,
    table_size: int = DEFAULT_TABLE_SIZE,
    defer_draws: bool = True,
    max_depth: int | None = None,
    relaxed: bool = True,
    relaxed_stock: int = relaxation.STOCK_LIMIT,
    relaxed_states: int = relaxation.STATE_LIMIT,
) -> search_module.SolveResult:
    """``search._search(state, rules, max_positions, deadline, narrow, random.Random(seed)
    or None, arranged, defer_draws, relaxed, relaxed_stock, relaxed_states)`` run
    natively, with the GIL released: the same children in the same order, so the same
    verdict, positions and line. ``draw_score`` is the rules' (of
    ``SearchTables.restart(seed)`` in a restart; default the variant's), ``eager`` is
    ``narrow and rules.eager_foundations``.
    ``unknown`` also when the transposition table (``table_size`` keys) is full, or its
    stack (``max_depth`` frames, default ``DEFAULT_MAX_DEPTH``): the result says which in
    ``stopped``. As ``_search``, the line
    is not replayed here (``plan.solve`` replays)."""
    _require()
    if draw_score is None:
        draw_score = SearchTables.of(state.variant).draw_score
    started = time.perf_counter()
    depth = _core.DEFAULT_MAX_DEPTH if max_depth is None else max_depth
    result, texts, positions, stop, _work = _core.search(
        position(state),
        max_positions,
        max_seconds,
        table_size,
        draw_score,
        narrow=narrow,
        eager=eager,
        seed=seed,
        arranged=arranged,
        defer_draws=defer_draws,
        max_depth=depth,
        relaxed=relaxed,
        relaxed_stock=relaxed_stock,
        relaxed_states=relaxed_states,
    )
    moves = [Move.parse(text) for text in texts]
    elapsed = int((time.perf_counter() - started) * 1000)
    return search_module.SolveResult(_RESULTS[result], moves, positions, elapsed, stop)


def search_full(
    state: State,
    max_positions: int,
    max_seconds: float | None = None,
    table_size: int = DEFAULT_TABLE_SIZE,
) -> search_module.SolveResult:
    """The full search (``_search`` with ``narrow=False``, no jitter, not arranged)."""
    return search(state, max_positions, max_seconds, table_size=table_size)


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
    """``beam.beam(position(state), ...)`` run natively, with the GIL released: the same
    positions met in the same order (``tests/solver/test_beam.py``), without a
    Python object per position. ``deadline`` is a ``time.perf_counter()`` time, looked at
    after each closure and every 16 of a level's draws, as the Python loop does."""
    _require()
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
    """:func:`app.solver.exhaustive.exhaustive` run natively, with the GIL released: the
    same verdict and the same count of positions. The budget bounds its memory too: the
    table holds ``max_positions`` keys, and the path at most as many positions with their
    moves (2,000,000 positions of Rank and File deal 1 peaked at 389 MB)."""
    _require()
    result, positions = _core.exhaustive(position(state), max_positions)
    return Exhausted(result, positions)


def shorten(state: State, line: list[str], deadline: float | None = None) -> list[str]:
    """``lines.shorten(position(state), line, deadline)`` run natively, with the GIL
    released: the same walk, so the same line (``tests/solver/test_lines.py``), three to
    ten times as fast. ``deadline`` is a ``time.perf_counter()`` time. A move that is not
    legal where the line plays it raises ValueError."""
    _require()
    seconds = None if deadline is None else max(0.0, deadline - time.perf_counter())
    return _core.shorten(position(state), line, seconds)


class Lcg:
    """The 64-bit generator the native ``playout`` draws from (search.h ``lcg_next``), so
    a Python playout makes the same choices."""

    def __init__(self, seed: int) -> None:
        self.state = seed & (2**64 - 1)

    def below(self, n: int) -> int:
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        return (self.state >> 33) % n


def python_playout(state: State, seed: int, steps: int) -> tuple[int, State]:
    """The native ``playout`` in Python: at each position legal moves and the plain key,
    then the move the shared generator picks. (positions visited, final position)."""
    key = search_module._key_fn(SearchTables.of(state.variant))
    rng = Lcg(seed)
    positions = 0
    for _ in range(steps):
        moves = state.legal_moves()
        key(state)
        positions += 1
        if not moves:
            break
        state, _ = state.apply(moves[rng.below(len(moves))], auto_finish=False, validate=False)
    return positions, state


def native_playout(state: State, seed: int, steps: int) -> tuple[int, State]:
    """:func:`python_playout` run by the core, the whole loop in C."""
    positions, _keys, end = _core.playout(position(state), seed, steps)
    return positions, State.from_bytes(end.to_bytes())
