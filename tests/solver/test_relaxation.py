"""The relaxed tableau's dead-end test of the native core (app/solver/native/relaxation.c,
app/solver/relaxation.py says where it applies; docs/solver.md).

It may only ever call lost what is lost: the search with it never answers ``unsolvable``
for a position on a known winning line, nor shows lost at its root one that the plain
search (no reduction at all, :func:`app.solver.core.exhaustive`) wins, and it shows
almost every position the plain search proves lost lost at once. The full search with it
gives the verdict of the full search without it (``relaxed=False``) and of the plain
search, its lines replay to a win through the engine, and it proves a lost deal in a
fraction of the positions. The core holds the limits app/solver/relaxation.py hands it,
asks the test up to the stock and gives it the room a search is given, and a test gives
up once the search's deadline has passed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache

import pytest

from app.engine import VARIANTS, State
from app.solver import core, relaxation
from tests.solver.oracle import agree, checked, seed_line, start, walk

PLAIN_BUDGET = 4_000
# Relaxed positions a test meets between looks at the clock (the core's constant): a test
# that may meet no more gives up before it shows the positions below lost.
CLOCK_EVERY = core.native().RELAXED_CLOCK_EVERY


def test_it_applies_where_every_pile_is_one_run_and_one_pass_draws_singly() -> None:
    assert [name for name, v in VARIANTS.items() if relaxation.applies(v)] == ["rainbow"]
    # Canfield's piles are runs too, but its stock comes round again three at a time.
    assert not relaxation.applies(VARIANTS["canfield"])


def test_the_core_holds_the_limits_it_is_handed() -> None:
    native = core.native()
    assert native.RELAXED_STATE_LIMIT == relaxation.STATE_LIMIT
    assert native.RELAXED_BEAM_STATE_LIMIT == relaxation.BEAM_STATE_LIMIT
    assert native.RELAXED_STOCK_LIMIT == relaxation.STOCK_LIMIT
    assert native.RELAXED_MOST_STATES == relaxation.MOST_STATES
    assert 0 < CLOCK_EVERY < relaxation.STATE_LIMIT


def late(state: State) -> bool:
    return len(state.stock) <= relaxation.STOCK_LIMIT


def random_play() -> Iterator[State]:
    """Late positions of greedy and random play of Rainbow, both house rules."""
    for number in range(1, 9):
        for flip in (False, True):
            for greedy in (True, False):
                rng = random.Random(f"relaxation-{number}-{flip}-{greedy}")
                states = [s for s in walk(start("rainbow", flip, number), rng, 300, greedy)]
                yield from [s for s in states if late(s) and not s.is_won][::7][:4]


@cache
def winning_lines() -> tuple[State, ...]:
    """Every position with few stock cards left on the known winning lines of seeds/."""
    found = []
    for index in range(6):
        state, line = seed_line("rainbow", index)
        for move in line:
            state, _ = state.apply(move, auto_finish=False, validate=True)
            if late(state) and not state.is_won:
                found.append(state)
    return tuple(found)


def off_the_lines() -> Iterator[State]:
    """Positions a few random moves off the winning lines (where a win often turns into
    a loss, and often does not)."""
    rng = random.Random("relaxation-off")
    for state in winning_lines()[::4]:
        yield list(walk(state, rng, rng.randrange(4, 16), False))[-1]


@cache
def corpus() -> tuple[tuple[State, str], ...]:
    """Positions of random play and off the winning lines that the plain search decides,
    with its verdict."""
    found = []
    for state in [*random_play(), *off_the_lines()]:
        result = core.exhaustive(state, PLAIN_BUDGET).result
        if result != "unknown":
            found.append((state, result))
    return tuple(found)


def shown_lost(state: State) -> bool:
    """Does the test show ``state`` lost at once: the search with it ends at the root,
    ``unsolvable``, where the search without it goes on?"""
    with_it = core.search(state, core.SearchLimits(2))
    if (with_it.result, with_it.positions) != ("unsolvable", 1):
        return False
    without = core.search(state, core.SearchLimits(2, relaxed=False))
    return (without.result, without.positions) != ("unsolvable", 1)


def test_never_shows_lost_a_position_on_a_winning_line() -> None:
    positions = winning_lines()
    assert len(positions) >= 40
    assert not [s.to_text() for s in positions if shown_lost(s)]
    # Nor does a search with it, of a few of them, prove one lost.
    for state in positions[::10]:
        assert core.search(state, core.SearchLimits(3_000)).result != "unsolvable", state.to_text()


def test_shows_lost_only_what_the_plain_search_cannot_win() -> None:
    verdicts = [(verdict, shown_lost(state)) for state, verdict in corpus()]
    assert not [v for v in verdicts if v == ("solved", True)]
    # Not vacuous: both verdicts occur, and the test shows almost every lost one lost.
    lost = [shown for verdict, shown in verdicts if verdict == "unsolvable"]
    assert sum(verdict == "solved" for verdict, _shown in verdicts) >= 5
    assert len(lost) >= 10 and sum(lost) >= len(lost) * 9 // 10


@pytest.mark.parametrize("arranged", [False, True])
def test_the_search_with_it_gives_the_verdict_without_it(arranged: bool) -> None:
    """With and without the test, the full search (plain or up to run arrangement) gives
    the plain search's verdict where it decides, a winning line the engine replays, and
    the other's verdict where both decide."""
    compared = 0
    for state, verdict in corpus():
        with_it = core.search(state, core.SearchLimits(20_000, arranged=arranged))
        without = core.search(state, core.SearchLimits(20_000, arranged=arranged, relaxed=False))
        results = (checked(state, with_it), checked(state, without))
        assert agree(verdict, *results), (state.to_text(), verdict, results)
        compared += "unknown" not in results
    assert compared >= 10


