"""Cards as small ints: ``suit * 13 + rank - 1``.

Suits are numbered as PySolFC creates them: clubs, spades, hearts, diamonds, so a
card's int is also its position in one freshly created deck. Two-deck games simply
hold each int twice.
"""

from __future__ import annotations

from .errors import N_, InvalidMove

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
            "bad_card", "{code!r} is not a card code (rank A23456789TJQK, suit SHDC)", code=code
        ) from None


def rank_name(rank: int) -> str:
    return _RANK_NAMES.get(rank, str(rank))


_RANK_NAMES = {1: N_("Ace"), 11: N_("Jack"), 12: N_("Queen"), 13: N_("King")}


class RankName(int):
    """A rank named in a message: the number, written as :func:`rank_name` writes it
    (``Ace``, ``7``, ``King``); a layer that words messages in another language names it
    in that language."""

    def __str__(self) -> str:
        return rank_name(int(self))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def card_json(card: Card) -> dict[str, object]:
    """The public form of a face-up card."""
    return {"code": CODE[card], "rank": RANK[card], "suit": SUITS[SUIT[card]], "face_up": True}
