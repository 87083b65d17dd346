"""A new game: dealt by number (chosen by the player, the server or the daily deal), one
of the proven solvable deals claimed in the transaction that inserts it, a game record's
deal with its moves played again, or a copy of a game at a position of its line. The
last two are practice: not dealt fresh by the server, they are never ranked nor counted
in the player's statistics."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.engine import EngineError, Move, Record, Rules, State, Variant, deal, get_variant
from app.errors import InternalError, InvalidRules, ValidationFailed, from_engine
from app.i18n import N_
from app.models import Game, Player, new_id, utcnow
from app.schemas import GameState
from app.services.background import solvable_pools
from app.services.background.cpu_pool import REFILL
from app.services.background.proving import SERVER_DEAL_MAX
from app.services.background.solvable_pools import SolvableDeals
from app.services.daily import ranking
from app.services.games.play import (
    DEFAULT_SETTINGS,
    Line,
    LineOwner,
    PlayedLine,
    play_line,
)
from app.services.games.presenter import (
    Answer,
    answer,
    game_state,
    visible_deal,
    visible_difficulty,
)
from app.services.games.repository import POSITIONS
from app.services.games.service import played_line, save_line
from app.services.kit import account_bounds
from app.services.kit.account_bounds import PlayerBounds
from app.services.kit.offload import LANE, LONG_LINE
from app.services.variants import find_variant

log = logging.getLogger("app.games")


@dataclass(frozen=True)
class DailyPick:
    """Which of its date's deals a daily game plays (`slot`: "" the first, else a rating),
    the deal's rating, and whether the player asked for a rating (then shown at once)."""

    slot: str = ""
    difficulty: str | None = None
    asked: bool = False


async def create_game(
    session: AsyncSession,
    player: Player,
    *,
    variant_name: str | None,
    deal_number: int | None,
    solvable: bool,
    rules: dict[str, Any] | None,
    settings: dict[str, Any] | None,
    solvable_deals: SolvableDeals | None = None,
    daily_date: date | None = None,
    record: str | None = None,
    difficulty: str | None = None,
    daily: DailyPick | None = None,
    bounds: PlayerBounds | None = None,
) -> Answer[GameState]:
    """A new game. With `daily_date`, `deal_number` is that date's daily deal (source
    "daily"); the unique (player, variant, daily_date) constraint raises IntegrityError
    for a second one, which the daily service turns into "return the existing game".
    `solvable` deals one of `solvable_deals`' proven deals, claimed in the transaction
    that inserts the game (of rating `difficulty`, when given: then the game shows it from
    the start); none ready is waited for or refused (`_create_solvable`). `record`: the
    deal a game record names, its moves played again (`settings` only beside it).
    `bounds`: the player's (services.kit.account_bounds), checked in the unit of work that inserts the
    game (429 past one, and nothing is written)."""
    if record is not None:
        given = (variant_name, deal_number, difficulty)
        if any(value is not None for value in given) or solvable or rules:
            raise ValidationFailed(
                N_("a record names its variant, deal and rules: give only settings beside it"),
                field="record",
                fault="record_not_alone",
            )
        return await _create_from_record(session, player, record, settings, bounds)
    if variant_name is None:
        raise ValidationFailed(
            N_("give a variant (an id or alias), or a record"), field="variant", fault="missing"
        )
    variant = find_variant(variant_name, where="body")
    if solvable and deal_number is not None:
        raise ValidationFailed(
            N_("give either a deal number or solvable, not both"),
            field="solvable",
            fault="deal_and_solvable",
        )
    if difficulty is not None and not solvable:
        raise ValidationFailed(
            N_('a difficulty is dealt only with "solvable": true'),
            field="difficulty",
            fault="difficulty_without_solvable",
        )
    try:
        game_rules = Rules.from_json(rules)
    except EngineError as exc:
        raise InvalidRules(exc.template, params=exc.params, reason=exc.code) from exc
    if solvable:
        return await _create_solvable(
            session, player, variant, game_rules, settings, solvable_deals, difficulty, bounds
        )
    if deal_number is None:
        number, source = secrets.randbelow(SERVER_DEAL_MAX) + 1, "random"
    else:
        number, source = deal_number, "daily" if daily_date else "deal"
    state = _deal(variant, number, game_rules)
    game = _new_game(player, variant, number, source, game_rules, settings, state, daily_date)
    if daily is not None:
        game.daily_slot, game.difficulty = daily.slot, daily.difficulty
        game.difficulty_asked = daily.asked
    async with unit_of_work(session):
        await account_bounds.check_new_game(
            session, player.id, bounds, source=source, variant=variant.name
        )
        session.add(game)
        await session.flush()
    return answer(game_state(game, state), game)


