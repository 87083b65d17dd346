"""A game as the API shows it: `state_json` is the one serializer (the response models
of `app.schemas` are built from it), and `Answer` carries it with its version.

The moves endpoint writes its answer without building the model (`move_result_json`):
the same bytes as `GameMoveResult`'s own dump (tests/api/test_move_json.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import pydantic_core

from app.engine import Move, State
from app.models import Game, utcnow
from app.schemas import GameMoveResult, GameState, GameSummary, rfc3339
from app.services import ranking
from app.services.games.play import DEFAULT_SETTINGS

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
    if game.daily_date is not None:
        # Everyone plays the same daily deal: its number is secret until it is published
        # (`GET /daily` shows it then too), won or not.
        published = ranking.deal_published(game.daily_date, utcnow())
        return int(game.deal) if published else None
    if game.source in SECRET_SOURCES and game.status != "won":
        return None
    return int(game.deal)


def state_json(game: Game, state: State, legal: list[Move] | None = None) -> dict[str, Any]:
    """The state as the API shows it: only what the player may see (the engine's public
    view; with clicks off for the game, no card says what a click would play). `legal`:
    the state's legal moves, where the caller has them already (generated once)."""
    settings = {**DEFAULT_SETTINGS, **game.settings}
    if legal is None:
        legal = state.legal_moves()
    public = state.view(clicks=bool(settings["auto_play"]), legal=legal).to_json()
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
        "ranked": ranking.is_ranked(game, utcnow()),
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


_SETTINGS = frozenset(DEFAULT_SETTINGS)
_CARDS_MOVED = frozenset({"move", "auto_finish"})
_IN_MODEL_ORDER = frozenset({"turn_up", "reserve_fill"})


def move_result_json(game: Game, body: dict[str, Any]) -> bytes | None:
    """`GameMoveResult.model_validate(body).model_dump_json(by_alias=True)` (what the
    moves endpoint answers), written without the model: the same keys in the model's
    order (`deal` first, as `_WithDeal` declares it, `deal_str` last; a move event's
    `from`, `to`, `cards`, `count` before its `type` and `move`), the times in RFC 3339.
    The piles, cards, clicks and legal moves are already in the engine's JSON form,
    which is the models' order. None for a body of another shape (settings other than
    the two booleans, an unknown event): the model then writes it, as before."""
    settings = body["settings"]
    if settings.keys() != _SETTINGS or not all(type(v) is bool for v in settings.values()):
        return None
    events = []
    for event in body["events"]:
        kind = event["type"]
        if kind in _CARDS_MOVED:
            events.append(
                {
                    "from": event["from"],
                    "to": event["to"],
                    "cards": event["cards"],
                    "count": event["count"],
                    "type": kind,
                    "move": event["move"],
                }
            )
        elif kind in _IN_MODEL_ORDER:
            events.append(event)
        else:
            return None
    deal = body["deal"]
    out = {
        "deal": deal,
        "id": body["id"],
        "variant": body["variant"],
        "source": body["source"],
        "rules": {"foundation_return": body["rules"]["foundation_return"]},
        "settings": {"auto_play": settings["auto_play"], "auto_finish": settings["auto_finish"]},
        "status": body["status"],
        "version": body["version"],
        "move_count": body["move_count"],
        "assisted": body["assisted"],
        "ranked": body["ranked"],
        "redeals_left": body["redeals_left"],
        "base_rank": body["base_rank"],
        "piles": body["piles"],
        "legal_moves": body["legal_moves"],
        "created_at": rfc3339(game.created_at),
        "updated_at": rfc3339(game.updated_at),
        "events": events,
        "deal_str": None if deal is None else str(deal),
    }
    # pydantic's own encoder (compact, UTF-8 as it is): the bytes FastAPI's dump writes,
    # in a quarter of the json module's time.
    return pydantic_core.to_json(out)
