"""Rainbow's (and Canfield's) reserve: top card playable, nothing put on it, an emptied
tableau pile filled at once from it, and once it is empty an empty pile takes anything."""

from __future__ import annotations

import pytest

from app.engine import VARIANTS

from .conftest import (
    ACE_BASED,
    RESERVE_GAMES,
    SPECS,
    assert_illegal,
    assert_legal,
    hidden_cards,
    piles,
    position,
)

RESERVE = "2D 9H QC"  # top last


def _public_pile(state, pile_id):
    return next(p for p in state.public()["piles"] if p["id"] == pile_id)["cards"]


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_reserve_fills_a_pile_emptied_by_a_tableau_move(variant: str) -> None:
    state = position(variant, t=["9S", "8H", "KD", "KD"], reserve=RESERVE, base=1)
    new, events = assert_legal(state, "t1>t0")
    assert piles(new)["t1"] == "QC"
    assert piles(new)["reserve"] == "2D 9H"
    assert [(e.type, str(e.pile), e.to_json().get("card")) for e in events[1:]] == [
        ("reserve_fill", "tableau-1", "QC"),
        ("turn_up", "reserve", "9H"),
    ]
    # The next reserve card is face up; the one under it stays hidden.
    cards = _public_pile(new, "reserve")
    assert cards[0] == {"face_up": False}
    assert cards[1]["code"] == "9H" and cards[1]["face_up"] is True


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_reserve_fills_a_pile_emptied_to_a_foundation(variant: str) -> None:
    state = position(variant, t=["9S", "JH", "KD", "KD"], reserve=RESERVE, base=11)
    new, events = assert_legal(state, "t1>f2")
    assert piles(new)["t1"] == "QC"
    assert piles(new)["f2"] == "JH"
    assert [e.type for e in events] == ["move", "reserve_fill", "turn_up"]


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_reserve_fills_a_pile_emptied_by_a_run_move(variant: str) -> None:
    state = position(variant, t=["TH", "9S 8H", "KD", "KD"], reserve=RESERVE, base=1)
    new, events = assert_legal(state, "t1>t0x2")
    assert piles(new)["t0"] == "TH 9S 8H"
    assert piles(new)["t1"] == "QC"
    assert [e.type for e in events] == ["move", "reserve_fill", "turn_up"]


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_last_reserve_card_fills_then_piles_stay_empty(variant: str) -> None:
    state = position(variant, t=["9S", "8H", "KD", "TD 7C"], reserve="QC", base=1)
    new, events = assert_legal(state, "t1>t0")
    assert piles(new)["t1"] == "QC" and piles(new)["reserve"] == ""
    assert [e.type for e in events] == ["move", "reserve_fill"]
    # Reserve empty: the next emptied pile stays empty and takes any card or run.
    new, events = assert_legal(new, "t1>t2")
    assert piles(new)["t1"] == "" and piles(new)["t2"] == "KD QC"
    assert [e.type for e in events] == ["move"]
    expected = {
        "t3>t1": "7C",
        "t0>t1": "8H",
        "t0>t1x2": "9S 8H",
        "t2>t1": "QC",
        "t2>t1x2": "KD QC",
    }
    for move, pile in expected.items():
        after, _ = assert_legal(new, move)
        assert piles(after)["t1"] == pile


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_empty_pile_with_reserve_left_takes_nothing(variant: str) -> None:
    """An empty pile is filled only from the reserve while the reserve has cards."""
    state = position(variant, t=["9S", "8H", "KD", ""], reserve=RESERVE, waste="5C", base=1)
    err = assert_illegal(state, "t1>t3", "reserve_fills_empty")
    assert "reserve" in err.message
    assert_illegal(state, "w>t3", "reserve_fills_empty")


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_reserve_top_plays_to_tableau_and_foundation(variant: str) -> None:
    state = position(variant, t=["KD", "KD", "KD", "KD"], reserve="9H QC", base=12)
    new, events = assert_legal(state, "r>t0")
    assert piles(new)["t0"] == "KD QC" and piles(new)["reserve"] == "9H"
    assert [(e.type, str(e.pile)) for e in events[1:]] == [("turn_up", "reserve")]
    new, events = assert_legal(state, "r>f1")
    assert piles(new)["f1"] == "QC"
    # Only the top: a count of two is refused, the card under it never plays.
    assert_illegal(state, "r>t0x2", "single_cards_only")
    assert all(
        m.src is None or m.src.kind != "reserve" or m.count == 1 for m in state.legal_moves()
    )


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_reserve_top_must_build(variant: str) -> None:
    state = position(variant, t=["KD", "KD", "KD", "KD"], reserve="9H 5C", base=12)
    assert_illegal(state, "r>t0", "not_one_rank_lower")
    assert_illegal(state, "r>f0", "foundation_needs_base")


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_nothing_is_put_on_the_reserve(variant: str) -> None:
    state = position(
        variant,
        t=["9S", "JH", "KD", "KD"],
        f=["QH"],
        waste="TC",
        reserve="2D KH",
        base=12,
        foundation_return=True,
    )
    assert_illegal(state, "t1>r", "not_a_target")
    assert_illegal(state, "t0>r", "not_a_target")
    assert_illegal(state, "w>r", "not_a_target")
    assert_illegal(state, "f0>r", {"not_a_target", "foundation_return_not_allowed"})
    assert not any(m.dst is not None and m.dst.kind == "reserve" for m in state.legal_moves())


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_reserve_card_identities_stay_hidden(variant: str) -> None:
    state = position(variant, t=["KD", "KD", "KD", "KD"], reserve="9H 2C 5C", base=12)
    assert hidden_cards(state) == ["9H", "2C"]
    cards = _public_pile(state, "reserve")
    assert cards[:2] == [{"face_up": False}, {"face_up": False}]
    assert cards[2]["code"] == "5C"


@pytest.mark.parametrize("variant", ACE_BASED)
def test_games_without_reserve_have_no_reserve_pile(variant: str) -> None:
    state = position(variant, t=["KD", "", "KD", "KD"])
    assert_illegal(state, "r>t1", "no_such_pile")
    assert_illegal(state, "t0>r", "no_such_pile")
    assert "reserve" not in piles(state)
    assert not SPECS[variant].reserve
    assert "reserve" not in {p["id"] for p in state.public()["piles"]}
    assert VARIANTS[variant].name == variant
