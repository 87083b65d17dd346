"""Differential tests of the native run-arrangement functions (app/solver/native/
arrangements.c) against app/solver/arrangements.py, position by position: the children
(same scores, lines, moves, order) and the key (equal native keys exactly where the
Python key tuples are equal).

The corpus: the positions of tests/solver/test_native_core.py's corpus of every game
``arrangements.supports`` (both house rules), late positions of long random and greedy
play, games with a stock that redeals (the stock keyed by its cards), and the long runs of
games whose builds wrap that test_arrangements.py builds (where a run can hold the only
top a move needs); hypothesis adds playouts of its own. Skipped, with the
reason, where the core is not built.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine import VARIANTS, Move, State, Variant, deal, run_start
from app.solver import arrangements, core, moves, tables
from tests.solver.test_arrangements import wrapped_positions
from tests.solver.test_native_core import (
    CONFIGS,
    PLAY,
    SLOW_OK,
    corpus,
    shuffled_copies,
    start,
    walk,
)

pytestmark = pytest.mark.skipif(not core.available(), reason=core.missing_reason())

ARRANGED = [config for config in CONFIGS if arrangements.supports(start(*config, 1).variant)]
DRAW_SCORES = (moves.DRAW_EARLY, moves.DRAW_LAST)  # SearchTables.draw_score: before, after the rest
LATE_STEPS = 400


def _redealing(name: str, draw: int, redeals: int | None) -> Variant:
    """A supported game given a stock that comes round (no stock of these games does):
    the key then holds the stock's cards, and the children a redeal."""
    return dataclasses.replace(VARIANTS[name], draw=draw, redeals=redeals)


REDEALING = (_redealing("rank-and-file", 3, 2), _redealing("number-ten", 1, None))


@cache
def arranged_corpus() -> tuple[State, ...]:
    positions = [s for s in corpus() if arrangements.supports(s.variant)]
    for n, config in enumerate(ARRANGED):
        for game in range(6):
            # Late positions, where piles empty and roots and foundation returns appear.
            for greedy in (False, True):
                rng = random.Random(f"late-{n}-{game}-{greedy}")
                played = list(walk(start(*config, 40 + game), rng, LATE_STEPS, greedy))
                positions.extend(played[100::5])
    for n, variant in enumerate(REDEALING):
        for game in range(3):
            rng = random.Random(f"redeal-{n}-{game}")
            positions.extend(list(walk(deal(variant, 60 + game), rng, LATE_STEPS, False))[::4])
    for name in ("rainbow", "canfield"):
        positions.extend(wrapped_positions(name, 4))
    return tuple(positions)


def python_children(state: State, draw_score: int) -> list[tuple[int, list[str], str]]:
    return [
        (score, [str(m) for m in prefix], str(move))
        for score, prefix, _before, move, _use in arrangements.children(
            state, moves.wanted_cards(state), draw_score
        )
    ]


def key_parts(state: State) -> tuple[Any, ...]:
    return arrangements.key_parts(state, tables.SearchTables.of(state.variant).single_pass)


def test_corpus_covers_the_games_and_every_kind_of_child() -> None:
    """The corpus reaches what the comparisons need to see (else they prove little)."""
    positions = arranged_corpus()
    games = {(s.variant.name, s.variant.foundation_return) for s in positions}
    assert {("rank-and-file", False), ("rank-and-file", True)} <= games
    assert {("number-ten", False), ("number-ten", True)} <= games
    assert len(games) == len(ARRANGED)
    kinds: set[str] = set()
    for state in positions:
        for score, line, text in python_children(state, 15):
            kinds.add(child_kind(state, score, line, Move.parse(text)))
    assert {
        "tableau to foundation, uncovering",
        "tableau to foundation",
        "clear, then to foundation, uncovering",
        "clear, then to foundation",
        "base onto a parent",
        "base to an empty pile",
        "root onto a parent",
        "run to an empty pile",
        "waste to foundation",
        "waste onto a parent",
        "waste to an empty pile",
        "foundation onto a parent",
        "foundation to an empty pile",
        "split, then root onto a parent",
        "split, then to foundation",
        "split into an empty pile, to foundation, rejoined",
        "draw",
        "redeal",
    } <= kinds
    assert len(positions) > 4_000


