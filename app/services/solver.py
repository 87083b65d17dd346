"""Hints and finish: the solver behind the game service.

The search runs in the app's one pool of workers (`services.background.cpu_pool.WorkPool`: processes,
so that the Python around the native search never stalls the event loop), before any
background proof. A saturated pool answers 429 ``solver_busy``
with ``Retry-After``; so does a player's second search while one of theirs runs or waits
(``solver_search_in_progress``), and a hint never waits behind a finish's whole budget
(the pool's hint lane). A search that answered ``unknown`` is remembered for a while for
its position and budget (`undecided.Undecided`): a retry answers the same at once. A
winning line, once found, is kept for every position along it in the database (`knowledge.SolverKnowledge`), so a player who follows the hints gets each
next one without a new search, on any instance; a proven deal's line (seeds, daily,
solvable) is known from a game's first hint, and a position proven lost stays lost: so
does every later position of that game's line of play (`Game.lost_at`, until an undo
takes it back past the proven one), answered without a search. Finish plays the line
through ``games.apply_moves``, the one path every move takes.

Budgets and pool size come from the settings (``SOLVER_*``, ``HINT_*``, ``FINISH_*``),
which the service holds with its pool: `hint` and `finish` need only the session, the
player and the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db import unit_of_work
from app.engine import Move, Rules, State, deal, get_variant
from app.errors import (
    GameOver,
    NoWinFound,
    SolverBusy,
    SolverSearchInProgress,
    VersionConflict,
    retry_after,
)
from app.i18n import N_
from app.models import Game, Player, SolvableDeal
from app.schemas import FinishResult, Hint
from app.seeds import read_line, seed_line
from app.services import games
from app.services.background.cpu_pool import WorkPool
from app.services.background.knowledge import Known, SolverKnowledge
from app.services.background.undecided_memory import Undecided
from app.services.background.undecided_memory import key as undecided_key
from app.services.daily import revealed
from app.services.daily.deals import stored_deal as daily_stored_deal
from app.services.games import Answer
from app.solver.plan import suggest
from app.solver.result import SolveResult
from app.solver.worker import SearchInProgress
from app.solver.worker import SolverBusy as PoolBusy

# Searches one finish may run when the game moves on while it searches.
_FINISH_SEARCHES = 2


class Budget(NamedTuple):
    """A search's kind and budget, from the settings (``HINT_*``, ``FINISH_*``)."""

    kind: Literal["hint", "finish"]
    positions: int
    seconds: float

    @classmethod
    def of(cls, settings: Settings, kind: Literal["hint", "finish"]) -> Budget:
        if kind == "hint":
            return cls(kind, settings.hint_max_positions, settings.hint_max_seconds)
        return cls(kind, settings.finish_max_positions, settings.finish_max_seconds)


Outcome = Literal["solved", "unsolvable", "unknown"]


@dataclass(frozen=True)
class WinningLine:
    """What a search (or what was known) says of a position: the winning line from it
    (None: none known; empty: the position is won), the verdict, and the positions
    searched and the time taken to find out (0: it was known)."""

    moves: tuple[Move, ...] | None
    result: Outcome
    positions: int = 0
    elapsed_ms: int = 0


@dataclass(frozen=True)
class Searched:
    """A game's position as it is now and a winning line from it: the game as read, the
    version the line applies at, whether the game was assisted then, the position."""

    game: Game
    version: int
    assisted: bool
    state: State
    line: WinningLine


RESIGNED = N_("the game was resigned; it takes no more moves")


