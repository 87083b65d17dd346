"""How hard a proven deal is: `easy`, `medium`, `hard` or `expert`, measured.

The measure is how well a human-like player does on the deal (:func:`app.solver.policy.
human_move`, which sees only what a player sees): ``games`` simulated games, each with its
own random generator (seeded from the variant, the deal and the game's number, so a
deal's rating is always the same), and their mean share of the cards put up (a won game
puts up all of them). The share and not only the win rate: in most of these games the
human-like player seldom wins a proven deal, and the share of wins alone would rate most
deals alike; the two go together (a deal where the player wins often is one where it
puts up many cards).

What the search needed to prove the deal is the second signal: the score is the share
less ``POSITIONS_WEIGHT`` times log10 of the proof's positions over 6 (at most 0.01 for a
proof of a million positions), so it separates deals the player does about equally well
on and moves the others a little.

The score is read against per-variant thresholds (:data:`THRESHOLDS`), set by
:func:`thresholds` from the scores of a calibration sample of proven deals (the first 80
of each public ``seeds/`` list that the server's prover proves with the daily budget, 32
games each, rated with that proof's positions): their quartiles, so that about a quarter
of proven deals is each level; but where the player wins every game of more than a
quarter of the sample (Rainbow, Rank and File, Number Ten), those deals are all `easy`
(a score of at least :data:`ALL_WON`) and the others are split in thirds: quartiles
would tell deals the player always wins apart by the proof's positions alone, which a
player does not feel.
``docs/decisions/0014-difficulty-calibration.md`` says how; ``bench/difficulty.py
--calibrate`` measures them again, and ``bench/difficulty.py`` checks on held-out deals
that the levels mean something (docs/benchmarks.md).

Pure: the engine and the policy, no I/O; the service runs it in the background lane of
the worker pool right after a deal's proof (:func:`app.services.background.proving.prove`).
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from typing import Literal

from app.engine import State
from app.solver.policy import Policy, human_move, play

Difficulty = Literal["easy", "medium", "hard", "expert"]
LEVELS: tuple[Difficulty, ...] = ("easy", "medium", "hard", "expert")

# How much what the search needed weighs (module docstring).
POSITIONS_WEIGHT = 0.01

# Every deal won in all its games scores at least this (the share is 1).
ALL_WON = 1 - POSITIONS_WEIGHT

# Per variant, the lowest score of `easy`, `medium` and `hard` (below the last: `expert`):
# `thresholds` of the calibration sample's scores (bench/difficulty.py --calibrate,
# docs/decisions/0014-difficulty-calibration.md).
THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "rank-and-file": (0.99, 0.841705, 0.643621),
    "rows-of-four": (0.757682, 0.637956, 0.541373),
    "rainbow": (0.99, 0.450152, 0.337199),
    "deauville": (0.374692, 0.3156, 0.275825),
    "emperor": (0.38466, 0.315213, 0.264042),
    "number-ten": (0.99, 0.756549, 0.513081),
    "forty-thieves": (0.433404, 0.361528, 0.278635),
    "diplomat": (0.575137, 0.455703, 0.369558),
    "canfield": (0.385482, 0.187515, 0.111214),
}


@dataclass(frozen=True)
class Measure:
    """One deal's measure: the simulated games, their wins and mean share of cards put
    up, the proof's positions, and the score they give."""

    games: int
    wins: int
    share: float
    positions: int
    score: float


def simulate(start: State, games: int, seed: str, policy: Policy = human_move) -> tuple[int, float]:
    """``games`` games of ``policy`` from ``start``: wins and mean share of cards put up.
    Game ``i`` uses the generator seeded with ``"<seed>|<i>"``."""
    total = start.variant.card_count
    wins, up = 0, 0
    for i in range(games):
        cards = play(start, policy, random.Random(f"{seed}|{i}"))
        wins += cards == total
        up += cards
    return wins, up / (games * total) if games else 0.0


def score(share: float, positions: int) -> float:
    return share - POSITIONS_WEIGHT * min(1.0, math.log10(max(positions, 1)) / 6)


def measure(start: State, number: int, positions: int, games: int) -> Measure:
    """The human-like player's ``games`` games of deal ``number`` (dealt as ``start``)."""
    wins, share = simulate(start, games, f"difficulty|{start.variant.name}|{number}")
    return Measure(games, wins, share, positions, score(share, positions))


def thresholds(scores: list[float], all_won: int) -> tuple[float, float, float]:
    """The lowest scores of `easy`, `medium` and `hard` for a calibration sample's
    ``scores``, ``all_won`` of whose deals the player won in every game: the quartiles;
    but when those are more than a quarter of the sample, `easy` from :data:`ALL_WON` and
    the thirds of the other scores below it."""
    if 4 * all_won > len(scores):
        rest = [value for value in scores if value < ALL_WON]
        if len(rest) >= 3:
            third = statistics.quantiles(rest, n=3, method="inclusive")
            return (ALL_WON, round(third[1], 6), round(third[0], 6))
    q = statistics.quantiles(scores, n=4, method="inclusive")
    return (round(q[2], 6), round(q[1], 6), round(q[0], 6))


def level(variant: str, value: float) -> Difficulty:
    """The rating of a score for ``variant`` (:data:`THRESHOLDS`)."""
    easy, medium, hard = THRESHOLDS[variant]
    if value >= easy:
        return "easy"
    if value >= medium:
        return "medium"
    return "hard" if value >= hard else "expert"


def rate(start: State, number: int, positions: int, games: int) -> Difficulty:
    return level(start.variant.name, measure(start, number, positions, games).score)