def child_kind(state: State, score: int, line: list[str], move: Move) -> str:
    """What an arranged child does, as the corpus test names it."""
    if move.src is None or move.dst is None:
        return move.action  # draw or redeal
    src, dst = move.src.kind, move.dst.kind
    empty = dst == "tableau" and not state.tableau[move.dst.index]
    if len(line) == 3:
        return "split into an empty pile, to foundation, rejoined"
    if len(line) == 2:
        return "split, then to foundation"
    if line and src == dst == "tableau":
        return "split, then root onto a parent"
    if src == "tableau" and dst == "foundation":
        uncovering = ", uncovering" if score in (0, 2) else ""
        return ("clear, then " if line else "tableau ") + "to foundation" + uncovering
    if src == "tableau":
        if score == 25:
            return "root onto a parent"
        if score == 60:
            return "run to an empty pile"
        return "base to an empty pile" if empty else "base onto a parent"
    if dst == "foundation":
        return f"{src} to foundation"
    return f"{src} to an empty pile" if empty else f"{src} onto a parent"


# ------------------------------------------------------------------------ checks
def check_position(state: State) -> Any:
    """Children (both draw scores) at one position; the native position."""
    native = core.position(state)
    for draw_score in DRAW_SCORES:
        assert native.arranged_children(draw_score) == python_children(state, draw_score)
    return native


def test_children_agree_at_every_corpus_position() -> None:
    for state in arranged_corpus():
        check_position(state)


def test_children_agree_on_copies_no_game_reaches() -> None:
    """The same on twinned_copies' positions: among them the only ones with a reserve
    (no game here has one), so its top's children are compared too."""
    reserves = 0
    for state in arranged_corpus()[::4]:
        for copy in twinned_copies(state):
            check_position(copy)
            reserves += bool(copy.reserve)
    assert reserves > 500


def successors(state: State) -> Iterator[State]:
    """Every legal move's position (among them runs rehung on an equal parent: the same
    key) and every arranged child's."""
    for move in state.legal_moves():
        yield state.apply(move, auto_finish=False, validate=False)[0]
    for _score, prefix, before, move, _use in arrangements.children(
        state, moves.wanted_cards(state), 15
    ):
        assert before is not None  # arranged children are never placeholders
        after = before.apply(move, auto_finish=False, validate=False)[0]
        yield after
        if prefix:
            yield before


def twinned_copies(state: State) -> list[State]:
    """Copies no game reaches, for the key: a card (the first base, root and attached card
    of the tableau, and the waste's top) swapped with a card of its class (same rank and
    colour) from the stock, else the waste, else the tableau; a stock that comes round
    reversed; one redeal more; a reserve, in either order.

    Within one deal, the parts of the key a game reaches are not independent: a base is
    whichever card was dealt on its face-down cards, the attached cards and the waste
    are what the rest leaves (in the order the stock is dealt), the stock's order follows
    from its cards. So a native key leaving one of them out would still agree on every
    reachable position; these copies tell."""
    classes = arrangements._classes(state.variant)
    assert classes is not None
    klass = classes[0]
    places = [("stock", 0, i) for i in range(len(state.stock))]
    places += [("waste", 0, i) for i in range(len(state.waste))]
    places += [("tableau", j, i) for j, pile in enumerate(state.tableau) for i in range(len(pile))]
    piles = {
        "tableau": [list(p) for p in state.tableau],
        "stock": [list(state.stock)],
        "waste": [list(state.waste)],
    }
    firsts: dict[int, tuple[str, int, int]] = {}  # role -> the place of its first card
    for j, (pile, hidden) in enumerate(zip(state.tableau, state.hidden, strict=True)):
        if pile:
            k = run_start(pile, hidden, state.variant.stack_ok)
            for i in range(k, len(pile)):
                firsts.setdefault(0 if i == k and k else (1 if i == k else 2), ("tableau", j, i))
    if state.waste:
        firsts[3] = ("waste", 0, len(state.waste) - 1)
    copies = []
    for kind, index, at in firsts.values():
        card = piles[kind][index][at]
        for other_kind, other_pile, other_at in places:
            other = piles[other_kind][other_pile][other_at]
            if other != card and klass[other] == klass[card]:
                swapped = {name: [list(p) for p in lists] for name, lists in piles.items()}
                swapped[kind][index][at] = other
                swapped[other_kind][other_pile][other_at] = card
                copies.append(
                    state._replace(
                        tableau=tuple(tuple(p) for p in swapped["tableau"]),
                        stock=tuple(swapped["stock"][0]),
                        waste=tuple(swapped["waste"][0]),
                    )
                )
                break
    if not tables.SearchTables.of(state.variant).single_pass and len(set(state.stock)) > 1:
        copies.append(state._replace(stock=state.stock[::-1]))
    if state.redeals_left is not None:
        copies.append(state._replace(redeals_left=state.redeals_left + 1))
    if len(set(state.stock[:2])) == 2:  # no game here has a reserve: two stock cards make one
        for reserve in (state.stock[:2], state.stock[1::-1]):
            copies.append(state._replace(stock=state.stock[2:], reserve=reserve))
    return copies


