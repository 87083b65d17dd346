"""The search up to run arrangement, checked against the argument of
app/solver/arrangements.py's module docstring, on the native core's key and moves
(``Position.arranged_key``, ``Position.arranged_children``; app/solver/native/arrangements.c)
with the engine producing the positions and playing every move:

- the key is the docstring's: equal exactly where the docstring's parts (the piles under
  their bases, the roots, the attached cards, foundations, stock, waste, reserve, redeals)
  are equal, on positions of play, their successors and copies no game reaches;
- every child is legal (the engine plays it, validated), and of two positions with one key
  the children of either reach the key after every legal move of the other (or that move
  keeps the key): within one position on positions of play, across two on rearranged and
  swapped copies, and on the long runs where builds wrap (Rainbow, Canfield: the sibling
  clearings, splits and the rejoin);
- positions with one key are won or lost alike, and the search up to run arrangement
  (``core.search(..., arranged=True)``) gives the plain search's verdict (the native copy
  of app/solver/exhaustive.py, ``core.exhaustive``), its lines replaying to a win;
- hand-built cases: a run on either equal parent, roles, the rejoin, the position on a
  winning line that the old normal form answered lost, a loss the plain search cannot show;
- the core refuses games the argument does not hold for, bad draw scores and bad tables.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import VARIANTS, Move, Rules, State, Variant, deal, get_variant, run_start
from app.engine.cards import CODE
from app.solver import arrangements, core, tables
from app.solver.result import replay, wins
from tests.solver.oracle import PLAIN, piles_reordered, seed_line, start, walk

# Shared by the hand-built positions: everything but a few cards is up or in the stock.
HEAD = "rank-and-file redeals=0\nstock: KD KD\n"
DRAW_SCORES = (tables.DRAW_EARLY, tables.DRAW_LAST)  # SearchTables.draw_score: before, after
LATE_STEPS = 400


def _position(tableau: list[str], foundations: list[str] | None = None) -> State:
    found = foundations or [""] * 8
    lines = [f"f{i}: {cards}".rstrip() for i, cards in enumerate(found)]
    lines += [f"t{i}: {pile}".rstrip() for i, pile in enumerate(tableau)]
    return State.from_text(HEAD + "\n".join(lines) + "\n")


def _key(state: State) -> int:
    return core.position(state).arranged_key()


def _after(state: State, texts: list[str]) -> State:
    """``state`` after ``texts``, each move checked by the engine (an illegal one raises)."""
    for text in texts:
        state, _ = state.apply(Move.parse(text), auto_finish=False, validate=True)
    return state


def _successors(state: State) -> Iterator[tuple[Move, State]]:
    for move in state.legal_moves():
        yield move, state.apply(move, auto_finish=False, validate=False)[0]


def meaning(state: State) -> tuple[Any, ...]:
    """What the key stands for (the module docstring, "Roles"): the piles under their
    bases (with the bases and the face-down count), the roots and the attached cards as
    sorted multisets, the foundations' tops (same-suit foundations interchangeable), the
    stock (where it comes out in one pass, by its length: always a prefix of the dealt
    stock), waste, reserve and redeals left."""
    ok = state.variant.stack_ok
    under: list[tuple[tuple[int, ...], int]] = []
    roots: list[int] = []
    attached: list[int] = []
    for pile, hidden in zip(state.tableau, state.hidden, strict=True):
        if pile:
            k = run_start(pile, hidden, ok)
            if k:
                under.append((pile[: k + 1], hidden))
            else:
                roots.append(pile[0])
            attached.extend(pile[k + 1 :])
    found = tuple(sorted(f[-1] if f else -1 for f in state.foundations))
    single_pass = tables.SearchTables.of(state.variant).single_pass
    stock: Any = len(state.stock) if single_pass else state.stock
    return (
        tuple(sorted(under)),
        tuple(sorted(roots)),
        tuple(sorted(attached)),
        found,
        stock,
        state.waste,
        state.reserve,
        state.redeals_left,
    )


@pytest.mark.parametrize(
    ("name", "supported"),
    [
        ("rank-and-file", True),
        ("number-ten", True),
        ("rainbow", True),  # wraps, one deck, its classes (ranks) one cycle
        ("canfield", True),
        ("deauville", False),  # single cards
        ("emperor", False),
        ("rows-of-four", False),
        ("forty-thieves", False),
        ("diplomat", False),
    ],
)
def test_supported_variants(name: str, supported: bool) -> None:
    assert arrangements.supports(get_variant(name)) is supported


def test_key_ignores_which_equal_parent_holds_a_run() -> None:
    on_spade = _position(["2C | 8S 7H 6C", "3C | 8C", "4C | 9D"])
    on_club = _position(["2C | 8S", "3C | 8C 7H 6C", "4C | 9D"])
    spade, club = core.position(on_spade), core.position(on_club)
    assert spade.arranged_key() == club.arranged_key()
    # The plain key tells them apart: this is the reduction.
    assert spade.key() != club.key()
    # And the move between them is one the children leave out (it keeps the key).
    texts = [[*prefix, move] for _s, prefix, move in spade.arranged_children(tables.DRAW_LAST)]
    assert ["t0>t1x2"] not in texts
    assert _after(on_spade, ["t0>t1x2"]) == on_club


def test_key_tells_roles_apart() -> None:
    attached = _position(["2C | 8S 7H", "3C | 8C", ""])
    root = _position(["2C | 8S", "3C | 8C", "7H"])
    other_card = _position(["2C | 8S 7D", "3C | 8C", ""])
    other_hidden = _position(["3C | 8S 7H", "2C | 8C", ""])
    keys = {_key(s) for s in (attached, root, other_card, other_hidden)}
    assert len(keys) == 4


# ------------------------------------------------------------------------ positions
def _variant(name: str) -> Variant:
    """A game by name; ``+return`` adds the house rule that foundation cards may return."""
    base, _, rule = name.partition("+")
    variant = get_variant(base)
    return variant.with_rules(Rules(foundation_return=True)) if rule else variant


def _random_play(name: str, game: int, steps: int) -> list[State]:
    """The positions of ``steps`` random moves from deal ``game + 1`` (seeded by ``game``).

    Played by the game's own rules; with ``+return`` the positions are then read under
    the house rule (random play that takes cards back rarely gets anywhere late)."""
    rng = random.Random(game)
    state = deal(get_variant(name.partition("+")[0]), game + 1)
    out = []
    for _ in range(steps):
        legal = state.legal_moves()
        if not legal:
            break
        state, _ = state.apply(rng.choice(legal), auto_finish=False, validate=False)
        out.append(state)
    variant = _variant(name)
    return [position._replace(variant=variant) for position in out]


# Every supported game under both foundation rules.
ARRANGED = [
    (name, flip)
    for name in sorted(VARIANTS)
    for flip in (False, True)
    if arrangements.supports(start(name, flip, 1).variant)
]


def _redealing(name: str, draw: int, redeals: int | None) -> Variant:
    """A supported game given a stock that comes round (no stock of these games does):
    the key then holds the stock's cards, and the children a redeal."""
    return dataclasses.replace(VARIANTS[name], draw=draw, redeals=redeals)


