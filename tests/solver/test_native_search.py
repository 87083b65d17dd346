"""Differential tests of the native full search (``core.search_full``) against the Python
full search (``search._search(..., narrow=False)``), on positions small enough for the
Python search to decide or to spend a small budget: late positions of greedy and random
play of all nine games (each with its house rule flipped too), positions near the end
of the known winning lines in ``seeds/``, and positions built by hand.

Both searches are deterministic (no jitter): the native one tries the same children in
the same order, so verdict, positions counted and line are expected to be identical,
not only to agree where both decide. Skipped, with the reason, where the core is not
built.
"""

from __future__ import annotations

import json
import random
import threading
import time
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine import VARIANTS, Move, State, deal
from app.services import seeds
from app.solver import arrangements, cli, core, plan, relaxation, search, tables
from tests.solver.test_arrangements import ONE_PILE, wrapped_positions
from tests.solver.test_native_core import CONFIGS, PLAY, SLOW_OK, start, walk
from tests.solver.test_solver import LOST

pytestmark = pytest.mark.skipif(not core.available(), reason=core.missing_reason())

BUDGET = 800
# These whole searches of Rainbow ask the relaxed tableau's test up to 4 stock cards on
# both cores: at relaxation.STOCK_LIMIT (8) a Python test can meet 100,000 relaxed
# positions, and the comparisons took minutes where they took seconds. The cores are
# compared at the limit in tests/solver/test_relaxation.py.
STOCK = 4
SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def python_full(
    state: State,
    budget: int,
    *,
    arranged: bool = False,
    defer_draws: bool = True,
    relaxed_stock: int = STOCK,
    relaxed_states: int = relaxation.STATE_LIMIT,
) -> search.SolveResult:
    result, moves, positions = search._search(
        state,
        tables.SearchTables.of(state.variant),
        budget,
        None,
        narrow=False,
        arranged=arranged,
        defer_draws=defer_draws,
        relaxed_stock=relaxed_stock,
        relaxed_states=relaxed_states,
    )
    return search.SolveResult(result, moves, positions, 0)


def compare(state: State, budget: int = BUDGET) -> str:
    """Both searches from ``state``: the same answer; a native win replays. The verdict."""
    expected = python_full(state, budget)
    native = core.search(state, budget, relaxed_stock=STOCK)
    assert (native.result, native.positions) == (expected.result, expected.positions), state
    assert [str(m) for m in native.moves] == [str(m) for m in expected.moves]
    if native.result == "solved":
        assert search.replay(state, native.moves).is_won
    return native.result


@cache
def late_positions() -> tuple[State, ...]:
    """The last positions of greedy and random play (the stock used up, dead ends)."""
    positions: list[State] = []
    for n, (name, flip) in enumerate(CONFIGS):
        for greedy in (True, False):
            rng = random.Random(f"late-{n}-{greedy}")
            line = list(walk(start(name, flip, 1 + n % 3), rng, 300, greedy))
            positions.extend(line[-1::-90][:2])
    return tuple(positions)


def test_late_positions_of_every_game_get_the_same_answer() -> None:
    verdicts = [compare(state) for state in late_positions()]
    # The corpus decides often enough, both ways, to mean something.
    assert verdicts.count("solved") >= 5
    assert verdicts.count("unsolvable") >= 10
    assert verdicts.count("unknown") >= 5  # the budget cut at the same position count


@pytest.mark.parametrize(("name", "flip"), CONFIGS)
def test_fresh_deals_spend_a_small_budget_alike(name: str, flip: bool) -> None:
    """From the deal itself, where the search is undecided: the same positions, in the
    same order, up to the budget (else the counts or a found line would differ)."""
    for number in (1, 2):
        compare(start(name, flip, number), 300)


def seed_line(name: str, index: int) -> tuple[State, list[Move]]:
    data = json.loads((SEEDS / f"{name}.json").read_text())["deals"][index]
    return deal(VARIANTS[name], data["deal"]), seeds.read_line(data["line"])


