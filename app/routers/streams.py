"""A game's live stream (Server-Sent Events) and the stream tokens browsers open it
with. The stream itself is the service's (`app.services.games.stream`); this module
only authenticates, opens it, and writes its events in the SSE framing."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Annotated, Any, cast

import anyio
from fastapi import APIRouter, Header, Query, Request
from pydantic.json_schema import models_json_schema
from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.sse import SendTimeoutError
from starlette.background import BackgroundTask
from starlette.types import Receive, Scope, Send

from app.deps import CurrentPlayer, OptionalPlayer, ServicesDep, SessionDep, client_address
from app.errors import ApiError, GameNotFound, StreamsFull, TooManyStreams, Unauthorized
from app.middleware import abort_connection
from app.routers.common import errors
from app.schemas import StreamChange, StreamToken
from app.services.games import stream as streams
from app.services.wiring import Services

router = APIRouter(prefix="/games", tags=["games"])
log = logging.getLogger("app.streams")


class GameEventStream(EventSourceResponse):
    """An event stream whose reader, if it takes nothing for the send timeout (its
    socket full), is dropped, its connection with it: the end of that response, not an
    error."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except SendTimeoutError:
            log.info("a stream's reader took nothing for %s s: dropped", self.send_timeout)
            abort_connection(scope)


_REF = "#/components/schemas/{model}"


def _frame(event: str, payload: str, what: str) -> dict[str, Any]:
    """One SSE event of the stream as its fields: `data` is JSON text of `payload`."""
    return {
        "title": f"Stream{event.title()}Event",
        "description": f"An `event: {event}` of the live stream: {what}",
        "type": "object",
        "required": ["event", "id", "data"],
        "properties": {
            "event": {"type": "string", "enum": [event]},
            "id": {
                "type": "string",
                "pattern": "^[0-9]+$",
                "description": "The game's version (send it back as `Last-Event-ID`).",
            },
            "data": {
                "type": "string",
                "description": f"JSON text of a `{payload}` (parse it: `JSON.parse`).",
                "contentMediaType": "application/json",
                "contentSchema": {"$ref": _REF.format(model=payload)},
            },
        },
    }


def stream_components() -> dict[str, dict[str, Any]]:
    """The component schemas of the stream's payloads, for the API document
    (`app.document`): `StreamChange` (with `GameEvent`, the events it lists) and the two
    events as their SSE fields, `StreamStateEvent` and `StreamChangeEvent`. A generated
    client types an event's parsed `data` with them (docs/api.md)."""
    _, defs = models_json_schema([(StreamChange, "serialization")], ref_template=_REF)
    schemas: dict[str, dict[str, Any]] = defs["$defs"]
    schemas["StreamStateEvent"] = _frame(
        "state", "GameState", "the game's public state, as GET /games/{game_id} answers it."
    )
    schemas["StreamChangeEvent"] = _frame(
        "change", "StreamChange", "the new version, the events since, the new state."
    )
    return schemas


_EVENT_STREAM = {
    "description": "The stream (`text/event-stream`): an `event: state` with the game's "
    "public state (`StreamStateEvent`), then an `event: change` per change "
    "(`StreamChangeEvent`, its data a `StreamChange`); `id:` is the game's version. "
    "Heartbeats are comments, not events. With openapi-fetch, ask "
    '`parseAs: "stream"` (see docs/api.md, "The live stream of a game").',
    "headers": {
        "Cache-Control": {
            "description": "`no-store`: a stream is never cached.",
            "schema": {"type": "string", "enum": ["no-store"]},
        },
        "X-Accel-Buffering": {
            "description": "`no`: tells a proxy in front (nginx) to pass each event on "
            "at once instead of buffering the answer.",
            "schema": {"type": "string", "enum": ["no"]},
        },
    },
    # One event, as the stream sends each: its SSE fields; `data` is JSON text whose
    # schema is `contentSchema` (OpenAPI 3.1 has no schema for a stream's items).
    "content": {
        "text/event-stream": {
            "schema": {
                "oneOf": [
                    {"$ref": _REF.format(model="StreamStateEvent")},
                    {"$ref": _REF.format(model="StreamChangeEvent")},
                ],
                "discriminator": {
                    "propertyName": "event",
                    "mapping": {
                        "state": _REF.format(model="StreamStateEvent"),
                        "change": _REF.format(model="StreamChangeEvent"),
                    },
                },
            }
        }
    },
}


def _last_event_id(value: str | None) -> int | None:
    """The version the client has; anything but a version is none (a fresh state)."""
    if value is None or not value.strip().isdigit():
        return None
    return int(value)


