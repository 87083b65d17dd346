"""docs/solvability.md, written whole from the dataset (research/results.sqlite) and the
fixed prose below. Run, from the repository's root:

    .venv/bin/python -m research page > docs/solvability.md

Every figure on the page is read from the dataset by the one rule (``research/dataset.py``,
``VERDICTS``) or counted from its rows; the prose around them is here, in
:data:`TEMPLATE`. ``research/tests/test_page.py`` fails when the committed page differs
from what this writes: change the prose here, or the rows, and run the command again.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import textwrap
from pathlib import Path

from app.engine import VARIANTS
from research import dataset
from research.solvability import percent, table, wilson

DEALS = 1000
BUDGETS = {"1m": 1_000_000, "10m": 10_000_000}

# The source pages (docs/rules.md, "Sources") that state a solver's share or a win rate.
# game -> (share the source's solver proved within 1,000,000 positions, its seeds;
#          the stated win rate, its seed)
SOURCES = {
    "rank-and-file": (("38%", "000, 001"), ("60%", "002")),
    "deauville": (("40%", "000, 001"), None),
    "number-ten": (("30%", "000, 001"), None),
    "rows-of-four": (None, ("95%", "003")),
    "rainbow": (None, ("20%", "004")),
}

TEMPLATE = """\
# How often these games can be won

Deals 1-1,000 of each of the nine games, searched by the service's solver: how many are
proven winnable, how many proven lost, and how many the search left undecided, within
1,000,000 and within 10,000,000 positions a deal, with 95% intervals; then the
comparison with the source sites and with the published figure for Canfield.

This page is generated; do not edit it by hand. Its figures are read from the research
dataset, `research/results.sqlite` (table `searches`, one row per search;
[research/README.md](../research/README.md) describes it), and its prose is kept in
`research/page.py`. To write it again after new rows or a change of the prose:

```sh
.venv/bin/python -m research page > docs/solvability.md
```

`research/tests/test_page.py` fails when the committed page differs from what that
command writes.

## What "winnable" means

A deal is **winnable** when some sequence of legal moves wins it *as dealt*, with every
card known: the face-down cards and the order of the stock. The solver sees all of that
(`docs/solver.md`); a player does not. So the share of winnable deals is an upper bound
on any player's win rate, not the rate itself: a player must guess which face-down card
lies where, and in one-pass games a wrong guess is final.

- **Proven winnable**: a search found a winning line (a `solved` row), and the engine
  replayed the line to a win, validating every move.
- **Proven lost**: the full search ran out of moves without any budget cut (an
  `unsolvable` row): the exhaustion of every position reachable under the reductions of
  `docs/solver.md`, each with its argument.
- **Undecided**: the budget ran out first (an `unknown` row). Not a verdict.

Which rows stand for a deal is one rule, the query `VERDICTS` in `research/dataset.py`,
used by every table here: within a budget of N positions, a deal is winnable when any
counted row (kind `survey`, budget at most N) wins it; lost when any counted row within
N proves it lost; undecided when neither, and a counted row of budget N itself left it
undecided; otherwise it is not yet surveyed at N. A search within fewer positions counts
at a larger budget (a proof within 1,000,000 positions is one within 10,000,000). Two
rows of a deal from its first position that disagree (one `solved`, one `unsolvable`,
of kinds `survey`, `early-survey`, `reproof` or `plain`, at any budget) are a
contradiction, and the tables fail; there is none.

## Method

- **Deals**: numbers 1 to 1,000 of each game. A deal number seeds the shuffle
  (`app/engine/deal.py`), so these deals are a random sample of each game's deals, and
  the intervals are 95% Wilson score intervals for the share among all deals.
- **Search**: the service's search, `plan.solve` (restarts, beam passes and the full
  search, `docs/solver.md`), on every deal at 1,000,000 positions; the deals it left
  undecided, again at 10,000,000 (and some at 30,000,000). Deals still undecided were
  searched again by later versions of the search, and some by the full search alone.
  Every row keeps its commit and date.
- **Rows** of the dataset ({total} in all), by kind:

{kinds}

  The `survey` rows, by the search that made them:

{searches}

{reproofs}

## Deals 1-1,000 within 10,000,000 positions

Counts and shares, each with its 95% Wilson interval
(`.venv/bin/python -m research solvability --budget 10m --deals 1000`):

{table_10m}

## Deals 1-1,000 within 1,000,000 positions

(`.venv/bin/python -m research solvability --budget 1m --deals 1000`):

