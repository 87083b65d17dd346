"""The relaxed tableau's dead-end test (app/solver/relaxation.py, docs/solver.md).

It may only ever call lost what is lost: never a position on a winning line, never one
the plain search (no reduction at all) wins; and the search with it gives the verdict of
the search without it. The native core gives the same answers, position for position.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from functools import cache
from unittest import mock

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.engine import VARIANTS, Move, State
from app.solver import core, relaxation, search
from app.solver.exhaustive import exhaustive
from app.solver.tables import SearchTables
from tests.solver.test_native_core import start, walk
from tests.solver.test_native_search import python_full, seed_line

RAINBOW = VARIANTS["rainbow"]
PLAIN_BUDGET = 4_000


def ranks(*cards: int) -> list[int]:
    """Rainbow's class counts (a class per rank: Ace at 0) for cards of these ranks."""
    counts = [0] * 13
    for rank in cards:
        counts[rank - 1] += 1
    return counts


def test_a_tableau_keeps_the_bounds_only_where_its_piles_can_hold_it() -> None:
    tables = relaxation.tables_of(RAINBOW)
    assert tables is not None

    def keeps(cards: list[int], bottoms: list[int]) -> bool:
        return relaxation.keeps_bounds(ranks(*cards), ranks(*bottoms), tables)  # type: ignore[arg-type]

    assert keeps([], []) and not keeps([], [9])
    assert not keeps([9, 8, 7], [])  # cards, and no pile
    assert keeps([9, 8, 7], [9]) and keeps([9, 8, 7], [9, 8]) and keeps([9, 8, 7], [9, 8, 7])
    assert not keeps([9, 8, 7], [8])  # the 9 lies on no 10 and is no bottom
    assert keeps([9, 9, 8, 8], [9, 9]) and not keeps([9, 9, 8, 8], [9])
    # A King goes on an Ace: the whole cycle is one pile, from any bottom.
    assert keeps(list(range(1, 14)), [5]) and keeps([1, 13, 12], [1])
    assert not keeps([1, 3, 5, 7, 9], [1, 3, 5, 7, 9])  # five piles of four


@given(
    piles=st.lists(st.tuples(st.integers(1, 13), st.integers(1, 13)), max_size=4),
    klass=st.integers(0, 12),
    change=st.integers(-1, 1),
    bottom=st.integers(-1, 1),
)
# The whole cycle in one pile, its bottom taken away: cards in no pile.
@example(piles=[(5, 13)], klass=4, change=0, bottom=-1)
def test_the_bounds_after_one_class_changes_are_the_whole_bounds(
    piles: list[tuple[int, int]], klass: int, change: int, bottom: int
) -> None:
    """What the test's moves check (only the bounds one class's change touches) answers
    as the check of every class does, from any tableau that kept the bounds: piles of a
    bottom rank and a length, building down (a King on an Ace)."""
    tables = relaxation.tables_of(RAINBOW)
    assert tables is not None
    cards = [(rank - 1 - step) % 13 + 1 for rank, length in piles for step in range(length)]
    counts, below = ranks(*cards), ranks(*(rank for rank, _length in piles))
    assert relaxation.keeps_bounds(counts, below, tables)
    counts[klass] += change
    below[klass] += bottom
    whole = relaxation.keeps_bounds(counts, below, tables)
    touched = relaxation.still_keeps_bounds(
        counts, below, tables, klass, len(piles) + bottom, len(cards) + change
    )
    assert touched == whole


def test_it_applies_where_every_pile_is_one_run_and_one_pass_draws_singly() -> None:
    assert [name for name, v in VARIANTS.items() if relaxation.applies(v)] == ["rainbow"]
    # Canfield's piles are runs too, but its stock comes round again three at a time.
    assert not relaxation.applies(VARIANTS["canfield"])


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


def winning_lines() -> Iterator[State]:
    """Every position with few stock cards left on the known winning lines of seeds/."""
    for index in range(6):
        state, line = seed_line("rainbow", index)
        for move in line:
            state, _ = state.apply(move, auto_finish=False, validate=True)
            if late(state) and not state.is_won:
                yield state


def off_the_lines() -> Iterator[State]:
    """Positions a few random moves off the winning lines (where a win often turns into
    a loss, and often does not)."""
    rng = random.Random("relaxation-off")
    for state in list(winning_lines())[::4]:
        yield list(walk(state, rng, rng.randrange(4, 16), False))[-1]


