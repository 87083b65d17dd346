"""``python -m research survey``: survey output, resumable surveys, parallel surveys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.engine import deal, get_variant
from app.solver import solve
from research.survey import _survey_one, main

BUDGET = "3000"


def _rows(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _same(row: dict[str, Any]) -> tuple[Any, Any, Any]:
    """What a rerun must reproduce (the time is the machine's)."""
    return row["deal"], row["result"], row["positions"]


def test_survey_json_is_one_object_per_deal_as_solve_finds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["rank-and-file", "--from", "4", "--count", "3", "--budget", BUDGET, "--json"])
    rows = _rows(capsys.readouterr().out)
    assert [r["deal"] for r in rows] == [4, 5, 6]
    for row in rows:
        stopped = {"stopped"} if row["result"] == "unknown" else set()  # why it stopped
        assert set(row) == {"deal", "result", "positions", "elapsed_ms"} | stopped
        expected = solve(deal(get_variant("rank-and-file"), int(row["deal"])), max_positions=3000)
        assert (row["result"], row["positions"]) == (expected.result, expected.positions)


def test_survey_summary_line(capsys: pytest.CaptureFixture[str]) -> None:
    main(["rank-and-file", "--from", "1", "--count", "2", "--budget", BUDGET])
    out = capsys.readouterr().out
    assert out.startswith("rank-and-file deals 1-2, budget 3,000 positions: solved ")
    assert "decided" in out and "positions/s" in out


def test_survey_out_resumes_without_searching_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "survey.jsonl"
    base = ["rank-and-file", "--budget", BUDGET, "--json", "--out", str(out)]
    main([*base, "--from", "1", "--count", "2"])
    first = _rows(capsys.readouterr().out)
    out.write_text(out.read_text() + '{"deal": 3, "res')  # a run stopped mid-line
    main([*base, "--from", "1", "--count", "4"])
    second = _rows(capsys.readouterr().out)
    assert [r["deal"] for r in first] == [1, 2]
    assert [r["deal"] for r in second] == [3, 4]  # 1 and 2 were not searched again
    kept = [json.loads(line) for line in out.read_text().splitlines() if line.endswith("}")]
    assert sorted(int(r["deal"]) for r in kept) == [1, 2, 3, 4]


def test_survey_undecided_in_searches_only_what_earlier_surveys_left_undecided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    earlier, later = tmp_path / "earlier.jsonl", tmp_path / "later.jsonl"
    earlier.write_text(
        '{"deal": 1, "result": "solved", "positions": 9, "elapsed_ms": 1}\n'
        '{"deal": 2, "result": "unknown", "positions": 9, "elapsed_ms": 1}\n'
        '{"deal": 4, "result": "unsolvable", "positions": 9, "elapsed_ms": 1}\n'
    )
    later.write_text('{"deal": 3, "result": "solved", "positions": 9, "elapsed_ms": 1}\n')
    args = ["rank-and-file", "--from", "1", "--count", "5", "--budget", BUDGET]
    main([*args, "--json", "--undecided-in", str(earlier)])
    assert [r["deal"] for r in _rows(capsys.readouterr().out)] == [2, 3, 5]  # 3: not in it
    both = ["--undecided-in", str(earlier), "--undecided-in", str(later)]
    main([*args, "--json", *both])
    assert [r["deal"] for r in _rows(capsys.readouterr().out)] == [2, 5]
    main([*args, *both])
    assert capsys.readouterr().out.startswith(
        "rank-and-file deals 1-5 left undecided, budget 3,000 positions: "
    )


def test_survey_jobs_give_the_same_rows(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["rank-and-file", "--from", "1", "--count", "4", "--budget", BUDGET, "--json"]
    main(args)
    alone = _rows(capsys.readouterr().out)
    main([*args, "--jobs", "2"])
    parallel = _rows(capsys.readouterr().out)
    assert [_same(r) for r in parallel] == [_same(r) for r in alone]


def test_a_survey_row_keeps_which_limit_stopped_an_undecided_search() -> None:
    """Rank and File deal 31 takes 101,591 positions to win, so a budget of 3,000 leaves it
    unknown: its row names the limit that ended the search; a decided row names none."""
    row = _survey_one("rank-and-file", 31, 3_000, None, None, 40)
    assert (row["result"], row["stopped"]) == ("unknown", "depth")
    assert "stopped" not in _survey_one("rank-and-file", 1, 3_000, None)
