"""Difficulty ratings: calibrate the thresholds, and show that the levels mean something.

The deals are the public proven deals of ``seeds/<variant>.json`` (the server never deals
them, but they are proven deals like its own). The first ``--calibration`` of each list
are the calibration sample; the evidence uses only deals after them (held out).

    .venv/bin/python bench/difficulty.py --calibrate [--calibration 80] [--games 32]

proves each deal of the sample again with the server's prover and daily budget (the
positions the server rates with; deals it does not prove are left out), and prints each
variant's thresholds (``app/solver/difficulty.py``: ``thresholds``, ``THRESHOLDS``) with
how many deals the player won in every game, and in none.

    .venv/bin/python bench/difficulty.py [--held-out 80] [--per-level 6] [--play 16]

rates up to ``--held-out`` held-out deals per variant as the server does (``--games``
games of the human-like player, the positions of a proof by the server's prover with the
daily budget; a deal it does not prove is left out, as the server would never deal it), keeps up to
``--per-level`` deals of each level, and plays each again ``--play`` times with fresh
generators: with the human-like player, and with a random legal-move player that plays
a foundation move first when there is one. It prints a Markdown table of their win
rates and shares of cards put up per level (``--json``: the rows).

    .venv/bin/python bench/difficulty.py --cost [--calibration 80 --held-out 80]

times one rating (``--games`` games of the human-like player) of each of the 15 deals
after the held-out ones: median and worst per variant.

    .venv/bin/python bench/difficulty.py --daily

times the daily preparation the server does at start-up with ratings on: today's and
tomorrow's deals of the nine games (``--days``), each date's first deal and then one of each other
rating (candidates from a fresh secret, one after another, the daily budgets and
``DIFFICULTY_GAMES`` games a rating, as ``DailyDeals.prepare`` runs them), against the
first deals alone.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.config import Settings  # noqa: E402
from app.engine import VARIANTS, deal  # noqa: E402
from app.seeds import load  # noqa: E402
from app.services.background.proving import Proof, prove, prove_args  # noqa: E402
from app.services.daily.deals import candidate  # noqa: E402
from app.solver.difficulty import LEVELS, level, measure, simulate, thresholds  # noqa: E402
from app.solver.policy import human_move, random_move  # noqa: E402

SEEDS = Path(__file__).resolve().parent.parent / "seeds"


def proven(variant: str) -> list[int]:
    """The variant's public proven deals, in list order."""
    return [int(e["deal"]) for e in load(SEEDS / f"{variant}.json")["deals"]]


def server_positions(settings: Settings, variant: str, number: int) -> int | None:
    """The positions the server's prover needs for the deal with the daily budget (what
    the server rates with); None when it does not prove it within that budget (the server
    would never deal it)."""
    proof = prove(*prove_args(settings, variant, number, rated=False))
    return None if proof is None else proof.positions


def calibrate(variant: str, count: int, games: int) -> dict[str, Any]:
    v, settings = VARIANTS[variant], Settings()
    scores, all_won, never_won = [], 0, 0
    for number in proven(variant)[:count]:
        positions = server_positions(settings, variant, number)
        if positions is not None:
            measured = measure(deal(v, number), number, positions, games)
            scores.append(measured.score)
            all_won += measured.wins == games
            never_won += measured.wins == 0
    return {
        "variant": variant,
        "deals": len(scores),
        "all_won": all_won,
        "never_won": never_won,
        "thresholds": thresholds(sorted(scores), all_won),
    }


