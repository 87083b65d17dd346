"""Shorter winning lines: a winning line cut where one move reaches a later position of it.

A depth-first search's line is the path it walked, and it walks wherever its move order
leads: a card moved from pile to pile to pile where one move would do, cards up and back
down where foundation cards return. Diplomat's lines from greedy play ran to 1,000-2,800
moves and one to 75,071, where 400 do (docs/benchmarks.md, "Shorter lines"). A finish
plays the line and hints follow it, so its length is what a player sees.

:func:`shorten` replays the line once, noting each position's exact bytes
(``State.to_bytes``: the whole state, so equal bytes are the same position, piles in the
same order), then walks it from the start: from each position it plays every legal move
and goes on from the latest position of the line that one reaches (the line's own next
move reaches the next one, so it never loses ground; a position the line passes twice
counts at its last time, so a loop is cut too). Every step is one legal move from a
position of the line to a later one, and the walk ends at the line's last position, so
the shorter line wins too; :func:`app.solver.plan.solve` replays it through the engine
with every move validated before it returns it, as every line. It runs on either core
through the same three calls: the native ``Position`` and
:class:`app.solver.beam.EnginePosition` (which answer them alike, move for move), so both
cores shorten a line alike; on the native core ``solve`` runs the same walk in C instead
(``core.shorten``, ``app/solver/native/lines.c``), for which this is the reference.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol, Self


class LinePosition(Protocol):
    """What :func:`shorten` needs of a position (the native ``Position`` has it)."""

    def legal_moves(self) -> list[str]: ...
    def apply(self, move: str) -> Self: ...
    def to_bytes(self) -> bytes: ...


def shorten(start: LinePosition, line: Sequence[str], deadline: float | None = None) -> list[str]:
    """``line`` (moves as text, from ``start``) without its detours; past ``deadline``
    (``time.perf_counter``), the rest of the line as it is (the line unchanged when the
    deadline comes before its positions are all noted)."""
    positions = [start]
    for move in line:
        if deadline is not None and time.perf_counter() > deadline:
            return list(line)
        positions.append(positions[-1].apply(move))
    latest = {position.to_bytes(): at for at, position in enumerate(positions)}
    shorter: list[str] = []
    at = 0
    while at < len(line):
        if deadline is not None and time.perf_counter() > deadline:
            return shorter + list(line[at:])
        here = positions[at]
        step, move = at + 1, line[at]
        for other in here.legal_moves():
            reached = latest.get(here.apply(other).to_bytes(), -1)
            if reached > step:
                step, move = reached, other
        shorter.append(move)
        at = step
    return shorter
