"""The native search's reductions against a search without any (docs/solver.md).

``exhaustive`` (``app/solver/exhaustive.py``) is the plainest search there is: depth
first over every legal move of the engine, each position keyed by itself (no pile
sorting, no safe moves, no obligations, no pruning, no arrangement). On positions small
enough for it to decide (late positions of greedy and random play of all nine games,
each with its house rule flipped too, and positions along and off the winning lines of
``seeds/``), the core's full search, with every reduction together, must never give the
other verdict, and seldom none: an ``unsolvable`` that the plain search contradicts is
the worst bug the solver can have, and reductions that are sound alone can be unsound
together. Every ``solved`` line replays to a win through the engine.

Each reduction of the full search's list (``core.FULL_REDUCTIONS``: safe moves, same
targets, obligations, straight back, deferred draws, passed-over children, the relaxed
tableau's dead-end test; run arrangement switched on where it holds) is switched off
alone: no verdict changes, and none contradicts the plain search. Positions
built by hand that once got the wrong verdict are searched with each too.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from app.engine import VARIANTS, State
from app.solver import arrangements, core, plan, relaxation
from app.solver.exhaustive import exhaustive
from app.solver.result import SolveResult, replay
from app.solver.tables import SearchTables
from tests.solver.oracle import (
    CONFIGS,
    agree,
    checked,
    safe_move,
    seed_line,
    start,
    walk,
    wanted_cards,
)

PLAIN_BUDGET = 4_000  # positions of the plain search: it decides or the position is left out
FULL_BUDGET = 200_000  # the core's full search, on a single position
# On the corpus: it decides most of what the plain search did. Past it the misses are
# Rainbow's positions near the end of the stock, where the full search's depth-first
# line runs 10^5 moves deep (the restarts of `solve` win them in a few positions): they
# would be most of this file's time, searched and replayed in every test below.
CORPUS_BUDGET = 50_000


def full(
    state: State, arranged: bool = False, defer_draws: bool = True, budget: int = FULL_BUDGET
) -> SolveResult:
    """The core's full search, with every reduction but those switched off."""
    return core.search(
        state, core.SearchLimits(budget, None, arranged=arranged, defer_draws=defer_draws)
    )


def candidates() -> Iterator[State]:
    """Late positions of greedy and random play; positions along the known winning lines
    of ``seeds/`` and a few random moves off them (where a win often turns into a loss)."""
    for n, (name, flip) in enumerate(CONFIGS):
        for greedy in (True, False):
            rng = random.Random(f"reductions-{n}-{greedy}")
            yield from list(walk(start(name, flip, 1 + n % 5), rng, 400, greedy))[-1::-15][:6]
    for name in VARIANTS:
        for index in (0, 1, 2):
            state, line = seed_line(name, index)
            rng = random.Random(f"reductions-{name}-{index}")
            for share in (0.8, 0.88, 0.94, 0.97, 0.99):
                position = replay(state, line[: int(len(line) * share)])
                yield position
                yield list(walk(position, rng, 12, False))[-1]


@cache
def decided() -> tuple[tuple[State, str], ...]:
    """Positions that the plain search decides, with its verdict: its C copy's, which
    tests/solver/test_exhaustive.py checks against the Python one on every position the
    C copy decides here."""
    plain = ((state, core.exhaustive(state, PLAIN_BUDGET).result) for state in candidates())
    return tuple((state, verdict) for state, verdict in plain if verdict != "unknown")


@cache
def full_results() -> tuple[SolveResult, ...]:
    """The full search's answer for each decided position, in order."""
    return tuple(full(state, budget=CORPUS_BUDGET) for state, _verdict in decided())


@cache
def full_verdicts() -> tuple[str, ...]:
    """The full search's verdict of each decided position (lines checked), in order."""
    return tuple(
        checked(state, found) for (state, _v), found in zip(decided(), full_results(), strict=True)
    )