REDEALING = (_redealing("rank-and-file", 3, 2), _redealing("number-ten", 1, None))


def wrapped_position(name: str, seed: int, up: int, reserve: bool) -> State:
    """A position of a game whose builds wrap (Rainbow, Canfield) with a long run: the
    cases a wrap adds (arrangements.py, "With a wrap") need a run that reaches a card of
    its own bottom card's parent class, which random play rarely builds.

    One suit is wholly in play (Canfield: one of each colour), so a run can pass the base
    rank; of the others about ``up`` cards each are on their foundations. Pile 0 holds a
    run as long as the cards allow, up to 1-11 more than there are classes (13 ranks; 26
    ranks and colours); with ``reserve`` every pile has cards and the reserve a few, else
    the reserve is empty and one to three piles are. The rest lie in the waste and the
    stock, in random order."""
    rng = random.Random(seed)
    variant = get_variant(name)
    ok = variant.stack_ok
    base = rng.randrange(13)  # the base rank, less one
    lines = [f"{name} foundation_return={int(variant.foundation_return)} redeals=0 base={base + 1}"]
    # the suits wholly in play (clubs and spades are black, hearts and diamonds red)
    free = {rng.randrange(2), rng.randrange(2, 4)} if name == "canfield" else {rng.randrange(4)}
    left: list[int] = []
    for f, suit in enumerate(rng.sample(range(4), 4)):
        height = 0 if suit in free else min(12, max(0, up + rng.randrange(-2, 3)))
        cards = [suit * 13 + (base + i) % 13 for i in range(13)]
        lines.append(f"f{f}: " + " ".join(CODE[c] for c in cards[:height]))
        left += cards[height:]
    rng.shuffle(left)
    piles: list[list[int]] = [[left.pop()]]
    classes = 26 if name == "canfield" else 13
    length = classes + rng.randrange(1, 12)
    while len(piles[0]) < length:
        under = piles[0][-1]
        fits = [c for c in left if ok[under * 52 + c]]
        if not fits:
            break
        piles[0].append(fits[0])
        left.remove(fits[0])
    others = 3 if reserve else rng.randrange(0, 3)
    for _ in range(others):
        if left:
            pile = [left.pop()]
            while rng.random() < 0.4 and (fits := [c for c in left if ok[pile[-1] * 52 + c]]):
                pile.append(fits[0])
                left.remove(fits[0])
            piles.append(pile)
    kept = [left.pop() for _ in range(min(len(left), rng.randrange(1, 4)))] if reserve else []
    cut = rng.randrange(len(left) + 1)
    lines += [
        "stock: " + " ".join(CODE[c] for c in left[:cut]),
        "waste: " + " ".join(CODE[c] for c in left[cut:]),
        "reserve: " + " ".join(CODE[c] for c in kept),
    ]
    lines += [f"t{j}: " + " ".join(CODE[c] for c in pile) for j, pile in enumerate(piles)]
    lines += [f"t{j}:" for j in range(len(piles), 4)]
    text = "\n".join(line.rstrip() for line in lines) + "\n"
    if name == "canfield":
        text = text.replace("redeals=0", "redeals=inf")
    return State.from_text(text)


