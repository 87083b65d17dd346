"""The proven-winnable deals of `seeds/<variant>.json` (written by the solver, issue 4).

File shape: `{"variant": "...", "deals": [{"deal": n, "line": [...], "positions": n}]}`.

The lists are public (committed), so their deals are never dealt as a server-chosen
deal: anyone could recognise one from its face-up cards and read its face-down
cards and a winning line from the list. The daily and solvable deals skip them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=32)
def _load(path: str, mtime_ns: int) -> tuple[int, ...]:
    # Keyed by mtime so that a regenerated file is picked up without a restart.
    data = json.loads(Path(path).read_text())
    return tuple(int(entry["deal"]) for entry in data.get("deals", []))


def public_deals(seeds_dir: Path, variant: str) -> tuple[int, ...]:
    path = seeds_dir / f"{variant}.json"
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        return ()
    return _load(str(path), mtime)
