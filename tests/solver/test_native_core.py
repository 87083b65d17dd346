"""The native core (app.solver._core) against the engine, the authority on the rules,
position by position: bytes in and out, legal moves (same list, same order), apply, the
children the search plays (a legal move, then safe foundation moves the engine accepts),
safe foundation moves and settle (as tests/solver/oracle.py states them from SearchTables), and
the plain position key against its definition (:func:`reference_key`).

The corpus: deals of all nine games, each also with its house rule flipped, and the
positions along seeded random and greedy play from them; hypothesis adds playouts of
its own. Bytes the core cannot read must raise, never crash.
"""

from __future__ import annotations

import contextlib
import os
import random
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import VARIANTS, CorruptState, Move, Rules, State, UnknownVariant, deal
from app.engine.moves import DRAW, FOUNDATION, MOVE, TABLEAU
from app.solver import core, tables
from app.solver.plan import suggest
from tests.solver import oracle
from tests.solver.oracle import CONFIGS, piles_reordered, start, walk

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
EXAMPLES = 100 if THOROUGH else 12
DEALS = (1, 2, 31999, 123456)  # both shuffles: Microsoft's below 32000, Mersenne Twister above
STEPS = 70
LONG_STEPS = 600


@cache
def corpus() -> tuple[State, ...]:
    positions: list[State] = []
    for n, (name, flip) in enumerate(CONFIGS):
        for number in DEALS:
            for greedy in (False, True):
                rng = random.Random(f"{n}-{number}-{greedy}")
                positions.extend(walk(start(name, flip, number), rng, STEPS, greedy))
        # One long game, every third position: the stock runs out, redeals come round.
        rng = random.Random(f"{n}-long")
        positions.extend(list(walk(start(name, flip, 5), rng, LONG_STEPS, False))[::3])
    return tuple(positions)


def test_corpus_covers_every_game_both_rules_and_the_rare_moves() -> None:
    """The corpus reaches what the differential tests need to see (else they prove little)."""
    seen: set[tuple[str, bool]] = set()
    texts: set[str] = set()
    for state in corpus():
        seen.add((state.variant.name, state.variant.foundation_return))
        texts.update(str(m)[0] + ">" + str(m).split(">")[-1][0] for m in state.legal_moves())
    assert len(seen) == 18
    assert {"t>f", "t>t", "w>t", "w>f", "r>t", "r>f", "f>t", "d>d", "r>r"} <= texts
    positions = corpus()
    assert any(s.redeals_left and not s.stock and s.waste for s in positions), "a counted redeal"
    assert any(0 < len(s.stock) < s.variant.draw for s in positions), "a short last draw"
    assert any(
        s.variant.reserve_fills_empty and s.reserve and any(len(p) == 1 for p in s.tableau)
        for s in positions
    ), "a pile the reserve refills once emptied"
    assert any(
        h and h == len(p) - 1 for s in positions for h, p in zip(s.hidden, s.tableau, strict=True)
    ), "a card to turn up"


# ------------------------------------------------------------------------ checks
def check_position(state: State) -> Any:
    """Checks 1-5 at one position; the native position."""
    native = core.position(state)
    assert native.to_bytes() == state.to_bytes()
    assert native.is_won == state.is_won
    legal = state.legal_moves()
    assert native.legal_moves() == [str(m) for m in legal]
    # The search's children: each legal move, then safe foundation moves, every one of
    # which the engine accepts, to the same position.
    children = native.children()
    assert [move for move, _safe, _child in children] == [str(m) for m in legal]
    for text_move, safe_moves, child in children:
        after, _ = state.apply(Move.parse(text_move), auto_finish=False, validate=True)
        for text in safe_moves:
            up = Move.parse(text)
            assert up.dst is not None and up.dst.kind == FOUNDATION, text
            after, _ = after.apply(up, auto_finish=False, validate=True)
        assert child.to_bytes() == after.to_bytes(), text_move
    for move in legal:
        after, _ = state.apply(move, auto_finish=False, validate=False)
        assert native.apply(str(move)).to_bytes() == after.to_bytes(), str(move)
    rules = tables.SearchTables.of(state.variant)
    for eager in (False, True):
        safe = oracle.safe_move(state, rules, eager)
        assert native.safe_move(eager=eager) == (None if safe is None else str(safe))
        line: list[Move] = []
        settled = oracle.settle(state, rules, line, eager)
        moves, after_settle = native.settle(eager=eager)
        assert moves == [str(m) for m in line]
        assert after_settle.to_bytes() == settled.to_bytes()
    return native


