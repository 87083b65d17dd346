"""Play helpers and game end: won, stuck, click resolution, auto-finish."""

from __future__ import annotations

import pytest

from app.engine import DRAW_MOVE, IllegalMove, InvalidMove, Move, resolve_click

from .conftest import (
    ALL,
    RESERVE_GAMES,
    SPECS,
    assert_illegal,
    assert_legal,
    piles,
    position,
)

RANKS = "A23456789TJQK"


def _suit_run(suit: str, base: int = 1, count: int = 13) -> str:
    ranks = [RANKS[(base - 1 + k) % 13] for k in range(count)]
    return " ".join(r + suit for r in ranks)


def _full_foundations(variant: str, base: int = 1) -> list[str]:
    return [_suit_run("CSHD"[i % 4], base) for i in range(4 * SPECS[variant].decks)]


# ------------------------------------------------------------------------------ won
@pytest.mark.parametrize("variant", ALL)
@pytest.mark.parametrize("base", [1, 5])
def test_won_when_every_card_is_on_the_foundations(variant: str, base: int) -> None:
    if base != 1 and not SPECS[variant].reserve:
        pytest.skip("only the reserve games have a base rank")
    f = _full_foundations(variant, base)
    last = f[-1].split()[-1]
    f[-1] = " ".join(f[-1].split()[:-1])
    b = base if SPECS[variant].reserve else None
    state = position(variant, t=["", last], f=f, base=b)
    assert not state.is_won and state.status == "playing"
    new, _ = assert_legal(state, "t1>f" + str(len(f) - 1))
    assert new.is_won and new.status == "won" and not new.is_stuck
    assert new.legal_moves() == []
    for move in ("draw", "redeal", "f0>t0", "t0>f0"):
        assert_illegal(new, move, {"game_over"})
    # The same last card anywhere else: not won.
    assert not position(variant, waste=last, f=f, base=b).is_won
    assert not position(variant, stock=last, f=f, base=b).is_won


# ---------------------------------------------------------------------------- stuck
RF_TOPS = ["5S", "5C", "5S", "5C", "7S", "7C", "7S", "7C", "9S", "9C"]


def test_stuck_rank_and_file() -> None:
    """No move, and none of the stock cards (KH QH TD 2H) plays anywhere when drawn."""
    state = position("rank-and-file", t=RF_TOPS, stock="KH QH TD 2H")
    assert state.legal_moves() == [DRAW_MOVE]
    assert state.is_stuck and state.status == "stuck"
    # A stuck game stays open: drawing is still a legal move, and the position is kept.
    new, _ = assert_legal(state, "draw")
    assert new.is_stuck


@pytest.mark.parametrize("card", ["4H", "AD", "6D", "8H"])
def test_not_stuck_when_a_stock_card_would_play(card: str) -> None:
    state = position("rank-and-file", t=RF_TOPS, stock=f"KH {card} QH")
    assert state.legal_moves() == [DRAW_MOVE]
    assert not state.is_stuck and state.status == "playing"


def test_not_stuck_when_a_move_exists() -> None:
    state = position("rank-and-file", t=RF_TOPS[:-1] + ["8D"], stock="")
    assert not state.is_stuck
    state = position("rank-and-file", t=RF_TOPS[:-1] + [""], stock="")
    assert not state.is_stuck
    state = position("rank-and-file", t=RF_TOPS, f=["AS 2S 3S 4S"])
    assert not state.is_stuck


def test_stuck_with_nothing_left_to_draw() -> None:
    state = position("rank-and-file", t=RF_TOPS)
    assert state.legal_moves() == []
    assert state.is_stuck and state.status == "stuck"


def test_buried_waste_card_without_redeal_does_not_count() -> None:
    """One pass: a playable 4H under the waste top never comes up again."""
    state = position("rank-and-file", t=RF_TOPS, stock="KH", waste="4H 9D")
    assert state.is_stuck
    state = position("rank-and-file", t=RF_TOPS, stock="KH", waste="9D 4H")
    assert not state.is_stuck  # the 4H is the top: a move


R4_TOPS = ["3C", "3D", "3H", "3S", "6C", "6D", "6H", "6S"]


@pytest.mark.parametrize(("redeals", "stuck"), [(0, True), (1, False), (2, False)])
def test_waste_counts_while_redeals_remain(redeals: int, stuck: bool) -> None:
    state = position("rows-of-four", t=R4_TOPS, stock="KH 9C", waste="5H 9D", redeals=redeals)
    assert state.is_stuck is stuck
    assert state.status == ("stuck" if stuck else "playing")


