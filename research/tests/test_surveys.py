"""The survey rows in bench/surveys/ never contradict each other, and the solvability
table's interval is the Wilson score interval (research/solvability.py)."""

from __future__ import annotations

import json
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest


def solvability() -> ModuleType:
    return import_module("research.solvability")


def write_rows(directory: Path, name: str, *verdicts: tuple[int, str]) -> None:
    """A survey file of one row per (deal, verdict)."""
    lines = [
        json.dumps({"deal": deal, "result": result, "positions": 1, "elapsed_ms": 1})
        for deal, result in verdicts
    ]
    (directory / name).write_text("\n".join(lines) + "\n")


def test_no_survey_row_contradicts_another() -> None:
    module = solvability()
    assert len(list(module.SURVEYS.glob("*.jsonl"))) >= 9
    assert module.contradictions() == []


def test_a_contradiction_between_two_files_is_found(tmp_path: Path) -> None:
    module = solvability()
    row = {"deal": 7, "positions": 10, "elapsed_ms": 1}
    (tmp_path / "deauville-1m-native.jsonl").write_text(json.dumps({**row, "result": "solved"}))
    (tmp_path / "deauville-10m-native.jsonl").write_text(
        json.dumps({**row, "result": "unsolvable"})
    )
    (tmp_path / "emperor-1m-native.jsonl").write_text(json.dumps({**row, "result": "unknown"}))
    (tmp_path / "emperor-10m-native.jsonl").write_text(json.dumps({**row, "result": "solved"}))
    (tmp_path / "unsolvable-reproved.jsonl").write_text(
        json.dumps({**row, "game": "emperor", "result": "unsolvable"})
    )
    clashes = [line.split(":")[0] for line in module.contradictions(tmp_path)]
    assert clashes == ["deauville 7", "emperor 7"]


def test_the_table_takes_later_verdicts_for_the_deals_a_survey_left_undecided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = solvability()
    monkeypatch.setattr(module, "SURVEYS", tmp_path)

    write_rows(tmp_path, "deauville-1m-native.jsonl", (1, "solved"), (2, "unknown"), (3, "unknown"))
    write_rows(tmp_path, "deauville-1m-beam.jsonl", (2, "solved"), (3, "unknown"))
    write_rows(tmp_path, "deauville-10m-native.jsonl", (3, "solved"))  # another budget: not read
    write_rows(tmp_path, "deauville-1m.jsonl", (3, "solved"))  # not a rerun of the native survey
    table = module.table("1m", 3)
    assert len(table) == 3  # the one game surveyed at this budget
    assert table[2].startswith("| deauville | 3 | 2 (66.7%; ")
    assert "| 0 (0.0%; " in table[2] and table[2].endswith(" | 1 (33.3%; 6.1-79.2%) |")


def test_a_larger_budget_counts_the_smaller_ones_proofs_and_lists_deals_it_never_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = solvability()
    monkeypatch.setattr(module, "SURVEYS", tmp_path)

    write_rows(tmp_path, "deauville-1m-native.jsonl", (1, "solved"), (2, "unknown"), (3, "unknown"))
    write_rows(tmp_path, "deauville-10m-later.jsonl", (2, "unsolvable"), (3, "unknown"))
    write_rows(tmp_path, "emperor-1m-native.jsonl", (1, "solved"), (2, "unknown"), (3, "unknown"))
    # Deal 3: undecided at 1m, never searched at 10m.
    write_rows(tmp_path, "emperor-10m-later.jsonl", (2, "solved"))
    # No row at 10m at all: decided at 1m, it is in the table; else it is listed.
    write_rows(
        tmp_path, "rows-of-four-1m-native.jsonl", (1, "solved"), (2, "solved"), (3, "solved")
    )
    write_rows(tmp_path, "rainbow-1m-native.jsonl", (1, "solved"), (2, "unknown"), (3, "solved"))
    table = module.table("10m", 3)
    assert table[2].startswith("| rows-of-four | 3 | 3 (100.0%; ")
    assert table[3].startswith("| deauville | 3 | 1 (33.3%; ")
    assert " | 1 (33.3%; " in table[3] and table[3].count("1 (33.3%") == 3
    assert not any(line.startswith(("| emperor", "| rainbow")) for line in table)
    assert table[-1] == (
        "Not yet surveyed at 10m (deals undecided below it): rainbow (1, the first 2), "
        "emperor (1, the first 3)"
    )
    # At 1m the 10m rows are not read: deal 2 stays undecided there.
    assert module.table("1m", 3)[4].startswith("| deauville")
    assert module.table("1m", 3)[4].endswith(" | 2 (66.7%; 20.8-93.9%) |")


def test_the_wilson_interval() -> None:
    wilson = solvability().wilson
    low, high = wilson(0, 1000)
    assert low == pytest.approx(0, abs=1e-12)
    assert high == pytest.approx(0.00383, abs=1e-5)  # 3.84 / 1003.84
    low, high = wilson(951, 1000)
    assert (round(low, 3), round(high, 3)) == (0.936, 0.963)
    low, high = wilson(5, 10)
    assert low == pytest.approx(1 - high)  # symmetric about a half
