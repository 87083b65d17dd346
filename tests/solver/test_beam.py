"""The beam search by stock level (``core.beam``, app/solver/native/beam.c; its constants
in app/solver/beam.py). It proves nothing, so what is checked is what it answers and what
it keeps to: every line it returns replays to a win through the engine, it wins deals the
depth-first search leaves undecided, it keeps its position budget and its deadline and
says which cut it short (``stopped``), it plays no foundation card back (where cards
return it plays the game without returns), a single-card beam moves no run, the relaxed
tableau's test changes what it keeps, bad limits raise; and how ``plan`` schedules and
runs the beam passes.
"""

from __future__ import annotations

import time
from typing import Any
from unittest import mock

import pytest

from app.engine import VARIANTS, Move, Rules, State, deal
from app.solver import beam, core, plan, relaxation
from app.solver.beam import BeamResult
from app.solver.result import replay, wins
from app.solver.tables import SearchTables
from tests.solver.oracle import CONFIGS, seed_line, start


def replays(state: State, texts: list[str]) -> bool:
    """Does the line win from ``state``, every move checked by the engine?"""
    return wins(state, [Move.parse(text) for text in texts])


def check(state: State, found: BeamResult, budget: int, single: bool = False) -> BeamResult:
    """What holds of every beam answer: within the budget; a line (which wins through the
    engine, plays no foundation card back, and with ``single`` moves no run) or a reason
    it stopped (``positions`` exactly at the budget, else ``""``: it ran out)."""
    where = (state.variant.name, state.variant.foundation_return)
    assert 0 < found.positions <= budget, where
    if found.moves is not None:
        assert found.stopped == "", where
        assert replays(state, found.moves), where
        parsed = [Move.parse(text) for text in found.moves]
        assert not [m for m in parsed if m.src is not None and m.src.kind == "foundation"]
        if single:
            assert all(m.count == 1 for m in parsed), where
    else:
        assert found.stopped in ("positions", ""), where
        assert (found.stopped == "positions") == (found.positions == budget), where
    return found


def test_the_beam_wins_deals_the_depth_first_search_leaves_undecided() -> None:
    """These deals were undecided after 10,000,000 positions of the depth-first search
    (research/results.sqlite, the 10M rows); a beam of width 64 wins each within 200,000, and the
    lines replay. The full search at the same budget still finds nothing. Deauville 12
    only with its closures best first, Deauville 73 only depth first."""
    for name, number, best in (
        ("deauville", 73, False),
        ("rank-and-file", 175, False),
        ("emperor", 69, False),
        ("deauville", 12, True),
    ):
        state = deal(VARIANTS[name], number)
        found = check(state, core.beam(state, 64, 200_000, best=best), 200_000)
        assert found.moves is not None, (name, number)
        assert core.search_full(state, found.positions).result == "unknown"
        if name == "deauville":  # the other order does not win it
            other = core.beam(state, 64, 200_000, best=not best)
            assert check(state, other, 200_000).moves is None, (name, number)


def test_the_beam_plays_no_foundation_card_back() -> None:
    for name, number in (("emperor", 73), ("emperor", 1)):
        state = deal(VARIANTS[name], number)  # foundation cards return in Emperor
        assert check(state, core.beam(state, 64, 200_000), 200_000).moves is not None


def test_where_cards_return_the_beam_plays_the_game_without_returns() -> None:
    # Emperor is Deauville with returns, and a house rule adds them to Rank and File: the
    # beam of plan._beam meets the same positions as in the game without them (the
    # safe-move rule of the game without returns), and its line wins the game with them.
    ruled = VARIANTS["rank-and-file"].with_rules(Rules(foundation_return=True))
    cases = [(VARIANTS["emperor"], VARIANTS["deauville"], n, 20_000) for n in (1, 73)]
    cases.append((ruled, VARIANTS["rank-and-file"], 1, 100_000))
    for returns, plain, number, budget in cases:
        state = deal(returns, number)
        found = plan._beam(state, 16, False, budget, None)
        alike = plan._beam(deal(plain, number), 16, False, budget, None)
        assert found == alike
        assert found[0] == "solved" and wins(state, found[1])


