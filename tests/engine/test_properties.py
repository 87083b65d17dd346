"""Property tests over random play of every variant (hypothesis picks the deal number, the
random seed of the playout and its policy; ``HYPOTHESIS_PROFILE=thorough`` for more).

Checked at every position reached: the card multiset is conserved; legal_moves() has no
duplicates and every listed move applies; random syntactically possible moves that are not
listed are refused with IllegalMove and change nothing; at sampled positions legal_moves()
equals the set of all candidate moves that is_legal() accepts; the previous position is
kept (undo) and survives bytes; bytes and text forms round-trip; the public view shows no
face-down card nor the stock order, and neither do events or error messages; moves
round-trip through text and JSON; won means every card is on the foundations; a stuck game
can only draw to the end without ever finding a move.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from functools import cache
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.engine import VARIANTS, IllegalMove, Move, State
from app.engine.deal import MAX_DEAL, deal

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

SUITS = "CSHD"
RANKS = "A23456789TJQK"
FULL_DECK = [r + s for s in SUITS for r in RANKS]
DEAL_NUMBERS = st.one_of(st.integers(1, 31999), st.integers(32000, 10**7), st.integers(1, MAX_DEAL))
FULL_CHECK_EVERY = 10
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
STEPS = st.integers(5, 200 if THOROUGH else 40)
ENDGAME_STEPS = 200 if THOROUGH else 45


# ------------------------------------------------------------------ candidate moves
@cache
def _pile_names(variant: str) -> tuple[str, ...]:
    spec = SPECS[variant]
    return (
        "s",
        "w",
        "r",
        *(f"f{i}" for i in range(4 * spec.decks + 1)),  # one past the last: no such pile
        *(f"t{i}" for i in range(spec.piles + 1)),
    )


@cache
def _candidate(src: str, dst: str, count: int) -> Move:
    return Move.parse(f"{src}>{dst}" + (f"x{count}" if count > 1 else ""))


def _max_count(text: dict[str, str], src: str) -> int:
    """Up to one more card than the source pile holds."""
    return len(text.get(_long(src), "").replace("|", " ").split()) + 1


def candidates(state: State, text: dict[str, str]) -> list[Move]:
    """Every syntactically possible move worth trying here: all pile pairs, counts up to
    one more than the source pile holds, draw and redeal."""
    out = [Move.parse("draw"), Move.parse("redeal")]
    names = _pile_names(piles_variant(state))
    for src in names:
        top = _max_count(text, src)
        for dst in names:
            out += [_candidate(src, dst, count) for count in range(1, top + 1)]
    return out


def random_candidate(state: State, text: dict[str, str], rng: random.Random) -> Move:
    names = _pile_names(piles_variant(state))
    if rng.random() < 0.05:
        return Move.parse(rng.choice(["draw", "redeal"]))
    src, dst = rng.choice(names), rng.choice(names)
    return _candidate(src, dst, rng.randint(1, _max_count(text, src)))


def _long(short: str) -> str:
    return {"s": "stock", "w": "waste", "r": "reserve"}.get(short, short)


def piles_variant(state: State) -> str:
    return state.variant.name


# ------------------------------------------------------------------------ checks
def check_conserved(state: State, expected: Counter[str]) -> None:
    assert Counter(all_cards(state)) == expected


def check_round_trips(state: State) -> None:
    assert State.from_bytes(state.to_bytes()) == state
    assert State.from_text(state.to_text()) == state
    assert str(state) == state.to_text()


_CARD_KEYS = {"code", "rank", "suit", "face_up", "click"}
_PILE_KEYS = {"id", "kind", "cards", "movable_from", "click"}


def check_public(state: State, text: dict[str, str]) -> None:
    """Exactly the visible cards appear, in their piles; hidden ones only as {face_up: false}."""
    public = state.public()
    json.dumps(public)  # JSON-ready
    assert set(public) == {"piles", "redeals_left", "base_rank"}
    shown: list[str] = []
    down = 0
    for pile in public["piles"]:
        extra = {"suit", "base_rank"} if pile["kind"] == "foundation" else set()
        assert set(pile) == _PILE_KEYS | extra
        cards = pile["cards"]
        up = []
        for c in cards:
            if c.get("face_up"):
                assert set(c) == _CARD_KEYS
                up.append(c["code"])
            else:
                assert c == {"face_up": False}
                down += 1
        shown += up
        ident = pile["id"]
        label = ident if ident in ("stock", "waste", "reserve") else ident[0] + ident.split("-")[1]
        assert len(cards) == len(text[label].replace("|", " ").split())
        if ident == "stock":
            assert not up
        elif label[0] == "t":
            assert up == text[label].split("|")[-1].split()
    assert Counter(shown) == Counter(visible_cards(state))
    assert down == len(hidden_cards(state))


def check_no_leak(text: str, state: State, visible: set[str] | None = None) -> None:
    """Card codes in a message or event are cards the player can see."""
    if visible is None:
        visible = set(visible_cards(state))
    for code in CARD_CODE.findall(text):
        assert code in visible, (code, text)


def check_move_forms(move: Move) -> None:
    assert Move.parse(str(move)) == move
    assert Move.from_json(move.to_json()) == move
    assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move


def check_full_candidates(state: State, legal: list[Move]) -> None:
    accepted = {m for m in candidates(state, piles(state)) if state.is_legal(m)}
    assert accepted == set(legal)


def check_won(state: State, total: int) -> None:
    on_foundations = sum(len(text.split()) for k, text in piles(state).items() if k[0] == "f")
    assert state.is_won == (on_foundations == total)
    if state.is_won:
        assert state.status == "won"
        assert state.legal_moves() == []
        assert all(text == "" for k, text in piles(state).items() if k[0] != "f")


def check_stuck(state: State, legal: list[Move]) -> None:
    """Stuck: no move now, and drawing to the end (redeals included) never brings one.
    Draw-one games: not stuck and no move now means some draw brings a move."""
    if state.is_won:
        return
    moves_now = [m for m in legal if m.action == "move"]
    if moves_now:
        assert not state.is_stuck
        return
    draw_one = SPECS[piles_variant(state)].draw == 1
    found = False
    s, passes = state, 0
    while True:
        options = s.legal_moves()
        if any(m.action == "move" for m in options):
            found = True
            break
        stock_moves = [m for m in options if m.action in ("draw", "redeal")]
        if not stock_moves:
            break
        if stock_moves[0].action == "redeal":
            passes += 1
            if passes > 3:
                break
        s, _ = s.apply(stock_moves[0], auto_finish=False)
    if state.is_stuck:
        assert not found
        assert state.status == "stuck"
    elif draw_one:
        assert found
    if not state.is_stuck:
        assert state.status == "playing"


def check_events(events: tuple[Any, ...], before: State, move: Move, after: State) -> None:
    assert events[0].type == "move" and events[0].move == move
    for e in events:
        json.dumps(e.to_json())
        check_no_leak(json.dumps(e.to_json()), after)
        if e.type == "auto_finish":
            assert e.move is not None and e.move.dst.kind == "foundation"


# ------------------------------------------------------------------------ playout
def pick(state: State, legal: list[Move], rng: random.Random, greedy: bool) -> Move:
    if greedy:
        home = [m for m in legal if m.dst is not None and m.dst.kind == "foundation"]
        if home and rng.random() < 0.9:
            return rng.choice(home)
        moves = [m for m in legal if m.src is not None and m.src.kind != "foundation"]
        if moves and rng.random() < 0.6:
            return rng.choice(moves)
    return rng.choice(legal)


def fast_forward(state: State, rng: random.Random, greedy: bool, moves: int) -> State:
    """Play ``moves`` moves without checks, to reach later positions cheaply."""
    for _ in range(moves):
        legal = state.legal_moves()
        if not legal:
            break
        state, _ = state.apply(pick(state, legal, rng, greedy))
    return state


def play(state: State, rng: random.Random, greedy: bool, steps: int, expected: Counter[str]):
    total = sum(expected.values())
    for step in range(steps):
        text = piles(state)
        legal = state.legal_moves()
        assert len(set(legal)) == len(legal), "duplicate moves"
        check_conserved(state, expected)
        check_round_trips(state)
        check_public(state, text)
        check_won(state, total)
        check_stuck(state, legal)
        if step % FULL_CHECK_EVERY == 0:
            check_full_candidates(state, legal)
        # Every listed move applies (and is legal).
        for move in legal:
            assert state.is_legal(move)
            check_move_forms(move)
            new, events = state.apply(move, auto_finish=False)
            assert events[0].move == move
        # Random illegal moves are refused and change nothing.
        legal_set = set(legal)
        visible = set(visible_cards(state))
        pool = [random_candidate(state, text, rng) for _ in range(12)]
        before = state.to_bytes()
        for move in (m for m in pool if m not in legal_set):
            check_move_forms(move)
            assert not state.is_legal(move)
            try:
                state.apply(move)
            except IllegalMove as err:
                assert err.code and err.message
                check_no_leak(err.message, state, visible)
            else:
                raise AssertionError(f"{move} applied but is not listed")
            assert state.to_bytes() == before
        if not legal:
            break
        move = pick(state, legal, rng, greedy)
        # Undo is keeping the previous value: it is untouched and restores exactly.
        saved = state.to_bytes()
        new, events = state.apply(move, auto_finish=rng.random() < 0.5)
        assert state.to_bytes() == saved
        assert State.from_bytes(saved) == state
        check_events(events, state, move, new)
        redo, _ = State.from_bytes(saved).apply(move, auto_finish=False)
        assert redo == new or any(e.type == "auto_finish" for e in events)
        state = new
    check_conserved(state, expected)
    check_won(state, total)
    return state


# ------------------------------------------------------------------------- tests
def _deck(variant: str) -> Counter[str]:
    return Counter(FULL_DECK * SPECS[variant].decks)


def _make_play_test(variant: str):
    @given(
        number=DEAL_NUMBERS,
        seed=st.integers(0, 2**32 - 1),
        greedy=st.booleans(),
        skip=st.integers(0, 400),
        steps=STEPS,
    )
    def test(number: int, seed: int, greedy: bool, skip: int, steps: int) -> None:
        rng = random.Random(seed)
        state = fast_forward(deal(VARIANTS[variant], number), rng, greedy, skip)
        play(state, rng, greedy, steps, _deck(variant))

    test.__name__ = f"test_random_play_{variant.replace('-', '_')}"
    return test


for _v in ALL:
    _t = _make_play_test(_v)
    globals()[_t.__name__] = _t


@st.composite
def near_won(draw: st.DrawFn, variant: str) -> State:
    """Every card on the foundations but a few, pulled off the tops onto the tableau,
    waste and stock (some tableau cards face down): a position from which play wins."""
    spec = SPECS[variant]
    base = draw(st.integers(1, 13)) if spec.reserve else 1
    found = [
        [RANKS[(base - 1 + k) % 13] + SUITS[i % 4] for k in range(13)]
        for i in range(4 * spec.decks)
    ]
    tableau: list[list[str]] = [[] for _ in range(spec.piles)]
    waste: list[str] = []
    stock: list[str] = []
    for _ in range(draw(st.integers(1, 30))):
        f = draw(st.integers(0, len(found) - 1))
        if not found[f]:
            continue
        card = found[f].pop()
        where = draw(st.sampled_from("tttttws"))
        if where == "t":
            tableau[draw(st.integers(0, spec.piles - 1))].append(card)
        else:
            (waste if where == "w" else stock).append(card)
    t = []
    for pile in tableau:
        down = draw(st.integers(0, max(len(pile) - 1, 0)))
        t.append(" ".join(pile[:down]) + " | " + " ".join(pile[down:]) if down else " ".join(pile))
    return position(
        variant,
        t=t,
        f=[" ".join(p) for p in found],
        stock=" ".join(stock),
        waste=" ".join(waste),
        base=base if spec.reserve else None,
    )


def _make_endgame_test(variant: str):
    @given(state=near_won(variant), seed=st.integers(0, 2**32 - 1))
    def test(state: State, seed: int) -> None:
        final = play(state, random.Random(seed), True, ENDGAME_STEPS, _deck(variant))
        if final.is_won:
            assert Counter(
                c for k, text in piles(final).items() if k[0] == "f" for c in text.split()
            ) == _deck(variant)

    test.__name__ = f"test_endgame_play_{variant.replace('-', '_')}"
    return test


for _v in ALL:
    _t = _make_endgame_test(_v)
    globals()[_t.__name__] = _t
