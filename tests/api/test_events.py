"""A game's live stream: GET /games/{id}/events (Server-Sent Events)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
import time_machine
from fastapi import FastAPI
from jsonschema import Draft202012Validator, ValidationError
from sqlalchemy import event, update
from sqlalchemy.exc import OperationalError

from app.config import Settings
from app.db import is_sqlite
from app.main import create_app
from app.models import Game
from app.services.games.changes import Change, RecentChanges
from app.services.games.listen import decode, encode
from tests.api.conftest import API, NewGame, NewPlayer, assert_error, running
from tests.api.helpers import near_won_rank_and_file, put_state
from tests.api.sse_helpers import Event, EventReader, StreamingASGITransport


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # Small intervals: a poll finds another process's change in a tenth of a second.
    return settings.model_copy(
        update={
            "stream_poll_seconds": 0.1,
            "stream_resync_seconds": 0.1,
            "stream_ping_seconds": 0.2,
            "stream_max_per_player": 2,
            "stream_send_timeout_seconds": 0.3,
        }
    )


@pytest.fixture
async def streamer(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = StreamingASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


def _events(game_id: str) -> str:
    return f"{API}/games/{game_id}/events"


async def _get(client: httpx.AsyncClient, auth: dict[str, str], game_id: str) -> Any:
    response = await client.get(f"{API}/games/{game_id}", headers=auth)
    assert response.status_code == 200, response.text
    return response.json()


async def _draw(client: httpx.AsyncClient, auth: dict[str, str], game_id: str) -> Any:
    response = await client.post(
        f"{API}/games/{game_id}/moves", json={"action": "draw"}, headers=auth
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_the_stream_starts_with_the_public_state_then_a_change_per_move(
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    game = await new_game()
    async with streamer.stream("GET", _events(game["id"]), headers=auth) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        reader = EventReader(response)
        first = await reader.next()
        assert first is not None and first.event == "state"
        assert first.id == str(game["version"])
        assert first.data == await _get(client, auth, game["id"])

        moved = await _draw(client, auth, game["id"])
        change = await reader.next()
        assert change is not None and change.event == "change"
        assert change.id == str(moved["version"]) == str(game["version"] + 1)
        assert change.data["version"] == moved["version"]
        assert change.data["events"] == moved["events"]
        assert change.data["state"] == await _get(client, auth, game["id"])

        undone = await client.post(f"{API}/games/{game['id']}/undo", headers=auth)
        assert undone.status_code == 200, undone.text
        change = await reader.next()
        assert change is not None and change.id == str(undone.json()["version"])
        assert change.data["events"] == undone.json()["events"]

        patched = await client.patch(
            f"{API}/games/{game['id']}", json={"settings": {"auto_play": False}}, headers=auth
        )
        assert patched.status_code == 200, patched.text
        change = await reader.next()
        assert change is not None and change.data["events"] == []
        assert change.data["state"] == patched.json()


async def test_a_reconnect_with_the_current_version_waits_for_the_next_change(
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    game = await new_game()
    resume = {**auth, "Last-Event-ID": str(game["version"])}
    async with streamer.stream("GET", _events(game["id"]), headers=resume) as response:
        reader = EventReader(response)
        moved = await _draw(client, auth, game["id"])
        change = await reader.next()
        assert change is not None and change.event == "change"
        assert change.id == str(moved["version"])


async def test_a_reconnect_from_an_older_version_gets_the_changes_since_or_a_fresh_state(
    settings: Settings,
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    game = await new_game()
    drawn = [await _draw(client, auth, game["id"]) for _ in range(3)]
    resume = {**auth, "Last-Event-ID": str(game["version"])}
    # This process made the three changes: one `change` event with all their events.
    async with streamer.stream("GET", _events(game["id"]), headers=resume) as response:
        first = await EventReader(response).next()
    assert first is not None and first.event == "change"
    assert first.id == str(drawn[-1]["version"])
    assert first.data["events"] == [event for d in drawn for event in d["events"]]
    assert first.data["state"] == await _get(client, auth, game["id"])
    # A new EventSource cannot send the header: the same by `since`.
    since = {"since": game["version"]}
    async with streamer.stream("GET", _events(game["id"]), headers=auth, params=since) as r:
        again = await EventReader(r).next()
    assert again is not None and (again.event, again.data) == (first.event, first.data)
    # Another process knows none of them: the state.
    other = create_app(settings)
    async with (
        running(other),
        httpx.AsyncClient(transport=StreamingASGITransport(other), base_url="http://b") as b,
        b.stream("GET", _events(game["id"]), headers=resume) as response,
    ):
        first = await EventReader(response).next()
    assert first is not None and first.event == "state"
    assert first.id == str(drawn[-1]["version"])
    assert first.data == await _get(client, auth, game["id"])


async def test_a_resume_across_an_undo_is_a_change_while_every_change_since_is_kept(
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    game = await new_game()
    drawn = [await _draw(client, auth, game["id"]) for _ in range(2)]
    undone = await client.post(f"{API}/games/{game['id']}/undo", headers=auth)
    assert undone.status_code == 200, undone.text
    now = await _get(client, auth, game["id"])

    async def resume(since: int) -> Any:
        headers = {**auth, "Last-Event-ID": str(since)}
        async with streamer.stream("GET", _events(game["id"]), headers=headers) as response:
            first = await EventReader(response).next()
        assert first is not None and first.event == "change", first
        assert first.id == str(now["version"]) and first.data["state"] == now
        return first.data["events"]

    # From before the draws: the undo turns down a card the second draw named, which
    # the events of the span would show; the change comes with no events (the state).
    assert await resume(game["version"]) == []
    # From the second draw: the undo's own events.
    assert await resume(drawn[-1]["version"]) == undone.json()["events"]


def _assert_as_documented(app: FastAPI, sent: Event) -> None:
    """An event as the document declares the stream's: its fields one of the
    `text/event-stream` answer's schemas, its data (JSON text) that schema's
    `contentSchema`. The schemas' references resolve in the document's components."""
    document = app.openapi()
    answer = document["paths"][_events("{game_id}")]["get"]["responses"]["200"]
    framed = answer["content"]["text/event-stream"]["schema"]
    within = {"components": document["components"]}
    frame = {"event": sent.event, "id": sent.id, "data": sent.text}
    Draft202012Validator({**framed, **within}).validate(frame)
    name = framed["discriminator"]["mapping"][sent.event].rsplit("/", 1)[1]
    payload = document["components"]["schemas"][name]["properties"]["data"]["contentSchema"]
    Draft202012Validator({**payload, **within}).validate(json.loads(sent.text))


async def test_the_events_sent_are_those_the_document_declares(
    app: FastAPI,
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    game = await new_game(variant="canfield")  # a reserve, a stock: most kinds of event
    sent: list[Event] = []
    async with streamer.stream("GET", _events(game["id"]), headers=auth) as response:
        reader = EventReader(response)
        sent.append(await _next(reader))
        for _ in range(3):
            await _draw(client, auth, game["id"])
            sent.append(await _next(reader))
        undone = await client.post(f"{API}/games/{game['id']}/undo", headers=auth)
        assert undone.status_code == 200, undone.text
        sent.append(await _next(reader))
        patched = await client.patch(
            f"{API}/games/{game['id']}", json={"settings": {"auto_play": False}}, headers=auth
        )
        assert patched.status_code == 200, patched.text
        sent.append(await _next(reader))
    resume = {**auth, "Last-Event-ID": str(game["version"])}  # across the undo: no events
    async with streamer.stream("GET", _events(game["id"]), headers=resume) as response:
        sent.append(await _next(EventReader(response)))
    assert [event.event for event in sent] == ["state"] + ["change"] * 6
    kinds = {step["type"] for each in sent[1:] for step in each.data["events"]}
    assert {"move", "undo", "move_back"} <= kinds, kinds
    for each in sent:
        _assert_as_documented(app, each)
    # A payload the schemas refuse is refused: the check checks.
    wrong = replace(sent[1], text=json.dumps({**sent[1].data, "events": [{"type": "fly"}]}))
    with pytest.raises(ValidationError):
        _assert_as_documented(app, wrong)


async def _next(reader: EventReader) -> Event:
    event = await reader.next()
    assert event is not None
    return event


def test_recent_changes_give_the_events_of_a_span_only_when_all_are_known() -> None:
    recent = RecentChanges(max_games=2, per_game=3, max_events=2)
    for version in range(1, 5):  # 0->1 ... 3->4; 0->1 falls out (three kept)
        recent.add(Change("g", version - 1, version, events=({"n": version},)))
    assert recent.events_between("g", 1, 4) == [{"n": 2}, {"n": 3}, {"n": 4}]
    assert recent.events_between("g", 2, 3) == [{"n": 3}]
    assert recent.events_between("g", 0, 4) is None  # 0->1 is gone
    recent.add(Change("g", 4, 6, events=None))  # a change made elsewhere: events unknown
    assert recent.events_between("g", 4, 6) is None
    assert recent.holds("g", 4, 6) and not recent.holds("g", 0, 4)
    recent.add(Change("g", 6, 7, events=({"a": 1}, {"b": 2}, {"c": 3})))  # too many to keep
    assert recent.events_between("g", 6, 7) is None
    recent.add(Change("g", 7, 8, events=({"type": "move", "cards": ["QS"]},)))
    recent.add(Change("g", 8, 9, events=({"type": "undo"}, {"type": "turn_down"})))
    assert recent.events_between("g", 7, 8) == [{"type": "move", "cards": ["QS"]}]
    assert recent.events_between("g", 7, 9) is None  # QS may be face down again
    assert recent.holds("g", 7, 9)  # yet both are kept: a `change`, without events
    assert recent.events_between("g", 8, 9) == [{"type": "undo"}, {"type": "turn_down"}]
    recent.add(Change("g", 9, 10, events=({"type": "move", "cards": ["5H"]},)))
    recent.add(Change("g", 10, 11, events=({"type": "move", "cards": None, "count": 9},)))
    assert recent.events_between("g", 9, 11) is None  # a redeal: 5H face down in the stock
    assert recent.events_between("g", 10, 11) is not None
    recent.add(Change("h", 0, 1, events=()))
    recent.add(Change("i", 0, 1, events=()))  # a third game: the least recent goes
    assert recent.events_between("i", 0, 1) == []
    assert recent.events_between("g", 3, 4) is None


async def test_a_change_by_another_process_is_found_by_the_poll_and_a_win_ends_the_stream(
    app: FastAPI,
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    game = await new_game()
    async with streamer.stream("GET", _events(game["id"]), headers=auth) as response:
        reader = EventReader(response)
        assert (await reader.next()) is not None
        # Written under the service, as another process would: only the poll sees it.
        await put_state(app, game["id"], near_won_rank_and_file())
        change = await reader.next()
        assert change is not None and change.data["events"] == []
        assert change.data["state"] == await _get(client, auth, game["id"])

        won = await client.post(
            f"{API}/games/{game['id']}/moves",
            json={"action": "move", "from": "tableau-1", "to": "foundation-0"},
            headers=auth,
        )
        assert won.json()["status"] == "won"
        final = await reader.next()
        assert final is not None and final.data["state"]["status"] == "won"
        assert final.data["events"] == won.json()["events"]
        assert await reader.next() is None  # the stream ended after the final event
    assert app.state.services.streams.open == 0


async def test_a_resign_ends_the_stream(
    app: FastAPI,
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    game = await new_game()
    async with streamer.stream("GET", _events(game["id"]), headers=auth) as response:
        reader = EventReader(response)
        assert (await reader.next()) is not None
        resigned = await client.post(f"{API}/games/{game['id']}/resign", headers=auth)
        final = await reader.next()
        assert final is not None and final.id == str(resigned.json()["version"])
        assert final.data["state"]["status"] == "resigned" and final.data["events"] == []
        assert await reader.next() is None  # the stream ended after the final event
    assert app.state.services.streams.open == 0


async def test_a_move_through_another_instance_on_the_same_database_reaches_the_stream(
    settings: Settings,
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    game = await new_game()
    other = create_app(settings)  # its own notifier: only the poll carries the change
    async with (
        running(other),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=other), base_url="http://b") as b,
        streamer.stream("GET", _events(game["id"]), headers=auth) as response,
    ):
        reader = EventReader(response)
        assert (await reader.next()) is not None
        moved = await _draw(b, auth, game["id"])
        change = await reader.next()
        assert change is not None and change.id == str(moved["version"])
        assert change.data["state"] == await _get(client, auth, game["id"])


@asynccontextmanager
async def _streamed_elsewhere(
    settings: Settings, game_id: str, auth: dict[str, str]
) -> AsyncIterator[tuple[FastAPI, EventReader]]:
    """Another instance, which reads its watched games' versions once a minute (only
    NOTIFY is in time), and the game's stream there, read past its first state."""
    slow = create_app(settings.model_copy(update={"stream_resync_seconds": 60.0}))
    async with (
        running(slow),
        httpx.AsyncClient(transport=StreamingASGITransport(slow), base_url="http://b") as b,
        b.stream("GET", _events(game_id), headers=auth) as response,
    ):
        reader = EventReader(response)
        assert (await reader.next()) is not None
        yield slow, reader


