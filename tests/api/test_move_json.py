"""The moves endpoint writes its answer without building the response model
(`move_result_json`): the bytes must be the model's, key for key. Checked over random
play of every variant (both house rules, clicks on and off) against
`GameMoveResult.model_validate(body).model_dump_json(by_alias=True)`, what FastAPI
wrote from the model, and through the API against the model's dump of each answer."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import VARIANTS, Rules, State, deal
from app.models import Game
from app.schemas import GameMoveResult
from app.services.games.presenter import move_result_json, state_json
from tests.api.conftest import API
from tests.engine.test_properties import near_won


def _reference(body: dict[str, object]) -> bytes:
    return GameMoveResult.model_validate(body).model_dump_json(by_alias=True).encode()


@settings(max_examples=30, deadline=None)
@given(
    variant=st.sampled_from(sorted(VARIANTS)),
    number=st.integers(1, 10**20 - 1),
    seed=st.integers(0, 2**32 - 1),
    foundation_return=st.sampled_from([None, True, False]),
    auto_play=st.booleans(),
    source=st.sampled_from(["deal", "random", "solvable", "daily"]),
)
def test_the_written_answer_is_the_models(
    variant: str,
    number: int,
    seed: int,
    foundation_return: bool | None,
    auto_play: bool,
    source: str,
) -> None:
    state = deal(VARIANTS[variant], number, Rules(foundation_return=foundation_return))
    _check_play(state, number, random.Random(seed), auto_play, source)


@settings(max_examples=20, deadline=None)
@given(data=st.data(), variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**32))
def test_the_written_answer_is_the_models_with_auto_finish(
    data: st.DataObject, variant: str, seed: int
) -> None:
    """Near-won positions (test_properties' `near_won`): moves that start the auto-finish."""
    state = data.draw(near_won(variant))
    _check_play(state, 12345, random.Random(seed), True, "deal")


def _check_play(
    state: State, number: int, rng: random.Random, auto_play: bool, source: str
) -> None:
    variant = state.variant.name
    created = datetime(2026, 12, 1, 10, 0, 0, rng.randrange(10**6), tzinfo=UTC)
    game = Game(
        id="0b7f6a9e-8c1d-4f3a-9e2b-5d6c7a8b9c0d",
        player_id="p",
        variant=variant,
        deal=str(number),
        source=source,
        rules={},
        settings={"auto_play": auto_play, "auto_finish": True},
        status="playing",
        version=0,
        move_count=0,
        state=state.to_bytes(),
        created_at=created,
        updated_at=created,
        assisted=rng.random() < 0.5,
    )
    for step in range(120):
        legal = state.legal_moves()
        if not legal:
            break
        home = [m for m in legal if m.dst is not None and m.dst.kind == "foundation"]
        move = rng.choice(home) if home and rng.random() < 0.8 else rng.choice(legal)
        state, events = state.apply(move, auto_finish=True)
        game.version = game.move_count = step + 1
        game.status = state.status
        # Naive on SQLite: read back as UTC.
        game.updated_at = (created + timedelta(seconds=step)).replace(tzinfo=None)
        body = state_json(game, state)
        body["events"] = [e.to_json() for e in events]
        assert move_result_json(game, body) == _reference(body)


async def test_each_answer_through_the_api_is_the_models(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    rng = random.Random(7)
    for variant in ("rank-and-file", "rainbow"):
        created = await client.post(
            f"{API}/games", json={"variant": variant, "deal": 31}, headers=auth
        )
        state = created.json()
        for _ in range(60):
            if state["status"] != "playing" or not state["legal_moves"]:
                break
            response = await client.post(
                f"{API}/games/{state['id']}/moves",
                json=rng.choice(state["legal_moves"]),
                headers=auth,
            )
            assert response.status_code == 200
            assert response.headers["content-type"] == "application/json"
            assert response.headers["etag"] == f'"{state["id"]}.{state["version"] + 1}"'
            assert response.content == _reference(response.json())
            state = response.json()
