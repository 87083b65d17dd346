"""The committed `seeds/` lists: compact (format 2), one per game, and every line
replayable through `POST /games/{id}/moves` as docs/api.md says.

The full check, every line of every file through the engine, is
`tests/solver/test_solver.py::test_every_seed_line_wins` (and `scripts/convert_seeds.py`).
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app import seeds
from app.engine import VARIANTS
from tests.api.conftest import API

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def test_every_game_has_a_compact_list() -> None:
    assert sorted(p.stem for p in SEEDS.glob("*.json")) == sorted(VARIANTS)
    for name in VARIANTS:
        data = seeds.load(SEEDS / f"{name}.json")
        assert data["variant"] == name and data["format"] == seeds.FORMAT
        assert data["deals"], name
        for index, entry in enumerate(data["deals"]):
            # One string of move texts per deal, that reads back move by move (every
            # line is read and replayed by tests/solver/test_solver.py; here a sample).
            assert isinstance(entry["line"], str) and "  " not in entry["line"]
            if index % 25 == 0:
                assert seeds.format_line(seeds.read_line(entry["line"])) == entry["line"]
        moves = sum(entry["line"].count(" ") + 1 for entry in data["deals"])
        # Under 8 bytes per move, the deal's numbers included (a move object took ~60).
        assert (SEEDS / f"{name}.json").stat().st_size < 8 * moves, name


def _sample(name: str) -> list[dict[str, object]]:
    """The shortest line of a file, and one from the middle of the list no longer than
    300 moves (short, so that the test stays quick)."""
    entries = seeds.load(SEEDS / f"{name}.json")["deals"]
    short = [e for e in entries if e["line"].count(" ") < 300]
    return [min(entries, key=lambda e: len(e["line"])), short[len(short) // 2]]


@pytest.mark.parametrize("name", sorted(VARIANTS))
async def test_seed_lines_replay_to_a_win_through_the_api(
    client: httpx.AsyncClient, auth: dict[str, str], name: str
) -> None:
    for entry in _sample(name):
        # As docs/api.md says: the deal under the variant's own rules, auto-finish off,
        # then each move text as its JSON move.
        created = await client.post(
            f"{API}/games",
            json={"variant": name, "deal": entry["deal"], "settings": {"auto_finish": False}},
            headers=auth,
        )
        assert created.status_code == 201, created.text
        game = created.json()
        for move in seeds.read_line(entry["line"]):
            answer = await client.post(
                f"{API}/games/{game['id']}/moves", json=move.to_json(), headers=auth
            )
            assert answer.status_code == 200, (name, entry["deal"], str(move), answer.text)
        assert answer.json()["status"] == "won", (name, entry["deal"])
