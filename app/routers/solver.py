"""Hints and finish: call the solver service, return its models."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.deps import CurrentPlayer, SessionDep
from app.errors import (
    GameNotFound,
    NoWinFound,
    SolverBusy,
    SolverSearchInProgress,
    Unauthorized,
    VersionConflict,
)
from app.routers.common import ETAG, errors
from app.schemas import FinishResult, Hint
from app.services import games
from app.services import solver as solver_service

router = APIRouter(prefix="/games", tags=["solver"])


@router.post(
    "/{game_id}/hint",
    name="hint",
    response_model=Hint,
    responses={
        200: {
            "headers": {
                "ETag": {
                    "description": "The game's tag at the hint's `version`",
                    "schema": {"type": "string"},
                }
            }
        },
        **errors(Unauthorized, GameNotFound, SolverBusy, SolverSearchInProgress),
    },
    summary="The next move of a winning line from the current position",
)
async def hint(
    request: Request, response: Response, game_id: str, session: SessionDep, player: CurrentPlayer
) -> Hint:
    answer = await solver_service.hint(request.app, session, player, game_id)
    response.headers["ETag"] = games.etag(game_id, answer.version)
    return answer


@router.post(
    "/{game_id}/finish",
    name="finish",
    response_model=FinishResult,
    responses={
        200: {"headers": ETAG},
        **errors(
            Unauthorized,
            GameNotFound,
            NoWinFound,
            VersionConflict,
            SolverBusy,
            SolverSearchInProgress,
        ),
    },
    summary="Play a winning line to the end (409 no_win_found when none is found)",
)
async def finish(
    request: Request, response: Response, game_id: str, session: SessionDep, player: CurrentPlayer
) -> FinishResult:
    answer = await solver_service.finish(request.app, session, player, game_id)
    response.headers["ETag"] = games.etag(answer.game_id, answer.version)
    return answer.body
