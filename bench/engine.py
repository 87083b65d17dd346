"""Engine speed: random legal playouts of each variant, positions per second.

One position = ``legal_moves()`` + ``apply()`` of one of them (unchecked, as the
solver does) + ``hash(key())`` of the canonical position key. Then what the service
pays per request to load a stored game: ``State.from_bytes`` + ``legal_moves()``,
with the variant's own rules and with its house rule flipped. Run:

    .venv/bin/python bench/engine.py [--games 40] [--steps 300] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.engine import VARIANTS, Rules, State, deal  # noqa: E402


def playout_rate(name: str, games: int, steps: int, seed: int) -> tuple[int, float]:
    variant = VARIANTS[name]
    rng = random.Random(seed)
    states = [deal(variant, rng.randint(1, 1_000_000)) for _ in range(games)]
    positions = 0
    started = time.perf_counter()
    for state in states:
        for _ in range(steps):
            moves = state.legal_moves()
            hash(state.key())
            positions += 1
            if not moves:
                break
            state, _events = state.apply(rng.choice(moves), auto_finish=False, validate=False)
    return positions, time.perf_counter() - started


def load_ms(name: str, flip_house_rule: bool, loads: int = 200) -> float:
    """Milliseconds per `State.from_bytes` + `legal_moves()` of a stored deal."""
    variant = VARIANTS[name]
    rules = Rules(foundation_return=not variant.foundation_return) if flip_house_rule else None
    data = deal(variant, 5, rules).to_bytes()
    State.from_bytes(data).legal_moves()  # tables built once, as in a running server
    started = time.perf_counter()
    for _ in range(loads):
        State.from_bytes(data).legal_moves()
    return (time.perf_counter() - started) / loads * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    for name in VARIANTS:
        positions, seconds = playout_rate(name, args.games, args.steps, args.seed)
        results[name] = {
            "positions": positions,
            "seconds": round(seconds, 3),
            "per_second": round(positions / seconds),
            "load_ms": round(load_ms(name, False), 3),
            "load_ms_house_rule": round(load_ms(name, True), 3),
        }
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print(f"{'variant':<15}{'positions':>10}{'seconds':>9}{'pos/s':>9}{'load ms':>9}{'ruled':>8}")
    for name, row in results.items():
        print(
            f"{name:<15}{row['positions']:>10}{row['seconds']:>9}{row['per_second']:>9}"
            f"{row['load_ms']:>9}{row['load_ms_house_rule']:>8}"
        )


if __name__ == "__main__":
    main()
