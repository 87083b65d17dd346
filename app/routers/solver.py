"""Hints and finish: parse, call the solver service, shape the answer."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.deps import CurrentPlayer, SessionDep
from app.routers.common import errors
from app.schemas import FinishResult
from app.services import games
from app.services import solver as solver_service

router = APIRouter(prefix="/games", tags=["solver"])


class Hint(BaseModel):
    move: dict[str, Any] | None = Field(
        description="The next move of a winning line (API move JSON); with none found, a "
        "heuristic suggestion or null (no move, or the position is proven lost).",
        examples=[{"action": "move", "from": "tableau-2", "to": "foundation-0", "count": 1}],
    )
    result: Literal["solved", "unsolvable", "unknown"] = Field(
        description="solved: the move leads to a win; unsolvable: proven lost; unknown: "
        "no win found within the hint's budget."
    )
    positions: int = Field(description="Positions searched (0: the line was already known).")
    elapsed_ms: int


@router.post(
    "/{game_id}/hint",
    name="hint",
    response_model=Hint,
    responses=errors(401, 404, 429),
    summary="The next move of a winning line from the current position",
)
async def hint(
    request: Request, game_id: str, session: SessionDep, player: CurrentPlayer
) -> dict[str, Any]:
    return await solver_service.hint(request.app, session, player, game_id)


@router.post(
    "/{game_id}/finish",
    name="finish",
    response_model=FinishResult,
    responses=errors(401, 404, 409, 429),
    summary="Play a winning line to the end (409 no_win_found when none is found)",
)
async def finish(
    request: Request, game_id: str, session: SessionDep, player: CurrentPlayer
) -> Response:
    answer = await solver_service.finish(request.app, session, player, game_id)
    return JSONResponse(answer.body, headers={"ETag": games.etag(answer.game_id, answer.version)})
