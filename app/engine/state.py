"""Positions: immutable values, and the one place their methods are listed.

A :class:`State` is a named tuple of tuples of small ints, so applying a move copies
only the piles it touches and undo is simply keeping the previous value. Face-down
cards are always at the bottom of a tableau pile, so each pile stores how many of its
cards are hidden instead of a flag per card.

Each job has its own module; the methods here only name them:

- :mod:`.rules`: the rule predicates (what a pile gives, what a pile takes, the run rule);
- :mod:`.generate`: ``legal_moves``; :mod:`.validate`: ``check``, ``is_legal``, ``pick``;
- :mod:`.apply`: ``apply`` and its events, the auto-finish, undo's events;
- :mod:`.view`: the public view; :mod:`.codec`: the bytes and text forms.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from . import apply as _apply
from . import codec as _codec
from . import generate as _generate
from . import rules as _rules
from . import validate as _validate
from . import view as _view
from .errors import IllegalMove
from .moves import F_PILES, MOVE, RESERVE_PILE, STOCK_PILE, T_PILES, WASTE_PILE, Event, Move, Pile
from .rules import run_start
from .variants import Variant

Cards = tuple[int, ...]

__all__ = ["State", "run_start"]


class State(NamedTuple):
    """A full position, hidden cards included (server and solver only; see :meth:`public`)."""

    variant: Variant
    tableau: tuple[Cards, ...]
    hidden: tuple[int, ...]  # face-down cards at the bottom of each tableau pile
    foundations: tuple[Cards, ...]
    stock: Cards  # top card last: the next draw takes stock[-1]
    waste: Cards
    reserve: Cards  # top card last; only the top is face up
    redeals_left: int | None  # None: unlimited
    base_rank: int | None  # foundation base rank when it comes from the deal (Rainbow)

    # ----------------------------------------------------------------- queries
    @property
    def first_rank(self) -> int:
        return self.base_rank or 1

    @property
    def is_won(self) -> bool:
        return all(len(f) == 13 for f in self.foundations)

    @property
    def is_stuck(self) -> bool:
        """No move now, and no card the stock (or, with redeals left, the waste) holds could
        be played when it came up: the player can only draw to the end and lose."""
        return not self.is_won and self._stuck_given(self.legal_moves())

    def _stuck_given(self, legal: Iterable[Move]) -> bool:
        if any(m.action == MOVE for m in legal):
            return False
        coming = self.stock
        if self.redeals_left is None or self.redeals_left > 0:
            coming = coming + self.waste
        return not any(self._playable_anywhere(card) for card in coming)

    @property
    def status(self) -> str:
        if self.is_won:
            return "won"
        return "stuck" if self.is_stuck else "playing"

    def status_given(self, legal: Iterable[Move]) -> str:
        """:attr:`status`, read from this state's legal moves where the caller has them
        already (``legal`` must be ``legal_moves()``: they are not generated again)."""
        if self.is_won:
            return "won"
        return "stuck" if self._stuck_given(legal) else "playing"

    def foundation_takes(self, index: int, card: int) -> bool:
        return _rules.foundation_takes(self, index, card)

    def tableau_takes(self, index: int, card: int) -> bool:
        """May ``card`` (the bottom of what moves) go on tableau pile ``index``?"""
        return _rules.tableau_takes(self, index, card)

    def run_length(self, index: int) -> int:
        """How many cards from the top of tableau pile ``index`` may move together."""
        return _rules.run_length(self, index)

    def _playable_anywhere(self, card: int) -> bool:
        return any(self.foundation_takes(f, card) for f in range(len(self.foundations))) or any(
            self.tableau_takes(t, card) for t in range(len(self.tableau))
        )

    # ------------------------------------------------- generation and checking
    def legal_moves(self) -> list[Move]:
        """Every legal explicit move, and nothing else (draw and redeal included)."""
        return _generate.legal_moves(self)

    def check(self, move: Move) -> None:
        """Raise :class:`IllegalMove` saying why ``move`` is illegal here; return if legal."""
        _validate.check(self, move)

    def is_legal(self, move: Move) -> bool:
        return _validate.is_legal(self, move)

    def illegal_reason(self, move: Move) -> IllegalMove | None:
        """Why ``move`` is illegal here, or None (the refusal :meth:`check` raises)."""
        try:
            _validate.check(self, move)
        except IllegalMove as refusal:
            return refusal
        return None

    def pick(self, src: Pile, count: int = 1) -> int:
        """The bottom card of the ``count`` cards that would leave ``src``; raises
        :class:`IllegalMove` saying why they may not."""
        return _validate.pick(self, src, count)

    # ------------------------------------------------------------------ applying
    def apply(
        self, move: Move, *, auto_finish: bool = True, validate: bool = True
    ) -> tuple[State, tuple[Event, ...]]:
        """The position after ``move`` and what happened, in order (see :mod:`.apply`)."""
        return _apply.apply(self, move, auto_finish=auto_finish, validate=validate)

    def _play(self, move: Move) -> tuple[State, list[Event]]:
        return _apply.play(self, move)

    def undo_events(self, move: Move, after: State) -> tuple[Event, ...]:
        """What taking back ``move`` (played from here, giving ``after``) changes."""
        return _apply.undo_events(self, move, after)

    def auto_finish_ready(self) -> bool:
        """Stock, waste and reserve empty, nothing face down, every pile one ordered run,
        and playing the tops to the foundations wins."""
        return _apply.auto_finish_ready(self)

    def auto_finish(self) -> tuple[State, list[Event]]:
        """Play tableau tops to the foundations until none goes (until won, once
        :meth:`auto_finish_ready` said so)."""
        return _apply.play_out(self)

    def _next_foundation_move(self) -> Move | None:
        return _apply.next_foundation_move(self)

    # ------------------------------------------------------------------ views
    def piles(self) -> list[tuple[Pile, Cards, int]]:
        """Every pile with its cards (bottom first) and how many of them are face down."""
        result: list[tuple[Pile, Cards, int]] = [
            (STOCK_PILE, self.stock, len(self.stock)),
            (WASTE_PILE, self.waste, 0),
        ]
        if self.variant.reserve_size:
            result.append((RESERVE_PILE, self.reserve, max(len(self.reserve) - 1, 0)))
        result += [(F_PILES[i], f, 0) for i, f in enumerate(self.foundations)]
        result += [(T_PILES[i], p, self.hidden[i]) for i, p in enumerate(self.tableau)]
        return result

    def view(self, *, clicks: bool = True, legal: Iterable[Move] | None = None) -> _view.PublicView:
        """What a player may see, as a value (see :mod:`.view`; ``legal``: this state's
        legal moves, when the caller has them already)."""
        return _view.public_view(self, clicks=clicks, legal=legal)

    def public(self) -> dict[str, Any]:
        """What a player may see, in the API's JSON form: ``view().to_json()``."""
        return self.view().to_json()

    def key(self) -> tuple[Any, ...]:
        """A canonical position key: interchangeable piles in a fixed order.

        Tableau piles are sorted, and foundations reduce to their sorted top cards (a
        foundation's content follows from its top card and the base rank).
        """
        tableau = tuple(sorted(zip(self.hidden, self.tableau, strict=True)))
        found = tuple(sorted(f[-1] if f else -1 for f in self.foundations))
        return (tableau, found, self.stock, self.waste, self.reserve, self.redeals_left)

    def cards(self) -> list[int]:
        """Every card of the position (for conservation checks)."""
        out = [*self.stock, *self.waste, *self.reserve]
        for f in self.foundations:
            out.extend(f)
        for p in self.tableau:
            out.extend(p)
        return out

    # ----------------------------------------------------------- saved forms
    def to_bytes(self) -> bytes:
        """Compact exact form for the database: about one byte per card."""
        return _codec.to_bytes(self)

    @classmethod
    def from_bytes(cls, data: bytes) -> State:
        return _codec.from_bytes(cls, data)

    def to_text(self) -> str:
        """A readable form that :meth:`from_text` reads back exactly (see :mod:`.codec`)."""
        return _codec.to_text(self)

    def __str__(self) -> str:
        return self.to_text()

    @classmethod
    def from_text(cls, text: str) -> State:
        return _codec.from_text(cls, text)
