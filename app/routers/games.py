"""Games: parse the request into typed commands, call the service, return its models."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Query, Request, Response

from app.config import Settings
from app.deps import (
    CurrentPlayer,
    NoNullBody,
    PageCursorsDep,
    PlayerBoundsDep,
    SessionDep,
    SettingsDep,
    SolvableDealsDep,
)
from app.engine import DRAW_MOVE, REDEAL_MOVE, EngineError, Move, Pile
from app.errors import (
    AutoPlayOff,
    GameAlreadyOver,
    GameNotFound,
    GameOver,
    IdempotencyKeyReused,
    IllegalMoveError,
    InvalidCursor,
    InvalidDealError,
    InvalidMoveError,
    InvalidRecordError,
    InvalidRules,
    NoSolvableDeals,
    NothingToUndo,
    RecordNotAvailable,
    ServerBusy,
    TooManyGames,
    TooManySolvableDeals,
    Unauthorized,
    UnknownVariantError,
    ValidationFailed,
    VersionConflict,
    from_engine,
)
from app.routers.common import (
    ETAG,
    LOCATION,
    IfNoneMatch,
    PageCursor,
    PageLimit,
    answer_headers,
    errors,
    etag_matches,
    not_modified,
)
from app.schemas import (
    MOVE_REQUEST_EXAMPLES,
    ClickRequest,
    DrawRequest,
    GameCreate,
    GameMoveResult,
    GamePage,
    GamePatch,
    GameRecord,
    GameState,
    MoveLog,
    MoveRequest,
    MoveRequestMove,
    RedealRequest,
    ResignRequest,
    UndoRequest,
    UndoResult,
)
from app.services import games
from app.services.games import Click, Command
from app.services.kit.idempotency import Idempotency, fingerprint

router = APIRouter(prefix="/games", tags=["games"])

# The move log's `offset` fits the seq column (a 32-bit integer on PostgreSQL).
MAX_OFFSET = 2**31 - 1


IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=255,
        description="A retried request with the same key returns the first answer.",
    ),
]

_MOVE_ERRORS = (
    Unauthorized,
    GameNotFound,
    VersionConflict,
    GameOver,
    IllegalMoveError,
    InvalidMoveError,
    AutoPlayOff,
    IdempotencyKeyReused,
)


def _idempotency(
    request: Request, settings: Settings, key: str | None, payload: Any
) -> Idempotency | None:
    if not key:
        return None
    return Idempotency(
        key,
        fingerprint(request.method, request.url.path, payload),
        ttl=timedelta(hours=settings.idempotency_ttl_hours),
        keep=settings.idempotency_max_per_player,
    )


def command(body: MoveRequestMove | DrawRequest | RedealRequest | ClickRequest) -> Command:
    """The move request as the service takes it: an engine move, or a click to resolve
    against the game's position. Pile ids are read here, once (422 invalid_move)."""
    try:
        if isinstance(body, MoveRequestMove):
            return Move.between(body.from_, body.to, body.count)
        if isinstance(body, ClickRequest):
            return Click(Pile.parse(body.pile), body.index)
    except EngineError as exc:
        raise from_engine(exc) from exc
    return DRAW_MOVE if isinstance(body, DrawRequest) else REDEAL_MOVE


@router.post(
    "",
    name="create_game",
    status_code=201,
    response_model=GameState,
    responses={
        201: {"headers": {**LOCATION, **ETAG}},
        **errors(
            Unauthorized,
            UnknownVariantError,
            InvalidDealError,
            InvalidRules,
            InvalidRecordError,
            NoSolvableDeals,
            ServerBusy,
            TooManyGames,
            TooManySolvableDeals,
        ),
    },
    summary="Deal a new game (or play a game record again)",
)
async def create_game(
    request: Request,
    response: Response,
    body: GameCreate,
    session: SessionDep,
    player: CurrentPlayer,
    solvable_deals: SolvableDealsDep,
    bounds: PlayerBoundsDep,
) -> GameState:
    answer = await games.create_game(
        session,
        player,
        variant_name=body.variant,
        deal_number=body.deal,
        solvable=body.solvable,
        rules=body.rules.model_dump() if body.rules else None,
        settings=body.settings.model_dump() if body.settings else None,
        solvable_deals=solvable_deals,
        record=body.record,
        difficulty=body.difficulty,
        bounds=bounds,
    )
    answer_headers(response, answer)
    response.headers["Location"] = str(request.url_for("get_game", game_id=answer.game_id).path)
    return answer.body


@router.get(
    "",
    name="list_games",
    response_model=GamePage,
    responses=errors(Unauthorized, InvalidCursor),
    summary="The caller's games, newest first",
)
async def list_games(
    session: SessionDep,
    player: CurrentPlayer,
    cursors: PageCursorsDep,
    limit: PageLimit = 20,
    cursor: Annotated[str | None, Query(max_length=512)] = None,
) -> GamePage:
    return await games.list_games(session, player, limit=limit, cursor=cursor, cursors=cursors)