def test_the_corpus_decides_both_ways_in_every_game() -> None:
    corpus = decided()
    for verdict in ("solved", "unsolvable"):
        assert sum(v == verdict for _s, v in corpus) >= 20, verdict
    # Not only dead ends: some positions still have cards to draw.
    assert sum(bool(state.stock) for state, _v in corpus) >= 10
    assert {state.variant.name for state, _v in corpus} >= {"rank-and-file", "rainbow", "deauville"}


def agrees(verdicts: Sequence[tuple[str, str]]) -> None:
    """Never the other verdict; undecided (the budget cut) seldom. Where foundation cards
    return, the full search has few safe moves (Rainbow none: docs/solver.md), and some
    of what the plain search wins at once it does not decide within its budget."""
    assert all(got in (expected, "unknown") for expected, got in verdicts), verdicts
    undecided = sum(got == "unknown" for _expected, got in verdicts)
    assert undecided <= len(verdicts) // 5, verdicts


def test_the_full_search_gives_the_plain_search_verdict() -> None:
    agrees([(verdict, got) for (_s, verdict), got in zip(decided(), full_verdicts(), strict=True)])


def test_the_search_up_to_run_arrangement_gives_the_plain_search_verdict() -> None:
    verdicts = [
        (verdict, checked(state, full(state, arranged=True, budget=CORPUS_BUDGET)))
        for state, verdict in decided()
        if arrangements.supports(state.variant)
    ]
    assert len(verdicts) >= 10
    agrees(verdicts)


# Reductions that only spare work: what each leaves out reaches a key met already (same
# targets: a twin of a child tried; straight back: the parent) or a child the deferred
# draws skip after playing it (passed over: before playing it). Without one, the search
# must meet the very same positions.
SPARING = ("same targets", "straight back", "passed over")

# The others, each switched off alone: the search's keywords, and the games where it
# acts. Run arrangement is off by default: it is switched on instead.
SWITCHED_OFF: dict[str, tuple[dict[str, Any], Any]] = {
    "safe moves": ({"without": ("safe moves",)}, lambda v: True),
    "obligations": ({"without": ("obligations",)}, lambda v: True),
    "deferred draws": ({"without": ("deferred draws",)}, lambda v: True),
    "relaxed tableau": ({"without": ("relaxed tableau",)}, relaxation.applies),
    "up to run arrangement": ({"arranged": True}, arrangements.supports),
}


def test_every_reduction_of_the_full_list_is_switched_off_by_a_test() -> None:
    assert set(SWITCHED_OFF) | set(SPARING) == set(core.FULL_REDUCTIONS)
    assert {"safe moves", "obligations", "deferred draws"} <= set(SWITCHED_OFF)
    with pytest.raises(ValueError, match="not a reduction"):
        core.search(
            start("rainbow", False, 1), core.SearchLimits(10, without=("no such reduction",))
        )


@pytest.mark.parametrize("reduction", SWITCHED_OFF)
def test_each_reduction_switched_off_alone_changes_no_verdict(reduction: str) -> None:
    """The full search with one reduction switched off (run arrangement: switched on),
    on the positions of the games where it acts: never a verdict other than the plain
    search's or than the search with every reduction, both decided often, and seldom
    undecided where the search with every reduction decides."""
    keywords, acts = SWITCHED_OFF[reduction]
    both = lost = undecided = 0
    for (state, verdict), usual in zip(decided(), full_verdicts(), strict=True):
        if not acts(state.variant):
            continue
        got = checked(state, core.search(state, core.SearchLimits(CORPUS_BUDGET, **keywords)))
        assert agree(verdict, usual, got), (state.to_text(), verdict, usual, got)
        both += "unknown" not in (usual, got)
        lost += got == "unsolvable"
        undecided += got == "unknown" and usual != "unknown"
    assert both >= 20 and lost >= 5, (both, lost)
    assert undecided <= both // 10, (undecided, both)


