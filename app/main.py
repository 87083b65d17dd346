"""The FastAPI app: `uvicorn app.main:app`."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from sqlalchemy.engine import make_url
from starlette.types import ASGIApp

from app.config import Settings, get_settings
from app.db import Database, upgrade_to_head
from app.engine import VARIANTS
from app.errors import install_error_handlers
from app.logs import REQUEST_ID_HEADER, RequestContextMiddleware
from app.middleware import BodyLimitMiddleware, EnvelopeCORSMiddleware, NegotiatedGZipMiddleware
from app.routers import daily, games, health, players, solver, stats, variants
from app.services.daily import DailyDeals
from app.services.games import prune_idempotency_keys
from app.services.proving import BackgroundProver
from app.services.ratelimit import FailedAuthLimiter
from app.services.solvable import SolvableDeals
from app.solver.plan import describe_core

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


def _install_openapi(app: FastAPI) -> None:
    """Document the error envelope where FastAPI would show its own validation shape,
    and the 500 answer on every operation."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        document = build()
        error_ref = {"$ref": "#/components/schemas/ErrorResponse"}
        for path in document.get("paths", {}).values():
            for operation in path.values():
                responses = operation.setdefault("responses", {})
                if "422" in responses:
                    responses["422"] = {
                        "description": "Refused: `validation_error` or a stable code "
                        "(see the operation).",
                        "content": {"application/json": {"schema": error_ref}},
                    }
                responses["500"] = {
                    "description": "`internal_error` (no details are shown).",
                    "content": {"application/json": {"schema": error_ref}},
                }
        schemas = document.get("components", {}).get("schemas", {})
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]


def masked_url(url: str) -> str:
    """A database URL fit for a log: any password shown as ***."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy reads: say nothing of what it holds
        return "<unreadable database URL>"


def _log_start(settings: Settings) -> None:
    log.info("database: %s", masked_url(settings.resolved_database_url))
    if settings.daily_prepare_ahead:
        log.info(
            "daily deals: preparing today's and tomorrow's (UTC) for %d variants in the "
            "background, again after each UTC midnight (%d worker%s, %s positions or %g s "
            "per candidate)",
            len(VARIANTS),
            settings.daily_workers,
            "" if settings.daily_workers == 1 else "s",
            f"{settings.daily_max_positions:,}",
            settings.daily_max_seconds,
        )
    else:
        log.info("daily deals: not prepared ahead (DAILY_PREPARE_AHEAD=false): on first request")
    if settings.solvable_prepare_ahead:
        log.info(
            "solvable deals: keeping %d proven deals ready per variant in the background",
            settings.solvable_pool_size,
        )
    else:
        log.info("solvable deals: not prepared (SOLVABLE_PREPARE_AHEAD=false)")


def _outermost(app: FastAPI) -> None:
    """Wrap the whole middleware stack, Starlette's ServerErrorMiddleware included, in
    `RequestContextMiddleware`: so a crash's 500 carries `X-Request-ID` and an access
    line too (middleware added with `add_middleware` sits inside ServerErrorMiddleware)."""
    build = app.build_middleware_stack

    def build_middleware_stack() -> ASGIApp:
        return RequestContextMiddleware(build())

    app.build_middleware_stack = build_middleware_stack  # type: ignore[method-assign]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # SOLVER_CORE=native without the core built: refuse to start, saying why.
        log.info("solver core: %s", describe_core(settings.solver_core))
        _log_start(settings)
        settings.ensure_data_dir()
        app.state.secret_key = settings.resolved_secret_key()
        database = Database(settings.resolved_database_url, settings)
        await upgrade_to_head(database.engine)
        async with database.sessionmaker() as session:
            await prune_idempotency_keys(session, timedelta(hours=settings.idempotency_ttl_hours))
        app.state.db = database
        # Daily deals and the solvable pools: proven in the background (off in tests),
        # by one pool of low-priority workers, daily deals first.
        prover = BackgroundProver(settings)
        secret = app.state.secret_key
        app.state.daily = DailyDeals(settings, database.sessionmaker, secret, prover)
        app.state.solvable = SolvableDeals(settings, database.sessionmaker, secret, prover)
        app.state.daily.start()
        app.state.solvable.start()
        try:
            yield
        finally:
            await app.state.daily.close()
            await app.state.solvable.close()
            prover.close()
            if getattr(app.state, "solver", None) is not None:
                app.state.solver.close()
            await database.dispose()

    app = FastAPIOffline(
        title="Solitaire service",
        version="1.0.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        generate_unique_id_function=_operation_id,
    )
    app.state.settings = settings
    app.state.auth_limiter = FailedAuthLimiter(settings.auth_failures_per_minute)
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
    # Compress answers of GZIP_MINIMUM_BYTES or more for a client that accepts gzip
    # (outside the body limit, so its refusals too; ETags are left as they are).
    app.add_middleware(NegotiatedGZipMiddleware, minimum_size=settings.gzip_minimum_bytes)
    for router in (
        players.router,
        variants.router,
        games.router,
        solver.router,
        daily.router,
        stats.router,
        health.router,
    ):
        app.include_router(router, prefix=API_PREFIX)
    # Also outside the prefix, for load balancers; not in the schema twice.
    app.add_api_route("/health", health.health, include_in_schema=False, name="health_root")
    _install_openapi(app)
    _outermost(app)
    return app


app = create_app()