def test_a_single_card_beam_plays_rank_and_file_as_deauville() -> None:
    # Deauville is Rank and File where only single cards move: the single-card beam over
    # Rank and File meets Deauville's positions and line, and wins deal 96, which
    # 10,000,000 positions of Rank and File's search over every move left undecided.
    raf, deauville = (deal(VARIANTS[name], 96) for name in ("rank-and-file", "deauville"))
    single = check(raf, core.beam(raf, 64, 200_000, single=True), 200_000, single=True)
    assert single.moves is not None
    alike = core.beam(deauville, 64, 200_000)
    assert (single.moves, single.positions) == (alike.moves, alike.positions)
    every = check(raf, core.beam(raf, 64, 200_000), 200_000)
    assert every.moves is None


def test_the_beam_keeps_to_its_budget_and_deadline() -> None:
    state = deal(VARIANTS["rank-and-file"], 31)  # won, but not within 100,000 positions
    cut = core.beam(state, 64, 5_000)
    assert (cut.moves, cut.positions, cut.stopped) == (None, 5_000, "positions")
    late = core.beam(state, 64, 10**9, deadline=0.0)
    assert (late.moves, late.stopped) == (None, "deadline")
    assert late.positions < 10**9
    # A deadline a little ahead: the wide beam stops soon after it, having met some.
    started = time.perf_counter()
    soon = core.beam(state, 4096, 10**9, deadline=started + 0.2)
    took = time.perf_counter() - started
    assert (soon.moves, soon.stopped) == (None, "deadline")
    assert 0.2 <= took < 5.0 and 0 < soon.positions < 10**9


def test_a_narrow_beam_runs_out_without_a_verdict() -> None:
    """A beam of width 1 that meets no win ends by itself, and says nothing: no line, no
    cut (plan.solve counts it as unknown, never as unsolvable)."""
    state = deal(VARIANTS["deauville"], 6)
    found = core.beam(state, 1, 10**6)
    assert (found.moves, found.stopped) == (None, "")
    assert found.positions < 10**6
    assert plan._beam(state, 1, False, 10**6, None)[0] == "unknown"


@pytest.mark.parametrize(
    "bad",
    [
        {"width": 0},
        {"max_positions": 0},
        {"closure": 0},
        {"endgame": 0},
        {"weights": (1, 2, 3)},
        {"weights": (1, 2, 3, 4, 5, 6, "7")},
        {"weights": (1, 2, 3, 4, 5, 6, 10**6)},
        {"max_seconds": -1.0},
    ],
)
def test_the_native_beam_refuses_bad_limits(bad: dict[str, Any]) -> None:
    good: dict[str, Any] = {
        "width": 4,
        "max_positions": 100,
        "max_seconds": None,
        "closure": 200,
        "endgame": beam.ENDGAME,
        "weights": beam.WEIGHTS,
    }
    position = core.position(deal(VARIANTS["deauville"], 1))
    assert core.native().beam(position, **good)[1] == 100  # cut by the budget
    with pytest.raises((ValueError, TypeError)):
        core.native().beam(position, **(good | bad))


@pytest.mark.parametrize(("name", "flip"), CONFIGS)
def test_every_beam_answer_keeps_to_its_limits(name: str, flip: bool) -> None:
    """Deals 1-2 of every game under both rules, as plan._beam plays them (without
    returns) and as they are, both orders and single cards, 20,000 positions: cut by the
    budget, run out or won, the answer keeps to :func:`check`; and a pass is the same
    each time it runs."""
    for number in (1, 2):
        state = start(name, flip, number)
        for width, best, single in ((4, False, False), (16, True, False), (8, False, True)):
            found = check(
                state, core.beam(state, width, 20_000, best=best, single=single), 20_000, single
            )
            if number == 1 and width == 4:
                assert core.beam(state, width, 20_000, best=best, single=single) == found
            result, _line, used, _stopped = plan._beam(state, width, best, 20_000, None, single)
            assert used <= 20_000 and result != "unsolvable"


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_beam_wins_near_the_end_of_known_wins(name: str) -> None:
    """From positions along a proven deal's winning line (seeds/), in both orders: some
    are won, every line replays."""
    state, line = seed_line(name, 0)
    won = 0
    for share in (0.8, 0.9, 0.96):
        position = replay(state, line[: int(len(line) * share)])
        if position.variant.foundation_return:  # as plan._beam plays it
            position = position._replace(variant=position.variant.with_rules(Rules(False)))
        for best in (False, True):
            found = check(position, core.beam(position, 4, 3_000, best=best), 3_000)
            won += found.moves is not None
    assert won, "no position near a win was won"


def _score(features: tuple[int, ...]) -> int:
    return sum(w * f for w, f in zip(beam.WEIGHTS, features, strict=True))


ACE_CLUBS, ACE_SPADES, ACE_HEARTS, TWO_CLUBS = 0, 13, 26, 1  # suit * 13 + rank - 1


