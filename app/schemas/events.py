"""What a move, an undo or a finish did, as the answers carry it (`events`), as the move
log keeps it, and as the live stream sends it; and a legal move as the answers name it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypeAliasType

from app.schemas.requests import DrawAction, MoveAction, RedealAction

LegalMove = Annotated[MoveAction | DrawAction | RedealAction, Field(discriminator="action")]


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
