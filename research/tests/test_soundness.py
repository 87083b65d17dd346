"""research/soundness.py hunts for wrong verdicts at scale: what it counts as a
contradiction, that a contradiction keeps its position and fails the summary, and that a
stopped sweep resumes without searching a position twice."""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest

from app.engine import State
from research import dataset
from tests.solver.test_native_core import start, walk


def soundness() -> ModuleType:
    return import_module("research.soundness")


def test_only_the_other_verdict_contradicts() -> None:
    contradicts = soundness().contradicts
    assert contradicts("solved", "unsolvable")
    assert contradicts("unsolvable", "solved")
    assert not contradicts("solved", "unknown")
    assert not contradicts("unsolvable", "unsolvable")


def test_a_position_on_a_winning_line_is_known_won_where_the_plain_search_runs_out() -> None:
    truth = soundness().truth
    assert truth("line-0.8", "unknown") == "solved"
    assert truth("off-0.8", "unknown") == "unknown"  # random moves off it may lose it
    assert truth("random-3", "unsolvable") == "unsolvable"
    assert truth("line-0.99", "solved") == "solved"


def arguments(path: Path) -> argparse.Namespace:
    return argparse.Namespace(
        name="test-run",
        dataset=path,
        deals="3-3",
        games=["rainbow"],
        plain_budget=2_000,
        plain_core="native",
        back=8,
        full_budget=20_000,
    )


def two_positions(name: str, flip: bool, number: int, back: int = 8) -> Iterator[tuple[str, State]]:
    state = start(name, flip, number)
    yield "start", state  # the plain search cannot decide a whole deal: left undecided
    played = list(walk(state, random.Random(number), 400, greedy=False))
    yield "late", played[-1]  # random play's last position: small enough for it


def test_a_sweep_writes_a_row_per_position_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = soundness()
    monkeypatch.setattr(module, "positions", two_positions)
    args = arguments(tmp_path / "results.sqlite")
    module.sweep(args)
    rows = module.run_rows(dataset.connect(args.dataset), "test-run")
    searched = [row for row in rows if "plain" in row]
    assert len(searched) == 2 * 2  # two positions, the house rule both ways
    late = [row for row in searched if row["id"].endswith("/late")]
    assert all(row["plain"] != "unknown" for row in late)
    assert all(row["full"] in (row["plain"], "unknown") and "position" not in row for row in late)
    assert module.summary(args) == 0

    def unexpected(*_: object) -> dict[str, str]:
        raise AssertionError("a finished sweep searched again")

    monkeypatch.setattr(module, "verdicts", unexpected)
    module.sweep(args)
    assert len(module.run_rows(dataset.connect(args.dataset), "test-run")) == len(rows)
    # The plain search's verdict is the row's; the others' are in its extra fields.
    stored = dataset.connect(args.dataset).execute("SELECT * FROM searches").fetchall()
    assert {row["kind"] for row in stored} == {"soundness"}
    assert {row["deal"] for row in stored} == {3}
    assert [row["verdict"] for row in stored if row["verdict"]] == [r["plain"] for r in searched]


def test_a_contradiction_keeps_its_position_and_fails_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = soundness()
    monkeypatch.setattr(module, "positions", two_positions)
    monkeypatch.setattr(module, "plain", lambda state, budget, on: ("solved", 1))
    monkeypatch.setattr(module, "verdicts", lambda *_: {"full": "unsolvable", "hint": "solved"})
    args = arguments(tmp_path / "results.sqlite")
    module.sweep(args)
    rows = module.run_rows(dataset.connect(args.dataset), "test-run")
    kept = [row["position"] for row in rows if "position" in row]
    assert len(kept) == 4
    assert State.from_text(kept[0]).variant.name == "rainbow"
    assert module.summary(args) == 1
