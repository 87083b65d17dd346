"""The one wrapper of every write of a game that answers a request (moves, undo,
settings): `write_game` opens the unit of work with the game locked, replays a retried
request's stored answer, checks `expected_version` (409 `version_conflict`) and, where
asked, refuses a game that is over for good, won or resigned (409 `game_over`), runs the change, and stores its answer
under the request's `Idempotency-Key`. The answers are kept and bounded by
`app.services.kit.idempotency`.

With `copy`, the game is this process's copy of its row (`locked_game(copy=True)`),
which may be stale: a write that fails on it, in its checks or in its change, is run
again on the row, whose answer stands.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.errors import ApiError, GameOver, IdempotencyKeyReused, VersionConflict
from app.i18n import N_
from app.models import Game, IdempotencyKey
from app.schemas import GameMoveResult, GameState, UndoResult
from app.services.games import changes
from app.services.games.play import FINISHED, PositionChanged
from app.services.games.presenter import Answer, Body
from app.services.games.repository import locked_game
from app.services.kit.idempotency import Idempotency, expired, forget, keep_newest

# The model a stored answer is read back as (as it was sent).
StoredModel = type[GameMoveResult] | type[UndoResult] | type[GameState]
# What a write does to the locked game, and its answer.
Change = Callable[[Game], Awaitable[Answer[Body]]]


async def write_game(
    session: AsyncSession,
    player_id: str,
    game_id: str,
    change: Change[Body],
    *,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
    refuse_won: bool = False,
    replay_as: StoredModel = GameMoveResult,
    copy: bool = False,
) -> Answer[Body]:
    """Run `change` on the player's game in one transaction, as the module says: all of
    it committed with its stored answer, or nothing. A retried request's stored answer is
    found before anything else is checked (a retry repeats the first request's
    `expected_version`). `replay_as`: the answer's model. `copy`: start from this
    process's copy of the game where it has one (a move's versioned save checks it)."""
    write = _Write(
        session,
        player_id,
        game_id,
        change,
        expected_version=expected_version,
        idempotency=idempotency,
        refuse_won=refuse_won,
        replay_as=replay_as,
    )
    if copy:
        try:
            return await write.settled(copy=True)
        except (ApiError, PositionChanged):
            if not write.ran_on_copy:
                raise
        # The change failed on this process's copy of the game (rolled back): on the row.
    return await write.settled(copy=False)


@dataclass
class _Write(Generic[Body]):
    session: AsyncSession
    player_id: str
    game_id: str
    change: Change[Body]
    expected_version: int | None
    idempotency: Idempotency | None
    refuse_won: bool
    replay_as: StoredModel
    # The last attempt's change ran on this process's copy of the game, not the row.
    ran_on_copy: bool = False

    async def settled(self, *, copy: bool) -> Answer[Body]:
        """The write, or the answer of a twin request with the same key that won the race
        (on another game: the game's lock does not order them), whose stored answer makes
        this one's insert fail: answer as it did, or refuse a key used for another
        request."""
        try:
            return await self._once(copy=copy)
        except IntegrityError:
            if self.idempotency is None:
                raise
            async with unit_of_work(self.session, write=False):
                replay = await _stored_answer(
                    self.session, self.player_id, self.idempotency, self.replay_as
                )
            if replay is None:
                raise
            return replay

    async def _once(self, *, copy: bool) -> Answer[Body]:
        async with locked_game(self.session, self.player_id, self.game_id, copy=copy) as locked:
            if self.idempotency is not None:
                replay = await _stored_answer(
                    self.session, self.player_id, self.idempotency, self.replay_as
                )
                if replay is not None:
                    return replay
            # Whatever a copy answers (the checks too: another process may have moved
            # since, so a version the row has can look wrong here) is asked again of the
            # row when it refuses.
            self.ran_on_copy = locked.copied
            self._check(locked.game)
            answer = await self.change(locked.game)
            changes.describe(self.session, self.game_id, answer.events_json())
            await _remember(self.session, self.player_id, self.idempotency, answer)
        return answer

    def _check(self, game: Game) -> None:
        expected = self.expected_version
        if expected is not None and expected != game.version:
            raise VersionConflict(
                N_("the game is at version {version}, not {expected}"),
                params={"version": game.version, "expected": expected},
            )
        if self.refuse_won and game.status in FINISHED:
            raise GameOver(
                None
                if game.status == "won"
                else N_("the game was resigned; it takes no more moves")
            )


async def _stored_answer(
    session: AsyncSession, player_id: str, idem: Idempotency, model: StoredModel
) -> Answer[Any] | None:
    """The answer stored under the request's key, replayed; None where there is none (or
    only an expired one, forgotten now so that the key stores this answer)."""
    row = (
        await session.execute(
            select(IdempotencyKey).where(
                IdempotencyKey.player_id == player_id, IdempotencyKey.key == idem.key
            )
        )
    ).scalar_one_or_none()
    if row is None:
        return None
    if expired(row.created_at, idem.ttl):
        await forget(session, row.id)
        return None
    if row.fingerprint != idem.fingerprint:
        raise IdempotencyKeyReused()
    body = model.model_validate(row.response)
    return Answer(body=body, game_id=body.id, version=body.version, replayed=True)


async def _remember(
    session: AsyncSession, player_id: str, idem: Idempotency | None, answer: Answer[Any]
) -> None:
    if idem is None:
        return
    session.add(
        IdempotencyKey(
            player_id=player_id,
            key=idem.key,
            fingerprint=idem.fingerprint,
            status_code=200,
            response=answer.body.model_dump(mode="json"),
        )
    )
    await session.flush()
    await keep_newest(session, player_id, idem.keep)
