"""The background work of one process, built alike by the web app's lifespan
(`app.main`) and by the worker tier (`app.worker`): the daily deals, the solvable
pools and the analyses, and, where the process works the queue (`BACKGROUND_WORK`), the
runner that takes their jobs (`services.background.job_runner`) and the preparations ahead of time.

A process without a runner (a web instance beside workers) still queues jobs (a
request for a deal not ready, an analysis asked for) and waits for their results in the
database: a worker takes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.services.analysis.service import GameAnalyses
from app.services.background.cpu_pool import WorkPool
from app.services.background.job_runner import JobRunner
from app.services.background.jobs import new_owner
from app.services.background.knowledge import SolverKnowledge
from app.services.background.solvable_pools import SolvableDeals
from app.services.daily.deals import DailyDeals


@dataclass
class Background:
    daily: DailyDeals
    solvable: SolvableDeals
    analyses: GameAnalyses
    runner: JobRunner | None

    async def start(self) -> None:
        """Take jobs, and queue the work prepared ahead of time (where this process works
        the queue)."""
        if self.runner is None:
            return
        self.runner.start()
        self.daily.start()
        if self.daily.settings.solvable_prepare_ahead:
            await self.solvable.prepare()

    async def close(self) -> None:
        """Stop preparing; running jobs are given back to the queue."""
        await self.daily.close()
        if self.runner is not None:
            await self.runner.close()


def build(
    settings: Settings,
    sessionmaker: async_sessionmaker[AsyncSession],
    secret: str,
    work: WorkPool,
    knowledge: SolverKnowledge,
) -> Background:
    runner = None
    if settings.background_work:
        runner = JobRunner(
            sessionmaker,
            new_owner(),
            {},
            lease_seconds=settings.job_lease_seconds,
            poll_seconds=settings.job_poll_seconds,
            speculative_slots=max(1, settings.daily_workers),
        )

    def queued(kind: str, subject: str, priority: int) -> None:
        if runner is not None:
            runner.raised(kind, subject, priority)
            runner.wake()

    daily = DailyDeals(settings, sessionmaker, secret, work, queued)
    solvable = SolvableDeals(settings, sessionmaker, secret, work, queued)
    analyses = GameAnalyses(settings, sessionmaker, work, knowledge, queued)
    if runner is not None:
        runner.handlers.update(
            {"daily": daily.run_job, "solvable": solvable.run_job, "analysis": analyses.run_job}
        )
    return Background(daily, solvable, analyses, runner)
