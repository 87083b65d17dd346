"""Request and response models: the API's words."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    SerializerFunctionWrapHandler,
    WithJsonSchema,
    computed_field,
    model_serializer,
)
from pydantic_core import PydanticCustomError
from typing_extensions import TypeAliasType

from app.engine import MAX_DEAL

# Requests are validated strictly: a field takes exactly the JSON type it declares
# (`deal` refuses true, "12", 1000.0 and 1e10; `expected_version` refuses "0").
STRICT = ConfigDict(extra="forbid", strict=True)


# --- the API's scalar types ---------------------------------------------------------


def _as_utc(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; every time stored is UTC.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def rfc3339(moment: datetime) -> str:
    """`2026-11-30T10:00:00.123Z`: RFC 3339, UTC, `Z`, always milliseconds (what
    JavaScript's `Date.prototype.toISOString` writes, and `Date.parse` reads exactly)."""
    moment = _as_utc(moment)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


Timestamp = Annotated[
    datetime,
    AfterValidator(_as_utc),
    PlainSerializer(rfc3339, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "description": "RFC 3339, UTC, with `Z` and milliseconds.",
            "examples": ["2026-11-30T10:00:00.123Z"],
        },
        mode="serialization",
    ),
]
"""Every moment the API answers: one type, one format (RFC 3339, UTC, `Z`)."""

# A deal number as a decimal string: the digits of a JSON integer (no sign, no leading
# zero, ASCII digits only).
_DEAL_TEXT = re.compile(r"0|[1-9][0-9]*")
_DEAL_DIGITS = len(str(MAX_DEAL))


def _deal_number(value: Any) -> int:
    """A JSON integer, or a decimal string of one (JavaScript cannot hold numbers above
    2^53 exactly); in 1 .. 10^20 - 1, else the `invalid_deal` error (app.errors)."""
    if isinstance(value, str):
        if not _DEAL_TEXT.fullmatch(value):
            raise PydanticCustomError(
                "deal_type",
                "a deal number is a JSON integer or a string of its decimal digits",
            )
        # Checked before int(): Python refuses to convert strings of thousands of digits.
        number = int(value) if len(value) <= _DEAL_DIGITS else MAX_DEAL + 1
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise PydanticCustomError(
            "deal_type", "a deal number is a JSON integer or a string of its decimal digits"
        )
    if not 1 <= number <= MAX_DEAL:
        raise PydanticCustomError(
            "invalid_deal", "a deal number is a whole number from 1 to {max}", {"max": MAX_DEAL}
        )
    return number


DealNumber = Annotated[
    int,
    PlainValidator(_deal_number),
    WithJsonSchema(
        {
            "anyOf": [
                # exclusiveMaximum 10^20 (MAX_DEAL + 1): exact as a double, as the
                # OpenAPI document writes bounds; MAX_DEAL itself would round up to 1e20.
                {"type": "integer", "minimum": 1, "exclusiveMaximum": MAX_DEAL + 1},
                {"type": "string", "pattern": f"^[1-9][0-9]{{0,{_DEAL_DIGITS - 1}}}$"},
            ],
            "description": "1 .. 10^20 - 1, as a JSON integer or as a string of its "
            "decimal digits (exact in JavaScript above 2^53).",
            "examples": [12345, "99999999999999999999"],
        },
        mode="validation",
    ),
]
"""A deal number in a request: integer or decimal string, one range."""


class _WithDeal(BaseModel):
    """An answer that shows a deal number: `deal` and, beside it, `deal_str`."""

    deal: int | None

    @computed_field(  # type: ignore[prop-decorator]
        description="`deal` as a decimal string (null with it): read this one in "
        "JavaScript, where numbers above 2^53 lose digits.",
        examples=["12345"],
    )
    @property
    def deal_str(self) -> str | None:
        return None if self.deal is None else str(self.deal)


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


