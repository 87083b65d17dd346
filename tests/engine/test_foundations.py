"""Foundation rules of docs/rules.md: up in suit, two per suit and any Ace (two-deck games),
base rank and King-to-Ace wrap (Rainbow, Canfield), 13 cards, and foundation return."""

from __future__ import annotations

import pytest

from app.engine import Rules, get_variant
from app.engine.deal import deal

from .conftest import (
    ACE_BASED,
    ALL,
    RESERVE_GAMES,
    RETURN_ALLOWED,
    RETURN_FORBIDDEN,
    SPECS,
    assert_illegal,
    assert_legal,
    header,
    piles,
    position,
)

SPADES = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"


def _base(variant: str) -> int | None:
    """Hand-built positions of the reserve games get base rank Ace unless a test says not."""
    return 1 if SPECS[variant].reserve else None


# ------------------------------------------------------------- building up in suit
@pytest.mark.parametrize("variant", ACE_BASED)
@pytest.mark.parametrize("ace", ["AC", "AS", "AH", "AD"])
def test_any_empty_foundation_takes_any_ace(variant: str, ace: str) -> None:
    n = 4 * SPECS[variant].decks
    state = position(variant, t=["KC " + ace, "KC", "KC", "KC"], f=["AS 2S"] + [""] * (n - 1))
    for i in range(1, n):
        new, _ = assert_legal(state, f"t0>f{i}")
        assert piles(new)[f"f{i}"] == ace
    assert_illegal(state, "t0>f0", {"wrong_suit", "not_one_rank_higher"})


@pytest.mark.parametrize("variant", ACE_BASED)
@pytest.mark.parametrize("card", ["2S", "KH", "5D"])
def test_empty_foundation_refuses_non_ace(variant: str, card: str) -> None:
    state = position(variant, t=["KC " + card], waste=card)
    err = assert_illegal(state, "t0>f0", "foundation_needs_base")
    assert "Ace" in err.message
    assert_illegal(state, "w>f3", "foundation_needs_base")


@pytest.mark.parametrize("variant", ALL)
def test_builds_up_in_suit(variant: str) -> None:
    state = position(
        variant,
        t=["KC 3S", "KC 3H", "KC 4S", "KC 2S"],
        waste="3C",
        f=["AS 2S"],
        base=_base(variant),
    )
    new, _ = assert_legal(state, "t0>f0")
    assert piles(new)["f0"] == "AS 2S 3S"
    err = assert_illegal(state, "t1>f0", "wrong_suit")
    assert "suit" in err.message
    assert_illegal(state, "w>f0", "wrong_suit")
    assert_illegal(state, "t2>f0", "not_one_rank_higher")
    assert_illegal(state, "t3>f0", "not_one_rank_higher")


@pytest.mark.parametrize("variant", ACE_BASED)
def test_two_foundations_per_suit_build_side_by_side(variant: str) -> None:
    state = position(variant, t=["KC 2S", "KC 4S"], f=["AS", "AS 2S 3S"])
    assert_legal(state, "t0>f0")
    assert_illegal(state, "t0>f1", "not_one_rank_higher")
    assert_legal(state, "t1>f1")
    assert_illegal(state, "t1>f0", "not_one_rank_higher")


@pytest.mark.parametrize("variant", ALL)
def test_foundation_holds_13_cards(variant: str) -> None:
    """A complete foundation takes nothing more (with wrap, not even the base card again)."""
    state = position(variant, t=["KC AS", "KC KS"], f=[SPADES, ""], base=_base(variant))
    err = assert_illegal(state, "t0>f0", "foundation_full")
    assert "complete" in err.message
    assert_illegal(state, "t1>f0", "foundation_full")
    assert_legal(state, "t0>f1")


@pytest.mark.parametrize("variant", ALL)
def test_one_card_at_a_time_to_a_foundation(variant: str) -> None:
    state = position(variant, t=["KD | 3S 2H", "KD | 3H 2S"], f=["AS", "AH"], base=_base(variant))
    assert_illegal(state, "t1>f0x2", {"one_card_to_foundation", "single_cards_only"})
    assert_legal(state, "t1>f0")


@pytest.mark.parametrize("variant", ALL)
def test_only_the_top_waste_card_plays(variant: str) -> None:
    state = position(variant, t=["KC"], waste="AH 2H 7C", f=[""], base=_base(variant))
    assert_illegal(state, "w>f0", "foundation_needs_base")
    assert_illegal(state, "w>f0x2", "single_cards_only")
    assert_illegal(state, "w>t0x3", "single_cards_only")
    assert all(m.src is None or m.src.kind != "waste" or m.count == 1 for m in state.legal_moves())


# ------------------------------------------------------------ base rank and wrap
@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_base_rank_starts_every_foundation(variant: str) -> None:
    state = position(variant, t=["2C JH", "2C QH", "2C AH", "2C JS"], f=["", "", "", "JD"], base=11)
    for f in (0, 1, 2):
        assert_legal(state, f"t0>f{f}")
        assert_legal(state, f"t3>f{f}")
    err = assert_illegal(state, "t1>f0", "foundation_needs_base")
    assert "Jack" in err.message
    assert_illegal(state, "t2>f0", "foundation_needs_base")


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_foundation_wraps_king_to_ace(variant: str) -> None:
    state = position(variant, t=["5C AD", "5C 2D", "5C AH"], f=["", "", "", "JD QD KD"], base=11)
    new, _ = assert_legal(state, "t0>f3")
    assert piles(new)["f3"] == "JD QD KD AD"
    assert_illegal(state, "t1>f3", "not_one_rank_higher")
    assert_illegal(state, "t2>f3", "wrong_suit")
    assert_legal(new, "t1>f3")


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_wrapped_foundation_stops_at_13(variant: str) -> None:
    full = "5S 6S 7S 8S 9S TS JS QS KS AS 2S 3S 4S"
    state = position(variant, t=["2C 5S", "2C"], f=[full, "", "", ""], base=5)
    assert_illegal(state, "t0>f0", "foundation_full")
    state = position(variant, t=["2C 4S", "2C"], f=[full[: -len(" 4S")], "", "", ""], base=5)
    new, _ = assert_legal(state, "t0>f0")
    assert len(piles(new)["f0"].split()) == 13