@pytest.mark.parametrize("name", ["rank-and-file", "rows-of-four", "rainbow"])
def test_positions_near_the_end_of_known_wins_are_solved_alike(name: str) -> None:
    verdicts = []
    for index in (0, 3, 7):
        state, line = seed_line(name, index)
        # Late enough that Rainbow's full search, with no safe moves there since they
        # were found not to be a proof (docs/solver.md), still wins some in 2,000.
        for share in (0.9, 0.96, 0.99):
            position = search.replay(state, line[: int(len(line) * share)])
            verdicts.append(compare(position, 2000))
    assert "unsolvable" not in verdicts  # winnable: the line says so
    assert verdicts.count("solved") >= 3


def test_a_won_or_finishing_position_is_solved_at_once() -> None:
    state, line = seed_line("rainbow", 1)
    end = search.replay(state, line)
    assert end.is_won
    native = core.search_full(end, 10)
    assert (native.result, native.moves, native.positions) == ("solved", [], 1)
    # One move before the end: settle or the engine's auto-finish plays it.
    before = search.replay(state, line[:-1])
    assert compare(before, 10) == "solved"


def test_hand_built_lost_positions_are_proven_lost_alike() -> None:
    """Canfield with its stock gone and the tableau blocked: a King over the card the
    foundations need next, nowhere to put it (no empty pile while the reserve lasts)."""
    state = deal(VARIANTS["canfield"], 3)
    assert compare(state, 5000) == "unsolvable"
    # Rainbow with nothing left but a blocked pile: no move at all.
    rainbow = deal(VARIANTS["rainbow"], 4)
    blocked = rainbow._replace(
        stock=(),
        waste=(),
        foundations=tuple(() for _ in rainbow.foundations),
        tableau=(tuple(range(12, -1, -1)), (), (), ()),
        hidden=(12, 0, 0, 0),
    )
    assert compare(blocked, 100) == "unsolvable"


def drawing_walk(state: State, rng: random.Random, steps: int) -> list[State]:
    """Random play that draws about a third of the time it can: the stock runs low while
    the tableau is still busy."""
    line = [state]
    for _ in range(steps):
        moves = state.legal_moves()
        if not moves:
            break
        draws = [move for move in moves if move.src is None]
        move = draws[0] if draws and rng.random() < 0.3 else rng.choice(moves)
        state, _ = state.apply(move, auto_finish=False, validate=False)
        line.append(state)
    return line


def test_children_passed_over_after_a_bare_draw_change_nothing() -> None:
    """After a bare draw the native search passes over, unplayed, the children `deferred`
    would skip once played: the tableau moves that leave nothing for settle, the pairs of
    an obligated move made from the piles that could (`exposing_piles`), the obligated
    moves that leave no pair (`leaves_no_pairs`). Searches that do much of that, from
    every third position of play that leaves a short stock, count the same positions and
    find the same lines as the Python search, which plays every child; among them lost
    positions where a tableau move after the draw lets settle play the card the draw
    covered (the child then stays)."""
    passed_over = 0
    for n, (name, flip) in enumerate(CONFIGS):
        line = drawing_walk(start(name, flip, 1), random.Random(f"drawing-{n}"), 300)
        for state in [s for s in line if 0 < len(s.stock) <= 24][::3]:
            compare(state, 400)
            rules = tables.SearchTables.of(state.variant)
            found = core.native().search(core.position(state), 400, None, 400, rules.draw_score)
            passed_over += found[4][2]
    # The corpus does pass over children, else it would test nothing.
    assert passed_over >= 1000


# Positions (game, house rule flipped, deal, walk seed, index along drawing_walk) where a
# part of passing over children after a bare draw decides the search: found by breaking
# each part on purpose and comparing many searches (docs/native-core.md).
PASSED_OVER_CASES = [
    ("deauville", False, 1, "hunt-6-1", 81),  # the pair's one-move prefix (skipped_unplayed)
    ("deauville", False, 1, "hunt-6-1", 87),
    ("canfield", False, 1, "hunt-16-1", 87),  # the card under, wanted (leaves_no_pairs)
    ("rows-of-four", False, 10, "hunt-2-10", 128),  # the exposing piles (exposing_piles)
]


@pytest.mark.parametrize(("name", "flip", "number", "seed", "index"), PASSED_OVER_CASES)
def test_where_passing_over_decides_the_search_it_changes_nothing(
    name: str, flip: bool, number: int, seed: str, index: int
) -> None:
    state = drawing_walk(start(name, flip, number), random.Random(seed), index)[index]
    compare(state, 6000)


