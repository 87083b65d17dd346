"""The full search up to run arrangement: its key, its moves, and agreement with the plain search."""

from __future__ import annotations

import random

import pytest

from app.engine import State, Variant, deal, get_variant
from app.engine.variants import Rules as HouseRules
from app.solver import arrangements
from app.solver.moves import wanted_cards
from app.solver.search import _key_fn, _search, replay
from app.solver.tables import SearchTables

# Shared by the hand-built positions: everything but a few cards is up or in the stock.
HEAD = "rank-and-file redeals=0\nstock: KD KD\n"


def _position(tableau: list[str], foundations: list[str] | None = None) -> State:
    found = foundations or [""] * 8
    lines = [f"f{i}: {cards}".rstrip() for i, cards in enumerate(found)]
    lines += [f"t{i}: {pile}".rstrip() for i, pile in enumerate(tableau)]
    return State.from_text(HEAD + "\n".join(lines) + "\n")


def _key(state: State) -> int:
    return arrangements.key(state, single_pass=True)


@pytest.mark.parametrize(
    ("name", "supported"),
    [
        ("rank-and-file", True),
        ("number-ten", True),
        ("rainbow", False),  # wraps, and the reserve fills empty piles
        ("canfield", False),
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
    assert _key(on_spade) == _key(on_club)
    # The plain key tells them apart: this is the reduction.
    plain = _key_fn(SearchTables.of(on_spade.variant))
    assert plain(on_spade) != plain(on_club)


def test_key_tells_roles_apart() -> None:
    attached = _position(["2C | 8S 7H", "3C | 8C", ""])
    root = _position(["2C | 8S", "3C | 8C", "7H"])
    other_card = _position(["2C | 8S 7D", "3C | 8C", ""])
    other_hidden = _position(["3C | 8S 7H", "2C | 8C", ""])
    keys = {_key(s) for s in (attached, root, other_card, other_hidden)}
    assert len(keys) == 4


def test_normalize_puts_roots_on_free_parents() -> None:
    start = _position(["2C | 8S", "7H 6C", "KS", ""])
    line: list = []
    end = arrangements.normalize(start, line)
    assert replay(start, line) == end  # legal moves, validated
    assert end.tableau[0] == start.tableau[0] + start.tableau[1]
    assert not end.tableau[1]
    assert end.tableau[2] == start.tableau[2]  # a King has no parent: stays a root


def _variant(name: str) -> Variant:
    """A game by name; ``+return`` adds the house rule that foundation cards may return."""
    base, _, rule = name.partition("+")
    variant = get_variant(base)
    return variant.with_rules(HouseRules(foundation_return=True)) if rule else variant


def _random_play(name: str, game: int, steps: int) -> list[State]:
    """The positions of ``steps`` random moves from deal ``game + 1`` (seeded by ``game``).

    Played by the game's own rules; with ``+return`` the positions are then read under
    the house rule (random play that takes cards back rarely gets anywhere late)."""
    rng = random.Random(game)
    state = deal(get_variant(name.partition("+")[0]), game + 1)
    out = []
    for _ in range(steps):
        moves = state.legal_moves()
        if not moves:
            break
        state, _ = state.apply(rng.choice(moves), auto_finish=False, validate=False)
        out.append(state)
    variant = _variant(name)
    return [position._replace(variant=variant) for position in out]


@pytest.mark.parametrize("name", ["rank-and-file", "number-ten", "rank-and-file+return"])
def test_every_move_is_a_no_op_or_a_generated_successor(name: str) -> None:
    """Completeness: whatever legal move is made, the key after it is the key before it
    (a run moved between equal parents) or the key after one of the generated moves,
    and every generated move is legal."""
    rules = SearchTables.of(_variant(name))
    checked = 0
    positions = [s for game in range(12) for s in _random_play(name, game, steps=120)]
    for state in positions:
        generated = set()
        for _score, prefix, before, move, _use in arrangements.children(
            state, wanted_cards(state), rules.draw_score
        ):
            after = replay(state, [*prefix, move])  # validated: legal
            assert before is not None  # arranged children are never placeholders
            assert replay(before, [move]) == after
            generated.add(_key(after))
        here = _key(state)
        for move in state.legal_moves():
            after, _ = state.apply(move, auto_finish=False, validate=False)
            assert _key(after) in generated or _key(after) == here, (state.to_text(), move)
            checked += 1
    assert checked > 5_000


# Not with ``+return``: there the plain search rarely decides a position within budget.
@pytest.mark.parametrize("name", ["rank-and-file", "number-ten"])
def test_agrees_with_the_plain_full_search(name: str) -> None:
    """Soundness: wherever both searches decide, they decide alike, and both outcomes
    occur in the sample (late positions of random play, where spaces are small)."""
    rules = SearchTables.of(_variant(name))
    outcomes: list[str] = []
    for game in range(14):
        state = _random_play(name, game, steps=400)[-1]
        plain, _, _ = _search(state, rules, 3_000, None, False)
        arranged, line, _ = _search(state, rules, 3_000, None, False, arranged=True)
        if arranged == "solved":
            assert replay(state, line).is_won
        if "unknown" not in (plain, arranged):
            assert plain == arranged, state.to_text()
            outcomes.append(plain)
    assert {"solved", "unsolvable"} <= set(outcomes)


# A late Rank and File position from random play: lost, and the plain full search cannot
# show it within 20,000 positions.
def test_proves_a_loss_the_plain_search_cannot() -> None:
    state = _random_play("rank-and-file", 8, steps=400)[-1]
    rules = SearchTables.of(state.variant)
    plain, _, _ = _search(state, rules, 20_000, None, False)
    arranged, _, positions = _search(state, rules, 20_000, None, False, arranged=True)
    assert plain == "unknown"
    assert arranged == "unsolvable"
    assert positions < 1_000
