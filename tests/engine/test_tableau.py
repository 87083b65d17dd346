"""Tableau rules of docs/rules.md, per variant: building (colour, suit, rank, wrap), run moves,
face-down cards, empty piles. Every test checks the legal and the illegal side."""

from __future__ import annotations

import pytest

from app.engine import VARIANTS, State

from .conftest import (
    ALL,
    RUNS,
    SINGLES,
    SPECS,
    assert_illegal,
    assert_legal,
    piles,
    position,
)


def test_every_variant_has_a_spec() -> None:
    assert set(VARIANTS) == set(SPECS)


# ------------------------------------------------------------------ building down
@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize("source", ["tableau", "waste"])
def test_builds_one_rank_lower(variant: str, source: str) -> None:
    """A red 8 on a black 9 (same suit 8 for Forty Thieves) is legal from tableau or waste."""
    moving = "8S" if SPECS[variant].build == "suit" else "8H"
    if source == "tableau":
        state = position(variant, t=["9S", "KD " + moving, "KC", "KC"])
        move = "t1>t0"
    else:
        state = position(variant, t=["9S", "KD", "KC", "KC"], waste="2C " + moving)
        move = "w>t0"
    new, _ = assert_legal(state, move)
    assert piles(new)["t0"] == "9S " + moving
    if source == "waste":
        assert piles(new)["waste"] == "2C"


@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize("moving", ["7H", "TH", "9H", "7D", "QD"])
def test_not_one_rank_lower_is_refused(variant: str, moving: str) -> None:
    if SPECS[variant].build == "suit":
        moving = moving[0] + "S"
    state = position(variant, t=["9S", "KD " + moving, "KC", "KC"])
    err = assert_illegal(state, "t1>t0", "not_one_rank_lower")
    assert "rank" in err.message


@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize(
    ("target", "moving"), [("9S", "8C"), ("9C", "8S"), ("9H", "8D"), ("9D", "8H")]
)
def test_colour_rule(variant: str, target: str, moving: str) -> None:
    """Same colour: refused in alternate-colour games, fine regardless of suit, in-suit only
    when the suits match."""
    state = position(variant, t=[target, "KD " + moving, "KC", "KC"])
    build = SPECS[variant].build
    if build == "alternate":
        err = assert_illegal(state, "t1>t0", "wrong_colour")
        assert "colour" in err.message
    elif build == "any":
        assert_legal(state, "t1>t0")
    else:
        assert_illegal(state, "t1>t0", "wrong_suit")


@pytest.mark.parametrize("variant", ALL)
def test_in_suit_building(variant: str) -> None:
    """Forty Thieves builds in suit: an 8 of another suit of either colour is refused."""
    build = SPECS[variant].build
    for moving in ("8H", "8C", "8D"):
        state = position(variant, t=["9S", "KD " + moving, "KC", "KC"])
        if build == "suit":
            err = assert_illegal(state, "t1>t0", "wrong_suit")
            assert "suit" in err.message
        elif build == "alternate" and moving == "8C":
            assert_illegal(state, "t1>t0", "wrong_colour")
        else:
            assert_legal(state, "t1>t0")


@pytest.mark.parametrize("variant", ALL)
def test_king_on_ace_only_with_wrap(variant: str) -> None:
    """No wrap: nothing goes on an Ace. Rainbow and Canfield wrap: a King goes on an Ace."""
    spec = SPECS[variant]
    king = {"alternate": "KH", "any": "KS", "suit": "KS"}[spec.build]
    state = position(variant, t=["AS", "2D " + king, "KC", "KC"])
    if spec.wrap:
        new, _ = assert_legal(state, "t1>t0")
        assert piles(new)["t0"] == "AS " + king
    else:
        err = assert_illegal(state, "t1>t0", "nothing_on_ace")
        assert "Ace" in err.message


@pytest.mark.parametrize("variant", ALL)
def test_only_king_goes_on_ace_with_wrap(variant: str) -> None:
    """A Queen (or a Two) on an Ace is never one rank lower, wrap or not."""
    suit = "S" if SPECS[variant].build == "suit" else "H"
    state = position(variant, t=["AS", "2D Q" + suit, "KC 2" + suit, "KC"])
    assert_illegal(state, "t1>t0", {"not_one_rank_lower", "nothing_on_ace"})
    assert_illegal(state, "t2>t0", {"not_one_rank_lower", "nothing_on_ace"})


@pytest.mark.parametrize("variant", ALL)
def test_king_on_ace_wrong_colour_with_wrap(variant: str) -> None:
    if SPECS[variant].wrap and SPECS[variant].build == "alternate":
        state = position(variant, t=["AS", "2D KC", "KC", "KC"])
        assert_illegal(state, "t1>t0", "wrong_colour")


# ------------------------------------------------------------------------ run moves
def _run(variant: str) -> tuple[str, str]:
    """An ordered run of three for the variant's building rule, and a card it goes on."""
    build = SPECS[variant].build
    if build == "suit":
        return "9S 8S 7S", "TS"
    return "9S 8H 7C", "TH"