def test_every_corpus_position_agrees() -> None:
    for state in corpus():
        check_position(state)


def reference_key(state: State) -> tuple[Any, ...]:
    """What the plain key means (docs/solver.md, "The position key"): the position with
    tableau piles (with their face-down counts) and same-suit foundations interchangeable,
    and, where the stock comes out in one pass, the stock by its length (it is always a
    prefix of the dealt stock)."""
    single_pass = tables.SearchTables.of(state.variant).single_pass
    tableau = tuple(sorted(zip(state.hidden, state.tableau, strict=True)))
    found = tuple(sorted(f[-1] if f else -1 for f in state.foundations))
    stock: Any = len(state.stock) if single_pass else state.stock
    return (tableau, found, stock, state.waste, len(state.reserve), state.redeals_left)


def shuffled_copies(state: State, rng: random.Random) -> list[State]:
    """Positions the reference key cannot tell from ``state``: tableau piles reordered,
    same-suit foundations swapped, and with one pass the stock (or the reserve) reordered."""
    copies = [piles_reordered(state, rng)]
    found = list(state.foundations)
    if len(found) == 8 and found[0] and found[4] and found[0][0] // 13 == found[4][0] // 13:
        found[0], found[4] = found[4], found[0]
        copies.append(state._replace(foundations=tuple(found)))
    if tables.SearchTables.of(state.variant).single_pass and len(set(state.stock)) > 1:
        copies.append(state._replace(stock=tuple(rng.sample(state.stock, len(state.stock)))))
    if len(set(state.reserve)) > 1:
        copies.append(state._replace(reserve=tuple(rng.sample(state.reserve, len(state.reserve)))))
    return copies


def test_native_keys_equal_exactly_when_the_reference_keys_are() -> None:
    rng = random.Random(5)
    by_parts: dict[tuple[str, bool, tuple[Any, ...]], int] = {}
    by_key: dict[tuple[str, bool, int], tuple[Any, ...]] = {}
    equal_pairs = 0
    for state in corpus():
        children = [
            state.apply(m, auto_finish=False, validate=False)[0] for m in state.legal_moves()
        ]
        for position in [state, *children, *shuffled_copies(state, rng)]:
            game = (position.variant.name, position.variant.foundation_return)
            parts, key = reference_key(position), core.position(position).key()
            if by_parts.setdefault((*game, parts), key) != key:
                pytest.fail(f"equal reference keys, different native keys: {position}")
            if by_key.setdefault((*game, key), parts) != parts:
                pytest.fail(f"different reference keys, equal native keys: {position}")
            equal_pairs += 1
    assert len(by_parts) > 20_000 and equal_pairs > len(by_parts)


def test_positions_equal_only_up_to_their_key_get_one_key() -> None:
    rng = random.Random(6)
    copied = 0
    for state in corpus()[::7]:
        key = core.position(state).key()
        for copy in shuffled_copies(state, rng):
            assert reference_key(copy) == reference_key(state)
            assert core.position(copy).key() == key
            copied += 1
    assert copied > 300


class Lcg:
    """The 64-bit generator the native ``playout`` draws from (playout.h ``lcg_next``)."""

    def __init__(self, seed: int) -> None:
        self.state = seed & (2**64 - 1)

    def below(self, n: int) -> int:
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        return (self.state >> 33) % n


def engine_playout(state: State, seed: int, steps: int) -> tuple[int, State]:
    """The native playout's walk through the engine: the same generator's choices."""
    rng = Lcg(seed)
    positions = 0
    for _ in range(steps):
        moves = state.legal_moves()
        positions += 1
        if not moves:
            break
        state, _ = state.apply(moves[rng.below(len(moves))], auto_finish=False, validate=True)
    return positions, state


@pytest.mark.parametrize(("name", "flip"), CONFIGS)
def test_a_long_native_playout_is_the_engines(name: str, flip: bool) -> None:
    """The whole loop in C (legal moves, key, apply) against the engine's, 400 moves."""
    for seed in (1, 2, 3):
        state = start(name, flip, 7 + seed)
        assert core.playout(state, seed, 400) == engine_playout(state, seed, 400)


