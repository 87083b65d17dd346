"""A game as the API shows it: `state_json` is the one serializer (the response models
of `app.schemas` are built from it), and `Answer` carries it with its version.

The moves endpoint writes its answer without building the model (`move_result_json`):
the same bytes as `GameMoveResult`'s own dump, in the key order read off the models
(tests/api/test_move_json.py checks the bytes over games played in every variant)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Generic, TypeVar, get_args

import pydantic_core
from pydantic import BaseModel

from app.engine import Move, Record, Rules, State, get_variant
from app.models import Game, utcnow
from app.schemas import (
    GameMoveResult,
    GameRecord,
    GameSettingsOut,
    GameState,
    GameSummary,
    PlayEvent,
    RulesOut,
    rfc3339,
)
from app.schemas.common import SAFE_INTEGER_MAX
from app.services.daily import ranking
from app.services.games.play import DEFAULT_SETTINGS, FINISHED, OVER

# Sources whose deal number the server chose: hidden until the game is won.
SECRET_SOURCES = frozenset({"random", "solvable", "daily"})

Body = TypeVar("Body", bound=GameState)


class Answer(Generic[Body]):
    """A game as an answer shows it, and the version it shows (for the ETag).

    Given `raw` (the answer as `state_json` writes it, with its events) and `model`
    instead of `body`, the model is built only when `body` is first read: the moves
    endpoint writes `raw` straight to JSON (`json_bytes`) and never needs it."""

    def __init__(
        self,
        body: Body | None = None,
        *,
        game_id: str,
        version: int,
        replayed: bool = False,
        steps: tuple[dict[str, Any], ...] = (),
        raw: dict[str, Any] | None = None,
        model: type[Body] | None = None,
        game: Game | None = None,
    ) -> None:
        if body is None and (raw is None or model is None):
            raise ValueError("an answer needs its body, or its raw form and model")
        self._body = body
        self.game_id, self.version, self.replayed = game_id, version, replayed
        # Each move played, with its own events, in order (for finish's `steps`).
        self.steps = steps
        self._raw, self._model, self._game = raw, model, game

    @property
    def body(self) -> Body:
        if self._body is None:
            assert self._model is not None
            self._body = self._model.model_validate(self._raw)
        return self._body

    def events_json(self) -> list[dict[str, Any]]:
        """The answer's events as JSON (a move's, an undo's; none for a settings
        change), without building the model where the raw form has them."""
        if self._raw is not None:
            return list(self._raw.get("events", ()))
        dumped = self.body.model_dump(mode="json", by_alias=True)
        return list(dumped.get("events", ()))

    def json_bytes(self) -> bytes | None:
        """The JSON FastAPI would write for `body` (the response model, by alias), written
        from `raw` without building the model; None where there is no `raw` form or it
        is not of the shape `move_result_json` knows (the model writes it then)."""
        if self._raw is None or self._game is None or self._model is not GameMoveResult:
            return None
        return move_result_json(self._game, self._raw)


def answer(body: Body, game: Game) -> Answer[Body]:
    return Answer(body=body, game_id=game.id, version=game.version)


def etag(game_id: str, version: int) -> str:
    return f'"{game_id}.{version}"'


def iso(moment: datetime) -> str:
    # SQLite hands back naive datetimes; every stored time is UTC.
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def visible_deal(game: Game) -> int | None:
    if game.deal_secret:
        return None  # a copy of a game whose deal was secret when it was copied
    if game.daily_date is not None:
        # Everyone plays the same daily deal: its number is secret until it is published
        # (`GET /daily` shows it then too), won or not.
        published = ranking.deal_published(game.daily_date, utcnow())
        return int(game.deal) if published else None
    if game.source in SECRET_SOURCES and game.status not in FINISHED:
        return None  # until the game is over for good (won or resigned)
    return int(game.deal)


def visible_difficulty(game: Game) -> str | None:
    """The deal's rating: from the start when the player asked for it, else once the game
    is over (won, stuck or resigned); null for a deal that has none (by number, at
    random, unrated)."""
    if game.difficulty_asked or game.status in OVER:
        return game.difficulty
    return None


def state_json(game: Game, state: State, legal: list[Move] | None = None) -> dict[str, Any]:
    """The state as the API shows it: only what the player may see (the engine's public
    view; with clicks off for the game, no card says what a click would play). `legal`:
    the state's legal moves, where the caller has them already (generated once)."""
    settings = {**DEFAULT_SETTINGS, **game.settings}
    if legal is None:
        legal = state.legal_moves()
    public = state.view(clicks=bool(settings["auto_play"]), legal=legal).to_json()
    now = utcnow()
    return {
        "id": game.id,
        "variant": game.variant,
        "deal": visible_deal(game),
        "source": game.source,
        "rules": {"foundation_return": state.variant.foundation_return},
        "settings": settings,
        "status": game.status,
        "version": game.version,
        "move_count": game.move_count,
        "assisted": bool(game.assisted),
        "ranked": ranking.is_ranked(game, now),
        "unranked_reason": ranking.unranked_reason(game, now),
        "practice": bool(game.practice),
        "difficulty": visible_difficulty(game),
        "redeals_left": public["redeals_left"],
        "base_rank": public["base_rank"],
        "piles": public["piles"],
        "legal_moves": [m.to_json() for m in legal],
        "created_at": iso(game.created_at),
        "updated_at": iso(game.updated_at),
    }


