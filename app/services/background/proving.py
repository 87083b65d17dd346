"""Proving deals winnable, for daily and solvable deals.

A proof is a call of the prover (the solver, `daily_prover`) on one deal number; its
winning line is replayed by the engine before it counts. Proofs are CPU work: they run
in the background lane of the app's one pool of workers (`services.background.cpu_pool.WorkPool`), at
low priority, after players' searches and in order of priority (a daily deal before a
solvable pool's next deal).

Deal numbers are derived from the server secret (HMAC-SHA256 of a message naming
what the number is for), so only the server can predict them.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.engine import MAX_DEAL, deal, get_variant
from app.solver.result import wins

if TYPE_CHECKING:
    from app.config import Settings

log = logging.getLogger("app.proving")

# Every deal number the server chooses (random, daily, solvable) stays below 2**53, so
# that JavaScript reads it exactly; that is still far too many to guess a deal from its
# face-up cards.
SERVER_DEAL_MAX = min(MAX_DEAL, 2**53 - 1)


def derive_deal(secret: str, message: str) -> int:
    """A deal number only the holder of `secret` can predict; each use names itself in
    `message` (e.g. "solvable|<variant>|<seq>") so that two uses never share numbers."""
    digest = hmac.new(secret.encode(), message.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % SERVER_DEAL_MAX + 1


@dataclass(frozen=True)
class Proof:
    deal: int
    positions: int
    elapsed_ms: int
    line: list[dict[str, Any]]
    # The deal's rating (`easy`, `medium`, `hard`, `expert`; None: not rated), measured
    # right after the proof (app/solver/difficulty.py).
    difficulty: str | None = None


Prover = Callable[..., Any]


def _load_prover(path: str) -> Prover:
    module, _, name = path.partition(":")
    prover: Prover = getattr(importlib.import_module(module), name)
    return prover


def prove_args(
    settings: Settings, variant: str, number: int, *, rated: bool = True
) -> tuple[str, str, int, int, float, int | None, str | None, int]:
    """The arguments of `prove` for a deal as the server proves it: the configured prover
    and daily budget, and (`rated`) the configured rater and games."""
    s = settings
    return (
        s.daily_prover,
        variant,
        number,
        s.daily_max_positions,
        s.daily_max_seconds,
        s.solver_table_size,
        s.difficulty_rater if rated else None,
        s.difficulty_games if rated else 0,
    )


def prove(
    prover_path: str,
    variant: str,
    number: int,
    positions: int,
    seconds: float,
    table_size: int | None = None,
    rater_path: str | None = None,
    games: int = 0,
) -> Proof | None:
    """Try to prove one deal winnable; the line is replayed by the engine before it counts.
    A proven deal is then rated (`rater_path`, "module:function" with the signature of
    `app.solver.difficulty.rate`, from `games` simulated games; none: not rated)."""
    prover = _load_prover(prover_path)
    start = deal(get_variant(variant), number)
    result = prover(start, max_positions=positions, max_seconds=seconds, table_size=table_size)
    if result.result != "solved":
        return None
    if not wins(start, result.moves):  # a line the rules refuse proves nothing
        # Without the number: a server-chosen deal number is a secret, logs included.
        log.error("a prover line for %s does not win; ignored", variant)
        return None
    rating = None
    if rater_path and games > 0:
        rating = str(_load_prover(rater_path)(start, number, result.positions, games))
    line = [m.to_json() for m in result.moves]
    return Proof(number, result.positions, result.elapsed_ms, line, rating)


def rate(rater_path: str, variant: str, number: int, positions: int, games: int) -> str:
    """Rate a deal proven before (`positions`: its proof's size) from `games` simulated
    games, as `prove` does right after a proof: for a deal dealt before it was rated."""
    start = deal(get_variant(variant), number)
    return str(_load_prover(rater_path)(start, number, positions, games))