async def test_on_postgresql_a_change_reaches_another_instance_by_notify_not_the_poll(
    settings: Settings,
    database_url: str,
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    if is_sqlite(database_url):
        pytest.skip("LISTEN/NOTIFY: PostgreSQL only (TEST_DATABASE_URL)")
    game = await new_game()
    async with _streamed_elsewhere(settings, game["id"], auth) as (slow, reader):
        for _ in range(3):
            moved = await _draw(client, auth, game["id"])
            started = time.monotonic()
            change = await asyncio.wait_for(reader.next(), 5.0)
            assert time.monotonic() - started < 1.0
            assert change is not None and change.id == str(moved["version"])
            assert change.data["events"] == moved["events"]  # carried in the notification
            assert change.data["state"] == await _get(client, auth, game["id"])
        assert slow.state.services.notifier.received >= 3


async def test_on_postgresql_a_lost_listening_connection_is_opened_again(
    app: FastAPI,
    settings: Settings,
    database_url: str,
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    if is_sqlite(database_url):
        pytest.skip("LISTEN/NOTIFY: PostgreSQL only (TEST_DATABASE_URL)")
    game = await new_game()
    async with _streamed_elsewhere(settings, game["id"], auth) as (slow, reader):
        notifier = slow.state.services.notifier
        listening = notifier._connection
        assert listening is not None
        async with app.state.services.database.engine.connect() as connection:
            await connection.exec_driver_sql(
                f"SELECT pg_terminate_backend({listening.get_server_pid()})"
            )
        # Made while the stream's instance listens no more, or again: either the
        # notification or the wake-up on the new connection brings it.
        moved = await _draw(client, auth, game["id"])
        change = await asyncio.wait_for(reader.next(), 5.0)
        assert change is not None and change.id == str(moved["version"])
        assert notifier._connection not in (None, listening)
        moved = await _draw(client, auth, game["id"])
        change = await asyncio.wait_for(reader.next(), 2.0)
        assert change is not None and change.id == str(moved["version"])


def test_a_notification_carries_the_change_and_its_events_when_they_fit() -> None:
    change = Change("g1", before=3, version=4, events=({"type": "draw", "cards": ["AS"]},))
    assert decode(encode(change, "me")) == ("me", change)
    big = replace(change, events=tuple({"type": "move", "n": "x" * 100} for _ in range(100)))
    payload = encode(big, "me")
    assert len(payload.encode()) < 8_000  # PostgreSQL's limit
    assert decode(payload) == ("me", replace(change, events=None))  # the state says it all
    assert decode("not json") is None
    assert decode('{"o": "x", "g": "g1", "b": "three", "v": 4}') is None


async def test_errors_before_the_stream_are_the_json_envelope(
    streamer: httpx.AsyncClient, new_player: NewPlayer, new_game: NewGame
) -> None:
    game = await new_game()
    other = await new_player("bob")
    assert_error(await streamer.get(_events(game["id"]), headers=other), 404, "game_not_found")
    assert_error(await streamer.get(_events(game["id"])), 401, "unauthorized")
    unknown = "00000000-0000-0000-0000-000000000000"
    assert_error(await streamer.get(_events(unknown), headers=other), 404, "game_not_found")


def _assert_documented_429(app: FastAPI, answer: httpx.Response) -> None:
    """The stream's 429 as its operation's document says: its code listed, and the
    headers declared for it sent (`Retry-After`, a whole number of seconds)."""
    documented = app.openapi()["paths"][_events("{game_id}")]["get"]["responses"]["429"]
    narrowed = documented["content"]["application/json"]["schema"]["allOf"][1]
    assert (
        answer.json()["error"]["code"]
        in narrowed["properties"]["error"]["properties"]["code"]["enum"]
    )
    for header in documented.get("headers", {}):
        assert header in answer.headers, (header, answer.headers)
    assert 1 <= int(answer.headers["Retry-After"]) <= 60


async def test_streams_per_player_and_per_instance_are_bounded(
    app: FastAPI,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_player: NewPlayer,
    new_game: NewGame,
) -> None:
    game = await new_game()
    async with (
        streamer.stream("GET", _events(game["id"]), headers=auth) as one,
        streamer.stream("GET", _events(game["id"]), headers=auth) as two,
    ):
        assert one.status_code == two.status_code == 200
        third = await streamer.get(_events(game["id"]), headers=auth)
        assert_error(third, 429, "too_many_streams")
        _assert_documented_429(app, third)
        # Another player's stream is not counted against this one's.
        other = await new_player("bob")
        theirs = await new_game(headers=other)
        app.state.services.streams.per_instance = 3
        async with streamer.stream("GET", _events(theirs["id"]), headers=other) as own:
            assert own.status_code == 200
            full = await streamer.get(_events(theirs["id"]), headers=other)
            assert_error(full, 429, "streams_full")
            _assert_documented_429(app, full)
    # Closed streams give their places back.
    async with streamer.stream("GET", _events(game["id"]), headers=auth) as again:
        assert again.status_code == 200
    assert app.state.services.streams.open == 0


async def test_a_stream_token_opens_the_stream_without_a_header(
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_player: NewPlayer,
    new_game: NewGame,
) -> None:
    game = await new_game()
    other_game = await new_game()
    issued = await client.post(f"{API}/games/{game['id']}/stream-token", headers=auth)
    assert issued.status_code == 200, issued.text
    body = issued.json()
    assert body["url"] == f"{_events(game['id'])}?token={body['token']}"
    async with streamer.stream("GET", body["url"]) as response:
        assert response.status_code == 200
        first = await EventReader(response).next()
        assert first is not None and first.data == await _get(client, auth, game["id"])

    token = body["token"]
    refused = await streamer.get(_events(other_game["id"]), params={"token": token})
    assert_error(refused, 401, "unauthorized")  # a token opens its own game only
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert_error(
        await streamer.get(_events(game["id"]), params={"token": forged}), 401, "unauthorized"
    )
    other = await new_player("bob")
    theirs = await client.post(f"{API}/games/{game['id']}/stream-token", headers=other)
    assert_error(theirs, 404, "game_not_found")
    assert_error(await client.post(f"{API}/games/{game['id']}/stream-token"), 401, "unauthorized")


async def test_an_expired_stream_token_is_refused(app: FastAPI, new_game: NewGame) -> None:
    game = await new_game()
    tokens = app.state.services.stream_tokens
    issued = tokens.issue("someone", game["id"], now=0.0)
    with pytest.raises(Exception) as refused:
        tokens.player_for(issued.token, game["id"])
    assert getattr(refused.value, "code", None) == "unauthorized"


@pytest.mark.parametrize("given_at", [100.0, 100.001, 100.5, 100.999])
async def test_a_stream_token_lives_at_least_its_stated_lifetime(
    app: FastAPI, new_game: NewGame, given_at: float
) -> None:
    game = await new_game()
    tokens = app.state.services.stream_tokens
    issued = tokens.issue("someone", game["id"], now=given_at)
    last_valid = given_at + tokens.ttl_seconds
    assert issued.expires_at.timestamp() >= last_valid
    assert issued.expires_at.timestamp() < last_valid + 1  # whole seconds, no more
    caller = tokens.player_for(issued.token, game["id"], now=last_valid)
    assert caller.player_id == "someone"
    assert caller.expires_at == issued.expires_at.timestamp()


# Seconds a stream opened by a token has before the token expires (test below).
OPEN_SECONDS = 3.0


async def test_a_stream_opened_by_a_token_ends_when_the_token_expires(
    settings: Settings, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game()
    short = create_app(settings.model_copy(update={"stream_token_seconds": 6.0}))
    async with (
        running(short),
        httpx.AsyncClient(transport=StreamingASGITransport(short), base_url="http://s") as s,
    ):
        issued = (await s.post(f"{API}/games/{game['id']}/stream-token", headers=auth)).json()
        expires = datetime.fromisoformat(issued["expires_at"])
        # The wall clock moved on to OPEN_SECONDS before the token's expiry, and running
        # from there: long enough for the stream to open on a loaded machine (3 s fell
        # short with four test processes on two cores, when the token's life began
        # before it was issued), short beside the stream's own lifetime (30 min), which
        # the monotonic clock (not moved) counts.
        with time_machine.travel(expires - timedelta(seconds=OPEN_SECONDS), tick=True):
            started = time.monotonic()
            async with s.stream("GET", _events(game["id"]), params={"token": issued["token"]}) as r:
                assert r.status_code == 200, await r.aread()
                reader = EventReader(r)
                assert (await reader.next()) is not None
                assert await reader.next(timeout=10.0) is None  # ended, the game still going
            # It ends when the token expires (a loaded machine's slack beside), long before
            # the stream's own lifetime.
            assert time.monotonic() - started < OPEN_SECONDS + 5.0
            assert short.state.services.streams.open == 0
            again = await s.get(_events(game["id"]), params={"token": issued["token"]})
            assert_error(again, 401, "unauthorized")


@pytest.mark.parametrize("how", ["finish", "auto-finish"])
async def test_a_finish_and_an_auto_finish_reach_the_stream_and_end_it(
    app: FastAPI,
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
    how: str,
) -> None:
    game = await new_game(settings={"auto_finish": how == "auto-finish"})
    await put_state(app, game["id"], near_won_rank_and_file())
    async with streamer.stream("GET", _events(game["id"]), headers=auth) as response:
        reader = EventReader(response)
        assert (await reader.next()) is not None
        # The first hint marks the game as helped (a change); a second changes nothing.
        hint = await client.post(f"{API}/games/{game['id']}/hint", headers=auth)
        assert hint.status_code == 200, hint.text
        helped = await reader.next()
        assert helped is not None and helped.id == str(hint.json()["version"])
        assert helped.data["state"] == await _get(client, auth, game["id"])
        again = await client.post(f"{API}/games/{game['id']}/hint", headers=auth)
        assert again.json()["version"] == hint.json()["version"]
        with pytest.raises(TimeoutError):
            await reader.next(timeout=0.3)
        if how == "finish":
            answer = await client.post(f"{API}/games/{game['id']}/finish", headers=auth)
        else:  # the queen home: the king follows by itself
            move = {"action": "move", "from": "tableau-1", "to": "foundation-0"}
            answer = await client.post(f"{API}/games/{game['id']}/moves", json=move, headers=auth)
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "won"
        assert len(answer.json()["events"]) >= 2  # both cards home
        final = await reader.next()
        assert final is not None and final.id == str(answer.json()["version"])
        assert final.data["events"] == answer.json()["events"]
        assert final.data["state"] == await _get(client, auth, game["id"])
        assert await reader.next() is None


async def test_a_reader_that_takes_nothing_is_dropped(
    app: FastAPI,
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
    caplog: pytest.LogCaptureFixture,
) -> None:
    game = await new_game()
    transport = StreamingASGITransport(app)
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://test") as slow,
        slow.stream("GET", _events(game["id"]), headers=auth) as response,
    ):
        reader = EventReader(response)
        assert (await reader.next()) is not None
        transport.stalled.set()  # its socket is full from now on
        await _draw(client, auth, game["id"])
        for _ in range(50):  # dropped after the send timeout (0.3 s), its place given back
            if app.state.services.streams.open == 0:
                break
            await asyncio.sleep(0.05)
        assert app.state.services.streams.open == 0
        transport.stalled.clear()
    assert [r for r in caplog.records if r.levelname == "ERROR"] == []  # an end, not an error


@asynccontextmanager
async def _reads_of_versions(app: FastAPI) -> AsyncIterator[list[str]]:
    """The statements that read games' versions, as the app runs them."""
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "FROM games" in statement and "games.version" in statement:
            statements.append(statement)

    engine = app.state.services.database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", seen)


async def test_idle_streams_share_one_read_of_their_games_versions_a_period(
    app: FastAPI,
    settings: Settings,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    # Eight streams of two games: each period one read of both games' versions, not
    # one a stream (on PostgreSQL the period is the resync's).
    app.state.services.streams.per_player = 8
    games = [await new_game(), await new_game()]
    async with AsyncExitStack() as stack:
        readers = []
        for index in range(8):
            response = await stack.enter_async_context(
                streamer.stream("GET", _events(games[index % 2]["id"]), headers=auth)
            )
            readers.append(EventReader(response))
            assert (await readers[-1].next()) is not None
        async with _reads_of_versions(app) as reads:
            started = time.monotonic()
            await asyncio.sleep(6 * settings.stream_poll_seconds)
            periods = (time.monotonic() - started) / settings.stream_poll_seconds
        assert 1 <= len(reads) <= periods + 1, (len(reads), periods)
        # A change by another process still reaches every stream of its game, in time.
        async with app.state.services.database.sessionmaker() as session:
            await session.execute(
                update(Game).where(Game.id == games[0]["id"]).values(version=Game.version + 1)
            )
            await session.commit()
        for reader in readers[0::2]:
            change = await reader.next(timeout=2.0)
            assert change is not None and change.id == str(games[0]["version"] + 1)
        for reader in readers[1::2]:
            with pytest.raises(TimeoutError):
                await reader.next(timeout=0.3)
    assert app.state.services.streams.open == 0
    # With no stream left, the reading stops (a new stream starts it again).
    watcher = app.state.services.stream_watcher
    assert watcher.watched == 0
    await asyncio.sleep(2.5 * settings.stream_poll_seconds)
    assert not watcher.running


async def test_a_failed_read_of_the_versions_is_logged_and_the_streams_wait_for_the_next(
    app: FastAPI,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = await new_game()
    watcher = app.state.services.stream_watcher

    def away() -> Any:
        raise OperationalError("SELECT", {}, ConnectionRefusedError("the database is away"))

    async with streamer.stream("GET", _events(game["id"]), headers=auth) as response:
        reader = EventReader(response)
        assert (await reader.next()) is not None
        with monkeypatch.context() as patched, caplog.at_level(logging.WARNING, "app.streams"):
            patched.setattr(watcher, "_sessions", away)
            async with app.state.services.database.sessionmaker() as session:
                await session.execute(
                    update(Game).where(Game.id == game["id"]).values(version=Game.version + 1)
                )
                await session.commit()
            with pytest.raises(TimeoutError):
                await reader.next(timeout=0.5)
            failed = [r for r in caplog.records if "failed" in r.getMessage()]
            assert len(failed) == 1 and failed[0].levelno == logging.WARNING
            assert "the database is away" in failed[0].getMessage()
        # The database back: the next read finds the change, and the stream sends it.
        change = await reader.next(timeout=2.0)
        assert change is not None and change.id == str(game["version"] + 1)
    assert app.state.services.streams.open == 0
