"""The walk over a finished game's line: a verdict for every position (`winnable`,
`lost`, `undecided`), the ply of the losing move and the winning line from the position
before it. No database: the analysis service gives it the positions and a way to
decide one.

The positions are the move log's (`state_before` of each move, then the game's own), so
ply `k` is exactly the position after `k` moves. They are decided from the end
backwards, with two facts that need no search:

- a position before a winnable one is winnable: the moves played from it to the winnable
  one, then that one's winning line, win;
- a position after a lost one is lost: were it winnable, the lost one would win through
  the moves played between them.

So the verdicts along a line are some winnable plies, then (where the game was lost)
lost ones, with undecided ones between only where the budget ran out; the work is to find
that boundary. A first pass walks from the end backwards with a small budget per
position (late positions are small: few cards left to place) and stops at the first
winnable position met: every earlier ply is winnable, and one proven loss makes every
later ply lost. A second pass halves the gap between the last winnable ply and the first
lost one, each position with the whole budget, until they are next to each other (the
losing move found) or the budget is spent. A position still undecided then is taken as
the gap's upper end (undecided is most often a loss too large to prove: wins are found
fast), so a gap costs a halving's searches, not one per ply. Each position is first looked up in what
the solver knows (`knowledge.SolverKnowledge`: lines found by hints, finishes, proven
deals, and positions proven lost, by any instance), and searched only when unknown, in
the background lane of the pool (`WorkPool.analyse`), within
`ANALYSIS_PLY_MAX_POSITIONS`/`_SECONDS` each and `ANALYSIS_MAX_POSITIONS` in all; what it
learns is kept for every instance. Late positions are small (few cards left to place),
so a game costs little more than its hardest position, the one at the boundary.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from app.engine import Move, State

WINNABLE, LOST, UNDECIDED = "winnable", "lost", "undecided"


@dataclass(frozen=True)
class Decided:
    """One position's verdict, the winning line where it is winnable, and the positions
    searched to find out (0: it was known)."""

    verdict: str
    line: tuple[Move, ...] | None = None
    positions: int = 0


@dataclass
class Verdicts:
    """A whole line's verdicts (ply 0 first), its losing ply and the winning line from the
    ply before it, and the positions searched."""

    plies: list[str]
    losing_ply: int | None = None
    winning_line: list[Move] | None = None
    positions: int = 0
    searched: dict[int, str] = field(default_factory=dict)


# A position and the most positions its search may take (0: only what is known).
Decide = Callable[[State, int], Awaitable[Decided]]
Progress = Callable[[int, int], Awaitable[None]]


# The first pass searches each position with this share of the position's budget: late
# positions (lost, few cards left) and winnable ones decide within it; the boundary's,
# which need more, get the whole budget in the second pass.
PROBE_SHARE = 100


@dataclass
class _Walk:
    """The walk's state: the last winnable ply known (-1: none) with its line, the first
    lost ply known (`last + 1`: none), and the positions spent."""

    positions: Sequence[State]
    decide: Decide
    total_budget: int
    progress: Progress | None
    winnable_at: int = -1
    line: tuple[Move, ...] | None = None
    lost_at: int = 0
    spent: int = 0
    found: dict[int, str] = field(default_factory=dict)

    async def ask(self, ply: int, budget: int) -> str:
        decided = await self.decide(
            self.positions[ply], min(budget, max(0, self.total_budget - self.spent))
        )
        self.spent += decided.positions
        if decided.verdict == WINNABLE:
            if ply > self.winnable_at:
                self.winnable_at, self.line = ply, decided.line
        else:
            self.found[ply] = decided.verdict
            if decided.verdict == LOST:
                self.lost_at = min(self.lost_at, ply)
        return decided.verdict


async def walk(
    positions: Sequence[State],
    decide: Decide,
    *,
    ply_budget: int,
    total_budget: int,
    progress: Progress | None = None,
) -> Verdicts:
    """Decide the positions of a line (ply 0 first), in two passes (module docstring):
    from the last backwards, each with a `PROBE_SHARE`th of `ply_budget`, until the first
    winnable one; then, between the last winnable ply and the first lost one, halving the
    gap, each with the whole `ply_budget` (a position undecided then counts as the gap's
    upper end, without a verdict). `total_budget` bounds them all; past it,
    positions are only looked up (a budget of 0)."""
    last = len(positions) - 1
    if positions[last].is_won:
        return Verdicts([WINNABLE] * (last + 1))
    state = _Walk(positions, decide, total_budget, progress, lost_at=last + 1)
    probe = max(1, ply_budget // PROBE_SHARE)
    for ply in range(last, -1, -1):
        if await state.ask(ply, probe) == WINNABLE:
            break
        if progress is not None:
            await progress(last - ply + 1, state.spent)
    # Undecided with the whole budget is most often lost (wins are found fast): the
    # boundary is then looked for below it, so an undecided gap costs a halving's searches.
    upper = state.lost_at
    while state.spent < total_budget and state.winnable_at + 1 < upper:
        ply = (state.winnable_at + upper) // 2
        verdict = await state.ask(ply, ply_budget)
        if verdict != WINNABLE:
            upper = ply
    winnable_at = None if state.winnable_at < 0 else state.winnable_at
    return settle(last, state.found, winnable_at, state.line, state.spent)


def settle(
    last: int,
    found: dict[int, str],
    winnable_at: int | None,
    line: tuple[Move, ...] | None,
    spent: int,
) -> Verdicts:
    """Every ply's verdict from those decided: winnable up to the last winnable ply, lost
    from the first proven lost on, undecided between (and where nothing was decided).
    The losing ply is known where a winnable ply is followed by a lost one, or where the
    deal itself (ply 0) is lost."""
    lost_from = min((ply for ply, verdict in found.items() if verdict == LOST), default=None)
    plies = []
    for ply in range(last + 1):
        if winnable_at is not None and ply <= winnable_at:
            plies.append(WINNABLE)
        elif lost_from is not None and ply >= lost_from:
            plies.append(LOST)
        else:
            plies.append(UNDECIDED)
    verdicts = Verdicts(plies, positions=spent, searched=found)
    if lost_from == 0:
        verdicts.losing_ply = 0
    elif lost_from is not None and winnable_at is not None and lost_from == winnable_at + 1:
        verdicts.losing_ply = lost_from
        verdicts.winning_line = list(line or ())
    elif winnable_at is not None and line is not None:
        # No losing move (resigned while winnable, or the boundary undecided): the line
        # from the last position proven winnable, where a player can take the game up.
        verdicts.winning_line = list(line)
    return verdicts
