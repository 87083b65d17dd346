"""A game as the API answers it: its state, the answers of a move, an undo and a finish,
the list of games, the move log, its record, its live stream."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from typing_extensions import TypeAliasType

from app.schemas.common import Difficulty, ShownDeal, Timestamp, _WithDeal
from app.schemas.events import (
    GameEvent,
    LegalMove,
    LoggedEvent,
    PlayEvent,
    UndoAnswerEvent,
)

# --- games: answers -------------------------------------------------------------


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
GameStatus = TypeAliasType("GameStatus", Literal["playing", "won", "stuck", "resigned"])
GameSource = TypeAliasType("GameSource", Literal["deal", "random", "solvable", "daily", "practice"])

# --- why a daily game is not ranked (services.daily.ranking.UNRANKED) ---
UnrankedReason = TypeAliasType(
    "UnrankedReason",
    Literal[
        "past_date",
        "assisted",
        "undone",
        "resigned",
        "late",
        "stuck",
        "revealed_line",
        "too_fast",
    ],
)
UNRANKED_REASON_DOC = (
    "Why a daily game is not ranked, the first reason it met: `past_date` (started once "
    "its date was over: practice), `assisted` (a hint, a finish, or the solver said the "
    "position is lost), `undone` (an undo), `resigned`, `late` (in play or moved once its "
    "date was over), `stuck` (no move left but an undo), `revealed_line` (won along a "
    "line the solver revealed for this deal that day, to this player or another: at least "
    "a third of the layouts the game passed through), `too_fast` (won faster than a "
    "person plays: a median under 250 ms per move, draws and redeals aside). Null while "
    "the game is ranked (or can still be) and for every game that is not a daily game. "
    "New reasons may be added."
)


class GameState(_WithDeal):
    id: str
    variant: str = Field(examples=["rank-and-file"])
    deal: ShownDeal = Field(
        description="The deal number up to 2^53 - 1; null above it (read `deal_str`, "
        "always exact), while a game whose deal the server chose is not won yet, and for "
        "good for a practice copy made while its original's deal was secret."
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
        "game of a past date (practice) and every other game are never ranked. A win is "
        "judged when it is played: one along a line the solver revealed for the deal that "
        "day, or played faster than a person plays, is not ranked (`unranked_reason`)."
    )
    unranked_reason: UnrankedReason | None = Field(description=UNRANKED_REASON_DOC)
    practice: bool = Field(
        description="A game that replays what is known already: a game record played again "
        '(POST /games `{"record"}`), a copy of a game at a position of its line (source '
        "`practice`, POST /games/{id}/analysis/practice), a daily game started once its "
        "date was over (`unranked_reason: past_date`). Never ranked, and not counted in "
        "the player's statistics (but a past date's daily game in `daily_played`)."
    )
    difficulty: Difficulty | None = Field(
        description="The proven deal's measured rating (solvable and daily games): from the "
        "start when the game was asked for by rating (`difficulty` in POST /games, "
        "`?difficulty=` of the daily game), else once the game is over (won, stuck or "
        "resigned). Null for a deal by number or at random, and for a deal proven before "
        "ratings."
    )
    redeals_left: int | None = Field(description="Null: unlimited.")
    base_rank: int | None = Field(description="Rank foundations start from (Rainbow).")
    piles: list[PileOut]
    legal_moves: list[LegalMove]
    created_at: Timestamp
    updated_at: Timestamp


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
    deal: ShownDeal = Field(description="As in the state (null above 2^53 - 1: read `deal_str`).")
    source: GameSource
    status: GameStatus
    version: int
    move_count: int
    created_at: Timestamp
    updated_at: Timestamp


class GamePage(BaseModel):
    items: list[GameSummary]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: end.")


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
    """One page of the line of play (`offset` or `cursor`, `limit`): all of it when it
    fits."""

    game_id: str
    version: int = Field(description="The game's version when the page was read.")
    total: int = Field(description="Moves in the whole log (the game's move_count).")
    items: list[MoveLogEntry] = Field(description="Moves seq offset + 1 on, in order.")
    next_offset: int | None = Field(
        description="Pass as `offset` for the next page; null: this page reaches the end."
    )
    next_cursor: str | None = Field(
        description="Or pass this as `cursor` for the next page (opaque); null: this page "
        "reaches the end.",
    )


class GameRecord(BaseModel):
    """A game as one text: its deal (variant, number, house rules) and its line of play
    (docs/api.md, "Game records"); `POST /games` with `{"record": ...}` plays it again."""

    game_id: str
    version: int = Field(description="The game's version the record was read at.")
    record: str = Field(
        examples=[
            '[Variant "rank-and-file"]\n[Deal "1"]\n[Rules "foundation_return=false"]\n\n'
            "t0>t8 t1>t7 t2>t7 draw *\n"
        ]
    )


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "unreachable", "busy"] = Field(
        description="`busy`: this instance's last write found the database locked past "
        "its bound (503 `database_busy`), and none has committed since."
    )


class StreamToken(BaseModel):
    """A token that opens this game's live stream as `?token=`, for clients that cannot
    send an `Authorization` header (a browser's EventSource)."""

    model_config = ConfigDict(extra="forbid")

    token: str = Field(description="Pass as `?token=` to GET /games/{game_id}/events.")
    expires_at: Timestamp = Field(description="Streams can be opened with it until then.")
    url: str = Field(
        description="The stream's URL with the token, relative (its path and query, "
        "`/api/v1/games/{game_id}/events?token=...`) to the server that gave it: ready "
        "for an EventSource of a page on the same origin, else resolve it against the "
        "API's base URL."
    )


# --- the live stream's payloads (GET /games/{game_id}/events, docs/api.md) ---------


class StreamChange(BaseModel):
    """The data of the live stream's `event: change` (JSON): the game's new version, the
    events of every change since the client's last event, in order (`[]` where the
    server cannot vouch for them all: see docs/api.md), and the new public state in
    full, as GET /games/{game_id} answers it."""

    version: int = Field(ge=0, description="The game's new version (the event's `id:`).")
    events: list[GameEvent] = Field(
        description="What the changes did, in order, to animate them; `[]` when none "
        "can be told (the state is always right)."
    )
    state: GameState
