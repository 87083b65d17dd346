"""Cards as small ints: ``suit * 13 + rank - 1``.

Suits are numbered as PySolFC creates them: clubs, spades, hearts, diamonds, so a
card's int is also its position in one freshly created deck. Two-deck games simply
hold each int twice.
"""

from __future__ import annotations

from .errors import InvalidMove

SUITS = "CSHD"
RANKS = "A23456789TJQK"
ACE, KING = 1, 13

Card = int

RANK: tuple[int, ...] = tuple(c % 13 + 1 for c in range(52))
SUIT: tuple[int, ...] = tuple(c // 13 for c in range(52))
RED: tuple[bool, ...] = tuple(c // 13 >= 2 for c in range(52))
CODE: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(52))
_BY_CODE = {code: c for c, code in enumerate(CODE)}


def make_card(rank: int, suit: int) -> Card:
    return suit * 13 + rank - 1


def card_code(card: Card) -> str:
    return CODE[card]


def parse_card(code: str) -> Card:
    try:
        return _BY_CODE[code.upper()]
    except KeyError:
        raise InvalidMove(
            "bad_card", f"{code!r} is not a card code (rank A23456789TJQK, suit SHDC)"
        ) from None


def rank_name(rank: int) -> str:
    return {1: "Ace", 11: "Jack", 12: "Queen", 13: "King"}.get(rank, str(rank))


def card_json(card: Card) -> dict[str, object]:
    """The public form of a face-up card."""
    return {"code": CODE[card], "rank": RANK[card], "suit": SUITS[SUIT[card]], "face_up": True}
