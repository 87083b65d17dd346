"""Events are enough to animate: over random play of every variant (and near-won
positions, where the auto-finish runs), replaying a move's events, or undo's, on the
previous public view gives the next one; events never name a card that is face down
once they have happened; undo names no card it turns face down; and each card's
``click`` in the view is exactly what ``resolve_click`` plays."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from app.engine import VARIANTS, IllegalMove, InvalidMove, Move, State, resolve_click
from app.engine.deal import deal
from tests.replay import cards_only, codes_in, face_up_codes, replay

from .conftest import ALL, position
from .test_properties import DEAL_NUMBERS, fast_forward, near_won, pick


def _check_step(before: State, events: list[dict], after: State) -> None:
    shown = after.public()
    assert replay(before.public(), events) == cards_only(shown)
    # Every card named is face up once the events happened.
    assert codes_in(events) <= face_up_codes(shown)


def _check_clicks(state: State) -> None:
    view = state.public()
    for pile in view["piles"]:
        for index, card in enumerate(pile["cards"]):
            if not card["face_up"]:
                assert card == {"face_up": False}
                continue
            try:
                expected: dict | None = resolve_click(state, pile["id"], index).to_json()
            except (IllegalMove, InvalidMove):
                expected = None
            assert card["click"] == expected, (pile["id"], index)
        try:
            top: dict | None = resolve_click(state, pile["id"]).to_json()
        except (IllegalMove, InvalidMove):
            top = None
        assert pile["click"] == top, pile["id"]


def _walk(state: State, rng: random.Random, steps: int, greedy: bool) -> None:
    history: list[tuple[State, Move]] = []
    for step in range(steps):
        if step % 5 == 0:
            _check_clicks(state)
        legal = state.legal_moves()
        if history and (not legal or rng.random() < 0.2):
            previous, move = history.pop()
            undo = [e.to_json() for e in previous.undo_events(move, state)]
            assert undo[0] == {"type": "undo", "move": move.to_json()}
            # A card turned face down again is never named, not even in a field of its own.
            for event in undo:
                if event["type"] == "turn_down":
                    assert set(event) == {"type", "pile", "index"}
            _check_step(state, undo, previous)
            state = previous
            continue
        if not legal:
            break
        move = pick(state, legal, rng, greedy)
        after, events = state.apply(move, auto_finish=rng.random() < 0.8)
        played = [e.to_json() for e in events]
        assert played[0]["move"] == move.to_json()
        _check_step(state, played, after)
        history.append((state, move))
        state = after


@given(
    variant=st.sampled_from(ALL),
    number=DEAL_NUMBERS,
    seed=st.integers(0, 2**32 - 1),
    greedy=st.booleans(),
    skip=st.integers(0, 300),
)
def test_events_replay_to_the_next_view(
    variant: str, number: int, seed: int, greedy: bool, skip: int
) -> None:
    rng = random.Random(seed)
    state = fast_forward(deal(VARIANTS[variant], number), rng, greedy, skip)
    _walk(state, rng, 60, greedy)


@given(data=st.data(), variant=st.sampled_from(ALL), seed=st.integers(0, 2**32 - 1))
def test_endgame_events_replay_auto_finish_included(
    data: st.DataObject, variant: str, seed: int
) -> None:
    state = data.draw(near_won(variant))
    _walk(state, random.Random(seed), 80, greedy=True)


def test_draw_names_the_cards_it_turns_up() -> None:
    state = position("canfield", stock="2C 3C 4C 5C", t=["KD"], reserve="AS 9H", base=7)
    after, events = state.apply(Move.parse("draw"))
    assert events[0].to_json() == {
        "type": "move",
        "move": {"action": "draw"},
        "from": "stock",
        "to": "waste",
        "cards": ["5C", "4C", "3C"],  # the top of the stock first: 3C is the waste's top
        "count": 3,
    }
    # Undo sends them back face down, unnamed.
    assert [e.to_json() for e in state.undo_events(Move.parse("draw"), after)][1:] == [
        {"type": "move_back", "from": "waste", "to": "stock", "cards": None, "count": 3}
    ]


def test_redeal_names_no_card_and_its_undo_names_the_waste() -> None:
    state = position("rows-of-four", waste="2C 3C", t=["KD"], redeals=2)
    after, events = state.apply(Move.parse("redeal"))
    assert events[0].to_json()["cards"] is None and events[0].to_json()["count"] == 2
    back = [e.to_json() for e in state.undo_events(Move.parse("redeal"), after)]
    assert back[1] == {
        "type": "move_back",
        "from": "stock",
        "to": "waste",
        "cards": ["2C", "3C"],
        "count": 2,
    }


def test_a_move_names_its_cards_and_undo_turns_the_uncovered_card_down() -> None:
    state = position("rank-and-file", t=["4C 5D | 9S 8H", "TD"])
    move = Move.parse("t0>t1x2")
    after, events = state.apply(move)
    assert [e.to_json() for e in events] == [
        {
            "type": "move",
            "move": move.to_json(),
            "from": "tableau-0",
            "to": "tableau-1",
            "cards": ["9S", "8H"],
            "count": 2,
        },
        {"type": "turn_up", "pile": "tableau-0", "index": 1, "card": "5D"},
    ]
    assert [e.to_json() for e in state.undo_events(move, after)] == [
        {"type": "undo", "move": move.to_json()},
        {"type": "turn_down", "pile": "tableau-0", "index": 1},
        {
            "type": "move_back",
            "from": "tableau-1",
            "to": "tableau-0",
            "cards": ["9S", "8H"],
            "count": 2,
        },
    ]


def test_reserve_fill_and_its_undo() -> None:
    state = position("rainbow", t=["5D", "3S", "4S", "3C"], reserve="2D 2C", base=1)
    move = Move.parse("t1>t2")
    after, events = state.apply(move)
    assert [e.to_json() for e in events][1:] == [
        {"type": "reserve_fill", "pile": "tableau-1", "index": 0, "card": "2C", "from": "reserve"},
        {"type": "turn_up", "pile": "reserve", "index": 0, "card": "2D"},
    ]
    assert [e.to_json() for e in state.undo_events(move, after)][1:] == [
        {"type": "turn_down", "pile": "reserve", "index": 0},
        {"type": "move_back", "from": "tableau-1", "to": "reserve", "cards": ["2C"], "count": 1},
        {"type": "move_back", "from": "tableau-2", "to": "tableau-1", "cards": ["3S"], "count": 1},
    ]
