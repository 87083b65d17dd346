"""Stock and waste rules: draw one card (three in Canfield), one pass or redeals, the next
pass in the same order as the last, no redeal left."""

from __future__ import annotations

import pytest

from app.engine import DRAW_MOVE, REDEAL_MOVE

from .conftest import ALL, SPECS, assert_illegal, assert_legal, header, piles, position

STOCK = "AC 2C 3C 4C 5C 6C 7C"  # top last: 7C comes first


def _stuck_free(variant: str, **kw: object):
    """A position where nothing in the stock can be played, so only the stock moves."""
    return position(variant, t=["KH", "KH", "KH", "KH"], **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", ALL)
def test_draw_turns_the_top_cards_to_the_waste(variant: str) -> None:
    state = _stuck_free(variant, stock=STOCK, waste="9D")
    new, events = assert_legal(state, "draw")
    n = SPECS[variant].draw
    drawn = STOCK.split()[::-1][:n]
    assert piles(new)["waste"] == " ".join(["9D", *drawn])
    assert piles(new)["stock"] == " ".join(STOCK.split()[:-n])
    assert [e.type for e in events] == ["move"]


@pytest.mark.parametrize("variant", ALL)
def test_draw_with_fewer_cards_left(variant: str) -> None:
    state = _stuck_free(variant, stock="2C 3C")
    new, _ = assert_legal(state, "draw")
    if SPECS[variant].draw == 1:
        assert (piles(new)["stock"], piles(new)["waste"]) == ("2C", "3C")
    else:
        assert (piles(new)["stock"], piles(new)["waste"]) == ("", "3C 2C")


@pytest.mark.parametrize("variant", ALL)
def test_draw_from_empty_stock_is_refused(variant: str) -> None:
    state = _stuck_free(variant, waste="5C")
    err = assert_illegal(state, "draw", "stock_empty")
    assert "empty" in err.message


@pytest.mark.parametrize("variant", ALL)
def test_redeal_needs_an_empty_stock_and_a_waste(variant: str) -> None:
    state = _stuck_free(variant, stock="5C", waste="6C")
    assert_illegal(state, "redeal", "stock_not_empty")
    state = _stuck_free(variant)
    assert_illegal(state, "redeal", {"waste_empty", "no_redeals_left"})


@pytest.mark.parametrize("variant", [v for v in ALL if SPECS[v].redeals == 0])
def test_one_pass_no_redeal(variant: str) -> None:
    state = _stuck_free(variant, stock="5C")
    state, _ = assert_legal(state, "draw")
    assert piles(state)["stock"] == ""
    assert REDEAL_MOVE not in state.legal_moves()
    err = assert_illegal(state, "redeal", "no_redeals_left")
    assert "redeal" in err.message
    assert_illegal(state, "draw", "stock_empty")


def _pass(state):
    """Draw the whole stock; return the state and the waste tops in the order they came."""
    seen = []
    while DRAW_MOVE in state.legal_moves():
        state, _ = assert_legal(state, "draw")
        seen.append(piles(state)["waste"].split()[-1])
    return state, seen


@pytest.mark.parametrize("variant", ["rows-of-four"])
def test_two_redeals_in_the_same_order(variant: str) -> None:
    state = _stuck_free(variant, stock=STOCK)
    assert header(state)["redeals"] == "2"
    state, first = _pass(state)
    assert first == STOCK.split()[::-1]
    state, _ = assert_legal(state, "redeal")
    assert header(state)["redeals"] == "1"
    assert piles(state)["waste"] == ""
    state, second = _pass(state)
    assert second == first
    state, _ = assert_legal(state, "redeal")
    assert header(state)["redeals"] == "0"
    state, third = _pass(state)
    assert third == first
    err = assert_illegal(state, "redeal", "no_redeals_left")
    assert "no redeals left" in err.message


def test_redeal_keeps_order_after_cards_were_played_from_the_waste() -> None:
    state = position("rows-of-four", t=["KH", "KH", "KH", "KH", "KH", "KH", "KH", ""], stock=STOCK)
    state, _ = _pass(state)  # waste: 7C 6C ... AC (top)
    state, _ = assert_legal(state, "w>f0")  # AC up
    state, _ = assert_legal(state, "w>f0")  # 2C up
    state, _ = assert_legal(state, "redeal")
    _, again = _pass(state)
    assert again == ["7C", "6C", "5C", "4C", "3C"]


def test_rows_of_four_empty_pile_then_redeal() -> None:
    """The redeal itself is a move only while redeals remain."""
    state = position("rows-of-four", t=["KH"] * 8, waste="3C", redeals=0)
    assert_illegal(state, "redeal", "no_redeals_left")
    state = position("rows-of-four", t=["KH"] * 8, waste="3C", redeals=1)
    new, _ = assert_legal(state, "redeal")
    assert piles(new)["stock"] == "3C"


@pytest.mark.parametrize("variant", ["canfield"])
def test_canfield_unlimited_redeals_draw_three(variant: str) -> None:
    state = _stuck_free(variant, stock=STOCK)
    assert header(state)["redeals"] == "inf"
    state, first = _pass(state)
    assert first == ["5C", "2C", "AC"]
    waste = piles(state)["waste"]
    for _ in range(5):
        state, _ = assert_legal(state, "redeal")
        assert header(state)["redeals"] == "inf"
        state, again = _pass(state)
        assert again == first
        assert piles(state)["waste"] == waste


@pytest.mark.parametrize("variant", ALL)
def test_redeal_counter_matches_the_rules(variant: str) -> None:
    from app.engine import VARIANTS, deal

    expected = SPECS[variant].redeals
    assert header(deal(VARIANTS[variant], 3))["redeals"] == (
        "inf" if expected is None else str(expected)
    )