@pytest.mark.parametrize("variant", RUNS)
@pytest.mark.parametrize("count", [1, 2, 3])
def test_any_ordered_run_moves(variant: str, count: int) -> None:
    """Any face-up card moves with all cards above it when they form an ordered run."""
    run, _ = _run(variant)
    cards = run.split()
    moving = cards[-count:]
    bottom = moving[0]
    target = {"9S": "TH", "8H": "9C", "7C": "8D"}[bottom]
    state = position(variant, t=[target, "KD | " + run, "KC", "KC"])
    new, events = assert_legal(state, f"t1>t0x{count}")
    assert piles(new)["t0"] == " ".join([target, *moving])
    rest = cards[:-count]
    if rest:
        assert piles(new)["t1"] == "KD | " + " ".join(rest)
    else:
        assert piles(new)["t1"] == "KD"
        assert [e.type for e in events] == ["move", "turn_up"]


@pytest.mark.parametrize("variant", RUNS)
def test_long_run_moves_whatever_its_length(variant: str) -> None:
    """No limit on the number of cards (no free-cell formula)."""
    run = "QS JH TC 9D 8S 7H 6C 5D 4S 3H 2C"
    target = "KH"
    state = position(variant, t=[target, "5H | " + run, "KC", "KC"])
    new, _ = assert_legal(state, "t1>t0x11")
    assert piles(new)["t0"] == target + " " + run
    assert piles(new)["t1"] == "5H"


@pytest.mark.parametrize("variant", RUNS)
def test_run_with_wrap(variant: str) -> None:
    """Rainbow and Canfield: a run may wrap (2, Ace, King); elsewhere it is not a run."""
    state = position(variant, t=["3H", "5D | 2S AH KS", "KC", "KC"])
    if SPECS[variant].wrap:
        new, _ = assert_legal(state, "t1>t0x3")
        assert piles(new)["t0"] == "3H 2S AH KS"
    else:
        assert_illegal(state, "t1>t0x3", "run_not_in_sequence")
        assert_illegal(state, "t1>t0x2", "run_not_in_sequence")


@pytest.mark.parametrize("variant", RUNS)
@pytest.mark.parametrize(
    ("run", "ordered_in"),
    [
        ("9S 8H 8C", set()),  # a rank repeats
        ("9S 8H 6C", set()),  # a rank is skipped
        ("9S 8H 9C", set()),  # goes up
        ("9S 8H 7H", {"any"}),  # same colour: a run only regardless of suit
        ("9S 8S 7S", {"any"}),  # same suit: not alternating
    ],
)
def test_run_not_in_sequence(variant: str, run: str, ordered_in: set[str]) -> None:
    state = position(variant, t=["TH", "KD | " + run, "KC", "KC"])
    if SPECS[variant].build in ordered_in:
        assert_legal(state, "t1>t0x3")
    else:
        err = assert_illegal(state, "t1>t0x3", "run_not_in_sequence")
        assert "run" in err.message


@pytest.mark.parametrize("variant", SINGLES)
def test_single_card_games_move_no_runs(variant: str) -> None:
    """Rows of Four, Deauville, Emperor, Forty Thieves, Diplomat: one card at a time."""
    run, _ = _run(variant)
    eight = "8S" if SPECS[variant].build == "suit" else "8D"
    state = position(variant, t=["KC", run, "KC", eight])
    err = assert_illegal(state, "t1>t3x2", "single_cards_only")
    assert "one card" in err.message
    assert_illegal(state, "t1>t3x3", "single_cards_only")
    # The top card alone still moves.
    new, _ = assert_legal(state, "t1>t3")
    assert piles(new)["t3"] == eight + " " + run.split()[-1]


@pytest.mark.parametrize("variant", SINGLES)
def test_single_card_games_no_run_to_empty_pile(variant: str) -> None:
    run, _ = _run(variant)
    state = position(variant, t=["KC", "5H " + run, "KC", ""])
    assert_illegal(state, "t1>t3x2", "single_cards_only")
    new, _ = assert_legal(state, "t1>t3")
    assert piles(new)["t3"] == run.split()[-1]


@pytest.mark.parametrize("variant", ALL)
def test_face_down_cards_do_not_move(variant: str) -> None:
    state = position(variant, t=["TH", "KD 9H | 9S", "KC", "KC"])
    codes = {"card_face_down"} if SPECS[variant].runs else {"card_face_down", "single_cards_only"}
    err = assert_illegal(state, "t1>t0x2", codes)
    assert "9H" not in err.message and "KD" not in err.message
    assert_illegal(state, "t1>t0x3", codes)
    assert_illegal(state, "t1>t0x4", {"bad_count", *codes})


@pytest.mark.parametrize("variant", ALL)
def test_more_cards_than_the_pile_holds(variant: str) -> None:
    state = position(variant, t=["TH", "9S", "KC", "KC"])
    assert_illegal(state, "t1>t0x2", {"bad_count", "single_cards_only"})