def test_the_position_budget_cuts_at_the_same_count() -> None:
    state = deal(VARIANTS["rank-and-file"], 1)
    for budget in (2, 50, 513):
        native = core.search_full(state, budget)
        assert (native.result, native.positions, native.moves) == ("unknown", budget, [])
        assert python_full(state, budget).positions == budget


def test_a_full_table_answers_unknown_never_a_verdict() -> None:
    lost = deal(VARIANTS["canfield"], 3)
    assert core.search_full(lost, 5000).result == "unsolvable"
    for size in (1, 5, 12):
        native = core.search_full(lost, 5000, table_size=size)
        assert (native.result, native.positions) == ("unknown", size)
        result, _moves, positions, stop, _work = core.native().search(
            core.position(lost), 5000, None, size, tables.SearchTables.of(lost.variant).draw_score
        )
        assert (result, positions, stop) == ("unknown", size, "table")
    big = deal(VARIANTS["rank-and-file"], 1)
    assert core.search_full(big, 3000, table_size=1000).positions == 1000


def test_the_deadline_is_looked_at_every_512_positions() -> None:
    state = deal(VARIANTS["rank-and-file"], 1)
    native = core.search_full(state, 100_000, max_seconds=0.0)
    assert (native.result, native.positions) == ("unknown", 512)
    result, _moves, _positions, stop, _work = core.native().search(
        core.position(state), 100_000, 0.0, 100_000, 90
    )
    assert (result, stop) == ("unknown", "deadline")


def test_the_search_releases_the_gil() -> None:
    state = deal(VARIANTS["rank-and-file"], 1)
    done = threading.Event()

    def run() -> None:
        core.search_full(state, 300_000)
        done.set()

    thread = threading.Thread(target=run)
    started = time.perf_counter()
    thread.start()
    ticks = 0
    while not done.is_set():
        ticks += 1  # runs only while the search has let go of the GIL
        time.sleep(0)
    thread.join()
    assert ticks > 100, f"{ticks} ticks in {time.perf_counter() - started:.2f} s"


def test_bad_limits_raise() -> None:
    native = core.position(deal(VARIANTS["rainbow"], 1))
    search_ = core.native().search
    for args in [(0, None, 10, 90), (10, None, 0, 90), (10, -1.0, 10, 90), (10, None, 10, 500)]:
        with pytest.raises(ValueError):
            search_(native, *args)
    with pytest.raises(TypeError):
        search_(native, 10, "soon", 10, 90)


# ------------------------------------------------------------------ restarts, solve


def python_restart(
    state: State, budget: int, narrow: bool, seed: int, arranged: bool = False
) -> search.SolveResult:
    """``_search`` as :func:`plan.solve` runs a restart: the restart's tables, jittered."""
    rules = tables.SearchTables.of(state.variant).restart(seed)
    jitter = random.Random(seed) if seed else None
    result, moves, positions = search._search(
        state, rules, budget, None, narrow, jitter, arranged=arranged, relaxed_stock=STOCK
    )
    return search.SolveResult(result, moves, positions, 0)


def compare_restart(
    state: State, budget: int, narrow: bool, seed: int, arranged: bool = False
) -> str:
    expected = python_restart(state, budget, narrow, seed, arranged)
    rules = tables.SearchTables.of(state.variant)
    native = core.search(
        state,
        budget,
        draw_score=rules.restart(seed).draw_score,
        narrow=narrow,
        eager=narrow and rules.eager_foundations,
        seed=seed,
        arranged=arranged,
        relaxed_stock=STOCK,
    )
    where = (state.variant.name, state.variant.foundation_return, narrow, seed, arranged)
    assert (native.result, native.positions) == (expected.result, expected.positions), where
    assert [str(m) for m in native.moves] == [str(m) for m in expected.moves], where
    if native.result == "solved":
        assert search.replay(state, native.moves).is_won
    return native.result


@pytest.mark.parametrize(("name", "flip"), CONFIGS)
def test_restarts_narrow_and_jittered_search_alike(name: str, flip: bool) -> None:
    """Narrow and full restarts, jittered by random.Random(seed) (the native core draws
    from the same Mersenne Twister), from a deal and from late positions of play: the
    same positions in the same order, the same lines."""
    decided = decided_positions(name, flip)
    assert len(decided) >= 2, "too few decided positions to compare the order"
    arranged = arrangements.supports(start(name, flip, 1).variant)
    kinds = [(True, False), (False, False)] + ([(False, True)] if arranged else [])
    for state in [start(name, flip, 3), *decided]:
        for narrow, keyed in kinds:
            for seed in (0, 1, 2, 7, 2**32 - 1):
                compare_restart(state, 400, narrow, seed, keyed)