def game_state(game: Game, state: State) -> GameState:
    """The state as the API's response model (what `state_json` shows, typed)."""
    return GameState.model_validate(state_json(game, state))


def stored_game_state(game: Game) -> GameState:
    """`game_state` of the position the row holds (GET /games/{id}'s answer)."""
    return game_state(game, State.from_bytes(game.state))


def game_record(game: Game, move_texts: list[str]) -> GameRecord:
    """The game as a record: its deal, its effective house rules, the moves of its log
    (`move_texts`, in order) and whether it is won (docs/api.md, "Game records")."""
    record = Record(
        get_variant(game.variant),
        int(game.deal),
        Rules.from_json(game.rules),
        tuple(Move.parse(text) for text in move_texts),
        won=game.status == "won",
    )
    return GameRecord(game_id=game.id, version=game.version, record=str(record))


def game_summary(game: Game) -> GameSummary:
    return GameSummary.model_validate(
        {
            "id": game.id,
            "variant": game.variant,
            "deal": visible_deal(game),
            "source": game.source,
            "status": game.status,
            "version": game.version,
            "move_count": game.move_count,
            "created_at": iso(game.created_at),
            "updated_at": iso(game.updated_at),
        }
    )


def move_answer(
    game: Game,
    state: State,
    legal: list[Move],
    events: list[dict[str, Any]],
    steps: list[dict[str, Any]],
) -> Answer[GameMoveResult]:
    """The answer to moves played: the state with their events. The model is built only
    if something reads it (a stored answer, a finish); the moves endpoint writes `raw`."""
    body = state_json(game, state, legal)
    body["events"] = events
    return Answer(
        game_id=game.id,
        version=game.version,
        steps=tuple(steps),
        raw=body,
        model=GameMoveResult,
        game=game,
    )


# --- the moves endpoint's bytes, without the model ------------------------------------


def _fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The keys `model` writes for its fields, by alias, in its order."""
    return tuple(field.alias or name for name, field in model.model_fields.items())


def _event_fields() -> dict[str, tuple[str, ...]]:
    """Each event type `GameMoveResult` knows (the discriminator of `PlayEvent`) with
    its model's keys."""
    union, _discriminator = get_args(PlayEvent)
    return {
        get_args(event.model_fields["type"].annotation)[0]: _fields(event)
        for event in get_args(union)
    }


# Read off the models once: the order `move_result_json` writes in is theirs.
_ANSWER_FIELDS = _fields(GameMoveResult)
_ANSWER_KEYS = frozenset(_ANSWER_FIELDS)
_RULES_FIELDS = _fields(RulesOut)
_SETTINGS_FIELDS = _fields(GameSettingsOut)
_SETTINGS_KEYS = frozenset(_SETTINGS_FIELDS)
_EVENT_FIELDS = _event_fields()
# `deal_str` is the one computed field written (after every field, as pydantic does).
_KNOWN_COMPUTED = tuple(GameMoveResult.model_computed_fields) == ("deal_str",)


def move_result_json(game: Game, body: dict[str, Any]) -> bytes | None:
    """`GameMoveResult.model_validate(body).model_dump_json(by_alias=True)` (what the
    moves endpoint answers), written without the model: the keys in the models' order
    (`_ANSWER_FIELDS`, each event's by its type), the times in RFC 3339, `deal_str`
    last. The piles, cards, clicks and legal moves are already in the engine's JSON
    form, which is the models' order. None for a body of another shape (keys other than
    the model's, settings other than its two booleans, an unknown event): the model
    then writes it."""
    settings = body["settings"]
    if (
        not _KNOWN_COMPUTED
        or body.keys() != _ANSWER_KEYS
        or settings.keys() != _SETTINGS_KEYS
        or not all(type(v) is bool for v in settings.values())
    ):
        return None
    events = _events_json(body["events"])
    if events is None:
        return None
    out = {name: body[name] for name in _ANSWER_FIELDS}
    out["rules"] = {name: body["rules"][name] for name in _RULES_FIELDS}
    out["settings"] = {name: settings[name] for name in _SETTINGS_FIELDS}
    out["created_at"] = rfc3339(game.created_at)
    out["updated_at"] = rfc3339(game.updated_at)
    out["events"] = events
    # `deal` a JSON integer up to 2^53 - 1 only, as the model writes it (`ShownDeal`).
    out["deal"] = body["deal"] if body["deal"] is None or body["deal"] <= SAFE_INTEGER_MAX else None
    out["deal_str"] = None if body["deal"] is None else str(body["deal"])
    # pydantic's own encoder (compact, UTF-8 as it is): the bytes FastAPI's dump writes,
    # in a quarter of the json module's time.
    return pydantic_core.to_json(out)


def _events_json(events: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The events with their keys in their models' order; None if one is of a type the
    model does not know, or has other keys than its model's."""
    ordered = []
    for event in events:
        names = _EVENT_FIELDS.get(event["type"])
        if names is None or len(event) != len(names):
            return None
        try:
            ordered.append({name: event[name] for name in names})
        except KeyError:
            return None
    return ordered
