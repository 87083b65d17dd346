"""The research dataset: ``research/results.sqlite``, table ``searches``, one row per search
(research/README.md has the schema and the rule below).

Every command that searches appends its rows here (``survey``, ``full-search``,
``transfer``, ``confirm-lost``, ``peer``, ``soundness``), stamped with the commit and the
date; ``research/import_surveys.py`` put the rows of the old ``bench/surveys/`` and
``bench/checks/`` files in, through the same row shapes (:func:`survey_row` and the
rest), so an imported row and a new one read alike.

:data:`VERDICTS` is the rule of which rows stand for a deal, and the one place that
applies it (:func:`verdicts`)."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "research" / "results.sqlite"

# What a row records (the column ``kind``):
KINDS = {
    "survey": "a search of a deal from its first position whose verdict the tables count",
    "early-survey": "the first surveys (deals 1-200 at 1,000,000 positions), searched again "
    "by the native surveys: kept, not counted",
    "reproof": "lost deals searched again with later code (checked, not counted)",
    "plain": "the plain exhaustive search on a deal proven lost (confirm-lost)",
    "peer": "a peer solver's answer on a deal of ours (peer)",
    "soundness": "one position late in play: the plain search and the others (soundness)",
    "transcribed": "a figure an earlier page gave of a search no row kept, transcribed "
    "from the page (transcribe): not counted, not checked",
}

SCHEMA = """
CREATE TABLE IF NOT EXISTS searches (
    id        INTEGER PRIMARY KEY,
    kind      TEXT NOT NULL,
    game      TEXT NOT NULL,
    deal      INTEGER NOT NULL,
    budget    INTEGER,
    verdict   TEXT CHECK (verdict IN ('solved', 'unsolvable', 'unknown')),
    positions INTEGER,
    seconds   REAL,
    "commit"  TEXT,
    settings  TEXT NOT NULL DEFAULT '{}',
    date      TEXT,
    source    TEXT NOT NULL,
    extra     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS searches_by_deal ON searches (game, deal);
"""

COLUMNS = (
    "kind",
    "game",
    "deal",
    "budget",
    "verdict",
    "positions",
    "seconds",
    "commit",
    "settings",
    "date",
    "source",
    "extra",
)

# The rule: which rows stand for a deal, within :budget positions. A deal is won when any
# counted row (kind 'survey', budget at most :budget) wins it, lost when any proves it
# lost, undecided when a counted row of :budget itself left it so; otherwise (NULL, or no
# row) not yet surveyed at that budget. Any two rows of a deal from its first position that
# disagree (one solved, one unsolvable: survey, early-survey, reproof or plain, at any
# budget) make it a contradiction, an error.
VERDICTS = """
SELECT game, deal,
  CASE
    WHEN COUNT(*) FILTER (WHERE verdict = 'solved') > 0
     AND COUNT(*) FILTER (WHERE verdict = 'unsolvable') > 0 THEN 'contradiction'
    WHEN COUNT(*) FILTER (WHERE kind = 'survey' AND budget <= :budget
                          AND verdict = 'solved') > 0 THEN 'solved'
    WHEN COUNT(*) FILTER (WHERE kind = 'survey' AND budget <= :budget
                          AND verdict = 'unsolvable') > 0 THEN 'unsolvable'
    WHEN COUNT(*) FILTER (WHERE kind = 'survey' AND budget = :budget) > 0 THEN 'unknown'
  END AS verdict
FROM searches
WHERE kind IN ('survey', 'early-survey', 'reproof', 'plain')
GROUP BY game, deal
"""

# The kinds whose rows are verdicts of a deal from its first position, in our game.
DEAL_KINDS = ("survey", "early-survey", "reproof", "plain")


def parse_budget(text: str) -> int:
    """A budget as positions: "10m" is 10,000,000, "200k" 200,000, "5000" 5,000."""
    found = re.fullmatch(r"(\d+)([km]?)", text.strip().lower())
    if found is None:
        raise ValueError(f"not a budget: {text!r} (e.g. 1m, 10m, 200k, 5000)")
    return int(found[1]) * {"": 1, "k": 1_000, "m": 1_000_000}[found[2]]


def connect(path: Path | None = None, readonly: bool = False) -> sqlite3.Connection:
    """The dataset at ``path`` (default :data:`DATASET`; made, with its table, when
    missing), or only read. Several processes may append at once: a writer waits up to a
    minute for another's lock."""
    where = DATASET if path is None else path
    if readonly:
        connection = sqlite3.connect(f"{where.resolve().as_uri()}?mode=ro", uri=True)
    else:
        connection = sqlite3.connect(where, timeout=60)
        connection.executescript(SCHEMA)
    connection.row_factory = sqlite3.Row
    return connection


def verdicts(connection: sqlite3.Connection, budget: int) -> dict[tuple[str, int], str | None]:
    """(game, deal) -> the deal's verdict within ``budget`` positions by :data:`VERDICTS`:
    solved, unsolvable, unknown, contradiction, or None (not yet surveyed at ``budget``)."""
    rows = connection.execute(VERDICTS, {"budget": budget})
    return {(row["game"], row["deal"]): row["verdict"] for row in rows}


def contradictions(connection: sqlite3.Connection) -> list[str]:
    """The deals that one row proves won and another proves lost, each with its rows'
    sources and verdicts."""
    clashes = [
        key for key, verdict in verdicts(connection, 0).items() if verdict == "contradiction"
    ]
    out = []
    for game, number in sorted(clashes):
        seen = connection.execute(
            f"SELECT source, verdict FROM searches WHERE game = ? AND deal = ? "
            f"AND kind IN {DEAL_KINDS} AND verdict IN ('solved', 'unsolvable') ORDER BY id",
            (game, number),
        )
        out.append(f"{game} {number}: " + ", ".join(f"{s}: {v}" for s, v in seen))
    return out


def stamp() -> tuple[str | None, str]:
    """The commit the code runs from (``git rev-parse HEAD``; ``-dirty`` after it when
    app/ or research/ differ from it, the dataset aside), None outside a git checkout;
    and today's date (UTC)."""
    today = datetime.now(UTC).date().isoformat()
    try:
        head = _git("rev-parse", "HEAD")
        changed = _git(
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            "app",
            "research",
            ":(exclude)research/results.sqlite",
        )
    except (OSError, subprocess.CalledProcessError):
        return None, today
    return head + ("-dirty" if changed else ""), today


def _git(*args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout.strip()


def append(connection: sqlite3.Connection, rows: Iterable[Mapping[str, Any]]) -> int:
    """Insert ``rows`` (mappings of the columns; ``settings`` and ``extra`` as dicts), in
    one transaction; a row without ``commit`` and ``date`` gets :func:`stamp`'s. Returns
    how many."""
    commit, today = None, None
    values = []
    for row in rows:
        if "date" not in row:
            if today is None:
                commit, today = stamp()
            row = {"commit": commit, "date": today, **row}
        stored = {
            **row,
            "settings": settings_text(row.get("settings") or {}),
            "extra": _json(row.get("extra")),
        }
        values.append(tuple(stored.get(column) for column in COLUMNS))
    quoted = ", ".join(f'"{column}"' for column in COLUMNS)
    with connection:
        connection.executemany(
            f"INSERT INTO searches ({quoted}) VALUES ({', '.join('?' * len(COLUMNS))})", values
        )
    return len(values)


def _json(value: Mapping[str, Any] | None) -> str:
    return json.dumps(dict(value or {}), sort_keys=True)


def settings_text(settings: Mapping[str, Any]) -> str:
    """``settings`` as the column stores it (so that equal settings compare equal in SQL)."""
    return _json({key: value for key, value in settings.items() if value is not None})


def rows_of(
    connection: sqlite3.Connection,
    kind: str,
    game: str,
    budget: int | None,
    settings: Mapping[str, Any],
) -> list[sqlite3.Row]:
    """The rows of ``kind``, ``game`` and ``budget`` searched with exactly ``settings``,
    oldest first: what a stopped run resumes from."""
    return list(
        connection.execute(
            "SELECT * FROM searches WHERE kind = ? AND game = ? AND budget IS ? "
            "AND settings = ? ORDER BY id",
            (kind, game, budget, settings_text(settings)),
        )
    )


# The rows' shapes: a command's JSON row (as it prints it, and as the old files kept it)
# and what it becomes in the table. Fields with no column of their own go to ``extra``.


def survey_row(
    row: Mapping[str, Any],
    *,
    game: str,
    budget: int | None,
    settings: Mapping[str, Any],
    source: str,
    kind: str = "survey",
) -> dict[str, Any]:
    """A survey's row (``deal``, ``result``, ``positions``, ``elapsed_ms`` or ``seconds``;
    ``search`` and ``via`` say how it was searched and go to the settings; anything else,
    such as ``stopped`` or ``withdrawn``, to ``extra``)."""
    taken = {"game", "deal", "result", "positions", "elapsed_ms", "seconds", "search", "via"}
    described = {key: row[key] for key in ("search", "via") if key in row}
    seconds = row["elapsed_ms"] / 1000 if "elapsed_ms" in row else row.get("seconds")
    return {
        "kind": kind,
        "game": row.get("game", game),
        "deal": row["deal"],
        "budget": budget,
        "verdict": row["result"],
        "positions": row.get("positions"),
        "seconds": seconds,
        "settings": {**settings, **described},
        "source": source,
        "extra": {key: value for key, value in row.items() if key not in taken},
    }


def survey_json(row: sqlite3.Row) -> dict[str, Any]:
    """A survey row of the table as the survey prints it (the inverse of :func:`survey_row`
    for the rows it wrote)."""
    seconds = row["seconds"] or 0.0
    return {
        "deal": row["deal"],
        "result": row["verdict"],
        "positions": row["positions"],
        "elapsed_ms": round(seconds * 1000),
        **extra(row),
    }


def plain_row(
    row: Mapping[str, Any], *, budget: int | None, settings: Mapping[str, Any], source: str
) -> dict[str, Any]:
    """confirm-lost's row: the plain search's verdict (``plain``) and positions
    (``plain_positions``); the proof's positions and the contradiction flag to ``extra``."""
    taken = {"game", "deal", "plain", "plain_positions", "seconds"}
    return {
        "kind": "plain",
        "game": row["game"],
        "deal": row["deal"],
        "budget": budget,
        "verdict": row["plain"],
        "positions": row["plain_positions"],
        "seconds": row["seconds"],
        "settings": dict(settings),
        "source": source,
        "extra": {key: value for key, value in row.items() if key not in taken},
    }


PEER_VERDICTS = {"solved": "solved", "unsolvable": "unsolvable", "timed-out": "unknown"}


def peer_row(row: Mapping[str, Any], *, settings: Mapping[str, Any], source: str) -> dict[str, Any]:
    """peer's row: the peer's answer as the verdict (timed out: unknown; its own word stays
    in ``extra`` with ours and the contradiction flag)."""
    taken = {"game", "deal", "seconds"}
    return {
        "kind": "peer",
        "game": row["game"],
        "deal": row["deal"],
        "budget": None,
        "verdict": PEER_VERDICTS[row["solvitaire"]],
        "positions": None,
        "seconds": row["seconds"],
        "settings": dict(settings),
        "source": source,
        "extra": {key: value for key, value in row.items() if key not in taken},
    }


def soundness_row(
    row: Mapping[str, Any], *, budget: int | None, settings: Mapping[str, Any], source: str
) -> dict[str, Any]:
    """soundness's row of one position (``id``: game/flip/deal/where, kept in ``extra``
    with the other searches' verdicts): the plain search's verdict and positions. A
    sweep's ``.../done`` row, which searched nothing, has no verdict."""
    taken = {"game", "plain", "plain_positions"}
    return {
        "kind": "soundness",
        "game": row["game"],
        "deal": int(row["id"].split("/")[2]),
        "budget": budget,
        "verdict": row.get("plain"),
        "positions": row.get("plain_positions"),
        "seconds": None,
        "settings": dict(settings),
        "source": source,
        "extra": {key: value for key, value in row.items() if key not in taken},
    }


def extra(row: sqlite3.Row) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(row["extra"])
    return value
