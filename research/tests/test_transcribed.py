"""research/transcribed.py puts the figures the old page gave of searches no row kept in
the dataset: one row per deal it names, never counted by the rule, added once."""

from __future__ import annotations

import json
from pathlib import Path

from research import dataset, transcribed
from research.tests.conftest import COMMITTED
from research.tests.helpers import add_survey, fresh

M = 1_000_000


def test_each_deal_the_page_names_is_one_row_with_its_figure() -> None:
    rows = transcribed.rows()
    by_search = {
        (row["settings"]["name"], row["deal"]): (row["verdict"], row["positions"]) for row in rows
    }
    assert len(by_search) == len(rows) == 12
    assert by_search[("full-100m-probe", 14)] == ("unsolvable", 12_292_327)
    assert by_search[("full-100m-probe", 43)] == ("unsolvable", 32_092_875)
    assert by_search[("capped-passes-30m", 186)] == ("solved", 12_604_880)
    assert by_search[("capped-passes-30m", 246)] == ("unknown", None)
    for row in rows:
        assert row["kind"] == "transcribed" and row["game"] == "rainbow"
        assert row["source"] == transcribed.PAGE and row["seconds"] is None
        assert row["extra"]["transcribed_from"] == transcribed.PAGE
        assert len(row["commit"]) == 40 and row["date"] == "2026-12-04"


def test_the_rows_are_added_once_and_never_counted(tmp_path: Path) -> None:
    path, connection = fresh(tmp_path)
    add_survey(connection, "rainbow", 30 * M, "rerun", (14, "unknown"), (186, "unsolvable", 5))
    assert transcribed.transcribe(connection) == 12
    assert transcribed.transcribe(connection) == 0
    assert transcribed.main(["--dataset", str(path)]) == 0
    (count,) = connection.execute(
        "SELECT COUNT(*) FROM searches WHERE kind = 'transcribed'"
    ).fetchone()
    assert count == 12
    # A transcribed win or proof decides nothing, and contradicts no row.
    found = dataset.verdicts(connection, 100 * M)
    assert found[("rainbow", 14)] is None and found[("rainbow", 186)] == "unsolvable"
    assert dataset.verdicts(connection, 30 * M)[("rainbow", 14)] == "unknown"
    assert dataset.contradictions(connection) == []
    stored = connection.execute(
        "SELECT settings, extra FROM searches WHERE kind = 'transcribed' AND deal = 43"
    ).fetchone()
    assert json.loads(stored["settings"])["table_size"] == 1 << 27
    assert "32,092,875" in json.loads(stored["extra"])["note"]


def test_the_committed_dataset_holds_every_transcribed_row() -> None:
    connection = dataset.connect(COMMITTED, readonly=True)
    assert transcribed.held(connection) == {
        (row["game"], row["deal"], dataset.settings_text(row["settings"]))
        for row in transcribed.rows()
    }
