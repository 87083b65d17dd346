"""The moves endpoint writes its answer without building the response model
(`move_result_json`): the bytes must be the model's, key for key. Checked against
`GameMoveResult.model_validate(body).model_dump_json(by_alias=True)`, what FastAPI
writes from the model: over a fixed corpus of played games that covers every variant,
event type, status, source and setting (so a field the model gains and the fast path
does not write fails here), over random play of every variant (both house rules,
clicks on and off), and through the API against the model's dump of each answer."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, get_args

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from app import seeds
from app.engine import VARIANTS, Rules, State, deal
from app.models import Game, utcnow
from app.schemas import GameMoveResult, GameSource, GameStatus, PlayEvent
from app.services.games.presenter import move_result_json, state_json
from tests.api.conftest import API
from tests.engine.test_properties import near_won

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
# Read off the models, not off the fast path: what the corpus must cover.
EVENT_TYPES = frozenset(
    get_args(event.model_fields["type"].annotation)[0] for event in get_args(get_args(PlayEvent)[0])
)
SOURCES = get_args(GameSource.__value__)


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
    game = _game(state, number, rng, source=source, auto_play=auto_play)
    for body in _random_play(game, state, rng, moves=120):
        assert move_result_json(game, body) == _reference(body)


def _game(
    state: State,
    number: int,
    rng: random.Random,
    *,
    source: str,
    auto_play: bool,
    auto_finish: bool = True,
    daily_date: date | None = None,
) -> Game:
    created = datetime(2026, 12, 1, 10, 0, 0, rng.randrange(10**6), tzinfo=UTC)
    return Game(
        id="0b7f6a9e-8c1d-4f3a-9e2b-5d6c7a8b9c0d",
        player_id="p",
        variant=state.variant.name,
        deal=str(number),
        source=source,
        rules={},
        settings={"auto_play": auto_play, "auto_finish": auto_finish},
        status="playing",
        version=0,
        move_count=0,
        state=state.to_bytes(),
        created_at=created,
        updated_at=created,
        daily_date=daily_date,
        assisted=rng.random() < 0.5,
        ranked=daily_date is not None,
    )


def _random_play(
    game: Game, state: State, rng: random.Random, *, moves: int
) -> Iterator[dict[str, Any]]:
    """The body of each answer of a random play (to the foundations mostly)."""
    for _ in range(moves):
        legal = state.legal_moves()
        if not legal:
            return
        home = [m for m in legal if m.dst is not None and m.dst.kind == "foundation"]
        move = rng.choice(home) if home and rng.random() < 0.8 else rng.choice(legal)
        state, events = state.apply(move, auto_finish=game.settings["auto_finish"])
        yield _answered(game, state, [e.to_json() for e in events])


def _answered(game: Game, state: State, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The body the service answers a move with, the game saved as the service saves it."""
    game.version = game.move_count = game.move_count + 1
    game.status = state.status
    # Naive on SQLite: read back as UTC.
    game.updated_at = (game.created_at + timedelta(seconds=game.version)).replace(tzinfo=None)
    body = state_json(game, state)
    body["events"] = events
    return body


def _seed_line_play(game: Game, state: State, number: int) -> Iterator[dict[str, Any]]:
    """The body of each answer along the seed line of deal `number`, to the win."""
    line = next(e["line"] for e in _seed_deals(game.variant) if e["deal"] == number)
    for move in seeds.read_line(line):
        if state.is_won:
            return
        state, events = state.apply(move, auto_finish=game.settings["auto_finish"])
        yield _answered(game, state, [e.to_json() for e in events])


def _seed_deals(variant: str) -> list[dict[str, Any]]:
    deals: list[dict[str, Any]] = seeds.load(SEEDS / f"{variant}.json")["deals"]
    return deals


def _corpus() -> Iterator[tuple[Game, dict[str, Any]]]:
    """Every variant's shortest seed line played to its win (auto-finish on and off),
    and a random play of three of its deals under each house rule, from each source
    (a daily game of today: ranked, its deal hidden), clicks on and off."""
    today = utcnow().date()
    for index, variant in enumerate(sorted(VARIANTS)):
        number = int(min(_seed_deals(variant), key=lambda e: len(e["line"]))["deal"])
        rng = random.Random(index)
        for auto_finish in (True, False):
            state = deal(VARIANTS[variant], number, Rules())
            game = _game(state, number, rng, source="deal", auto_play=True, auto_finish=auto_finish)
            yield from ((game, body) for body in _seed_line_play(game, state, number))
        for turn, foundation_return in enumerate((None, True, False)):
            source = SOURCES[(index + turn) % len(SOURCES)]
            state = deal(VARIANTS[variant], 1 + turn, Rules(foundation_return=foundation_return))
            game = _game(
                state,
                1 + turn,
                rng,
                source=source,
                auto_play=turn != 1,
                daily_date=today if source == "daily" else None,
            )
            yield from ((game, body) for body in _random_play(game, state, rng, moves=150))


def test_a_corpus_of_played_games_is_written_as_the_model_writes_it() -> None:
    seen: dict[str, set[Any]] = {
        name: set() for name in ("variant", "event", "status", "source", "deal", "bools")
    }
    for game, body in _corpus():
        assert move_result_json(game, body) == _reference(body), (game.variant, body["events"])
        seen["variant"].add(body["variant"])
        seen["event"].update(event["type"] for event in body["events"])
        seen["status"].add(body["status"])
        seen["source"].add(body["source"])
        seen["deal"].add(body["deal"] is None)
        seen["bools"].update(
            (name, value)
            for name, value in (*body["settings"].items(), *body["rules"].items())
            if isinstance(value, bool)
        )
        seen["bools"].update({("assisted", body["assisted"]), ("ranked", body["ranked"])})
    assert seen["variant"] == set(VARIANTS)
    assert seen["event"] == EVENT_TYPES
    # A move's answer is never of a resigned game (a resigned game takes no move).
    assert seen["status"] == set(get_args(GameStatus.__value__)) - {"resigned"}
    assert seen["source"] == set(SOURCES)
    assert seen["deal"] == {True, False}
    names = ("auto_play", "auto_finish", "foundation_return", "assisted", "ranked")
    assert seen["bools"] == {(name, value) for name in names for value in (True, False)}


def test_a_body_of_another_shape_is_left_to_the_model() -> None:
    """A key the model does not know, an event of another type or with another key, or a
    setting that is not a boolean: the fast path declines, and the model writes it."""
    state = deal(VARIANTS["rank-and-file"], 5, Rules())
    game = _game(state, 5, random.Random(0), source="deal", auto_play=True)
    body = next(_random_play(game, state, random.Random(0), moves=1))
    assert move_result_json(game, body) == _reference(body)
    event = body["events"][0]
    for changed in (
        {**body, "extra": 1},
        {**body, "events": [{**event, "type": "undo"}]},
        {**body, "events": [{**event, "extra": 1}]},
        {**body, "settings": {"auto_play": 1, "auto_finish": True}},
    ):
        assert move_result_json(game, changed) is None


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