def test_redeal_possible_but_nothing_would_play() -> None:
    state = position("rows-of-four", t=R4_TOPS, waste="KH 9D", redeals=2)
    assert state.legal_moves() == [Move.parse("redeal")]
    assert state.is_stuck


@pytest.mark.parametrize(("waste", "stuck"), [("QD JD 4H KD", False), ("QD JD 7D KD", True)])
def test_unlimited_redeals_count_the_waste(waste: str, stuck: bool) -> None:
    """Canfield redeals without end: the 4H under the waste top comes up again (the third
    card of the first draw after the redeal) and plays on the 5S, so the game is not stuck."""
    state = position("canfield", t=["5S", "5H", "9S", "9H"], waste=waste, base=1)
    assert state.legal_moves() == [Move.parse("redeal")]
    assert state.is_stuck is stuck
    assert state.status == ("stuck" if stuck else "playing")


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_stuck_reserve_game(variant: str) -> None:
    tops = ["5S", "5H", "9S", "9H"] if variant == "canfield" else ["5S", "5C", "9S", "9C"]
    state = position(variant, t=tops, reserve="4H JD", stock="KH QH 7D", base=1)
    # The reserve's face-down 4H does not count: it is not coming from the stock.
    assert state.is_stuck
    state = position(variant, t=tops, reserve="JD", stock="KH 8D QH", base=1)
    assert not state.is_stuck


# ---------------------------------------------------------------------------- click
def _click_position(foundation: str = "AS 2S"):
    return position(
        "rank-and-file",
        t=["9H", "KC | 4D 3S", "KC", "", "4D", "5C", "KC", "KC", "KC", "KC"],
        f=[foundation],
        waste="8C TS",
    )


def test_click_prefers_a_foundation() -> None:
    state = _click_position()
    move = resolve_click(state, "tableau-1")
    assert move == Move.parse("t1>f0")
    assert move in state.legal_moves()


def test_click_then_first_pile_left_to_right_then_empty_pile() -> None:
    state = _click_position(foundation="")
    assert resolve_click(state, "tableau-1") == Move.parse("t1>t4")  # not the empty t3
    assert resolve_click(state, "tableau-1", 2) == Move.parse("t1>t4")
    no_red_four = position(
        "rank-and-file",
        t=["9H", "KC | 4D 3S", "KC", "", "KC", "5C", "KC", "KC", "KC", "KC"],
    )
    assert resolve_click(no_red_four, "tableau-1") == Move.parse("t1>t3")


def test_click_inside_a_pile_takes_the_cards_above() -> None:
    state = _click_position()
    move = resolve_click(state, "tableau-1", 1)  # the 4D, with the 3S on it
    assert move == Move.parse("t1>t5x2")
    new, _ = assert_legal(state, move)
    assert piles(new)["t5"] == "5C 4D 3S"


def test_click_on_waste_top() -> None:
    state = _click_position()
    assert resolve_click(state, "waste") == Move.parse("w>t3")  # TS: only the empty pile
    with pytest.raises(IllegalMove) as info:
        resolve_click(state, "waste", 0)
    assert info.value.code == "not_playable"


def test_click_without_target() -> None:
    state = position("rank-and-file", t=RF_TOPS)
    with pytest.raises(IllegalMove) as info:
        resolve_click(state, "tableau-2")
    assert info.value.code == "no_target"
    assert "no pile" in info.value.message


def test_click_on_face_down_or_missing_card() -> None:
    state = _click_position()
    with pytest.raises(IllegalMove) as info:
        resolve_click(state, "tableau-1", 0)
    assert info.value.code == "card_face_down"
    assert "KC" not in info.value.message
    with pytest.raises(IllegalMove) as info:
        resolve_click(state, "tableau-3")
    assert info.value.code == "empty_pile"
    with pytest.raises(InvalidMove):
        resolve_click(state, "tableau-1", 7)
    with pytest.raises(InvalidMove):
        resolve_click(state, "pile-1")


