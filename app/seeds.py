"""The proven-winnable deals of `seeds/<variant>.json` (written by `python -m app.solver
prove`).

File shape, one deal per line of the file::

    {"variant": "rainbow", "format": 2, "searched_through": 1636, "deals": [
    {"deal":2,"positions":417,"line":"t1>t0 r>f0 t2>t0 draw w>t0 draw ..."},
    ...
    ]}

`line` is the winning line as the moves' text forms (`str(Move)`, read back by
`Move.parse`: `t2>t5`, `t2>t5x3`, `w>f0`, `r>t1`, `f3>t2`, `draw`, `redeal`), separated
by single spaces; it wins from `deal(variant, deal)` under the variant's own rules with
auto-finish off. `positions` is what the search took to find it. Format 1 has `line` as
a list of move objects (`Move.to_json`); `read_line` reads it too.

The lists are public (committed), so their deals are never dealt as a server-chosen
deal: anyone could recognise one from its face-up cards and read its face-down
cards and a winning line from the list. The daily and solvable deals skip them.

This module lies below both the solver (`prove` writes the lists) and the services
(which read them): it imports only the engine.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from app.engine import Move

FORMAT = 2


def format_line(moves: Iterable[Move]) -> str:
    """A line of play as one string: the moves' text forms, space-separated."""
    return " ".join(str(m) for m in moves)


def read_line(line: Any) -> list[Move]:
    """The moves of a seed entry's `line`: a string of move texts (format 2), or a list
    of move objects or move texts (format 1)."""
    if isinstance(line, str):
        return [Move.parse(text) for text in line.split()]
    return [Move.parse(m) if isinstance(m, str) else Move.from_json(m) for m in line]


def load(path: Path) -> dict[str, Any]:
    """A seeds file as written (either format)."""
    return load_text(path.read_text())


def load_text(text: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(text)
    return data


def dump(data: dict[str, Any]) -> str:
    """The text of a seeds file in format 2: the header, then one deal per line (each
    entry's `line` made a string if it is still a list)."""
    head = {k: v for k, v in data.items() if k != "deals"}
    head["format"] = FORMAT
    head = {"variant": head.pop("variant"), "format": head.pop("format"), **head}
    rows = []
    for entry in data["deals"]:
        line = entry["line"]
        if not isinstance(line, str):
            line = format_line(read_line(line))
        rest = {k: v for k, v in entry.items() if k not in ("deal", "positions", "line")}
        row = {"deal": entry["deal"], "positions": entry.get("positions"), **rest, "line": line}
        rows.append(json.dumps(row, separators=(",", ":")))
    return json.dumps(head)[:-1] + ', "deals": [\n' + ",\n".join(rows) + "\n]}\n"


def save(path: Path, data: dict[str, Any]) -> None:
    """Write `data` in format 2; write then rename, so an interrupted run never leaves a
    truncated list behind."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(dump(data))
    os.replace(tmp, path)


@lru_cache(maxsize=32)
def _load(path: str, mtime_ns: int) -> tuple[int, ...]:
    # Keyed by mtime so that a regenerated file is picked up without a restart.
    data = json.loads(Path(path).read_text())
    return tuple(int(entry["deal"]) for entry in data.get("deals", []))


def public_deals(seeds_dir: Path, variant: str) -> tuple[int, ...]:
    """The deal numbers `seeds_dir/<variant>.json` lists (none when there is no file)."""
    path = seeds_dir / f"{variant}.json"
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        return ()
    return _load(str(path), mtime)


@lru_cache(maxsize=32)
def _load_lines(path: str, mtime_ns: int) -> dict[int, Any]:
    data = json.loads(Path(path).read_text())
    return {int(entry["deal"]): entry["line"] for entry in data.get("deals", [])}


def seed_line(seeds_dir: Path, variant: str, number: int) -> list[Move] | None:
    """The proven line `seeds_dir/<variant>.json` lists for deal `number`, if it lists one."""
    path = seeds_dir / f"{variant}.json"
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    line = _load_lines(str(path), mtime).get(number)
    return None if line is None else read_line(line)