def evidence(variant: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    v = VARIANTS[variant]
    held = proven(variant)[args.calibration : args.calibration + args.held_out]
    by_level: dict[str, list[int]] = {name: [] for name in LEVELS}
    settings = Settings()
    for number in held:
        positions = server_positions(settings, variant, number)
        if positions is None:
            continue
        rated = level(variant, measure(deal(v, number), number, positions, args.games).score)
        if len(by_level[rated]) < args.per_level:
            by_level[rated].append(number)
    rows = []
    for name in LEVELS:
        deals = by_level[name]
        row: dict[str, Any] = {"variant": variant, "level": name, "deals": len(deals)}
        for label, policy in (("human", human_move), ("random", random_move)):
            wins, share = 0, 0.0
            for number in deals:
                w, s = simulate(deal(v, number), args.play, f"bench|{label}|{number}", policy)
                wins, share = wins + w, share + s
            played = args.play * len(deals)
            row[f"{label}_wins"] = wins / played if played else None
            row[f"{label}_share"] = share / len(deals) if deals else None
        rows.append(row)
    return rows


def cost(variant: str, args: argparse.Namespace) -> str:
    """A rating's time: median and worst over the 15 deals after the held-out ones."""
    v, first = VARIANTS[variant], args.calibration + args.held_out
    took = []
    for number in proven(variant)[first : first + 15]:
        lap = time.perf_counter()
        measure(deal(v, number), number, 1000, args.games)
        took.append(time.perf_counter() - lap)
    return (
        f"{variant}: median {statistics.median(took):.2f} s, worst {max(took):.2f} s "
        f"over {len(took)} deals, {args.games} games each"
    )


def _daily_deal(settings: Settings, secret: str, name: str, day: date, slot: str) -> int:
    """Candidates tried for one daily deal of ``slot`` ("" the first, else a rating)."""
    s = settings
    for attempt in range(s.daily_max_attempts):
        number = candidate(secret, name, day, attempt, slot)
        proof: Proof | None = prove(*prove_args(s, name, number))
        if proof is not None and (not slot or proof.difficulty == slot):
            if not slot:
                _first[(name, day)] = proof.difficulty
            return attempt + 1
    return s.daily_max_attempts


_first: dict[tuple[str, date], str | None] = {}


def daily(settings: Settings, days: int) -> None:
    """The daily preparation, one line per deal as it comes (a bounded run keeps what it
    measured), then the totals."""
    secret = secrets.token_urlsafe(16)
    today = date.today()
    dates = [today + timedelta(days=n) for n in range(days)]
    started = time.perf_counter()
    first = 0
    for day in dates:
        for name in VARIANTS:
            tried = _daily_deal(settings, secret, name, day, "")
            first += tried
            print(f"{name} {day} first ({_first[(name, day)]}): {tried} candidates", flush=True)
    first_took = time.perf_counter() - started
    print(f"first deals: {first_took:.1f} s ({first} candidates)", flush=True)
    others = 0
    for day in dates:
        for name in VARIANTS:
            for level_name in LEVELS:
                if level_name == _first[(name, day)]:
                    continue
                lap = time.perf_counter()
                tried = _daily_deal(settings, secret, name, day, level_name)
                others += tried
                took = time.perf_counter() - lap
                print(f"{name} {day} {level_name}: {tried} candidates, {took:.1f} s", flush=True)
    took = time.perf_counter() - started
    print(
        f"daily preparation of {len(dates)} date(s): {len(dates) * len(VARIANTS)} first deals "
        f"rated in {first_took:.1f} s ({first} candidates); with one deal of each other "
        f"rating ({len(dates) * len(VARIANTS) * 4} deals) {took:.1f} s ({first + others} "
        f"candidates); {settings.difficulty_games} games a rating, budget "
        f"{settings.daily_max_positions:,} positions or {settings.daily_max_seconds} s",
        flush=True,
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | level | deals | human-like: wins | human-like: cards up "
        "| random, foundation first: wins | random: cards up |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['variant']} | {r['level']} | {r['deals']} | {_pct(r['human_wins'])} | "
            f"{_pct(r['human_share'])} | {_pct(r['random_wins'])} | {_pct(r['random_share'])} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--daily", action="store_true")
    parser.add_argument("--cost", action="store_true")
    parser.add_argument("--days", type=int, default=2, help="--daily: dates from today")
    # The sample THRESHOLDS were set from (app/solver/difficulty.py).
    parser.add_argument("--calibration", type=int, default=80)
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--held-out", type=int, default=80)
    parser.add_argument("--per-level", type=int, default=6)
    parser.add_argument("--play", type=int, default=16)
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.daily:
        daily(Settings(difficulty_games=args.games), args.days)
    elif args.cost:
        for variant in args.variants:
            print(cost(variant, args), flush=True)
    elif args.calibrate:
        for variant in args.variants:
            result = calibrate(variant, args.calibration, args.games)
            print(json.dumps(result), flush=True)
    else:
        rows: list[dict[str, Any]] = []
        for variant in args.variants:
            rows += evidence(variant, args)
            print(json.dumps(rows[-4:]) if args.json else f"{variant} done", flush=True)
        print(table(rows))
    print(f"{time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