async def _create_from_record(
    session: AsyncSession,
    player: Player,
    text: str,
    settings: dict[str, Any] | None,
    bounds: PlayerBounds | None,
) -> Answer[GameState]:
    """A game dealt by the record's number (source "deal": the record names it, so it is
    public) with the record's moves played again, each checked by the engine, and logged
    as any move is (`play_line`, `save_line`): the same position, move count and status
    as the game it was read from, but practice. The whole record is checked before
    anything is written: a fault is 422 invalid_record (with its line and move number)
    and makes no game. Read and played in the lane (10,000 moves: a second of work)."""
    async with unit_of_work(session, write=False):
        # A first look: a player past the bound costs no replay.
        await account_bounds.check_new_game(
            session, player.id, bounds, source="deal", variant="", lock=False
        )
    game_id = new_id()
    merged = {**DEFAULT_SETTINGS, **(settings or {})}
    replayed = await LANE.run(replay_record, text, game_id, merged)
    rules = Rules.from_json(replayed.rules)
    start = State.from_bytes(replayed.start)
    variant = get_variant(replayed.variant)
    game = _new_game(player, variant, replayed.deal, "deal", rules, merged, start, None)
    game.id = game_id
    game.practice = True  # not dealt fresh by the server: never ranked nor counted
    line = replayed.played.line(start, POSITIONS.load(replayed.played.data))
    return await _insert_played(session, game, line, bounds)


@dataclass(frozen=True)
class ReplayedRecord:
    """A record read and played in the lane: its deal, and its line from the deal."""

    variant: str
    deal: int
    rules: dict[str, Any]
    start: bytes
    played: PlayedLine


def replay_record(text: str, game_id: str, settings: dict[str, Any]) -> ReplayedRecord:
    """Read a record and play its moves from its deal (in the lane): a fault is the API
    error the engine's refusal maps to."""
    try:
        parsed = Record.parse(text)
        parsed.replay()
    except EngineError as exc:
        raise from_engine(exc) from exc
    start = parsed.start()
    owner = LineOwner(game_id, settings, start.to_bytes(), move_count=0, version=0)
    line = play_line(owner, start, parsed.moves, auto_finish_at=parsed.auto_finish_at)
    line.serialise()
    played = PlayedLine(line.data, line.rows, line.steps, line.events)
    return ReplayedRecord(
        parsed.variant.name, parsed.deal, parsed.rules.to_json(), start.to_bytes(), played
    )


async def create_copy(
    session: AsyncSession,
    player: Player,
    original: Game,
    moves: Sequence[Move],
    position: bytes,
    settings: dict[str, Any] | None,
    bounds: PlayerBounds | None = None,
) -> Answer[GameState]:
    """A practice copy of `original` (the player's own game, over and analysed) at the
    position after its first `len(moves)` moves (`moves`: those of its log, in order;
    `position`: the bytes of that position, as the log keeps it): a new game of source
    "practice" dealt by the same number and rules, with those moves played again and
    logged as any move is. Practice (never ranked, not in the statistics), with the
    original's settings unless `settings` are given. It shows no more than the original:
    where the original's deal is secret now (a stuck game the server dealt), the copy's
    deal and record are secret for good; the original's rating, where it shows one."""
    variant = get_variant(original.variant)
    rules = Rules.from_json(original.rules)
    number = int(original.deal)
    start = _deal(variant, number, rules)
    game = _new_game(
        player, variant, number, "practice", rules, settings or original.settings, start, None
    )
    game.practice, game.deal_secret = True, visible_deal(original) is None
    game.difficulty = visible_difficulty(original)
    game.difficulty_asked = game.difficulty is not None
    # The auto-finish played, if at all, only with a won game's last move (it wins).
    last = len(moves) - 1 if original.status == "won" and len(moves) == original.move_count else -1
    if len(moves) >= LONG_LINE:
        async with unit_of_work(session, write=False):
            # A first look: a player past the bound costs no replay.
            await account_bounds.check_new_game(
                session, player.id, bounds, source="practice", variant=variant.name, lock=False
            )
    line = await played_line(game, start, moves, auto_finish_index=last)
    if line.data != position:
        log.error("a practice copy of game %s did not replay to its position", original.id)
        raise InternalError()
    return await _insert_played(session, game, line, bounds)