async def _stream_caller(
    request: Request,
    services: Services,
    session: SessionDep,
    player: OptionalPlayer,
    token: str | None,
    game_id: str,
) -> streams.StreamCaller:
    """The caller: by bearer token, else by a stream token of this game (a wrong one is
    counted against the address as a wrong bearer token is)."""
    if player is not None:
        return streams.StreamCaller(player.id)
    if not token:
        raise Unauthorized()
    try:
        return services.stream_tokens.player_for(token, game_id)
    except ApiError:
        await services.auth_limiter.failed(session, client_address(request))  # 429 past the limit
        raise


def _sse(event: streams.StreamEvent) -> ServerSentEvent:
    return ServerSentEvent(
        data=json.dumps(event.data, separators=(",", ":"), ensure_ascii=False),
        event=event.event,
        id=str(event.id),
    )


async def _framed(stream: streams.GameStream) -> AsyncIterator[ServerSentEvent]:
    events = cast(AsyncGenerator[streams.StreamEvent, None], stream.events())
    try:
        while True:
            try:
                event = await _next_event(events)
            except StopAsyncIteration:
                return
            framed = _sse(event)
            del event  # nothing of a sent event is kept while the stream waits
            yield framed
            del framed
    finally:
        await events.aclose()


async def _next_event(events: AsyncGenerator[streams.StreamEvent, None]) -> streams.StreamEvent:
    """The stream's next event, read in a task of its own, which the response's end (the
    client gone, a send timed out) cancels once. The response's cancel scope cancels at
    every await: a database read it cut was cut again while its connection was closed
    (asyncio logged "Task was destroyed but it is pending!" at ERROR)."""
    step = asyncio.ensure_future(anext(events))
    try:
        return await asyncio.shield(step)
    except asyncio.CancelledError:
        step.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.wait([step])
        if not step.cancelled():
            step.exception()  # looked at: the stream ends with the response anyway
        raise


@router.get(
    "/{game_id}/events",
    name="game_events",
    response_class=EventSourceResponse,
    responses={
        200: _EVENT_STREAM,
        **errors(Unauthorized, GameNotFound, TooManyStreams, StreamsFull),
    },
    summary="The game's live stream of changes (Server-Sent Events)",
)
async def game_events(
    request: Request,
    game_id: str,
    services: ServicesDep,
    session: SessionDep,
    player: OptionalPlayer,
    token: Annotated[
        str | None,
        Query(max_length=512, description="A stream token, for clients without headers."),
    ] = None,
    last_event_id: Annotated[
        str | None,
        Header(alias="Last-Event-ID", max_length=32, description="The last `id:` received."),
    ] = None,
    since: Annotated[
        int | None,
        Query(
            ge=0,
            description="The version the client has, where it cannot send `Last-Event-ID` "
            "(a new EventSource); the header wins.",
        ),
    ] = None,
) -> Any:
    caller = await _stream_caller(request, services, session, player, token, game_id)
    settings = services.settings
    stream = await streams.open_stream(
        services.database.sessionmaker,
        services.notifier,
        services.stream_watcher,
        services.streams,
        player_id=caller.player_id,
        game_id=game_id,
        last_event_id=_last_event_id(last_event_id) if last_event_id is not None else since,
        options=streams.StreamOptions(
            max_seconds=settings.stream_max_seconds,
            ends_at=caller.expires_at,
        ),
    )
    return GameEventStream(
        _framed(stream),
        ping=settings.stream_ping_seconds,
        # A reader whose socket stays full is dropped rather than buffered for.
        send_timeout=settings.stream_send_timeout_seconds,
        # Proxies (nginx) would otherwise hold the events back in their buffers.
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        # The stream's slot is given back however the response ends (even unstarted).
        background=BackgroundTask(stream.close),
    )


@router.post(
    "/{game_id}/stream-token",
    name="create_stream_token",
    response_model=StreamToken,
    responses=errors(Unauthorized, GameNotFound),
    summary="A short-lived token that opens this game's stream (for EventSource)",
)
async def create_stream_token(
    request: Request,
    game_id: str,
    services: ServicesDep,
    session: SessionDep,
    player: CurrentPlayer,
) -> StreamToken:
    issued = await streams.issue_stream_token(session, services.stream_tokens, player.id, game_id)
    path = request.url_for("game_events", game_id=game_id).path
    return StreamToken(
        token=issued.token, expires_at=issued.expires_at, url=f"{path}?token={issued.token}"
    )
