"""Hints and finish: call the solver service, return its models."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Request, Response

from app.deps import AnalysesDep, CurrentPlayer, NoNullBody, SessionDep, SolverDep
from app.errors import (
    AnalysisNotDone,
    AnalysisNotFound,
    DailyNotOver,
    GameNotFound,
    GameNotOver,
    GameOver,
    NoWinFound,
    ServerBusy,
    SolverBusy,
    SolverSearchInProgress,
    TooManyAnalyses,
    TooManyPracticeCopies,
    Unauthorized,
    ValidationFailed,
    VersionConflict,
)
from app.routers.common import ETAG, answer_headers, errors
from app.schemas import Analysis, FinishResult, GameState, Hint, PracticeRequest
from app.services import games

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
        **errors(Unauthorized, GameNotFound, GameOver, SolverBusy, SolverSearchInProgress),
    },
    summary="The next move of a winning line from the current position",
)
async def hint(
    response: Response,
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    solver: SolverDep,
) -> Hint:
    answer = await solver.hint(session, player, game_id)
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
            GameOver,
            NoWinFound,
            VersionConflict,
            SolverBusy,
            SolverSearchInProgress,
            ServerBusy,
        ),
    },
    summary="Play a winning line to the end (409 no_win_found when none is found)",
)
async def finish(
    response: Response,
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    solver: SolverDep,
) -> FinishResult:
    answer = await solver.finish(session, player, game_id)
    response.headers["ETag"] = games.etag(answer.game_id, answer.version)
    return answer.body


_ANALYSIS_HEADERS = {
    "Location": {"description": "Where the analysis is read (GET)", "schema": {"type": "string"}}
}


@router.post(
    "/{game_id}/analysis",
    name="analyse_game",
    status_code=202,
    response_model=Analysis,
    responses={
        200: {
            "model": Analysis,
            "description": "The analysis is done already",
            "headers": _ANALYSIS_HEADERS,
        },
        202: {"description": "The analysis is pending or running", "headers": _ANALYSIS_HEADERS},
        **errors(Unauthorized, GameNotFound, GameNotOver, DailyNotOver, TooManyAnalyses),
    },
    summary="Analyse a game that is over (in the background): a verdict per position",
)
async def analyse_game(
    request: Request,
    response: Response,
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    analyses: AnalysesDep,
) -> Analysis:
    analysis = await analyses.request(session, player, game_id)
    response.headers["Location"] = str(request.url_for("get_game_analysis", game_id=game_id).path)
    if analysis.state == "done":
        response.status_code = 200
    return analysis


@router.get(
    "/{game_id}/analysis",
    name="get_game_analysis",
    response_model=Analysis,
    responses=errors(Unauthorized, GameNotFound, AnalysisNotFound),
    summary="A game's analysis: its progress, and when done a verdict per position",
)
async def get_game_analysis(
    game_id: str, session: SessionDep, player: CurrentPlayer, analyses: AnalysesDep
) -> Analysis:
    return await analyses.get(session, player, game_id)


@router.post(
    "/{game_id}/analysis/practice",
    name="practise_game",
    status_code=201,
    response_model=GameState,
    dependencies=[NoNullBody],
    responses={
        201: {
            "headers": {
                "Location": {"description": "The copy's URL", "schema": {"type": "string"}},
                **ETAG,
            }
        },
        **errors(
            Unauthorized,
            GameNotFound,
            AnalysisNotFound,
            GameNotOver,
            DailyNotOver,
            AnalysisNotDone,
            ValidationFailed,
            ServerBusy,
            TooManyPracticeCopies,
        ),
    },
    summary="A practice copy of an analysed game at a position of its line (by default "
    "the one before its losing move)",
)
async def practise_game(
    request: Request,
    response: Response,
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    analyses: AnalysesDep,
    body: Annotated[PracticeRequest | None, Body()] = None,
) -> GameState:
    settings = body.settings.model_dump() if body and body.settings else None
    answer = await analyses.practice(session, player, game_id, body.ply if body else None, settings)
    answer_headers(response, answer)
    response.headers["Location"] = str(request.url_for("get_game", game_id=answer.game_id).path)
    return answer.body