@router.get(
    "/{game_id}",
    name="get_game",
    response_model=GameState,
    responses={
        200: {"headers": ETAG},
        304: not_modified(ETAG),
        **errors(Unauthorized, GameNotFound),
    },
    summary="The state of a game",
)
async def get_game(
    game_id: str,
    response: Response,
    session: SessionDep,
    player: CurrentPlayer,
    if_none_match: IfNoneMatch = None,
) -> GameState | Response:
    if if_none_match:
        version = await games.game_version(session, player, game_id)
        tag = games.etag(game_id, version)
        if etag_matches(if_none_match, tag):
            return Response(status_code=304, headers={"ETag": tag})
    answer = await games.get_game(session, player, game_id)
    answer_headers(response, answer)
    return answer.body


@router.patch(
    "/{game_id}",
    name="update_game",
    response_model=GameState,
    responses={200: {"headers": ETAG}, **errors(Unauthorized, GameNotFound, VersionConflict)},
    summary="Change a game's settings",
)
async def update_game(
    game_id: str, body: GamePatch, response: Response, session: SessionDep, player: CurrentPlayer
) -> GameState:
    changes = body.settings.model_dump(exclude_none=True)
    answer = await games.update_settings(session, player, game_id, changes, body.expected_version)
    answer_headers(response, answer)
    return answer.body


@router.post(
    "/{game_id}/moves",
    name="make_move",
    response_model=GameMoveResult,
    responses={200: {"headers": ETAG}, **errors(*_MOVE_ERRORS)},
    summary="Play a move (move, draw, redeal or click)",
)
async def make_move(
    request: Request,
    settings: SettingsDep,
    response: Response,
    game_id: str,
    body: Annotated[MoveRequest, Body(openapi_examples=MOVE_REQUEST_EXAMPLES)],
    session: SessionDep,
    player: CurrentPlayer,
    idempotency_key: IdempotencyKeyHeader = None,
) -> GameMoveResult | Response:
    answer = await games.apply_move(
        session,
        player,
        game_id,
        command(body),
        expected_version=body.expected_version,
        # The body's dump only for a key's fingerprint.
        idempotency=_idempotency(request, settings, idempotency_key, body.model_dump(by_alias=True))
        if idempotency_key
        else None,
    )
    data = answer.json_bytes()
    if data is not None:
        # Written straight from the service's JSON form: the bytes the model would write.
        written = Response(content=data, media_type="application/json")
        answer_headers(written, answer)
        return written
    answer_headers(response, answer)
    return answer.body


@router.post(
    "/{game_id}/undo",
    name="undo_move",
    response_model=UndoResult,
    dependencies=[NoNullBody],
    responses={
        200: {"headers": ETAG},
        **errors(
            Unauthorized,
            GameNotFound,
            VersionConflict,
            GameOver,
            NothingToUndo,
            IdempotencyKeyReused,
        ),
    },
    summary="Take back the last move",
)
async def undo_move(
    request: Request,
    settings: SettingsDep,
    response: Response,
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    body: Annotated[UndoRequest | None, Body()] = None,
    idempotency_key: IdempotencyKeyHeader = None,
) -> UndoResult:
    expected = body.expected_version if body else None
    answer = await games.undo(
        session,
        player,
        game_id,
        expected_version=expected,
        idempotency=_idempotency(
            request, settings, idempotency_key, {"expected_version": expected}
        ),
    )
    answer_headers(response, answer)
    return answer.body


@router.post(
    "/{game_id}/resign",
    name="resign_game",
    response_model=GameState,
    dependencies=[NoNullBody],
    responses={
        200: {"headers": ETAG},
        **errors(
            Unauthorized, GameNotFound, VersionConflict, GameAlreadyOver, IdempotencyKeyReused
        ),
    },
    summary="Give up a game in play (status resigned: played, not won)",
)
async def resign_game(
    request: Request,
    settings: SettingsDep,
    response: Response,
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    body: Annotated[ResignRequest | None, Body()] = None,
    idempotency_key: IdempotencyKeyHeader = None,
) -> GameState:
    expected = body.expected_version if body else None
    answer = await games.resign(
        session,
        player,
        game_id,
        expected_version=expected,
        idempotency=_idempotency(
            request, settings, idempotency_key, {"expected_version": expected}
        ),
    )
    answer_headers(response, answer)
    return answer.body


@router.get(
    "/{game_id}/moves",
    name="list_moves",
    response_model=MoveLog,
    responses=errors(Unauthorized, GameNotFound, ValidationFailed, InvalidCursor),
    summary="The accepted moves, in order (paginated)",
)
async def list_moves(
    game_id: str,
    session: SessionDep,
    player: CurrentPlayer,
    cursors: PageCursorsDep,
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
    cursor: PageCursor = None,
) -> MoveLog:
    return await games.list_moves(
        session, player, game_id, offset=offset, limit=limit, cursor=cursor, cursors=cursors
    )


@router.get(
    "/{game_id}/record",
    name="get_game_record",
    response_model=GameRecord,
    responses=errors(Unauthorized, GameNotFound, RecordNotAvailable),
    summary="The game as one text: its deal and its line of play",
)
async def get_game_record(game_id: str, session: SessionDep, player: CurrentPlayer) -> GameRecord:
    return await games.get_record(session, player, game_id)