{table_1m}

## Where each game's winnable share lies

A game's true share of winnable deals is at least its proven-winnable share and at most
that plus its undecided share (every undecided deal might be winnable). With the
intervals: from the lower end of the proven-winnable interval to the upper end of the
interval for winnable-or-undecided (that is, not proven lost).

{bounds}

## Beside the source sites

The source pages of the rules (`docs/rules.md`, "Sources") are about Rank and File and
its family, Rows of Four and Rainbow. Two (seeds 000 and 001, German and Russian pages of
the site with the solver) state the share of deals their solver proved winnable within
up to a million positions a deal; three (seeds 002, 003, 004) state a win rate. No
source page states a figure for Emperor, Forty Thieves, Diplomat or Canfield.

{sources}

The source's solver and ours count "positions" differently (ours counts distinct
positions after safe moves, up to run arrangement in the run games), so the same budget
is not the same work, and the source does not say which deals it tried. A stated win
rate is a player's rate (or an estimate of it), a different quantity from the share of
winnable deals, which bounds it from above.

## Beside the published figure for Canfield

{canfield}

## Reproducing the earlier figures

This page once carried, beside the tables, the history of the surveys. Every such figure
is in the dataset: each row names its source (for the imported rows, the old file,
`bench/surveys/<game>-<n>m-<name>.jsonl` or `bench/checks/...`; for new rows, the
command), its settings (the run's `name`, the search), commit and date. From the
repository's root:

- The tables for deals 1-200 (within 1,000,000 or 10,000,000 positions):
  `.venv/bin/python -m research solvability --budget 10m --deals 200` (or `--budget 1m`).
- The 30,000,000-position figures (such as Canfield's 887 won, 112 lost and 1 undecided
  of deals 1-1,000, Rainbow's 868 won): `.venv/bin/python -m research solvability
  --budget 30m --deals 1000` (or `--deals 200`); games not searched at that budget are
  listed apart.
- A game's lost or undecided deals at a budget, such as Canfield's 112 lost at 10M:
  `sqlite3 research/results.sqlite "SELECT deal FROM searches WHERE kind = 'survey' AND
  game = 'canfield' AND budget <= 10000000 AND verdict = 'unsolvable' GROUP BY deal"`;
  for the undecided ones, `research.dataset.verdicts(connection, 10_000_000)` gives
  every deal's verdict by the rule.
- One run's rows, with positions and seconds (such as Rainbow's rows at 30M up to run
  arrangement): `sqlite3 research/results.sqlite "SELECT deal, verdict, positions,
  seconds FROM searches WHERE source = 'bench/surveys/rainbow-30m-arranged.jsonl'"`; a
  run since the import by its name, `json_extract(settings, '$.name') = 'deep-full-s6'`;
  one search's run by its file, such as 6977037's of deals 1-200, `source LIKE
  'bench/surveys/%-10m-share.jsonl'` (an imported row's `commit` is the commit that
  recorded it, not always the one that searched). What a run decided:
  `SELECT verdict, COUNT(*) FROM searches WHERE source = '...' GROUP BY verdict`.
- The re-proofs of lost deals: `SELECT source, verdict, COUNT(*) FROM searches WHERE
  kind = 'reproof' OR source LIKE '%reproved%' GROUP BY source, verdict` (the 126 deals
  proven lost at that time, searched again; Canfield's 112 proven lost again; Forty
  Thieves' 53, of which 45 are lost again at 10M and the eight withdrawn proofs, whose
  rows say `unknown` with `withdrawn` in `extra`).
- The plain exhaustive search on the lost deals (Canfield: all 112 lost, three of them
  only at 400,000,000 positions): `SELECT source, game, budget, verdict, COUNT(*) FROM
  searches WHERE kind = 'plain' GROUP BY source, game, budget, verdict`. Forty Thieves
  is beyond it: deal 238, proven lost in 531,408 positions, is undecided after
  200,000,000 plain positions (`.venv/bin/python -m research confirm-lost forty-thieves
  --deal 238 --budget 200000000`; its row: `SELECT verdict, positions, seconds FROM
  searches WHERE kind = 'plain' AND game = 'forty-thieves' AND deal = 238`: 349 s; its
  memory, 2.1 GB at most, is not in the row).
- The peer solver's (Solvitaire's) answers: `SELECT source, game, verdict, COUNT(*) FROM
  searches WHERE kind = 'peer' GROUP BY source, game, verdict` (its own word in
  `json_extract(extra, '$.solvitaire')`, ours within the run's budget in
  `json_extract(extra, '$.ours')`; its Canfield and Rainbow are smaller games than ours,
  so there its win would refute our lost proof and its `unsolvable` confirms nothing;
  its Forty Thieves is the same game). On Canfield, the 112 deals lost within
  10,000,000 positions (`.venv/bin/python -m research peer canfield --solvitaire BINARY
  --budget 10m --only unsolvable --timeout 60`) and the 63 undecided within 1,000,000
  (`--budget 1m --only unknown --timeout 30`): `SELECT json_extract(extra, '$.ours') AS
  ours, verdict, COUNT(*), MAX(seconds) FROM searches WHERE kind = 'peer' AND game =
  'canfield' GROUP BY ours, verdict`. It wins none of the 112 and proves all of them
  lost in its game (7 s at most); of the 63 it wins 11 within 30 s each (our search
  wins all 11 within 10,000,000), proves 34 lost and times out on 18. Its game is
  visibly smaller: of those 34, our search wins 27 within 10,000,000 positions, such as
  deal 90, whose line builds 5♠ on 6♥ with 6 the base rank (`SELECT DISTINCT deal FROM
  searches WHERE kind = 'peer' AND game = 'canfield' AND verdict = 'unsolvable' AND deal
  IN (SELECT deal FROM searches WHERE kind = 'survey' AND game = 'canfield' AND budget
  <= 10000000 AND verdict = 'solved')`).
