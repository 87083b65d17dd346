"""The bounds on free accounts (services.kit.account_bounds) against the shapes of abuse they are
for, and what they cost an honest request.

Starts the app in process (ASGI, one client address) on a throw-away SQLite file, or
on `--database-url` (PostgreSQL: its tables are emptied first), with the default bounds
and no background work, then:

1. registers players from one address until refused: how many got through;
2. one player sends `--burst` `POST /games` at once: how many were dealt (the bound is
   `GAMES_PER_PLAYER_PER_HOUR`), and the refusals' codes;
3. one player with `--analyses` resigned games asks for every analysis at once: how
   many were queued (the bound is `ANALYSES_PER_PLAYER`);
4. the cost: the median and p90 of `--deals` `POST /games` (deal by number) one after
   another, by fresh players within the bound, with the bounds checked and with them
   off (`app.state.services.player_bounds = None`), alternating in rounds of 10.

    PYTHONPATH=. .venv/bin/python bench/bounds.py [--burst 200] [--analyses 40] [--deals 300]
        [--database-url postgresql+asyncpg://...]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
from asgi_lifespan import LifespanManager

from app.config import Settings
from app.db import is_sqlite
from app.main import create_app
from app.services.kit.account_bounds import PlayerCreations
from tests.api.conftest import empty_tables

API = "/api/v1"


async def register(client: httpx.AsyncClient) -> httpx.Response:
    return await client.post(f"{API}/players", json={})


def codes(answers: list[httpx.Response]) -> dict[str, int]:
    found: Counter[str] = Counter()
    for answer in answers:
        found[
            str(answer.status_code) if answer.status_code < 400 else answer.json()["error"]["code"]
        ] += 1
    return dict(found)


async def run(args: argparse.Namespace, data: Path) -> None:
    url = args.database_url or f"sqlite+aiosqlite:///{data / 'bench.sqlite3'}"
    settings = Settings(
        database_url=url,
        data_dir=data,
        background_work=False,
        daily_prepare_ahead=False,
        solvable_prepare_ahead=False,
    )
    app = create_app(settings)
    async with LifespanManager(app, startup_timeout=120):
        if not is_sqlite(url):
            await empty_tables(url)
        transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 4321))
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            answers = [
                await register(client) for _ in range(settings.players_per_address_per_hour + 5)
            ]
            print(f"1. players from one address: {codes(answers)}")
            await empty_tables(url)
            # This instance remembers the address it refused: forgotten with the counts.
            app.state.services.player_creations = PlayerCreations(
                settings.players_per_address_per_hour
            )

            token = (await register(client)).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            started = time.perf_counter()
            burst = await asyncio.gather(
                *(
                    client.post(f"{API}/games", json={"variant": "rank-and-file"}, headers=auth)
                    for _ in range(args.burst)
                )
            )
            took = time.perf_counter() - started
            print(
                f"2. {args.burst} POST /games at once by one player: {codes(burst)} in {took:.2f} s"
            )
            await empty_tables(url)

            token = (await register(client)).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            games = []
            for n in range(args.analyses):
                game = (
                    await client.post(
                        f"{API}/games",
                        json={"variant": "rank-and-file", "deal": n + 1},
                        headers=auth,
                    )
                ).json()
                await client.post(f"{API}/games/{game['id']}/resign", headers=auth)
                games.append(game["id"])
            asked = await asyncio.gather(
                *(client.post(f"{API}/games/{gid}/analysis", headers=auth) for gid in games)
            )
            print(f"3. {args.analyses} analyses asked at once by one player: {codes(asked)}")
            await empty_tables(url)

            bounds = app.state.services.player_bounds
            timings: dict[str, list[float]] = {"checked": [], "off": []}
            rounds = max(1, args.deals // 20)
            for _ in range(rounds):
                for label in ("checked", "off"):
                    app.state.services.player_bounds = bounds if label == "checked" else None
                    token = (await register(client)).json()["token"]
                    auth = {"Authorization": f"Bearer {token}"}
                    for n in range(10):
                        started = time.perf_counter()
                        answer = await client.post(
                            f"{API}/games",
                            json={"variant": "rank-and-file", "deal": n + 1},
                            headers=auth,
                        )
                        timings[label].append(time.perf_counter() - started)
                        assert answer.status_code == 201, answer.text
                await empty_tables(url)  # every player within the address's bound
            app.state.services.player_bounds = bounds
            for label, values in timings.items():
                values.sort()
                p90 = values[int(0.9 * (len(values) - 1))]
                print(
                    f"4. POST /games, bounds {label}: median {statistics.median(values) * 1000:.2f} ms, "
                    f"p90 {p90 * 1000:.2f} ms ({len(values)} requests)"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--analyses", type=int, default=40)
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        asyncio.run(run(args, Path(data)))


if __name__ == "__main__":
    main()