def test_click_never_moves_a_whole_pile_to_an_empty_pile() -> None:
    """That move changes nothing a player can see, so a click does not pick it (the explicit
    move stays legal); a card with cards under it still goes to the empty pile."""
    state = position(
        "rank-and-file", t=["9H", "QS JH", "KC", "", "KC", "KC", "KC", "KC", "KC", "KC"]
    )
    for pile, index in (("tableau-1", 0), ("tableau-0", None)):
        with pytest.raises(IllegalMove) as info:
            resolve_click(state, pile, index)
        assert info.value.code == "no_target"
    assert Move.parse("t1>t3x2") in state.legal_moves()
    assert resolve_click(state, "tableau-1") == Move.parse("t1>t3")


def test_click_inside_pile_in_single_card_game() -> None:
    state = position(
        "emperor", t=["9H", "KC | 4D 3S", "KC", "", "4D", "5C", "KC", "KC", "KC", "KC"]
    )
    with pytest.raises(IllegalMove) as info:
        resolve_click(state, "tableau-1", 1)
    assert info.value.code in {"single_cards_only", "no_target"}


def test_click_on_foundation_card_with_return() -> None:
    state = position("emperor", t=["KC", "4H", "", "4D"], f=["AS 2S 3S"])
    assert resolve_click(state, "foundation-0") == Move.parse("f0>t1")
    forbidden = position("rank-and-file", t=["KC", "4H", "", "4D"], f=["AS 2S 3S"])
    with pytest.raises(IllegalMove) as info:
        resolve_click(forbidden, "foundation-0")
    assert info.value.code in {"foundation_return_not_allowed", "no_target"}


def test_click_on_stock_draws() -> None:
    state = position("rows-of-four", t=R4_TOPS, stock="KH")
    assert resolve_click(state, "stock") == DRAW_MOVE
    state = position("rows-of-four", t=R4_TOPS, waste="KH", redeals=1)
    assert resolve_click(state, "stock") == Move.parse("redeal")


@pytest.mark.parametrize("variant", RESERVE_GAMES)
def test_click_on_reserve(variant: str) -> None:
    state = position(variant, t=["KC", "KH", "2S", "2S"], reserve="9H QD", base=1)
    assert resolve_click(state, "reserve") == Move.parse("r>t0")


# ---------------------------------------------------------------------- auto-finish
def _almost_done(variant: str) -> list[str]:
    """Every card on the foundations but JS QS KS (spades f0) and QH KH (hearts f2)."""
    f = _full_foundations(variant)
    f[1] = _suit_run("S", count=10)
    f[2] = _suit_run("H", count=11)
    return f


@pytest.mark.parametrize("variant", ALL)
def test_auto_finish_plays_the_rest(variant: str) -> None:
    f = _almost_done(variant)
    spec = SPECS[variant]
    t = ["KH QH", "KS QS"] if spec.build == "suit" else ["KH QS", "KS QH"]
    waste, move = "JS", "w>t1"
    base = 1 if spec.reserve else None
    state = position(variant, t=t, f=f, waste=waste, base=base)
    assert not state.auto_finish_ready()
    # auto_finish=False: the move only.
    plain, events = assert_legal(state, move, auto_finish=False)
    assert [e.type for e in events] == ["move"]
    assert plain.auto_finish_ready() and not plain.is_won
    # auto_finish=True: the server plays the rest to the foundations.
    done, events = state.apply(Move.parse(move), auto_finish=True)
    assert done.is_won
    assert events[0].type == "move"
    finish = list(events[1:])
    assert [e.type for e in finish] == ["auto_finish"] * 5
    replay = plain
    for event in finish:
        assert event.move is not None and event.move.dst is not None
        assert event.move.dst.kind == "foundation"
        replay, _ = assert_legal(replay, event.move)
    assert replay == done


