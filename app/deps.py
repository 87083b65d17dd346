"""Annotated dependencies shared by the routers.

Every service comes from the one `Services` value the lifespan built
(`app.state.services`, app.services.wiring), each part as its own typed dependency.
Those that only read it are `async def`: FastAPI runs a plain `def` dependency in a
worker thread, a hop to the thread pool and back on every request for nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db import Database
from app.errors import Unauthorized, ValidationFailed
from app.i18n import N_, current_language
from app.metrics import Metrics
from app.models import Player
from app.services.analysis.service import GameAnalyses
from app.services.background.solvable_pools import SolvableDeals
from app.services.daily.deals import DailyDeals
from app.services.kit.account_bounds import PlayerBounds, PlayerCreations, TrustedKeys
from app.services.kit.auth_failures import FailedAuthLimiter
from app.services.kit.page_cursors import PageCursors
from app.services.players import hash_token, player_for_hash
from app.services.solver import SolverService
from app.services.wiring import Services


async def get_services(request: Request) -> Services:
    """The app's services, built in its lifespan (app.services.wiring)."""
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_database(services: ServicesDep) -> Database:
    return services.database


async def get_app_settings(services: ServicesDep) -> Settings:
    return services.settings


async def get_session(
    database: Annotated[Database, Depends(get_database)],
) -> AsyncIterator[AsyncSession]:
    async with database.sessionmaker() as session:
        yield session


# scope="function": the session (and its pooled connection) is closed before the
# response is sent, not after, so nothing of a request outlives its answer.
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]


async def get_page_cursors(services: ServicesDep) -> PageCursors:
    return services.cursors


# The sealed page cursors of every list paged by key (games, the move log, the results).
PageCursorsDep = Annotated[PageCursors, Depends(get_page_cursors)]

_bearer = HTTPBearer(auto_error=False, description="The token from POST /api/v1/players.")


async def get_auth_limiter(services: ServicesDep) -> FailedAuthLimiter:
    return services.auth_limiter


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


# --- bounds a free account cannot multiply (services.kit.account_bounds) ---------------


async def get_player_creations(services: ServicesDep) -> PlayerCreations:
    return services.player_creations


async def get_trusted_keys(services: ServicesDep) -> TrustedKeys:
    return services.trusted_keys


async def get_player_bounds(services: ServicesDep) -> PlayerBounds | None:
    return services.player_bounds


PlayerCreationsDep = Annotated[PlayerCreations, Depends(get_player_creations)]
TrustedKeysDep = Annotated[TrustedKeys, Depends(get_trusted_keys)]
PlayerBoundsDep = Annotated[PlayerBounds | None, Depends(get_player_bounds)]


# --- the solver, its background work, the live streams, the metrics -------------------


async def get_solver(services: ServicesDep) -> SolverService:
    return services.solver


async def get_daily_deals(services: ServicesDep) -> DailyDeals:
    return services.daily


async def get_solvable_deals(services: ServicesDep) -> SolvableDeals:
    return services.solvable


async def get_analyses(services: ServicesDep) -> GameAnalyses:
    return services.analyses


async def get_metrics(services: ServicesDep) -> Metrics:
    return services.metrics


SolverDep = Annotated[SolverService, Depends(get_solver)]
DailyDealsDep = Annotated[DailyDeals, Depends(get_daily_deals)]
SolvableDealsDep = Annotated[SolvableDeals, Depends(get_solvable_deals)]
AnalysesDep = Annotated[GameAnalyses, Depends(get_analyses)]
MetricsDep = Annotated[Metrics, Depends(get_metrics)]


async def get_current_player(
    request: Request,
    services: ServicesDep,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    limiter: Annotated[FailedAuthLimiter, Depends(get_auth_limiter)],
) -> Player:
    if credentials is None or not credentials.credentials:
        raise Unauthorized()
    known = services.known_tokens
    token_hash = hash_token(credentials.credentials)

    async def look_up() -> Player | None:
        return await player_for_hash(session, token_hash, known)

    # Looked up before anything is counted: a right token is answered whatever its
    # address's count (services.kit.auth_failures says what a guesser learns from that).
    player = await (known.find(token_hash, look_up) if known is not None else look_up())
    if player is None:
        await limiter.failed(session, client_address(request))  # 429 past the limit
        raise Unauthorized()
    return player


async def get_optional_player(
    request: Request,
    services: ServicesDep,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    limiter: Annotated[FailedAuthLimiter, Depends(get_auth_limiter)],
) -> Player | None:
    """The caller when a token is sent (a wrong one is still 401); None without one."""
    if credentials is None:
        return None
    return await get_current_player(request, services, session, credentials, limiter)


AuthLimiterDep = Annotated[FailedAuthLimiter, Depends(get_auth_limiter)]
CurrentPlayer = Annotated[Player, Depends(get_current_player)]
OptionalPlayer = Annotated[Player | None, Depends(get_optional_player)]


async def refuse_null_body(request: Request) -> None:
    """For operations whose body is optional: the document says "the model, or no body"
    (app.main), so a JSON `null` is refused as any other body not of the schema (FastAPI
    alone would read it as "no body"). Starlette keeps the body read, for the route."""
    if (await request.body()).strip() == b"null":
        raise ValidationFailed(
            N_("the body must be a JSON object, or left out"), field="body", fault="null_body"
        )


NoNullBody = Depends(refuse_null_body)


async def request_language(
    accept_language: Annotated[
        str | None,
        Header(
            alias="Accept-Language",
            description="The language of the texts of the answer (variant names, the rules "
            "in words, error messages): `en`, `de`, `ru` or `fr`, with q-values "
            "(`fr-CH, fr;q=0.9, en;q=0.5`); anything else, or none, is English. The answer "
            "says which in `Content-Language`. Codes and ids never change.",
        ),
    ] = None,
) -> str:
    """The language the request is answered in: negotiated once from `Accept-Language`
    by `LanguageMiddleware` (app.middleware); declared here so that the API document
    shows the header on every operation."""
    return current_language()


LanguageDep = Annotated[str, Depends(request_language)]
