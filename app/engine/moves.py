"""Moves, pile ids and events: small immutable values with text and JSON forms.

Text forms round-trip (``Move.parse(str(m)) == m``), in the manner of python-chess:
``t2>t5`` (top card of tableau 2 to tableau 5), ``t2>t5x3`` (three cards), ``w>f0``,
``r>t1``, ``f3>t2``, ``draw``, ``redeal``.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from .cards import CODE
from .errors import InvalidMove

STOCK, WASTE, RESERVE, FOUNDATION, TABLEAU = "stock", "waste", "reserve", "foundation", "tableau"
_SHORT = {STOCK: "s", WASTE: "w", RESERVE: "r", FOUNDATION: "f", TABLEAU: "t"}
_LONG = {v: k for k, v in _SHORT.items()}
_INDEXED = (FOUNDATION, TABLEAU)
# Matched whole (fullmatch) and with ASCII digits only: "tableau-4\n" and "tableau-٤" are
# not pile ids, though `$` and `\d` would let them through.
_PILE_ID = re.compile(r"(stock|waste|reserve)|(foundation|tableau)-([0-9]{1,2})")
_SHORT_PILE = r"([swr]|[ft][0-9]{1,2})"
_MOVE_TEXT = re.compile(rf"{_SHORT_PILE}>{_SHORT_PILE}(?:x([0-9]{{1,3}}))?")

MOVE, DRAW, REDEAL = "move", "draw", "redeal"


class Pile(NamedTuple):
    """A pile of the layout: ``kind`` and, for foundations and tableau, its index."""

    kind: str
    index: int = 0  # type: ignore[assignment]  # shadows tuple.index/count on purpose

    def __str__(self) -> str:
        return f"{self.kind}-{self.index}" if self.kind in _INDEXED else self.kind

    @property
    def short(self) -> str:
        return _SHORT[self.kind] + (str(self.index) if self.kind in _INDEXED else "")

    @classmethod
    def parse(cls, pile_id: str) -> Pile:
        """``tableau-3`` -> Pile("tableau", 3)."""
        match = _PILE_ID.fullmatch(pile_id) if isinstance(pile_id, str) else None
        if match is None:
            raise InvalidMove(
                "bad_pile",
                "{pile!r} is not a pile id (stock, waste, reserve, foundation-N, tableau-N)",
                pile=pile_id,
            )
        if match.group(1):
            return _SINGLETONS[match.group(1)]
        return cls(match.group(2), int(match.group(3)))

    @classmethod
    def parse_short(cls, text: str) -> Pile:
        kind = _LONG[text[0]]
        return cls(kind, int(text[1:])) if kind in _INDEXED else _SINGLETONS[kind]


_SINGLETONS = {k: Pile(k) for k in (STOCK, WASTE, RESERVE)}
STOCK_PILE, WASTE_PILE, RESERVE_PILE = _SINGLETONS[STOCK], _SINGLETONS[WASTE], _SINGLETONS[RESERVE]
MAX_PILES = 16  # the most tableau piles (or foundations) a game may have
# The indexed piles, built once: ``T_PILES[i]`` is ``Pile(TABLEAU, i)`` (the engine's move
# generation and the solver's hot loops index these instead of building pile values).
T_PILES = tuple(Pile(TABLEAU, i) for i in range(MAX_PILES))
F_PILES = tuple(Pile(FOUNDATION, i) for i in range(MAX_PILES))


class Move(NamedTuple):
    """One explicit move: ``move`` (cards from a pile to a pile), ``draw`` or ``redeal``."""

    action: str
    src: Pile | None = None
    dst: Pile | None = None
    count: int = 1  # type: ignore[assignment]  # shadows tuple.index/count on purpose

    def __str__(self) -> str:
        if self.action != MOVE:
            return self.action
        assert self.src is not None and self.dst is not None
        text = f"{self.src.short}>{self.dst.short}"
        return text + (f"x{self.count}" if self.count != 1 else "")

    @classmethod
    def parse(cls, text: str) -> Move:
        if text in (DRAW, REDEAL):
            return DRAW_MOVE if text == DRAW else REDEAL_MOVE
        match = _MOVE_TEXT.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise InvalidMove(
                "bad_move", "{text!r} is not a move (e.g. t2>t5, t2>t5x3, w>f0, draw)", text=text
            )
        count = int(match.group(3)) if match.group(3) else 1
        if count < 1:
            raise InvalidMove("bad_count", "count must be at least 1")
        return cls(MOVE, Pile.parse_short(match.group(1)), Pile.parse_short(match.group(2)), count)

    @classmethod
    def between(cls, src: str, dst: str, count: int = 1) -> Move:
        return cls(MOVE, Pile.parse(src), Pile.parse(dst), count)

    def to_json(self) -> dict[str, Any]:
        if self.action != MOVE:
            return {"action": self.action}
        return {"action": MOVE, "from": str(self.src), "to": str(self.dst), "count": self.count}

    @classmethod
    def from_json(cls, data: Any) -> Move:
        if not isinstance(data, dict):
            raise InvalidMove("bad_move", "a move is a JSON object with an 'action'")
        action = data.get("action")
        if action in (DRAW, REDEAL):
            return DRAW_MOVE if action == DRAW else REDEAL_MOVE
        if action != MOVE:
            raise InvalidMove(
                "bad_action", "action must be move, draw or redeal, not {action!r}", action=action
            )
        if "from" not in data or "to" not in data:
            raise InvalidMove("bad_move", "a move needs 'from' and 'to' pile ids")
        count = data.get("count", 1)
        if count is None:
            count = 1
        if isinstance(count, bool) or not isinstance(count, int) or count < 1 or count > 104:
            raise InvalidMove("bad_count", "count must be a whole number from 1 to 104")
        return cls(MOVE, Pile.parse(data["from"]), Pile.parse(data["to"]), count)


DRAW_MOVE = Move(DRAW)
REDEAL_MOVE = Move(REDEAL)

# Event types: what a move did, in order, so a client can animate it. The last two are
# only in undo's answer.
EV_MOVE, EV_TURN_UP, EV_RESERVE_FILL, EV_AUTO_FINISH = (
    "move",
    "turn_up",
    "reserve_fill",
    "auto_finish",
)
EV_UNDO, EV_TURN_DOWN, EV_MOVE_BACK = "undo", "turn_down", "move_back"
_CARDS_MOVED = (EV_MOVE, EV_AUTO_FINISH, EV_MOVE_BACK)


class Event(NamedTuple):
    """Something that happened as part of one accepted move (or of its undo).

    ``move``: the player's move, with the cards that went from ``src`` to ``dst``;
    ``turn_up``: the card at ``index`` of ``pile`` turned face up; ``reserve_fill``: the
    top reserve card went to the empty ``pile``; ``auto_finish``: a move the server
    played itself, with its card. In undo's answer: ``undo`` (the move taken back),
    ``turn_down`` (the card at ``index`` of ``pile`` turned face down again, never named)
    and ``move_back`` (cards going back from ``src`` to ``dst``).

    ``card`` and ``cards`` (bottom first) only ever name cards face up once the event has
    happened: ``cards`` is None for cards that end face down (a redeal's, an undone
    draw's), and ``count`` still says how many moved.
    """

    type: str
    move: Move | None = None
    pile: Pile | None = None
    card: int | None = None
    cards: tuple[int, ...] | None = None
    src: Pile | None = None
    dst: Pile | None = None
    index: int | None = None  # type: ignore[assignment]  # shadows tuple.index on purpose
    count: int = 0  # type: ignore[assignment]  # shadows tuple.count on purpose

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        if self.move is not None:
            data["move"] = self.move.to_json()
        if self.type in _CARDS_MOVED:
            data["from"] = str(self.src)
            data["to"] = str(self.dst)
            data["cards"] = None if self.cards is None else [CODE[c] for c in self.cards]
            data["count"] = self.count
            return data
        if self.pile is not None:
            data["pile"] = str(self.pile)
        if self.index is not None:
            data["index"] = self.index
        if self.card is not None:
            data["card"] = CODE[self.card]
        if self.src is not None:
            data["from"] = str(self.src)
        return data
