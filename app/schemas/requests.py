"""What a client sends to create a game, change its settings and play it."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NamedTuple

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from app.engine import RECORD_MAX_CHARS
from app.schemas.common import STRICT, DealNumber, Difficulty

# --- games: requests ------------------------------------------------------------


class RulesIn(BaseModel):
    model_config = STRICT

    foundation_return: bool | None = Field(
        default=None, description="Foundation cards may return to the tableau; null: default."
    )


class GameSettingsIn(BaseModel):
    model_config = STRICT

    auto_play: bool = Field(default=True, description="Clicks send cards to a target.")
    auto_finish: bool = Field(default=True, description="The server plays an ordered end.")


class GameSettingsPatch(BaseModel):
    model_config = STRICT

    auto_play: bool | None = None
    auto_finish: bool | None = None


class GameCreate(BaseModel):
    model_config = STRICT | ConfigDict(
        json_schema_extra={
            "examples": [
                {"variant": "rank-and-file", "deal": 12345},
                {"variant": "rainbow", "solvable": True, "settings": {"auto_finish": False}},
                {"variant": "forty-thieves", "solvable": True, "difficulty": "hard"},
                {
                    "record": '[Variant "rank-and-file"]\n[Deal "1"]\n'
                    '[Rules "foundation_return=false"]\n\nt0>t8 t1>t7 draw *\n'
                },
            ]
        },
    )

    variant: str | None = Field(
        default=None,
        description="A variant id or alias; required, except with `record` (which names it).",
        examples=["rank-and-file"],
    )
    deal: DealNumber | None = Field(default=None, description="Omitted: the server chooses.")
    solvable: bool = Field(
        default=False,
        description="Deal a deal the server has proven winnable (chosen from its secret, "
        "never from the public seeds/ lists); none ready: 503 no_solvable_deals.",
    )
    difficulty: Difficulty | None = Field(
        default=None,
        description='With `"solvable": true` only (else 422 validation_error): deal a proven '
        "deal of this rating, which the game then shows from the start; none of it ready: "
        "503 no_solvable_deals. Omitted: a proven deal of any rating.",
    )
    rules: RulesIn | None = None
    settings: GameSettingsIn | None = None
    record: str | None = Field(
        default=None,
        max_length=RECORD_MAX_CHARS,
        description='A game record (docs/api.md, "Game records"): deal its deal and play '
        "its moves again, each checked (422 invalid_record, and no game, for any fault). "
        "Only `settings` may come with it (not `variant`, `deal`, `solvable` or `rules`: "
        "the record names them).",
    )


class GameCreateShape(NamedTuple):
    """One of the bodies `POST /games` takes, as the document shows it (app.document):
    `given` its fields required (`solvable` given is `true`), `optional` those it may
    carry, `absent` those it may carry only as null (`solvable` only as `false`): the
    values that mean "not given". The one model `GameCreate` validates every request,
    and the service refuses the other combinations, each with its own fault code."""

    name: str
    description: str
    given: tuple[str, ...]
    optional: tuple[str, ...]
    absent: tuple[str, ...]


GAME_CREATE_SHAPES = (
    GameCreateShape(
        "GameCreateByDeal",
        "A deal by its number.",
        given=("variant", "deal"),
        optional=("rules", "settings"),
        absent=("solvable", "difficulty", "record"),
    ),
    GameCreateShape(
        "GameCreateSolvable",
        "A deal the server has proven winnable, of a rating or of any.",
        given=("variant", "solvable"),
        optional=("difficulty", "rules", "settings"),
        absent=("deal", "record"),
    ),
    GameCreateShape(
        "GameCreateRecord",
        "A game record played again: it names its variant, deal and rules.",
        given=("record",),
        optional=("settings",),
        absent=("variant", "deal", "solvable", "difficulty", "rules"),
    ),
    GameCreateShape(
        "GameCreateRandom",
        "A deal the server chooses at random (its number secret until the game is won).",
        given=("variant",),
        optional=("rules", "settings"),
        absent=("deal", "solvable", "difficulty", "record"),
    ),
)


class GamePatch(BaseModel):
    model_config = STRICT | ConfigDict(
        json_schema_extra={"examples": [{"settings": {"auto_play": False}}]}
    )

    settings: GameSettingsPatch
    expected_version: int | None = Field(default=None, ge=0)


class _Action(BaseModel):
    model_config = STRICT | ConfigDict(populate_by_name=True)


class MoveAction(_Action):
    # In answers (`legal_moves`, clicks) `count` is always there: required in their schema.
    model_config = _Action.model_config | ConfigDict(
        json_schema_serialization_defaults_required=True
    )

    action: Literal["move"]
    from_: str = Field(alias="from", examples=["tableau-2"])
    to: str = Field(examples=["foundation-5"])
    count: int = Field(default=1, ge=1, le=104)


class DrawAction(_Action):
    action: Literal["draw"]


class RedealAction(_Action):
    action: Literal["redeal"]


class ClickAction(_Action):
    action: Literal["click"]
    pile: str = Field(examples=["tableau-2"])
    index: int | None = Field(
        default=None, ge=0, description="From the bottom of the pile, 0-based; omitted: the top."
    )


class _Expect(BaseModel):
    model_config = STRICT

    expected_version: int | None = Field(
        default=None,
        ge=0,
        description="Refuse with 409 version_conflict unless the game is at this version.",
    )


class MoveRequestMove(MoveAction, _Expect):
    pass


class DrawRequest(DrawAction, _Expect):
    pass


class RedealRequest(RedealAction, _Expect):
    pass


class ClickRequest(ClickAction, _Expect):
    pass


MoveRequest = Annotated[
    MoveRequestMove | DrawRequest | RedealRequest | ClickRequest,
    Field(discriminator="action"),
]

MOVE_REQUEST_EXAMPLES: dict[str, Any] = {
    "move": {"value": {"action": "move", "from": "tableau-2", "to": "foundation-5", "count": 1}},
    "draw": {"value": {"action": "draw", "expected_version": 3}},
    "redeal": {"value": {"action": "redeal"}},
    "click": {"value": {"action": "click", "pile": "tableau-2", "index": 3}},
}


class UndoRequest(_Expect):
    model_config = STRICT


class ResignRequest(_Expect):
    model_config = STRICT


class PracticeRequest(BaseModel):
    model_config = STRICT | ConfigDict(
        json_schema_extra={"examples": [{}, {"ply": 12, "settings": {"auto_finish": False}}]}
    )

    ply: int | None = Field(
        default=None,
        ge=0,
        description="The position to copy: the number of moves of the game's line played on "
        "the copy, from 0 (the deal) to the game's `move_count` (more: 422 "
        "validation_error). Omitted: the analysis' `winning_line_ply`, where its winning line "
        "starts (the position before the losing move, else the last one proven winnable), "
        "or the deal where the deal itself is lost; an analysis with neither needs it "
        "(422 validation_error).",
    )
    settings: GameSettingsIn | None = Field(
        default=None, description="The copy's settings; omitted: the game's own."
    )
