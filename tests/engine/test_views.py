"""The public view (what a player may see) and the saved forms (bytes, text), on deals
and hand-built positions of every variant."""

from __future__ import annotations

import json

import pytest

from app.engine import VARIANTS, State
from app.engine.deal import deal

from .conftest import (
    ALL,
    CARD_CODE,
    SPECS,
    all_cards,
    hidden_cards,
    piles,
    position,
    visible_cards,
)


def _by_id(state: State) -> dict[str, list[dict]]:
    return {p["id"]: p["cards"] for p in state.public()["piles"]}


@pytest.mark.parametrize("variant", ALL)
def test_public_view_of_a_deal_hides_stock_and_face_down_cards(variant: str) -> None:
    state = deal(VARIANTS[variant], 31999)
    view = _by_id(state)
    text = piles(state)
    # The stock: as many cards as it holds, every one only {"face_up": false}.
    assert view["stock"] == [{"face_up": False}] * len(text["stock"].split())
    assert view["waste"] == []
    spec = SPECS[variant]
    down = {"rank-and-file": 3, "deauville": 3, "emperor": 3, "number-ten": 2}.get(variant, 0)
    for i in range(spec.piles):
        cards = view[f"tableau-{i}"]
        assert cards[:down] == [{"face_up": False}] * down
        assert all(c["face_up"] is True for c in cards[down:])
        assert [c["code"] for c in cards[down:]] == text[f"t{i}"].split("|")[-1].split()
    if spec.reserve:
        assert view["reserve"][:12] == [{"face_up": False}] * 12
    # No hidden card's code anywhere in the JSON, unless the same card is also visible
    # (two decks hold each card twice).
    blob = json.dumps(state.public())
    visible = set(visible_cards(state))
    hidden_only = set(hidden_cards(state)) - visible
    assert not hidden_only & set(CARD_CODE.findall(blob))
    assert set(CARD_CODE.findall(blob)) <= visible


def test_public_view_card_fields() -> None:
    state = position("rainbow", t=["TD", "KD", "KD", "KD"], f=["", "JS"], base=11)
    view = _by_id(state)
    assert view["tableau-0"] == [{"code": "TD", "rank": 10, "suit": "D", "face_up": True}]
    assert view["foundation-1"][0]["code"] == "JS"
    assert state.public()["base_rank"] == 11
    assert state.public()["redeals_left"] == 0


@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize("redeals", [0, 1, 2, None])
@pytest.mark.parametrize("foundation_return", [False, True])
def test_saved_forms_round_trip(variant: str, redeals: int | None, foundation_return: bool) -> None:
    spec = SPECS[variant]
    state = position(
        variant,
        t=["KD 4C | 9S 8H", "", "2C", "QH | KS"],
        f=["AS 2S", "", "AH"] if not spec.reserve else ["", "7S", "", "7D 8D"],
        stock="3C 5D 9H",
        waste="TC JC",
        reserve="AC 6H" if spec.reserve else "",
        redeals=redeals,
        base=7 if spec.reserve else None,
        foundation_return=foundation_return,
    )
    assert State.from_bytes(state.to_bytes()) == state
    assert State.from_text(state.to_text()) == state
    assert State.from_text(str(state)) == state
    head = state.to_text().splitlines()[0].split()
    assert head[0] == variant
    assert f"redeals={'inf' if redeals is None else redeals}" in head
    assert f"foundation_return={int(foundation_return)}" in head
    # The bytes form is compact: about a byte per card.
    assert len(state.to_bytes()) < 2 * len(all_cards(state)) + 60


@pytest.mark.parametrize("variant", ALL)
def test_deal_round_trips(variant: str) -> None:
    state = deal(VARIANTS[variant], 123456)
    assert State.from_bytes(state.to_bytes()) == state
    assert State.from_text(state.to_text()) == state
    assert len(state.to_bytes()) < 200
