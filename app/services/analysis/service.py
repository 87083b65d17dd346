"""The analysis of a game that is over: a verdict for every position of its line of play
(`winnable`, `lost`, `undecided`), the move after which it could no longer be won, and a
winning line from the position before that move (docs/api.md, "Analysis of a finished
game"; docs/solver.md, "Analysing a finished game").

The positions of the line are decided by `analysis.walk`, each looked up first in what
the solver knows (`SolverKnowledge`) and searched only when unknown, in the background
lane of the pool (`WorkPool.analyse`).

One analysis per game, stored (`game_analyses`) and shared by every instance: it is a
job of the one queue (`services.background.jobs`, kind `analysis`), queued with its row at
`ANALYSIS` priority, before every proof; one worker runs it, and one that dies leaves a
job its lease lets another take again. Secrecy: the verdicts and the line tell of hidden
cards, so only a game that is over is analysed (won, stuck or resigned), a daily game
only once its date is over, and a stuck game (which still takes an undo) is marked
assisted first.

Once done, the analysis makes practice copies of the game (`GameAnalyses.practice`): a new
game at a position of its line, by default the one before the losing move, where the
winning line starts (`games.create_copy`; docs/api.md, "Practice games").
"""

from __future__ import annotations

import logging
import time
from typing import Any

from sqlalchemy import RowMapping, Table, and_, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db import dialect_insert, unit_of_work
from app.engine import Move, Rules, State, deal, get_variant
from app.errors import (
    AnalysisNotDone,
    AnalysisNotFound,
    DailyNotOver,
    GameNotOver,
    ValidationFailed,
)
from app.i18n import N_
from app.models import Game, GameAnalysis, Job, Player, utcnow
from app.models import Move as MoveRow
from app.schemas import Analysis, GameState, rfc3339
from app.services import games
from app.services.analysis.walk import LOST, UNDECIDED, WINNABLE, Decided, walk
from app.services.background import jobs
from app.services.background.cpu_pool import ANALYSIS, Begun, WorkPool
from app.services.background.jobs import Queued, Taken
from app.services.background.knowledge import SolverKnowledge
from app.services.daily import ranking
from app.services.games import repository
from app.services.kit import account_bounds
from app.services.kit.account_bounds import PlayerBounds
from app.services.solver import proven_line

log = logging.getLogger("app.analysis")

KIND = "analysis"
PENDING, RUNNING, DONE = "pending", "running", "done"
# The stored progress (plies decided, positions spent) is written at most this often.
_PROGRESS_SECONDS = 1.0

_ANALYSES: Table = GameAnalysis.__table__  # type: ignore[assignment]


def _subject(game_id: str, line: str) -> str:
    """An analysis' job subject."""
    return f"{game_id}|{line}"


def line_key(game: Game, last_version: int) -> str:
    """The line of play an analysis is of: its length and the version of its last move (a
    stuck game taken back and played on has another, even at the same length)."""
    return f"{game.move_count}.{last_version}"


def check_over(game: Game) -> None:
    """Only a game that is over is analysed, a daily game only once its date is over."""
    if game.status not in games.OVER:
        raise GameNotOver()
    if game.daily_date is not None and not ranking.deal_published(game.daily_date, utcnow()):
        ends = rfc3339(ranking.day_end(game.daily_date))
        raise DailyNotOver(
            N_("a daily game is analysed once its date is over ({ends})"), params={"ends": ends}
        )


def _practice_ply(game: Game, ply: int | None, losing_ply: int | None, line_ply: int | None) -> int:
    """The position a practice copy starts from: `ply` moves of the game's line, by
    default where the analysis' winning line starts (`line_ply`: the position before the
    losing move, or the last one proven winnable), else the deal where the deal is lost."""
    if ply is None:
        if line_ply is not None:
            return line_ply
        if losing_ply is None:
            raise ValidationFailed(
                N_("the analysis found no losing move: give the ply of the position to copy"),
                field="ply",
                fault="ply_required",
            )
        return max(0, losing_ply - 1)
    if ply > game.move_count:
        raise ValidationFailed(
            N_("ply is a number of moves from 0 to the game's move count ({moves})"),
            params={"moves": game.move_count},
            field="ply",
            fault="ply_out_of_range",
        )
    return ply