@pytest.mark.parametrize("reduction", SPARING)
def test_a_reduction_that_spares_work_meets_the_same_positions(reduction: str) -> None:
    """Without it the search meets the same positions, as many, to the same answer and
    line, on every position of the corpus (deferred draws, which passed over needs, on)."""
    for (state, _verdict), usual in zip(decided(), full_results(), strict=True):
        got = core.search(state, core.SearchLimits(CORPUS_BUDGET, without=(reduction,)))
        assert (got.result, got.positions, got.moves) == (
            usual.result,
            usual.positions,
            usual.moves,
        ), (state.to_text(), reduction)


def test_the_narrow_search_never_contradicts_the_plain_one_through_solve() -> None:
    """The restarts' narrow search (no chains of run splits, nothing back down, eager
    foundations where the rules say) proves nothing: its wins replay, and where it
    exhausts a position the plain search wins, ``solve`` (which runs the full search
    after it) answers no ``unsolvable`` either; everywhere ``solve`` gives the plain
    search's verdict or none."""
    narrow_verdicts = []
    for state, verdict in decided():
        rules = SearchTables.of(state.variant)
        for seed in (0, 3):
            found = core.search(
                state,
                core.SearchLimits(
                    20_000,
                    draw_score=rules.restart(seed).draw_score,
                    narrow=True,
                    eager=rules.eager_foundations,
                    seed=seed,
                ),
            )
            if found.result == "solved":
                assert checked(state, found) == "solved"
            narrow_verdicts.append((verdict, found.result))
            if found.result == "unsolvable" and verdict == "solved":
                assert plan.solve(state, 20_000).result != "unsolvable", state.to_text()
    # It decides most of them, most wins among them.
    assert sum(got == "solved" for _v, got in narrow_verdicts) >= 150
    assert sum(got == "unknown" for _v, got in narrow_verdicts) <= len(narrow_verdicts) // 5
    for (state, verdict), usual in list(zip(decided(), full_verdicts(), strict=True))[::4]:
        solved = plan.solve(state, 20_000)
        assert agree(verdict, usual, checked(state, solved)), state.to_text()


def test_deferred_draws_skip_children_on_the_corpus() -> None:
    """The comparison above means something: after a bare draw the search skips children
    (its own count), on positions that still have cards to draw."""
    skipped = 0
    for state, _verdict in decided():
        if state.stock:
            rules = SearchTables.of(state.variant)
            found = core.native().search(
                core.position(state),
                core.SearchLimits(5_000, None, table_size=5_000, draw_score=rules.draw_score),
            )
            skipped += found[4][2]
    assert skipped >= 100  # 121 when written


def drawing_positions(name: str, number: int) -> list[State]:
    """The first position with each count of 1 to 4 stock cards along random play."""
    met: dict[int, State] = {}
    for state in walk(start(name, False, number), random.Random(f"returns-{number}"), 600, False):
        if 1 <= len(state.stock) <= 4:
            met.setdefault(len(state.stock), state)
    return list(met.values())


def test_deferred_returns_keep_every_verdict() -> None:
    """Where foundation cards come back (Emperor), the children that return one are
    deferred too: positions near the end of the stock of random play get one verdict
    with and without deferred draws, and the plain search's where it decides."""
    skipped = decided_positions = plain_decided = 0
    for number in range(1, 9):
        for state in drawing_positions("emperor", number):
            rules = SearchTables.of(state.variant)
            result, _moves, _positions, _stop, work = core.native().search(
                core.position(state),
                core.SearchLimits(20_000, None, table_size=20_000, draw_score=rules.draw_score),
            )
            without = checked(
                state, core.search(state, core.SearchLimits(20_000, defer_draws=False))
            )
            plain = core.exhaustive(state, 100_000).result
            assert agree(result, without, plain), (state.to_text(), result, without, plain)
            skipped += work[2]
            decided_positions += result != "unknown"
            plain_decided += plain != "unknown" and result != "unknown"
    assert decided_positions >= 12 and plain_decided >= 4
    assert skipped >= 5_000  # 32,096 when written


