"""bench/solver.py's logic: its account of hints asked in the order of play (once a game's
position is proven lost, its later hints are answered so without a search,
``Game.lost_at``), and the fate part's choice of games."""

from __future__ import annotations

import pytest

from app.config import Settings
from app.engine import State, deal, get_variant
from app.solver.result import Result, SolveResult
from tests.solver.bench_scripts import load


def test_a_proof_carries_forward_within_its_game_only() -> None:
    asked_in_order = load("solver").asked_in_order
    state = deal(get_variant("canfield"), 5)
    games = [[state] * 4, [state] * 3]
    results = ["unknown", "unsolvable", "unknown", "unknown"] + ["unknown", "solved", "unknown"]
    # Game one: the proof at its second hint decides the two after it (without a
    # search); the first stays undecided. Game two: nothing carries over from game one.
    assert asked_in_order(games, results) == (3 + 1, 2)
    assert asked_in_order(games, ["solved"] * 7) == (7, 0)
    assert asked_in_order(games, ["unsolvable"] * 7) == (7, 0)  # each proven by its own search


def test_the_fate_part_searches_only_the_games_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = load("solver")
    state = deal(get_variant("canfield"), 5)
    asked: list[tuple[str, int]] = []

    def positions(name: str, deals: range, moves: int, every: int) -> list[State]:
        asked.append((name, deals.start))
        return [state, state]

    def solve(position: State, budget: int, seconds: float | None, core: str) -> SolveResult:
        # The hint's budget leaves both undecided; the long search proves them lost.
        result: Result = "unknown" if seconds is not None else "unsolvable"
        return SolveResult(result, [], budget, 0, "")

    monkeypatch.setattr(bench, "greedy_positions", positions)
    monkeypatch.setattr(bench, "solve", solve)
    bench.hint_fate(range(1, 3), 8, 8, "native", Settings(), 1_000, ["canfield"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert asked == [("canfield", 1), ("canfield", 2)]
    assert rows[-2:] == [
        "| canfield | 4 | 4 | 0 | 4 | 0 | 0 |",
        "| these | 4 | 4 | 0 | 4 | 0 | 0 |",
    ]
