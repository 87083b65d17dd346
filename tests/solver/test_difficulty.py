"""The simulated players and the difficulty rating (app/solver/policy.py, difficulty.py)."""

from __future__ import annotations

import random

import pytest

from app.engine import VARIANTS, State, deal
from app.engine.moves import FOUNDATION, MOVE
from app.solver import difficulty
from app.solver.difficulty import LEVELS, THRESHOLDS, level, measure, simulate
from app.solver.policy import choose, human_move, human_score, play, random_move, seen

POLICIES = {"human": human_move, "random": random_move}


def permuted_hidden(state: State, rng: random.Random) -> State:
    """``state`` with its hidden cards (face-down tableau cards, the stock, the reserve
    under its top) shuffled among their places: what a player sees is the same."""
    reserve_down = max(len(state.reserve) - 1, 0)
    hidden = [
        c for pile, down in zip(state.tableau, state.hidden, strict=True) for c in pile[:down]
    ]
    hidden += [*state.stock, *state.reserve[:reserve_down]]
    rng.shuffle(hidden)
    cards = iter(hidden)
    tableau = tuple(
        tuple(next(cards) for _ in range(down)) + pile[down:]
        for pile, down in zip(state.tableau, state.hidden, strict=True)
    )
    stock = tuple(next(cards) for _ in state.stock)
    reserve = tuple(next(cards) for _ in range(reserve_down)) + state.reserve[reserve_down:]
    return state._replace(tableau=tableau, stock=stock, reserve=reserve)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_the_policies_never_read_hidden_cards(variant: str, policy: str) -> None:
    """Along a game, each position and a copy with its hidden cards permuted get the same
    choice from the same generator (the same ordered moves, the same chosen move)."""
    rng = random.Random(7)
    state = deal(VARIANTS[variant], 1234)
    visited = {seen(state)}
    shuffled_any = False
    for step in range(60):
        other = permuted_hidden(state, rng)
        shuffled_any |= other != state
        assert seen(other) == seen(state)
        assert other.legal_moves() == state.legal_moves()
        mine = POLICIES[policy](
            state.variant, seen(state), state.legal_moves(), random.Random(step)
        )
        theirs = POLICIES[policy](
            other.variant, seen(other), other.legal_moves(), random.Random(step)
        )
        assert mine == theirs
        chosen = choose(state, POLICIES[policy], random.Random(step), visited)
        alike = choose(other, POLICIES[policy], random.Random(step), visited)
        assert (chosen is None) == (alike is None)
        if chosen is None or alike is None:
            break
        assert chosen[0] == alike[0]
        state = chosen[1]
        visited.add(seen(state))
    assert shuffled_any


def test_the_random_player_plays_foundation_moves_first() -> None:
    state = deal(VARIANTS["rank-and-file"], 1)  # AH is up at once in some deal: find one
    rng = random.Random(1)
    for number in range(1, 50):
        state = deal(VARIANTS["rank-and-file"], number)
        legal = state.legal_moves()
        up = [
            m for m in legal if m.action == MOVE and m.dst is not None and m.dst.kind == FOUNDATION
        ]
        if up:
            order = random_move(state.variant, seen(state), legal, rng)
            assert set(order[: len(up)]) == set(up) and sorted(order) == sorted(legal)
            return
    raise AssertionError("no deal with a foundation move at once")


def test_ratings_are_deterministic_for_a_deal() -> None:
    start = deal(VARIANTS["rainbow"], 2)
    first = measure(start, 2, 417, games=4)
    assert first == measure(start, 2, 417, games=4)
    assert 0.0 <= first.share <= 1.0 and 0 <= first.wins <= 4
    assert level("rainbow", first.score) in LEVELS
    # Games differ from one another (their own generators), but not between runs.
    cards = [play(start, human_move, random.Random(f"x|{i}")) for i in range(4)]
    assert cards == [play(start, human_move, random.Random(f"x|{i}")) for i in range(4)]


def test_a_won_game_puts_up_every_card() -> None:
    start = deal(VARIANTS["rainbow"], 2)  # the human-like player wins this one
    wins, share = simulate(start, 4, "won")
    assert wins >= 1 and share > 0.5
    assert simulate(start, 0, "none") == (0, 0.0)


def test_the_score_weighs_the_search_a_little() -> None:
    assert difficulty.score(0.5, 1) == 0.5
    assert difficulty.score(0.5, 1_000_000) == pytest.approx(0.5 - difficulty.POSITIONS_WEIGHT)
    assert difficulty.score(0.5, 10**9) == difficulty.score(0.5, 1_000_000)


def test_every_variant_has_thresholds_from_easy_down_to_expert() -> None:
    assert set(THRESHOLDS) == set(VARIANTS)
    for variant, (easy, medium, hard) in THRESHOLDS.items():
        assert easy >= medium >= hard, variant
        assert level(variant, easy) == "easy" and level(variant, hard - 1e-9) == "expert"
        assert level(variant, medium) == "medium" and level(variant, hard) == "hard"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_human_like_player_keeps_every_move_and_its_least_liked_last(variant: str) -> None:
    """It orders every legal move (it gives up only when all lead back to a position it
    has seen), best liked first, the moves it does not like after all the others."""
    state, rng = deal(VARIANTS[variant], 77), random.Random(3)
    visited = {seen(state)}
    for step in range(80):
        legal = state.legal_moves()
        order = human_move(state.variant, seen(state), legal, random.Random(step))
        assert sorted(order) == sorted(legal)
        scores = [human_score(state.variant, seen(state), move) for move in order]
        assert scores == sorted(scores, reverse=True)
        chosen = choose(state, human_move, rng, visited)
        if chosen is None:
            break
        state = chosen[1]
        visited.add(seen(state))


def test_thresholds_are_quartiles_unless_many_deals_are_always_won() -> None:
    scores = [i / 100 for i in range(1, 101)]  # 0.01 .. 1.00, none won every game
    assert difficulty.thresholds(scores, all_won=0) == (0.7525, 0.505, 0.2575)
    # Half the sample won in every game (scores from ALL_WON up): all `easy`; the rest,
    # 0.01 .. 0.50, in thirds.
    always = [difficulty.ALL_WON + i / 10_000 for i in range(50)]
    mixed = [i / 100 for i in range(1, 51)] + always
    easy, medium, hard = difficulty.thresholds(sorted(mixed), all_won=50)
    assert easy == difficulty.ALL_WON
    assert (medium, hard) == (0.336667, 0.173333)
    # A quarter exactly is not more than a quarter: quartiles.
    assert difficulty.thresholds(scores, all_won=25)[0] == 0.7525
