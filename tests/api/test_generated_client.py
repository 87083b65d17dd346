"""The contract as a front-end's generated client sees it: openapi-python-client builds a
client from the committed `openapi/openapi.json` (no workaround, no hand edits), and a
whole game is played with it against the app: register, deal, move, click, undo, hint,
finish, the daily deal and its results. The client parses every answer into the
document's models, so an answer that does not match its schema fails here too."""

from __future__ import annotations

import importlib
import inspect
import os
import shutil
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

# settings: daily deals prepared on demand with a small budget (as the daily tests do).
from tests.api.daily_helpers import day, settings  # noqa: F401 (settings: a fixture)

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "openapi" / "openapi.json"
PACKAGE = "solitaire_client"
BIN = Path(sys.executable).parent


def _generator() -> list[str]:
    if importlib.util.find_spec("openapi_python_client") is None:
        pytest.fail("openapi-python-client is a test dependency (pip install -e '.[test]')")
    return [sys.executable, "-m", "openapi_python_client"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The client package, generated afresh from the committed document."""
    out = tmp_path_factory.mktemp("generated") / PACKAGE
    # Its post-generation hooks run ruff: the one from this environment.
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [*_generator(), "generate", "--path", str(DOCUMENT), "--meta", "none",
         "--output-path", str(out)],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stdout.lower(), done.stdout
    sys.path.insert(0, str(out.parent))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out.parent))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]
        shutil.rmtree(out, ignore_errors=True)


def _module(package: ModuleType, dotted: str) -> Any:
    return importlib.import_module(f"{package.__name__}.{dotted}")


def _attach(client: Any, app: FastAPI) -> Any:
    """Point a generated client at the app over ASGI (its async httpx client)."""
    headers = {}
    if hasattr(client, "token"):  # an AuthenticatedClient adds it to clients it makes
        headers[client.auth_header_name] = f"{client.prefix} {client.token}"
    client.set_async_httpx_client(
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test", headers=headers
        )
    )
    return client


async def test_a_generated_client_plays_a_whole_game(app: FastAPI, generated: ModuleType) -> None:
    package = generated
    models = _module(package, "models")
    players = _module(package, "api.players.create_player")
    me = _module(package, "api.players.get_current_player")
    create_game = _module(package, "api.games.create_game")
    get_game = _module(package, "api.games.get_game")
    make_move = _module(package, "api.games.make_move")
    undo_move = _module(package, "api.games.undo_move")
    list_moves = _module(package, "api.games.list_moves")
    hint = _module(package, "api.solver.hint")
    finish = _module(package, "api.solver.finish")
    list_variants = _module(package, "api.variants.list_variants")
    play_daily = _module(package, "api.daily.play_daily")
    daily_results = _module(package, "api.daily.get_daily_results")

    anonymous = _attach(package.Client(base_url="http://test"), app)
    # Public operations take a plain client; an optional body can be left out.
    variants = await list_variants.asyncio(client=anonymous)
    assert "rank-and-file" in {variant.id for variant in variants}
    created = await players.asyncio_detailed(client=anonymous)
    assert created.status_code == 201, created.content
    token = created.parsed.token
    client = _attach(package.AuthenticatedClient(base_url="http://test", token=token), app)
    assert (await me.asyncio(client=client)).id == created.parsed.id

    # The body is one of its shapes (the document's GameCreate is their union).
    assert {"GameCreateSolvable", "GameCreateRecord", "GameCreateRandom"} <= set(dir(models))
    game = await create_game.asyncio(
        client=client, body=models.GameCreateByDeal(variant="rank-and-file", deal=1)
    )
    assert (game.variant, game.deal, game.move_count, game.status.value) == (
        "rank-and-file", 1, 0, "playing",
    )  # fmt: skip

    # A move, as the engine lists it among the legal moves, through the typed request.
    legal = next(m for m in game.legal_moves if m.action == "move")
    moved = await make_move.asyncio_detailed(
        game.id,
        client=client,
        body=models.MoveRequestMove(
            action="move", from_=legal.from_, to=legal.to, count=legal.count,
            expected_version=game.version,
        ),
        idempotency_key="first-move",
    )  # fmt: skip
    assert moved.status_code == 200, moved.content
    assert (moved.parsed.move_count, moved.parsed.version) == (1, game.version + 1)
    assert moved.parsed.events, "a move answers with its events"

    # A click on a pile's top card plays the move the API chooses for it.
    clickable = next(m for m in moved.parsed.legal_moves if m.action == "move")
    clicked = await make_move.asyncio_detailed(
        game.id, client=client, body=models.ClickRequest(action="click", pile=clickable.from_)
    )
    assert clicked.status_code == 200, clicked.content
    assert clicked.parsed.move_count == 2

    undone = await undo_move.asyncio_detailed(game.id, client=client)
    assert undone.status_code == 200, undone.content
    assert undone.parsed.move_count == 1

    log = await list_moves.asyncio(game.id, client=client)
    assert [entry.seq for entry in log.items] == [1]

    suggested = await hint.asyncio_detailed(game.id, client=client)
    assert suggested.status_code == 200, suggested.content
    assert suggested.parsed.result.value in {"solved", "unsolvable", "unknown"}

    finished = await finish.asyncio_detailed(game.id, client=client)
    assert finished.status_code == 200, finished.content
    won = await get_game.asyncio(game.id, client=client)
    assert (won.status.value, won.assisted) == ("won", True)

    # The daily deal: a game of it, then its results, which need no token.
    when = day(1)
    daily = await play_daily.asyncio_detailed("rank-and-file", when, client=client)
    assert daily.status_code in (200, 201), daily.content
    results = await daily_results.asyncio_detailed("rank-and-file", when, client=anonymous)
    assert results.status_code == 200, results.content


def test_the_generated_client_asks_a_token_only_where_the_api_does(
    generated: ModuleType,
) -> None:
    """Optional-token and public operations take a plain client; the rest an
    authenticated one (the client's types say so, from each operation's `security`)."""

    def takes(dotted: str) -> set[str]:
        function = _module(generated, dotted).asyncio_detailed
        annotation = inspect.signature(function).parameters["client"].annotation
        return {kind.__name__ for kind in typing.get_args(annotation) or (annotation,)}

    for public in (
        "api.daily.get_daily_results",
        "api.variants.list_variants",
        "api.players.create_player",
        "api.daily.get_daily",
        "api.health.health",
    ):
        assert takes(public) == {"AuthenticatedClient", "Client"}, public
    for private in (
        "api.games.create_game",
        "api.games.make_move",
        "api.solver.hint",
        "api.players.get_current_player",
        "api.daily.play_daily",
    ):
        assert takes(private) == {"AuthenticatedClient"}, private