@cache
def corpus() -> tuple[tuple[State, str], ...]:
    """Positions of random play and off the winning lines that the plain search decides,
    with its verdict."""
    found = []
    for state in [*random_play(), *off_the_lines()]:
        result = exhaustive(state, PLAIN_BUDGET).result
        if result != "unknown":
            found.append((state, result))
    return tuple(found)


def shown_lost(state: State) -> bool:
    test = relaxation.for_search(state)
    assert test is not None
    return test.lost(state)


def test_never_shows_lost_a_position_on_a_winning_line() -> None:
    positions = list(winning_lines())
    assert len(positions) >= 40
    assert not [s.to_text() for s in positions if shown_lost(s)]


def test_shows_lost_only_what_the_plain_search_cannot_win() -> None:
    verdicts = [(verdict, shown_lost(state)) for state, verdict in corpus()]
    assert not [v for v in verdicts if v == ("solved", True)]
    # Not vacuous: both verdicts occur, and the test shows almost every lost one lost.
    lost = [shown for verdict, shown in verdicts if verdict == "unsolvable"]
    assert sum(verdict == "solved" for verdict, _shown in verdicts) >= 5
    # The game without the bottoms showed 31 of these 37 lost; this one shows all.
    assert len(lost) >= 10 and sum(lost) >= len(lost) * 9 // 10


def test_the_corpus_catches_a_relaxation_one_pile_short() -> None:
    """Allow the tableau one pile fewer than it has, and winning positions are called lost:
    what the two tests above would catch."""
    tables = relaxation.tables_of(RAINBOW)
    assert tables is not None
    # A broken game's spaces can be large: the old, smaller limit keeps this test short.
    with (
        mock.patch.object(tables, "piles", tables.piles - 1),
        mock.patch.object(relaxation, "STATE_LIMIT", 5_000),
    ):
        wrong = [s for s in winning_lines() if shown_lost(s)]
        wrong += [s for s, verdict in corpus() if verdict == "solved" and shown_lost(s)]
    assert len(wrong) >= 3


def test_the_corpus_catches_bottoms_whose_tops_are_miscounted() -> None:
    """Count the tops from the parent class instead of the child class, and winning
    positions are called lost."""
    tables = relaxation.tables_of(RAINBOW)
    assert tables is not None
    # A broken game's spaces can be large: the old, smaller limit keeps this test short.
    with (
        mock.patch.object(tables, "child", tables.parent),
        mock.patch.object(relaxation, "STATE_LIMIT", 5_000),
    ):
        wrong = [s for s in winning_lines() if shown_lost(s)]
        wrong += [s for s, verdict in corpus() if verdict == "solved" and shown_lost(s)]
    assert len(wrong) >= 3


def full(state: State, budget: int, arranged: bool, relaxed: bool) -> tuple[str, list[str]]:
    """The full search, native where built (the same positions as the Python one: below)."""
    if core.available():
        found = core.search(state, budget, None, arranged=arranged, relaxed=relaxed)
        return found.result, [str(m) for m in found.moves]
    rules = SearchTables.of(state.variant)
    result, moves, _ = search._search(
        state, rules, budget, None, False, arranged=arranged, relaxed=relaxed
    )
    return result, [str(m) for m in moves]


@pytest.mark.parametrize("arranged", [False, True])
def test_the_search_with_it_gives_the_verdict_without_it(arranged: bool) -> None:
    compared = 0
    for state, verdict in corpus():
        with_it, line = full(state, 20_000, arranged, True)
        result, _ = full(state, 20_000, arranged, False)
        assert with_it in (verdict, "unknown")
        if with_it != "unknown" and result != "unknown":
            assert with_it == result
            compared += 1
        if with_it == "solved":
            assert search.replay(state, [Move.parse(m) for m in line]).is_won
    assert compared >= 10


