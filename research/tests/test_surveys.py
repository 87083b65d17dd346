"""The dataset's rows never contradict each other, the solvability table follows the one
rule (research/README.md, research/dataset.py), and its interval is the Wilson score
interval (research/solvability.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from research import dataset, import_surveys, solvability
from research.tests.conftest import COMMITTED
from research.tests.helpers import add_survey, fresh

M = 1_000_000


def test_no_row_of_the_dataset_contradicts_another() -> None:
    connection = dataset.connect(COMMITTED, readonly=True)
    games = {row[0] for row in connection.execute("SELECT DISTINCT game FROM searches")}
    assert len(games) == 9
    assert dataset.contradictions(connection) == []


def test_the_readme_gives_the_rule_the_code_applies() -> None:
    readme = (dataset.ROOT / "research" / "README.md").read_text()
    assert dataset.VERDICTS.strip() in readme


def test_a_contradiction_between_two_rows_is_found(tmp_path: Path) -> None:
    _, connection = fresh(tmp_path)
    add_survey(connection, "deauville", M, "native", (7, "solved"))
    add_survey(connection, "deauville", 10 * M, "native", (7, "unsolvable"))
    add_survey(connection, "emperor", M, "native", (7, "unknown"))
    add_survey(connection, "emperor", 10 * M, "native", (7, "solved"))
    add_survey(connection, "emperor", 10 * M, "reproved", (7, "unsolvable"), kind="reproof")
    add_survey(connection, "rainbow", 30 * M, "late", (7, "solved"))
    add_survey(connection, "rainbow", 300 * M, "early", (7, "unsolvable"), kind="early-survey")
    clashes = [line.split(":")[0] for line in dataset.contradictions(connection)]
    assert clashes == ["deauville 7", "emperor 7", "rainbow 7"]
    assert dataset.verdicts(connection, M)[("deauville", 7)] == "contradiction"


def test_a_peer_or_a_late_position_is_no_verdict_of_the_deal(tmp_path: Path) -> None:
    _, connection = fresh(tmp_path)
    add_survey(connection, "canfield", M, "native", (90, "solved"))
    peer = {"game": "canfield", "deal": 90, "ours": "solved", "solvitaire": "unsolvable"}
    peer |= {"seconds": 1.0, "contradiction": False}
    late = {"id": "canfield/0/90/random-0", "game": "canfield", "plain": "unsolvable"}
    dataset.append(
        connection,
        [
            dataset.peer_row(peer, settings={}, source="test"),
            dataset.soundness_row(late, budget=M, settings={}, source="test"),
        ],
    )
    assert dataset.contradictions(connection) == []
    assert dataset.verdicts(connection, M)[("canfield", 90)] == "solved"


def test_the_table_takes_later_verdicts_for_the_deals_a_survey_left_undecided(
    tmp_path: Path,
) -> None:
    _, connection = fresh(tmp_path)
    add_survey(connection, "deauville", M, "native", (1, "solved"), (2, "unknown"), (3, "unknown"))
    add_survey(connection, "deauville", M, "beam", (2, "solved"), (3, "unknown"))
    add_survey(connection, "deauville", 10 * M, "native", (3, "solved"))  # another budget
    # The first surveys, before the native core: kept, not counted.
    add_survey(connection, "deauville", M, "", (3, "solved"), kind="early-survey")
    table = solvability.table(connection, M, 3)
    assert len(table) == 3  # the one game surveyed
    assert table[2].startswith("| deauville | 3 | 2 (66.7%; ")
    assert "| 0 (0.0%; " in table[2] and table[2].endswith(" | 1 (33.3%; 6.1-79.2%) |")


def test_a_larger_budget_counts_the_smaller_ones_proofs_and_lists_deals_it_never_searched(
    tmp_path: Path,
) -> None:
    _, connection = fresh(tmp_path)
    add_survey(connection, "deauville", M, "native", (1, "solved"), (2, "unknown"), (3, "unknown"))
    add_survey(connection, "deauville", 10 * M, "later", (2, "unsolvable"), (3, "unknown"))
    add_survey(connection, "emperor", M, "native", (1, "solved"), (2, "unknown"), (3, "unknown"))
    # Deal 3: undecided at 1m, never searched at 10m.
    add_survey(connection, "emperor", 10 * M, "later", (2, "solved"))
    # No row at 10m at all: decided at 1m, it is in the table; else it is listed.
    add_survey(connection, "rows-of-four", M, "native", (1, "solved"), (2, "solved"), (3, "solved"))
    add_survey(connection, "rainbow", M, "native", (1, "solved"), (2, "unknown"), (3, "solved"))
    table = solvability.table(connection, 10 * M, 3, "10m")
    assert table[2].startswith("| rows-of-four | 3 | 3 (100.0%; ")
    assert table[3].startswith("| deauville | 3 | 1 (33.3%; ")
    assert " | 1 (33.3%; " in table[3] and table[3].count("1 (33.3%") == 3
    assert not any(line.startswith(("| emperor", "| rainbow")) for line in table)
    assert table[-1] == (
        "Not yet surveyed at 10m (deals undecided below it): rainbow (1, the first 2), "
        "emperor (1, the first 3)"
    )
    # At 1m the 10m rows are not read: deal 2 stays undecided there.
    assert solvability.table(connection, M, 3)[4].startswith("| deauville")
    assert solvability.table(connection, M, 3)[4].endswith(" | 2 (66.7%; 20.8-93.9%) |")


def test_a_budget_is_read_as_positions() -> None:
    assert [dataset.parse_budget(text) for text in ("1m", "10M", "200k", "5000")] == [
        M,
        10 * M,
        200_000,
        5_000,
    ]
    with pytest.raises(ValueError, match="not a budget"):
        dataset.parse_budget("ten")


def test_the_wilson_interval() -> None:
    wilson = solvability.wilson
    low, high = wilson(0, 1000)
    assert low == pytest.approx(0, abs=1e-12)
    assert high == pytest.approx(0.00383, abs=1e-5)  # 3.84 / 1003.84
    low, high = wilson(951, 1000)
    assert (round(low, 3), round(high, 3)) == (0.936, 0.963)
    low, high = wilson(5, 10)
    assert low == pytest.approx(1 - high)  # symmetric about a half


def _history_has_the_files() -> bool:
    found = subprocess.run(
        ["git", "rev-list", "-1", "HEAD", "--", *import_surveys.FOLDERS],
        cwd=dataset.ROOT,
        capture_output=True,
        text=True,
    )
    return found.returncode == 0 and bool(found.stdout.strip())


@pytest.mark.skipif(not _history_has_the_files(), reason="no git history of bench/surveys")
def test_the_import_from_git_history_gives_the_dataset_s_imported_rows(tmp_path: Path) -> None:
    """Run again, the one import gives row for row what the dataset holds of the old files
    (every column but the id), one row per line of the 127 files."""
    out = tmp_path / "again.sqlite"
    assert import_surveys.main(["--out", str(out)]) == 0
    columns = ", ".join(f'"{c}"' for c in dataset.COLUMNS)
    query = f"SELECT {columns} FROM searches WHERE source LIKE 'bench/%' ORDER BY id"
    again = [tuple(row) for row in dataset.connect(out).execute(query)]
    kept = [tuple(row) for row in dataset.connect(COMMITTED, readonly=True).execute(query)]
    assert len(again) == 77_415 and again == kept
    sources = {row[dataset.COLUMNS.index("source")] for row in again}
    assert len(sources) == 127
