"""A client's replay of events: what a front-end does with the events alone.

``replay(view, events)`` applies the events of one answer (a move's, undo's, a finish
step's) to the public view of the state before it (the JSON ``piles`` and
``redeals_left``) and returns the piles it shows after, cards only (``click`` and the
other derived fields are read from the new state, not animated). Written from
docs/api.md, independently of the engine: it checks on the way that each event names
the cards that lay where it says.
"""

from __future__ import annotations

import copy
import re
from typing import Any

FACE_DOWN = {"face_up": False}
RANKS = "A23456789TJQK"
CARD_CODE = re.compile(r"\b[A2-9TJQK][SHDC]\b")


def face_up(code: str) -> dict[str, Any]:
    return {"code": code, "rank": RANKS.index(code[0]) + 1, "suit": code[1], "face_up": True}


def cards_only(body: dict[str, Any]) -> dict[str, Any]:
    """The piles' cards (without each card's ``click``) and the redeal count."""
    return {
        "piles": {
            p["id"]: [{k: v for k, v in c.items() if k != "click"} for c in p["cards"]]
            for p in body["piles"]
        },
        "redeals_left": body["redeals_left"],
    }


def replay(before: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    view = copy.deepcopy(cards_only(before))
    piles = view["piles"]
    for event in events:
        kind = event["type"]
        if kind in ("move", "auto_finish", "move_back"):
            src, dst, n = piles[event["from"]], piles[event["to"]], event["count"]
            assert 1 <= n <= len(src), event
            taken = src[-n:]
            del src[-n:]
            codes = event["cards"]
            if codes is None:
                dst.extend([dict(FACE_DOWN)] * n)
            else:
                assert len(codes) == n, event
                if all(c["face_up"] for c in taken):
                    assert [c["code"] for c in taken] == codes, (event, taken)
                else:  # a draw, or an undone redeal: the cards come face down
                    assert not any(c["face_up"] for c in taken), (event, taken)
                dst.extend(face_up(code) for code in codes)
            redeal = kind == "move" and event["move"]["action"] == "redeal"
            if redeal and view["redeals_left"] is not None:
                view["redeals_left"] -= 1
        elif kind == "turn_up":
            pile, i = piles[event["pile"]], event["index"]
            assert i == len(pile) - 1 and pile[i] == FACE_DOWN, event
            pile[i] = face_up(event["card"])
        elif kind == "reserve_fill":
            reserve, pile = piles[event["from"]], piles[event["pile"]]
            assert reserve[-1] == face_up(event["card"]) and event["index"] == len(pile), event
            pile.append(reserve.pop())
        elif kind == "turn_down":
            assert set(event) == {"type", "pile", "index"}, event
            pile, i = piles[event["pile"]], event["index"]
            assert pile[i]["face_up"], event
            pile[i] = dict(FACE_DOWN)
        elif kind == "undo":
            if event["move"]["action"] == "redeal" and view["redeals_left"] is not None:
                view["redeals_left"] += 1
        else:
            raise AssertionError(f"unknown event {event}")
    return view


def face_up_codes(body: dict[str, Any]) -> set[str]:
    return {c["code"] for p in body["piles"] for c in p["cards"] if c["face_up"]}


def codes_in(value: Any) -> set[str]:
    """Every card code written anywhere in a JSON value (strings, keys excepted)."""
    if isinstance(value, str):
        return set(CARD_CODE.findall(value))
    if isinstance(value, dict):
        return set().union(*(codes_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(codes_in(v) for v in value)) if value else set()
    return set()