def test_a_lost_deal_is_proven_in_a_fraction_of_the_positions() -> None:
    """Rainbow deal 147 from its start: 15,475 positions against 100,245 without the test."""
    lost = start("rainbow", False, 147)
    with_it = core.search(lost, core.SearchLimits(200_000, None, arranged=True))
    without = core.search(lost, core.SearchLimits(200_000, None, arranged=True, relaxed=False))
    assert with_it.result == without.result == "unsolvable"
    assert with_it.positions * 4 < without.positions


def stock_left_in_random_play(number: int, seed: str, fewer_than: int, at_most: int) -> State:
    """Rainbow deal ``number`` after random play (``seed``), at its first position with
    more than ``fewer_than`` and at most ``at_most`` stock cards."""
    play = walk(start("rainbow", False, number), random.Random(seed), 400, False)
    return next(s for s in play if fewer_than < len(s.stock) <= at_most)


def test_a_search_asks_the_test_up_to_the_stock_it_is_given() -> None:
    """``relaxed_stock``: past it the test is not asked. At the limit (the default) the
    root is shown lost at once; at 4 it is searched; a negative count is refused."""
    # lost deal 147 with 5 to 8 stock cards: the relaxed game from it cannot be won
    state = stock_left_in_random_play(147, "stock-147-0", 4, 8)
    assert relaxation.STOCK_LIMIT >= len(state.stock) > 4
    native = core.search(state, core.SearchLimits(50))
    assert (native.result, native.positions) == ("unsolvable", 1)
    at_limit = core.search(state, core.SearchLimits(50, relaxed_stock=relaxation.STOCK_LIMIT))
    assert (at_limit.result, at_limit.positions) == ("unsolvable", 1)
    assert core.search(state, core.SearchLimits(50, relaxed_stock=4)).positions > 1
    with pytest.raises(ValueError, match="relaxed_stock"):
        core.search(state, core.SearchLimits(50, relaxed_stock=-1))


def lost_needing_room() -> State:
    """Lost deal 34 with at most 8 stock cards: its test meets more than CLOCK_EVERY
    relaxed positions to show it lost."""
    return stock_left_in_random_play(34, "clock-34-0", 0, relaxation.STOCK_LIMIT)


def test_a_search_gives_its_tests_the_room_it_is_given() -> None:
    """``relaxed_states``: a test gives up at that many relaxed positions (not shown
    lost, so the search goes on); out of range is refused."""
    state = lost_needing_room()
    assert (
        core.search(state, core.SearchLimits(50, relaxed_states=relaxation.STATE_LIMIT)).positions
        == 1
    )
    cramped = core.search(state, core.SearchLimits(300, relaxed_states=CLOCK_EVERY))
    assert cramped.positions > 1
    checked(state, cramped)
    for bad in (0, relaxation.MOST_STATES + 1):
        with pytest.raises(ValueError, match="relaxed_states"):
            core.search(state, core.SearchLimits(50, relaxed_states=bad))


def test_a_test_gives_up_once_the_search_deadline_has_passed() -> None:
    """A hint's search has a deadline, and one test can meet 100,000 relaxed positions:
    past the deadline a test gives up (not shown lost), and the search says why."""
    state = lost_needing_room()
    assert core.search(state, core.SearchLimits(5_000)).result == "unsolvable"
    past = core.search(state, core.SearchLimits(5_000, 0.0))
    # Shown lost at its root otherwise (above): the test gave up, and the search went on.
    assert (past.result, past.stopped) == ("unknown", "deadline")
