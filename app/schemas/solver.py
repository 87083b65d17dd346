"""The solver's answers: a hint, and the analysis of a finished game."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType

from app.schemas.common import Timestamp
from app.schemas.events import LegalMove


class Hint(BaseModel):
    move: LegalMove | None = Field(
        description="The next move of a winning line; with none found, a heuristic "
        "suggestion or null (no move, or the position is proven lost).",
        examples=[{"action": "move", "from": "tableau-2", "to": "foundation-0", "count": 1}],
    )
    result: Literal["solved", "unsolvable", "unknown"] = Field(
        description="solved: the move leads to a win; unsolvable: proven lost; unknown: "
        "no win found within the hint's budget."
    )
    positions: int = Field(description="Positions searched (0: the line was already known).")
    elapsed_ms: int
    version: int = Field(
        description="The game's version this hint is for, after the hint marked the game "
        "assisted (as the `ETag` says): send it as `expected_version` with the hinted move. "
        "If the game changed during the search, it is the version searched, and that move "
        "gets 409 version_conflict: ask again."
    )
    assisted: bool = Field(description="The game is assisted now (see the state's `assisted`).")


AnalysisState = TypeAliasType("AnalysisState", Literal["pending", "running", "done"])
Verdict = TypeAliasType("Verdict", Literal["winnable", "lost", "undecided"])


class PlyVerdict(BaseModel):
    ply: int = Field(description="Moves played from the deal (0: the deal itself).")
    verdict: Verdict = Field(
        description="winnable: a winning line exists from this position; lost: proven that "
        "none does; undecided: neither within the analysis' budget."
    )


class Analysis(BaseModel):
    """The analysis of a game that is over: a verdict per position of its line of play."""

    game_id: str
    state: AnalysisState = Field(
        description="pending: queued, waiting for a worker (see `place`), nothing searched "
        "yet; running: a worker decides its positions (`decided`, `positions`); done."
    )
    move_count: int = Field(
        description="The moves of the line analysed: its positions are plies 0 to move_count."
    )
    plies: list[PlyVerdict] = Field(
        description="One verdict per position, ply 0 (the deal) first, once `state` is "
        "`done`; empty before."
    )
    losing_ply: int | None = Field(
        description="The number of moves after which the position is lost (the losing move "
        "is move `losing_ply` of the log; 0: the deal itself is lost). Null when the game was "
        "never lost (won, or winnable to its end) or the boundary is undecided."
    )
    losing_move: LegalMove | None = Field(
        description="The losing move (move `losing_ply` of the log), as played; null with "
        "`losing_ply` null or 0."
    )
    winning_line: list[LegalMove] | None = Field(
        description="A winning line from the position after `winning_line_ply` moves, as "
        "`legal_moves` gives moves: the position before the losing move; where no losing "
        "move was found (resigned while winnable, the boundary undecided), the last "
        "position proven winnable. Null where there is none (a won game, a lost deal, "
        "nothing proven winnable)."
    )
    winning_line_ply: int | None = Field(
        description="The position `winning_line` starts from (moves of the game's line): "
        "`losing_ply - 1`, else the last ply whose verdict is `winnable`; null with "
        "`winning_line` null. A practice copy without `ply` starts there.",
    )
    decided: int = Field(description="Positions decided so far (progress; from the end back).")
    positions: int = Field(description="Positions the solver searched for this analysis so far.")
    place: int | None = Field(
        description="While `pending`: the background jobs ahead of it (other analyses asked "
        "before it, and any more urgent work), each of which its first search waits behind "
        "(0: it is next, a worker being free). Null once it runs, or when it is done; "
        "null while pending: its job failed (asking again queues it afresh).",
        examples=[0],
    )
    created_at: Timestamp
    updated_at: Timestamp
