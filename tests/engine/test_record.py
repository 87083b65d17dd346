"""Game records (app/engine/record.py): the text round-trips, the parse is strict (each
refusal with its code, line and move number), and a record of random play (undos
included, with the auto-finish on or off, under either house rule) replays to the same
position; a line won by the auto-finish replays to the same won position."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine import (
    RECORD_MAX_MOVES,
    VARIANTS,
    InvalidRecord,
    Move,
    Record,
    Rules,
    State,
    deal,
    get_variant,
)
from app.engine.deal import MAX_DEAL
from app.seeds import read_line

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
MAIN = ("rank-and-file", "rows-of-four", "rainbow")
HEAD = '[Variant "rank-and-file"]\n[Deal "1"]\n'


def test_text_form() -> None:
    moves = tuple(Move.parse(t) for t in ["t0>t8", "t1>t7", "t2>t7", "draw"])
    record = Record(get_variant("dress-parade"), 1, Rules(), moves)
    assert str(record) == (
        '[Variant "rank-and-file"]\n[Deal "1"]\n[Rules "foundation_return=false"]\n\n'
        "t0>t8 t1>t7 t2>t7 draw *\n"
    )
    assert Record.parse(str(record)) == record
    assert record.variant.name == "rank-and-file"  # the alias is written as the id


def test_the_example_of_the_docs_reads_and_plays() -> None:
    docs = (SEEDS.parent / "docs" / "api.md").read_text()
    section = docs[docs.index("### Game records") :]
    example = section.split("```\n", 2)[1]
    record = Record.parse(example)
    assert str(record) == example
    assert record.replay().status == "playing"


def test_long_lines_wrap_and_read_back() -> None:
    variant = get_variant("rank-and-file")
    record = Record(variant, 1, moves=(Move.parse("draw"),) * 200)
    text = str(record)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert Record.parse(text) == record
    # A reader takes any spacing: one long line, tabs, CRLF line ends.
    flat = text.replace("\n", "\r\n").replace("draw draw", "draw\tdraw")
    assert Record.parse(flat) == record


def test_rules_default_and_effective() -> None:
    rainbow = get_variant("rainbow")  # foundation cards return by default
    omitted = Record.parse('[Variant "rainbow"]\n[Deal "7"]\n\n*')
    assert omitted.rules == Rules(foundation_return=rainbow.foundation_return)
    off = Record.parse('[Deal "7"]\n[Rules "foundation_return=false"]\n[Variant "rainbow"]\n\n*')
    assert off.rules == Rules(foundation_return=False)
    assert "foundation_return=false" in str(off)
    assert off.start() == deal(rainbow, 7, Rules(foundation_return=False))


@pytest.mark.parametrize(
    ("text", "code", "line", "move_number"),
    [
        ("", "bad_header", 1, None),
        ("\n" + HEAD + "\n*", "bad_header", 1, None),
        ('[Variant rank-and-file]\n[Deal "1"]\n\n*', "bad_header", 1, None),
        (' [Variant "rank-and-file"]\n[Deal "1"]\n\n*', "bad_header", 1, None),
        (HEAD + '[Player "ada"]\n\n*', "unknown_header", 3, None),
        (HEAD + '[Deal "2"]\n\n*', "duplicate_header", 3, None),
        ('[Variant "rank-and-file"]\n\n*', "missing_header", 1, None),
        ('[Variant "klondike"]\n[Deal "1"]\n\n*', "unknown_variant", 1, None),
        ('[Variant "rank-and-file"]\n[Deal "0"]\n\n*', "invalid_deal", 2, None),
        ('[Variant "rank-and-file"]\n[Deal "012"]\n\n*', "invalid_deal", 2, None),
        (f'[Variant "rank-and-file"]\n[Deal "{MAX_DEAL + 1}"]\n\n*', "invalid_deal", 2, None),
        (HEAD + '[Rules "foundation_return=yes"]\n\n*', "bad_rule", 3, None),
        (
            HEAD + '[Rules "foundation_return=true foundation_return=true"]\n\n*',
            "bad_rule",
            3,
            None,
        ),
        (HEAD + '[Rules "wrap=true"]\n\n*', "unknown_rule", 3, None),
        (HEAD, "missing_result", 3, None),
        (HEAD + "\n", "missing_result", 4, None),
        (HEAD + "\ndraw draw", "missing_result", 4, None),
        (HEAD + "\ndraw\nfoo *", "bad_move", 5, 2),
        (HEAD + "\ndraw * draw *", "bad_move", 4, 2),
        (HEAD + "\nt0>t1x0 *", "bad_count", 4, 1),
        (HEAD + "\ndraw\n\nt0>t9 *", "not_one_rank_lower", 6, 2),
        (HEAD + "\nt0>t42 *", "no_such_pile", 4, 1),
        (HEAD + "\ndraw won", "result_mismatch", 4, None),
    ],
)
def test_strict_parse(text: str, code: str, line: int, move_number: int | None) -> None:
    with pytest.raises(InvalidRecord) as caught:
        Record.parse(text).replay()
    assert (caught.value.code, caught.value.line, caught.value.move_number) == (
        code,
        line,
        move_number,
    )
    assert caught.value.message


def test_bounds() -> None:
    longest = HEAD + "\n" + "draw " * RECORD_MAX_MOVES + "*"
    assert len(Record.parse(longest).moves) == RECORD_MAX_MOVES
    with pytest.raises(InvalidRecord) as caught:
        Record.parse(HEAD + "\n" + "draw " * (RECORD_MAX_MOVES + 1) + "*")
    assert (caught.value.code, caught.value.move_number) == ("too_many_moves", RECORD_MAX_MOVES + 1)
    with pytest.raises(InvalidRecord) as caught:
        Record.parse(HEAD + "\n" + " " * 200_000 + "*")
    assert caught.value.code == "too_long"


def test_moves_after_a_win_are_refused() -> None:
    entry = _seed_entries("rank-and-file")[0]
    line = read_line(entry["line"])
    won = Record(get_variant("rank-and-file"), entry["deal"], moves=tuple(line), won=True)
    assert won.replay().is_won
    with pytest.raises(InvalidRecord) as caught:
        Record.parse("draw won".join(str(won).rsplit("won", 1))).replay()
    assert caught.value.code == "game_over"


def _seed_entries(variant: str) -> list[dict]:
    return json.loads((SEEDS / f"{variant}.json").read_text())["deals"]


@pytest.mark.parametrize("variant_name", MAIN)
def test_a_win_by_the_auto_finish_replays(variant_name: str) -> None:
    """The service plays a seeds line with the auto-finish on: the game is won before the
    line ends, by the auto-finish after a move. The record of what was played (the moves
    up to that one, `won`) replays to the same won position, with as many moves."""
    variant = get_variant(variant_name)
    for entry in _seed_entries(variant_name)[:30]:
        state, played = deal(variant, entry["deal"]), []
        for move in read_line(entry["line"]):
            state, _events = state.apply(move, auto_finish=True)
            played.append(move)
            if state.is_won:
                break
        if len(played) < len(read_line(entry["line"])):
            break
    else:
        pytest.fail("no seed of the first 30 is won by the auto-finish")
    record = Record(variant, entry["deal"], moves=tuple(played), won=True)
    again = Record.parse(str(record))
    assert again == record
    assert again.replay() == state and len(again.moves) == len(played)
    # The same moves with `*` are the game played with the auto-finish off: not won.
    unfinished = Record.parse("*".join(str(record).rsplit("won", 1)))
    assert unfinished.moves == record.moves
    assert unfinished.replay().status == "playing"


# ------------------------------------------------------------ random play, property
@given(
    variant_name=st.sampled_from(sorted(VARIANTS)),
    number=st.one_of(st.integers(1, 31999), st.integers(32000, MAX_DEAL)),
    foundation_return=st.sampled_from([None, True, False]),
    auto_finish=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 120),
)
def test_random_play_round_trips(
    variant_name: str,
    number: int,
    foundation_return: bool | None,
    auto_finish: bool,
    seed: int,
    steps: int,
) -> None:
    """Random play (foundation moves preferred, an undo now and then, as the service
    keeps the log: the undone move leaves it) -> record -> text -> parse -> replay: the
    same record and the same position."""
    rng = random.Random(seed)
    variant = get_variant(variant_name)
    rules = Rules(foundation_return=foundation_return)
    line: list[tuple[State, Move]] = []  # (position before, move) as the log keeps them
    state = deal(variant, number, rules)
    for _ in range(steps):
        if state.is_won:
            break
        if line and rng.random() < 0.1:
            state, _move = line.pop()  # undo: back to the exact position before
            continue
        legal = state.legal_moves()
        if not legal:
            break
        home = [m for m in legal if m.dst is not None and m.dst.kind == "foundation"]
        move = rng.choice(home if home and rng.random() < 0.8 else legal)
        line.append((state, move))
        state, _events = state.apply(move, auto_finish=auto_finish)
    record = Record(variant, number, rules, tuple(m for _s, m in line), won=state.is_won)
    parsed = Record.parse(str(record))
    assert parsed == record
    assert parsed.replay() == state
    assert str(parsed) == str(record)
