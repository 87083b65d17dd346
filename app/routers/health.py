from __future__ import annotations

from fastapi import APIRouter, Response
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.db import WRITES
from app.deps import SessionDep
from app.schemas import Health

router = APIRouter(tags=["health"])


@router.get(
    "/health",
    name="health",
    response_model=Health,
    responses={
        503: {
            "model": Health,
            "description": "The database is unreachable, or too busy to take writes.",
        }
    },
    summary="Liveness and database reachability",
)
async def health(session: SessionDep, response: Response) -> Health:
    try:
        await session.execute(text("SELECT 1"))
    except (SQLAlchemyError, OSError):
        response.status_code = 503
        return Health(status="degraded", database="unreachable")
    if WRITES.failing:
        response.status_code = 503
        return Health(status="degraded", database="busy")
    return Health(status="ok", database="ok")
