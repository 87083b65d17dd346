"""Request and response models: the API's words."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# Requests are validated strictly: a field takes exactly the JSON type it declares
# (`deal` refuses true, "12", 1000.0 and 1e10; `expected_version` refuses "0").
STRICT = ConfigDict(extra="forbid", strict=True)
# Printable text only: NUL and other control characters are refused here, before they
# reach a database (PostgreSQL cannot store NUL in text).
PRINTABLE = r"^[^\x00-\x1f\x7f]+$"


class ErrorDetail(BaseModel):
    code: str = Field(examples=["illegal_move"])
    message: str = Field(examples=["a red card goes on a black one"])
    reason: str | None = Field(
        default=None,
        description="For illegal_move and invalid_move: the engine's reason code.",
        examples=["wrong_colour"],
    )


class ErrorResponse(BaseModel):
    """The envelope of every error answer."""

    error: ErrorDetail


# --- players -----------------------------------------------------------------


class PlayerCreate(BaseModel):
    model_config = STRICT | ConfigDict(json_schema_extra={"examples": [{"name": "ada"}]})

    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        pattern=PRINTABLE,
        description="Shown in daily results; no control characters.",
    )


class PlayerOut(BaseModel):
    id: str
    name: str | None
    created_at: datetime


class PlayerCreated(BaseModel):
    id: str
    name: str | None
    token: str = Field(description="Shown once: send it as `Authorization: Bearer <token>`.")


# --- variants ----------------------------------------------------------------


class HouseRuleOut(BaseModel):
    name: str = Field(examples=["foundation_return"])
    default: bool = Field(description="The variant's own setting when the game does not choose.")
    description: str = Field(
        default="",
        description="What the rule allows, in words.",
        examples=["The top card of a foundation may be played back to the tableau."],
    )


class TableauRules(BaseModel):
    piles: int = Field(examples=[10])
    cards_per_pile: int = Field(description="Cards dealt to each tableau pile.", examples=[4])
    face_down_per_pile: int = Field(description="Of those, dealt face down.", examples=[3])
    rounds_face_up: list[bool] = Field(
        description="Each dealing round over the piles, bottom first: true when face up.",
        examples=[[False, False, False, True]],
    )
    dealt: Literal["left_to_right", "right_to_left"]
    build: Literal["alternate", "any", "same_suit"] = Field(
        description="What goes on a tableau card: alternate colours, any suit, or in suit."
    )
    build_direction: Literal["down"] = Field(description="One rank lower each time.")
    build_wrap: bool = Field(description="A King may go on an Ace.")
    runs: Literal["any", "single"] = Field(
        description="any: a face-up card moves with the ordered run on it; single: one card "
        "at a time."
    )
    empty_pile: Literal["any_card", "from_reserve"] = Field(
        description="What fills an empty pile: any card (or run), or at once the reserve's "
        "top card (any card once the reserve is empty)."
    )


class FoundationRules(BaseModel):
    count: int = Field(examples=[8])
    base: Literal["ace", "first_card"] = Field(
        description="ace: each starts with an Ace; first_card: with the rank of the first "
        "card dealt to a foundation (the game's base_rank)."
    )
    base_rank: int | None = Field(
        description="1 (Ace) when fixed; null: set by each deal (see the state's base_rank)."
    )
    build: Literal["same_suit"]
    build_direction: Literal["up"]
    wrap: bool = Field(description="King goes on to Ace (Rainbow, Canfield).")
    dealt: int = Field(description="Cards the deal puts on the foundations (the base card).")
    return_to_tableau: bool = Field(
        description="The variant's default of the house rule foundation_return."
    )


class StockRules(BaseModel):
    cards: int = Field(description="Cards in the stock after the deal.")
    draw: int = Field(description="Cards turned to the waste per draw.")
    redeals: int | None = Field(
        description="Redeals (waste back to stock) allowed; null: unlimited."
    )


class ReserveRules(BaseModel):
    size: int = Field(examples=[13])
    top_playable: bool = Field(description="Its top card is face up and playable.")
    fills_empty_tableau: bool


class VariantOut(BaseModel):
    id: str = Field(examples=["rank-and-file"])
    name: str = Field(examples=["Rank and File"])
    aliases: list[str] = Field(examples=[["dress-parade"]])
    decks: int
    tableau_piles: int
    foundations: int
    reserve_size: int
    redeals: int | None = Field(description="Redeals allowed; null: unlimited.")
    rules: list[str] = Field(description="The rules in words.")
    house_rules: list[HouseRuleOut]
    tableau: TableauRules = Field(description="The deal and the tableau's rules, as data.")
    foundation: FoundationRules
    stock: StockRules
    reserve: ReserveRules | None = Field(description="Null: the game has no reserve.")
    solvable_available: bool = Field(
        description='A proven-winnable deal is ready now: POST /games with "solvable": true '
        "answers 201 (else 503 no_solvable_deals until the background has proven one)."
    )
    solvable_ready: int | None = Field(
        description="Proven deals ready in this server's solvable pool; null: the database "
        "could not be asked."
    )
    seeded_deals: int = Field(
        description="Proven-winnable deals listed in the public seeds/<variant>.json "
        "(never dealt as server-chosen deals)."
    )


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
            ]
        },
    )

    variant: str = Field(description="A variant id or alias.", examples=["rank-and-file"])
    deal: int | None = Field(default=None, ge=1, description="Omitted: the server chooses.")
    solvable: bool = Field(
        default=False,
        description="Deal a deal the server has proven winnable (chosen from its secret, "
        "never from the public seeds/ lists); none ready: 503 no_solvable_deals.",
    )
    rules: RulesIn | None = None
    settings: GameSettingsIn | None = None


class GamePatch(BaseModel):
    model_config = STRICT | ConfigDict(
        json_schema_extra={"examples": [{"settings": {"auto_play": False}}]}
    )

    settings: GameSettingsPatch
    expected_version: int | None = Field(default=None, ge=0)


class _Action(BaseModel):
    model_config = STRICT | ConfigDict(populate_by_name=True)


class MoveAction(_Action):
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


# --- games: answers -------------------------------------------------------------


LegalMove = Annotated[MoveAction | DrawAction | RedealAction, Field(discriminator="action")]


class FaceUpCard(BaseModel):
    code: str = Field(examples=["KS"])
    rank: int = Field(ge=1, le=13, examples=[13])
    suit: Literal["S", "H", "D", "C"]
    face_up: Literal[True]


class FaceDownCard(BaseModel):
    """A face-down card says nothing but that it is face down."""

    model_config = ConfigDict(extra="forbid")

    face_up: Literal[False]


class PileOut(BaseModel):
    id: str = Field(examples=["tableau-0"])
    kind: Literal["stock", "waste", "reserve", "foundation", "tableau"]
    cards: list[FaceUpCard | FaceDownCard] = Field(description="Bottom first.")


class RulesOut(BaseModel):
    foundation_return: bool


class GameSettingsOut(BaseModel):
    auto_play: bool
    auto_finish: bool


Status = Literal["playing", "won", "stuck"]
Source = Literal["deal", "random", "solvable", "daily"]


class GameState(BaseModel):
    id: str
    variant: str = Field(examples=["rank-and-file"])
    deal: int | None = Field(
        description="Null while a game whose deal the server chose is not won yet."
    )
    source: Source
    rules: RulesOut
    settings: GameSettingsOut
    status: Status
    version: int
    move_count: int
    assisted: bool = Field(
        description="The solver helped: a hint was answered or finish played. An assisted "
        "win counts in the player's wins but is not ranked in daily results."
    )
    redeals_left: int | None = Field(description="Null: unlimited.")
    base_rank: int | None = Field(description="Rank foundations start from (Rainbow).")
    piles: list[PileOut]
    legal_moves: list[LegalMove]
    created_at: datetime
    updated_at: datetime


class GameMoveResult(GameState):
    events: list[dict[str, Any]] = Field(
        description="What the move did, in order, automatic moves included.",
        examples=[
            [
                {
                    "type": "move",
                    "move": {"action": "move", "from": "tableau-2", "to": "tableau-5", "count": 1},
                },
                {"type": "turn_up", "pile": "tableau-2", "card": "7D"},
            ]
        ],
    )


class GameSummary(BaseModel):
    id: str
    variant: str
    deal: int | None
    source: Source
    status: Status
    version: int
    move_count: int
    created_at: datetime
    updated_at: datetime


class GamePage(BaseModel):
    items: list[GameSummary]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: end.")


class MoveLogEntry(BaseModel):
    seq: int = Field(description="1-based position in the line of play.")
    version: int = Field(description="The game's version after this move.")
    text: str = Field(examples=["t2>t5x3"])
    move: LegalMove
    events: list[dict[str, Any]]
    created_at: datetime


class MoveLog(BaseModel):
    """One page of the line of play (`offset`, `limit`): all of it when it fits."""

    game_id: str
    version: int = Field(description="The game's version when the page was read.")
    total: int = Field(description="Moves in the whole log (the game's move_count).")
    items: list[MoveLogEntry] = Field(description="Moves seq offset + 1 on, in order.")
    next_offset: int | None = Field(
        description="Pass as `offset` for the next page; null: this page reaches the end."
    )


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "unreachable"]


# --- daily deals and statistics --------------------------------------------------


class DailyOut(BaseModel):
    variant: str = Field(examples=["rank-and-file"])
    date: str = Field(description="The UTC date, YYYY-MM-DD.", examples=["2026-11-29"])
    players: int = Field(description="Players who started this daily game.")
    wins: int = Field(description="Players who won it without the solver's help (unassisted).")
    deal: int | None = Field(description="The deal number; null until the date is over.")
    ends_at: datetime = Field(description="When the date is over (the next UTC midnight).")


class DailyResultEntry(BaseModel):
    rank: int = Field(description="1 is best: fewest moves, then the shortest time.")
    name: str | None = Field(description="The player's name, if they gave one.")
    moves: int
    time_ms: int = Field(description="From the game's creation to the winning move.")
    won_at: datetime


class DailyOwnResult(BaseModel):
    game_id: str
    status: Status
    moves: int
    assisted: bool = Field(description="The solver helped (hint or finish): the win is not ranked.")
    rank: int | None = Field(description="Null until the game is won, and for an assisted win.")
    time_ms: int | None


class DailyResults(BaseModel):
    variant: str
    date: str
    total: int = Field(
        description="How many players won this daily deal unassisted (the ranked wins)."
    )
    items: list[DailyResultEntry]
    next_offset: int | None = Field(description="Pass as `offset` for the next page; null: end.")
    me: DailyOwnResult | None = Field(
        description="The caller's own game of the day (with a bearer token); null otherwise."
    )


class VariantStats(BaseModel):
    variant: str = Field(examples=["rank-and-file"])
    played: int = Field(description="Games started, daily ones included.")
    won: int = Field(description="Games won, assisted ones (hint or finish) included.")
    win_rate: float | None = Field(description="won / played; null when none was played.")
    daily_played: int
    daily_wins: int = Field(description="Daily deals won without the solver's help.")
    daily_streak: int = Field(
        description="Consecutive dates with a daily deal won without the solver's help, up "
        "to today (or yesterday while today's is not won yet)."
    )
    longest_daily_streak: int = Field(description="The longest such run of unassisted daily wins.")


class PlayerStats(BaseModel):
    player_id: str
    variants: list[VariantStats]
