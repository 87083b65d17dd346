"""A game as the API answers it: its state, the events of a move, the move log, a
hint."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from typing_extensions import TypeAliasType

from app.schemas.common import Difficulty, ShownDeal, Timestamp, _WithDeal
from app.schemas.requests import DrawAction, MoveAction, RedealAction

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
        description="A game not dealt fresh by the server: a game record played again "
        '(POST /games `{"record"}`) or a copy of a game at a position of its line (source '
        "`practice`, POST /games/{id}/analysis/practice). Never ranked, and not counted in "
        "the player's statistics."
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

# Any event a change's answer carries (a move's, an undo's, a finish's), as the stream
# sends the events of the changes since the client's last event one after another.
GameEvent = TypeAliasType(
    "GameEvent",
    Annotated[
        MoveEvent
        | TurnUpEvent
        | ReserveFillEvent
        | AutoFinishEvent
        | UndoEvent
        | TurnDownEvent
        | MoveBackEvent,
        Field(discriminator="type"),
    ],
)


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


AnalysisState = TypeAliasType("AnalysisState", Literal["pending", "running", "done"])
Verdict = TypeAliasType("Verdict", Literal["winnable", "lost", "undecided"])


class PlyVerdict(BaseModel):
    ply: int = Field(description="Moves played from the deal (0: the deal itself).")
    verdict: Verdict = Field(
        description="winnable: a winning line exists from this position; lost: proven that "
        "none does; undecided: neither within the analysis' budget."
    )


class Analysis(BaseModel):
    """The analysis of a game that is over: a verdict per position of its line of play."""

    game_id: str
    state: AnalysisState = Field(
        description="pending: queued, waiting for a worker (see `place`), nothing searched "
        "yet; running: a worker decides its positions (`decided`, `positions`); done."
    )
    move_count: int = Field(
        description="The moves of the line analysed: its positions are plies 0 to move_count."
    )
    plies: list[PlyVerdict] = Field(
        description="One verdict per position, ply 0 (the deal) first, once `state` is "
        "`done`; empty before."
    )
    losing_ply: int | None = Field(
        description="The number of moves after which the position is lost (the losing move "
        "is move `losing_ply` of the log; 0: the deal itself is lost). Null when the game was "
        "never lost (won, or winnable to its end) or the boundary is undecided."
    )
    losing_move: LegalMove | None = Field(
        description="The losing move (move `losing_ply` of the log), as played; null with "
        "`losing_ply` null or 0."
    )
    winning_line: list[LegalMove] | None = Field(
        description="A winning line from the position after `losing_ply - 1` moves (the one "
        "before the losing move), as `legal_moves` gives moves; null with `losing_move` null."
    )
    decided: int = Field(description="Positions decided so far (progress; from the end back).")
    positions: int = Field(description="Positions the solver searched for this analysis so far.")
    place: int | None = Field(
        description="While `pending`: the background jobs ahead of it (other analyses asked "
        "before it, and any more urgent work), each of which its first search waits behind "
        "(0: it is next, a worker being free). Null once it runs, or when it is done; "
        "null while pending: its job failed (asking again queues it afresh).",
        examples=[0],
    )
    created_at: Timestamp
    updated_at: Timestamp