def _ready_case(variant: str, **kw: object):
    f = _almost_done(variant)
    return position(variant, f=f, base=1 if SPECS[variant].reserve else None, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", [v for v in ALL if SPECS[v].build != "suit"])
@pytest.mark.parametrize(
    "blocker",
    ["stock", "waste", "face_down", "not_a_run", "reserve"],
)
def test_auto_finish_waits(variant: str, blocker: str) -> None:
    """Not ready while stock, waste or reserve hold a card, a card is face down, or a pile
    is not one ordered run."""
    t = ["KH QS", "KS QH JS"]
    kw: dict[str, object] = {}
    if blocker == "stock":
        kw["stock"] = "JS"
        t = ["KH QS", "KS QH"]
    elif blocker == "waste":
        kw["waste"] = "JS"
        t = ["KH QS", "KS QH"]
    elif blocker == "face_down":
        t = ["KH QS", "KS | QH JS"]
    elif blocker == "not_a_run":
        t = ["QS KH", "KS QH JS"]
    elif not SPECS[variant].reserve:
        pytest.skip("no reserve")
    else:
        kw["reserve"] = "JS"
        t = ["KH QS", "KS QH", "", ""]
    state = _ready_case(variant, t=t, **kw)
    assert not state.auto_finish_ready()
    ready = _ready_case(variant, t=["KH QS", "KS QH JS"])
    assert ready.auto_finish_ready()
    # A move in the blocked position brings no auto_finish event.
    for move in state.legal_moves():
        _, events = state.apply(move, auto_finish=True)
        after = state.apply(move, auto_finish=False)[0]
        if not after.auto_finish_ready():
            assert all(e.type != "auto_finish" for e in events)


@pytest.mark.parametrize("variant", ALL)
def test_auto_finish_after_last_card_turns_up(variant: str) -> None:
    """The move that turns up the last face-down card makes the position ready."""
    suit = SPECS[variant].build == "suit"
    t = ["KH | JS", "KS QS", "QH"] if suit else ["KH | JS", "KS QH", "QS"]
    state = position(
        variant, t=t, f=_almost_done(variant), base=1 if SPECS[variant].reserve else None
    )
    assert not state.auto_finish_ready()
    done, events = state.apply(Move.parse("t0>t1"))
    assert [e.type for e in events] == ["move", "turn_up"] + ["auto_finish"] * 5
    assert done.is_won


WRAPPED_DEADLOCK = """rainbow foundation_return=1 redeals=0 base=6
stock:
waste:
reserve:
f0:
f1: 6S 7S 8S 9S TS JS QS KS AS 2S 3S 4S 5S
f2: 6H 7H 8H 9H TH JH QH KH AH 2H 3H 4H 5H
f3:
t0: 6C 5D 4C 3D 2C AD KC QD JC TD 9C 8D 7C
t1: 6D 5C 4D 3C 2D AC KD QC JD TC 9D 8C
t2: 7D
t3:
"""


def test_auto_finish_does_not_start_what_it_cannot_complete() -> None:
    """Two wrapped runs that each bury the base card the other needs: every pile is in
    order, yet playing tops to the foundations cannot win, so no auto-finish starts."""
    from app.engine import State

    state = State.from_text(WRAPPED_DEADLOCK)
    assert not state.auto_finish_ready()
    new, events = state.apply(Move.parse("t2>t1"))  # every pile now one ordered run
    assert [e.type for e in events] == ["move"]
    assert not new.is_won and not new.auto_finish_ready()
    # Without a base card buried under its run, the same kind of layout finishes at once.
    plain = State.from_text(
        WRAPPED_DEADLOCK.replace("f0:\n", "f0: 6C 7C 8C 9C TC JC QC KC AC 2C 3C 4C 5C\n")
        .replace("t0: 6C 5D 4C 3D 2C AD KC QD JC TD 9C 8D 7C", "t0: 5D 3D AD QD TD 8D")
        .replace("t1: 6D 5C 4D 3C 2D AC KD QC JD TC 9D 8C", "t1: 6D 4D 2D KD JD 9D")
    )
    assert sorted(plain.cards()) == list(range(52))
    assert not plain.auto_finish_ready()  # 6D 4D is no ordered run ...
    ordered = State.from_text(
        WRAPPED_DEADLOCK.replace("f0:\n", "f0: 6C 7C 8C 9C TC JC QC KC AC 2C 3C 4C 5C\n")
        .replace("f3:\n", "f3: 6D\n")
        .replace("t0: 6C 5D 4C 3D 2C AD KC QD JC TD 9C 8D 7C", "t0: 5D 4D 3D 2D AD KD QD")
        .replace("t1: 6D 5C 4D 3C 2D AC KD QC JD TC 9D 8C", "t1: JD TD 9D 8D")
    )
    assert sorted(ordered.cards()) == list(range(52))
    assert ordered.auto_finish_ready()  # ... but this is, and it plays out to a win
    assert ordered.auto_finish()[0].is_won


@pytest.mark.parametrize(
    "text", ["rank-and-file redeals=x", "rank-and-file base", "", "rainbow\nt0: ZZ"]
)
def test_malformed_text_is_corrupt_state(text: str) -> None:
    from app.engine import CorruptState, State

    with pytest.raises(CorruptState):
        State.from_text(text)
