"""The plain search, the oracle of every reduction (app/solver/exhaustive.py), and its C
copy: the same verdict and the same count of positions wherever they run, so the C one
can stand in for it on positions the Python one cannot afford; and on such larger
positions the solver's searches never contradict it."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from app.engine import VARIANTS, State, deal
from app.solver import arrangements, core
from app.solver.exhaustive import Exhausted, exhaustive
from app.solver.result import replay
from tests.solver.test_native_core import CONFIGS, start, walk
from tests.solver.test_native_search import seed_line
from tests.solver.test_reductions import PLAIN_BUDGET, candidates, full

LARGER = 200_000  # the native one's, on positions further from the end of play
UNDECIDED_SAMPLE = 6  # of the positions neither search decides, one in this many is run in Python


def test_a_won_position_is_solved_at_once() -> None:
    start_state, line = seed_line("rank-and-file", 0)
    state = replay(start_state, line[:-1])
    won = replay(state, line[-1:])
    assert won.is_won and not state.is_won
    assert exhaustive(won, 10) == Exhausted("solved", 1)
    found = exhaustive(state, 10)
    assert found.result == "solved" and found.positions <= 1 + len(state.legal_moves())


def test_a_position_without_moves_is_lost_at_once() -> None:
    ends = (
        list(walk(start("forty-thieves", False, n), random.Random(n), 600, True))[-1]
        for n in range(1, 30)
    )
    stuck = next(end for end in ends if not end.legal_moves())
    assert exhaustive(stuck, 10) == Exhausted("unsolvable", 1)


def test_the_budget_counts_the_positions_met() -> None:
    state = deal(VARIANTS["rank-and-file"], 1)
    assert exhaustive(state, 500) == Exhausted("unknown", 500)


def test_the_native_mirror_meets_the_same_positions() -> None:
    """On tests/solver/test_reductions.py's corpus. Every position the C copy decides is
    checked against the Python search, since that corpus is what the C copy decides: a
    wrong verdict there would mislead every test of it. Where the C copy decides nothing,
    the Python search (the whole budget: most of this test's time) runs on every
    UNDECIDED_SAMPLE-th: a position wrongly left undecided only leaves the corpus."""
    decided = undecided = 0
    for state in candidates():
        native = core.exhaustive(state, PLAIN_BUDGET)
        for tiny in (1, 2):  # where the budget and the table's room meet
            assert core.exhaustive(state, tiny) == exhaustive(state, tiny)
        if native.result == "unknown":
            undecided += 1
            if undecided % UNDECIDED_SAMPLE == 0:
                assert exhaustive(state, PLAIN_BUDGET) == native, state.to_text()
            continue
        assert exhaustive(state, PLAIN_BUDGET) == native, state.to_text()
        decided += 1
        # The same count, to the position: the budget is read once a position past the
        # start is met and is not won, so a win is found within its count, a loss needs
        # one more (nothing is left to meet), and one fewer than either decides nothing
        # (past the start: a first child that wins is found whatever the budget).
        enough = native.positions + (native.result == "unsolvable")
        assert core.exhaustive(state, enough) == native
        if enough > 2:
            assert core.exhaustive(state, enough - 1).result == "unknown"
    assert decided >= 100 and undecided >= 100, (decided, undecided)  # 187 and 299 now


def test_the_native_mirror_refuses_a_budget_below_one() -> None:
    with pytest.raises(ValueError, match="max_positions"):
        core.native().exhaustive(core.position(deal(VARIANTS["rainbow"], 1)), 0)


def further_back() -> Iterator[State]:
    """Positions 30 and 60 moves from the end of greedy and random play: most too large
    for the Python plain search, many within the native one's reach; and positions half
    way along known wins of the games where the plain search finds some."""
    for n, (name, flip) in enumerate(CONFIGS):
        for greedy in (True, False):
            rng = random.Random(f"exhaustive-{n}-{greedy}")
            played = list(walk(start(name, flip, 6 + n % 5), rng, 400, greedy))
            yield from played[-30::-30][:2]
    for name in ("rainbow", "forty-thieves", "canfield"):
        for index in (4, 5):
            state, line = seed_line(name, index)
            yield replay(state, line[: len(line) // 2])


def test_the_solver_never_contradicts_the_plain_search_on_larger_positions() -> None:
    """tests/solver/test_reductions.py's comparison, on positions the Python plain search
    mostly cannot decide within its budget: every search the solver runs, with all its
    reductions, against the plain native one."""
    checked = {"solved": 0, "unsolvable": 0}
    for state in further_back():
        truth = core.exhaustive(state, LARGER)
        if truth.result == "unknown":
            continue
        checked[truth.result] += 1
        searches = [full(state), full(state, defer_draws=False)]
        if arrangements.supports(state.variant):
            searches.append(full(state, arranged=True))
        for found in searches:
            assert found.result in (truth.result, "unknown"), state.to_text()
    assert checked["solved"] >= 5 and checked["unsolvable"] >= 15, checked  # 6 and 18 now
