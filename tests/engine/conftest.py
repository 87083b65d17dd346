"""Shared helpers of the engine tests: hand-built positions, legal/illegal assertions,
a reading of the text form, and the hypothesis profiles.

Profiles: ``ci`` (the default) keeps the whole engine suite under about a minute on a
shared two-core machine; ``HYPOTHESIS_PROFILE=thorough`` runs ten times as many examples
and longer playouts (several minutes).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, settings

from app.engine import IllegalMove, Move, State

settings.register_profile(
    "ci",
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# --------------------------------------------------------------------------- spec
@dataclass(frozen=True)
class Spec:
    """What docs/rules.md says about one game, written down independently of the engine."""

    decks: int
    piles: int
    build: str  # "alternate", "any", "suit"
    wrap: bool  # a King goes on an Ace in the tableau
    runs: bool  # ordered runs move together
    foundation_return: bool
    draw: int = 1
    redeals: int | None = 0  # None: unlimited
    reserve: bool = False  # 13-card reserve, base rank from the first card, foundation wrap


SPECS: dict[str, Spec] = {
    "rank-and-file": Spec(2, 10, "alternate", False, True, False),
    "deauville": Spec(2, 10, "alternate", False, False, False),
    "emperor": Spec(2, 10, "alternate", False, False, True),
    "number-ten": Spec(2, 10, "alternate", False, True, False),
    "forty-thieves": Spec(2, 10, "suit", False, False, False),
    "rows-of-four": Spec(2, 8, "any", False, False, True, redeals=2),
    "diplomat": Spec(2, 8, "any", False, False, True, redeals=0),
    "rainbow": Spec(1, 4, "any", True, True, True, reserve=True),
    "canfield": Spec(1, 4, "alternate", True, True, False, draw=3, redeals=None, reserve=True),
}

ALL = sorted(SPECS)
RETURN_ALLOWED = [v for v in ALL if SPECS[v].foundation_return]
RETURN_FORBIDDEN = [v for v in ALL if not SPECS[v].foundation_return]
RUNS = [v for v in ALL if SPECS[v].runs]
SINGLES = [v for v in ALL if not SPECS[v].runs]
ACE_BASED = [v for v in ALL if not SPECS[v].reserve]
RESERVE_GAMES = [v for v in ALL if SPECS[v].reserve]


# ---------------------------------------------------------------------- positions
def position(
    variant: str,
    *,
    t: Iterable[str] = (),
    f: Iterable[str] = (),
    stock: str = "",
    waste: str = "",
    reserve: str = "",
    redeals: int | None | str = "default",
    base: int | None = None,
    foundation_return: bool | None = None,
) -> State:
    """A hand-built position in the text form ``State.from_text`` reads.

    ``t``: tableau piles from t0 on, ``"down cards | up cards"`` (bottom first); missing
    piles are empty. ``f``: foundations from f0 on. Stock, waste and reserve: top last.
    """
    t, f = list(t), list(f)
    spec = SPECS[variant]
    assert len(t) <= spec.piles and len(f) <= 4 * spec.decks, "more piles than the game has"
    head = [variant]
    if foundation_return is not None:
        head.append(f"foundation_return={int(foundation_return)}")
    if redeals != "default":
        head.append(f"redeals={'inf' if redeals is None else redeals}")
    head.append(f"base={base if base is not None else '-'}")
    lines = [" ".join(head), f"stock: {stock}", f"waste: {waste}"]
    if SPECS[variant].reserve:
        lines.append(f"reserve: {reserve}")
    lines += [f"f{i}: {cards}" for i, cards in enumerate(f)]
    lines += [f"t{i}: {cards}" for i, cards in enumerate(t)]
    return State.from_text("\n".join(lines) + "\n")


def piles(state: State) -> dict[str, str]:
    """The text form read back as ``{"t0": "3D | 7D", "stock": "...", ...}``."""
    out = {}
    for line in state.to_text().splitlines()[1:]:
        label, _, rest = line.partition(":")
        out[label.strip()] = " ".join(rest.split())
    return out


def header(state: State) -> dict[str, str]:
    first = state.to_text().splitlines()[0].split()
    return {"variant": first[0], **dict(part.split("=", 1) for part in first[1:])}


def cards_of(text: str) -> list[str]:
    return [c for c in text.replace("|", " ").split()]


def all_cards(state: State) -> list[str]:
    """Every card code of the position, read from its text form."""
    return [c for text in piles(state).values() for c in cards_of(text)]


def hidden_cards(state: State) -> list[str]:
    """The cards a player must not see: stock, face-down tableau cards, reserve but its top."""
    out: list[str] = []
    for label, text in piles(state).items():
        if label == "stock":
            out += cards_of(text)
        elif label == "reserve":
            out += cards_of(text)[:-1]
        elif label.startswith("t") and "|" in text:
            out += text.split("|")[0].split()
    return out


def visible_cards(state: State) -> list[str]:
    hidden = hidden_cards(state)
    visible = all_cards(state)
    for c in hidden:
        visible.remove(c)
    return visible


def mv(text: str) -> Move:
    return Move.parse(text)


# --------------------------------------------------------------------- assertions
def assert_legal(state: State, move: Move | str, **kwargs: bool):
    """The move is listed, is legal and applies; returns (new state, events)."""
    move = mv(move) if isinstance(move, str) else move
    assert move in state.legal_moves(), f"{move} not listed in\n{state}"
    assert state.is_legal(move)
    before = state.to_bytes()
    new, events = state.apply(move, auto_finish=kwargs.get("auto_finish", False))
    assert state.to_bytes() == before
    assert events and events[0].type == "move" and events[0].move == move
    assert sorted(all_cards(new)) == sorted(all_cards(state))
    return new, events


def assert_illegal(state: State, move: Move | str, code: str | set[str]) -> IllegalMove:
    """The move is not listed, not legal, and apply refuses it with ``code``, changing nothing."""
    move = mv(move) if isinstance(move, str) else move
    assert move not in state.legal_moves(), f"{move} listed in\n{state}"
    assert not state.is_legal(move)
    before = state.to_bytes()
    with pytest.raises(IllegalMove) as info:
        state.apply(move)
    codes = {code} if isinstance(code, str) else code
    assert info.value.code in codes, (info.value.code, info.value.message)
    assert isinstance(info.value.message, str) and len(info.value.message) > 10
    assert info.value.message != info.value.code
    assert state.to_bytes() == before
    return info.value


CARD_CODE = re.compile(r"\b[A2-9TJQK][SHDC]\b")