def line_ply(row: RowMapping) -> int | None:
    """The ply a done analysis' winning line starts from: the one before the losing move,
    else (no losing move found) the last ply proven winnable; None without a line."""
    if row["state"] != DONE or row["winning_line"] is None:
        return None
    if row["losing_ply"]:
        return int(row["losing_ply"]) - 1
    plies = row["plies"] or []
    return max((k for k, verdict in enumerate(plies) if verdict == WINNABLE), default=None)


def present(row: RowMapping, place: int | None = None) -> Analysis:
    done = row["state"] == DONE
    plies = row["plies"] or []
    return Analysis.model_validate(
        {
            "game_id": row["game_id"],
            "state": row["state"],
            "move_count": row["move_count"],
            "plies": [{"ply": k, "verdict": v} for k, v in enumerate(plies)] if done else [],
            "losing_ply": row["losing_ply"] if done else None,
            "losing_move": row["losing_move"] if done else None,
            "winning_line": row["winning_line"] if done else None,
            "winning_line_ply": line_ply(row),
            "decided": row["decided"],
            "positions": row["positions"],
            "place": place if row["state"] == PENDING else None,
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
        }
    )


async def _last_version(session: AsyncSession, game: Game) -> int:
    last = await repository.last_move(session, game.id)
    return 0 if last is None else last.version


async def _new_work(session: AsyncSession, game_id: str, line: str) -> bool:
    """Would asking for this line's analysis queue work (counted against the player's
    bound)? Not when it is done already, nor while its job is queued or running."""
    row = await _stored(session, game_id)
    if row is not None and row["line"] == line and row["state"] == DONE:
        return False
    query = select(Job.state).where(Job.kind == KIND, Job.subject == _subject(game_id, line))
    state = (await session.execute(query)).scalar_one_or_none()
    return state not in (jobs.QUEUED, jobs.RUNNING)


async def _place(session: AsyncSession, row: RowMapping) -> int | None:
    """Where a pending analysis waits: the background jobs queued or running ahead of its
    own (more urgent, or as urgent and queued before it), every one of which its first
    search waits behind; None when it is not pending, or its job is not queued or
    running."""
    if row["state"] != PENDING:
        return None
    query = select(Job.state, Job.priority, Job.queued_at).where(
        Job.kind == KIND, Job.subject == _subject(row["game_id"], row["line"])
    )
    job = (await session.execute(query)).one_or_none()
    if job is None or job.state not in (jobs.QUEUED, jobs.RUNNING):
        return None
    ahead = select(func.count()).where(
        Job.state.in_((jobs.QUEUED, jobs.RUNNING)),
        or_(
            Job.priority < job.priority,
            and_(Job.priority == job.priority, Job.queued_at < job.queued_at),
        ),
    )
    return int((await session.execute(ahead)).scalar_one())


async def _stored(session: AsyncSession, game_id: str) -> RowMapping | None:
    query = select(_ANALYSES).where(_ANALYSES.c.game_id == game_id)
    return (await session.execute(query)).mappings().one_or_none()


