"""The beam search by stock level (app/solver/beam.py): what it finds, what it keeps to,
and that both cores run it alike: the Python loop over the engine's positions, the same
loop over native positions, and the native loop (core.beam, app/solver/native/beam.c)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from app.engine import VARIANTS, Move, Rules, State, deal
from app.solver import beam, core, plan, relaxation, search
from app.solver.tables import SearchTables
from tests.solver.test_native_core import CONFIGS, start
from tests.solver.test_native_search import seed_line


def replays(state: State, moves: list[str]) -> bool:
    return search.wins(state, [Move.parse(text) for text in moves])


def test_the_beam_wins_deals_the_depth_first_search_leaves_undecided() -> None:
    """These deals were undecided after 10,000,000 positions of the depth-first search
    (bench/surveys/*-10m-*.jsonl); a beam of width 64 wins each within 200,000, and the
    lines replay. The full search at the same budget still finds nothing. Deauville 12
    only with its closures best first, Deauville 73 only depth first."""
    for name, number, best in (
        ("deauville", 73, False),
        ("rank-and-file", 175, False),
        ("emperor", 69, False),
        ("deauville", 12, True),
    ):
        state = deal(VARIANTS[name], number)
        found = beam.beam(core.position(state), 64, 200_000, best=best)
        assert found.moves is not None, (name, number)
        assert found.positions <= 200_000 and found.stopped == ""
        assert replays(state, found.moves)
        assert core.search_full(state, found.positions).result == "unknown"


def test_the_beam_plays_no_foundation_card_back() -> None:
    state = deal(VARIANTS["emperor"], 73)  # foundation cards return in Emperor
    found = beam.beam(core.position(state), 64, 200_000)
    assert found.moves is not None
    assert not [text for text in found.moves if text.startswith("f")]


@pytest.mark.parametrize("native", [True, False])
def test_where_cards_return_the_beam_plays_the_game_without_returns(native: bool) -> None:
    # Emperor is Deauville with returns, and a house rule adds them to Rank and File: the
    # beam meets the same positions as without them (the safe-move rule of the game
    # without returns), and its line wins the game with them.
    cases = [(VARIANTS["emperor"], VARIANTS["deauville"], n, 20_000) for n in (1, 73)]
    if native:  # Rank and File's beam needs more positions than the Python core runs fast
        ruled = VARIANTS["rank-and-file"].with_rules(Rules(foundation_return=True))
        cases.append((ruled, VARIANTS["rank-and-file"], 1, 100_000))
    for returns, plain, number, budget in cases:
        state = deal(returns, number)
        found = plan._beam(state, 16, False, budget, None, native)
        alike = plan._beam(deal(plain, number), 16, False, budget, None, native)
        assert found == alike
        assert found[0] == "solved" and search.wins(state, found[1])


def test_a_single_card_beam_plays_rank_and_file_as_deauville() -> None:
    # Deauville is Rank and File where only single cards move: the single-card beam over
    # Rank and File meets Deauville's positions and line, and wins deal 96, which
    # 10,000,000 positions of Rank and File's search over every move left undecided.
    raf, deauville = (deal(VARIANTS[name], 96) for name in ("rank-and-file", "deauville"))
    single = beam.beam(core.position(raf), 64, 200_000, single=True)
    assert single.moves is not None and replays(raf, single.moves)
    assert not [text for text in single.moves if beam.RUN_MARK in text]
    alike = beam.beam(core.position(deauville), 64, 200_000)
    assert (single.moves, single.positions) == (alike.moves, alike.positions)
    every = beam.beam(core.position(raf), 64, 200_000)
    assert every.moves is None


def test_the_beam_keeps_to_its_budget_and_deadline() -> None:
    state = deal(VARIANTS["rank-and-file"], 31)  # won, but not within 100,000 positions
    cut = beam.beam(core.position(state), 64, 5_000)
    assert (cut.moves, cut.positions, cut.stopped) == (None, 5_000, "positions")
    late = beam.beam(core.position(state), 64, 10**9, deadline=0.0)
    assert (late.moves, late.stopped) == (None, "deadline")
    assert late.positions < 10**9


def test_the_native_beam_keeps_to_its_budget_and_deadline() -> None:
    state = deal(VARIANTS["rank-and-file"], 31)
    cut = core.beam(state, 64, 5_000)
    assert (cut.moves, cut.positions, cut.stopped) == (None, 5_000, "positions")
    late = core.beam(state, 64, 10**9, deadline=0.0)
    assert (late.moves, late.stopped) == (None, "deadline")
    assert late.positions < 10**9
    narrow = core.beam(deal(VARIANTS["deauville"], 6), 1, 10**6)
    assert (narrow.moves, narrow.stopped) == (None, "") and narrow.positions < 10**6


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
    limits: dict[str, Any] = {
        "width": 4,
        "max_positions": 100,
        "max_seconds": None,
        "closure": 200,
        "endgame": beam.ENDGAME,
        "weights": beam.WEIGHTS,
    } | bad
    position = core.position(deal(VARIANTS["deauville"], 1))
    with pytest.raises((ValueError, TypeError)):
        core.native().beam(position, **limits)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_both_cores_loop_the_same_beam_over_larger_budgets(name: str) -> None:
    """The native loop against the Python loop over the same native positions, where the
    Python loop runs fast enough for budgets the engine's positions cannot afford: deals
    1-2 of every game (as plan._beam plays them: without returns), both orders and single
    cards, 20,000 positions. Most are cut by the budget, some run out, some win."""
    variant = VARIANTS[name]
    if variant.foundation_return:
        variant = variant.with_rules(Rules(foundation_return=False))
    for number in (1, 2):
        state = deal(variant, number)
        for width, best, single in ((4, False, False), (16, True, False), (8, False, True)):
            python = beam.beam(core.position(state), width, 20_000, best=best, single=single)
            looped = core.beam(state, width, 20_000, best=best, single=single)
            assert looped == python, (name, number, width, best, single)
            if looped.moves is not None:
                assert replays(state, looped.moves)


def test_a_narrow_beam_runs_out_without_a_verdict() -> None:
    """A beam of width 1 that meets no win ends by itself, and says nothing: no line, no
    cut (plan.solve counts it as unknown, never as unsolvable)."""
    state = deal(VARIANTS["deauville"], 6)
    found = beam.beam(core.position(state), 1, 10**6)
    assert (found.moves, found.stopped) == (None, "")
    assert found.positions < 10**6


def test_the_score_prefers_progress() -> None:
    """One more card up outweighs anything a single move can cost elsewhere, and every
    weight has the sign its name says."""
    weights = beam.Features(*beam.WEIGHTS)
    assert weights.on_foundations > 0 and weights.empty_piles > 0
    assert all(
        weight < 0
        for weight in (
            weights.face_down,
            weights.in_waste,
            weights.in_reserve,
            weights.out_of_sequence,
            weights.buried,
        )
    )
    # A card from the waste to a foundation: one more up, one fewer in the waste.
    assert weights.on_foundations - weights.in_waste > 0
    before = beam.Features(0, 30, 5, 0, 0, 0, 3)
    assert beam.score(before._replace(on_foundations=1, in_waste=4)) > beam.score(before)
    assert beam.score(before._replace(buried=1)) > beam.score(before)


ACE_CLUBS, ACE_SPADES, ACE_HEARTS, TWO_CLUBS = 0, 13, 26, 1  # suit * 13 + rank - 1


def test_buried_counts_the_cards_above_each_card_the_foundations_take_next() -> None:
    """For each card the foundations take next, the cards above its copy nearest a top,
    in the waste, the reserve or a tableau pile, face down or up; a copy in the stock
    or none counts nothing. The same on both cores."""
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
    assert beam.features(state).buried == 2 + 2
    assert core.position(state).features() == beam.features(state)
    # The copy nearest a top counts: a second Ace of clubs with one card on it.
    nearer = state._replace(tableau=(state.tableau[0], (ACE_CLUBS, 46), *empty[2:]))
    assert beam.features(nearer).buried == 1 + 2
    assert core.position(nearer).features() == beam.features(nearer)
    # An Ace of clubs up: its foundation takes the Two (at the waste's top: nothing),
    # and the empty ones still take the other Ace of clubs (under three cards now).
    up = state._replace(
        foundations=((ACE_CLUBS,), *((),) * 7), waste=(ACE_CLUBS, 44, 45, TWO_CLUBS)
    )
    assert beam.features(up).buried == 3 + 2
    assert core.position(up).features() == beam.features(up)


def compare_beams(
    state: State, width: int, budget: int, best: bool, single: bool = False
) -> beam.BeamResult:
    rules = SearchTables.of(state.variant)
    python = beam.beam(beam.EnginePosition(state, rules), width, budget, best=best, single=single)
    native = beam.beam(core.position(state), width, budget, best=best, single=single)
    looped = core.beam(state, width, budget, best=best, single=single)
    where = (state.variant.name, state.variant.foundation_return, width, best, single)
    assert (native.moves, native.positions, native.stopped) == (
        python.moves,
        python.positions,
        python.stopped,
    ), where
    assert looped == native, where
    if native.moves is not None:
        assert replays(state, native.moves), where
    return native


@pytest.mark.parametrize(("name", "flip"), CONFIGS)
def test_both_cores_run_the_same_beam_from_deals(name: str, flip: bool) -> None:
    """From deals (cut by the budget, or run out): the same positions met on either core."""
    for width, best, single in ((2, False, False), (8, True, False), (4, False, True)):
        compare_beams(start(name, flip, 3), width, 1_500, best, single)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_both_cores_run_the_same_beam_to_a_win(name: str) -> None:
    """From positions along a proven deal's winning line (seeds/): the same positions,
    the same winning line, on either core, in both orders."""
    state, line = seed_line(name, 0)
    won = [
        compare_beams(search.replay(state, line[: int(len(line) * share)]), 4, 3_000, best)
        for share in (0.8, 0.9, 0.96)
        for best in (False, True)
    ]
    assert any(found.moves is not None for found in won), "no position near a win was won"


def test_solve_runs_beam_passes_between_the_restarts() -> None:
    rules = SearchTables.of(VARIANTS["deauville"])
    tries = plan.plan(rules, 1_000_000, arranged=False)
    beams = [(kind, width) for kind, width, _share in tries if kind in plan.BEAMS]
    assert beams == [(kind, w) for w in (16, 64, 256) for kind in (plan.BEAM, plan.BEST_BEAM)]
    for at, (kind, width, share) in enumerate(tries):
        if kind in plan.BEAMS:  # after restarts planned a hundred times its width
            before = sum(s for k, _w, s in tries[:at] if k == plan.NARROW)
            assert before >= width * plan.BEAM_AFTER
            assert share == 250_000  # a quarter, shared by the passes
    assert sum(share for kind, _s, share in tries if kind == plan.NARROW) == 250_000
    assert tries[-1] == (plan.FULL, 0, 1_000_000)
    # Past 1,000,000 positions the full search keeps 500,000 and the restarts stay at
    # 1,000,000 from 4,000,000: the beam passes have the rest (wider passes).
    middle = plan.plan(rules, 2_000_000, arranged=False)
    assert {share for kind, _w, share in middle if kind in plan.BEAMS} == {1_000_000}
    large = plan.plan(rules, 10_000_000, arranged=False)
    assert sum(share for kind, _s, share in large if kind == plan.NARROW) == 1_000_000
    assert {share for kind, _w, share in large if kind in plan.BEAMS} == {8_500_000}
    assert max(width for kind, width, _s in large if kind in plan.BEAMS) == 16384
    assert large[-1] == (plan.FULL, 0, 10_000_000)
    # Where the full search has the relaxed tableau's test it keeps half at every budget;
    # up to 1,000,000 positions that is the plan it had anyway.
    rainbow = SearchTables.of(VARIANTS["rainbow"])
    relaxed = plan.plan(rainbow, 10_000_000, arranged=True)
    assert {share for kind, _w, share in relaxed if kind in plan.BEAMS} == {4_000_000}
    assert max(width for kind, width, _s in relaxed if kind in plan.BEAMS) == 4096
    assert relaxed[-1] == (plan.FULL, 0, 10_000_000)
    with mock.patch.object(relaxation, "applies", return_value=False):
        unrelaxed = plan.plan(rainbow, 1_000_000, arranged=True)
        assert {s for k, _w, s in plan.plan(rainbow, 10_000_000, True) if k in plan.BEAMS} == {
            8_500_000
        }
    assert plan.plan(rainbow, 1_000_000, arranged=True) == unrelaxed
    # Where runs move, each width starts with a pass of single cards.
    runs = plan.plan(SearchTables.of(VARIANTS["rank-and-file"]), 1_000_000, arranged=True)
    beams = [(kind, width) for kind, width, _share in runs if kind in plan.BEAMS]
    orders = (plan.SINGLE_BEAM, plan.BEAM, plan.BEST_BEAM)
    assert beams == [(kind, w) for w in (16, 64, 256) for kind in orders]
    # Below 100,000 positions (a hint) no beam: half the budget for the restarts.
    small = plan.plan(rules, 25_000, arranged=False)
    assert not [kind for kind, _w, _s in small if kind in plan.BEAMS]
    assert sum(share for kind, _s, share in small if kind == plan.NARROW) == 12_500
    # Where the stock comes round again, no beam either.
    for name in ("rows-of-four", "canfield"):
        redeals = plan.plan(SearchTables.of(VARIANTS[name]), 1_000_000, arranged=False)
        assert not [kind for kind, _w, _s in redeals if kind in plan.BEAMS]
    state = deal(VARIANTS["rank-and-file"], 9)
    found = plan.solve(state, 1_000_000, core="native")
    assert found.result == "solved" and found.positions < 1_000_000


@pytest.mark.parametrize(
    ("name", "numbers"), [("rank-and-file", (9, 31)), ("deauville", (1, 3)), ("rainbow", (1, 3))]
)
def test_solve_with_beam_passes_answers_alike_on_both_cores(
    name: str, numbers: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole plan with its beam passes (from 2,000 positions here, so that the Python
    core runs it in seconds): the same verdict, positions and line on either core."""
    monkeypatch.setattr(plan, "BEAM_FROM", 2_000)
    monkeypatch.setattr(plan, "BEAM_AFTER", 10)
    passes: list[tuple[int, bool, int]] = []
    run_beam = plan._beam

    def counted(*args: Any) -> Any:
        found = run_beam(*args)
        passes.append((args[1], args[2], found[2]))
        return found

    monkeypatch.setattr(plan, "_beam", counted)
    for number in numbers:
        state = deal(VARIANTS[name], number)
        python = plan.solve(state, 6_000, core="python")
        native = plan.solve(state, 6_000, core="native")
        assert (native.result, native.positions, native.stopped) == (
            python.result,
            python.positions,
            python.stopped,
        )
        assert [str(m) for m in native.moves] == [str(m) for m in python.moves]
    assert passes, "no beam pass ran"


def test_the_beam_drops_positions_the_relaxed_tableau_shows_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rainbow as the beam plays it (without returns), a narrow beam that reaches the last
    stock cards: the positions the relaxed tableau shows lost are met but not kept, alike
    on both cores; without the test both keep them, and explore past them. The slots the
    lost ones held go to others (deal 5: 5,551 positions met against 5,530, 117 of them
    shown lost, the beam running dry either way; 2,299 with the coarser test before the
    bottoms, which gave up less at the last stock card here)."""
    state = deal(VARIANTS["rainbow"].with_rules(Rules(foundation_return=False)), 5)
    answers: list[bool] = []
    test = relaxation.Relaxation.lost

    def counted(self: relaxation.Relaxation, position: State) -> bool:
        answers.append(test(self, position))
        return answers[-1]

    monkeypatch.setattr(relaxation.Relaxation, "lost", counted)
    limits: dict[str, Any] = {"closure": 20}
    python = beam.beam(core.position(state), 8, 20_000, **limits)
    looped = core.beam(state, 8, 20_000, **limits)
    assert looped == python
    assert sum(answers) >= 10, "the test showed too few positions lost to matter"
    plain = core.beam(state, 8, 20_000, relaxed=False, **limits)
    assert plain == beam.beam(core.position(state), 8, 20_000, relaxed=False, **limits)
    # Both run out before the budget, down other paths.
    assert looped.stopped == plain.stopped == ""
    assert looped.positions != plain.positions
