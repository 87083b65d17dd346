"""The reads of a game once dealt: its state, its position, its version, the player's
list of games, its move log and its record. The lists page by key, with the sealed
cursors of `kit.page_cursors`."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.engine import State
from app.errors import (
    InvalidCursor,
    RecordNotAvailable,
    ValidationFailed,
)
from app.i18n import N_
from app.models import Game, Player
from app.schemas import (
    GamePage,
    GameRecord,
    GameState,
    MoveLog,
    rfc3339,
)
from app.services.daily import ranking
from app.services.games import repository
from app.services.games.presenter import (
    Answer,
    answer,
    game_record,
    game_summary,
    iso,
    stored_game_state,
    visible_deal,
)
from app.services.kit.page_cursors import PageCursors

# GET /games/{id}/moves: moves per page by default and at most (a move with its events
# is ~250 bytes of JSON; most games fit in one default page, as before pagination).
MOVES_PAGE_DEFAULT = 1000
MOVES_PAGE_MAX = 1000


MOVES_CURSOR = "moves"
GAMES_CURSOR = "games"


def _games_cursor_after(cursors: PageCursors, player_id: str, cursor: str) -> tuple[datetime, str]:
    """The (created_at, id) a page of the player's games ended at."""
    match cursors.open(GAMES_CURSOR, player_id, cursor):
        case [str(created), str(game_id)]:
            return datetime.fromisoformat(created).astimezone(UTC), game_id
    raise InvalidCursor()


def _moves_cursor_offset(
    cursors: PageCursors | None, game_id: str, cursor: str, offset: int
) -> int:
    """The seq a moves cursor ends at (the page after it starts at the next seq)."""
    if offset:
        raise ValidationFailed(
            N_("give `cursor` or `offset`, not both (offset 0 is its default)"),
            field="cursor",
            fault="cursor_and_offset",
        )
    if cursors is None:
        raise InvalidCursor()
    match cursors.open(MOVES_CURSOR, game_id, cursor):
        case [int(seq)] if seq >= 0:
            return seq
    raise InvalidCursor()


async def get_game(session: AsyncSession, player: Player, game_id: str) -> Answer[GameState]:
    player_id = player.id  # read once: a rollback expires the ORM object
    async with unit_of_work(session, write=False):
        game = await repository.load_owned(session, player_id, game_id)
    return answer(stored_game_state(game), game)


async def load_position(session: AsyncSession, player: Player, game_id: str) -> tuple[Game, State]:
    """The game row and its full position, hidden cards included: for server-side work
    (the solver's hints) that must never be sent to the client as it is. The read ends
    here: no connection is held while the caller works on the position."""
    async with unit_of_work(session, write=False):
        game = await repository.load_owned(session, player.id, game_id)
    return game, State.from_bytes(game.state)


async def game_version(session: AsyncSession, player: Player, game_id: str) -> int:
    """Only the version, for a cheap If-None-Match answer."""
    async with unit_of_work(session, write=False):
        return await repository.version_of(session, player.id, game_id)


async def list_games(
    session: AsyncSession,
    player: Player,
    *,
    limit: int,
    cursor: str | None,
    cursors: PageCursors,
) -> GamePage:
    """The player's games, newest first; keyset pagination so pages never overlap. The
    cursor holds the (created_at, id) of the page's last game, sealed for this player's
    list."""
    after = _games_cursor_after(cursors, player.id, cursor) if cursor else None
    async with unit_of_work(session, write=False):
        # One more than the page: whether there is a next one.
        games = await repository.games_page(session, player.id, after=after, limit=limit + 1)
    more = len(games) > limit
    games = games[:limit]
    return GamePage(
        items=[game_summary(g) for g in games],
        next_cursor=cursors.seal(GAMES_CURSOR, player.id, [iso(games[-1].created_at), games[-1].id])
        if more and games
        else None,
    )


async def list_moves(
    session: AsyncSession,
    player: Player,
    game_id: str,
    *,
    offset: int = 0,
    limit: int = MOVES_PAGE_DEFAULT,
    cursor: str | None = None,
    cursors: PageCursors | None = None,
) -> MoveLog:
    """One page of the move log: the moves with `seq` from `offset + 1` on, at most
    `limit` of them (`seq` runs 1, 2, 3, ... with no gaps, so the offset is a seq).
    A `cursor` (the `next_cursor` of a page) says where the page starts instead; with it
    `offset` must be left at 0."""
    if cursor:
        offset = _moves_cursor_offset(cursors, game_id, cursor, offset)
    player_id = player.id  # read once: a rollback expires the ORM object
    async with unit_of_work(session, write=False):
        game = await repository.load_owned(session, player_id, game_id)
        rows = await repository.moves_page(session, game.id, offset=offset, limit=limit)
        items = [
            {
                "seq": r.seq,
                "version": r.version,
                "text": r.text,
                "move": r.move,
                "events": r.events,
                "created_at": r.created_at,
            }
            for r in rows
        ]
        end = offset + len(items)
        more = bool(items) and end < game.move_count
        return MoveLog.model_validate(
            {
                "game_id": game.id,
                "version": game.version,
                "total": game.move_count,
                "items": items,
                "next_offset": end if more else None,
                "next_cursor": cursors.seal(MOVES_CURSOR, game.id, [end])
                if more and cursors is not None
                else None,
            }
        )


async def get_record(session: AsyncSession, player: Player, game_id: str) -> GameRecord:
    """The game as a record (its deal and its line of play), for its owner, once its deal
    is public: exactly when the state shows `deal` (a record never tells more than the
    state). Else 409 record_not_available."""
    player_id = player.id  # read once: a rollback expires the ORM object
    async with unit_of_work(session, write=False):
        game = await repository.load_owned(session, player_id, game_id)
        if visible_deal(game) is None:
            raise _record_refused(game)
        texts = await repository.move_texts(session, game.id)
    return game_record(game, texts)


def _record_refused(game: Game) -> RecordNotAvailable:
    if game.deal_secret:
        return RecordNotAvailable(
            N_("this practice copy's deal is secret for good: its game's deal was when copied")
        )
    if game.daily_date is not None:
        ends = rfc3339(ranking.day_end(game.daily_date))
        return RecordNotAvailable(
            N_("a daily deal is secret until its date is over ({ends}); its record then"),
            params={"ends": ends},
        )
    return RecordNotAvailable(
        N_(
            "the server chose this game's deal ({source}): it is secret until the game is "
            "won or resigned"
        ),
        params={"source": game.source},
    )