def test_native_keys_equal_exactly_when_the_python_key_tuples_are() -> None:
    rng = random.Random(7)
    by_parts: dict[tuple[str, bool, tuple[Any, ...]], tuple[int, bytes]] = {}
    by_key: dict[tuple[str, bool, int], tuple[Any, ...]] = {}
    rearranged = 0  # positions whose key was met already, from another position
    for state in arranged_corpus():
        copies = [*shuffled_copies(state, rng), *twinned_copies(state)]
        for position in [state, *successors(state), *copies]:
            game = (position.variant.name, position.variant.foundation_return)
            parts, key = key_parts(position), core.position(position).arranged_key()
            data = position.to_bytes()
            first_key, first_data = by_parts.setdefault((*game, parts), (key, data))
            if first_key != key:
                pytest.fail(f"equal Python keys, different native keys: {position}")
            if by_key.setdefault((*game, key), parts) != parts:
                pytest.fail(f"different Python keys, equal native keys: {position}")
            rearranged += first_data != data
    assert len(by_parts) > 50_000 and rearranged > 100_000


def rehung(state: State) -> list[State]:
    """Copies of ``state`` only the arrangement key cannot tell from it: tableau piles
    reordered and same-suit foundations swapped (shuffled_copies'; not its stock or reserve
    orders, which the arrangement key holds), and every run moved onto another parent of
    its parent class."""
    copies = [c for c in shuffled_copies(state, random.Random(8)) if c.stock == state.stock]
    copies = [c for c in copies if c.reserve == state.reserve]
    here = key_parts(state)
    for move in state.legal_moves():
        after = state.apply(move, auto_finish=False, validate=False)[0]
        if key_parts(after) == here:
            copies.append(after)
    return copies


def test_positions_equal_up_to_arrangement_get_one_key() -> None:
    copied = moved = 0
    for state in arranged_corpus()[::5]:
        key = core.position(state).arranged_key()
        for copy in rehung(state):
            assert key_parts(copy) == key_parts(state)
            assert core.position(copy).arranged_key() == key
            copied += 1
            moved += copy.tableau != state.tableau and sorted(copy.tableau) != sorted(state.tableau)
    assert copied > 5_000 and moved > 3_000


def test_a_run_on_either_equal_parent_gets_one_key() -> None:
    """The module docstring's example, natively: the plain key tells them apart."""
    head = "rank-and-file redeals=0\nstock: KD KD\n" + "".join(f"f{i}:\n" for i in range(8))
    on_spade = State.from_text(head + "t0: 2C | 8S 7H 6C\nt1: 3C | 8C\nt2: 4C | 9D\n")
    on_club = State.from_text(head + "t0: 2C | 8S\nt1: 3C | 8C 7H 6C\nt2: 4C | 9D\n")
    spade, club = core.position(on_spade), core.position(on_club)
    assert spade.arranged_key() == club.arranged_key()
    assert spade.key() != club.key()


