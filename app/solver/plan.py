"""The search plan and what the app calls: :func:`solve` runs the restarts, the beam
passes and then the full search, each a call into the native core (:mod:`app.solver.core`),
and replays every winning line through the engine; :func:`suggest` is the heuristic move
when no winning line is known.

First narrow searches (no chains of run splits, which mostly rotate runs among equal
parents; every foundation move played at once where cards may come back and the stock
comes round again) with a quarter of the budget, split over a few restarts whose move
order is shuffled a little (a depth-first search stuck below an early mistake rarely
gets back out; at most 2,000 positions long where single cards move); they find most
wins fast but prove nothing. Where whole runs move (:mod:`app.solver.arrangements`), each
is paired with a restart of the search up to run arrangement; where runs move otherwise
(Rainbow, Canfield), with a restart of the plain full search. Between them, from
100,000 positions on and where the stock comes out in one pass, beam passes of growing
width (:mod:`app.solver.beam`) with another quarter: they find the wins that lie beyond
an early mistake (below that budget the restarts have half; past 1,000,000 the beam
passes have all that the restarts, at most 1,000,000, and the full search's 500,000
leave; where the relaxed tableau applies, the full search keeps half). Then the full
search, which keeps only the sound reductions, with what is left (at least half of a
budget up to 1,000,000, at least 500,000 past it, half where relaxed): its exhaustion
is a proof.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from app.engine import Move, State
from app.engine import Rules as HouseRules
from app.solver import arrangements, relaxation
from app.solver import core as native_core
from app.solver.result import Result, SolveResult, wins
from app.solver.tables import FIRST_TRY, SearchTables

DEFAULT_MAX_POSITIONS = 1_000_000
# The searches of solve(): restarts, beam passes (closures depth or best first, or
# depth first over single cards), full.
NARROW, ARRANGED, FULL = "narrow", "arranged", "full"
BEAM, BEST_BEAM = "beam", "best-first beam"
SINGLE_BEAM = "single-card beam"  # depth first, no run of two cards or more moved
BEAMS = (BEAM, BEST_BEAM, SINGLE_BEAM)
# Shares of solve()'s budget (docs/decisions/0006-solve-plan-budget-shares.md): from
# BEAM_FROM positions, a quarter for the restarts, a quarter for the beam passes and the
# rest (half) for the full search, whose exhaustion is the proof; below it, half for the
# restarts (at 25,000 positions a beam pass costs more wins than it finds).
BEAM_FROM = 100_000
RESTARTS_SHARE = 4  # 1/4 (below BEAM_FROM, 1/2)
# The restarts' share stops growing here: past it they seldom win, and wider beams do.
RESTARTS_MOST = 1_000_000
# The full search keeps half, up to this; the beam passes have the rest, and the full
# search what they leave: at 10,000,000 deals 1-200 decide more this way, none fewer.
# Where the passes run dry early, the full search has what they leave (Forty Thieves 22:
# 1.0 M of restarts, 3.2 M of passes, then 5.4 M of full search, which proves it lost);
# where they do not (Rainbow), it has 500,000 of 10,000,000. Where the relaxed tableau's
# dead-end test applies (Rainbow) the full search keeps half at every budget: with it the
# full search alone proves lost deals in 0.75-10 M positions and wins some deals sooner
# than the passes (docs/decisions/0006-solve-plan-budget-shares.md).
FULL_LEAST = 500_000
FIRST_BEAM_WIDTH, BEAM_GROWTH = 16, 4
# Positions a beam pass meets per unit of width, a planning estimate (measured passes
# vary from about 500 to 4,200; docs/decisions/0007-beam-passes.md): a wider pass is
# planned only where the ones before it fit well inside.
BEAM_COST = 1_000
# A beam pass of width w comes after the restarts have planned w * BEAM_AFTER positions:
# the cheap restarts win most deals first (Rows of Four's in 7,700 positions on average).
BEAM_AFTER = 100


def solve(
    state: State,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    max_seconds: float | None = None,
    table_size: int | None = None,
    max_depth: int | None = None,
    relaxed_stock: int = relaxation.STOCK_LIMIT,
) -> SolveResult:
    """Search for a winning line from ``state`` within the budgets.

    ``table_size`` bounds the transposition table (keys; default :data:`core.DEFAULT_TABLE_SIZE`) and
    ``max_depth`` its stack (frames; default ``DEFAULT_MAX_DEPTH``, 2^20, which no search
    of at most that many positions can reach): either full ends that search with
    ``unknown``, and ``stopped`` says which limit ended the last search.
    ``relaxed_stock``: the searches (not the beam passes) ask the relaxed tableau's test
    where the stock holds at most this many cards (:mod:`app.solver.relaxation`). A
    ``solved`` line is shortened (:func:`app.solver.core.shorten`) and replayed by the
    engine, with validation, before it is returned.
    """
    start = time.perf_counter()
    deadline = None if max_seconds is None else start + max_seconds
    rules = SearchTables.of(state.variant)
    positions = 0
    result: Result = "unknown"
    moves: list[Move] = []
    stopped = "positions"
    arranged = arrangements.supports(state.variant)
    beam_spent = 0  # by the beam passes, which share one budget (each entry's share)
    base = native_core.SearchLimits(
        1,
        table_size=native_core.DEFAULT_TABLE_SIZE if table_size is None else table_size,
        max_depth=native_core.DEFAULT_MAX_DEPTH if max_depth is None else max_depth,
        relaxed_stock=relaxed_stock,
    )
    for one in plan(rules, max_positions, arranged):
        budget = min(one.budget, max_positions - positions)
        if one.kind in BEAMS:
            budget = min(budget, one.budget - beam_spent)
            if budget <= 0:
                continue  # the beam's share is spent: on to the restarts
        if budget <= 0:
            break
        if one.kind in BEAMS:
            result, moves, used, stopped = _beam(
                state, one.width, one.kind == BEST_BEAM, budget, deadline, one.kind == SINGLE_BEAM
            )
            beam_spent += used
        else:
            result, moves, used, stopped = _search(
                state, _limits(base, rules, one, budget, deadline, arranged)
            )
            if one.kind == NARROW:
                result = "unknown" if result == "unsolvable" else result  # proves nothing
        positions += used
        if result == "solved":
            moves = _shortened(state, moves)
            if not wins(state, moves):  # never claim a win the engine does not confirm
                raise AssertionError("solver line does not replay to a win")
            break
        if result == "unsolvable":
            break
        if deadline is not None and time.perf_counter() > deadline:
            stopped = "deadline"
            break
    elapsed = int((time.perf_counter() - start) * 1000)
    return SolveResult(result, moves, positions, elapsed, "" if result != "unknown" else stopped)


def _shortened(state: State, moves: list[Move]) -> list[Move]:
    """The winning line without its detours (:func:`app.solver.core.shorten`). The walk
    runs whatever the deadline: it costs less than the engine's replay of the line it
    shortens (a 75,071-move Diplomat line: 65 ms, then 16 ms to replay 2,498 moves,
    against 290 ms to replay it whole)."""
    shorter = native_core.shorten(state, [str(move) for move in moves])
    return [Move.parse(text) for text in shorter]


def suggest(state: State) -> Move | None:
    """A heuristic move when no winning line is known: a safe foundation move, else the
    child the full search would try first (the core's scores; None when there is no move
    at all)."""
    safe = native_core.position(state).safe_move()
    if safe is not None:
        return Move.parse(safe)
    scored = native_core.scored_children(state)
    return min(scored, key=lambda entry: entry[0])[1] if scored else None


def _limits(
    base: native_core.SearchLimits,
    rules: SearchTables,
    one: Try,
    budget: int,
    deadline: float | None,
    arranged: bool,
) -> native_core.SearchLimits:
    """The limits of try ``one`` (a restart or the full search) with ``budget`` positions,
    from ``base`` (the table, stack and relaxed tableau's limits of :func:`solve`)."""
    narrow = one.kind == NARROW
    tables = rules.restart(one.seed) if one.kind != FULL else rules
    return replace(
        base,
        max_positions=budget,
        max_seconds=None if deadline is None else max(0.0, deadline - time.perf_counter()),
        draw_score=tables.draw_score,
        narrow=narrow,
        eager=narrow and tables.eager_foundations,
        seed=one.seed,
        arranged=arranged and not narrow,
    )


def _search(state: State, limits: native_core.SearchLimits) -> tuple[Result, list[Move], int, str]:
    """One depth-first search of the core (:func:`app.solver.core.search`): its verdict,
    line, positions met, and why it stopped when it did not decide."""
    found = native_core.search(state, limits)
    return found.result, found.moves, found.positions, found.stopped


def _beam(
    state: State,
    width: int,
    best: bool,
    budget: int,
    deadline: float | None,
    single: bool = False,
) -> tuple[Result, list[Move], int, str]:
    """A beam pass (:func:`app.solver.core.beam`); it never answers
    ``unsolvable``. It plays the game without foundation returns (it plays none): the
    same moves less those, and that game's safe-move rule, which puts cards up sooner
    where cards could come back (Emperor plays as Deauville). Its line is legal in the
    game itself, and :func:`solve` replays it there."""
    if state.variant.foundation_return:
        state = state._replace(variant=state.variant.with_rules(HouseRules(False)))
    found = native_core.beam(state, width, budget, best=best, single=single, deadline=deadline)
    if found.moves is None:
        return "unknown", [], found.positions, found.stopped
    return "solved", [Move.parse(text) for text in found.moves], found.positions, ""


@dataclass(frozen=True)
class Try:
    """One search of :func:`solve`'s plan: its kind (:data:`NARROW`, :data:`ARRANGED`,
    :data:`FULL` or one of :data:`BEAMS`), the most positions it may meet (a beam pass:
    the beam passes' shared budget), a restart's ``seed`` (its jitter and tables) and a
    beam pass's ``width``."""

    kind: str
    budget: int
    seed: int = 0
    width: int = 0


def plan(rules: SearchTables, max_positions: int, arranged: bool) -> list[Try]:
    """The searches of :func:`solve`, in order: the restarts, the beam passes of each width (:func:`beam_orders`) after the
    restarts have planned :data:`BEAM_AFTER` times its width, then the full search with
    what is left. The beam passes share one budget: each has what those before it left;
    what the restarts (a quarter, at most :data:`RESTARTS_MOST`) and the full search (half,
    at most :data:`FULL_LEAST`; half where the full search has the relaxed tableau's
    test, :func:`app.solver.relaxation.applies`) leave: a quarter up to 1,000,000
    positions, 8,500,000 of 10,000,000 (4,000,000 where the test applies).
    Only where the stock comes out in one pass: with redeals its levels mean little
    (Rows of Four deals 1-60 at 1,000,000: all 60 won either way, in 40 times the time)."""
    kinds = restart_kinds(rules, arranged)
    if max_positions < BEAM_FROM or not rules.single_pass:
        return [*restarts(rules, max_positions // 2, kinds), Try(FULL, max_positions)]
    restarts_share = min(max_positions // RESTARTS_SHARE, RESTARTS_MOST)
    full_share = max_positions // 2
    if not relaxation.applies(rules.variant):
        full_share = min(full_share, FULL_LEAST)
    share = max_positions - restarts_share - full_share  # at least a quarter
    orders = beam_orders(rules)
    pending = [(width, orders) for width in beam_widths(share)]
    tries: list[Try] = []
    planned = 0
    for restart in restarts(rules, restarts_share, kinds):
        tries.append(restart)
        planned += restart.budget
        while pending and planned >= pending[0][0] * BEAM_AFTER:
            width, orders = pending.pop(0)
            tries.extend(Try(order, share, width=width) for order in orders)
    tries.extend(Try(order, share, width=width) for width, orders in pending for order in orders)
    return [*tries, Try(FULL, max_positions)]


def beam_orders(rules: SearchTables) -> tuple[str, ...]:
    """The beam passes of each width, in order. Where runs move, a pass of single cards
    comes first: the game of single cards is a smaller one inside (Rank and File's is
    Deauville), whose passes cost a fraction of those over every move and win deals
    they do not (Rank and File deals 58, 77 and 96 at 10,000,000 positions; deals 1-60
    at 1,000,000: the same 57 won; docs/decisions/0007-beam-passes.md)."""
    if rules.runs_any:
        return (SINGLE_BEAM, BEAM, BEST_BEAM)
    return (BEAM, BEST_BEAM)


def beam_widths(budget: int) -> list[int]:
    """The widths of the beam passes within ``budget`` positions: 16, 64, 256, ..., the
    next one planned while two passes of the last are expected to fit (:data:`BEAM_COST`;
    a pass of single cards costs far less)."""
    widths = [FIRST_BEAM_WIDTH]
    while 2 * widths[-1] * BEAM_COST < budget:
        widths.append(widths[-1] * BEAM_GROWTH)
    return widths


def restart_kinds(rules: SearchTables, arranged: bool) -> tuple[str, ...]:
    """The searches of one restart. Where runs move, the narrow one is paired with a
    complete one (the narrow limits are about runs): up to run arrangement where that
    applies, else the plain full search (Rainbow 1-30 at 200,000 positions: the same
    19 won, in 2,956,663 positions against 3,140,154; Canfield proofs come sooner).
    Where single cards move the narrow search is nearly complete already."""
    if arranged:
        return (NARROW, ARRANGED)
    return (NARROW, FULL) if rules.runs_any else (NARROW,)


def restarts(rules: SearchTables, max_positions: int, kinds: tuple[str, ...]) -> list[Try]:
    """The restarts before the full search, each with its seed: budgets of 500,
    500, 1000, 1000, 2000, ... (up to the variant's largest restart) within
    ``max_positions``; each narrow restart followed by one of each further kind (a
    complete search in another order: its exhaustion is a proof too)."""
    tries: list[Try] = []
    planned, seed = 0, 0
    while planned < max_positions:
        grown = FIRST_TRY << (seed // 2)
        if rules.largest_restart is not None:
            grown = min(grown, rules.largest_restart)
        for kind in kinds:
            share = min(grown, max_positions - planned)
            if share > 0:
                tries.append(Try(kind, share, seed=seed))
                planned += share
        seed += 1
    return tries
