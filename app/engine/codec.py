"""The saved forms of a position: bytes for the database, text for people and tests.

Both read back exactly: ``from_bytes(to_bytes(s)) == s`` and ``from_text(to_text(s)) == s``.
Anything else raises :class:`CorruptState`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import CODE, parse_card
from .errors import CorruptState, InvalidMove
from .variants import Rules, get_variant

if TYPE_CHECKING:
    from .state import State

_BYTES_VERSION = 1

Cards = tuple[int, ...]


def to_bytes(state: State) -> bytes:
    """Compact exact form for the database: about one byte per card."""
    name = state.variant.name.encode()
    out = bytearray([_BYTES_VERSION, len(name)])
    out += name
    out.append(1 if state.variant.foundation_return else 0)
    out.append(255 if state.redeals_left is None else state.redeals_left)
    out.append(state.base_rank or 0)
    for group in (state.stock, state.waste, state.reserve):
        out.append(len(group))
        out += bytes(group)
    out.append(len(state.foundations))
    for f in state.foundations:
        out.append(len(f))
        out += bytes(f)
    out.append(len(state.tableau))
    for hidden, pile in zip(state.hidden, state.tableau, strict=True):
        out += bytes((hidden, len(pile)))
        out += bytes(pile)
    return bytes(out)


def from_bytes(cls: type[State], data: bytes) -> State:
    try:
        return _from_bytes(cls, memoryview(data))
    except (IndexError, ValueError, KeyError) as exc:
        raise CorruptState("corrupt_state", f"bytes do not decode to a position: {exc}") from None


def _from_bytes(cls: type[State], data: memoryview) -> State:
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


def to_text(state: State) -> str:
    """A readable form that :meth:`from_text` reads back exactly.

    One line per pile; ``|`` separates a tableau pile's face-down cards from its
    face-up ones. The first line names the variant and the counters.
    """
    redeals = "inf" if state.redeals_left is None else str(state.redeals_left)
    lines = [
        f"{state.variant.name} foundation_return={int(state.variant.foundation_return)} "
        f"redeals={redeals} base={state.base_rank or '-'}",
        "stock: " + _codes(state.stock),
        "waste: " + _codes(state.waste),
    ]
    if state.variant.reserve_size:
        lines.append("reserve: " + _codes(state.reserve))
    lines += [f"f{i}: " + _codes(f) for i, f in enumerate(state.foundations)]
    for i, (down, pile) in enumerate(zip(state.hidden, state.tableau, strict=True)):
        lines.append(
            f"t{i}: " + (_codes(pile[:down]) + " | " if down else "") + _codes(pile[down:])
        )
    return "\n".join(line.rstrip() for line in lines) + "\n"


def from_text(cls: type[State], text: str) -> State:
    try:
        return _from_text(cls, text)
    except (IndexError, ValueError, InvalidMove) as exc:
        raise CorruptState("corrupt_state", f"not a position: {exc}") from None


def _from_text(cls: type[State], text: str) -> State:
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