def test_the_score_prefers_progress() -> None:
    """The features, weighted by WEIGHTS: a card from the waste to a foundation scores
    higher, and so does uncovering the card the foundations take next. The features are
    (on foundations, face down, in waste, in reserve, empty piles, out of sequence,
    buried)."""
    dealt = deal(VARIANTS["deauville"], 1)
    empty: tuple[tuple[int, ...], ...] = ((),) * 10
    state = dealt._replace(
        tableau=((40, 41, 42), (ACE_HEARTS, 43), *empty[2:]),
        hidden=(2, 0, *(0,) * 8),
        foundations=((),) * 8,
        stock=(ACE_SPADES,),
        waste=(44, ACE_CLUBS),
        reserve=(),
    )
    before = tuple(core.position(state).features())
    assert len(before) == len(beam.WEIGHTS) == 7
    up, _ = state.apply(Move.parse("w>f0"), auto_finish=False, validate=True)
    after = tuple(core.position(up).features())
    assert (after[0], after[2]) == (before[0] + 1, before[2] - 1)
    assert _score(after) > _score(before)
    freed = state._replace(tableau=((40, 41, 42), (ACE_HEARTS,), (43,), *empty[3:]))
    assert tuple(core.position(freed).features())[6] < before[6]
    assert _score(tuple(core.position(freed).features())) > _score(before)


def test_buried_counts_the_cards_above_each_card_the_foundations_take_next() -> None:
    """For each card the foundations take next, the cards above its copy nearest a top,
    in the waste, the reserve or a tableau pile, face down or up; a copy in the stock
    or none counts nothing."""
    dealt = deal(VARIANTS["deauville"], 1)
    empty: tuple[tuple[int, ...], ...] = ((),) * 10
    state = dealt._replace(
        tableau=((40, ACE_HEARTS, 41, 42), *empty[1:]),  # the Ace under two cards
        hidden=(2, *(0,) * 9),
        foundations=((),) * 8,  # every Ace is wanted
        stock=(ACE_SPADES,),  # a copy in the stock: nothing
        waste=(ACE_CLUBS, 44, 45),  # under two cards
        reserve=(),
    )

    def buried(position: State) -> int:
        return core.position(position).features()[-1]

    assert buried(state) == 2 + 2
    # The copy nearest a top counts: a second Ace of clubs with one card on it.
    nearer = state._replace(tableau=(state.tableau[0], (ACE_CLUBS, 46), *empty[2:]))
    assert buried(nearer) == 1 + 2
    # An Ace of clubs up: its foundation takes the Two (at the waste's top: nothing),
    # and the empty ones still take the other Ace of clubs (under three cards now).
    up = state._replace(
        foundations=((ACE_CLUBS,), *((),) * 7), waste=(ACE_CLUBS, 44, 45, TWO_CLUBS)
    )
    assert buried(up) == 3 + 2