class GameAnalyses:
    """Per app (`Services.analyses`): asks for analyses (each a job, `services.background.jobs`,
    kind `analysis`, `<game id>|<line>`, at `ANALYSIS` priority), and runs the jobs this
    process's runner takes (`run_job`)."""

    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        work: WorkPool,
        knowledge: SolverKnowledge,
        queued: Queued | None = None,
    ) -> None:
        self.settings, self.sessionmaker = settings, sessionmaker
        # The players' bounds on analyses and practice copies (services.kit.account_bounds).
        self.bounds: PlayerBounds | None = PlayerBounds.of(settings)
        self.work, self.knowledge = work, knowledge
        # Told of each job queued here (this process's runner, when it has one).
        self.queued: Queued = queued or jobs.unheard

    # --- requests

    async def request(self, session: AsyncSession, player: Player, game_id: str) -> Analysis:
        """Ask for the game's analysis (POST): stored once, started in the background if it
        is not done; the same analysis for every later request on the same line."""
        player_id = player.id  # read once: a rollback expires the ORM object
        async with unit_of_work(session, write=False):
            game = await repository.load_owned(session, player_id, game_id)
            check_over(game)
            line = line_key(game, await _last_version(session, game))
            subject = _subject(game.id, line)
            if await _new_work(session, game.id, line):
                # A first look, before the game is marked: a refusal changes nothing.
                await account_bounds.check_new_analysis(
                    session, player_id, self.bounds, subject=subject
                )
        if game.status == "stuck":
            # It still takes an undo: what the analysis tells helps a game in play.
            await games.mark_assisted(session, player, game_id)
        async with unit_of_work(session):
            # The player's requests look one after another (the same analysis asked twice
            # at once: the second finds the first's job).
            await account_bounds.hold_player(session, player_id)
            if await _new_work(session, game.id, line):
                await account_bounds.check_new_analysis(
                    session, player_id, self.bounds, subject=subject
                )
            now = utcnow()
            fresh = {
                "line": line,
                "state": PENDING,
                "move_count": game.move_count,
                "decided": 0,
                "positions": 0,
                "plies": None,
                "losing_ply": None,
                "losing_move": None,
                "winning_line": None,
                "updated_at": now,
            }
            insert = dialect_insert(session, GameAnalysis).on_conflict_do_nothing()
            await session.execute(insert.values(game_id=game.id, created_at=now, **fresh))
            row = await _stored(session, game.id)
            assert row is not None
            if row["line"] != line:  # a stuck game played on since: its new line
                await session.execute(
                    update(_ANALYSES).where(_ANALYSES.c.game_id == game.id).values(**fresh)
                )
                row = await _stored(session, game.id)
                assert row is not None
            if row["state"] != DONE:
                # Queued with the row it fills: both are there, or neither.
                await jobs.enqueue_in(session, KIND, _subject(game.id, line), ANALYSIS)
            place = await _place(session, row)
        if row["state"] != DONE:
            self.queued(KIND, _subject(game.id, line), ANALYSIS)
        return present(row, place)

    async def get(self, session: AsyncSession, player: Player, game_id: str) -> Analysis:
        """The game's analysis as it is now (GET); one left unfinished by an instance that
        is gone is taken over."""
        player_id = player.id
        async with unit_of_work(session, write=False):
            game = await repository.load_owned(session, player_id, game_id)
            row = await _stored(session, game.id)
            place = None if row is None else await _place(session, row)
        if row is None:
            raise AnalysisNotFound()
        return present(row, place)

    async def practice(
        self,
        session: AsyncSession,
        player: Player,
        game_id: str,
        ply: int | None,
        settings: dict[str, Any] | None,
    ) -> games.Answer[GameState]:
        """A practice copy of the game at the position after `ply` of its moves (omitted:
        the one before the losing move), once its analysis is done: a new game of the
        same player, source "practice" (`games.create_copy`). Refused as the analysis is:
        only a game that is over, a daily game once its date is over; before the
        analysis is done (or for a line it is not of) 409 analysis_not_done."""
        player_id = player.id  # read once: a rollback expires the ORM object
        async with unit_of_work(session, write=False):
            game = await repository.load_owned(session, player_id, game_id)
            check_over(game)
            row = await _stored(session, game.id)
            if row is None:
                raise AnalysisNotFound()
            line = line_key(game, await _last_version(session, game))
            if row["state"] != DONE:
                raise AnalysisNotDone()
            if row["line"] != line:
                raise AnalysisNotDone(
                    N_("the game was played on since its analysis: ask for it again (POST)")
                )
            ply = _practice_ply(game, ply, row["losing_ply"], line_ply(row))
            rows = (
                await session.execute(
                    select(MoveRow.move, MoveRow.state_before)
                    .where(MoveRow.game_id == game.id, MoveRow.seq <= ply + 1)
                    .order_by(MoveRow.seq)
                )
            ).all()
        moves = [Move.from_json(move) for move, _before in rows[:ply]]
        position = rows[ply][1] if ply < game.move_count else game.state
        return await games.create_copy(
            session, player, game, moves, position, settings, self.bounds
        )

    # --- the work

    async def run_job(self, job: Taken) -> None:
        """The analysis of a job: stops at once where it is done already (a job taken
        again after its worker died mid-save)."""
        game_id, line = job.subject.split("|", 1)
        async with self.sessionmaker() as session, unit_of_work(session, write=False):
            row = await _stored(session, game_id)
        if row is None or row["line"] != line or row["state"] == DONE:
            return
        await self._analyse(game_id, line, again=row["state"] == RUNNING)

    async def _line(self, game_id: str, line: str) -> tuple[Game, list[State]] | None:
        """The game and the positions of its line, ply 0 first; None when the game is
        gone or its line is no longer the one asked for (its analysis is dropped: the
        line it was of exists no more)."""
        async with self.sessionmaker() as session, unit_of_work(session):
            query = select(Game).where(Game.id == game_id)
            game = (await session.execute(query)).scalar_one_or_none()
            if game is None:
                return None
            if line_key(game, await _last_version(session, game)) != line:
                await session.execute(
                    delete(_ANALYSES).where(
                        _ANALYSES.c.game_id == game_id, _ANALYSES.c.line == line
                    )
                )
                return None
            befores = list(
                (
                    await session.execute(
                        select(MoveRow.state_before)
                        .where(MoveRow.game_id == game_id)
                        .order_by(MoveRow.seq)
                    )
                ).scalars()
            )
        return game, [State.from_bytes(data) for data in [*befores, game.state]]

    async def _analyse(self, game_id: str, line: str, *, again: bool = False) -> None:
        """The analysis of the line: `pending` until a worker starts on it (its first
        search runs, or its first progress is written), `running` from then on, `done`.
        Taken `again` (its worker died), it waits again from the start."""
        found = await self._line(game_id, line)
        if found is None:
            return
        game, positions = found
        if again:
            await self._save(game_id, line, state=PENDING, decided=0, positions=0)
        await self._learn_deal(game)
        s = self.settings
        last_written = time.monotonic()
        running = False

        async def begin() -> None:
            nonlocal running
            if not running:
                running = True
                await self._save(game_id, line, state=RUNNING)

        async def progress(decided: int, spent: int) -> None:
            nonlocal last_written, running
            if time.monotonic() - last_written >= _PROGRESS_SECONDS:
                last_written, running = time.monotonic(), True
                await self._save(game_id, line, state=RUNNING, decided=decided, positions=spent)

        async def decide(state: State, budget: int) -> Decided:
            return await self._decide(state, budget, begin)

        verdicts = await walk(
            positions,
            decide,
            ply_budget=s.analysis_ply_max_positions,
            total_budget=s.analysis_max_positions,
            progress=progress,
        )
        losing_move = None
        if verdicts.losing_ply:
            async with self.sessionmaker() as session, unit_of_work(session, write=False):
                query = select(MoveRow.move).where(
                    MoveRow.game_id == game_id, MoveRow.seq == verdicts.losing_ply
                )
                losing_move = (await session.execute(query)).scalar_one()
        await self._save(
            game_id,
            line,
            state=DONE,
            decided=len(verdicts.plies),
            positions=verdicts.positions,
            plies=verdicts.plies,
            losing_ply=verdicts.losing_ply,
            losing_move=losing_move,
            winning_line=None
            if verdicts.winning_line is None
            else [move.to_json() for move in verdicts.winning_line],
        )

    async def _learn_deal(self, game: Game) -> None:
        """A proven deal's line (seeds, daily, solvable) is known for every position along
        it: a player who followed it for a while has those plies decided at once."""
        async with self.sessionmaker() as session:
            line = await proven_line(session, self.settings, game)
        if line is not None:
            start = deal(get_variant(game.variant), int(game.deal), Rules.from_json(game.rules))
            source = "seed" if game.source == "deal" else game.source
            await self.knowledge.learn_deal(game.variant, source, game.deal, start, line)

    async def _decide(self, state: State, budget: int, begun: Begun | None = None) -> Decided:
        """One position: won, known (by any instance), else searched within `budget`
        positions (0: not searched; `begun` awaited once the search runs on a worker);
        what a search proves is kept for everyone."""
        if state.is_won:
            return Decided(WINNABLE, ())
        known = await self.knowledge.lookup(state)
        if known is not None:
            return Decided(LOST) if known.lost else Decided(WINNABLE, known.rest)
        if budget <= 0:
            return Decided(UNDECIDED)
        seconds = self.settings.analysis_ply_max_seconds
        result = await self.work.analyse(state.to_bytes(), budget, seconds, begun)
        if result.result == "solved":
            await self.knowledge.remember_line(state.variant.name, state, result.moves, "search")
            return Decided(WINNABLE, tuple(result.moves), result.positions)
        if result.result == "unsolvable":
            await self.knowledge.remember_lost(state)
            return Decided(LOST, None, result.positions)
        return Decided(UNDECIDED, None, result.positions)

    async def _save(self, game_id: str, line: str, **values: Any) -> None:
        async with self.sessionmaker() as session, unit_of_work(session):
            await session.execute(
                update(_ANALYSES)
                .where(_ANALYSES.c.game_id == game_id, _ANALYSES.c.line == line)
                .values(updated_at=utcnow(), **values)
            )
