"""The proven-winnable deals of `seeds/<variant>.json` (written by the solver, issue 4).

File shape: `{"variant": "...", "deals": [{"deal": n, "line": [...], "positions": n}]}`.
"""

from __future__ import annotations

import json
import secrets
from functools import lru_cache
from pathlib import Path

from app.errors import ApiError


@lru_cache(maxsize=32)
def _load(path: str, mtime_ns: int) -> tuple[int, ...]:
    # Keyed by mtime so that a regenerated file is picked up without a restart.
    data = json.loads(Path(path).read_text())
    return tuple(int(entry["deal"]) for entry in data.get("deals", []))


def solvable_deals(seeds_dir: Path, variant: str) -> tuple[int, ...]:
    path = seeds_dir / f"{variant}.json"
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        return ()
    return _load(str(path), mtime)


def choose_solvable_deal(seeds_dir: Path, variant: str) -> int:
    deals = solvable_deals(seeds_dir, variant)
    if not deals:
        raise ApiError(
            "no_solvable_deals",
            503,
            f"no proven-winnable deals are available for {variant} on this server",
        )
    return secrets.choice(deals)
