"""research/confirm_lost.py: the surveys' lost deals, searched again by the plain search."""

from __future__ import annotations

import json
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest


def confirm_lost() -> ModuleType:
    return import_module("research.confirm_lost")


def write_rows(path: Path, rows: list[dict[str, object]], torn: str = "") -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + torn)


def test_the_lost_deals_are_read_from_every_survey_smallest_proof_first(tmp_path: Path) -> None:
    write_rows(
        tmp_path / "canfield-1m-native.jsonl",
        [
            {"deal": 5, "result": "unsolvable", "positions": 52},
            {"deal": 3, "result": "unsolvable", "positions": 900},
            {"deal": 1, "result": "solved", "positions": 10},
            {"deal": 2, "result": "unknown", "positions": 1_000_000},
        ],
        torn='{"deal": 9, "res',
    )
    write_rows(
        tmp_path / "canfield-10m-native.jsonl",
        [{"deal": 3, "result": "unsolvable", "positions": 26}],
    )
    write_rows(
        tmp_path / "rainbow-1m-native.jsonl", [{"deal": 4, "result": "unsolvable", "positions": 1}]
    )
    assert confirm_lost().proven_lost("canfield", tmp_path) == [(3, 26), (5, 52)]


def test_a_lost_deal_the_plain_search_wins_is_a_contradiction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Canfield deal 3 is lost (the plain search exhausts it in 13 positions); deal 1 is
    won (in 803): a row calling it lost must fail the run. A rerun searches nothing again."""
    surveys = tmp_path / "surveys"
    surveys.mkdir()
    write_rows(
        surveys / "canfield-1m-native.jsonl",
        [
            {"deal": 3, "result": "unsolvable", "positions": 26},
            {"deal": 1, "result": "unsolvable", "positions": 40},
        ],
    )
    out = tmp_path / "plain.jsonl"
    argv = ["canfield", "--budget", "100000", "--surveys", str(surveys), "--out", str(out)]
    assert confirm_lost().main(argv) == 1
    rows = {row["deal"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert rows[3]["plain"] == "unsolvable" and not rows[3]["contradiction"]
    assert rows[1]["plain"] == "solved" and rows[1]["contradiction"]
    assert "| canfield | 2 | 1 | 1 | 0 |" in capsys.readouterr().out
    before = out.read_text()
    assert confirm_lost().main(argv) == 1
    assert out.read_text() == before
    again = tmp_path / "again.jsonl"
    argv[-1] = str(again)
    assert confirm_lost().main([*argv, "--deal", "3"]) == 0  # deal 1 left out
    assert [json.loads(line)["deal"] for line in again.read_text().splitlines()] == [3]


def test_a_file_of_several_games_counts_the_rows_that_name_the_game(tmp_path: Path) -> None:
    write_rows(
        tmp_path / "unsolvable-reproved.jsonl",
        [
            {"game": "canfield", "deal": 7, "result": "unsolvable", "positions": 30},
            {"game": "rainbow", "deal": 8, "result": "unsolvable", "positions": 1},
        ],
    )
    assert confirm_lost().proven_lost("canfield", tmp_path) == [(7, 30)]
