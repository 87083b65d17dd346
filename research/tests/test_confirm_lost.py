"""research/confirm_lost.py: the surveys' lost deals, searched again by the plain search,
its rows in the dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from research import confirm_lost, dataset
from research.tests.helpers import add_survey, fresh

M = 1_000_000


def test_the_lost_deals_are_read_from_every_survey_smallest_proof_first(tmp_path: Path) -> None:
    _, connection = fresh(tmp_path)
    add_survey(
        connection,
        "canfield",
        M,
        "native",
        (5, "unsolvable", 52),
        (3, "unsolvable", 900),
        (1, "solved", 10),
        (2, "unknown", M),
    )
    add_survey(connection, "canfield", 10 * M, "native", (3, "unsolvable", 26))
    add_survey(connection, "rainbow", M, "native", (4, "unsolvable", 1))
    # Lost proofs of the first surveys and of the reproofs count too.
    add_survey(connection, "canfield", M, "", (7, "unsolvable", 30), kind="reproof")
    assert confirm_lost.proven_lost(connection, "canfield") == [(3, 26), (7, 30), (5, 52)]


def test_a_lost_deal_the_plain_search_wins_is_a_contradiction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Canfield deal 3 is lost (the plain search exhausts it in 13 positions); deal 1 is
    won (in 803): a row calling it lost must fail the run. A rerun searches nothing again."""
    path, connection = fresh(tmp_path)
    add_survey(connection, "canfield", M, "native", (3, "unsolvable", 26), (1, "unsolvable", 40))
    argv = ["canfield", "--budget", "100000", "--dataset", str(path)]
    assert confirm_lost.main(argv) == 1
    rows = {row["deal"]: row for row in confirm_lost.held(connection, "canfield", 100_000)}
    assert rows[3]["plain"] == "unsolvable" and not rows[3]["contradiction"]
    assert rows[1]["plain"] == "solved" and rows[1]["contradiction"]
    assert rows[3]["proof_positions"] == 26 and rows[3]["plain_positions"] == 13
    assert "| canfield | 2 | 1 | 1 | 0 |" in capsys.readouterr().out
    # The plain search's win is a contradiction of the dataset too.
    assert dataset.contradictions(connection) == [
        "canfield 1: test native: unsolvable, confirm-lost: solved"
    ]
    stored = connection.execute("SELECT * FROM searches WHERE kind = 'plain'").fetchall()
    assert [(row["budget"], row["source"]) for row in stored] == [(100_000, "confirm-lost")] * 2
    assert all(row["commit"] and row["date"] for row in stored)
    before = len(stored)
    assert confirm_lost.main(argv) == 1
    assert (
        connection.execute("SELECT COUNT(*) FROM searches WHERE kind = 'plain'").fetchone()[0]
        == before
    )
    # Another budget is another search; --deal limits it.
    argv[2] = "200000"
    assert confirm_lost.main([*argv, "--deal", "3"]) == 0  # deal 1 left out
    assert [row["deal"] for row in confirm_lost.held(connection, "canfield", 200_000)] == [3]
