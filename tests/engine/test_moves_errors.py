"""Moves' text and JSON forms, and the engine's exact errors: every IllegalMove code with a
message saying why, InvalidMove for malformed moves, InvalidDeal, UnknownVariant,
CorruptState."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.engine import (
    DRAW_MOVE,
    REDEAL_MOVE,
    VARIANTS,
    CorruptState,
    EngineError,
    IllegalMove,
    InvalidDeal,
    InvalidMove,
    Move,
    Pile,
    Rules,
    State,
    UnknownVariant,
    get_variant,
)
from app.engine.deal import deal

from .conftest import assert_illegal, position

# ------------------------------------------------------------------------- text form
TEXT_FORMS = [
    ("t2>t5", ("tableau", 2), ("tableau", 5), 1),
    ("t2>t5x3", ("tableau", 2), ("tableau", 5), 3),
    ("t9>t0x12", ("tableau", 9), ("tableau", 0), 12),
    ("w>f0", ("waste", 0), ("foundation", 0), 1),
    ("r>t1", ("reserve", 0), ("tableau", 1), 1),
    ("f3>t2", ("foundation", 3), ("tableau", 2), 1),
    ("t0>f7", ("tableau", 0), ("foundation", 7), 1),
]


@pytest.mark.parametrize(("text", "src", "dst", "count"), TEXT_FORMS)
def test_move_text_form(text: str, src: tuple, dst: tuple, count: int) -> None:
    move = Move.parse(text)
    assert move.action == "move" and move.src is not None and move.dst is not None
    assert (move.src.kind, move.src.index) == src
    assert (move.dst.kind, move.dst.index) == dst
    assert move.count == count
    assert str(move) == text
    assert Move.parse(str(move)) == move


@pytest.mark.parametrize(("text", "src", "dst", "count"), TEXT_FORMS)
def test_move_json_form(text: str, src: tuple, dst: tuple, count: int) -> None:
    move = Move.parse(text)
    data = move.to_json()
    assert data == {"action": "move", "from": str(move.src), "to": str(move.dst), "count": count}
    assert Move.from_json(data) == move
    assert Move.between(data["from"], data["to"], count) == move


def test_pile_ids() -> None:
    assert str(Pile.parse("tableau-3")) == "tableau-3"
    assert Pile.parse("foundation-7") == Pile("foundation", 7)
    assert str(Pile.parse("stock")) == "stock"
    assert Move.parse("w>f0").to_json()["from"] == "waste"
    assert Move.parse("r>t1").to_json()["from"] == "reserve"


def test_draw_and_redeal_forms() -> None:
    assert Move.parse("draw") == DRAW_MOVE and str(DRAW_MOVE) == "draw"
    assert Move.parse("redeal") == REDEAL_MOVE and str(REDEAL_MOVE) == "redeal"
    assert DRAW_MOVE.to_json() == {"action": "draw"}
    assert Move.from_json({"action": "redeal"}) == REDEAL_MOVE
    assert Move.from_json(
        {"action": "move", "from": "waste", "to": "tableau-0", "count": None}
    ) == (Move.parse("w>t0"))


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "bad_move"),
        ("t2", "bad_move"),
        ("t2>", "bad_move"),
        (">t5", "bad_move"),
        ("t2>t5x", "bad_move"),
        ("t2->t5", "bad_move"),
        ("q1>t2", "bad_move"),
        ("t2>t5x1000", "bad_move"),
        ("t123>t5", "bad_move"),
        ("draw ", "bad_move"),
        ("DRAW", "bad_move"),
        ("t2>t5x0", "bad_count"),
        ("t2>t5\n", "bad_move"),  # matched whole: `$` would take a trailing newline
        ("t\u0662>t5", "bad_move"),  # ASCII digits only: `\d` would take other scripts'
        (None, "bad_move"),
        (25, "bad_move"),
    ],
)
def test_malformed_move_text(text: Any, code: str) -> None:
    with pytest.raises(InvalidMove) as info:
        Move.parse(text)
    assert info.value.code == code
    assert info.value.message


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ("draw", "bad_move"),
        ([], "bad_move"),
        (None, "bad_move"),
        ({}, "bad_action"),
        ({"action": "jump"}, "bad_action"),
        ({"action": "move", "from": "tableau-1"}, "bad_move"),
        ({"action": "move", "to": "tableau-1"}, "bad_move"),
        ({"action": "move", "from": "tableau-1", "to": "pile-2"}, "bad_pile"),
        ({"action": "move", "from": "tableau-x", "to": "tableau-2"}, "bad_pile"),
        ({"action": "move", "from": "t1", "to": "tableau-2"}, "bad_pile"),
        ({"action": "move", "from": 1, "to": "tableau-2"}, "bad_pile"),
        ({"action": "move", "from": "tableau-4\n", "to": "tableau-2"}, "bad_pile"),
        ({"action": "move", "from": "tableau-\u0664", "to": "tableau-2"}, "bad_pile"),
        ({"action": "move", "from": "stock\n", "to": "tableau-2"}, "bad_pile"),
        ({"action": "move", "from": "tableau-1", "to": "foundation-\uff11"}, "bad_pile"),
        ({"action": "move", "from": "tableau-1", "to": "tableau-2", "count": "3"}, "bad_count"),
        ({"action": "move", "from": "tableau-1", "to": "tableau-2", "count": True}, "bad_count"),
        ({"action": "move", "from": "tableau-1", "to": "tableau-2", "count": 0}, "bad_count"),
        ({"action": "move", "from": "tableau-1", "to": "tableau-2", "count": -2}, "bad_count"),
        ({"action": "move", "from": "tableau-1", "to": "tableau-2", "count": 105}, "bad_count"),
        ({"action": "move", "from": "tableau-1", "to": "tableau-2", "count": 2.0}, "bad_count"),
    ],
)
def test_malformed_move_json(data: Any, code: str) -> None:
    with pytest.raises(InvalidMove) as info:
        Move.from_json(data)
    assert info.value.code == code
    assert info.value.message


# ------------------------------------------------------------------------ the errors
# (variant, position, move, code, a word of the message that says why)
ILLEGAL = [
    ("rank-and-file", {"t": ["9S", "8C"]}, "t1>t0", "wrong_colour", "colour"),
    ("rank-and-file", {"t": ["9S", "7H"]}, "t1>t0", "not_one_rank_lower", "rank"),
    ("rank-and-file", {"t": ["AS", "KH"]}, "t1>t0", "nothing_on_ace", "Ace"),
    ("rank-and-file", {"t": ["TH", "9S 8H 8C"]}, "t1>t0x3", "run_not_in_sequence", "run"),
    ("deauville", {"t": ["TH", "9S 8H"]}, "t1>t0x2", "single_cards_only", "one card"),
    (
        "rank-and-file",
        {"t": ["4H"], "f": ["AS 2S 3S"]},
        "f0>t0",
        "foundation_return_not_allowed",
        "return",
    ),
    (
        "emperor",
        {"t": ["4H"], "f": ["AS 2S 3S", "AS 2S"]},
        "f0>f1",
        "foundation_return_not_allowed",
        "tableau",
    ),
    ("rank-and-file", {"waste": "5C"}, "redeal", "no_redeals_left", "redeal"),
    ("rows-of-four", {"waste": "5C", "redeals": 0}, "redeal", "no_redeals_left", "redeal"),
    ("rank-and-file", {"waste": "5C"}, "draw", "stock_empty", "stock"),
    ("rank-and-file", {"t": ["TH", "4D | 9S"]}, "t1>t0x2", "card_face_down", "face-down"),
    ("rank-and-file", {"t": ["5H"]}, "t0>f0", "foundation_needs_base", "Ace"),
    ("rainbow", {"t": ["5H"], "base": 11}, "t0>f0", "foundation_needs_base", "Jack"),
    ("forty-thieves", {"t": ["9S", "8H"]}, "t1>t0", "wrong_suit", "suit"),
    ("rank-and-file", {"t": ["3H"], "f": ["AS 2S"]}, "t0>f0", "wrong_suit", "suit"),
    ("rank-and-file", {"t": ["4S"], "f": ["AS 2S"]}, "t0>f0", "not_one_rank_higher", "rank"),
    (
        "rainbow",
        {"t": ["5H", "KD", "KD", "KD"], "reserve": "3C"},
        "t0>f0",
        "foundation_needs_base",
        "Ace",
    ),
    (
        "rainbow",
        {"t": ["9S", "8H", "KD", ""], "reserve": "3C", "base": 1},
        "t1>t3",
        "reserve_fills_empty",
        "reserve",
    ),
    (
        "rainbow",
        {"t": ["9S", "8H", "KD", "KD"], "reserve": "3C", "base": 1},
        "t1>r",
        "not_a_target",
        "reserve",
    ),
    ("rank-and-file", {"t": ["9S"]}, "t0>w", "not_a_target", "waste"),
    ("rank-and-file", {"t": ["9S"]}, "t0>t0", "same_pile", "different"),
    ("rank-and-file", {"t": ["9S"]}, "t1>t0", "empty_pile", "empty"),
    ("rank-and-file", {"t": ["9S"]}, "t10>t0", "no_such_pile", "tableau-10"),
    ("rank-and-file", {"t": ["9S"]}, "r>t0", "no_such_pile", "reserve"),
    ("rank-and-file", {"stock": "5C"}, "redeal", "stock_not_empty", "stock"),
    ("rows-of-four", {}, "redeal", "waste_empty", "waste"),
    ("rank-and-file", {"stock": "5C", "t": ["", "6D"]}, "s>t0", "stock_not_playable", "draw"),
    (
        "rank-and-file",
        {"t": ["9S", "3S 2H"], "f": ["AH"]},
        "t1>f0x2",
        "one_card_to_foundation",
        "one card",
    ),
    ("rank-and-file", {"t": ["9S"]}, "t0>t1x2", "bad_count", "1 card"),
    ("rank-and-file", {"t": ["9S 8H"], "f": ["AS"] * 8}, "t0>t1x5", "bad_count", "card"),
]


@pytest.mark.parametrize(("variant", "kw", "move", "code", "word"), ILLEGAL)
def test_illegal_move_code_and_message(
    variant: str, kw: dict[str, Any], move: str, code: str, word: str
) -> None:
    err = assert_illegal(position(variant, **kw), move, code)
    assert word in err.message, err.message
    assert str(err) == err.message
    assert re.fullmatch(r"[a-z]+(_[a-z]+)*", err.code)
    assert code in repr(err)


def test_game_over() -> None:
    f = [" ".join(r + s for r in "A23456789TJQK") for s in "CSHD"]
    state = position("rainbow", f=f, base=1)
    assert state.is_won
    err = assert_illegal(state, "draw", "game_over")
    assert "won" in err.message


def test_error_classes() -> None:
    for cls in (IllegalMove, InvalidMove, InvalidDeal, UnknownVariant, CorruptState):
        assert issubclass(cls, EngineError)
    assert not issubclass(IllegalMove, InvalidMove) and not issubclass(InvalidMove, IllegalMove)


@pytest.mark.parametrize("name", ["klondike", "", "rank and", "rainbow-"])
def test_unknown_variant(name: str) -> None:
    with pytest.raises(UnknownVariant) as info:
        get_variant(name)
    assert info.value.code == "unknown_variant"
    assert "rank-and-file" in info.value.message  # says which games exist
    with pytest.raises(UnknownVariant):
        State.from_text(f"{name.replace(' ', '-') or 'x'} redeals=0 base=-\nstock:\n")


def test_invalid_deal_is_its_own_error() -> None:
    with pytest.raises(InvalidDeal) as info:
        deal(VARIANTS["rainbow"], 0)
    assert info.value.code == "invalid_deal"


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00", b"garbage", b"\x01\x05abc", None],
)
def test_corrupt_bytes(data: Any) -> None:
    with pytest.raises((CorruptState, TypeError)):
        State.from_bytes(data)


def test_truncated_and_padded_bytes() -> None:
    good = deal(VARIANTS["rank-and-file"], 9).to_bytes()
    for cut in (1, 5, len(good) // 2, len(good) - 1):
        with pytest.raises(CorruptState) as info:
            State.from_bytes(good[:cut])
        assert info.value.code == "corrupt_state"
    with pytest.raises(CorruptState):
        State.from_bytes(good + b"\x00")


def test_bad_card_in_text_form() -> None:
    with pytest.raises(CorruptState):
        State.from_text("rank-and-file redeals=0 base=-\nstock: 1X\n")


def test_house_rules_from_json() -> None:
    assert Rules.from_json({"foundation_return": True}) == Rules(foundation_return=True)
    assert Rules.from_json(None) == Rules()
    with pytest.raises(InvalidMove) as info:
        Rules.from_json({"bogus": 1})
    assert info.value.code == "unknown_rule"
    with pytest.raises(InvalidMove) as info:
        Rules.from_json({"foundation_return": "yes"})
    assert info.value.code == "bad_rule"


def test_a_ruled_variant_is_one_value_with_its_tables_kept() -> None:
    # Every load of a game with a house rule asks for its variant: building a new value
    # each time rebuilt the lookup tables (5-8 ms a load against 0.1-0.4 ms).
    variant = get_variant("rank-and-file")
    flipped = Rules(foundation_return=not variant.foundation_return)
    ruled = variant.with_rules(flipped)
    assert ruled.foundation_return is not variant.foundation_return
    assert variant.with_rules(flipped) is ruled
    assert variant.with_rules(Rules()) is variant
    data = deal(variant, 7, flipped).to_bytes()
    first, second = State.from_bytes(data), State.from_bytes(data)
    assert first.variant is second.variant is ruled
    assert first.legal_moves() == second.legal_moves()
