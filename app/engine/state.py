"""Positions: immutable values with legal move generation and ``apply``.

A :class:`State` is a named tuple of tuples of small ints, so applying a move copies
only the piles it touches and undo is simply keeping the previous value. Face-down
cards are always at the bottom of a tableau pile, so each pile stores how many of its
cards are hidden instead of a flag per card.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import CODE, RANK, SUIT, card_json, parse_card, rank_name
from .errors import CorruptState, IllegalMove, InvalidMove
from .moves import (
    DRAW,
    DRAW_MOVE,
    EV_AUTO_FINISH,
    EV_MOVE,
    EV_RESERVE_FILL,
    EV_TURN_UP,
    F_PILES,
    FOUNDATION,
    MOVE,
    REDEAL,
    REDEAL_MOVE,
    RESERVE,
    RESERVE_PILE,
    STOCK,
    STOCK_PILE,
    T_PILES,
    TABLEAU,
    WASTE,
    WASTE_PILE,
    Event,
    Move,
    Pile,
)
from .variants import Rules, Variant, get_variant

_FACE_DOWN: dict[str, Any] = {"face_up": False}
_BYTES_VERSION = 1

Cards = tuple[int, ...]


def run_start(pile: Cards, hidden: int, stack_ok: tuple[bool, ...]) -> int:
    """Where the top run of a non-empty ``pile`` starts: the index of its lowest card,
    going down from the top card while each card builds on the one under it
    (``stack_ok[under * 52 + card]``), never into the ``hidden`` face-down cards.

    The one run rule: :meth:`State.run_length`, move checking, the auto-finish and the
    solver all read it from here. Where runs move, ``len(pile) - run_start(...)`` cards
    may move together.
    """
    k = len(pile) - 1
    while k > hidden and stack_ok[pile[k - 1] * 52 + pile[k]]:
        k -= 1
    return k


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
        if self.is_won:
            return False
        if any(m.action == MOVE for m in self.legal_moves()):
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

    def foundation_takes(self, index: int, card: int) -> bool:
        pile = self.foundations[index]
        if not pile:
            return RANK[card] == self.first_rank
        return len(pile) < 13 and self.variant.found_next[pile[-1]] == card

    def tableau_takes(self, index: int, card: int) -> bool:
        """May ``card`` (the bottom of what moves) go on tableau pile ``index``?"""
        pile = self.tableau[index]
        if not pile:
            return not (self.variant.reserve_fills_empty and self.reserve)
        return self.variant.stack_ok[pile[-1] * 52 + card]

    def run_length(self, index: int) -> int:
        """How many cards from the top of tableau pile ``index`` may move together."""
        pile = self.tableau[index]
        if not pile:
            return 0
        if self.variant.runs == "single":
            return 1
        return len(pile) - run_start(pile, self.hidden[index], self.variant.stack_ok)

    def _playable_anywhere(self, card: int) -> bool:
        return any(self.foundation_takes(f, card) for f in range(len(self.foundations))) or any(
            self.tableau_takes(t, card) for t in range(len(self.tableau))
        )

    # ---------------------------------------------------------- move generation
    def legal_moves(self) -> list[Move]:
        """Every legal explicit move, and nothing else (draw and redeal included)."""
        if self.is_won:
            return []  # the game is over: apply refuses every move (game_over)
        variant = self.variant
        tableau = self.tableau
        # Which piles want which card: built once from the tops, then each moving card
        # is one dict lookup instead of a test against every pile.
        accepts = variant.accepted_by
        wanted: dict[int, list[int]] = {}
        empties: list[int] = []
        for j, pile in enumerate(tableau):
            if pile:
                for card in accepts[pile[-1]]:
                    wanted.setdefault(card, []).append(j)
            else:
                empties.append(j)
        if variant.reserve_fills_empty and self.reserve:
            empties = []
        nxt = variant.found_next
        to_found: dict[int, list[int]] = {}
        for f, fpile in enumerate(self.foundations):
            if not fpile:
                for card in variant.base_cards(self.first_rank):
                    to_found.setdefault(card, []).append(f)
            elif len(fpile) < 13 and nxt[fpile[-1]] >= 0:
                to_found.setdefault(nxt[fpile[-1]], []).append(f)
        moves: list[Move] = []
        append = moves.append

        def single(src: Pile, card: int, skip: int) -> None:
            for f in to_found.get(card, ()):
                append(Move(MOVE, src, F_PILES[f], 1))
            for j in wanted.get(card, ()):
                if j != skip:
                    append(Move(MOVE, src, T_PILES[j], 1))
            for j in empties:
                if j != skip:
                    append(Move(MOVE, src, T_PILES[j], 1))

        for i, pile in enumerate(tableau):
            if not pile:
                continue
            src = T_PILES[i]
            single(src, pile[-1], i)
            for count in range(2, self.run_length(i) + 1):
                card = pile[-count]
                for j in wanted.get(card, ()):
                    if j != i:
                        append(Move(MOVE, src, T_PILES[j], count))
                for j in empties:
                    append(Move(MOVE, src, T_PILES[j], count))
        if self.waste:
            single(WASTE_PILE, self.waste[-1], -1)
        if self.reserve:
            single(RESERVE_PILE, self.reserve[-1], -1)
        if variant.foundation_return:
            to_found = {}  # a foundation card returns only to the tableau
            for f, fpile in enumerate(self.foundations):
                if fpile:
                    single(F_PILES[f], fpile[-1], -1)
        if self.stock:
            append(DRAW_MOVE)
        elif self.waste and (self.redeals_left is None or self.redeals_left > 0):
            append(REDEAL_MOVE)
        return moves

    # ---------------------------------------------------------------- checking
    def check(self, move: Move) -> None:
        """Raise :class:`IllegalMove` saying why ``move`` is illegal here; return if legal."""
        reason = self.illegal_reason(move)
        if reason is not None:
            raise reason

    def is_legal(self, move: Move) -> bool:
        return self.illegal_reason(move) is None

    def illegal_reason(self, move: Move) -> IllegalMove | None:
        if self.is_won:
            return IllegalMove("game_over", "the game is won; no move is left to make")
        if move.action == DRAW:
            if not self.stock:
                return IllegalMove("stock_empty", "the stock is empty")
            return None
        if move.action == REDEAL:
            if self.stock:
                return IllegalMove("stock_not_empty", "redeal only once the stock is empty")
            if not self.waste:
                return IllegalMove("waste_empty", "there is nothing in the waste to redeal")
            if self.redeals_left is not None and self.redeals_left <= 0:
                if self.variant.redeals == 0:
                    return IllegalMove("no_redeals_left", "this game allows no redeal")
                return IllegalMove("no_redeals_left", "no redeals left")
            return None
        if move.action != MOVE or move.src is None or move.dst is None:
            return IllegalMove("bad_move", f"unknown action {move.action!r}")
        src, dst, count = move.src, move.dst, move.count
        bad = self._no_such_pile(dst)
        if bad:
            return bad
        if src == dst:
            return IllegalMove("same_pile", "a move needs two different piles")
        picked = self.pick(src, count)
        if isinstance(picked, IllegalMove):
            return picked
        card = picked
        if src.kind == FOUNDATION and dst.kind != TABLEAU:
            return IllegalMove(
                "foundation_return_not_allowed",
                "a foundation card may return only to a tableau pile",
            )
        # Where it goes.
        if dst.kind == FOUNDATION:
            if count != 1:
                return IllegalMove(
                    "one_card_to_foundation", "only one card at a time goes to a foundation"
                )
            return self._foundation_refusal(dst.index, card)
        if dst.kind != TABLEAU:
            return IllegalMove("not_a_target", f"nothing may be put on the {dst.kind}")
        target = self.tableau[dst.index]
        if not target:
            if self.variant.reserve_fills_empty and self.reserve:
                return IllegalMove(
                    "reserve_fills_empty", "an empty pile is filled from the reserve"
                )
            return None
        why = self.variant.stack_reason(target[-1], card)
        if why is not None:
            return IllegalMove(*why)
        return None

    def pick(self, src: Pile, count: int = 1) -> int | IllegalMove:
        """The bottom card of the ``count`` cards that would leave ``src``, or why they may not."""
        bad = self._no_such_pile(src)
        if bad:
            return bad
        if count < 1:
            return IllegalMove("bad_count", "count must be at least 1")
        if src.kind == STOCK:
            return IllegalMove("stock_not_playable", "cards leave the stock only by drawing")
        if src.kind == TABLEAU:
            pile = self.tableau[src.index]
            if not pile:
                return IllegalMove("empty_pile", f"{src} is empty")
            if count > len(pile):
                return IllegalMove("bad_count", f"{src} holds only {len(pile)} card(s)")
            if count > len(pile) - self.hidden[src.index]:
                return IllegalMove("card_face_down", "face-down cards cannot move")
            if count > 1:
                if self.variant.runs == "single":
                    return IllegalMove(
                        "single_cards_only", "only one card moves at a time in this game"
                    )
                if (
                    run_start(pile, self.hidden[src.index], self.variant.stack_ok)
                    > len(pile) - count
                ):
                    return IllegalMove(
                        "run_not_in_sequence",
                        f"the cards from {CODE[pile[-count]]} up are not one ordered run",
                    )
            return pile[-count]
        if count != 1:
            return IllegalMove("single_cards_only", f"only one card moves from the {src.kind}")
        if src.kind == WASTE:
            source: Cards = self.waste
        elif src.kind == RESERVE:
            source = self.reserve
        else:
            if not self.variant.foundation_return:
                return IllegalMove(
                    "foundation_return_not_allowed",
                    "cards on the foundations never return to play in this game",
                )
            source = self.foundations[src.index]
        if not source:
            return IllegalMove("empty_pile", f"{src} is empty")
        return source[-1]

    def _no_such_pile(self, pile: Pile) -> IllegalMove | None:
        if pile.kind == TABLEAU:
            size = len(self.tableau)
        elif pile.kind == FOUNDATION:
            size = len(self.foundations)
        elif pile.kind == RESERVE:
            size = 1 if self.variant.reserve_size else 0
        else:
            size = 1
        if not 0 <= pile.index < size:
            return IllegalMove("no_such_pile", f"this game has no pile {pile}")
        return None

    def _foundation_refusal(self, index: int, card: int) -> IllegalMove | None:
        pile = self.foundations[index]
        if not pile:
            if RANK[card] == self.first_rank:
                return None
            return IllegalMove(
                "foundation_needs_base",
                f"an empty foundation takes only a{'n' if self.first_rank in (1, 8) else ''} "
                f"{rank_name(self.first_rank)}",
            )
        if len(pile) >= 13:
            return IllegalMove("foundation_full", f"foundation-{index} is complete")
        top = pile[-1]
        if SUIT[top] != SUIT[card]:
            return IllegalMove("wrong_suit", "foundations build up in suit")
        if self.variant.found_next[top] != card:
            return IllegalMove(
                "not_one_rank_higher",
                f"foundation-{index} needs the card one rank above its {rank_name(RANK[top])}",
            )
        return None

    # ----------------------------------------------------------------- applying
    def apply(
        self, move: Move, *, auto_finish: bool = True, validate: bool = True
    ) -> tuple[State, tuple[Event, ...]]:
        """The position after ``move`` and what happened, in order.

        Raises :class:`IllegalMove` (and changes nothing: states are immutable) when the
        rules refuse it. ``validate=False`` is for moves taken from :meth:`legal_moves`.
        """
        if validate:
            self.check(move)
        state, events = self._play(move)
        if auto_finish and state.auto_finish_ready():
            state, more = state.auto_finish()
            events.extend(more)
        return state, tuple(events)

    def _play(self, move: Move) -> tuple[State, list[Event]]:
        events = [Event(EV_MOVE, move)]
        variant = self.variant
        if move.action == DRAW:
            k = min(variant.draw, len(self.stock))
            drawn = self.stock[-1 : -k - 1 : -1]
            return self._replace(stock=self.stock[:-k], waste=self.waste + drawn), events
        if move.action == REDEAL:
            left = None if self.redeals_left is None else self.redeals_left - 1
            return self._replace(stock=self.waste[::-1], waste=(), redeals_left=left), events
        src, dst, count = move.src, move.dst, move.count
        assert src is not None and dst is not None
        tableau = list(self.tableau)
        hidden = self.hidden
        foundations = self.foundations
        waste, reserve = self.waste, self.reserve
        if src.kind == TABLEAU:
            pile = tableau[src.index]
            moving = pile[-count:]
            rest = pile[:-count]
            tableau[src.index] = rest
            if rest and hidden[src.index] >= len(rest):
                hidden = _set(hidden, src.index, len(rest) - 1)
                events.append(Event(EV_TURN_UP, None, src, rest[-1]))
            elif not rest and variant.reserve_fills_empty and reserve:
                tableau[src.index] = (reserve[-1],)
                events.append(Event(EV_RESERVE_FILL, None, src, reserve[-1]))
                reserve = reserve[:-1]
                if reserve:
                    events.append(Event(EV_TURN_UP, None, RESERVE_PILE, reserve[-1]))
        elif src.kind == WASTE:
            moving = waste[-1:]
            waste = waste[:-1]
        elif src.kind == RESERVE:
            moving = reserve[-1:]
            reserve = reserve[:-1]
            if reserve:
                events.append(Event(EV_TURN_UP, None, RESERVE_PILE, reserve[-1]))
        else:
            moving = foundations[src.index][-1:]
            foundations = _set(foundations, src.index, foundations[src.index][:-1])
        if dst.kind == TABLEAU:
            tableau[dst.index] = tableau[dst.index] + moving
        else:
            foundations = _set(foundations, dst.index, foundations[dst.index] + moving)
        state = State(
            variant,
            tuple(tableau),
            hidden,
            foundations,
            self.stock,
            waste,
            reserve,
            self.redeals_left,
            self.base_rank,
        )
        return state, events

    # ------------------------------------------------------------- auto-finish
    def auto_finish_ready(self) -> bool:
        """Stock, waste and reserve empty, nothing face down, every pile one ordered run,
        and playing the tops to the foundations wins.

        The last test matters only where the tableau wraps (Rainbow, Canfield): there two
        ordered runs can each hide the card the other's top needs, and the server must
        not start a finish it cannot complete.
        """
        if self.stock or self.waste or self.reserve or any(self.hidden) or self.is_won:
            return False
        ok = self.variant.stack_ok
        if any(pile and run_start(pile, 0, ok) for pile in self.tableau):
            return False
        return not self.variant.build_wrap or self._play_out()[0].is_won

    def auto_finish(self) -> tuple[State, list[Event]]:
        """Play tableau tops to the foundations until none goes (until won, once
        :meth:`auto_finish_ready` said so)."""
        return self._play_out()

    def _play_out(self) -> tuple[State, list[Event]]:
        state, events = self, list[Event]()
        while True:
            move = state._next_foundation_move()
            if move is None:
                return state, events
            state, _ = state._play(move)
            events.append(Event(EV_AUTO_FINISH, move))

    def _next_foundation_move(self) -> Move | None:
        for i, pile in enumerate(self.tableau):
            if pile:
                for f in range(len(self.foundations)):
                    if self.foundation_takes(f, pile[-1]):
                        return Move(MOVE, T_PILES[i], F_PILES[f], 1)
        return None

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

    def public(self) -> dict[str, Any]:
        """What a player may see: face-down cards carry no identity, the stock no order."""
        piles = []
        for pile, cards, down in self.piles():
            shown = [_FACE_DOWN] * down + [card_json(c) for c in cards[down:]]
            piles.append({"id": str(pile), "kind": pile.kind, "cards": shown})
        return {"piles": piles, "redeals_left": self.redeals_left, "base_rank": self.base_rank}

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

    # ----------------------------------------------------------- serialisation
    def to_bytes(self) -> bytes:
        """Compact exact form for the database: about one byte per card."""
        name = self.variant.name.encode()
        out = bytearray([_BYTES_VERSION, len(name)])
        out += name
        out.append(1 if self.variant.foundation_return else 0)
        out.append(255 if self.redeals_left is None else self.redeals_left)
        out.append(self.base_rank or 0)
        for group in (self.stock, self.waste, self.reserve):
            out.append(len(group))
            out += bytes(group)
        out.append(len(self.foundations))
        for f in self.foundations:
            out.append(len(f))
            out += bytes(f)
        out.append(len(self.tableau))
        for hidden, pile in zip(self.hidden, self.tableau, strict=True):
            out += bytes((hidden, len(pile)))
            out += bytes(pile)
        return bytes(out)

    @classmethod
    def from_bytes(cls, data: bytes) -> State:
        try:
            return cls._from_bytes(memoryview(data))
        except (IndexError, ValueError, KeyError) as exc:
            raise CorruptState(
                "corrupt_state", f"bytes do not decode to a position: {exc}"
            ) from None

    @classmethod
    def _from_bytes(cls, data: memoryview) -> State:
        reader = _Reader(data)
        if reader.byte() != _BYTES_VERSION:
            raise ValueError("unknown format version")
        name = bytes(reader.chunk(reader.byte())).decode()
        variant = get_variant(name).with_rules(Rules(foundation_return=bool(reader.byte())))
        redeals_byte = reader.byte()
        base = reader.byte() or None
        stock, waste, reserve = reader.cards(), reader.cards(), reader.cards()
        foundations = tuple(reader.cards() for _ in range(reader.byte()))
        tableau, hidden = [], []
        for _ in range(reader.byte()):
            hidden.append(reader.byte())
            tableau.append(reader.cards())
        if not reader.at_end():
            raise ValueError("trailing bytes")
        state = cls(
            variant,
            tuple(tableau),
            tuple(hidden),
            foundations,
            stock,
            waste,
            reserve,
            None if redeals_byte == 255 else redeals_byte,
            base,
        )
        if len(tableau) != variant.tableau_piles or len(foundations) != variant.foundation_count:
            raise ValueError("pile counts do not match the variant")
        if any(h > max(len(p) - 1, 0) for h, p in zip(hidden, tableau, strict=True)):
            raise ValueError("a face-down card on top of a pile")
        return state

    # ---------------------------------------------------------------- text form
    def to_text(self) -> str:
        """A readable form that :meth:`from_text` reads back exactly.

        One line per pile; ``|`` separates a tableau pile's face-down cards from its
        face-up ones. The first line names the variant and the counters.
        """
        redeals = "inf" if self.redeals_left is None else str(self.redeals_left)
        lines = [
            f"{self.variant.name} foundation_return={int(self.variant.foundation_return)} "
            f"redeals={redeals} base={self.base_rank or '-'}",
            "stock: " + _codes(self.stock),
            "waste: " + _codes(self.waste),
        ]
        if self.variant.reserve_size:
            lines.append("reserve: " + _codes(self.reserve))
        lines += [f"f{i}: " + _codes(f) for i, f in enumerate(self.foundations)]
        for i, (down, pile) in enumerate(zip(self.hidden, self.tableau, strict=True)):
            lines.append(
                f"t{i}: " + (_codes(pile[:down]) + " | " if down else "") + _codes(pile[down:])
            )
        return "\n".join(line.rstrip() for line in lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    @classmethod
    def from_text(cls, text: str) -> State:
        try:
            return cls._from_text(text)
        except (IndexError, ValueError, InvalidMove) as exc:
            raise CorruptState("corrupt_state", f"not a position: {exc}") from None

    @classmethod
    def _from_text(cls, text: str) -> State:
        lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
        head = lines[0].split()
        fields = dict(part.split("=", 1) for part in head[1:])
        variant = get_variant(head[0]).with_rules(
            Rules(foundation_return=fields.get("foundation_return", "") == "1")
            if "foundation_return" in fields
            else None
        )
        redeals_text = fields.get(
            "redeals", str(variant.redeals if variant.redeals is not None else "inf")
        )
        redeals = None if redeals_text == "inf" else int(redeals_text)
        base_text = fields.get("base", "-")
        base = None if base_text == "-" else int(base_text)
        named: dict[str, str] = {}
        for line in lines[1:]:
            label, _, rest = line.partition(":")
            named[label.strip()] = rest.strip()
        tableau, hidden = [], []
        for i in range(variant.tableau_piles):
            down_text, bar, up_text = named.get(f"t{i}", "").rpartition("|")
            if not bar:
                down_text, up_text = "", down_text or up_text
            down, up = _parse_codes(down_text), _parse_codes(up_text)
            tableau.append(down + up)
            hidden.append(len(down))
        return cls(
            variant,
            tuple(tableau),
            tuple(hidden),
            tuple(_parse_codes(named.get(f"f{i}", "")) for i in range(variant.foundation_count)),
            _parse_codes(named.get("stock", "")),
            _parse_codes(named.get("waste", "")),
            _parse_codes(named.get("reserve", "")),
            redeals,
            base,
        )


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _codes(cards: Cards) -> str:
    return " ".join(CODE[c] for c in cards)


def _parse_codes(text: str) -> Cards:
    try:
        return tuple(parse_card(code) for code in text.split())
    except InvalidMove as exc:
        raise CorruptState("corrupt_state", exc.message) from None


class _Reader:
    def __init__(self, data: memoryview) -> None:
        self.data, self.pos = data, 0

    def byte(self) -> int:
        value = self.data[self.pos]
        self.pos += 1
        return int(value)

    def chunk(self, size: int) -> memoryview:
        piece = self.data[self.pos : self.pos + size]
        if len(piece) != size:
            raise ValueError("truncated")
        self.pos += size
        return piece

    def cards(self) -> Cards:
        cards = tuple(self.chunk(self.byte()))
        if any(c >= 52 for c in cards):
            raise ValueError("not a card")
        return cards

    def at_end(self) -> bool:
        return self.pos == len(self.data)
