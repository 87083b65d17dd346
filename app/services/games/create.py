"""A new game: dealt by number (chosen by the player, the server or the daily deal), or
one of the proven solvable deals claimed in the transaction that inserts it."""

from __future__ import annotations

import secrets
from datetime import date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.engine import EngineError, Rules, State, Variant, deal
from app.errors import InvalidRules, ValidationFailed, from_engine
from app.models import Game, Player, utcnow
from app.schemas import GameState
from app.services import ranking, solvable
from app.services.games.play import DEFAULT_SETTINGS
from app.services.games.presenter import Answer, answer, game_state
from app.services.proving import SERVER_DEAL_MAX
from app.services.solvable import SolvableDeals
from app.services.variants import find_variant


async def create_game(
    session: AsyncSession,
    player: Player,
    *,
    variant_name: str,
    deal_number: int | None,
    solvable: bool,
    rules: dict[str, Any] | None,
    settings: dict[str, Any] | None,
    solvable_deals: SolvableDeals | None = None,
    daily_date: date | None = None,
) -> Answer[GameState]:
    """A new game. With `daily_date`, `deal_number` is that date's daily deal (source
    "daily"); the unique (player, variant, daily_date) constraint raises IntegrityError
    for a second one, which the daily service turns into "return the existing game".
    `solvable` deals one of `solvable_deals`' proven deals, claimed in the transaction
    that inserts the game; none ready is 503 no_solvable_deals at once."""
    variant = find_variant(variant_name, where="body")
    if solvable and deal_number is not None:
        raise ValidationFailed("give either a deal number or solvable, not both")
    try:
        game_rules = Rules.from_json(rules)
    except EngineError as exc:
        raise InvalidRules(exc.message, reason=exc.code) from exc
    if solvable:
        return await _create_solvable(
            session, player, variant, game_rules, settings, solvable_deals
        )
    if deal_number is None:
        number, source = secrets.randbelow(SERVER_DEAL_MAX) + 1, "random"
    else:
        number, source = deal_number, "daily" if daily_date else "deal"
    state = _deal(variant, number, game_rules)
    game = _new_game(player, variant, number, source, game_rules, settings, state, daily_date)
    async with unit_of_work(session):
        session.add(game)
        await session.flush()
    return answer(game_state(game, state), game)


def _deal(variant: Variant, number: int, rules: Rules) -> State:
    try:
        return deal(variant, number, rules)
    except EngineError as exc:
        raise from_engine(exc) from exc


async def _create_solvable(
    session: AsyncSession,
    player: Player,
    variant: Variant,
    rules: Rules,
    settings: dict[str, Any] | None,
    solvable_deals: SolvableDeals | None,
) -> Answer[GameState]:
    async with unit_of_work(session):
        claimed = await solvable.claim(session, variant, rules)
        if claimed is None:
            retry = solvable_deals.retry_after(variant.name) if solvable_deals else 60
            raise solvable.no_solvable_deals(variant.name, retry)
        row, state = claimed
        number = int(row.deal)
        game = _new_game(player, variant, number, "solvable", rules, settings, state, None)
        session.add(game)
        await session.flush()  # the game first: the claim names it
        row.dealt_at, row.game_id = game.created_at, game.id
        await session.flush()
    if solvable_deals is not None:
        solvable_deals.claimed(variant.name)
    return answer(game_state(game, state), game)


def _new_game(
    player: Player,
    variant: Variant,
    number: int,
    source: str,
    rules: Rules,
    settings: dict[str, Any] | None,
    state: State,
    daily_date: date | None,
) -> Game:
    now = utcnow()
    return Game(
        player_id=player.id,
        variant=variant.name,
        deal=str(number),
        source=source,
        rules=rules.to_json(),
        settings={**DEFAULT_SETTINGS, **(settings or {})},
        status=state.status,
        version=0,
        move_count=0,
        state=state.to_bytes(),
        created_at=now,
        updated_at=now,
        daily_date=daily_date,
        assisted=False,
        ranked=ranking.starts_ranked(daily_date, now),
    )
