"""The app's Prometheus metrics, served at `GET /metrics` (app.routers.metrics).

Each app has its own `CollectorRegistry` (`Metrics.registry`), never the
process-wide default one, so that several apps in one process (the tests) keep apart.
docs/api.md ("Metrics") lists every metric with its labels.

- Requests: `MetricsMiddleware` counts every HTTP request and times it, labelled by
  method, route and status. The route is the matched route's template
  (`/api/v1/games/{game_id}/moves`), never the path as sent: an id never becomes a
  label; a path no route matches is `unmatched`. A live stream (`text/event-stream`)
  is counted and timed when its head is sent, so its time is how long it took to open,
  not its whole life (up to `STREAM_MAX_SECONDS`).
- The solver's pool: `Metrics` is the pool's `WorkObserver` (each work's wait for a
  worker and its run, by kind and outcome); what waits and runs now is read from the
  pool when scraped.
- The database's connection pool and the open streams: read when scraped.

Values read at scrape time come from a collector over the app's services (`Live`),
which reads nothing while they are not running (before the lifespan has run, after it
has ended).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from fastapi.routing import iter_route_contexts
from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy.pool import QueuePool
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.services.background.cpu_pool import KINDS, OUTCOMES, PLAYER, PRIORITIES, Snapshot
from app.services.background.jobs import KINDS as JOB_KINDS
from app.services.background.jobs import QueueSnapshot

if TYPE_CHECKING:
    from app.services.wiring import Services

PREFIX = "solitaire"
# The route label of a request no route matched (404s of any path, redirects).
UNMATCHED = "unmatched"
# The method label of any other method than these.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

# Seconds. Requests: most answer in milliseconds, a finish may search 20 s.
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# Waiting for a worker: none at all when one is free, a finish's budget behind a finish.
WAIT_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
# On a worker: a hint's 0.4 s, a proof's 2 s, a finish's 20 s (plus the replay).
RUN_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0)


class Metrics:
    """One app's registry and the instruments the app updates as things happen (the
    rest is read when scraped, `Live`). Also the solver pool's `WorkObserver`."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.live = Live(self)
        self.registry.register(self.live)
        # The job queue as last read (at each scrape: `GET /metrics` reads it first).
        self.queue: QueueSnapshot | None = None
        labels = ("method", "route", "status")
        self.requests = Counter(
            f"{PREFIX}_http_requests",
            "HTTP requests answered, by method, route template and status.",
            labels,
            registry=self.registry,
        )
        self.request_seconds = Histogram(
            f"{PREFIX}_http_request_duration_seconds",
            "Time to answer an HTTP request (a live stream: time to open it), by method, "
            "route template and status.",
            labels,
            buckets=REQUEST_BUCKETS,
            registry=self.registry,
        )
        self.solver_wait = Histogram(
            f"{PREFIX}_solver_wait_seconds",
            "Time a search or proof waited in line for a worker of the pool, by kind.",
            ("kind",),
            buckets=WAIT_BUCKETS,
            registry=self.registry,
        )
        self.solver_run = Histogram(
            f"{PREFIX}_solver_run_seconds",
            "Time a search or proof ran on its worker, by kind.",
            ("kind",),
            buckets=RUN_BUCKETS,
            registry=self.registry,
        )
        self.searches = Counter(
            f"{PREFIX}_solver_searches",
            "Searches and proofs run by the pool, by kind and result.",
            ("kind", "result"),
            registry=self.registry,
        )
        # Every kind and outcome from the start, at 0: a rate needs the series before
        # its first event.
        for kind in KINDS:
            self.solver_wait.labels(kind)
            self.solver_run.labels(kind)
            for outcome in OUTCOMES:
                self.searches.labels(kind, outcome)

    def watch(self, services: Services | None) -> None:
        """Read the pool, the database and the streams of `services` when scraped (None:
        they are not running)."""
        self.live.services = services

    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        method = method if method in _METHODS else "other"
        self.requests.labels(method, route, str(status)).inc()
        self.request_seconds.labels(method, route, str(status)).observe(seconds)

    # --- WorkObserver (app.services.background.cpu_pool)

    def waited(self, kind: str, seconds: float) -> None:
        self.solver_wait.labels(kind).observe(seconds)

    def ran(self, kind: str, outcome: str, seconds: float) -> None:
        self.searches.labels(kind, outcome).inc()
        self.solver_run.labels(kind).observe(seconds)


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(f"{PREFIX}_{name}", documentation, value=value)


