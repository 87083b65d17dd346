"""Deals: golden layouts PySolFC itself dealt (``data/pysolfc-deals.json`` beside this file,
see ``data/README.md``), the deal shape and dealing order of every variant, and deal-number
validation (docs/rules.md, "Deals")."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from app.engine import (
    CODE,
    DRAW_MOVE,
    MAX_DEAL,
    VARIANTS,
    InvalidDeal,
    get_variant,
    shuffled_deck,
)
from app.engine.deal import deal

from .conftest import ALL, SPECS, all_cards, header, piles

GOLDEN_PATH = Path(__file__).resolve().parent / "data" / "pysolfc-deals.json"
GOLDEN = json.loads(GOLDEN_PATH.read_text())["games"]
GOLDEN_CASES = [(game, number) for game, deals in GOLDEN.items() for number in deals]
NUMBERS = [1, 2, 617, 11982, 31999, 32000, 32001, 123456, 10**9, MAX_DEAL]
SUITS = "CSHD"
RANKS = "A23456789TJQK"
FULL_DECK = [r + s for s in SUITS for r in RANKS]


def _public(state, pile_id):
    return next(p for p in state.public()["piles"] if p["id"] == pile_id)["cards"]


def _codes(cards):
    return [c["card"] for c in cards]


# ------------------------------------------------------------------------ golden
def test_golden_file_covers_both_generators() -> None:
    assert {"rank-and-file", "rows-of-four", "rainbow"} <= set(GOLDEN)
    for deals in GOLDEN.values():
        assert {"31999", "32000"} <= set(deals)


@pytest.mark.parametrize(("game", "number"), GOLDEN_CASES)
def test_golden_pysolfc_layout(game: str, number: str) -> None:
    want = GOLDEN[game][number]
    state = deal(get_variant(game), int(number))
    got = piles(state)
    # Tableau: same cards, bottom first, the same ones face up.
    assert len(want["tableau"]) == SPECS[game].piles
    for i, pile in enumerate(want["tableau"]):
        down = [c["card"] for c in pile if not c["up"]]
        up = [c["card"] for c in pile if c["up"]]
        assert [c["up"] for c in pile] == [False] * len(down) + [True] * len(up)
        assert got[f"t{i}"] == (" ".join(down) + " | " if down else "") + " ".join(up)
        shown = _public(state, f"tableau-{i}")
        assert [c.get("face_up") for c in shown] == [c["up"] for c in pile]
    # Foundations (Rainbow: the base card on its suit's foundation, suit order C S H D).
    assert len(want["foundations"]) == 4 * SPECS[game].decks
    for i, pile in enumerate(want["foundations"]):
        assert got[f"f{i}"] == " ".join(_codes(pile))
    # Reserve: face down but for its top card.
    if SPECS[game].reserve:
        assert got["reserve"] == " ".join(_codes(want["reserve"]))
        shown = _public(state, "reserve")
        assert [c.get("face_up") for c in shown] == [c["up"] for c in want["reserve"]]
    else:
        assert want["reserve"] == []
    # PySolFC turned one stock card to the waste; here the stock keeps it on top.
    assert got["waste"] == ""
    assert got["stock"] == " ".join(_codes(want["stock"]) + _codes(want["waste"]))
    assert len(want["waste"]) == 1
    drawn, _ = state.apply(DRAW_MOVE, auto_finish=False)
    assert piles(drawn)["waste"] == want["waste"][0]["card"]


@pytest.mark.parametrize("decks", [1, 2])
def test_generator_switches_at_32000(decks: int) -> None:
    """Deals 31999 and 32000 come from different generators: both must be golden-exact
    (above), and neighbouring numbers differ."""
    assert shuffled_deck(decks, 31999) != shuffled_deck(decks, 32000)
    assert shuffled_deck(decks, 32000) != shuffled_deck(decks, 32001)


# ----------------------------------------------------------------------- shapes
def _deck_codes(decks: int, number: int) -> list[str]:
    return [CODE[c] for c in shuffled_deck(decks, number)]


@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize("number", NUMBERS)
def test_deal_uses_every_card_once_per_deck(variant: str, number: int) -> None:
    state = deal(VARIANTS[variant], number)
    assert Counter(all_cards(state)) == Counter(FULL_DECK * SPECS[variant].decks)
    assert sorted(_deck_codes(SPECS[variant].decks, number)) == sorted(
        FULL_DECK * SPECS[variant].decks
    )


@pytest.mark.parametrize("variant", ["rank-and-file", "deauville", "emperor", "forty-thieves"])
@pytest.mark.parametrize("number", NUMBERS)
def test_ten_piles_of_four(variant: str, number: int) -> None:
    """Three face-down rounds then one face-up round left to right (Forty Thieves: all four
    rounds face up); the other 64 cards are the stock, the waste is empty."""
    deck = _deck_codes(2, number)
    state = deal(VARIANTS[variant], number)
    got = piles(state)
    hidden = 0 if variant == "forty-thieves" else 3
    for i in range(10):
        cards = [deck[-1 - (r * 10 + i)] for r in range(4)]
        text = " ".join(cards[hidden:])
        if hidden:
            text = " ".join(cards[:hidden]) + " | " + text
        assert got[f"t{i}"] == text
    assert got["stock"] == " ".join(deck[:64])
    assert got["waste"] == ""
    assert all(got[f"f{i}"] == "" for i in range(8))


@pytest.mark.parametrize("number", NUMBERS)
def test_number_ten_two_down_two_up(number: int) -> None:
    deck = _deck_codes(2, number)
    got = piles(deal(VARIANTS["number-ten"], number))
    for i in range(10):
        cards = [deck[-1 - (r * 10 + i)] for r in range(4)]
        assert got[f"t{i}"] == f"{cards[0]} {cards[1]} | {cards[2]} {cards[3]}"
    assert got["stock"] == " ".join(deck[:64])


@pytest.mark.parametrize("variant", ["rows-of-four", "diplomat"])
@pytest.mark.parametrize("number", NUMBERS)
def test_eight_piles_of_four_face_up(variant: str, number: int) -> None:
    deck = _deck_codes(2, number)
    state = deal(VARIANTS[variant], number)
    got = piles(state)
    for i in range(8):
        assert got[f"t{i}"] == " ".join(deck[-1 - (r * 8 + i)] for r in range(4))
    assert "t8" not in got
    assert got["stock"] == " ".join(deck[:72])
    assert got["waste"] == ""


@pytest.mark.parametrize("variant", ["rainbow", "canfield"])
@pytest.mark.parametrize("number", NUMBERS)
def test_reserve_game_deal(variant: str, number: int) -> None:
    """Base card to its suit's foundation, 13-card reserve (top face up), one card to each
    of 4 piles dealt right to left, 34 stock cards."""
    deck = _deck_codes(1, number)
    state = deal(VARIANTS[variant], number)
    got = piles(state)
    base = deck[-1]
    for i, suit in enumerate(SUITS):
        assert got[f"f{i}"] == (base if base[1] == suit else "")
    assert header(state)["base"] == str(RANKS.index(base[0]) + 1)
    reserve = deck[-2:-15:-1]
    assert got["reserve"] == " ".join(reserve)
    shown = _public(state, "reserve")
    assert shown[:12] == [{"face_up": False}] * 12
    assert shown[12]["code"] == reserve[-1]
    assert [got[f"t{i}"] for i in (3, 2, 1, 0)] == deck[-15:-19:-1]
    assert got["stock"] == " ".join(deck[:34])
    assert got["waste"] == ""


@pytest.mark.parametrize("variant", ALL)
def test_stock_size(variant: str) -> None:
    expected = {2: {10: 64, 8: 72}, 1: {4: 34}}[SPECS[variant].decks][SPECS[variant].piles]
    assert len(piles(deal(VARIANTS[variant], 5))["stock"].split()) == expected


@pytest.mark.parametrize("variant", ALL)
def test_same_number_same_deal(variant: str) -> None:
    assert deal(VARIANTS[variant], 4242) == deal(VARIANTS[variant], 4242)
    assert deal(VARIANTS[variant], 4242) != deal(VARIANTS[variant], 4243)


def test_aliases() -> None:
    assert get_variant("dress-parade") == VARIANTS["rank-and-file"]
    assert get_variant("Dress Parade") == VARIANTS["rank-and-file"]
    assert get_variant("rainbow-canfield") == VARIANTS["rainbow"]
    assert get_variant("RANK_AND_FILE") == VARIANTS["rank-and-file"]


@pytest.mark.parametrize("number", [0, -1, MAX_DEAL + 1, 10**30, True, 1.0, "7", None])
def test_invalid_deal_numbers(number: object) -> None:
    with pytest.raises(InvalidDeal) as info:
        deal(VARIANTS["rank-and-file"], number)  # type: ignore[arg-type]
    assert info.value.code == "invalid_deal"
    assert "deal number" in info.value.message


def test_largest_deal_number_deals() -> None:
    assert MAX_DEAL >= 10**19
    state = deal(VARIANTS["rainbow"], MAX_DEAL)
    assert len(all_cards(state)) == 52
