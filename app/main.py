"""The FastAPI app: `uvicorn app.main:app`."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from starlette.types import ASGIApp

from app import i18n
from app.config import Settings, get_settings
from app.db import masked_url
from app.deps import request_language
from app.document import install_openapi
from app.errors import install_error_handlers
from app.logs import REQUEST_ID_HEADER, RequestContextMiddleware
from app.metrics import Metrics, MetricsMiddleware
from app.middleware import (
    BodyLimitMiddleware,
    EnvelopeCORSMiddleware,
    LanguageMiddleware,
    NegotiatedGZipMiddleware,
)
from app.routers import daily, games, health, metrics, players, solver, stats, streams, variants
from app.routers.play import mount_play
from app.services.wiring import running_services

log = logging.getLogger(__name__)

API_PREFIX = "/api/v1"

DESCRIPTION = """\
Patience games (Rank and File, Rows of Four, Rainbow and relatives) over HTTP.

Register with `POST /api/v1/players`, then send `Authorization: Bearer <token>`.
Every error answers `{"error": {"code": "...", "message": "..."}}`.
Face-down cards and the stock order never appear in any answer.
"""


def _operation_id(route: APIRoute) -> str:
    # Stable ids for generated clients: the route's name, never the path.
    return route.name


def _log_start(settings: Settings) -> None:
    log.info("database: %s", masked_url(settings.resolved_database_url))
    if not settings.background_work:
        log.info(
            "background work: off (BACKGROUND_WORK=false): daily deals, solvable pools and "
            "analyses are queued here and worked by `python -m app.worker`"
        )
        return
    log.info(
        "background work: here, in %d low-priority worker%s (%s positions or %g s per "
        "candidate); daily deals %s, solvable pools %s",
        settings.daily_workers,
        "" if settings.daily_workers == 1 else "s",
        f"{settings.daily_max_positions:,}",
        settings.daily_max_seconds,
        f"prepared {settings.daily_days_ahead} day(s) ahead"
        if settings.daily_prepare_ahead
        else "on first request",
        f"of {settings.solvable_pool_size} deals per game and rating"
        if settings.solvable_prepare_ahead
        else "proven on request",
    )


def _outermost(app: FastAPI) -> None:
    """Wrap the whole middleware stack, Starlette's ServerErrorMiddleware included, in
    `RequestContextMiddleware`: so a crash's 500 carries `X-Request-ID` and an access
    line too (middleware added with `add_middleware` sits inside ServerErrorMiddleware),
    and in `LanguageMiddleware`: every answer, a crash's 500 and the body limit's
    refusals included, is written in the request's language and says which."""
    build = app.build_middleware_stack

    def build_middleware_stack() -> ASGIApp:
        return RequestContextMiddleware(LanguageMiddleware(build(), prefix=API_PREFIX + "/"))

    app.build_middleware_stack = build_middleware_stack  # type: ignore[method-assign]


# The version of the API contract (`info.version`), not of the package.
API_VERSION = "3.1.0"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    # The message catalogues, read once: a broken one stops the start, not a request.
    i18n.load_all()

    # This app's own registry (never the process-wide one): GET /metrics.
    app_metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        _log_start(settings)
        settings.ensure_data_dir()
        # Every service, built in order and stopped in reverse (app.services.wiring); the
        # routers get them through the typed dependencies of app.deps.
        async with running_services(settings, app_metrics) as services:
            app.state.services = services
            app_metrics.watch(services)
            if settings.gc_freeze:
                gc.collect()
                gc.freeze()
            try:
                yield
            finally:
                app_metrics.watch(None)

    app = FastAPIOffline(
        title="Solitaire service",
        # Semantic versioning; docs/api-changes.md says what each version changed and when
        # the major moves (its newest entry is this version: a test checks).
        version=API_VERSION,
        description=DESCRIPTION,
        # Relative: the document is served by the server it describes.
        servers=[{"url": "/", "description": "The server this document is served from"}],
        license_info={
            "name": "Proprietary: all rights reserved",
            "identifier": "LicenseRef-Proprietary",
        },
        lifespan=lifespan,
        generate_unique_id_function=_operation_id,
        # A path with a trailing slash it has no route for is 404, like any unknown path:
        # Starlette's redirect to the path without it wrote the request's Host into an
        # absolute Location (any host a client sent), and is declared by no operation.
        redirect_slashes=False,
    )
    install_error_handlers(app)
    app.add_middleware(
        EnvelopeCORSMiddleware,
        allow_origins=settings.cors_origin_list,
        allow_methods=["GET", "POST", "PATCH", "OPTIONS"],
        allow_headers=[
            "Authorization",
            "Content-Type",
            "Idempotency-Key",
            "If-None-Match",
            "Accept-Language",
            REQUEST_ID_HEADER,
        ],
        expose_headers=[
            "ETag",
            "Retry-After",
            "Location",
            "Idempotent-Replayed",
            REQUEST_ID_HEADER,
        ],
    )
    # Outermost of ours: a body is bounded before anything else looks at the request.
    app.add_middleware(
        BodyLimitMiddleware,
        max_bytes=settings.max_body_bytes,
        timeout=settings.body_timeout_seconds,
    )
    # Every request counted and timed, its refusals by the body limit too; inside gzip's,
    # which copies the scope (the route the router puts there is read from it).
    app.add_middleware(MetricsMiddleware, metrics=app_metrics)
    # Compress answers of GZIP_MINIMUM_BYTES or more for a client that accepts gzip
    # (outside the body limit, so its refusals too; ETags are left as they are).
    app.add_middleware(NegotiatedGZipMiddleware, minimum_size=settings.gzip_minimum_bytes)
    for router in (
        players.router,
        variants.router,
        games.router,
        streams.router,
        solver.router,
        daily.router,
        stats.router,
        health.router,
    ):
        # Every operation documents Accept-Language (negotiated by LanguageMiddleware).
        app.include_router(router, prefix=API_PREFIX, dependencies=[Depends(request_language)])
    # Also outside the prefix, for load balancers; not in the schema twice.
    app.add_api_route("/health", health.health, include_in_schema=False, name="health_root")
    # For operators' Prometheus, outside the prefix and the document (app.routers.metrics).
    app.include_router(metrics.router)
    # The reference web client, on the same origin as the API it calls.
    mount_play(app)
    install_openapi(app)
    _outermost(app)
    return app


app = create_app()