# Rainbow with every card in play in one pile, the reserve empty: 4C goes up only after
# the run on it is taken apart into an empty pile and put back (the "rejoin").
ONE_PILE = """rainbow foundation_return=1 redeals=0 base=1
stock: 5C 6C 7C 8C 9C TC JC QC
waste: KC 6H 7H 8H 9H TH JH QH KH
reserve:
f0: AC 2C 3C
f1: AH 2H 3H 4H
f2: AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD
f3:
t0: 5H 4C 3S 2S AS KS QS JS TS 9S 8S 7S 6S 5S 4S
t1:
t2:
t3:
"""


def wrapped_positions(name: str, up: int) -> list[State]:
    built = [wrapped_position(name, seed, up, reserve=seed % 2 == 0) for seed in range(60)]
    return built + [State.from_text(ONE_PILE)] if name == "rainbow" else built


@cache
def corpus() -> tuple[State, ...]:
    """Positions of every supported game under both rules: early and late in random and
    greedy play (late: piles empty, roots and foundation returns appear), of stocks that
    come round, and the long runs built where builds wrap."""
    positions: list[State] = []
    for n, (name, flip) in enumerate(ARRANGED):
        for game in range(4):
            for greedy in (False, True):
                rng = random.Random(f"{n}-{game}-{greedy}")
                played = list(walk(start(name, flip, 40 + game), rng, LATE_STEPS, greedy))
                positions.extend(played[:60:4] + played[100::6])
    for n, variant in enumerate(REDEALING):
        for game in range(3):
            rng = random.Random(f"redeal-{n}-{game}")
            positions.extend(list(walk(deal(variant, 60 + game), rng, LATE_STEPS, False))[::5])
    for name in ("rainbow", "canfield"):
        positions.extend(wrapped_positions(name, 4))
    return tuple(positions)


