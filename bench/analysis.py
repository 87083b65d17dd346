"""The cost of analysing a finished game (POST /games/{id}/analysis), per game.

Starts the app in process (ASGI, a throw-away SQLite file) with the default analysis
budgets (ANALYSIS_PLY_MAX_POSITIONS, ANALYSIS_PLY_MAX_SECONDS, ANALYSIS_MAX_POSITIONS)
and the background lane as deployed (DAILY_WORKERS processes). For each variant it plays
`--games` games through the API, each from a deal drawn by a seeded generator, with random
legal moves (a draw a quarter of the time where one is legal, `--draw`; at most
`--moves`) until the game is won or stuck, resigns it if it is still
in play, asks for its analysis and waits for it. Per game it notes the wall-clock time
from the request to `done`, the positions searched, the searches run and the largest of
them (the hardest position: the walk from the end backwards should cost little more),
and the verdicts. Prints the median and the worst per variant, and every game with
`--verbose`.

    .venv/bin/python bench/analysis.py [--games 5] [--moves 300] [--variant canfield] [--seed 1]

Nothing is known to the solver beforehand (an empty database, deals outside seeds/):
every position is searched unless an earlier search of the same analysis decided it.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from asgi_lifespan import LifespanManager

from app.config import Settings
from app.engine import VARIANTS
from app.main import create_app
from app.solver.result import SolveResult

API = "/api/v1"


@dataclass
class Cost:
    variant: str
    deal: int
    moves: int
    seconds: float
    positions: int
    searches: list[int] = field(default_factory=list)
    verdicts: str = ""
    losing_ply: int | None = None

    @property
    def hardest(self) -> int:
        return max(self.searches, default=0)


async def play(
    client: httpx.AsyncClient,
    variant: str,
    number: int,
    rng: random.Random,
    most: int,
    draw: float,
) -> tuple[str, int]:
    created = await client.post(
        f"{API}/games",
        json={"variant": variant, "deal": number, "settings": {"auto_finish": False}},
    )
    assert created.status_code == 201, created.text
    state: dict[str, Any] = created.json()
    game_id = state["id"]
    for _ in range(most):
        if state["status"] != "playing" or not state["legal_moves"]:
            break
        legal = state["legal_moves"]
        stock = [m for m in legal if m["action"] != "move"]
        # Draw (or redeal) a quarter of the time where one is legal, so the stock runs out
        # and most games end lost, as a careless player's do.
        move = stock[0] if stock and rng.random() < draw else rng.choice(legal)
        answer = await client.post(f"{API}/games/{game_id}/moves", json=move)
        assert answer.status_code == 200, answer.text
        state = answer.json()
    if state["status"] == "playing":
        resigned = await client.post(f"{API}/games/{game_id}/resign")
        assert resigned.status_code == 200, resigned.text
    return game_id, state["move_count"]


async def analyse(client: httpx.AsyncClient, game_id: str) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    asked = await client.post(f"{API}/games/{game_id}/analysis")
    assert asked.status_code in (200, 202), asked.text
    while True:
        body: dict[str, Any] = (await client.get(f"{API}/games/{game_id}/analysis")).json()
        if body["state"] == "done":
            return body, time.perf_counter() - started
        await asyncio.sleep(0.05)


async def main(args: argparse.Namespace) -> None:
    variants = [args.variant] if args.variant else list(VARIANTS)
    costs: list[Cost] = []
    with tempfile.TemporaryDirectory() as tmp:
        seeds = Path(tmp) / "seeds"
        seeds.mkdir()
        settings = Settings(
            database_url=f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}",
            data_dir=Path(tmp),
            seeds_dir=seeds,  # no proven deal is known
            daily_prepare_ahead=False,
            solvable_prepare_ahead=False,
        )
        app = create_app(settings)
        async with LifespanManager(app, shutdown_timeout=120):
            searches: list[int] = []
            work = app.state.services.work
            analyse_one = work.analyse

            async def counted(*a: Any, **k: Any) -> SolveResult:
                result: SolveResult = await analyse_one(*a, **k)
                searches.append(result.positions)
                return result

            work.analyse = counted
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
                token = (await client.post(f"{API}/players", json={"name": "bench"})).json()
                client.headers["Authorization"] = f"Bearer {token['token']}"
                for variant in variants:
                    rng = random.Random(f"{args.seed}|{variant}")
                    for _ in range(args.games):
                        number = rng.randrange(1_000_000, 2**40)
                        game_id, moves = await play(
                            client, variant, number, rng, args.moves, args.draw
                        )
                        searches.clear()
                        body, seconds = await analyse(client, game_id)
                        cost = Cost(
                            variant,
                            number,
                            moves,
                            seconds,
                            body["positions"],
                            list(searches),
                            "".join(p["verdict"][0] for p in body["plies"]),
                            body["losing_ply"],
                        )
                        costs.append(cost)
                        if args.verbose:
                            print(
                                f"{variant} {number}: {moves} moves, {seconds:.2f} s, "
                                f"{cost.positions:,} positions in {len(cost.searches)} searches "
                                f"(hardest {cost.hardest:,}), losing ply {cost.losing_ply}, "
                                f"{cost.verdicts}",
                                flush=True,
                            )
    report(costs, variants)


def report(costs: list[Cost], variants: list[str]) -> None:
    print(
        "| variant | games | moves (median) | searches (median, most) | positions (median, "
        "worst) | hardest position (median) | seconds (median, worst) | lost found |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for variant in [*variants, "all"]:
        rows = [c for c in costs if variant in ("all", c.variant)]
        if not rows:
            continue
        positions = [c.positions for c in rows]
        seconds = [c.seconds for c in rows]
        searches = [len(c.searches) for c in rows]
        print(
            f"| {variant} | {len(rows)} | {statistics.median(c.moves for c in rows):.0f} | "
            f"{statistics.median(searches):.0f}, {max(searches)} | "
            f"{statistics.median(positions):,.0f}, {max(positions):,} | "
            f"{statistics.median(c.hardest for c in rows):,.0f} | "
            f"{statistics.median(seconds):.2f}, {max(seconds):.2f} | "
            f"{sum(1 for c in rows if c.losing_ply is not None)} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games per variant")
    parser.add_argument("--moves", type=int, default=300, help="random moves per game at most")
    parser.add_argument("--variant", help="one variant only")
    parser.add_argument("--draw", type=float, default=0.25, help="how often to draw")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--verbose", action="store_true")
    asyncio.run(main(parser.parse_args()))