@pytest.mark.skipif(not core.available(), reason=core.missing_reason())
def test_the_native_core_gives_the_same_answers() -> None:
    assert core.native().RELAXED_STATE_LIMIT == relaxation.STATE_LIMIT
    assert core.native().RELAXED_BEAM_STATE_LIMIT == relaxation.BEAM_STATE_LIMIT
    assert core.native().RELAXED_STOCK_LIMIT == relaxation.STOCK_LIMIT
    assert core.native().RELAXED_CLOCK_EVERY == relaxation.CLOCK_EVERY
    states = [state for state, _verdict in corpus()][::2] + list(winning_lines())[::10]
    for state in states:
        for arranged in (False, True):
            limit = relaxation.STOCK_LIMIT  # the product's (the search's default)
            expected = python_full(state, 3_000, arranged=arranged, relaxed_stock=limit)
            native = core.search(state, 3_000, None, arranged=arranged)
            assert (native.result, native.positions) == (expected.result, expected.positions)
            assert [str(m) for m in native.moves] == [str(m) for m in expected.moves]


@pytest.mark.skipif(not core.available(), reason=core.missing_reason())
def test_a_lost_deal_is_proven_in_a_fraction_of_the_positions() -> None:
    """Rainbow deal 147 from its start: 15,475 positions against 100,245 without the test
    (the Python search meets the same ones: above)."""
    lost = start("rainbow", False, 147)
    with_it = core.search(lost, 200_000, None, arranged=True)
    without = core.search(lost, 200_000, None, arranged=True, relaxed=False)
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
    at_limit = python_full(state, 50, relaxed_stock=relaxation.STOCK_LIMIT)
    assert (at_limit.result, at_limit.positions) == ("unsolvable", 1)
    assert python_full(state, 50, relaxed_stock=4).positions > 1
    with pytest.raises(ValueError, match="stock_limit"):
        python_full(state, 50, relaxed_stock=-1)
    if core.available():
        native = core.search(state, 50)
        assert (native.result, native.positions) == ("unsolvable", 1)
        assert core.search(state, 50, relaxed_stock=4).positions > 1
        with pytest.raises(ValueError, match="relaxed_stock"):
            core.search(state, 50, relaxed_stock=-1)


def lost_needing_room() -> State:
    """Lost deal 34 with at most 8 stock cards: its test meets more than CLOCK_EVERY
    relaxed positions to show it lost."""
    return stock_left_in_random_play(34, "clock-34-0", 0, relaxation.STOCK_LIMIT)


def test_a_search_gives_its_tests_the_room_it_is_given() -> None:
    """``relaxed_states``: a test gives up at that many relaxed positions (not shown
    lost), in both cores alike, position for position; out of range is refused."""
    state = lost_needing_room()
    room, stock = relaxation.STATE_LIMIT, relaxation.STOCK_LIMIT

    def python(budget: int, states: int) -> search.SolveResult:
        return python_full(state, budget, relaxed_stock=stock, relaxed_states=states)

    assert python(50, room).positions == 1
    cramped = python(300, relaxation.CLOCK_EVERY)
    assert cramped.positions > 1
    for bad in (0, relaxation.MOST_STATES + 1):
        with pytest.raises(ValueError, match="state_limit"):
            python(50, bad)
    if core.available():
        assert core.native().RELAXED_MOST_STATES == relaxation.MOST_STATES
        assert core.search(state, 50, relaxed_states=room).positions == 1
        native = core.search(state, 300, relaxed_states=relaxation.CLOCK_EVERY)
        assert (native.result, native.positions) == (cramped.result, cramped.positions)
        for bad in (0, relaxation.MOST_STATES + 1):
            with pytest.raises(ValueError, match="relaxed_states"):
                core.search(state, 50, relaxed_states=bad)


def test_a_test_gives_up_once_the_search_deadline_has_passed() -> None:
    """A hint's search has a deadline, and one test can meet 100,000 relaxed positions:
    past the deadline a test gives up (not shown lost), in both cores."""
    state = lost_needing_room()

    def shown(state_limit: int | None, deadline: float | None) -> bool:
        test = relaxation.for_search(state, state_limit)
        assert test is not None
        test.deadline = deadline
        return test.lost(state)

    assert not shown(relaxation.CLOCK_EVERY, None)  # more than CLOCK_EVERY to show it
    assert shown(None, None)
    assert not shown(None, time.perf_counter())
    rules = SearchTables.of(state.variant)
    assert search._search(state, rules, 5_000, None, False)[0] == "unsolvable"
    assert search._search(state, rules, 5_000, time.perf_counter(), False)[0] == "unknown"
    if core.available():
        assert core.search(state, 5_000).result == "unsolvable"
        past = core.search(state, 5_000, 0.0)
        assert (past.result, past.stopped) == ("unknown", "deadline")