NAME_MAX_LENGTH = 64
# The control and format characters (Unicode categories Cc and Cf) of Unicode 14.0,
# Python 3.11's: for the document's pattern, which must not change with the Python that
# writes it. Names are checked against the running Python's categories.
HIDDEN_CHARACTERS = (
    (0x0000, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD), (0x0600, 0x0605),
    (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891),
    (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip


def _class_char(code: int) -> str:
    # \uXXXX reads the same in ECMAScript and Python; beyond the BMP, the character.
    return f"\\u{code:04X}" if code <= 0xFFFF else chr(code)


NAME_PATTERN = (
    "^[^"
    + "".join(
        _class_char(low) + ("" if low == high else "-" + _class_char(high))
        for low, high in HIDDEN_CHARACTERS
    )
    + "]+$"
)


def _public_name(name: str) -> str:
    """A name as it is stored and shown: NFC (one spelling for one name), without control
    or format characters (Unicode Cc and Cf: a right-to-left override or a zero-width
    character would disguise a name in the public results; NUL never reaches a database,
    and PostgreSQL cannot store it in text)."""
    name = unicodedata.normalize("NFC", name)
    hidden = sorted({f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in ("Cc", "Cf")})
    if hidden:
        raise ValueError(f"control and format characters are not allowed ({', '.join(hidden)})")
    if len(name) > NAME_MAX_LENGTH:  # NFC can lengthen a few characters
        raise ValueError(f"at most {NAME_MAX_LENGTH} characters")
    return name


PlayerName = Annotated[
    str,
    # The pattern is documented, not run: the validator says which character it refuses.
    Field(min_length=1, max_length=NAME_MAX_LENGTH, json_schema_extra={"pattern": NAME_PATTERN}),
    AfterValidator(_public_name),
]


class PlayerCreate(BaseModel):
    model_config = STRICT | ConfigDict(json_schema_extra={"examples": [{"name": "ada"}]})

    name: PlayerName | None = Field(
        default=None,
        description="Shown in daily results; no control or format characters (Unicode "
        "categories Cc and Cf, such as U+202E or U+200B). Stored in Unicode NFC.",
    )


class PlayerOut(BaseModel):
    id: str
    name: str | None
    created_at: Timestamp


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
    deal: DealNumber | None = Field(default=None, description="Omitted: the server chooses.")
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


Suit = TypeAliasType("Suit", Literal["S", "H", "D", "C"])
PileKind = TypeAliasType("PileKind", Literal["stock", "waste", "reserve", "foundation", "tableau"])


class FaceUpCard(BaseModel):
    code: str = Field(examples=["KS"])
    rank: int = Field(ge=1, le=13, examples=[13])
    suit: Suit
    face_up: Literal[True]
    click: LegalMove | None = Field(
        description='The move a click on this card plays (`{"action": "click", "pile", '
        '"index"}`); null: the click would be refused (no target, not playable, or clicks '
        "are off for the game: setting `auto_play`)."
    )


class FaceDownCard(BaseModel):
    """A face-down card says nothing but that it is face down."""

    model_config = ConfigDict(extra="forbid")

    face_up: Literal[False]


class PileOut(BaseModel):
    id: str = Field(examples=["tableau-0"])
    kind: PileKind
    cards: list[FaceUpCard | FaceDownCard] = Field(description="Bottom first.")
    movable_from: int | None = Field(
        description="The index of the lowest card a player may pick up: it moves together "
        "with every card above it (the top run in games where runs move, else the top card). "
        "Null: nothing may be picked up here (the stock, an empty pile, foundations that "
        "keep their cards, a won game).",
        examples=[3],
    )
    click: LegalMove | None = Field(
        description="The move a click on the pile without an index plays: its top card's "
        "click, or for the stock the draw (the redeal once it is empty). Null: refused."
    )
    suit: Suit | None = Field(
        default=None,
        description="Foundations only: the suit of their cards, once they have one (null "
        "while empty).",
    )
    base_rank: int | None = Field(
        default=None,
        ge=1,
        le=13,
        description="Foundations only: the rank an empty foundation takes (1, the Ace, "
        "except in Rainbow and Canfield: the deal's base rank).",
    )

    @model_serializer(mode="wrap")
    def _foundation_fields_on_foundations(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]  # unannotated: the document keeps the model's schema
        # As the engine's view writes piles: `suit` and `base_rank` on foundations only.
        data = handler(self)
        if self.kind != "foundation":
            data.pop("suit", None)
            data.pop("base_rank", None)
        return data


class RulesOut(BaseModel):
    foundation_return: bool


class GameSettingsOut(BaseModel):
    auto_play: bool
    auto_finish: bool


# Named once (a schema of their own in the document, so generated clients get one enum
# each, not one per model that uses them).
GameStatus = TypeAliasType("GameStatus", Literal["playing", "won", "stuck"])
GameSource = TypeAliasType("GameSource", Literal["deal", "random", "solvable", "daily"])


class GameState(_WithDeal):
    id: str
    variant: str = Field(examples=["rank-and-file"])
    deal: int | None = Field(
        description="Null while a game whose deal the server chose is not won yet "
        "(JavaScript: read `deal_str`)."
    )
    source: GameSource
    rules: RulesOut
    settings: GameSettingsOut
    status: GameStatus
    version: int
    move_count: int
    assisted: bool = Field(
        description="The solver helped: a hint was answered or finish played. An assisted "
        "win counts in the player's wins but is not ranked in daily results."
    )
    ranked: bool = Field(
        description="A daily game that counts, or can still count, in its day's ranking: "
        "started while its date was current (UTC), no undo, hint or finish, and (in play) "
        "its date not over yet. Undo, a hint and finish set it to false for good; a daily "
        "game of a past date (practice) and every other game are never ranked."
    )
    redeals_left: int | None = Field(description="Null: unlimited.")
    base_rank: int | None = Field(description="Rank foundations start from (Rainbow).")
    piles: list[PileOut]
    legal_moves: list[LegalMove]
    created_at: Timestamp
    updated_at: Timestamp


class _CardsMoved(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    from_: str = Field(alias="from", description="The pile the cards left.", examples=["tableau-2"])
    to: str = Field(description="The pile they went to.", examples=["tableau-5"])
    cards: list[str] | None = Field(
        description="The cards that moved, bottom first, as they lie on `to` (a draw: the "
        "cards turned up, in the order they land on the waste). Null when they end face "
        "down: a redeal's, an undone draw's.",
        examples=[["7D", "6S"]],
    )
    count: int = Field(ge=1, description="How many cards moved.", examples=[2])


class MoveEvent(_CardsMoved):
    """The player's move and the cards it moved (draw: stock to waste; redeal: waste to
    stock, `cards` null)."""

    type: Literal["move"]
    move: LegalMove


class TurnUpEvent(BaseModel):
    """The card at `index` of `pile` turned face up."""

    type: Literal["turn_up"]
    pile: str = Field(examples=["tableau-2"])
    index: int = Field(ge=0, description="From the bottom of the pile, 0-based.")
    card: str = Field(examples=["7D"])


class ReserveFillEvent(BaseModel):
    """The top reserve card went to the empty `pile` (Rainbow, Canfield)."""

    model_config = ConfigDict(populate_by_name=True)

    type: Literal["reserve_fill"]
    pile: str = Field(examples=["tableau-1"])
    index: int = Field(ge=0, description="Where the card lies in `pile` (0: the pile was empty).")
    card: str = Field(examples=["5H"])
    from_: Literal["reserve"] = Field(alias="from")


class AutoFinishEvent(_CardsMoved):
    """A move the server played itself (auto-finish), with its card."""

    type: Literal["auto_finish"]
    move: LegalMove


PlayEvent = Annotated[
    MoveEvent | TurnUpEvent | ReserveFillEvent | AutoFinishEvent, Field(discriminator="type")
]


class UndoEvent(BaseModel):
    """The move taken back (the first event of undo's answer)."""

    type: Literal["undo"]
    move: LegalMove


class TurnDownEvent(BaseModel):
    """The card at `index` of `pile` turned face down again. It is never named."""

    type: Literal["turn_down"]
    pile: str = Field(examples=["tableau-2"])
    index: int = Field(ge=0, description="From the bottom of the pile, 0-based.")


class MoveBackEvent(_CardsMoved):
    """Cards going back where they came from (`from`: where they lay, `to`: where they
    return); `cards` null when they return face down (an undone draw)."""

    type: Literal["move_back"]


UndoAnswerEvent = Annotated[UndoEvent | TurnDownEvent | MoveBackEvent, Field(discriminator="type")]

_EVENT_EXAMPLE: list[dict[str, Any]] = [
    {
        "type": "move",
        "move": {"action": "move", "from": "tableau-2", "to": "tableau-5", "count": 1},
        "from": "tableau-2",
        "to": "tableau-5",
        "cards": ["6S"],
        "count": 1,
    },
    {"type": "turn_up", "pile": "tableau-2", "index": 2, "card": "7D"},
]


class GameMoveResult(GameState):
    events: list[PlayEvent] = Field(
        description="What the move did, in order, automatic moves included: enough to "
        "animate it from the previous state's piles to these.",
        examples=[_EVENT_EXAMPLE],
    )


class UndoResult(GameState):
    events: list[UndoAnswerEvent] = Field(
        description="`undo` (the move taken back), then what changed back, newest first: "
        "replayed on the previous state's piles they give these.",
        examples=[
            [
                {
                    "type": "undo",
                    "move": {"action": "move", "from": "tableau-2", "to": "tableau-5", "count": 1},
                },
                {"type": "turn_down", "pile": "tableau-2", "index": 2},
                {
                    "type": "move_back",
                    "from": "tableau-5",
                    "to": "tableau-2",
                    "cards": ["6S"],
                    "count": 1,
                },
            ]
        ],
    )


class FinishStep(BaseModel):
    move: LegalMove = Field(description="One move of the line, as the player would send it.")
    events: list[PlayEvent] = Field(description="What this move did, in order.")


class FinishResult(GameMoveResult):
    steps: list[FinishStep] = Field(
        description="The line played, one move at a time with its own events (`events` "
        "is all of them at once): replayed in order from the state before the finish, "
        "they give this state."
    )


class GameSummary(_WithDeal):
    id: str
    variant: str
    deal: int | None = Field(description="As in the state (JavaScript: read `deal_str`).")
    source: GameSource
    status: GameStatus
    version: int
    move_count: int
    created_at: Timestamp
    updated_at: Timestamp


class GamePage(BaseModel):
    items: list[GameSummary]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: end.")


class _LoggedCardsMoved(BaseModel):
    """As `_CardsMoved`, every field optional: moves logged before events named their cards
    have none of them (and a draw's `cards` are null in the log)."""

    model_config = ConfigDict(populate_by_name=True)

    from_: str | None = Field(default=None, alias="from")
    to: str | None = None
    cards: list[str] | None = None
    count: int | None = Field(default=None, ge=1)


class LoggedMoveEvent(_LoggedCardsMoved):
    type: Literal["move"]
    move: LegalMove


class LoggedAutoFinishEvent(_LoggedCardsMoved):
    type: Literal["auto_finish"]
    move: LegalMove


class LoggedTurnUpEvent(BaseModel):
    type: Literal["turn_up"]
    pile: str
    card: str
    index: int | None = Field(default=None, ge=0)


class LoggedReserveFillEvent(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    type: Literal["reserve_fill"]
    pile: str
    card: str
    index: int | None = Field(default=None, ge=0)
    from_: Literal["reserve"] | None = Field(default=None, alias="from")


# The move log's events: the answered events as logged (see MoveLogEntry.events).
LoggedEvent = Annotated[
    LoggedMoveEvent | LoggedTurnUpEvent | LoggedReserveFillEvent | LoggedAutoFinishEvent,
    Field(discriminator="type"),
]


class MoveLogEntry(BaseModel):
    seq: int = Field(description="1-based position in the line of play.")
    version: int = Field(description="The game's version after this move.")
    text: str = Field(examples=["t2>t5x3"])
    move: LegalMove
    events: list[LoggedEvent] = Field(
        description="The move's events as answered when it was played (see the moves "
        "endpoint), typed by `type`; a draw's `cards` are null in the log, and moves "
        "logged before events named their cards have `from`, `to`, `cards`, `count` and "
        "`index` null."
    )
    created_at: Timestamp


class MoveLog(BaseModel):
    """One page of the line of play (`offset`, `limit`): all of it when it fits."""

    game_id: str
    version: int = Field(description="The game's version when the page was read.")
    total: int = Field(description="Moves in the whole log (the game's move_count).")
    items: list[MoveLogEntry] = Field(description="Moves seq offset + 1 on, in order.")
    next_offset: int | None = Field(
        description="Pass as `offset` for the next page; null: this page reaches the end."
    )


class Hint(BaseModel):
    move: LegalMove | None = Field(
        description="The next move of a winning line; with none found, a heuristic "
        "suggestion or null (no move, or the position is proven lost).",
        examples=[{"action": "move", "from": "tableau-2", "to": "foundation-0", "count": 1}],
    )
    result: Literal["solved", "unsolvable", "unknown"] = Field(
        description="solved: the move leads to a win; unsolvable: proven lost; unknown: "
        "no win found within the hint's budget."
    )
    positions: int = Field(description="Positions searched (0: the line was already known).")
    elapsed_ms: int
    version: int = Field(
        description="The game's version this hint is for, after the hint marked the game "
        "assisted (as the `ETag` says): send it as `expected_version` with the hinted move. "
        "If the game changed during the search, it is the version searched, and that move "
        "gets 409 version_conflict: ask again."
    )
    assisted: bool = Field(description="The game is assisted now (see the state's `assisted`).")


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "unreachable"]


# --- daily deals and statistics --------------------------------------------------


class DailyOut(_WithDeal):
    variant: str = Field(examples=["rank-and-file"])
    date: str = Field(description="The UTC date, YYYY-MM-DD.", examples=["2026-11-29"])
    players: int = Field(
        description="Players who started this daily game while its date was current "
        "(practice games of a past date are not counted)."
    )
    wins: int = Field(description="Ranked wins: won cleanly (no undo, hint or finish) in time.")
    deal: int | None = Field(
        description="The deal number; null until the date is over (then no ranked game of "
        "it can be played any more)."
    )
    ends_at: Timestamp = Field(description="When the date is over (the next UTC midnight).")


class DailyResultEntry(BaseModel):
    rank: int = Field(description="1 is best: fewest moves, then the shortest time.")
    name: str | None = Field(description="The player's name, if they gave one.")
    moves: int
    time_ms: int = Field(description="From the game's creation to the winning move.")
    won_at: Timestamp


class DailyOwnResult(BaseModel):
    game_id: str
    status: GameStatus
    moves: int
    assisted: bool = Field(description="The solver helped (hint or finish): the win is not ranked.")
    ranked: bool = Field(
        description="The game counts, or can still count, in the ranking (as the game "
        "state's `ranked`)."
    )
    rank: int | None = Field(description="Null until the game is won, and for an unranked win.")
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
