"""bench/solver.py's account of hints asked in the order of play: once a game's position
is proven lost, its later hints are answered so without a search (``Game.lost_at``)."""

from __future__ import annotations

from app.engine import deal, get_variant
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
