"""research/full_search.py: the full search alone on the deals a budget's rows leave
undecided, its rows in the dataset."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app.solver import core
from app.solver.result import SolveResult
from research import dataset, full_search
from research.tests.helpers import add_survey, fresh

M = 1_000_000


def surveys(tmp_path: Path) -> tuple[Path, sqlite3.Connection]:
    """Canfield deals 1-4: 1 won within 1M, 2 undecided at 1M and lost at 10M, 3 undecided
    at both, 4 never surveyed."""
    path, connection = fresh(tmp_path)
    add_survey(connection, "canfield", M, "a", (1, "solved"), (2, "unknown"), (3, "unknown"))
    add_survey(connection, "canfield", 10 * M, "b", (2, "unsolvable"), (3, "unknown"))
    return path, connection


def rows(connection: sqlite3.Connection) -> list[sqlite3.Row]:
    return connection.execute(
        "SELECT * FROM searches WHERE source = 'full-search' ORDER BY id"
    ).fetchall()


def test_the_deals_left_are_those_no_row_within_the_budget_decides(tmp_path: Path) -> None:
    _, connection = surveys(tmp_path)
    assert full_search.undecided(connection, "canfield", 10 * M, 4) == [3, 4]
    assert full_search.undecided(connection, "canfield", 30 * M, 4) == [3, 4]
    assert full_search.undecided(connection, "canfield", M, 4) == [2, 3, 4]
    assert full_search.undecided(connection, "canfield", M, 2) == [2]
    assert full_search.undecided(connection, "canfield", 999_999, 4) == [1, 2, 3, 4]


def test_each_deal_left_gets_one_row_and_a_rerun_searches_nothing_again(tmp_path: Path) -> None:
    """Canfield deal 3 is lost (the full search exhausts it at once): its row says so, and
    names the search; deals decided by a row are not searched."""
    path, connection = surveys(tmp_path)
    argv = ["canfield", "--deals", "3", "--budget", "10000000", "--dataset", str(path)]
    assert full_search.main(argv) == 0
    found = rows(connection)
    assert [(row["deal"], row["verdict"], row["kind"]) for row in found] == [
        (3, "unsolvable", "survey")
    ]
    settings = json_of(found[0]["settings"])
    assert settings["search"] == "full search alone, up to run arrangement"
    assert settings["name"] == "full" and found[0]["budget"] == 10 * M
    assert found[0]["positions"] > 0
    assert full_search.main(argv) == 0
    assert len(rows(connection)) == 1
    # Now counted: deal 3 is lost within 10M.
    assert dataset.verdicts(connection, 10 * M)[("canfield", 3)] == "unsolvable"


def json_of(text: str) -> dict[str, object]:
    value: dict[str, object] = json.loads(text)
    return value


def test_only_searches_the_deals_named_that_are_left(tmp_path: Path) -> None:
    """``--only`` names deals: those still undecided are searched in the order given, the
    decided ones (deal 2, lost at 10M) are not."""
    path, connection = surveys(tmp_path)
    argv = ["canfield", "--deals", "4", "--budget", "10000000", "--dataset", str(path)]
    assert full_search.main([*argv, "--only", "3", "--only", "2"]) == 0
    assert [row["deal"] for row in rows(connection)] == [3]


def test_a_win_whose_line_does_not_replay_stops_the_run_and_writes_no_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `solved` row is written only for a line the engine replays to a win: a search that
    claims a win with a line that wins nothing (an empty one here) stops the run."""
    path, connection = surveys(tmp_path)

    def claims_a_win(*_args: object, **_kwargs: object) -> SolveResult:
        return SolveResult("solved", [], 5, 1)

    monkeypatch.setattr(full_search.core, "search", claims_a_win)
    argv = ["canfield", "--deals", "3", "--budget", "10000000", "--dataset", str(path)]
    with pytest.raises(SystemExit, match="deal 3: the winning line does not replay"):
        full_search.main(argv)
    assert rows(connection) == []


def test_the_relaxed_tests_options_reach_the_search_and_the_row_names_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--relaxed-stock`` and ``--relaxed-states`` are the search's; a row searched with
    other than the defaults says so in its settings."""
    path, connection = fresh(tmp_path)
    add_survey(connection, "rainbow", M, "a", (1, "unknown"))
    asked: list[core.SearchLimits] = []

    def lost(_state: object, limits: core.SearchLimits) -> SolveResult:
        asked.append(limits)
        return SolveResult("unsolvable", [], 7, 1)

    monkeypatch.setattr(full_search.core, "search", lost)
    argv = ["rainbow", "--deals", "1", "--budget", "1000000", "--dataset", str(path)]
    deep = ["--relaxed-stock", "4", "--relaxed-states", "4000000"]
    # Two runs, two names: the first's proof would leave the second nothing to search.
    monkeypatch.setattr(full_search, "undecided", lambda *_: [1])
    for options, name in (([], "plain"), (deep, "deep")):
        assert full_search.main([*argv, *options, "--name", name]) == 0
    assert [json_of(row["settings"])["search"] for row in rows(connection)] == [
        "full search alone, up to run arrangement, relaxed tableau",
        "full search alone, up to run arrangement, relaxed tableau "
        "(stock 4, 4,000,000 states a test)",
    ]
    assert [(a.relaxed_stock, a.relaxed_states) for a in asked] == [
        (8, 100_000),
        (4, 4_000_000),
    ]


def test_again_searches_the_deals_named_even_where_rows_decide_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--again --only 2`` measures deal 2 (lost at 10M) again; ``--no-relaxed`` hands the
    search ``relaxed=False`` and the row's search says so."""
    path, connection = fresh(tmp_path)
    add_survey(connection, "rainbow", 10 * M, "a", (1, "solved"), (2, "unsolvable"))
    asked: list[core.SearchLimits] = []

    def lost(_state: object, limits: core.SearchLimits) -> SolveResult:
        asked.append(limits)
        return SolveResult("unsolvable", [], 7, 1)

    monkeypatch.setattr(full_search.core, "search", lost)
    argv = ["rainbow", "--deals", "2", "--budget", "30000000", "--dataset", str(path)]
    assert full_search.main([*argv, "--only", "2"]) == 0
    assert rows(connection) == []
    assert full_search.main([*argv, "--only", "2", "--again", "--no-relaxed"]) == 0
    found = rows(connection)
    assert [(row["deal"], row["verdict"]) for row in found] == [(2, "unsolvable")]
    assert json_of(found[0]["settings"])["search"] == (
        "full search alone, up to run arrangement, without the relaxed tableau"
    )
    assert [a.relaxed for a in asked] == [False]
