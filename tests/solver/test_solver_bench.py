"""bench/solver.py's logic: its speed table (one row a game, the positions ``solve`` met),
its account of hints asked in the order of play (once a game's position is proven lost,
its later hints are answered so without a search, ``Game.lost_at``), and the fate part's
choice of games; and bench/core.py's playouts: the engine's, written in the bench, end
where the native core's do."""

from __future__ import annotations

import pytest

from app.config import Settings
from app.engine import State, deal, get_variant
from app.solver import core
from app.solver.plan import solve
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

    def solve(position: State, budget: int, seconds: float | None) -> SolveResult:
        # The hint's budget leaves both undecided; the long search proves them lost.
        result: Result = "unknown" if seconds is not None else "unsolvable"
        return SolveResult(result, [], budget, 0, "")

    monkeypatch.setattr(bench, "greedy_positions", positions)
    monkeypatch.setattr(bench, "solve", solve)
    bench.hint_fate(range(1, 3), 8, 8, Settings(), 1_000, ["canfield"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert asked == [("canfield", 1), ("canfield", 2)]
    assert rows[-2:] == [
        "| canfield | 4 | 4 | 0 | 4 | 0 | 0 |",
        "| these | 4 | 4 | 0 | 4 | 0 | 0 |",
    ]


def test_the_speed_table_has_one_row_a_game_with_the_positions_solve_met(
    capsys: pytest.CaptureFixture[str],
) -> None:
    load("solver").speed(2, 300, [], ["canfield:1", "rainbow:2"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("## positions per second on the native core (canfield:1, rainbow:2")
    assert out[1] == "| game | positions | positions/s (CPU) |"
    rows = [line.split(" | ") for line in out[3:]]
    assert [row[0] for row in rows] == ["| canfield", "| rainbow"]
    for row, (name, number) in zip(rows, [("canfield", 1), ("rainbow", 2)], strict=True):
        met = solve(deal(get_variant(name), number), max_positions=300).positions
        assert row[1] == f"{met:,}"


def test_the_engine_playout_ends_where_the_native_one_does() -> None:
    bench = load("core")
    for name in ("canfield", "forty-thieves"):
        for state, seed in bench.starts(name, 2, seed=3):
            positions, end = bench.engine_playout(state, seed, 200)
            native_positions, _keys, native_end = core.native().playout(
                core.position(state), seed, 200
            )
            assert (positions, end.to_bytes()) == (native_positions, native_end.to_bytes())
    rows = bench.playout_rates(1, 30, seed=1)
    assert all(row["positions"] > 0 and row["ratio"] > 0 for row in rows.values())
