"""``python -m app.solver prove``: the public lists of proven-winnable deals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import seeds
from app.engine import deal, get_variant
from app.solver import replay
from app.solver.cli import main

BUDGET = "3000"


def test_prove_writes_replayable_lines_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rank-and-file.json"
    main(["prove", "rank-and-file", "--count", "2", "--budget", BUDGET, "--out", str(path)])
    data = json.loads(path.read_text())
    assert data["variant"] == "rank-and-file" and len(data["deals"]) == 2
    main(["prove", "rank-and-file", "--count", "3", "--budget", BUDGET, "--out", str(path)])
    data = json.loads(path.read_text())
    numbers = [e["deal"] for e in data["deals"]]
    assert len(numbers) == 3 and len(set(numbers)) == 3
    assert data["searched_through"] >= max(numbers)
    for entry in data["deals"]:
        start = deal(get_variant("rank-and-file"), entry["deal"])
        assert isinstance(entry["line"], str)  # format 2: the moves' text forms
        assert replay(start, seeds.read_line(entry["line"])).is_won
