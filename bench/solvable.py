"""Solvable pools: how long filling them takes, and what a solvable POST /games costs.

Starts the app in process (ASGI, a throw-away SQLite file, a fresh secret) with the
background preparation on and the default budgets (DAILY_MAX_POSITIONS,
DAILY_MAX_SECONDS, DAILY_WORKERS processes), and notes when each variant's pool
first holds SOLVABLE_POOL_SIZE unused proven deals. Then it times `--games`
solvable `POST /api/v1/games` one after another (the background tops the pool up
meanwhile) against as many random ones, and prints the medians.

    .venv/bin/python bench/solvable.py [--pool 5] [--games 20] [--variant rank-and-file]

The daily deals are not prepared (DAILY_PREPARE_AHEAD off): only the pools use the
worker. Bounded: stops after `--limit` seconds of filling.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from asgi_lifespan import LifespanManager
from fastapi import FastAPI
from sqlalchemy import case, func, select

from app.config import Settings
from app.engine import VARIANTS
from app.main import create_app
from app.models import SolvableDeal

API = "/api/v1"


async def unused_per_variant(app: FastAPI) -> dict[str, int]:
    unused = func.sum(case((SolvableDeal.dealt_at.is_(None), 1), else_=0))
    query = select(SolvableDeal.variant, unused).group_by(SolvableDeal.variant)
    async with app.state.services.database.sessionmaker() as session:
        return {v: int(n) for v, n in (await session.execute(query)).all()}


async def timed_posts(client: httpx.AsyncClient, body: dict[str, object], n: int) -> list[float]:
    took = []
    for _ in range(n):
        started = time.perf_counter()
        response = await client.post(f"{API}/games", json=body)
        took.append(time.perf_counter() - started)
        assert response.status_code == 201, response.text
    return took


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            database_url=f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}",
            data_dir=Path(tmp),
            secret_key=secrets.token_urlsafe(32),
            daily_prepare_ahead=False,
            solvable_prepare_ahead=True,
            solvable_pool_size=args.pool,
        )
        app = create_app(settings)
        async with LifespanManager(app):
            started = time.perf_counter()
            full: dict[str, float] = {}
            while len(full) < len(VARIANTS):
                if time.perf_counter() - started > args.limit:
                    raise SystemExit(f"not filled in {args.limit} s: {sorted(full)}")
                for variant, unused in (await unused_per_variant(app)).items():
                    if unused >= args.pool and variant not in full:
                        full[variant] = time.perf_counter() - started
                        print(f"{variant}: {args.pool} deals ready after {full[variant]:.1f} s")
                await asyncio.sleep(0.5)
            print(f"all {len(VARIANTS)} variants: {max(full.values()):.1f} s")
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                token = (await client.post(f"{API}/players", json={})).json()["token"]
                client.headers["Authorization"] = f"Bearer {token}"
                # More games than the pool holds: wait for the background to top it up.
                solvable: list[float] = []
                while len(solvable) < args.games:
                    if (await unused_per_variant(app)).get(args.variant, 0) == 0:
                        await asyncio.sleep(0.2)
                        continue
                    body = {"variant": args.variant, "solvable": True}
                    solvable += await timed_posts(client, body, 1)
                randoms = await timed_posts(client, {"variant": args.variant}, args.games)
    print(
        f"POST /games {args.variant}, {args.games} each: solvable median "
        f"{statistics.median(solvable) * 1000:.1f} ms (max {max(solvable) * 1000:.1f}), "
        f"random median {statistics.median(randoms) * 1000:.1f} ms "
        f"(max {max(randoms) * 1000:.1f})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pool", type=int, default=5)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--variant", default="rank-and-file")
    parser.add_argument("--limit", type=float, default=1800)
    asyncio.run(main(parser.parse_args()))