@pytest.mark.parametrize("variant", ACE_BASED)
def test_ace_foundations_do_not_wrap(variant: str) -> None:
    """Nothing follows a King, and a King never starts a foundation."""
    state = position(variant, t=["2C KS", "2C AS"], f=[SPADES[:-3].strip(), ""])
    new, _ = assert_legal(state, "t0>f0")
    assert_illegal(new, "t1>f0", "foundation_full")
    assert_illegal(state, "t0>f1", "foundation_needs_base")


# ------------------------------------------------------------------ foundation return
def _return_position(variant: str, **kw: object):
    four = "4S" if SPECS[variant].build == "suit" else "4H"
    return position(
        variant,
        t=["KC " + four, "KC 5H", "KC 4D", ""],
        f=["AS 2S 3S", "AS 2S", "AC"],
        base=_base(variant),
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("variant", RETURN_FORBIDDEN)
def test_foundation_cards_never_return(variant: str) -> None:
    state = _return_position(variant)
    err = assert_illegal(state, "f0>t0", "foundation_return_not_allowed")
    assert "never return" in err.message
    assert_illegal(state, "f2>t3", "foundation_return_not_allowed")
    assert not any(m.src is not None and m.src.kind == "foundation" for m in state.legal_moves())


@pytest.mark.parametrize("variant", RETURN_FORBIDDEN)
def test_house_rule_foundation_return(variant: str) -> None:
    """``Rules(foundation_return=True)`` switches the return on for any game."""
    state = _return_position(variant)
    house = state._replace(variant=get_variant(variant).with_rules(Rules(foundation_return=True)))
    new, _ = assert_legal(house, "f0>t0")
    assert piles(new)["f0"] == "AS 2S"
    assert header(new)["foundation_return"] == "1"
    # The same through the text form's header.
    assert _return_position(variant, foundation_return=True) == house
    # And through the deal.
    dealt = deal(get_variant(variant), 7, Rules(foundation_return=True))
    assert header(dealt)["foundation_return"] == "1"
    assert header(deal(get_variant(variant), 7))["foundation_return"] == "0"
    assert get_variant(variant).with_rules(Rules()) == get_variant(variant)


@pytest.mark.parametrize("variant", RETURN_ALLOWED)
def test_foundation_top_returns_to_a_pile_that_takes_it(variant: str) -> None:
    state = _return_position(variant)
    new, events = assert_legal(state, "f0>t0")
    assert piles(new)["f0"] == "AS 2S"
    assert piles(new)["t0"].endswith(" 3S")
    assert [e.type for e in events] == ["move"]
    # A pile that does not take it.
    assert_illegal(state, "f0>t1", "not_one_rank_lower")
    assert_illegal(state, "f1>t0", "not_one_rank_lower")


@pytest.mark.parametrize("variant", RETURN_ALLOWED)
def test_only_the_foundation_top_returns(variant: str) -> None:
    state = _return_position(variant)
    assert_illegal(state, "f0>t3x2", "single_cards_only")
    assert_illegal(state, "f0>t0x3", "single_cards_only")


@pytest.mark.parametrize("variant", RETURN_ALLOWED)
def test_foundation_return_never_to_another_foundation(variant: str) -> None:
    """f1 (AS 2S) would take the 3S on top of f0, but foundation to foundation is refused."""
    state = _return_position(variant)
    err = assert_illegal(state, "f0>f1", "foundation_return_not_allowed")
    assert "tableau" in err.message
    assert_illegal(state, "f0>w", {"foundation_return_not_allowed", "not_a_target"})
    assert_illegal(state, "f0>s", {"foundation_return_not_allowed", "not_a_target"})


@pytest.mark.parametrize("variant", RETURN_ALLOWED)
def test_ace_on_foundation_returns_to_empty_pile(variant: str) -> None:
    state = _return_position(variant)
    new, _ = assert_legal(state, "f2>t3")
    assert piles(new)["t3"] == "AC"
    assert piles(new)["f2"] == ""


@pytest.mark.parametrize("variant", RETURN_ALLOWED)
def test_any_foundation_top_returns_to_empty_pile(variant: str) -> None:
    """Rows of Four: an empty pile takes any single card, from a foundation too (Rainbow:
    once the reserve is empty)."""
    state = _return_position(variant)
    new, _ = assert_legal(state, "f0>t3")
    assert piles(new)["t3"] == "3S"
    assert piles(new)["f0"] == "AS 2S"


@pytest.mark.parametrize("variant", RETURN_ALLOWED)
def test_house_rule_can_switch_return_off(variant: str) -> None:
    state = _return_position(variant)
    off = state._replace(variant=get_variant(variant).with_rules(Rules(foundation_return=False)))
    assert_illegal(off, "f0>t0", "foundation_return_not_allowed")
    assert _return_position(variant, foundation_return=False) == off


@pytest.mark.parametrize("variant", ALL)
def test_empty_foundation_is_not_a_source(variant: str) -> None:
    state = _return_position(variant, foundation_return=True)
    assert_illegal(state, "f3>t3", "empty_pile")
