"""What one client can make the server hold or try: request bodies, wrong tokens, and
a refused CORS preflight, answered in the envelope like every other refusal."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event

from app.config import Settings
from app.main import create_app
from app.services.players import KnownTokens
from tests.api.conftest import API, NewGame, assert_error, running


async def test_a_body_over_the_limit_is_413_before_it_is_read(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str]
) -> None:
    limit = settings.max_body_bytes
    too_big = b'{"name": "' + b"a" * limit + b'"}'
    answer = await client.post(
        f"{API}/players", content=too_big, headers={"Content-Type": "application/json"}
    )
    assert_error(answer, 413, "payload_too_large")
    assert str(limit) in answer.json()["error"]["message"]


async def test_a_chunked_body_is_cut_off_at_the_limit(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str]
) -> None:
    sent = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(1000):  # 1000 KiB, with no Content-Length
            sent += 1
            yield b" " * 1024

    answer = await client.post(
        f"{API}/games", content=chunks(), headers={**auth, "Content-Type": "application/json"}
    )
    assert_error(answer, 413, "payload_too_large")
    assert sent <= settings.max_body_bytes // 1024 + 2  # not read to the end


async def test_a_body_at_the_limit_is_read_as_usual(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str], new_game: NewGame
) -> None:
    gid = (await new_game(deal=5))["id"]
    body = b'{"action": "draw"}'
    padded = body[:-1] + b" " * (settings.max_body_bytes - len(body)) + b"}"
    assert len(padded) == settings.max_body_bytes
    answer = await client.post(
        f"{API}/games/{gid}/moves",
        content=padded,
        headers={**auth, "Content-Type": "application/json"},
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["move_count"] == 1


async def test_wrong_tokens_are_limited_per_address(
    client: httpx.AsyncClient, app: FastAPI, settings: Settings, auth: dict[str, str]
) -> None:
    wrong = {"Authorization": "Bearer not-a-token"}
    for _ in range(settings.auth_failures_per_minute):
        assert_error(await client.get(f"{API}/players/me", headers=wrong), 401, "unauthorized")
    limited = await client.get(f"{API}/players/me", headers=wrong)
    assert_error(limited, 429, "too_many_auth_failures")
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    # Requests without a token are not authentication attempts.
    assert (await client.get(f"{API}/variants")).status_code == 200
    # Another address is not affected.
    transport = httpx.ASGITransport(app=app, client=("10.9.8.7", 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as other:
        assert (await other.get(f"{API}/players/me", headers=auth)).status_code == 200


async def test_right_tokens_are_never_counted(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str]
) -> None:
    for _ in range(settings.auth_failures_per_minute + 5):
        assert (await client.get(f"{API}/players/me", headers=auth)).status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        {"Origin": "https://front.example", "Access-Control-Request-Method": "PUT"},
        {
            "Origin": "https://front.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "X-Secret",
        },
    ],
)
async def test_a_refused_cors_preflight_answers_in_the_envelope(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    answer = await client.options(f"{API}/games", headers=headers)
    error = assert_error(answer, 400, "cors_refused")
    assert "Disallowed CORS" in error["message"]


async def test_wrong_tokens_are_counted_by_every_instance_together(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str]
) -> None:
    """Two instances on one database share the count."""
    second = create_app(settings.model_copy())
    async with running(second):
        transport = httpx.ASGITransport(app=second)
        async with httpx.AsyncClient(transport=transport, base_url="http://other") as other:
            wrong = {"Authorization": "Bearer not-a-token"}
            for i in range(settings.auth_failures_per_minute):
                instance = (client, other)[i % 2]
                answer = await instance.get(f"{API}/players/me", headers=wrong)
                assert_error(answer, 401, "unauthorized")
            for instance in (client, other):
                answer = await instance.get(f"{API}/players/me", headers=wrong)
                assert_error(answer, 429, "too_many_auth_failures")
                assert (await instance.get(f"{API}/players/me", headers=auth)).status_code == 200


async def test_an_instance_refuses_an_address_another_instance_counted(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str]
) -> None:
    """All the wrong tokens went to one instance; the other refuses the address's next
    wrong token too (the count is in the database), and answers its right token."""
    wrong = {"Authorization": "Bearer not-a-token"}
    for _ in range(settings.auth_failures_per_minute):
        assert_error(await client.get(f"{API}/players/me", headers=wrong), 401, "unauthorized")
    second = create_app(settings.model_copy())
    async with running(second):
        transport = httpx.ASGITransport(app=second)
        async with httpx.AsyncClient(transport=transport, base_url="http://other") as other:
            assert (await other.get(f"{API}/players/me", headers=auth)).status_code == 200
            answer = await other.get(f"{API}/players/me", headers=wrong)
            assert_error(answer, 429, "too_many_auth_failures")


async def test_wrong_tokens_sent_at_once_are_each_counted(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    """A burst of guesses in flight together: no more than the limit are answered 401."""
    wrong = {"Authorization": "Bearer not-a-token"}
    limit = settings.auth_failures_per_minute
    answers = await asyncio.gather(
        *(client.get(f"{API}/players/me", headers=wrong) for _ in range(3 * limit))
    )
    codes = Counter(a.json()["error"]["code"] for a in answers)
    assert codes == {"unauthorized": limit, "too_many_auth_failures": 2 * limit}


async def test_a_right_token_looked_up_is_not_counted_as_a_failure(
    client: httpx.AsyncClient, app: FastAPI, settings: Settings, new_player: Any
) -> None:
    # Many players' first requests (each token looked up once) from one address.
    for _ in range(settings.auth_failures_per_minute + 3):
        headers = await new_player()
        assert (await client.get(f"{API}/players/me", headers=headers)).status_code == 200
    wrong = {"Authorization": "Bearer not-a-token"}
    assert_error(await client.get(f"{API}/players/me", headers=wrong), 401, "unauthorized")


@contextmanager
def recorded_statements(app: FastAPI) -> Iterator[list[str]]:
    """The SQL statements the app's database runs inside the block."""
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    engine = app.state.services.database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def test_right_tokens_cost_no_statement_on_the_failure_count(
    client: httpx.AsyncClient, app: FastAPI, new_player: Any
) -> None:
    """A right token is neither counted nor checked against the count, looked up or
    remembered, from a clean address or one that sent wrong tokens (a check once ran on
    every request for a minute after any lookup, doubling a move's time)."""
    headers = await new_player()
    with recorded_statements(app) as statements:
        for _ in range(2):  # looked up, then remembered
            assert (await client.get(f"{API}/players/me", headers=headers)).status_code == 200
    assert not [s for s in statements if "auth_failures" in s], statements
    wrong = {"Authorization": "Bearer not-a-token"}
    assert_error(await client.get(f"{API}/players/me", headers=wrong), 401, "unauthorized")
    app.state.services.known_tokens = KnownTokens()
    with recorded_statements(app) as statements:
        for _ in range(2):
            assert (await client.get(f"{API}/players/me", headers=headers)).status_code == 200
    assert not [s for s in statements if "auth_failures" in s], statements