- Two searches of Rainbow whose builds are gone, transcribed from this page as it stood
  at 7bfbbb5 (`.venv/bin/python -m research transcribe`; kind `transcribed`, not
  counted): the full search alone, up to run arrangement, at 100,000,000 positions on
  8 of the 35 deals of 1-200 then undecided at 30M (14 proven lost in 12,292,327
  positions, 43 in 32,092,875; 5, 15, 34, 37, 38 and 42 undecided), and `plan.solve`
  with its beam passes capped at their 10M share (8.5 M) at 30M (14 proven lost in
  21,792,327 positions, 186 won in 12,604,880; 246 and 414, won before by the widest
  passes, undecided): `SELECT json_extract(settings, '$.name'), deal, budget, verdict,
  positions FROM searches WHERE kind = 'transcribed'` (the page's words in `extra`).
  Deals 14 and 43 searched again by the full search alone of eb56597 at 35,000,000
  positions (`.venv/bin/python -m research full-search rainbow --budget 35000000 --only
  14 --only 43 --again --name again-35m`, and with `--no-relaxed --name
  again-35m-no-relaxed`, the search without the relaxed tableau's test, as in the
  probe): `SELECT deal,
  json_extract(settings, '$.search'), verdict, positions, seconds FROM searches WHERE
  game = 'rainbow' AND json_extract(settings, '$.name') LIKE 'again-35m%'`. Without the
  test, 14 is lost in 12,292,327 positions (9 s) and 43 in 32,092,875 (33 s), the
  probe's figures again; with it, in 92,301 and 65,076.
- A figure as it stood on an earlier day: the same rule on the rows dated up to that
  day, `.venv/bin/python -m research solvability --budget 10m --deals 200 --until
  2026-12-03` (the dates of the imported rows are those of the commits that recorded
  them: research/README.md).
"""

CANFIELD = """\
Blake and Gent (JAIR 2026) report that 71.245% +/- 0.031% of 10,000,000 Canfield deals
are winnable, under a rule that does not build below the base rank. Our Canfield
(`app/engine/variants.py`; `docs/rules.md`, "Rainbow" and "Canfield") is one deck: the
first card goes to a foundation and sets the base rank of all four; 13 cards form the
reserve, only its top card face up and playable; one card goes face up to each of four
tableau piles; the other 34 are the stock. Foundations build up in suit from the base
rank, wrapping from King to Ace. The tableau builds down in alternating colours,
**wrapping** (a King goes on an Ace), so a card of the rank just below the base goes on
a base-rank card of the other colour: the move their rule forbids. Any part of a pile
from a face-up card up moves together. An empty pile is filled at once from the reserve
while it has cards, and takes any card or run once it is empty. The stock deals three
cards at a time, with **unlimited redeals**. Foundation cards never return to the
tableau.

Ours: proven winnable {won} of {deals} deals within 10,000,000 positions
({share}; 95% interval {interval}), {lost} proven lost, {undecided} undecided, so the
winnable share lies within {bounds}. Building below the base rank gives our
game moves theirs lacks: where the other rules agree, a deal won under their rule is
won under ours, so a higher share here is what the difference predicts; this page does
not measure how much of the gap it accounts for. Their figure is of 10,000,000 deals,
ours of 1,000."""


def _rows(
    connection: sqlite3.Connection, query: str, parameters: tuple[object, ...] = ()
) -> list[tuple[object, ...]]:
    return [tuple(row) for row in connection.execute(query, parameters)]


def _counts(connection: sqlite3.Connection, budget: int) -> dict[str, tuple[int, int, int]]:
    found = dataset.verdicts(connection, budget)
    out = {}
    for game in VARIANTS:
        told = [found.get((game, deal)) for deal in range(1, DEALS + 1)]
        if None in told:
            continue
        out[game] = (told.count("solved"), told.count("unsolvable"), told.count("unknown"))
    return out


def _bounds(won: int, lost: int) -> str:
    """The winnable share's range, from the proven-winnable share to that plus the
    undecided one, and with the intervals (low end of the first, high end of the
    not-lost one)."""
    low = won / DEALS
    high = (DEALS - lost) / DEALS
    return (
        f"{100 * low:.1f}-{100 * high:.1f}% "
        f"({percent(wilson(won, DEALS)[0], wilson(DEALS - lost, DEALS)[1])})"
    )


def _kinds(connection: sqlite3.Connection) -> str:
    counts = {
        str(kind): int(str(count))
        for kind, count in _rows(connection, "SELECT kind, COUNT(*) FROM searches GROUP BY kind")
    }
    return "\n".join(
        _wrap(f"- `{kind}`, {counts[kind]:,} rows: {meaning}", "  ", "    ")
        for kind, meaning in dataset.KINDS.items()
        if kind in counts
    )


def _wrap(text: str, first: str = "", rest: str = "") -> str:
    return textwrap.fill(text, 88, initial_indent=first, subsequent_indent=rest or first)


def _searches(connection: sqlite3.Connection) -> str:
    query = """
        SELECT CASE
                 WHEN json_extract(settings, '$.via') IS NOT NULL
                   THEN 'a smaller game''s winning line replayed in a larger one (transfer)'
                 WHEN json_extract(settings, '$.search') LIKE 'full search alone%'
                   THEN 'the full search alone (full-search)'
                 ELSE '`plan.solve`, the service''s search (survey)'
               END AS search,
               budget, COUNT(*)
        FROM searches WHERE kind = 'survey'
        GROUP BY search, budget ORDER BY budget
    """
    by_search: dict[str, list[str]] = {}
    for search, budget, count in _rows(connection, query):
        by_search.setdefault(str(search), []).append(f"{count:,} at {int(str(budget)):,} positions")
    return "\n".join(
        _wrap(f"- {search}: {', '.join(parts)}", "  ", "    ")
        for search, parts in by_search.items()
    )


# The run that searched every lost deal again after the obligations' fix (a run round the
# whole cycle; docs/solver.md, "Obligations"): one row a search it tried.
LOST_AGAIN = "lost-again-fixed-obligations"


def _lost_again(connection: sqlite3.Connection) -> str:
    """The deals of the LOST_AGAIN run by game: searched, lost again, won (never: a won
    deal would be a contradiction the tables refuse)."""
    rows = _rows(
        connection,
        "SELECT game, COUNT(DISTINCT deal), "
        "COUNT(DISTINCT deal) FILTER (WHERE verdict = 'unsolvable'), "
        "COUNT(DISTINCT deal) FILTER (WHERE verdict = 'solved') "
        "FROM searches WHERE kind = 'reproof' AND json_extract(settings, '$.name') = ? "
        "GROUP BY game ORDER BY MIN(id)",
        (LOST_AGAIN,),
    )
    if not rows:
        return ""
    parts = [
        f"{game} {int(str(searched)):,} ({int(str(lost)):,} lost again, {int(str(won)):,} won)"
        for game, searched, lost, won in rows
    ]
    return (
        " After the obligations' fix, every deal a row proved lost was searched again by "
        "the full search alone, at twice its smallest proof or more (at least 2,000,000 "
        "positions, at most 30,000,000; with the deep relaxed test and up to run arrangement where "
        f"the plain full search left it undecided; rows named `{LOST_AGAIN}`): "
        + ", ".join(parts)
        + "; the others undecided at that budget."
    )


def _reproofs(connection: sqlite3.Connection) -> str:
    (reproof,) = _rows(
        connection,
        "SELECT COUNT(*) FROM searches WHERE kind = 'reproof' "
        "AND json_extract(settings, '$.name') IS NOT ?",
        (LOST_AGAIN,),
    )[0]
    again = _rows(
        connection,
        "SELECT game, budget, COUNT(*), COUNT(*) FILTER (WHERE verdict = 'unsolvable') "
        "FROM searches WHERE kind = 'survey' AND json_extract(settings, '$.name') = 'reproved' "
        "GROUP BY game, budget ORDER BY MIN(id)",
    )
    parts = [
        f"{game} {count:,} at {int(str(budget)):,} positions ({lost:,} lost again)"
        for game, budget, count, lost in again
    ]
    (plain, plain_lost) = _rows(
        connection,
        "SELECT COUNT(DISTINCT game || deal), "
        "COUNT(DISTINCT game || deal) FILTER (WHERE verdict = 'unsolvable') "
        "FROM searches WHERE kind = 'plain'",
    )[0]
    return _wrap(
        f"- **Re-proofs**: the {int(str(reproof)):,} deals proven lost when the first "
        "surveys ended, searched again by the full search at 10,000,000 positions (kind "
        "`reproof`: checked against the others, not counted); after faults were fixed in "
        "the search, the lost deals of a game searched again with `plan.solve` (counted "
        f"`survey` rows named `reproved`): {', '.join(parts)}; a proof not found again "
        "was withdrawn (its row says `unknown`, with `withdrawn` in `extra`). The plain "
        "exhaustive search (`confirm-lost`, every legal move and no reductions) on "
        f"{int(str(plain)):,} deals proven lost: {int(str(plain_lost)):,} lost again, "
        f"none won, {int(str(plain)) - int(str(plain_lost)):,} undecided within its budget."
        + _lost_again(connection),
        "",
        "  ",
    )


def _sources(
    counts: dict[str, tuple[int, int, int]], counts_10m: dict[str, tuple[int, int, int]]
) -> str:
    out = [
        "| game | source: share its solver proved within 1,000,000 positions | "
        "source: stated win rate | here: proven winnable within 1,000,000 (95% CI) | "
        "here: within 10,000,000 (95% CI) |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    for game, (proved, stated) in SOURCES.items():
        cells = [
            f"{proved[0]} (seeds {proved[1]})" if proved else "",
            f"{stated[0]} (seed {stated[1]})" if stated else "",
        ]
        for found in (counts, counts_10m):
            won = found[game][0]
            cells.append(f"{100 * won / DEALS:.1f}% ({percent(*wilson(won, DEALS))})")
        out.append(f"| {game} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def render(connection: sqlite3.Connection) -> str:
    """The whole page, from the dataset at ``connection``."""
    clashes = dataset.contradictions(connection)
    if clashes:
        raise ValueError("rows contradict each other: " + "; ".join(clashes))
    counts = {label: _counts(connection, budget) for label, budget in BUDGETS.items()}
    ten = counts["10m"]
    bounds = [
        "| game | within 1,000,000 positions | within 10,000,000 positions |",
        "| --- | --- | --- |",
    ]
    for game in ten:
        one = counts["1m"][game]
        bounds.append(
            f"| {game} | {_bounds(one[0], one[1])} | {_bounds(ten[game][0], ten[game][1])} |"
        )
    won, lost, undecided = ten["canfield"]
    canfield = CANFIELD.format(
        won=f"{won:,}",
        deals=f"{DEALS:,}",
        share=f"{100 * won / DEALS:.1f}%",
        interval=percent(*wilson(won, DEALS)),
        lost=f"{lost:,}",
        undecided=f"{undecided:,}",
        bounds=_bounds(won, lost),
    )
    (total,) = _rows(connection, "SELECT COUNT(*) FROM searches")[0]
    return TEMPLATE.format(
        total=f"{int(str(total)):,}",
        kinds=_kinds(connection),
        searches=_searches(connection),
        reproofs=_reproofs(connection),
        table_10m="\n".join(table(connection, BUDGETS["10m"], DEALS, "10m")),
        table_1m="\n".join(table(connection, BUDGETS["1m"], DEALS, "1m")),
        bounds="\n".join(bounds),
        sources=_sources(counts["1m"], counts["10m"]),
        canfield=canfield,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET)
    args = parser.parse_args(argv)
    sys.stdout.write(render(dataset.connect(args.dataset, readonly=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