def test_solve_runs_beam_passes_between_the_restarts() -> None:
    rules = SearchTables.of(VARIANTS["deauville"])
    tries = plan.plan(rules, 1_000_000, arranged=False)
    beams = [(one.kind, one.width) for one in tries if one.kind in plan.BEAMS]
    assert beams == [(kind, w) for w in (16, 64, 256) for kind in (plan.BEAM, plan.BEST_BEAM)]
    for at, one in enumerate(tries):
        if one.kind in plan.BEAMS:  # after restarts planned a hundred times its width
            before = sum(t.budget for t in tries[:at] if t.kind == plan.NARROW)
            assert before >= one.width * plan.BEAM_AFTER
            assert one.budget == 250_000  # a quarter, shared by the passes
    assert sum(one.budget for one in tries if one.kind == plan.NARROW) == 250_000
    assert tries[-1] == plan.Try(plan.FULL, 1_000_000)

    def beam_budgets(tries: list[plan.Try]) -> set[int]:
        return {one.budget for one in tries if one.kind in plan.BEAMS}

    def widest(tries: list[plan.Try]) -> int:
        return max(one.width for one in tries if one.kind in plan.BEAMS)

    # Past 1,000,000 positions the full search keeps 500,000 and the restarts stay at
    # 1,000,000 from 4,000,000: the beam passes have the rest (wider passes).
    assert beam_budgets(plan.plan(rules, 2_000_000, arranged=False)) == {1_000_000}
    large = plan.plan(rules, 10_000_000, arranged=False)
    assert sum(one.budget for one in large if one.kind == plan.NARROW) == 1_000_000
    assert beam_budgets(large) == {8_500_000}
    assert widest(large) == 16384
    assert large[-1] == plan.Try(plan.FULL, 10_000_000)
    # Where the full search has the relaxed tableau's test it keeps half at every budget;
    # up to 1,000,000 positions that is the plan it had anyway.
    rainbow = SearchTables.of(VARIANTS["rainbow"])
    relaxed = plan.plan(rainbow, 10_000_000, arranged=True)
    assert beam_budgets(relaxed) == {4_000_000}
    assert widest(relaxed) == 4096
    assert relaxed[-1] == plan.Try(plan.FULL, 10_000_000)
    with mock.patch.object(relaxation, "applies", return_value=False):
        unrelaxed = plan.plan(rainbow, 1_000_000, arranged=True)
        assert beam_budgets(plan.plan(rainbow, 10_000_000, True)) == {8_500_000}
    assert plan.plan(rainbow, 1_000_000, arranged=True) == unrelaxed
    # Where runs move, each width starts with a pass of single cards.
    runs = plan.plan(SearchTables.of(VARIANTS["rank-and-file"]), 1_000_000, arranged=True)
    beams = [(one.kind, one.width) for one in runs if one.kind in plan.BEAMS]
    orders = (plan.SINGLE_BEAM, plan.BEAM, plan.BEST_BEAM)
    assert beams == [(kind, w) for w in (16, 64, 256) for kind in orders]
    # Restarts have seeds, no width; beam passes a width, no seed.
    assert all(one.width == 0 for one in runs if one.kind not in plan.BEAMS)
    assert all(one.seed == 0 for one in runs if one.kind in plan.BEAMS)
    # Below 100,000 positions (a hint) no beam: half the budget for the restarts.
    small = plan.plan(rules, 25_000, arranged=False)
    assert not beam_budgets(small)
    assert sum(one.budget for one in small if one.kind == plan.NARROW) == 12_500
    # Where the stock comes round again, no beam either.
    for name in ("rows-of-four", "canfield"):
        assert not beam_budgets(plan.plan(SearchTables.of(VARIANTS[name]), 1_000_000, False))
    state = deal(VARIANTS["rank-and-file"], 9)
    found = plan.solve(state, 1_000_000)
    assert found.result == "solved" and found.positions < 1_000_000


@pytest.mark.parametrize(
    ("name", "numbers"), [("rank-and-file", (9, 31)), ("deauville", (1, 3)), ("rainbow", (1, 3))]
)
def test_solve_with_beam_passes_keeps_its_budget_and_replays_its_wins(
    name: str, numbers: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole plan with its beam passes (from 2,000 positions here): the passes run,
    share their budget, and the answer keeps to solve's: within the budget, a win that
    replays, never ``unsolvable`` from a pass."""
    monkeypatch.setattr(plan, "BEAM_FROM", 2_000)
    monkeypatch.setattr(plan, "BEAM_AFTER", 10)
    passes: list[tuple[int, bool, int]] = []
    run_beam = plan._beam

    def counted(*args: Any) -> Any:
        found = run_beam(*args)
        assert found[0] != "unsolvable"
        passes.append((args[1], args[2], found[2]))
        return found

    monkeypatch.setattr(plan, "_beam", counted)
    for number in numbers:
        state = deal(VARIANTS[name], number)
        found = plan.solve(state, 6_000)
        assert found.positions <= 6_000
        if found.result == "solved":
            assert wins(state, found.moves)
        else:
            assert found.stopped in ("positions", "") and found.moves == []
    assert passes, "no beam pass ran"
    assert sum(used for _w, _b, used in passes) <= 6_000 // 4 * len(numbers)


def test_the_beam_drops_positions_the_relaxed_tableau_shows_lost() -> None:
    """Rainbow as the beam plays it (without returns), a narrow beam that reaches the last
    stock cards: with the relaxed tableau's test it drops the positions the test shows
    lost and explores others, so it meets a different count than without (deal 5: 5,551
    positions met against 5,530, 117 of them shown lost, the beam running dry either
    way)."""
    state = deal(VARIANTS["rainbow"].with_rules(Rules(foundation_return=False)), 5)
    relaxed = core.beam(state, 8, 20_000, closure=20)
    plain = core.beam(state, 8, 20_000, closure=20, relaxed=False)
    assert relaxed.stopped == plain.stopped == ""
    assert relaxed.moves is None and plain.moves is None
    assert relaxed.positions != plain.positions
