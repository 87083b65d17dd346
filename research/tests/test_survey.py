"""``python -m research survey``: survey output, its rows in the dataset, resumed surveys,
surveys of the undecided deals, parallel surveys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.engine import deal, get_variant
from app.solver import solve
from research import dataset
from research.survey import _survey_one, main
from research.tests.helpers import add_survey, fresh

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


def test_a_survey_resumes_without_searching_again_and_records_each_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "results.sqlite"
    base = ["rank-and-file", "--budget", BUDGET, "--json", "--dataset", str(path)]
    main([*base, "--from", "1", "--count", "2"])
    first = _rows(capsys.readouterr().out)
    main([*base, "--from", "1", "--count", "4"])
    second = _rows(capsys.readouterr().out)
    assert [r["deal"] for r in first] == [1, 2]
    assert [r["deal"] for r in second] == [3, 4]  # 1 and 2 were not searched again
    stored = dataset.connect(path).execute("SELECT * FROM searches ORDER BY id").fetchall()
    assert [row["deal"] for row in stored] == [1, 2, 3, 4]
    assert {(row["kind"], row["game"], row["budget"], row["source"]) for row in stored} == {
        ("survey", "rank-and-file", 3000, "survey")
    }
    assert [dataset.survey_json(row) for row in stored] == first + second
    assert json.loads(stored[0]["settings"]) == {"name": "survey", "search": "plan.solve"}
    assert all(row["commit"] and row["date"] for row in stored)
    # Another name is another run: it searches again.
    main([*base, "--from", "1", "--count", "1", "--name", "again"])
    assert [r["deal"] for r in _rows(capsys.readouterr().out)] == [1]


def test_a_finished_survey_prints_its_figures_from_its_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["rank-and-file", "--count", "2", "--budget", BUDGET, "--dataset", str(tmp_path / "d")]
    main(args)
    searched = capsys.readouterr().out
    main(args)
    again = capsys.readouterr().out
    assert again.split(";")[:2] == searched.split(";")[:2]  # the counts, not the times


def test_survey_undecided_searches_only_what_the_dataset_leaves_undecided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, connection = fresh(tmp_path)
    add_survey(connection, "rank-and-file", 3000, "earlier", (1, "solved"), (2, "unknown"))
    add_survey(connection, "rank-and-file", 1000, "smaller", (4, "unsolvable"))
    add_survey(connection, "rank-and-file", 9000, "larger", (5, "solved"))  # not within 3,000
    args = ["rank-and-file", "--from", "1", "--count", "5", "--budget", BUDGET, "--no-record"]
    args += ["--dataset", str(path), "--undecided"]
    main([*args, "--json"])
    assert [r["deal"] for r in _rows(capsys.readouterr().out)] == [2, 3, 5]
    add_survey(connection, "rank-and-file", 3000, "later", (3, "solved"))
    main([*args, "--json"])
    assert [r["deal"] for r in _rows(capsys.readouterr().out)] == [2, 5]
    main(args)
    assert capsys.readouterr().out.startswith(
        "rank-and-file deals 1-5 left undecided, budget 3,000 positions: "
    )
    assert connection.execute("SELECT COUNT(*) FROM searches").fetchone()[0] == 5  # --no-record


def test_survey_jobs_give_the_same_rows(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["rank-and-file", "--from", "1", "--count", "4", "--budget", BUDGET, "--json"]
    main([*args, "--no-record"])
    alone = _rows(capsys.readouterr().out)
    main([*args, "--no-record", "--jobs", "2"])
    parallel = _rows(capsys.readouterr().out)
    assert [_same(r) for r in parallel] == [_same(r) for r in alone]


def test_a_survey_row_keeps_which_limit_stopped_an_undecided_search() -> None:
    """Rank and File deal 31 takes 101,591 positions to win, so a budget of 3,000 leaves it
    unknown: its row names the limit that ended the search; a decided row names none."""
    row = _survey_one("rank-and-file", 31, 3_000, None, None, 40)
    assert (row["result"], row["stopped"]) == ("unknown", "depth")
    assert "stopped" not in _survey_one("rank-and-file", 1, 3_000, None)
