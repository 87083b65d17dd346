"""Our verdicts beside a peer solver's, on the same deals: Solvitaire (Blake and Gent,
https://github.com/thecharlieblake/Solvitaire), for the games it can play.

An ``unsolvable`` that is wrong is the worst bug the solver can have, and our own tests
can only check the search against itself (with and without each reduction). This puts
the deals our surveys prove lost (and any others) before an independent solver, as a
deal file of its JSON format, and fails on a contradiction.

Which way a verdict carries depends on how the two games compare (``PEERS``):

- ``same``: Forty Thieves is the same game in both (two decks, ten piles of four face
  up, single cards in suit, any card into an empty pile, one pass). Either solver's
  win contradicts the other's lost proof.
- ``inside``: Solvitaire's Canfield and its Rainbow (custom rules below) are smaller
  games than ours: their tableau wraps from King to Ace but never builds a card of the
  rank below the base onto a base-rank card (ranks count from the base), where ours
  wraps all the way round (``docs/rules.md``). Every line of theirs is legal in ours, so
  their win contradicts our lost proof; their ``unsolvable`` says nothing of ours.

Solvitaire is not part of the project: build it where you run this (it needs Boost's
program_options; its googletest download is only for its own tests)::

    git clone https://github.com/thecharlieblake/Solvitaire /tmp/solvitaire
    cd /tmp/solvitaire && g++ -std=c++14 -O2 -DNDEBUG -Ilib/rapidjson -Ilib \\
        $(find src/main -name '*.cpp') -o solvitaire-bin -lboost_program_options -pthread

    .venv/bin/python -m research peer canfield --solvitaire /tmp/solvitaire/solvitaire-bin \\
        --budget 1m --only unsolvable --timeout 60

Our verdict on each deal is the dataset's within ``--budget`` (the rule of
research/README.md); each answer is a row of the dataset (kind ``peer``), and a rerun
with the same peer settings asks only the deals it holds no row of.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from app.engine import CODE, State, deal, get_variant
from research import dataset

RAINBOW_RULES = {
    "tableau piles": {
        "count": 4,
        "build policy": "any-suit",
        "move built group": "yes",
        "spaces policy": "auto-reserve-then-any",
    },
    "foundations": {"initial cards": "one", "base card": "random", "removable": True},
    "stock": {"size": 34, "deal count": 1, "redeal": False},
    "reserve": {"size": 13, "stacked": True},
}

# game -> (Solvitaire's preset type or our custom rules, how the games compare)
PEERS: dict[str, tuple[str | dict[str, Any], str]] = {
    "forty-thieves": ("forty-thieves", "same"),
    "canfield": ("canfield-arbitrary-built-moves", "inside"),
    "rainbow": (RAINBOW_RULES, "inside"),
}


def card_text(card: int) -> str:
    code = CODE[card]
    return ("10" + code[1:]) if code[0] == "T" else code


def deal_json(state: State) -> dict[str, Any]:
    """A deal in Solvitaire's format: piles bottom to top, the stock's last card the next
    one dealt (as ours), the reserve's last card its top; the foundations' cards in one
    list, which it puts each on the foundation of its suit."""
    assert not state.waste and not any(state.hidden), "a fresh deal, every card face up"
    out: dict[str, Any] = {
        "tableau piles": [[card_text(c) for c in pile] for pile in state.tableau],
        "stock": [card_text(c) for c in state.stock],
    }
    if state.reserve:
        out["reserve"] = [card_text(c) for c in state.reserve]
    if any(state.foundations):
        # One list of cards, each put on its suit's foundation in turn.
        out["foundations"] = [card_text(c) for pile in state.foundations for c in pile]
    return out


def peer_verdict(
    binary: Path, game: str, number: int, timeout: float, work: Path, cache: int | None = None
) -> str:
    """Solvitaire's answer for one deal: solved, unsolvable or timed-out. ``cache``: its
    cache's bound in states (its own default is 100,000,000, some 3.4 GB a minute into a
    hard Forty Thieves deal); past the bound it forgets the least recently used states,
    which costs it time, not soundness."""
    rules, _ = PEERS[game]
    deal_file = work / f"{game}-{number}.json"
    deal_file.write_text(json.dumps(deal_json(deal(get_variant(game), number))))
    command = [str(binary), "--classify", "--timeout", str(int(timeout * 1000))]
    if cache is not None:
        command += ["--cache-capacity", str(cache)]
    if isinstance(rules, str):
        command += ["--type", rules]
    else:
        rules_file = work / f"{game}-rules.json"
        rules_file.write_text(json.dumps(rules))
        command += ["--custom-rules", str(rules_file)]
    done = subprocess.run(
        [*command, str(deal_file)], capture_output=True, text=True, timeout=timeout + 60
    )
    text = done.stdout.lower()
    for verdict in ("unsolvable", "solved", "timed-out"):
        if verdict in text:
            return verdict
    raise RuntimeError(f"unexpected Solvitaire output for {game} {number}: {done.stdout!r}")


def contradicts(ours: str, theirs: str, relation: str) -> bool:
    if ours == "unsolvable" and theirs == "solved":
        return True  # their line is legal in our game: our lost proof is wrong
    return relation == "same" and ours == "solved" and theirs == "unsolvable"


def done_before(connection: sqlite3.Connection, game: str, settings: dict[str, Any]) -> set[int]:
    """The deals of ``game`` the peer already answered with these settings: a run that
    was stopped resumes where it stopped (each peer run may take minutes)."""
    return {row["deal"] for row in dataset.rows_of(connection, "peer", game, None, settings)}


def ours(connection: sqlite3.Connection, game: str, budget: int, deals: int) -> dict[int, str]:
    """Deals 1..``deals`` of ``game`` and our verdict on each within ``budget`` (unknown
    where no row decides it)."""
    found = dataset.verdicts(connection, budget)
    return {n: found.get((game, n)) or "unknown" for n in range(1, deals + 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(PEERS))
    parser.add_argument("--solvitaire", type=Path, required=True, help="its built binary")
    parser.add_argument("--budget", default="10m", help="our verdicts within this budget")
    parser.add_argument("--deals", type=int, default=1000, help="deals 1..N")
    parser.add_argument("--only", choices=["solved", "unsolvable", "unknown"], default=None)
    parser.add_argument("--deal", type=int, action="append", help="only this deal (repeatable)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per deal")
    parser.add_argument(
        "--cache-capacity", type=int, default=None, help="the peer's cache bound, in states"
    )
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET)
    args = parser.parse_args(argv)
    settings = {"solver": "solvitaire", "timeout": args.timeout}
    settings["cache_capacity"] = args.cache_capacity
    connection = dataset.connect(args.dataset)
    skip = done_before(connection, args.game, settings)
    relation = PEERS[args.game][1]
    asked = [
        (number, verdict)
        for number, verdict in ours(
            connection, args.game, dataset.parse_budget(args.budget), args.deals
        ).items()
        if (not args.only or verdict == args.only)
        and (not args.deal or number in args.deal)
        and number not in skip
    ]
    counts: Counter[tuple[str, str]] = Counter()
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        for number, verdict in asked:
            started = time.perf_counter()
            theirs = peer_verdict(
                args.solvitaire, args.game, number, args.timeout, Path(work), args.cache_capacity
            )
            flag = contradicts(verdict, theirs, relation)
            bad += flag
            counts[(verdict, theirs)] += 1
            result = {"game": args.game, "deal": number, "ours": verdict, "solvitaire": theirs}
            result |= {"seconds": round(time.perf_counter() - started, 1), "contradiction": flag}
            dataset.append(connection, [dataset.peer_row(result, settings=settings, source="peer")])
            print(json.dumps(result), flush=True)
    connection.close()
    print("| game | ours | Solvitaire | deals |")
    print("| --- | --- | --- | ---: |")
    for (verdict, theirs), count in sorted(counts.items()):
        print(f"| {args.game} | {verdict} | {theirs} | {count} |")
    if bad:
        print(f"{bad} contradictions", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