# ------------------------------------------------------------- hypothesis playouts
# A generated game: which deal (both shuffles) and how it is played (seeded, greedy or
# random); the tests add the game and the length.
PLAY = {
    "number": st.one_of(st.integers(1, 31999), st.integers(32000, 10**9)),
    "seed": st.integers(0, 2**32),
    "greedy": st.booleans(),
}
SLOW_OK = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@SLOW_OK
@given(
    config=st.sampled_from(CONFIGS),
    **PLAY,
    steps=st.integers(1, 120),
)
def test_generated_playouts_agree(
    config: tuple[str, bool], number: int, seed: int, greedy: bool, steps: int
) -> None:
    state = start(*config, number)
    for position in walk(state, random.Random(seed), steps, greedy):
        check_position(position)


# ------------------------------------------------------------------- bad input
def limits_exceeded(state: State) -> bool:
    """What the core refuses though the engine reads it: no position of a game has it."""
    return (
        any(len(f) > 13 for f in state.foundations)
        or len(state.cards()) > 104
        or (state.base_rank or 0) > 13
    )


def check_bytes(data: bytes) -> None:
    """The core reads ``data`` as the engine does, or raises; never crashes."""
    try:
        expected: State | None = State.from_bytes(data)
    except (CorruptState, UnknownVariant):  # the engine lets UnknownVariant through
        expected = None
    try:
        native = core.load(data)
    except CorruptState:
        assert expected is None or limits_exceeded(expected)
        return
    assert expected is not None, "the core read bytes the engine refuses"
    assert native.to_bytes() == expected.to_bytes()
    assert native.legal_moves() == [str(m) for m in expected.legal_moves()]


def test_truncated_and_padded_bytes_raise() -> None:
    tables = core.tables(VARIANTS["rainbow"])
    data = deal(VARIANTS["rainbow"], 3).to_bytes()
    for end in range(len(data)):
        with pytest.raises(ValueError, match="do not decode"):
            core.native().Position(tables, data[:end])
        with pytest.raises(CorruptState):
            core.load(data[:end])
    for pad in (b"\0", b"\xff", data):
        with pytest.raises(ValueError, match="trailing bytes"):
            core.native().Position(tables, data + pad)


def test_bytes_of_another_game_or_rule_raise() -> None:
    data = deal(VARIANTS["rank-and-file"], 3).to_bytes()
    with pytest.raises(ValueError, match="pile counts"):
        core.native().Position(core.tables(VARIANTS["canfield"]), data)
    ruled = core.tables(VARIANTS["rank-and-file"].with_rules(Rules(foundation_return=True)))
    with pytest.raises(ValueError, match="house rule"):
        core.native().Position(ruled, data)
    with pytest.raises(CorruptState):
        core.load(data.replace(b"rank-and-file", b"rank-and-fill"))


def test_positions_beyond_two_decks_raise() -> None:
    state = deal(VARIANTS["forty-thieves"], 3)
    crowded = state._replace(waste=state.stock)  # 168 cards
    with pytest.raises(CorruptState):
        core.load(crowded.to_bytes())
    full = state._replace(foundations=((0,) * 14, *state.foundations[1:]))
    with pytest.raises(CorruptState):
        core.load(full.to_bytes())


@settings(max_examples=EXAMPLES * 20, deadline=None)
@given(
    config=st.sampled_from(CONFIGS),
    edits=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 255)), min_size=1, max_size=4),
    cut=st.integers(0, 400),
)
def test_damaged_bytes_raise_or_read_as_the_engine_reads_them(
    config: tuple[str, bool], edits: list[tuple[int, int]], cut: int
) -> None:
    data = bytearray(start(*config, 11).to_bytes())
    for at, value in edits:
        data[at % len(data)] = value
    check_bytes(bytes(data))
    check_bytes(bytes(data[: cut % (len(data) + 1)]))


@settings(max_examples=EXAMPLES * 10, deadline=None)
@given(data=st.binary(max_size=300))
def test_random_bytes_never_crash(data: bytes) -> None:
    for name in ("rank-and-file", "rainbow"):
        with pytest.raises(ValueError):
            core.native().Position(core.tables(VARIANTS[name]), b"\2" + data)
        with contextlib.suppress(ValueError):
            core.native().Position(core.tables(VARIANTS[name]), b"\1" + data)
    check_bytes(b"\1" + data)