# Canfield (three cards a draw, redeals) after greedy play of deal 1005, found by
# research/soundness.py: the A of spades is wanted on the waste's top and nothing can be
# built on it, so the safe-move rule put it up, and every search answered `unsolvable`
# (75 positions). But the plain search wins: left in the waste, the ace keeps the threes
# of later passes where the line needs them.
THREES_KEEP_THEIR_PHASE = """\
canfield foundation_return=0 redeals=inf base=12
stock: 9C TC 9H 4H JD JH 8S 3S 6C JS 9S 5D
waste: 2S 7S 6H 4D 5H 8D TD 7C 8H TH 4S 3C JC AS
reserve: 6S 5C AC 3H 3D 2C 6D
f0: QC KC
f1: QH KH AH 2H
f2: QD KD AD 2D
f3: QS KS
t0: TS 9D 8C 7H
t1: 5S
t2: 7D
t3: 4C
"""


def test_a_waste_card_put_up_early_can_shift_the_threes_a_line_needs() -> None:
    """Drawing three with redeals, taking a card out of the waste changes which cards the
    later passes turn up: settle leaves the waste alone there (SearchTables.waste_settles),
    though the rule calls the card safe, and no search proves the position lost."""
    state = State.from_text(THREES_KEEP_THEIR_PHASE)
    assert exhaustive(state, PLAIN_BUDGET).result == "solved"
    rules = SearchTables.of(state.variant)
    ace = state.waste[-1]
    assert ace in wanted_cards(state) and rules.safe_to_foundation(state, ace)
    assert safe_move(state, rules, False) is None
    assert core.position(state).safe_move() is None
    switches: tuple[dict[str, Any], ...] = (
        {},
        {"arranged": True},
        {"defer_draws": False},
        {"relaxed": False},
    )
    for keywords in switches:
        assert (
            checked(state, core.search(state, core.SearchLimits(FULL_BUDGET, **keywords)))
            == "solved"
        )
    assert plan.solve(state, 5_000).result == "solved"
    # One card a draw: the same waste settles (any order of cards stays reachable).
    one_at_a_time = state._replace(variant=replace(state.variant, draw=1))
    assert safe_move(one_at_a_time, SearchTables.of(one_at_a_time.variant), False) is not None


# Forty Thieves, 80% of the way along the line `solve` wins deal 1015 by (so winnable),
# found by research/soundness.py: every full search answered `unsolvable` in 18 positions.
# The win moves 8D into the empty pile, then 7D onto it there, then 9D away: the move of
# 8D is obligated, and its pairs only used the pile it left.
HELD_WHERE_IT_WENT = """\
forty-thieves foundation_return=0 redeals=0 base=-
stock:
waste: 9C KH KC 7H 6D 4C 3D 9H 2D 6H KC 3H 9S 3S 5C 8H QS 4H
f0: AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD
f1: AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS
f2: AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC
f3: AC 2C 3C
f4: AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH
f5: AD
f6: AH 2H
f7: AS 2S
t0: KS 4S 5H TD 9D 8D 7D
t1: KD QD JD
t2: 5D 4D
t3: QH JH
t4: JS TS
t5: 8S 7S 6S 5S
t6: TH
t7:
t8: 8C 7C 6C
t9: QC JC TC
"""


def test_a_single_card_moved_for_another_to_go_on_it_is_paired_with_that_move() -> None:
    """Where single cards move, an obligated move is postponed to just before the next
    move on the pile it left or onto the card where it went: the search pairs it with
    both, and wins where the plain search does, with every switch."""
    state = State.from_text(HELD_WHERE_IT_WENT)
    assert core.exhaustive(state, 1_000_000).result == "solved"
    switches: tuple[dict[str, Any], ...] = ({}, {"defer_draws": False}, {"relaxed": False})
    for keywords in switches:
        assert (
            checked(state, core.search(state, core.SearchLimits(FULL_BUDGET, **keywords)))
            == "solved"
        )
    rules = SearchTables.of(state.variant)
    narrow = core.search(
        state, core.SearchLimits(5_000, narrow=True, eager=rules.eager_foundations)
    )
    assert checked(state, narrow) in ("solved", "unknown")
