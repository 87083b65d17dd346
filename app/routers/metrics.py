"""`GET /metrics`: the app's metrics in the Prometheus text format (app.metrics), for
operators, outside the public API (its prefix and its document).

With `METRICS_TOKEN` set, only with `Authorization: Bearer <that token>` (compared in
constant time); else 401 `unauthorized` in the error envelope."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy.exc import SQLAlchemyError

from app.config import Settings
from app.deps import MetricsDep, SessionDep, get_app_settings
from app.errors import Unauthorized
from app.i18n import N_
from app.services.background import jobs

router = APIRouter(tags=["metrics"])


async def metrics_access(
    request: Request, settings: Annotated[Settings, Depends(get_app_settings)]
) -> None:
    if settings.metrics_token is None:
        return
    expected = settings.metrics_token.get_secret_value().encode()
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    # Both compared whatever the scheme: the time taken tells nothing of the token.
    right = hmac.compare_digest(given.strip().encode(), expected)
    if not (right and scheme.lower() == "bearer"):
        raise Unauthorized(
            N_("GET /metrics needs the metrics token (METRICS_TOKEN) as a bearer token")
        )


@router.get(
    "/metrics", name="metrics", include_in_schema=False, dependencies=[Depends(metrics_access)]
)
async def get_metrics(session: SessionDep, metrics: MetricsDep) -> Response:
    # The job queue is in the database, shared by every instance: read as scraped (with
    # the database away, its series are left out and the rest is still answered).
    try:
        metrics.queue = await jobs.snapshot(session)
    except SQLAlchemyError:
        metrics.queue = None
    return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)