@pytest.mark.parametrize(
    "text", ["", "t0", "t0>", "t0>t1x0", "t0>t1x105", "q0>t1", "t100>t1", "t0>t1\0", "drawx"]
)
def test_unreadable_move_texts_raise(text: str) -> None:
    native = core.position(deal(VARIANTS["rank-and-file"], 3))
    with pytest.raises(ValueError, match="not a move"):
        native.apply(text)


def test_moves_that_are_not_legal_raise() -> None:
    state = deal(VARIANTS["rank-and-file"], 3)
    native = core.position(state)
    legal = {str(m) for m in state.legal_moves()}
    for text in ("t0>t1", "t0>f0", "w>t0", "redeal", "t9>t0x4", "f0>t1", "t15>t0", "r>f0"):
        if text not in legal:
            with pytest.raises(ValueError, match="not a legal move"):
                native.apply(text)
    with pytest.raises(TypeError):
        native.apply(Move.parse("draw"))  # type: ignore[arg-type]  # the wrong type, on purpose
    assert native.apply("t0>t1x1" if "t0>t1" in legal else "draw").to_bytes()


def test_bad_tables_raise() -> None:
    good = {
        "name": "x",
        "decks": 1,
        "tableau_piles": 4,
        "foundation_count": 4,
        "draw": 1,
        "runs_any": True,
        "reserve_fills_empty": False,
        "foundation_return": False,
        "single_pass": True,
        "stack_ok": bytes(52 * 52),
        "found_next": bytes(52),
        "children": bytes(52 * 52),
    }
    core.native().Tables(**good)
    for field, value in [
        ("stack_ok", bytes(10)),
        ("children", b"\2" * (52 * 52)),
        ("found_next", b"\x60" * 52),
        ("tableau_piles", 17),
        ("foundation_count", 5),
        ("decks", 3),
        ("draw", 0),
        ("name", "n" * 256),
    ]:
        with pytest.raises(ValueError):
            core.native().Tables(**{**good, field: value})
    with pytest.raises(OverflowError):
        core.native().Tables(**{**good, "draw": -1})


# Scores of scores.h the tests read by value (lowest tried first).
FOUNDATION_UNCOVERS, TO_FOUNDATION, SPLIT_RUN, SPLIT_TO_EMPTY, EMPTY_PILE = 0, 10, 50, 60, 30


def test_the_scored_children_are_the_search_s_and_the_suggestion_its_first() -> None:
    """``core.scored_children`` (what ``plan.suggest`` and the tests' greedy play read) at
    positions of play: legal moves, never straight back where the last move came from,
    draws scored by the rules, foundation moves first-class, an obligation only on a
    move that splits a run or empties a pile (the pile it leaves); and the suggestion is
    a safe move, else the lowest-scored child made first."""
    seen = 0
    for name, flip in CONFIGS:
        rng = random.Random(f"scored-{name}-{flip}")
        rules = tables.SearchTables.of(start(name, flip, 1).variant)
        last: Move | None = None
        state = start(name, flip, 1)
        for _ in range(60):
            legal = state.legal_moves()
            if not legal:
                break
            children = core.scored_children(state, last)
            assert all(move in legal for _score, move, _use in children)
            for score, move, must_use in children:
                if move.action != MOVE:
                    assert score == (rules.draw_score if move.action == DRAW else 95)
                    continue
                assert move.src is not None and move.dst is not None
                if last is not None and last.action == MOVE:
                    assert (move.src, move.dst, move.count) != (last.dst, last.src, last.count)
                if move.dst.kind == FOUNDATION:
                    assert score in (FOUNDATION_UNCOVERS, TO_FOUNDATION) and must_use == -1
                if must_use >= 0:
                    assert move.src.kind == TABLEAU and must_use == move.src.index
                    assert score in (SPLIT_RUN, SPLIT_TO_EMPTY, EMPTY_PILE)
                seen += 1
            safe = core.position(state).safe_move()
            fresh = core.scored_children(state)  # the suggestion knows no last move
            best = min(fresh, key=lambda child: child[0])[1] if fresh else None
            assert suggest(state) == (Move.parse(safe) if safe is not None else best)
            last = rng.choice(legal)
            state, _ = state.apply(last, auto_finish=False, validate=False)
    assert seen > 1_000