# ------------------------------------------------------------- hypothesis playouts
@SLOW_OK
@given(config=st.sampled_from(ARRANGED), **PLAY, steps=st.integers(1, LATE_STEPS))
def test_generated_playouts_agree(
    config: tuple[str, bool], number: int, seed: int, greedy: bool, steps: int
) -> None:
    for position in list(walk(start(*config, number), random.Random(seed), steps, greedy))[::3]:
        native = check_position(position)
        for copy in rehung(position):
            assert core.position(copy).arranged_key() == native.arranged_key()


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_unsupported_games_raise(name: str) -> None:
    native = core.position(deal(VARIANTS[name], 3))
    if arrangements.supports(VARIANTS[name]):
        native.arranged_key()
        return
    for call in (native.arranged_key, lambda: native.arranged_children(15)):
        with pytest.raises(ValueError, match="not supported"):
            call()


def test_bad_draw_scores_raise() -> None:
    native = core.position(deal(VARIANTS["rank-and-file"], 3))
    for bad in (-1, 128):
        with pytest.raises(ValueError, match="draw_score"):
            native.arranged_children(bad)
    with pytest.raises(TypeError):
        native.arranged_children()  # type: ignore[call-arg]


def _tables_args(name: str) -> dict[str, Any]:
    """core.tables' arguments for a game, to break one at a time."""
    variant = VARIANTS[name]
    rules = tables.SearchTables.of(variant)
    children = bytearray(52 * 52)
    for card, kids in enumerate(rules.children):
        for kid in kids:
            children[card * 52 + kid] = 1
    classes = arrangements._classes(variant)
    assert classes is not None
    klass, parent = classes
    return {
        "name": variant.name,
        "decks": variant.decks,
        "tableau_piles": variant.tableau_piles,
        "foundation_count": variant.foundation_count,
        "draw": variant.draw,
        "runs_any": rules.runs_any,
        "reserve_fills_empty": variant.reserve_fills_empty,
        "foundation_return": variant.foundation_return,
        "single_pass": rules.single_pass,
        "stack_ok": bytes(variant.stack_ok),
        "found_next": bytes(255 if card < 0 else card for card in variant.found_next),
        "children": bytes(children),
        "arranged": True,
        "klass": bytes(klass),
        "parent_class": bytes(255 if c < 0 else c for c in parent),
    }


def test_bad_arranged_tables_raise() -> None:
    Tables = core.native().Tables
    good = _tables_args("rank-and-file")
    Tables(**good)
    plain = {k: v for k, v in good.items() if k not in ("klass", "parent_class")}
    Tables(**{**plain, "arranged": False})
    with pytest.raises(ValueError, match="klass and parent_class"):
        Tables(**plain)
    klass = bytearray(good["klass"])
    klass[0], klass[1] = klass[1], klass[0]  # an Ace and a Two swap classes
    for field, value in [
        ("parent_class", bytes(51)),
        ("klass", b"\x34" * 52),  # class 52
        ("parent_class", b"\x80" * 52),
        ("klass", bytes(klass)),  # no longer the cards each builds on
        ("parent_class", bytes(52)),
        ("runs_any", False),
    ]:
        with pytest.raises(ValueError):
            Tables(**{**good, field: value})
    # Rainbow builds round (a King on an Ace): its classes are one cycle, of one deck.
    rainbow = _tables_args("rainbow")
    Tables(**rainbow)
    with pytest.raises(ValueError, match="wrap"):
        Tables(**{**rainbow, "decks": 2, "foundation_count": 8})

    # Two cycles: ranks 0-5 and 6-12 (by index), each building round within itself.
    def parent_rank(rank: int) -> int:
        return {5: 0, 12: 6}.get(rank, rank + 1)

    ok = bytes(parent_rank(card % 13) == under % 13 for under in range(52) for card in range(52))
    rank_class = bytes(card % 13 for card in range(52))
    parent = bytes(parent_rank(card % 13) for card in range(52))
    with pytest.raises(ValueError, match="wrap"):
        Tables(**{**rainbow, "stack_ok": ok, "klass": rank_class, "parent_class": parent})
