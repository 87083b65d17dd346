"""The services of one running app, built once in its lifespan (`app.main`) and handed
to the routers by the typed dependencies of `app.deps`.

`running_services` builds them in order under one `AsyncExitStack`: each part that
must be stopped is registered as it is built, so shutdown runs in reverse order by
construction (the background work and the idempotency sweeper first, the pools next,
the streams' watcher and notifier, the database last), and a start that fails half-way
stops what it had started.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from app.config import Settings
from app.db import Database, upgrade_to_head
from app.services.analysis.service import GameAnalyses
from app.services.background.build import build as build_background
from app.services.background.cpu_pool import WorkPool
from app.services.background.knowledge import SolverKnowledge
from app.services.background.solvable_pools import SolvableDeals
from app.services.daily.deals import DailyDeals
from app.services.games.changes import NOTIFIER, LocalNotifier
from app.services.games.listen import PostgresNotifier, connect_arguments
from app.services.games.stream import StreamLimits, StreamTokens
from app.services.games.watch import VersionWatcher
from app.services.kit.account_bounds import PlayerBounds, PlayerCreations, TrustedKeys
from app.services.kit.auth_failures import FailedAuthLimiter
from app.services.kit.idempotency import AnswerSweeper
from app.services.kit.offload import LANE
from app.services.kit.page_cursors import PageCursors
from app.services.players import KnownTokens
from app.services.solver import SolverService

if TYPE_CHECKING:
    from app.metrics import Metrics


@dataclass
class Services:
    """Everything a request may use, typed. Parts may be swapped while the app runs
    (tests do, to start a memory afresh or to turn a bound off)."""

    settings: Settings
    metrics: Metrics
    database: Database
    secret_key: str
    # Requests: page cursors, tokens, bounds.
    cursors: PageCursors
    auth_limiter: FailedAuthLimiter
    known_tokens: KnownTokens | None
    player_creations: PlayerCreations
    trusted_keys: TrustedKeys
    player_bounds: PlayerBounds | None
    idempotency_sweeper: AnswerSweeper
    # Live streams.
    notifier: LocalNotifier
    stream_watcher: VersionWatcher
    streams: StreamLimits
    stream_tokens: StreamTokens
    # The solver and its background work.
    knowledge: SolverKnowledge
    work: WorkPool
    solver: SolverService
    daily: DailyDeals
    solvable: SolvableDeals
    analyses: GameAnalyses


async def _notifier(
    stack: AsyncExitStack, settings: Settings, database: Database
) -> tuple[LocalNotifier, VersionWatcher]:
    """Live streams are told of every committed write of a game through the sessions; on
    PostgreSQL, through LISTEN/NOTIFY to every instance. The versions of the games
    streamed here are read in one query every `stream_poll_seconds` (other processes'
    changes), on PostgreSQL only as a resync, every `stream_resync_seconds`."""
    notifier: LocalNotifier
    if database.is_sqlite:
        notifier = LocalNotifier()
        period = settings.stream_poll_seconds
    else:
        postgres = PostgresNotifier(connect_arguments(database.engine))
        await postgres.start()
        stack.push_async_callback(postgres.close)
        notifier, period = postgres, settings.stream_resync_seconds
    watcher = VersionWatcher(database.sessionmaker, notifier, period)
    stack.push_async_callback(watcher.close)
    database.sessionmaker.configure(info={NOTIFIER: notifier})
    return notifier, watcher


@asynccontextmanager
async def running_services(settings: Settings, metrics: Metrics) -> AsyncIterator[Services]:
    """The app's services, started; stopped in reverse order when the block ends."""
    async with AsyncExitStack() as stack:
        secret = settings.resolved_secret_key()
        database = Database(settings.resolved_database_url, settings)
        stack.push_async_callback(database.dispose)
        if settings.migrate_on_start:
            await upgrade_to_head(database.engine)
        notifier, watcher = await _notifier(stack, settings, database)
        # What the solver knows: in the database, shared by every instance.
        knowledge = SolverKnowledge(
            database.sessionmaker,
            max_positions=settings.solver_knowledge_max_positions,
            max_lost=settings.solver_knowledge_max_lost,
        )
        # One pool for all CPU work: players' hints and finish first, then the background
        # jobs' units in order of who waits for them (services.background.cpu_pool).
        work = WorkPool(settings, observer=metrics)
        stack.callback(work.close)
        # Long request work (a record's replay, thousands of log rows) off the event loop.
        LANE.configure(settings.lane_workers, settings.lane_queue, settings.lane_kind)
        stack.callback(LANE.close)
        # The daily deals, solvable pools and analyses: jobs of the one queue, worked here
        # unless BACKGROUND_WORK is off (then by `python -m app.worker`).
        background = build_background(settings, database.sessionmaker, secret, work, knowledge)
        await background.start()
        stack.push_async_callback(background.close)
        # Expired stored answers: deleted once now, then every IDEMPOTENCY_SWEEP_SECONDS.
        sweeper = AnswerSweeper(
            database.sessionmaker,
            timedelta(hours=settings.idempotency_ttl_hours),
            settings.idempotency_sweep_seconds,
        )
        await sweeper.sweep()
        sweeper.start()
        stack.push_async_callback(sweeper.close)
        yield Services(
            settings=settings,
            metrics=metrics,
            database=database,
            secret_key=secret,
            cursors=PageCursors(secret),
            auth_limiter=FailedAuthLimiter(settings.auth_failures_per_minute),
            known_tokens=KnownTokens(),
            player_creations=PlayerCreations(settings.players_per_address_per_hour),
            trusted_keys=TrustedKeys(settings.trusted_client_key_list),
            player_bounds=PlayerBounds.of(settings),
            idempotency_sweeper=sweeper,
            notifier=notifier,
            stream_watcher=watcher,
            streams=StreamLimits(settings.stream_max_per_player, settings.stream_max_per_instance),
            stream_tokens=StreamTokens(secret, settings.stream_token_seconds),
            knowledge=knowledge,
            work=work,
            solver=SolverService(settings, work, knowledge),
            daily=background.daily,
            solvable=background.solvable,
            analyses=background.analyses,
        )
