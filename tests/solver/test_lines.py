"""Shorter winning lines (app/solver/lines.py): a shortened line still wins, is never
longer, loses its detours, is the same on both cores, and is what solve() returns."""

from __future__ import annotations

import time

import pytest

from app.engine import VARIANTS, Move, State, deal
from app.solver import beam, core, lines, plan, search

needs_native = pytest.mark.skipif(not core.available(), reason=core.missing_reason())

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


def raw_line(name: str, number: int) -> tuple[State, list[str]]:
    """A deal and the full search's own line for it (not shortened: solve() shortens)."""
    state = deal(VARIANTS[name], number)
    found = core.search_full(state, 200_000)
    assert found.result == "solved", (name, number)
    return state, [str(move) for move in found.moves]


def wins(state: State, texts: list[str]) -> bool:
    return search.wins(state, [Move.parse(text) for text in texts])


@needs_native
def test_a_shortened_line_wins_and_is_never_longer() -> None:
    before = after = 0
    for name, number in WON:
        state, line = raw_line(name, number)
        shorter = lines.shorten(core.position(state), line)
        assert wins(state, shorter), (name, number)
        assert len(shorter) <= len(line), (name, number)
        before, after = before + len(line), after + len(shorter)
    assert after < before / 5, (before, after)  # depth-first lines do wander


@needs_native
def test_a_detour_is_cut() -> None:
    # A move and the move straight back, put into a winning line: the line passes the same
    # position twice, and the shortened line goes on from its second time.
    state, line = raw_line("rows-of-four", 1)
    positions = [core.position(state)]
    for move in line:
        positions.append(positions[-1].apply(move))
    for at, here in enumerate(positions[:-1]):
        for out in here.legal_moves():
            away = here.apply(out)
            back = [m for m in away.legal_moves() if away.apply(m).to_bytes() == here.to_bytes()]
            if back and out != line[at]:
                detoured = [*line[:at], out, back[0], *line[at:]]
                assert wins(state, detoured)
                shorter = lines.shorten(core.position(state), detoured)
                assert wins(state, shorter)
                assert len(shorter) <= len(detoured) - 2
                assert lines.shorten(core.position(state), line) == shorter
                return
    pytest.fail("no move with a way straight back along the line")


@needs_native
def test_past_its_deadline_the_line_is_left_as_it_is() -> None:
    state, line = raw_line("rainbow", 4)
    assert lines.shorten(core.position(state), line, time.perf_counter() - 1) == line
    assert len(lines.shorten(core.position(state), line)) < len(line)


@needs_native
def test_both_cores_shorten_a_line_alike() -> None:
    # The walk over the engine's positions, over native ones, and the native walk
    # (core.shorten, app/solver/native/lines.c) give the same line.
    for name, number in WON:
        state, line = raw_line(name, number)
        native = lines.shorten(core.position(state), line)
        python = lines.shorten(beam.EnginePosition(state), line)
        assert native == python == core.shorten(state, line), (name, number)
    state, line = raw_line("rows-of-four", 2)
    detoured = [*line[:1], "t0>t1", "t1>t0", *line[1:]]
    if wins(state, detoured):  # a move and straight back, where it is legal
        assert core.shorten(state, detoured) == lines.shorten(core.position(state), detoured)
    assert core.shorten(state, line, time.perf_counter() - 1) == line
    assert core.shorten(state, []) == []


@needs_native
def test_the_native_walk_refuses_what_is_not_a_line() -> None:
    state, line = raw_line("rank-and-file", 2)
    for bad in (["nonsense"], [*line[:3], "t0>f0", *line[3:]], [3], [*line[:5], "draw\x00"]):
        with pytest.raises((ValueError, TypeError)):
            core.shorten(state, bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        core.shorten(state, 5)  # type: ignore[arg-type]
    # Not every prefix of a line wins, but every prefix shortens to one that reaches the
    # same position.
    for cut in (0, 1, 17, len(line) // 2):
        shorter = core.shorten(state, line[:cut])
        assert reached(state, shorter) == reached(state, line[:cut])


def reached(state: State, texts: list[str]) -> bytes:
    return search.replay(state, [Move.parse(text) for text in texts]).to_bytes()


@pytest.mark.parametrize("which", ["native", "python"])
def test_solve_returns_lines_with_no_shortcut_left(which: str) -> None:
    # A line with a shortcut left would be shortened again; on the native core these
    # are the deals above, whose search lines have detours (the test just before).
    if which == "native" and not core.available():
        pytest.skip(core.missing_reason())
    cases = WON if which == "native" else (("rows-of-four", 1),)
    for name, number in cases:
        state = deal(VARIANTS[name], number)
        found = plan.solve(state, 200_000, core=which)  # type: ignore[arg-type]
        assert found.result == "solved", (name, number)
        texts = [str(move) for move in found.moves]
        start = core.position(state) if which == "native" else beam.EnginePosition(state)
        assert lines.shorten(start, texts) == texts, (name, number)
