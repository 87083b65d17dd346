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
    # TD goes nowhere: no click.
    assert view["tableau-0"] == [
        {"code": "TD", "rank": 10, "suit": "D", "face_up": True, "click": None}
    ]
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


def _pile(state: State, pile_id: str, clicks: bool = True) -> dict:
    return next(p for p in state.view(clicks=clicks).to_json()["piles"] if p["id"] == pile_id)


def test_foundation_suit_and_base_rank() -> None:
    state = position("rainbow", t=["TD", "KD", "KD", "KD"], f=["", "JS QS"], base=11)
    assert _pile(state, "foundation-0") | {"cards": []} == {
        "id": "foundation-0",
        "kind": "foundation",
        "cards": [],
        "movable_from": None,
        "click": None,
        "suit": None,
        "base_rank": 11,
    }
    found = _pile(state, "foundation-1")
    assert (found["suit"], found["base_rank"]) == ("S", 11)
    # Rainbow returns foundation cards: the top one may be picked up.
    assert found["movable_from"] == 1
    ace = position("rank-and-file", f=["", "AH 2H"])
    assert (_pile(ace, "foundation-1")["suit"], _pile(ace, "foundation-1")["base_rank"]) == ("H", 1)
    # Rank and File never returns foundation cards.
    assert _pile(ace, "foundation-1")["movable_from"] is None
    assert "suit" not in _pile(ace, "tableau-0")


def test_movable_from_is_the_top_run_or_the_top_card() -> None:
    # Rank and File moves runs: 9S 8H 7C is a run on a face-down card; KD breaks it.
    runs = position("rank-and-file", t=["4C | KD 9S 8H 7C", "", "3C | 5D"], waste="2C 3D")
    assert _pile(runs, "tableau-0")["movable_from"] == 2
    assert _pile(runs, "tableau-1")["movable_from"] is None
    assert _pile(runs, "tableau-2")["movable_from"] == 1
    assert _pile(runs, "waste")["movable_from"] == 1
    assert _pile(runs, "stock")["movable_from"] is None
    # Deauville: the same cards, one card at a time.
    single = position("deauville", t=["4C | KD 9S 8H 7C"])
    assert _pile(single, "tableau-0")["movable_from"] == 4
    # A run down to the face-down cards, never into them.
    low = position("rank-and-file", t=["4C 5C | 9S 8H"])
    assert _pile(low, "tableau-0")["movable_from"] == 2
    # A won game lets nothing be picked up.
    won = position("rainbow", f=[" ".join(r + s for r in "A23456789TJQK") for s in "CSHD"], base=1)
    assert all(p["movable_from"] is None for p in won.public()["piles"])


def test_click_on_each_card_is_what_the_click_plays() -> None:
    state = position(
        "rank-and-file", t=["4C | KD 9S 8H 7C", "TD", "AS", "8D"], f=["", ""], stock="2C"
    )
    pile = _pile(state, "tableau-0")
    clicks = [c.get("click") for c in pile["cards"]]
    # 9S 8H 7C goes on TD; 8H 7C on no black 9, so to the first empty pile; 7C on 8D
    # (a filled pile before an empty one); KD and the face-down 4C do nothing (the
    # face-down card says nothing at all).
    assert pile["cards"][0] == {"face_up": False}
    assert clicks[1:] == [
        None,
        {"action": "move", "from": "tableau-0", "to": "tableau-1", "count": 3},
        {"action": "move", "from": "tableau-0", "to": "tableau-4", "count": 2},
        {"action": "move", "from": "tableau-0", "to": "tableau-3", "count": 1},
    ]
    assert pile["click"] == clicks[-1]
    # The Ace goes home; the stock draws.
    assert _pile(state, "tableau-2")["click"] == {
        "action": "move",
        "from": "tableau-2",
        "to": "foundation-0",
        "count": 1,
    }
    assert _pile(state, "stock")["click"] == {"action": "draw"}
    # Clicks off: nothing is clicked.
    off = state.view(clicks=False).to_json()
    assert all(p["click"] is None for p in off["piles"])
    assert all(c.get("click") is None for p in off["piles"] for c in p["cards"])
