"""A game's live stream: GET /games/{id}/events (Server-Sent Events)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from tests.api.conftest import API, NewGame, NewPlayer, assert_error
from tests.api.helpers import near_won_rank_and_file, put_state
from tests.api.sse_helpers import EventReader, StreamingASGITransport


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # Small intervals: a poll finds another process's change in a tenth of a second.
    return settings.model_copy(
        update={
            "stream_poll_seconds": 0.1,
            "stream_ping_seconds": 0.2,
            "stream_max_per_player": 2,
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


async def test_a_reconnect_from_an_older_version_gets_a_fresh_state(
    client: httpx.AsyncClient,
    streamer: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    game = await new_game()
    moved = await _draw(client, auth, game["id"])
    resume = {**auth, "Last-Event-ID": str(game["version"])}
    async with streamer.stream("GET", _events(game["id"]), headers=resume) as response:
        first = await EventReader(response).next()
        assert first is not None and first.event == "state"
        assert first.id == str(moved["version"])
        assert first.data == await _get(client, auth, game["id"])


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
    assert app.state.streams.open == 0


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
        LifespanManager(other),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=other), base_url="http://b") as b,
        streamer.stream("GET", _events(game["id"]), headers=auth) as response,
    ):
        reader = EventReader(response)
        assert (await reader.next()) is not None
        moved = await _draw(b, auth, game["id"])
        change = await reader.next()
        assert change is not None and change.id == str(moved["version"])
        assert change.data["state"] == await _get(client, auth, game["id"])


async def test_errors_before_the_stream_are_the_json_envelope(
    streamer: httpx.AsyncClient, new_player: NewPlayer, new_game: NewGame
) -> None:
    game = await new_game()
    other = await new_player("bob")
    assert_error(await streamer.get(_events(game["id"]), headers=other), 404, "game_not_found")
    assert_error(await streamer.get(_events(game["id"])), 401, "unauthorized")
    unknown = "00000000-0000-0000-0000-000000000000"
    assert_error(await streamer.get(_events(unknown), headers=other), 404, "game_not_found")


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
        # Another player's stream is not counted against this one's.
        other = await new_player("bob")
        theirs = await new_game(headers=other)
        app.state.streams.per_instance = 3
        async with streamer.stream("GET", _events(theirs["id"]), headers=other) as own:
            assert own.status_code == 200
            full = await streamer.get(_events(theirs["id"]), headers=other)
            error = assert_error(full, 503, "streams_full")
            assert error and full.headers["Retry-After"]
    # Closed streams give their places back.
    async with streamer.stream("GET", _events(game["id"]), headers=auth) as again:
        assert again.status_code == 200
    assert app.state.streams.open == 0


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
    tokens = app.state.stream_tokens
    issued = tokens.issue("someone", game["id"], now=0.0)
    with pytest.raises(Exception) as refused:
        tokens.player_for(issued.token, game["id"])
    assert getattr(refused.value, "code", None) == "unauthorized"