def child_kind(state: State, score: int, line: list[str], move: Move) -> str:
    """What an arranged child does (by its move, the clearing before it and its score)."""
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


def test_corpus_covers_the_games_and_every_kind_of_child() -> None:
    """The corpus reaches what the checks below need to see (else they prove little)."""
    positions = corpus()
    games = {(s.variant.name, s.variant.foundation_return) for s in positions}
    assert len(ARRANGED) == 8 and len(games) == len(ARRANGED)
    kinds: set[str] = set()
    for state in positions:
        for score, line, text in core.position(state).arranged_children(15):
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
    assert len(positions) > 2_000


# ------------------------------------------------------------------------ the key
def twinned_copies(state: State) -> list[State]:
    """Copies no game reaches, for the key: a card (the first base, root and attached card
    of the tableau, and the waste's top) swapped with a card of its class (same rank and
    colour) from the stock, else the waste, else the tableau; a stock that comes round
    reversed; one redeal more; a reserve, in either order.

    Within one deal, the parts of the key a game reaches are not independent: a base is
    whichever card was dealt on its face-down cards, the attached cards and the waste
    are what the rest leaves (in the order the stock is dealt), the stock's order follows
    from its cards. So a key leaving one of them out would still be right on every
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


def rehung(state: State, rng: random.Random) -> list[State]:
    """Copies of ``state`` equal to it up to arrangement, found without the key: tableau
    piles reordered, same-suit foundations swapped, and every legal move of a run from an
    attached card onto another top of its parent class (the docstring's first case)."""
    copies = [piles_reordered(state, rng)]
    by_top: dict[int, list[int]] = {}
    for f, pile in enumerate(state.foundations):
        if pile:
            by_top.setdefault(pile[-1], []).append(f)
    for same in by_top.values():
        if len(same) == 1:
            continue
        found = list(state.foundations)
        found[same[0]], found[same[1]] = found[same[1]], found[same[0]]
        copies.append(state._replace(foundations=tuple(found)))
    classes = arrangements._classes(state.variant)
    assert classes is not None
    klass = classes[0]
    ok = state.variant.stack_ok
    for move, after in _successors(state):
        if move.src is None or move.dst is None or not move.src.kind == move.dst.kind == "tableau":
            continue
        pile, target = state.tableau[move.src.index], state.tableau[move.dst.index]
        at = len(pile) - move.count
        attached = at > run_start(pile, state.hidden[move.src.index], ok)
        if attached and target and klass[target[-1]] == klass[pile[at - 1]]:
            copies.append(after)
    return copies


def test_keys_are_equal_exactly_where_the_docstring_says() -> None:
    """Over the corpus, every position's successors (legal moves and arranged children,
    the clearings before them included) and its twinned and rehung copies: two positions
    get one key exactly when the docstring's parts (:func:`meaning`) are equal. A key
    that left a part out would merge positions the argument does not cover."""
    rng = random.Random(7)
    by_meaning: dict[tuple[str, bool, tuple[Any, ...]], tuple[int, bytes]] = {}
    by_key: dict[tuple[str, bool, int], tuple[Any, ...]] = {}
    rearranged = 0  # positions whose key was met already, from another position
    for state in corpus():
        native = core.position(state)
        around = [after for _move, after in _successors(state)]
        for _score, prefix, move in native.arranged_children(15):
            around += [_after(state, [*prefix, move]), _after(state, prefix)]
        for position in [state, *around, *twinned_copies(state), *rehung(state, rng)]:
            game = (position.variant.name, position.variant.foundation_return)
            parts, key = meaning(position), _key(position)
            data = position.to_bytes()
            first_key, first_data = by_meaning.setdefault((*game, parts), (key, data))
            if first_key != key:
                pytest.fail(f"one meaning, two keys: {position}")
            if by_key.setdefault((*game, key), parts) != parts:
                pytest.fail(f"one key, two meanings: {position}")
            rearranged += first_data != data
    assert len(by_meaning) > 20_000 and rearranged > 20_000


def test_positions_equal_up_to_arrangement_get_one_key() -> None:
    rng = random.Random(8)
    copied = moved = 0
    for state in corpus()[::3]:
        key = _key(state)
        for copy in rehung(state, rng):
            assert _key(copy) == key, (state.to_text(), copy.to_text())
            copied += 1
            moved += sorted(copy.tableau) != sorted(state.tableau)
    assert copied > 1_000 and moved > 300


# ------------------------------------------------------------------- the argument
def _generated(state: State, draw_score: int) -> tuple[set[int], set[int]]:
    """The keys the arranged children of ``state`` reach, every child played by the engine
    with validation (so legal), and the lengths of their clearings. The draw child carries
    ``draw_score``, and the children come best first, one per key."""
    keys: list[int] = []
    kinds: set[int] = set()
    children = core.position(state).arranged_children(draw_score)
    scores = [score for score, _prefix, _move in children]
    assert scores == sorted(scores), state.to_text()
    for score, prefix, move in children:
        keys.append(_key(_after(state, [*prefix, move])))
        kinds.add(len(prefix))
        if move in ("draw", "redeal"):
            assert score == draw_score or move == "redeal"
    assert len(set(keys)) == len(keys), state.to_text()
    return set(keys), kinds


def _covers(first: State, second: State, draw_score: int) -> tuple[int, set[int]]:
    """Check that the children of ``first`` reach the key after every legal move of
    ``second`` (one key), or that move keeps it; how many moves were checked, and the
    clearing lengths of the children of ``first``."""
    generated, kinds = _generated(first, draw_score)
    here = _key(second)
    assert here == _key(first)
    assert here not in generated
    checked = 0
    for move, after in _successors(second):
        key = _key(after)
        assert key in generated or key == here, (first.to_text(), second.to_text(), str(move))
        checked += 1
    return checked, kinds


def test_children_reach_the_key_after_every_legal_move() -> None:
    """Completeness at one position: whatever legal move is made, the key after it is the
    key before it (a run rehung on an equal parent) or the key after one of the children;
    under both draw scores."""
    checked = 0
    for state in corpus():
        for draw_score in DRAW_SCORES:
            checked += _covers(state, state, draw_score)[0]
    assert checked > 50_000


def _rearranged(state: State, rng: random.Random, steps: int) -> State:
    """``state`` after up to ``steps`` random moves that leave its key as it is."""
    here = _key(state)
    for _ in range(steps):
        same = [after for _move, after in _successors(state) if _key(after) == here]
        if not same:
            break
        state = rng.choice(same)
    return state


def _swapped(state: State, rng: random.Random) -> State:
    """``state`` with attached cards of one class swapped, pairs at random (so too roots):
    the same key, though often no move reaches it (a run of the only pile in play)."""
    klass, _parent = arrangements._classes(state.variant) or ((), ())
    tableau = [list(pile) for pile in state.tableau]
    places: dict[tuple[int, bool], list[tuple[int, int]]] = {}
    for j, pile in enumerate(tableau):
        base = run_start(tuple(pile), state.hidden[j], state.variant.stack_ok) if pile else 0
        for i in range(base, len(pile)):
            if i > base or not state.hidden[j]:
                places.setdefault((klass[pile[i]], i > base), []).append((j, i))
    for spots in places.values():
        rng.shuffle(spots)
        for (j, i), (k, m) in zip(spots[::2], spots[1::2], strict=False):
            tableau[j][i], tableau[k][m] = tableau[k][m], tableau[j][i]
    return state._replace(tableau=tuple(tuple(pile) for pile in tableau))


def _other_arrangement(state: State, rng: random.Random) -> State:
    other = _swapped(_rearranged(state, rng, 6), rng)
    assert meaning(other) == meaning(state)
    return other


@pytest.mark.parametrize("name", ["rank-and-file", "number-ten", "rainbow", "canfield"])
def test_every_arrangement_offers_every_successor(name: str) -> None:
    """The argument: of two positions with one key, the arranged children of either reach
    the key after any move of the other (or it is a move that keeps the key). On the
    corpus's positions (both rules; where builds wrap, long runs built on purpose too);
    the second position reached by random moves that keep the key, then cards of a class
    swapped. Every way of clearing occurs: none and
    a sibling; where builds wrap a split and a rejoin too."""
    rng = random.Random(7)
    wrap = get_variant(name).build_wrap
    positions = [s for s in corpus() if s.variant.name == name]
    kinds: set[int] = set()
    checked = swapped = 0
    for state in positions:
        other = _other_arrangement(state, rng)
        swapped += other.tableau != state.tableau
        for first, second in ((state, other), (other, state)):
            count, seen = _covers(first, second, tables.DRAW_LAST)
            checked += count
            kinds |= seen
    assert swapped > len(positions) // 4
    assert kinds == ({0, 1, 2, 3} if wrap else {0, 1})
    assert checked > 2_000


def test_the_rejoin_takes_the_run_apart_and_puts_it_back() -> None:
    """ONE_PILE: 4C goes up only by the rejoin, whose clearing the engine plays."""
    state = State.from_text(ONE_PILE)
    children = core.position(state).arranged_children(tables.DRAW_LAST)
    rejoins = [(prefix, move) for _score, prefix, move in children if len(prefix) == 3]
    assert rejoins
    for prefix, move in rejoins:
        after = _after(state, [*prefix, move])
        assert sum(map(len, after.foundations)) == sum(map(len, state.foundations)) + 1
        assert sum(1 for pile in after.tableau if pile) == 1  # put back together
    # No single legal move puts a card up here: only the clearing does.
    assert not [m for m in state.legal_moves() if m.dst and m.dst.kind == "foundation"]


# --------------------------------------------------------------- won or lost alike
@cache
def _sample(name: str) -> tuple[State, ...]:
    """Positions the plain search decides within :data:`PLAIN`, mostly: late ones
    of random play (small spaces; mostly lost), positions near the end of known wins
    (seeds/: won), and where builds wrap long runs built on purpose."""
    late = [_random_play(name, game, steps=600)[-1] for game in range(14)]
    near = []
    for index in (0, 3, 7):
        state, line = seed_line(name, index)
        near += [replay(state, line[: int(len(line) * share)]) for share in (0.95, 0.98)]
    wrapped = wrapped_positions(name, 10)[::4] if get_variant(name).build_wrap else []
    return (*late, *near, *wrapped)


@pytest.mark.parametrize("name", ["rank-and-file", "number-ten", "rainbow", "canfield"])
def test_positions_with_one_key_are_won_or_lost_alike(name: str) -> None:
    """Two arrangements of one key: wherever the plain search decides both, alike; both
    outcomes occur."""
    rng = random.Random(11)
    outcomes: list[str] = []
    for state in _sample(name):
        other = _other_arrangement(state, rng)
        first = core.exhaustive(state, PLAIN).result
        second = core.exhaustive(other, PLAIN).result
        if "unknown" not in (first, second):
            assert first == second, (state.to_text(), other.to_text())
            outcomes.append(first)
    assert outcomes.count("solved") >= 2 and outcomes.count("unsolvable") >= 2


# Not with ``+return``: there the plain search rarely decides a position within budget.
@pytest.mark.parametrize("name", ["rank-and-file", "number-ten", "rainbow", "canfield"])
def test_agrees_with_the_plain_search(name: str) -> None:
    """Soundness: wherever both decide, the search up to run arrangement (with and without
    the relaxed tableau's test, with a budget it often runs out of and a larger one)
    answers as the plain search does, its wins replay through the engine, a budget it
    runs out of says so, and both outcomes occur in the sample."""
    outcomes: list[str] = []
    for state in _sample(name):
        plain = core.exhaustive(state, PLAIN).result
        for relaxed in (False, True):
            for budget in (200, 20_000):
                arranged = core.search(
                    state, core.SearchLimits(budget, arranged=True, relaxed=relaxed)
                )
                if arranged.result == "solved":
                    assert wins(state, arranged.moves)
                elif arranged.result == "unknown":
                    assert arranged.stopped == "positions" and arranged.moves == []
                if "unknown" not in (plain, arranged.result):
                    assert plain == arranged.result, (relaxed, budget, state.to_text())
                    outcomes.append(plain)
    assert outcomes.count("solved") >= 2 and outcomes.count("unsolvable") >= 2


# Rank and File deal 1001 after 165 moves of the line ``solve`` wins it by: winnable. An
# arranged search with a normal form (``normalize``) answers ``unsolvable`` in 24
# positions, and so does a finish from here (docs/decisions/0009-no-run-arrangement-normal-form.md).
ON_A_WINNING_LINE = """\
rank-and-file foundation_return=0 redeals=0 base=-
stock:
waste: KC 4S TH KH 8H 8D KD 4C 2C 8C 7D KC 7D KS JS 9S 9D 9C JH 7H QD QH 8S 7C 3H 6S
f0: AD 2D 3D 4D 5D 6D
f1: AC 2C 3C 4C 5C 6C 7C 8C 9C TC
f2: AS 2S 3S 4S 5S 6S
f3: AC
f4: AH 2H 3H 4H 5H 6H 7H
f5: AS 2S 3S
f6: AD 2D 3D 4D 5D
f7: AH 2H
t0: JS TD
t1: KH QC JD TS 9D
t2: KS QH JC TH 9S
t3: QD JC TD
t4: QS JH TS 9H 8S
t5: KD QC JD TC 9H
t6: 8D 7S 6D 5S
t7: 6C 5H
t8: QS
t9: 8H 7S 6H 5C 4H 3C
"""


def test_a_position_on_a_winning_line_is_not_proven_lost() -> None:
    state = State.from_text(ON_A_WINNING_LINE)
    for relaxed in (False, True):
        found = core.search(state, core.SearchLimits(20_000, arranged=True, relaxed=relaxed))
        assert found.result == "solved"
        assert wins(state, found.moves)
    # The argument holds here, and on another arrangement.
    other = _other_arrangement(state, random.Random(3))
    _covers(state, other, tables.DRAW_LAST)
    _covers(other, state, tables.DRAW_LAST)


# A late Rank and File position from random play: lost, and the plain full search cannot
# show it within 20,000 positions.
def test_proves_a_loss_the_plain_search_cannot() -> None:
    state = _random_play("rank-and-file", 8, steps=LATE_STEPS)[-1]
    plain = core.search(state, core.SearchLimits(20_000, relaxed=False))
    arranged = core.search(state, core.SearchLimits(20_000, arranged=True, relaxed=False))
    assert plain.result == "unknown"
    assert arranged.result == "unsolvable"
    assert arranged.positions < 1_000
    # Lost indeed: the plain full search shows it with more positions.
    assert core.search(state, core.SearchLimits(200_000, relaxed=False)).result == "unsolvable"


# ------------------------------------------------------------- hypothesis playouts
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(ARRANGED),
    number=st.integers(1, 10**6),
    seed=st.integers(0, 2**32),
    greedy=st.booleans(),
    steps=st.integers(1, LATE_STEPS),
)
def test_generated_playouts_keep_to_the_argument(
    config: tuple[str, bool], number: int, seed: int, greedy: bool, steps: int
) -> None:
    rng = random.Random(seed)
    for position in list(walk(start(*config, number), rng, steps, greedy))[::7]:
        other = _other_arrangement(position, rng)
        assert _key(other) == _key(position)
        _covers(position, other, tables.DRAW_LAST)
        _covers(other, position, tables.DRAW_EARLY)


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_unsupported_games_raise(name: str) -> None:
    state = deal(VARIANTS[name], 3)
    native = core.position(state)
    if arrangements.supports(VARIANTS[name]):
        native.arranged_key()
        assert native.arranged_children(15)
        return
    for call in (native.arranged_key, lambda: native.arranged_children(15)):
        with pytest.raises(ValueError, match="not supported|support run arrangement"):
            call()
    with pytest.raises(ValueError, match="support run arrangement"):
        core.search(state, core.SearchLimits(1_000, arranged=True))


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
