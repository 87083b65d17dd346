"""Games: parse the request, call the service, shape the answer."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, Query, Request, Response
from fastapi.responses import JSONResponse

from app.deps import CurrentPlayer, SessionDep
from app.routers.common import errors
from app.schemas import (
    MOVE_REQUEST_EXAMPLES,
    GameCreate,
    GameMoveResult,
    GamePage,
    GamePatch,
    GameState,
    MoveLog,
    MoveRequest,
    UndoRequest,
)
from app.services import games
from app.services.games import Answer, Idempotency
from app.services.solvable import SolvableDeals

router = APIRouter(prefix="/games", tags=["games"])

# The move log's `offset` fits the seq column (a 32-bit integer on PostgreSQL).
MAX_OFFSET = 2**31 - 1


def get_solvable_deals(request: Request) -> SolvableDeals:
    deals: SolvableDeals = request.app.state.solvable
    return deals


SolvableDealsDep = Annotated[SolvableDeals, Depends(get_solvable_deals)]

IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=255,
        description="A retried request with the same key returns the first answer.",
    ),
]


def _answer(answer: Answer, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    all_headers = {"ETag": games.etag(answer.game_id, answer.version), **(headers or {})}
    if answer.replayed:
        all_headers["Idempotent-Replayed"] = "true"
    return JSONResponse(answer.body, status_code=status, headers=all_headers)


def _idempotency(request: Request, key: str | None, payload: Any) -> Idempotency | None:
    if not key:
        return None
    return Idempotency(key, games.fingerprint(request.method, request.url.path, payload))


def _etag_matches(if_none_match: str, current: str) -> bool:
    if if_none_match.strip() == "*":
        return True
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return current in tags


@router.post(
    "",
    name="create_game",
    status_code=201,
    response_model=GameState,
    responses={
        201: {
            "headers": {"Location": {"description": "The game's URL", "schema": {"type": "string"}}}
        },
        **errors(401, 422, 503),
    },
    summary="Deal a new game",
)
async def create_game(
    request: Request,
    body: GameCreate,
    session: SessionDep,
    player: CurrentPlayer,
    solvable_deals: SolvableDealsDep,
) -> Response:
    answer = await games.create_game(
        session,
        player,
        variant_name=body.variant,
        deal_number=body.deal,
        solvable=body.solvable,
        rules=body.rules.model_dump() if body.rules else None,
        settings=body.settings.model_dump() if body.settings else None,
        solvable_deals=solvable_deals,
    )
    location = str(request.url_for("get_game", game_id=answer.game_id).path)
    return _answer(answer, 201, {"Location": location})


@router.get(
    "",
    name="list_games",
    response_model=GamePage,
    responses=errors(401, 422),
    summary="The caller's games, newest first",
)
async def list_games(
    session: SessionDep,
    player: CurrentPlayer,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=512)] = None,
) -> dict[str, Any]:
    return await games.list_games(session, player, limit=limit, cursor=cursor)


@router.get(
    "/{game_id}",
    name="get_game",
    response_model=GameState,
    responses={
        200: {
            "headers": {
                "ETag": {"description": "Changes with every version", "schema": {"type": "string"}}
            }
        },
        304: {"description": "Not modified (If-None-Match matched the ETag)."},
        **errors(401, 404),
    },
    summary="The state of a game",
)
async def get_game(
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    if_none_match: Annotated[str | None, Header(alias="If-None-Match")] = None,
) -> Response:
    if if_none_match:
        version = await games.game_version(session, player, game_id)
        tag = games.etag(game_id, version)
        if _etag_matches(if_none_match, tag):
            return Response(status_code=304, headers={"ETag": tag})
    return _answer(await games.get_game(session, player, game_id))


@router.patch(
    "/{game_id}",
    name="update_game",
    response_model=GameState,
    responses=errors(401, 404, 409, 422),
    summary="Change a game's settings",
)
async def update_game(
    game_id: str, body: GamePatch, session: SessionDep, player: CurrentPlayer
) -> Response:
    changes = body.settings.model_dump(exclude_none=True)
    answer = await games.update_settings(session, player, game_id, changes, body.expected_version)
    return _answer(answer)


@router.post(
    "/{game_id}/moves",
    name="make_move",
    response_model=GameMoveResult,
    responses=errors(401, 404, 409, 422),
    summary="Play a move (move, draw, redeal or click)",
)
async def make_move(
    request: Request,
    game_id: str,
    body: Annotated[MoveRequest, Body(openapi_examples=MOVE_REQUEST_EXAMPLES)],
    session: SessionDep,
    player: CurrentPlayer,
    idempotency_key: IdempotencyKeyHeader = None,
) -> Response:
    payload = body.model_dump(by_alias=True, exclude_none=True)
    expected = payload.pop("expected_version", None)
    answer = await games.apply_move(
        session,
        player,
        game_id,
        payload,
        expected_version=expected,
        idempotency=_idempotency(request, idempotency_key, body.model_dump(by_alias=True)),
    )
    return _answer(answer)


@router.post(
    "/{game_id}/undo",
    name="undo_move",
    response_model=GameMoveResult,
    responses=errors(401, 404, 409, 422),
    summary="Take back the last move",
)
async def undo_move(
    request: Request,
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    body: Annotated[UndoRequest | None, Body()] = None,
    idempotency_key: IdempotencyKeyHeader = None,
) -> Response:
    expected = body.expected_version if body else None
    answer = await games.undo(
        session,
        player,
        game_id,
        expected_version=expected,
        idempotency=_idempotency(request, idempotency_key, {"expected_version": expected}),
    )
    return _answer(answer)


@router.get(
    "/{game_id}/moves",
    name="list_moves",
    response_model=MoveLog,
    responses=errors(401, 404, 422),
    summary="The accepted moves, in order (paginated)",
)
async def list_moves(
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    offset: Annotated[
        int,
        Query(
            ge=0,
            le=MAX_OFFSET,
            description="Skip the first `offset` moves: the page starts at seq offset + 1.",
        ),
    ] = 0,
    limit: Annotated[
        int,
        Query(
            ge=1,
            le=games.MOVES_PAGE_MAX,
            description="Moves in this page (default and most: "
            f"{games.MOVES_PAGE_DEFAULT}, {games.MOVES_PAGE_MAX}).",
        ),
    ] = games.MOVES_PAGE_DEFAULT,
) -> dict[str, Any]:
    return await games.list_moves(session, player, game_id, offset=offset, limit=limit)