async def test_a_burst_with_one_new_token_is_one_lookup_and_never_refused(
    client: httpx.AsyncClient, app: FastAPI, settings: Settings, new_player: Any
) -> None:
    """A client's first requests with its token sent together (a page loading, a bot's
    connections): one lookup, counted once, so more of them than the failure limit are
    all answered (each was counted before its own lookup, and refused past the limit)."""
    headers = await new_player()
    with recorded_statements(app) as statements:
        answers = await asyncio.gather(
            *(
                client.get(f"{API}/players/me", headers=headers)
                for _ in range(3 * settings.auth_failures_per_minute)
            )
        )
    assert [a.status_code for a in answers] == [200] * len(answers), answers[-1].text
    lookups = [s for s in statements if "FROM players" in s]
    assert len(lookups) == 1, lookups


async def test_wrong_tokens_from_an_address_never_refuse_a_right_token(
    client: httpx.AsyncClient, app: FastAPI, settings: Settings, new_player: Any
) -> None:
    """One client guessing behind a NAT or a proxy must not lock out everyone there: past
    the limit the address's wrong tokens are refused, its right ones answered."""
    used = await new_player("ada")
    assert (await client.get(f"{API}/players/me", headers=used)).status_code == 200
    wrong = {"Authorization": "Bearer not-a-token"}
    for _ in range(settings.auth_failures_per_minute):
        assert_error(await client.get(f"{API}/players/me", headers=wrong), 401, "unauthorized")
    for _ in range(3):
        limited = await client.get(f"{API}/players/me", headers=wrong)
        assert_error(limited, 429, "too_many_auth_failures")
        assert 1 <= int(limited.headers["Retry-After"]) <= 60
    # A token used before (remembered by this instance), one looked up afresh, and one
    # registered after the guesses: all answered.
    assert (await client.get(f"{API}/players/me", headers=used)).status_code == 200
    app.state.services.known_tokens = KnownTokens()
    assert (await client.get(f"{API}/players/me", headers=used)).status_code == 200
    fresh = await new_player("bob")
    me = await client.get(f"{API}/players/me", headers=fresh)
    assert me.status_code == 200 and me.json()["name"] == "bob"
    # Another wrong token is still refused: right tokens took nothing off the count.
    other_wrong = {"Authorization": "Bearer another-guess"}
    assert_error(
        await client.get(f"{API}/players/me", headers=other_wrong), 429, "too_many_auth_failures"
    )


async def test_wrong_tokens_past_the_limit_write_nothing(
    client: httpx.AsyncClient, app: FastAPI, settings: Settings, monkeypatch: Any
) -> None:
    """Past the limit an instance refuses the address's wrong tokens without counting
    them, until its Retry-After: a flood of guesses costs a lookup each, not a write
    (on SQLite a write waits in line with every game's moves). Then they count again."""
    wrong = {"Authorization": "Bearer not-a-token"}
    for _ in range(settings.auth_failures_per_minute):
        assert_error(await client.get(f"{API}/players/me", headers=wrong), 401, "unauthorized")
    limited = await client.get(f"{API}/players/me", headers=wrong)
    assert_error(limited, 429, "too_many_auth_failures")
    with recorded_statements(app) as statements:
        for _ in range(5):
            again = await client.get(f"{API}/players/me", headers=wrong)
            assert_error(again, 429, "too_many_auth_failures")
            assert 1 <= int(again.headers["Retry-After"]) <= int(limited.headers["Retry-After"])
    assert not [s for s in statements if "auth_failures" in s], statements
    # Once the window has moved past the failures, wrong tokens are counted again.
    later = time.time() + 61
    monkeypatch.setattr("app.services.kit.auth_failures.time.time", lambda: later)
    assert_error(await client.get(f"{API}/players/me", headers=wrong), 401, "unauthorized")
