"""The solvability table of docs/solvability.md, from the survey rows in bench/surveys/.

For each game, deals 1 to ``--deals`` within a budget, from the rows of every
``<game>-<budget>-<name>.jsonl`` (one JSON object per deal, as ``python -m app.solver
survey --out`` writes them; ``--undecided-in`` reruns among them) and of the smaller
budgets' files: a deal is proven winnable or lost when any of those rows proves it, and
undecided when a survey of the budget itself left it so. The table gives each share with
its 95% Wilson score interval; a game with deals that no survey of the budget searched
and none below it decided is listed apart, not counted. The run fails when two survey
files disagree about a deal (one says solved, another unsolvable; a file of several
games, such as ``unsolvable-reproved.jsonl``, names the game in each row). Run:

    .venv/bin/python -m research.solvability [--budget 1m] [--deals 1000]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from statistics import NormalDist

from app.engine import VARIANTS
from research.survey import survey_game

SURVEYS = Path(__file__).resolve().parents[1] / "bench" / "surveys"
Z95 = NormalDist().inv_cdf(0.975)


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial share (better than the normal
    approximation near 0 and 1, where several of these shares lie)."""
    if trials == 0:
        return 0.0, 1.0
    share = successes / trials
    denominator = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    return max(0.0, centre - half / denominator), min(1.0, centre + half / denominator)


def rows(path: Path) -> dict[int, str]:
    """Deal number -> verdict, the last row of a deal winning (a resumed survey)."""
    out: dict[int, str] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            out[int(row["deal"])] = str(row["result"])
    return out


def contradictions(directory: Path = SURVEYS) -> list[str]:
    """Deals that one survey file proves won and another proves lost."""
    verdicts: dict[tuple[str, int], dict[str, str]] = {}
    for path in sorted(directory.glob("*.jsonl")):
        named = survey_game(path)
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            game = row.get("game", named)  # files of several games name it in each row
            if game is not None and row["result"] != "unknown":
                verdicts.setdefault((game, int(row["deal"])), {})[path.name] = row["result"]
    return [
        f"{game} {deal}: {seen}"
        for (game, deal), seen in sorted(verdicts.items())
        if len(set(seen.values())) > 1
    ]


def percent(low: float, high: float) -> str:
    return f"{100 * low:.1f}-{100 * high:.1f}%"


BUDGETS = ("1m", "10m")  # the survey files' budget parts, smallest first


def verdicts(
    game: str, budget: str, deals: int, surveys: Path | None = None
) -> tuple[dict[int, str], list[int]]:
    """Each deal's verdict within ``budget``: proven by a row of that budget or a smaller
    one (a proof found within 1,000,000 positions is one within 10,000,000), else
    ``unknown`` where a survey of ``budget`` itself left it undecided. Also the deals no
    survey of ``budget`` searched that no smaller one decided: not yet surveyed there.
    The rows are those of ``surveys`` (default :data:`SURVEYS`)."""
    directory = SURVEYS if surveys is None else surveys
    found: dict[int, str] = {}
    searched: set[int] = set()
    for size in BUDGETS[: BUDGETS.index(budget) + 1]:
        for path in sorted(directory.glob(f"{game}-{size}-*.jsonl")):
            for deal, verdict in rows(path).items():
                if size == budget:
                    searched.add(deal)
                if verdict != "unknown":
                    found[deal] = verdict  # no contradiction: checked before the table
    for deal in searched:
        found.setdefault(deal, "unknown")
    missing = [deal for deal in range(1, deals + 1) if deal not in found]
    return found, missing


def table(budget: str, deals: int) -> list[str]:
    out = [
        "| game | deals | proven winnable (95% CI) | proven lost (95% CI) | undecided (95% CI) |",
        "| --- | ---: | --- | --- | --- |",
    ]
    partial = []
    for game in VARIANTS:
        if not any(SURVEYS.glob(f"{game}-*.jsonl")):
            continue  # never surveyed
        found, missing = verdicts(game, budget, deals)
        if missing:
            partial.append(f"{game} ({len(missing)}, the first {missing[0]})")
            continue
        counts = {verdict: 0 for verdict in ("solved", "unsolvable", "unknown")}
        for deal in range(1, deals + 1):
            counts[found[deal]] += 1
        cells = [
            f"{counts[v]:,} ({100 * counts[v] / deals:.1f}%; {percent(*wilson(counts[v], deals))})"
            for v in ("solved", "unsolvable", "unknown")
        ]
        out.append(f"| {game} | {deals:,} | " + " | ".join(cells) + " |")
    if partial:
        out.append("")
        out.append(
            f"Not yet surveyed at {budget} (deals undecided below it): " + ", ".join(partial)
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", default="1m", help="the survey files' budget part: 1m, 10m")
    parser.add_argument("--deals", type=int, default=1000)
    args = parser.parse_args(argv)
    clashes = contradictions()
    if clashes:
        print("surveys contradict each other:", *clashes, sep="\n", file=sys.stderr)
        return 1
    print("\n".join(table(args.budget, args.deals)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