class SolverService:
    """Per app: the settings, the one pool of workers, and what the solver knows (shared
    through the database). Built in the lifespan (`app.wiring`)."""

    def __init__(self, settings: Settings, work: WorkPool, knowledge: SolverKnowledge) -> None:
        self.settings = settings
        self.work = work
        self.knowledge = knowledge
        self.undecided = Undecided(
            settings.solver_unknown_ttl_seconds, settings.solver_unknown_max_entries
        )

    async def remember(self, state: State, moves: list[Move]) -> None:
        """Keep a winning line from `state` for every position along it."""
        await self.knowledge.remember_line(state.variant.name, state, moves, "search")

    async def search(self, state: State, budget: Budget, owner: str) -> SolveResult:
        """A search by player `owner` (one at a time each); an unknown answered within
        the TTL for the same position and budget is answered again, with no search."""
        data = state.to_bytes()
        undecided = undecided_key(data, budget.kind, budget.positions, budget.seconds)
        if self.undecided.recalls(undecided):
            # `positions: 0`: answered from what was known, as from the database.
            return SolveResult("unknown", [], 0, 0, "remembered")
        try:
            result = await self.work.search(
                data,
                max_positions=budget.positions,
                max_seconds=budget.seconds,
                owner=owner,
                hint=budget.kind == "hint",
            )
        except SearchInProgress as running:
            raise SolverSearchInProgress(headers=retry_after(running.retry_after)) from None
        except PoolBusy as busy:
            raise SolverBusy(headers=retry_after(busy.retry_after)) from None
        if result.result == "unknown":
            self.undecided.remember(undecided)
        elif result.result == "solved":
            # Already replayed by the engine in the worker (`plan.solve` raises on a
            # line that does not win): every instance will answer from it.
            await self.remember(state, result.moves)
        elif result.result == "unsolvable":
            await self.knowledge.remember_lost(state)
        return result

    async def _known(self, session: AsyncSession, game: Game, state: State) -> Known | None:
        """What is known of the position: by any instance, or from the game's proven deal."""
        known = await self.knowledge.lookup(state)
        if known is None:
            line = await proven_line(session, self.settings, game)
            if line is not None:
                start = deal(get_variant(game.variant), int(game.deal), Rules.from_json(game.rules))
                source = "seed" if game.source == "deal" else game.source
                await self.knowledge.learn_deal(game.variant, source, game.deal, start, line)
                known = self.knowledge.cached(state)
        return known

    async def _winning_line(
        self, session: AsyncSession, game: Game, state: State, budget: Budget
    ) -> WinningLine:
        if state.is_won:
            return WinningLine((), "solved")
        if games.known_lost(game):  # an earlier position of this line was proven lost
            return WinningLine(None, "unsolvable")
        known = await self._known(session, game, state)
        if known is not None:
            return WinningLine(known.rest, "unsolvable" if known.lost else "solved")
        result = await self.search(state, budget, game.player_id)
        moves = tuple(result.moves) if result.result == "solved" else None
        return WinningLine(moves, result.result, result.positions, result.elapsed_ms)

    async def _search_game(
        self, session: AsyncSession, player: Player, game_id: str, budget: Budget
    ) -> Searched:
        """The game's position as it is now and a winning line from it. The read is ended
        before the search (`games.load_position`), so no connection is held while it
        runs. A position newly proven lost is kept on the game (`games.mark_lost`), which
        marks it assisted too: then the version is the game's after that, where it is
        still at the position."""
        game, state = await games.load_position(session, player, game_id)
        if game.status == "resigned":  # over: no move to hint or play (its analysis coaches)
            raise GameOver(RESIGNED)
        version, already_assisted, lost_before = game.version, game.assisted, games.known_lost(game)
        line = await self._winning_line(session, game, state, budget)
        if line.result == "unsolvable" and not lost_before:
            marked = await games.mark_lost(session, player, game_id, state)
            already_assisted = marked.assisted
            if marked.state == state.to_bytes():
                version = marked.version
        return Searched(game, version, already_assisted, state, line)

    async def hint(self, session: AsyncSession, player: Player, game_id: str) -> Hint:
        """The first move of a winning line from the game's position (or, with none found,
        a heuristic suggestion that ``result`` marks as such). Only the move is revealed;
        on a daily game of the current date it is kept as revealed for the deal
        (`revealed.record`), as a finish's moves are.
        A hint that tells something (a move, or that the position is lost) marks the game
        assisted before it is answered: its win is then not ranked.

        The answer's `version` is the one the hinted move applies at: after the marking when
        the game is still at the position searched; the version searched when the game moved
        meanwhile (a move sent with it as `expected_version` then gets 409: ask again)."""
        searched = await self._search_game(
            session, player, game_id, Budget.of(self.settings, "hint")
        )
        state, line = searched.state, searched.line
        version, assisted = searched.version, searched.assisted
        if line.moves:
            move: Move | None = line.moves[0]
        else:
            move = None if state.is_won or line.result == "unsolvable" else suggest(state)
        if move is not None:
            # Revealed: a second account's win along it does not rank (`revealed`).
            await revealed.record_alone(
                session, searched.game, [state.apply(move, auto_finish=False)[0]]
            )
        if not assisted and move is not None:
            marked = await games.mark_assisted(session, player, game_id)
            assisted = marked.assisted
            if marked.state == state.to_bytes():
                version = marked.version
        return Hint.model_validate(
            {
                "move": move.to_json() if move else None,
                "version": version,
                "assisted": assisted,
                "result": line.result,
                "positions": line.positions,
                "elapsed_ms": line.elapsed_ms,
            }
        )

    async def finish(
        self, session: AsyncSession, player: Player, game_id: str
    ) -> Answer[FinishResult]:
        """Play a winning line to the end through the one move path; 409 ``no_win_found``
        (also when the line is longer than ``FINISH_MAX_MOVES``).

        The game is read afresh after the search: a change made meanwhile (another client's
        move) is seen, and the line is played only from the position it was found for; from a
        moved position the search runs once more. A position proven lost marks the game
        assisted, as a hint saying so does: it tells the player something of hidden cards.
        The answer is the won state with ``events`` (all of them) and ``steps`` (each move of
        the line with its own events). A resigned game is over: 409 ``game_over``, before any
        search."""
        game, _position = await games.load_position(session, player, game_id)
        if game.status == "resigned":
            raise GameOver(RESIGNED)
        for _attempt in range(_FINISH_SEARCHES):
            budget = Budget.of(self.settings, "finish")
            searched = await self._search_game(session, player, game_id, budget)
            line = searched.line.moves
            if line is None:
                raise NoWinFound(
                    N_(
                        "no winning line was found from this position (result: {result}, "
                        "{positions} positions searched)"
                    ),
                    params={"result": searched.line.result, "positions": searched.line.positions},
                )
            most = self.settings.finish_max_moves
            if len(line) > most:
                # A win is known: the player learns that much, as from a hint saying so.
                if not searched.assisted:
                    await games.mark_assisted(session, player, game_id)
                raise NoWinFound(
                    N_(
                        "the winning line found is {length} moves long, more than a finish plays "
                        "({most}, FINISH_MAX_MOVES); hints follow it"
                    ),
                    params={"length": len(line), "most": most},
                )
            try:
                # Marked in the same transaction as the line's first move: not ranked.
                answer = await games.apply_moves(
                    session,
                    player,
                    game_id,
                    list(line),
                    assisted=True,
                    from_position=searched.state,
                )
            except games.PositionChanged:
                continue
            # `events` (all of them at once) stays; `steps` gives each move with its own
            # events, for a client to replay the finish one move at a time.
            body = FinishResult.model_validate(
                {**answer.body.model_dump(mode="json"), "steps": list(answer.steps)}
            )
            return Answer(body=body, game_id=answer.game_id, version=answer.version)
        raise VersionConflict(N_("the game kept changing during the search; reload it"))


async def proven_line(session: AsyncSession, settings: Settings, game: Game) -> list[Move] | None:
    """The proven winning line of the game's deal, where the deal is a proven one: a
    deal of `seeds/` dealt by number, the day's daily deal, a solvable deal."""
    if game.source == "deal":
        return seed_line(settings.seeds_dir, game.variant, int(game.deal))
    async with unit_of_work(session, write=False):
        if game.source == "daily" and game.daily_date is not None:
            stored = await daily_stored_deal(
                session, game.variant, game.daily_date, game.daily_slot
            )
            return None if stored is None else read_line(stored.line)
        if game.source == "solvable":
            query = select(SolvableDeal.line).where(SolvableDeal.game_id == game.id)
            line = (await session.execute(query)).scalar_one_or_none()
            return None if line is None else read_line(line)
    return None
