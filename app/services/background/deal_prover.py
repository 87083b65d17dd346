"""What the two kinds of proven deals (the daily deals, the solvable pools) share: the
settings, the database, the secret their deal numbers are derived from, the pool that
proves them, and who is told of each job queued."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.services.background import jobs
from app.services.background.cpu_pool import WorkPool
from app.services.background.jobs import Queued


class DealProver:
    """The base of `DailyDeals` and `SolvableDeals`: one per running app."""

    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        secret: str,
        prover: WorkPool,
        queued: Queued | None = None,
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.secret = secret
        self.prover = prover
        # Told of each job queued here (this process's runner, when it has one).
        self.queued: Queued = queued or jobs.unheard
        self._own_state()

    def _own_state(self) -> None:
        """A subclass's own state, set up as it is built."""
