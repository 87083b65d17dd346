"""Rows for a test's own dataset."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from research import dataset


def fresh(tmp_path: Path) -> tuple[Path, sqlite3.Connection]:
    path = tmp_path / "results.sqlite"
    return path, dataset.connect(path)


def add_survey(
    connection: sqlite3.Connection,
    game: str,
    budget: int,
    name: str,
    *verdicts: tuple[int, str] | tuple[int, str, int],
    kind: str = "survey",
) -> None:
    """A survey's rows, one per (deal, verdict[, positions])."""
    rows = []
    for deal, result, *positions in verdicts:
        row = {"deal": deal, "result": result, "positions": (positions or [1])[0]}
        rows.append(
            dataset.survey_row(
                {**row, "elapsed_ms": 1},
                game=game,
                budget=budget,
                settings={"name": name},
                source=f"test {name}",
                kind=kind,
            )
        )
    dataset.append(connection, rows)
