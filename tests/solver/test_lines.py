"""Shorter winning lines (``core.shorten``, app/solver/native/lines.c), checked through the
engine: a shortened line still wins (every move validated) and is never longer, a move
there and back or a loop put into a line is cut, a shortcut past a detour is taken, a
shortened prefix ends where the prefix ends, illegal moves raise, a deadline leaves the
line as it is, and ``plan.solve`` returns lines with no shortcut left.
"""

from __future__ import annotations

import time
from functools import cache

import pytest

from app.engine import VARIANTS, Move, State, deal
from app.solver import core, plan
from app.solver.result import replay, wins

# A deal of each game that its full search wins within 200,000 positions; most of their
# lines wander (Rainbow 4: 12,280 moves, 377 once shortened; Diplomat 16: 123,693).
WON = (
    ("rank-and-file", 2),
    ("rows-of-four", 2),
    ("rainbow", 4),
    ("deauville", 2),
    ("emperor", 14),
    ("number-ten", 2),
    ("forty-thieves", 10),
    ("diplomat", 16),
    ("canfield", 4),
)


@cache
def raw_line(name: str, number: int) -> tuple[State, tuple[str, ...]]:
    """A deal and the full search's own line for it (not shortened: solve() shortens)."""
    state = deal(VARIANTS[name], number)
    found = core.search_full(state, 200_000)
    assert found.result == "solved", (name, number)
    return state, tuple(str(move) for move in found.moves)


def texts_win(state: State, texts: list[str]) -> bool:
    return wins(state, [Move.parse(text) for text in texts])


def reached(state: State, texts: list[str]) -> bytes:
    return replay(state, [Move.parse(text) for text in texts]).to_bytes()


def test_a_shortened_line_wins_and_is_never_longer() -> None:
    before = after = 0
    for name, number in WON:
        state, raw = raw_line(name, number)
        line = list(raw)
        assert texts_win(state, line)
        shorter = core.shorten(state, line)
        assert texts_win(state, shorter), (name, number)
        assert len(shorter) <= len(line), (name, number)
        assert core.shorten(state, shorter) == shorter, (name, number)  # nothing left to cut
        before, after = before + len(line), after + len(shorter)
    assert after < before / 5, (before, after)  # depth-first lines do wander


def _positions(state: State, line: list[str]) -> list[bytes]:
    out = [state.to_bytes()]
    for text in line:
        state, _ = state.apply(Move.parse(text), auto_finish=False, validate=True)
        out.append(state.to_bytes())
    return out


def test_a_move_there_and_back_is_cut() -> None:
    """A move and the move straight back, put into a shortened winning line at each place
    where there is one: the line passes the same position twice, and the shortened line
    loses both moves (it is the line shortened without them)."""
    state, raw = raw_line("rows-of-four", 1)
    line = core.shorten(state, list(raw))
    positions = [core.position(state)]
    for move in line:
        positions.append(positions[-1].apply(move))
    detours = 0
    for at, here in enumerate(positions[:-1]):
        for out in here.legal_moves():
            away = here.apply(out)
            back = [m for m in away.legal_moves() if away.apply(m).to_bytes() == here.to_bytes()]
            if back and out != line[at]:
                detoured = [*line[:at], out, back[0], *line[at:]]
                assert texts_win(state, detoured)
                assert core.shorten(state, detoured) == line, (at, out, back[0])
                detours += 1
                break
        if detours >= 10:
            break
    assert detours >= 10, "too few moves with a way straight back along the line"


def test_a_loop_is_cut() -> None:
    """A loop of three moves (a card round three piles and back where it was): the
    shortened line loses all three."""
    state, raw = raw_line("rows-of-four", 1)
    line = core.shorten(state, list(raw))
    positions = _positions(state, line)
    for at in range(len(line)):
        here = replay(state, [Move.parse(text) for text in line[:at]])
        for first in here.legal_moves():
            one, _ = here.apply(first, auto_finish=False, validate=False)
            for second in one.legal_moves():
                two, _ = one.apply(second, auto_finish=False, validate=False)
                if two.to_bytes() in positions:
                    continue
                for third in two.legal_moves():
                    back, _ = two.apply(third, auto_finish=False, validate=False)
                    if back.to_bytes() == positions[at]:
                        loop = [str(first), str(second), str(third)]
                        looped = [*line[:at], *loop, *line[at:]]
                        assert texts_win(state, looped)
                        assert core.shorten(state, looped) == line
                        return
    pytest.fail("no loop of three moves along the line")


def test_a_detour_gives_way_to_a_shortcut() -> None:
    """A winning line whose first moves wander off: where one legal move from an early
    position reaches a later position of the line, the shortened line takes it, and
    still wins."""
    state, raw = raw_line("deauville", 2)
    line = list(raw)
    positions = _positions(state, line)
    index = {data: i for i, data in enumerate(positions)}
    shortcuts = 0
    here = state
    for at in range(min(len(line), 200)):
        for move in here.legal_moves():
            after, _ = here.apply(move, auto_finish=False, validate=False)
            later = index.get(after.to_bytes(), -1)
            if later > at + 1:  # a move that skips line[at:later]
                shortcuts += 1
        here, _ = here.apply(Move.parse(line[at]), auto_finish=False, validate=True)
    assert shortcuts, "the line has no shortcut to take"
    shorter = core.shorten(state, line)
    assert len(shorter) < len(line) and texts_win(state, shorter)


def test_past_its_deadline_the_line_is_left_as_it_is() -> None:
    state, raw = raw_line("rainbow", 4)
    line = list(raw)
    assert core.shorten(state, line, time.perf_counter() - 1) == line
    assert len(core.shorten(state, line, time.perf_counter() + 60)) < len(line)
    assert core.shorten(state, []) == []


def test_what_is_not_a_line_raises() -> None:
    state, raw = raw_line("rank-and-file", 2)
    line = list(raw)
    illegal = [*line[:3], "t0>f0", *line[3:]]
    with pytest.raises(ValueError):
        core.shorten(state, illegal)
    for bad in (["nonsense"], [*line[:5], "draw\x00"]):
        with pytest.raises(ValueError):
            core.shorten(state, bad)
    with pytest.raises((ValueError, TypeError)):
        core.shorten(state, [3])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        core.shorten(state, 5)  # type: ignore[arg-type]
    # Not every prefix of a line wins, but every prefix shortens to one that reaches the
    # same position, and is no longer.
    for cut in (0, 1, 17, len(line) // 2):
        shorter = core.shorten(state, line[:cut])
        assert len(shorter) <= cut
        assert reached(state, shorter) == reached(state, line[:cut])


def test_solve_returns_lines_with_no_shortcut_left() -> None:
    # A line with a shortcut left would be shortened again; these are the deals above,
    # whose search lines have detours (the tests just before).
    for name, number in WON:
        state = deal(VARIANTS[name], number)
        found = plan.solve(state, 200_000)
        assert found.result == "solved", (name, number)
        assert wins(state, found.moves)
        texts = [str(move) for move in found.moves]
        assert core.shorten(state, texts) == texts, (name, number)