async def _insert_played(
    session: AsyncSession, game: Game, line: Line, bounds: PlayerBounds | None
) -> Answer[GameState]:
    """Insert ``game`` with the moves of ``line`` logged, in one unit of work (within the
    player's `bounds`)."""
    legal = line.state.legal_moves()
    async with contextlib.AsyncExitStack() as stack:
        if line.serialised:  # a long line: one such write at a time
            await stack.enter_async_context(LANE.bulk_write())
        async with unit_of_work(session):
            await account_bounds.check_new_game(
                session, game.player_id, bounds, source=game.source, variant=game.variant
            )
            session.add(game)
            await session.flush()
            if line.rows:
                await save_line(session, game, line, legal)
    return answer(game_state(game, line.state), game)


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
    difficulty: str | None,
    bounds: PlayerBounds | None,
) -> Answer[GameState]:
    """A game of an unused proven deal. Without a difficulty, an empty pool is waited on
    (`SolvableDeals.wait_for_deal`: a deal is proven for the request, up to
    `solvable_wait_seconds`, with no database connection held meanwhile); with one, or
    past that wait, it is 503 no_solvable_deals with a Retry-After. The player's bounds
    are checked with each claim: a request past them is refused before it waits, and
    requests that waited together take no more deals than the bounds leave."""
    loop = asyncio.get_running_loop()
    wait = 0.0
    if solvable_deals is not None and difficulty is None:
        wait = solvable_deals.settings.solvable_wait_seconds
    deadline = loop.time() + wait
    while True:
        async with unit_of_work(session):
            await account_bounds.check_new_game(
                session, player.id, bounds, source="solvable", variant=variant.name
            )
            claimed = await solvable_pools.claim(session, variant, rules, difficulty)
            if claimed is not None:
                row, state = claimed
                number = int(row.deal)
                game = _new_game(player, variant, number, "solvable", rules, settings, state, None)
                game.difficulty, game.difficulty_asked = row.difficulty, difficulty is not None
                session.add(game)
                await session.flush()  # the game first: the claim names it
                row.dealt_at, row.game_id = game.created_at, game.id
                await session.flush()
        if claimed is not None:
            break
        # The unit of work is over: its connection is back in the pool while we wait.
        remaining = deadline - loop.time()
        if solvable_deals is None or remaining <= 0:
            if solvable_deals is not None:
                await solvable_deals.demand(variant.name, REFILL)  # asked for: fill it first
            retry = (
                await solvable_deals.retry_after(variant.name, difficulty) if solvable_deals else 60
            )
            raise solvable_pools.no_solvable_deals(variant.name, retry, difficulty)
        await solvable_deals.wait_for_deal(variant.name, remaining)
    if solvable_deals is not None:
        await solvable_deals.claimed(variant.name)
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
    ranked = ranking.starts_ranked(daily_date, now)
    past_date = daily_date is not None and not ranked
    return Game(
        id=new_id(),  # known before the insert: a record's moves are logged under it
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
        ranked=ranked,
        # A daily game of a date that is over (its deal and results are public) is
        # practice: never ranked, not counted in the statistics (docs/decisions/0024).
        practice=past_date,
        unranked_reason=ranking.PAST_DATE if past_date else None,
    )
