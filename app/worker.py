"""`python -m app.worker`: the background jobs without HTTP (docs/deploy.md, "Web
instances and workers").

It works the one job queue (`services.background.jobs`) on the service's database: proves and
rates the daily deals (and queues today's and the days ahead), fills the solvable pools,
runs the analyses, in its own pool of low-priority processes (`DAILY_WORKERS`). Web
instances beside it run with `BACKGROUND_WORK=false`: they queue jobs and serve players'
searches only. Any number of workers may run on one PostgreSQL; each job is taken by
one, and a job of a worker killed mid-way is taken again once its lease runs out
(`JOB_LEASE_SECONDS`). SIGTERM or SIGINT stops it: running jobs are given back at once.

It needs the same `SECRET_KEY` as the web instances (the daily and solvable deals are
derived from it) and the same `DATABASE_URL`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import logging.config
import signal
from collections.abc import Sequence
from contextlib import AsyncExitStack

from app.config import Settings, get_settings
from app.db import Database, masked_url, upgrade_to_head
from app.logs import log_config
from app.services.background.build import build
from app.services.background.cpu_pool import WorkPool
from app.services.background.knowledge import SolverKnowledge

log = logging.getLogger("app.worker")


async def run(settings: Settings, stop: asyncio.Event) -> None:
    """Work the queue until `stop` is set."""
    settings = settings.model_copy(update={"background_work": True})
    settings.ensure_data_dir()
    # Stopped in reverse order by construction: the jobs given back, the pool, the database.
    async with AsyncExitStack() as stack:
        database = Database(settings.resolved_database_url, settings)
        stack.push_async_callback(database.dispose)
        if settings.migrate_on_start:
            await upgrade_to_head(database.engine)
        knowledge = SolverKnowledge(
            database.sessionmaker,
            max_positions=settings.solver_knowledge_max_positions,
            max_lost=settings.solver_knowledge_max_lost,
        )
        work = WorkPool(settings)
        stack.callback(work.close)
        background = build(
            settings, database.sessionmaker, settings.resolved_secret_key(), work, knowledge
        )
        stack.push_async_callback(background.close)
        await background.start()
        log.info(
            "worker: taking jobs from %s (%d background worker%s)",
            masked_url(settings.resolved_database_url),
            settings.daily_workers,
            "" if settings.daily_workers == 1 else "s",
        )
        await stop.wait()
        log.info("worker: stopping; running jobs are given back to the queue")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m app.worker", description="Run the background jobs, without HTTP."
    )
    parser.parse_args(argv)
    settings = get_settings()
    logging.config.dictConfig(log_config(settings.log_format, settings.log_level))

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run(settings, stop)

    asyncio.run(serve())


if __name__ == "__main__":
    main()