# -------------------------------------------------------------- face-down turns up
@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize("dest", ["tableau", "foundation"])
def test_face_down_card_turns_up_at_once(variant: str, dest: str) -> None:
    spec = SPECS[variant]
    if dest == "tableau":
        moving = "8S" if spec.build == "suit" else "8H"
        state = position(variant, t=["9S", "4D 3C | " + moving, "KC", "KC"])
        move = "t1>t0"
    else:
        base = "AS" if not spec.reserve else "5S"
        state = position(
            variant, t=["9S", "4D 3C | " + base, "KC", "KC"], base=None if not spec.reserve else 5
        )
        move = "t1>f0"
    new, events = assert_legal(state, move)
    assert piles(new)["t1"] == "4D | 3C"
    turn = [e for e in events if e.type == "turn_up"]
    assert len(turn) == 1
    assert str(turn[0].pile) == "tableau-1"
    assert turn[0].to_json()["card"] == "3C"
    # The public view shows the turned card, still hides the one under it.
    pile = next(p for p in new.public()["piles"] if p["id"] == "tableau-1")
    assert pile["cards"][0] == {"face_up": False}
    assert pile["cards"][1]["code"] == "3C" and pile["cards"][1]["face_up"] is True


@pytest.mark.parametrize("variant", RUNS)
def test_run_move_turns_up_card_under_it(variant: str) -> None:
    run, target = _run(variant)
    state = position(variant, t=[target, "4D | " + run, "KC", "KC"])
    new, events = assert_legal(state, "t1>t0x3")
    assert piles(new)["t1"] == "4D"
    assert [(e.type, str(e.pile)) for e in events[1:]] == [("turn_up", "tableau-1")]


@pytest.mark.parametrize("variant", ALL)
def test_no_turn_up_when_card_below_is_face_up(variant: str) -> None:
    moving = "8S" if SPECS[variant].build == "suit" else "8H"
    state = position(variant, t=["9S", "4D | 3C " + moving, "KC", "KC"])
    new, events = assert_legal(state, "t1>t0")
    assert piles(new)["t1"] == "4D | 3C"
    assert [e.type for e in events] == ["move"]


# ---------------------------------------------------------------------- empty piles
@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize("card", ["KS", "QH", "5D", "AC", "2C"])
@pytest.mark.parametrize("source", ["tableau", "waste"])
def test_empty_pile_takes_any_card(variant: str, card: str, source: str) -> None:
    """An empty pile takes any card (Rainbow and Canfield: once the reserve is empty)."""
    if source == "tableau":
        state = position(variant, t=["", "9D " + card, "KC", "KC"])
        move = "t1>t0"
    else:
        state = position(variant, t=["", "9D", "KC", "KC"], waste=card)
        move = "w>t0"
    new, _ = assert_legal(state, move)
    assert piles(new)["t0"] == card


@pytest.mark.parametrize("variant", RUNS)
def test_empty_pile_takes_any_run(variant: str) -> None:
    run, _ = _run(variant)
    state = position(variant, t=["", "KD | " + run, "KC", "KC"])
    for count in (1, 2, 3):
        new, _ = assert_legal(state, f"t1>t0x{count}")
        assert piles(new)["t0"] == " ".join(run.split()[-count:])


@pytest.mark.parametrize("variant", ALL)
def test_non_empty_pile_is_not_a_free_spot(variant: str) -> None:
    """A card that does not build is refused even if an empty pile exists elsewhere."""
    state = position(variant, t=["KS", "9D 5D", "", "KC"])
    assert_illegal(state, "t1>t0", {"not_one_rank_lower", "wrong_suit"})
    assert_legal(state, "t1>t2")


@pytest.mark.parametrize("variant", ALL)
def test_nothing_goes_to_stock_or_waste(variant: str) -> None:
    state = position(variant, t=["KS", "9D QS", "", "KC"], waste="5H", stock="3C")
    assert_illegal(state, "t1>w", "not_a_target")
    assert_illegal(state, "t1>s", "not_a_target")
    assert_illegal(state, "s>t2", "stock_not_playable")
    assert_illegal(state, "t1>t1", "same_pile")


@pytest.mark.parametrize("variant", ALL)
def test_undo_turns_the_card_back_down(variant: str) -> None:
    """Undo is keeping the previous value: the turned-up card is face down there again."""
    moving = "8S" if SPECS[variant].build == "suit" else "8H"
    before = position(variant, t=["9S", "4D 3C | " + moving, "KC", "KC"])
    saved = before.to_bytes()
    after, _ = assert_legal(before, "t1>t0")
    assert piles(after)["t1"] == "4D | 3C"
    restored = State.from_bytes(saved)
    assert restored == before
    assert piles(restored)["t1"] == "4D 3C | " + moving
    assert "3C" not in [c.get("code") for p in restored.public()["piles"] for c in p["cards"]]
