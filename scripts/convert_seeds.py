"""Rewrite `seeds/*.json` in the compact format 2 (app/seeds.py) and check it.

    python scripts/convert_seeds.py [seeds/rank-and-file.json ...]   # default: every file

For every file: the same deals, in the same order, with the same lines (each move read
back from its text is the move the old file held), and every line replays, each move
validated by the engine with auto-finish off, to a won game. A file already in format 2
is checked and left as it is. Nothing is written unless every check passes.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import seeds  # noqa: E402
from app.engine import deal, get_variant  # noqa: E402
from app.solver.result import replay  # noqa: E402


def check(path: Path) -> dict[str, Any]:
    """The converted data of `path`, every line checked; raises SystemExit on a fault."""
    data = seeds.load(path)
    variant = get_variant(data["variant"])
    if variant.name != path.stem:
        raise SystemExit(f"{path}: holds {variant.name}")
    converted = seeds.load_text(seeds.dump(data))
    old, new = data["deals"], converted["deals"]
    if [e["deal"] for e in old] != [e["deal"] for e in new]:
        raise SystemExit(f"{path}: the deals changed")
    if len({e["deal"] for e in new}) != len(new):
        raise SystemExit(f"{path}: a deal is listed twice")
    for before, after in zip(old, new, strict=True):
        moves = seeds.read_line(after["line"])
        if moves != seeds.read_line(before["line"]) or before.get("positions") != after.get(
            "positions"
        ):
            raise SystemExit(f"{path}: deal {after['deal']}: the entry changed")
        if not replay(deal(variant, after["deal"]), moves).is_won:
            raise SystemExit(f"{path}: deal {after['deal']}: the line does not win")
    return converted


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "seeds").glob("*.json"))
    for path in paths:
        started = time.perf_counter()
        before = path.stat().st_size
        data = check(path)
        text = seeds.dump(data)
        if path.read_text() != text:
            seeds.save(path, data)
        took = time.perf_counter() - started
        moves = sum(len(seeds.read_line(e["line"])) for e in data["deals"])
        print(
            f"{path.name}: {len(data['deals'])} deals, {moves:,} moves, all replay to a win; "
            f"{before:,} -> {path.stat().st_size:,} bytes ({took:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