class Live(Collector):
    """What is true now, read from the running services at each scrape."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.services: Services | None = None

    def collect(self) -> Iterable[Metric]:
        yield from self._solver()
        yield from self._database()
        yield from self._streams()

    def _solver(self) -> Iterator[Metric]:
        if self.services is None:
            return
        work = self.services.work
        now = work.snapshot()
        waiting = GaugeMetricFamily(
            f"{PREFIX}_solver_queue_depth",
            "Searches and proofs waiting for a worker now, by kind.",
            labels=("kind",),
        )
        for kind, count in now.waiting.items():
            waiting.add_metric((kind,), count)
        busy = GaugeMetricFamily(
            f"{PREFIX}_solver_workers_busy",
            "Workers of the pool running a search or proof now, by lane.",
            labels=("lane",),
        )
        size = GaugeMetricFamily(
            f"{PREFIX}_solver_workers",
            "Workers of the pool, by lane (player: hints and finish; hint: hints only; "
            "background: proofs, lent to searches when idle).",
            labels=("lane",),
        )
        for lane, count in now.busy.items():
            busy.add_metric((lane,), count)
            size.add_metric((lane,), now.workers[lane])
        yield from (waiting, busy, size)
        yield from self._queue(now)
        yield from self._pools()
        yield from self._jobs()

    def _jobs(self) -> Iterator[Metric]:
        queue = self.metrics.queue
        if queue is None:
            return
        labels = ("kind", "priority")
        queued = GaugeMetricFamily(
            f"{PREFIX}_jobs_queued",
            "Background jobs waiting in the queue (every instance's), by kind and priority.",
            labels=labels,
        )
        running = GaugeMetricFamily(
            f"{PREFIX}_jobs_running",
            "Background jobs a worker holds now (every instance's), by kind and priority.",
            labels=labels,
        )
        for kind in JOB_KINDS:
            for level, priority in PRIORITIES.items():
                if level == PLAYER:
                    continue
                queued.add_metric((kind, priority), queue.queued.get((kind, level), 0))
                running.add_metric((kind, priority), queue.running.get((kind, level), 0))
        oldest = GaugeMetricFamily(
            f"{PREFIX}_jobs_oldest_wait_seconds",
            "How long the longest-queued job of each priority has waited (0: none waits).",
            labels=("priority",),
        )
        for level, priority in PRIORITIES.items():
            if level != PLAYER:
                oldest.add_metric((priority,), round(queue.oldest.get(level, 0.0), 3))
        yield from (queued, running, oldest)

    def _queue(self, now: Snapshot) -> Iterator[Metric]:
        queued = GaugeMetricFamily(
            f"{PREFIX}_work_waiting",
            "Work waiting for a worker now, by kind and priority (player, analysis, daily, "
            'waiting, today, refill, ahead: docs/api.md, "Metrics").',
            labels=("kind", "priority"),
        )
        for kind in KINDS:
            for priority in PRIORITIES.values():
                queued.add_metric((kind, priority), now.queued.get((kind, priority), 0))
        running = GaugeMetricFamily(
            f"{PREFIX}_work_running",
            "Work on a worker now, by kind.",
            labels=("kind",),
        )
        for kind in KINDS:
            running.add_metric((kind,), now.running.get(kind, 0))
        oldest = GaugeMetricFamily(
            f"{PREFIX}_work_oldest_wait_seconds",
            "How long the longest-waiting work of each priority has waited for a worker "
            "(0: none waits).",
            labels=("priority",),
        )
        for priority in PRIORITIES.values():
            oldest.add_metric((priority,), round(now.oldest.get(priority, 0.0), 3))
        yield from (queued, running, oldest)

    def _pools(self) -> Iterator[Metric]:
        if self.services is None:
            return
        solvable = self.services.solvable
        pools = GaugeMetricFamily(
            f"{PREFIX}_solvable_pool_unused",
            "Proven deals ready to deal, by game and rating (unrated: proven for a waiting "
            "request and not rated yet), as this instance last counted them.",
            labels=("variant", "difficulty"),
        )
        for (variant, difficulty), count in sorted(solvable.levels().items()):
            pools.add_metric((variant, difficulty), count)
        yield pools

    def _database(self) -> Iterator[Metric]:
        pool = None if self.services is None else self.services.database.engine.pool
        # SQLAlchemy's queue pool (PostgreSQL, and a SQLite file); another pool
        # (SQLite in memory) has nothing to count.
        if not isinstance(pool, QueuePool):
            return
        yield _gauge("db_pool_size", "Connections the database pool keeps open.", pool.size())
        yield _gauge(
            "db_pool_checked_out",
            "Database connections in use now (requests, streams' reads, background work).",
            pool.checkedout(),
        )
        yield _gauge("db_pool_idle", "Open database connections not in use now.", pool.checkedin())
        yield _gauge(
            "db_pool_overflow",
            "Database connections open now beyond the pool's size.",
            max(0, pool.overflow()),
        )

    def _streams(self) -> Iterator[Metric]:
        if self.services is None:
            return
        streams = self.services.streams
        yield _gauge("streams_open", "Live streams of games open now.", streams.open)
        yield _gauge(
            "streams_max", "Live streams this process opens at most.", streams.per_instance
        )


class RouteLabels:
    """The template of each route of an app, as its document writes it
    (`/api/v1/games/{game_id}`): the label of the requests it answers."""

    def __init__(self, routes: Iterable[Any]) -> None:
        # Included routers' routes, each with its full template (the prefix included).
        self._routes = list(iter_route_contexts(list(routes)))
        self._templates = {
            id(getattr(route, "original_route", route)): str(route.path_format)
            for route in self._routes
        }

    def label(self, scope: Scope, before: Scope) -> str:
        """The template of the route that answered, or, when something answered before
        routing (a body over the limit), of the route the request was for (`before`:
        the scope as it came in); `unmatched` when no route matches."""
        answered = scope.get("route")
        if answered is not None:
            # A route added since the table was made: its own template.
            return self._templates.get(id(answered)) or str(
                getattr(answered, "path_format", UNMATCHED)
            )
        partial = UNMATCHED
        for route in self._routes:
            match, _child = route.matches(before)
            if match is Match.FULL:
                return str(route.path_format)
            if match is Match.PARTIAL and partial == UNMATCHED:
                partial = str(route.path_format)  # the path, another method (405)
        return partial


def _is_stream(message: Message) -> bool:
    for name, value in message.get("headers", []):
        if name.lower() == b"content-type":
            return bytes(value).startswith(b"text/event-stream")
    return False


class MetricsMiddleware:
    """Counts and times every HTTP request by method, route template and status (the
    module docstring says how a stream is timed). Inside any middleware that copies the
    scope (gzip's), so that it sees the route the router put there; a request that
    never got an answer is 499 when its client left, else 500, as in the access log."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics
        self._labels: RouteLabels | None = None  # on the first request: every route is there

    def _route(self, scope: Scope, before: Scope) -> str:
        if self._labels is None:
            self._labels = RouteLabels(scope["app"].routes)
        return self._labels.label(scope, before)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        before = dict(scope)
        started = time.perf_counter()
        status: int | None = None
        recorded = disconnected = False

        def record(answered: int) -> None:
            nonlocal recorded
            recorded = True
            seconds = time.perf_counter() - started
            self.metrics.request(scope["method"], self._route(scope, before), answered, seconds)

        async def receive_watched() -> Message:
            nonlocal disconnected
            message = await receive()
            disconnected = disconnected or message["type"] == "http.disconnect"
            return message

        async def send_watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                if _is_stream(message):
                    record(message["status"])  # opened: its life is not its latency
            await send(message)

        try:
            await self.app(scope, receive_watched, send_watched)
        finally:
            if not recorded:
                record(status if status is not None else 499 if disconnected else 500)
