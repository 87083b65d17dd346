"""Variants: the rules of each game as the API describes them."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from app.schemas.common import Difficulty

# --- variants ----------------------------------------------------------------


class HouseRuleOut(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

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


class RatingReady(BaseModel):
    """What `POST /games` with `"solvable": true` and this `difficulty` does now."""

    difficulty: Difficulty
    ready: int = Field(
        description="Proven deals of this rating ready in this server's pool: more than 0, "
        "such a request is dealt one at once (201); 0, it is refused at once (503 "
        "no_solvable_deals with a Retry-After like `retry_after_seconds`).",
        examples=[2],
    )
    retry_after_seconds: int | None = Field(
        description="With `ready` 0: the seconds until one may be proven, from what this "
        "server measured (the Retry-After a request gets now; 1 to 300). Null while some "
        "are ready.",
        examples=[None],
    )


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
    solvable_by_rating: list[RatingReady] | None = Field(
        description='Per rating (easy, medium, hard, expert), what POST /games with "solvable": '
        'true and that "difficulty" does now. Empty: this server does not rate its deals '
        "(no rating is ever ready); null: the database could not be asked."
    )
    seeded_deals: int = Field(
        description="Proven-winnable deals listed in the public seeds/<variant>.json "
        "(never dealt as server-chosen deals)."
    )