ARRANGED_CONFIGS = [c for c in CONFIGS if arrangements.supports(start(*c, 1).variant)]


@pytest.mark.parametrize(("name", "flip"), ARRANGED_CONFIGS)
def test_the_search_up_to_run_arrangement_answers_alike(name: str, flip: bool) -> None:
    """The arranged full search (arrangements.key and children) from late positions
    of play and from deals: same verdicts, positions and lines, also proofs of loss."""
    won = [compare_restart(state, 1_500, False, 0, True) for state in near_wins(name, flip)]
    positions: list[State] = []
    for n, greedy in enumerate((True, False, True)):
        rng = random.Random(f"arranged-{name}-{flip}-{n}")
        positions.extend(list(walk(start(name, flip, 5 + n), rng, 400, greedy))[-1::-40][:4])
    verdicts = []
    for state in positions:
        verdicts.append(compare_restart(state, 1_500, False, 0, True))
        compare_restart(state, 300, False, 3, True)
    for number in (1, 2):
        compare_restart(start(name, flip, number), 1_000, False, 0, True)
    assert "solved" in won + verdicts, (won, verdicts)


def near_wins(name: str, flip: bool) -> list[State]:
    """Positions near the end of a winning line (found by ``solve``, replayed)."""
    for number in range(4, 12):
        state = start(name, flip, number)
        found = plan.solve(state, max_positions=20_000, core="native")
        if found.result == "solved":
            cut = [int(len(found.moves) * share) for share in (0.9, 0.95, 0.98)]
            return [search.replay(state, found.moves[:n]) for n in cut]
    raise AssertionError("no deal won to take positions from")


@pytest.mark.parametrize("name", ["rainbow", "canfield"])
def test_hand_built_long_runs_where_builds_wrap_are_searched_alike(name: str) -> None:
    """Where a run can hold the only top a move needs (test_arrangements.wrapped_position),
    the arranged children play up to three moves before their own: both cores search
    such positions alike, to the same verdicts, positions and lines."""
    positions = wrapped_positions(name, 4)[::3] + wrapped_positions(name, 10)[::6]
    if name == "rainbow":
        positions.append(State.from_text(ONE_PILE))  # the rejoin
    verdicts = [compare_restart(state, 1_500, False, 0, True) for state in positions]
    assert "solved" in verdicts, verdicts


def test_a_lost_position_is_proven_lost_up_to_run_arrangement_alike() -> None:
    lost = State.from_text(LOST)
    assert compare_restart(lost, 5_000, False, 0, True) == "unsolvable"
    assert compare_restart(lost, 5_000, False, 5, True) == "unsolvable"


def test_the_arranged_search_is_refused_where_it_does_not_hold() -> None:
    native = core.native()
    for name, narrow in (("deauville", False), ("rank-and-file", True)):
        with pytest.raises(ValueError):
            native.search(
                core.position(deal(VARIANTS[name], 1)),
                10,
                None,
                10,
                90,
                narrow=narrow,
                arranged=True,
            )


def decided_positions(name: str, flip: bool) -> list[State]:
    """Up to three positions of play that a jittered restart decides within its budget: a
    search cut at the budget counts the same positions in any order, a decided one only
    when it took the same path."""
    candidates: list[State] = []
    for greedy in (True, False):  # dead ends of play: often lost
        rng = random.Random(f"restart-{name}-{flip}-{greedy}")
        candidates.extend(list(walk(start(name, flip, 4), rng, 300, greedy))[-1::-12][:4])
    for number in range(4, 12):  # along a winning line (where play never ends: redeals)
        state = start(name, flip, number)
        won = plan.solve(state, max_positions=20_000, core="native")
        if won.result == "solved":
            candidates.extend(
                search.replay(state, won.moves[: int(len(won.moves) * share)])
                for share in (0.85, 0.92, 0.97)
            )
            break
    out: list[State] = []
    for state in candidates:
        if len(out) < 3 and any(
            python_restart(state, 400, narrow, 1).result != "unknown" for narrow in (True, False)
        ):
            out.append(state)
    return out


