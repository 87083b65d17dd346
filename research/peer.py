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

    .venv/bin/python -m research.peer --solvitaire /tmp/solvitaire/solvitaire-bin \\
        --rows bench/surveys/canfield-1m-native.jsonl --only unsolvable --timeout 60 --out ROWS
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app.engine import CODE, State, deal, get_variant
from research.survey import end_torn_line, read_rows

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


def done_before(out: Path | None) -> set[tuple[str, int]]:
    """The (game, deal) pairs an earlier run already wrote to ``out``: a run that was
    stopped resumes where it stopped (each peer run may take minutes). A torn last line
    (a run stopped mid-write) is left out, and that deal is asked again."""
    return {(row["game"], row["deal"]) for row in read_rows(out)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solvitaire", type=Path, required=True, help="its built binary")
    parser.add_argument("--rows", type=Path, action="append", required=True, help="survey rows")
    parser.add_argument("--only", choices=["solved", "unsolvable", "unknown"], default=None)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per deal")
    parser.add_argument(
        "--cache-capacity", type=int, default=None, help="the peer's cache bound, in states"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="append one row per deal; a rerun skips the deals it holds",
    )
    args = parser.parse_args(argv)
    skip = done_before(args.out)
    bad = 0
    counts: dict[tuple[str, str, str], int] = {}
    with contextlib.ExitStack() as stack:
        if args.out:
            end_torn_line(args.out)
        sink = stack.enter_context(args.out.open("a")) if args.out else None
        work = stack.enter_context(tempfile.TemporaryDirectory())
        for rows in args.rows:
            game = next(name for name in PEERS if rows.name.startswith(name + "-"))
            relation = PEERS[game][1]
            for line in rows.read_text().splitlines():
                if not line.strip():
                    continue
                row = json.loads(line)
                if (args.only and row["result"] != args.only) or (game, row["deal"]) in skip:
                    continue
                started = time.perf_counter()
                theirs = peer_verdict(
                    args.solvitaire,
                    game,
                    row["deal"],
                    args.timeout,
                    Path(work),
                    args.cache_capacity,
                )
                seconds = round(time.perf_counter() - started, 1)
                key = (game, row["result"], theirs)
                counts[key] = counts.get(key, 0) + 1
                flag = contradicts(row["result"], theirs, relation)
                bad += flag
                result = {"game": game, "deal": row["deal"], "ours": row["result"]}
                result |= {"solvitaire": theirs, "seconds": seconds, "contradiction": flag}
                print(json.dumps(result), flush=True)
                if sink:
                    print(json.dumps(result), file=sink, flush=True)
    print("| game | ours | Solvitaire | deals |")
    print("| --- | --- | --- | ---: |")
    for (game, ours, theirs), count in sorted(counts.items()):
        print(f"| {game} | {ours} | {theirs} | {count} |")
    if bad:
        print(f"{bad} contradictions", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
