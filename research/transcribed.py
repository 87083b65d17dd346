"""Figures the solvability page once gave that no row kept, as rows of the dataset
transcribed from the page (kind ``transcribed``: never counted, never checked against
the others).

docs/solvability.md, before it was written from the dataset (7bfbbb5), gave two figures
of searches whose builds are gone: a probe of the full search alone at 100,000,000
positions on eight of Rainbow's hardest deals, and a plan with its beam passes capped,
tried at 30,000,000 on a throwaway build. This puts each deal the page names, with the
figure it gives, in the dataset: the search as the page describes it in ``settings``,
``commit`` and ``date`` those of the commit that first recorded the figure (as for the
imported rows), the page's words in ``extra``. What the page does not give (a time, the
positions of a search left undecided) stays NULL.

    .venv/bin/python -m research transcribe

A rerun adds only the rows the dataset lacks (by game, deal, settings and source).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path
from typing import Any

from research import dataset

PAGE = "docs/solvability.md at 7bfbbb5"
FROM = {"transcribed_from": PAGE}

# The full search alone at 100M (docs/solvability.md at 7bfbbb5, Rainbow's 35 deals of
# 1-200 undecided at 30M; docs/benchmarks.md at 489df0c, "three probes").
PROBE: dict[str, Any] = {
    "budget": 100_000_000,
    "settings": {
        "name": "full-100m-probe",
        "search": "full search alone (core.search), up to run arrangement",
        "table_size": 1 << 27,
    },
    "note": "a /tmp probe on 8 of Rainbow's 35 deals of 1-200 undecided at 30M: 'The full "
    "search alone, up to run arrangement, proves deal 14 lost in 12,292,327 positions and "
    "deal 43 in 32,092,875 (a /tmp probe at 100M on 8 of the 35; 5, 15, 34, 37, 38 and 42 "
    "stay undecided there)'; the undecided ones took 102-202 s each (docs/benchmarks.md at "
    "489df0c)",
    "commit": "489df0c5afb476237a9adfceea2472e96323ad64",
    "date": "2026-12-04",
}

# plan.solve with its beam passes capped at their share of a 10M budget, at 30M.
CAPPED: dict[str, Any] = {
    "budget": 30_000_000,
    "settings": {
        "name": "capped-passes-30m",
        "search": "plan.solve, its beam passes capped at their 10M share (8.5 M), "
        "a throwaway build",
    },
    "note": "'Capping the passes at their 10M share (8.5 M) at 30M, tried on a throwaway "
    "build, on the 35: 14 proven lost (21,792,327 positions in all) and 186 won "
    "(12,604,880), 33 undecided; but of the 36 deals the earlier 30M rows decided, 20 "
    "searched again that way gave 18 verdicts again and left 246 and 414 (won by the "
    "widest passes) undecided'; the 33 undecided and the 18 verdicts given again are not "
    "named",
    "commit": "47cca3ffa594c460392fc1fc745b8d18f390a1e9",
    "date": "2026-12-04",
}

# (the search, Rainbow's deal, its verdict, its positions where the page gives them)
FIGURES: list[tuple[dict[str, Any], int, str, int | None]] = [
    (PROBE, 14, "unsolvable", 12_292_327),
    (PROBE, 43, "unsolvable", 32_092_875),
    *((PROBE, n, "unknown", None) for n in (5, 15, 34, 37, 38, 42)),
    (CAPPED, 14, "unsolvable", 21_792_327),
    (CAPPED, 186, "solved", 12_604_880),
    *((CAPPED, n, "unknown", None) for n in (246, 414)),
]


def rows() -> list[dict[str, Any]]:
    """The transcribed rows, one per deal a figure names."""
    return [
        {
            "kind": "transcribed",
            "game": "rainbow",
            "deal": deal,
            "budget": search["budget"],
            "verdict": verdict,
            "positions": positions,
            "seconds": None,
            "commit": search["commit"],
            "settings": search["settings"],
            "date": search["date"],
            "source": PAGE,
            "extra": {**FROM, "note": search["note"]},
        }
        for search, deal, verdict, positions in FIGURES
    ]


def held(connection: sqlite3.Connection) -> set[tuple[str, int, str]]:
    """(game, deal, settings) of the transcribed rows the dataset holds."""
    found = connection.execute(
        "SELECT game, deal, settings FROM searches WHERE kind = 'transcribed' AND source = ?",
        (PAGE,),
    )
    return {(row["game"], row["deal"], row["settings"]) for row in found}


def transcribe(connection: sqlite3.Connection) -> int:
    """Append the rows the dataset lacks; how many."""
    there = held(connection)
    new = [
        row
        for row in rows()
        if (row["game"], row["deal"], dataset.settings_text(row["settings"])) not in there
    ]
    return dataset.append(connection, new)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET)
    args = parser.parse_args(argv)
    connection = dataset.connect(args.dataset)
    added = transcribe(connection)
    connection.close()
    print(json.dumps({"added": added, "rows": len(FIGURES)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