def test_a_seed_beyond_32_bits_is_refused() -> None:
    with pytest.raises(ValueError, match="seed"):
        core.native().search(
            core.position(deal(VARIANTS["rainbow"], 1)), 10, None, 10, 90, seed=2**32
        )


def solve_both(state: State, budget: int) -> str:
    python = plan.solve(state, max_positions=budget, core="python", relaxed_stock=STOCK)
    native = plan.solve(state, max_positions=budget, core="native", relaxed_stock=STOCK)
    where = (state.variant.name, state.variant.foundation_return)
    assert (native.result, native.positions) == (python.result, python.positions), where
    assert [str(m) for m in native.moves] == [str(m) for m in python.moves], where
    return native.result


@pytest.mark.parametrize(("name", "flip"), CONFIGS)
def test_solve_answers_alike_on_both_cores(name: str, flip: bool) -> None:
    """The whole plan (narrow restarts, their complete partners, the full search) on
    either core: the same verdict, the same positions, the same line."""
    for number in (1, 2, 5):
        solve_both(start(name, flip, number), 3_000)


def test_the_depth_bound_answers_unknown_never_a_verdict() -> None:
    """The native stack is bounded too (``max_depth`` frames): a search that would go
    deeper stops with ``unknown``, where the Python search (no bound) goes on."""
    state = deal(VARIANTS["rank-and-file"], 1)
    native, position = core.native(), core.position(state)
    assert native.DEFAULT_MAX_DEPTH == 2**20
    result, moves, positions, stop, _work = native.search(
        position, 5_000, None, 5_000, 90, max_depth=40
    )
    assert (result, moves, stop) == ("unknown", [], "depth")
    assert positions < 5_000
    deep = native.search(position, 5_000, None, 5_000, 90, max_depth=2**20)
    assert deep[0] == python_full(state, 5_000).result
    # The work behind the positions: every position but the start was a child played.
    children, expansions, skipped = deep[4]
    assert children >= deep[2] - 1 and expansions >= 0 and skipped >= 0
    with pytest.raises(ValueError, match="max_depth"):
        native.search(position, 10, None, 10, 90, max_depth=0)


def test_an_undecided_solve_says_which_limit_stopped_it() -> None:
    """Rank and File deal 31 takes 101,591 positions to win (bench/surveys), so any
    small budget leaves it unknown: the result names the limit that ended the search, and
    a survey row keeps it; a decided result names none."""
    state = deal(VARIANTS["rank-and-file"], 31)
    assert plan.solve(state, 3_000, core="native").stopped == "positions"
    assert plan.solve(state, 3_000, core="python").stopped == "positions"
    assert plan.solve(state, 3_000, core="native", max_depth=40).stopped == "depth"
    assert plan.solve(state, 3_000, core="native", table_size=200).stopped == "table"
    assert plan.solve(state, 10**9, max_seconds=0.05, core="native").stopped == "deadline"
    row = cli._survey_one("rank-and-file", 31, 3_000, None, "native", None, 40)
    assert (row["result"], row["stopped"]) == ("unknown", "depth")
    won = plan.solve(deal(VARIANTS["rank-and-file"], 1), 3_000, core="native")
    assert (won.result, won.stopped) == ("solved", "")
    assert "stopped" not in cli._survey_one("rank-and-file", 1, 3_000, None, "native")


@SLOW_OK
@given(
    config=st.sampled_from(CONFIGS),
    **PLAY,
    steps=st.integers(0, 400),
    restart=st.integers(0, 9),
    narrow=st.booleans(),
)
def test_generated_positions_search_alike(
    config: tuple[str, bool],
    number: int,
    seed: int,
    greedy: bool,
    steps: int,
    restart: int,
    narrow: bool,
) -> None:
    """Hypothesis: a position after generated play, searched by a generated restart
    (narrow or full, jittered or not, up to run arrangement where it holds), alike."""
    first = start(*config, number)
    state = [first, *walk(first, random.Random(seed), steps, greedy)][-1]
    compare_restart(state, 300, narrow, restart)
    if not narrow and arrangements.supports(state.variant):
        compare_restart(state, 300, False, restart, True)
