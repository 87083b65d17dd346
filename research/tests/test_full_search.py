"""research/full_search.py: the full search alone on the deals a budget's surveys leave
undecided."""

from __future__ import annotations

import json
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest

from app.solver.result import SolveResult


def full_search() -> ModuleType:
    return import_module("research.full_search")


def write_rows(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def surveys(directory: Path) -> Path:
    """Canfield deals 1-4: 1 won within 1M, 2 undecided at 1M and lost at 10M, 3 undecided
    at both, 4 never surveyed."""
    directory.mkdir()
    write_rows(
        directory / "canfield-1m-a.jsonl",
        [
            {"deal": 1, "result": "solved", "positions": 10},
            {"deal": 2, "result": "unknown", "positions": 1_000_000},
            {"deal": 3, "result": "unknown", "positions": 1_000_000},
        ],
    )
    write_rows(
        directory / "canfield-10m-b.jsonl",
        [
            {"deal": 2, "result": "unsolvable", "positions": 2_000_000},
            {"deal": 3, "result": "unknown", "positions": 10_000_000},
        ],
    )
    return directory


def test_the_deals_left_are_those_no_row_within_the_budget_decides(tmp_path: Path) -> None:
    directory = surveys(tmp_path / "surveys")
    script = full_search()
    assert script.undecided("canfield", 10_000_000, 4, directory) == [3, 4]
    assert script.undecided("canfield", 30_000_000, 4, directory) == [3, 4]
    assert script.undecided("canfield", 1_000_000, 4, directory) == [2, 3, 4]
    assert script.undecided("canfield", 1_000_000, 2, directory) == [2]
    with pytest.raises(ValueError, match="no survey budget"):
        script.undecided("canfield", 999_999, 4, directory)


def test_each_deal_left_gets_one_row_and_a_rerun_searches_nothing_again(tmp_path: Path) -> None:
    """Canfield deal 3 is lost (the full search exhausts it at once): its row says so, and
    names the search; deals decided by a row are not searched."""
    directory = surveys(tmp_path / "surveys")
    out = tmp_path / "full.jsonl"
    argv = ["canfield", "--deals", "3", "--budget", "10000000", "--surveys", str(directory)]
    assert full_search().main([*argv, "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(row["deal"], row["result"]) for row in rows] == [(3, "unsolvable")]
    assert rows[0]["search"] == "full search alone, up to run arrangement"
    assert rows[0]["positions"] > 0
    before = out.read_text()
    assert full_search().main([*argv, "--out", str(out)]) == 0
    assert out.read_text() == before


def test_only_searches_the_deals_named_that_are_left(tmp_path: Path) -> None:
    """``--only`` names deals: those still undecided are searched in the order given, the
    decided ones (deal 2, lost at 10M) are not."""
    directory = surveys(tmp_path / "surveys")
    out = tmp_path / "full.jsonl"
    argv = ["canfield", "--deals", "4", "--budget", "10000000", "--surveys", str(directory)]
    only = ["--only", "3", "--only", "2"]
    assert full_search().main([*argv, *only, "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["deal"] for row in rows] == [3]


def test_a_win_whose_line_does_not_replay_stops_the_run_and_writes_no_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `solved` row is written only for a line the engine replays to a win: a search that
    claims a win with a line that wins nothing (an empty one here) stops the run."""
    directory = surveys(tmp_path / "surveys")
    out = tmp_path / "full.jsonl"
    script = full_search()

    def claims_a_win(*_args: object, **_kwargs: object) -> SolveResult:
        return SolveResult("solved", [], 5, 1)

    monkeypatch.setattr(script.core, "search", claims_a_win)
    argv = ["canfield", "--deals", "3", "--budget", "10000000", "--surveys", str(directory)]
    with pytest.raises(SystemExit, match="deal 3: the winning line does not replay"):
        script.main([*argv, "--out", str(out)])
    assert not out.exists() or out.read_text() == ""


def test_the_relaxed_tests_options_reach_the_search_and_the_row_names_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--relaxed-stock`` and ``--relaxed-states`` are the search's; a row searched with
    other than the defaults says so (the rows of one file are then not alike)."""
    directory = tmp_path / "surveys"
    directory.mkdir()
    write_rows(directory / "rainbow-1m-a.jsonl", [{"deal": 1, "result": "unknown"}])
    script = full_search()
    asked: list[dict[str, object]] = []

    def lost(*_args: object, **kwargs: object) -> SolveResult:
        asked.append(kwargs)
        return SolveResult("unsolvable", [], 7, 1)

    monkeypatch.setattr(script.core, "search", lost)
    argv = ["rainbow", "--deals", "1", "--budget", "1000000", "--surveys", str(directory)]
    deep = ["--relaxed-stock", "4", "--relaxed-states", "4000000"]
    for options, name in (([], "plain.jsonl"), (deep, "deep.jsonl")):
        assert script.main([*argv, *options, "--out", str(tmp_path / name)]) == 0
    searched = [
        json.loads((tmp_path / name).read_text())["search"]
        for name in ("plain.jsonl", "deep.jsonl")
    ]
    assert searched == [
        "full search alone, up to run arrangement, relaxed tableau",
        "full search alone, up to run arrangement, relaxed tableau "
        "(stock 4, 4,000,000 states a test)",
    ]
    assert [(a["relaxed_stock"], a["relaxed_states"]) for a in asked] == [
        (8, 100_000),
        (4, 4_000_000),
    ]
