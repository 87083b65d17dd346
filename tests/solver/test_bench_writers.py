"""The `--write` of bench/api.py, bench/scale.py and bench/fairness.py: each replaces only
its own section of docs/benchmarks.md, keeps the hand-written `####` part under it, and
writes the page's short form (prose wrapped to the page's width, the command and date
under the table, no machine: the page says it once)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.solver.bench_scripts import load

PAGE = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"


@pytest.fixture
def page(tmp_path: Path) -> Path:
    copy = tmp_path / "benchmarks.md"
    shutil.copy(PAGE, copy)
    return copy


def _around(text: str, heading: str) -> tuple[str, str]:
    """The page before `heading`, and from the heading after it (any level) on."""
    start = text.index(heading + "\n")
    following = [
        i
        for mark in ("\n## ", "\n### ", "\n#### ")
        if (i := text.find(mark, start + len(heading))) != -1
    ]
    return text[:start], text[min(following) + 1 :] if following else ""


def _short(section: str, width: int) -> None:
    """No machine line, and prose lines (not table rows) within the page's width."""
    assert "Machine:" not in section and "Python 3" not in section
    for line in section.splitlines():
        if not line.startswith("|"):
            assert len(line) <= width, line


def _check(page: Path, heading: str, write: Any, section: str, kept: str) -> None:
    before = page.read_text()
    write()
    after = page.read_text()
    assert _around(after, heading) == _around(before, heading)
    assert section.rstrip("\n") in after
    assert kept in after


def test_the_move_against_health_subsection(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = load("api")
    monkeypatch.setattr(api, "DOC", page)
    rows = [
        {
            "round": 1,
            "label": "this checkout",
            "hint_load": n,
            "health_median_ms": 3.0,
            "median_ms": 5.5,
            "health_p99_ms": 6.0,
            "p99_ms": 9.0,
            "hints_answered": 90,
            "window_s": 10.2,
        }
        for n in (0, 2)
    ]
    command = ".venv/bin/python bench/api.py --against-health --moves 10 --hint-load 2 --write"
    section = api.health_section(rows, command, 10, api.measured([(1.0,), (2.5,)]))
    _short(section, api.WIDTH)
    assert "| 1 | this checkout | 2 | 3.00 ms, 5.50 ms, **x1.83** |" in section
    _check(
        page,
        api.HEALTH_HEADING,
        lambda: api.write_subsection(api.HEADING, api.HEALTH_HEADING, section),
        section,
        "#### What a move costs over a health request",
    )


def test_the_hint_load_subsection(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = load("api")
    monkeypatch.setattr(api, "DOC", page)
    rows = [
        {
            "solver_kind": kind,
            "hint_load": n,
            "moves": 600,
            "median_ms": median,
            "p99_ms": 2 * median,
            "hints_answered": 3,
            "window_s": 9.0,
            "hints_429": 1,
            "database": "SQLite (WAL)",
        }
        for kind, n, median in (("process", 0, 5.0), ("process", 2, 13.0), ("thread", 2, 30.0))
    ]
    section = api.hint_section(rows, "bench/api.py --hint-load 2", "rank-and-file", [9], "today")
    _short(section, api.WIDTH)
    assert "| thread | 2 | 600 | 30.00 ms (x6.0) | 60.00 ms (x6.0) | 3 in 9 s | 1 |" in section
    _check(
        page,
        api.HINT_HEADING,
        lambda: api.write_hint_subsection(section),
        section,
        "### Fairness between players",
    )


def test_the_several_instances_subsection(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scale = load("scale")
    monkeypatch.setattr(scale, "DOC", page)
    rows = [
        {"label": label, "moves_per_s": rate, "median_ms": 100.0, "p99_ms": 200.0, "health_ms": 90}
        for label, rate in (("SQLite, 1 process", 150.0), ("PostgreSQL, 2 instances", 180.0))
    ]
    args = argparse.Namespace(instances=[2], clients=32, seconds=20.0)
    text = scale.table(rows, args, "2026-01-01, at abc1234")
    _short(text, 90)
    assert "| PostgreSQL, 2 instances | 180 | 1.20x |" in text
    _check(page, scale.HEADING, lambda: scale.write(text), text, "#### What limits it here")


def test_the_fairness_subsection(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fairness = load("fairness")
    # The page of bench/api.py as fairness imported it, whose writer it calls.
    monkeypatch.setitem(fairness.write_subsection.__globals__, "DOC", page)
    result = {
        "hints": 30,
        "hints_200": 30,
        "hint_results": {"solved, searched": 30},
        "hint_codes": {"200": 30},
        "median_s": 0.4,
        "p90_s": 0.41,
        "max_s": 0.42,
        "a": {"409 no_win_found": 12},
    }
    rows = [fairness._row("after", result)]
    section = fairness.section(rows, 30, ".venv/bin/python bench/fairness.py --write", "today")
    _short(section, fairness.WIDTH)
    assert "| after | 30 of 30 (**100%**) | **0.40 s**, 0.41 s, 0.42 s |" in section
    _check(
        page,
        fairness.HEADING,
        lambda: fairness.write_subsection(fairness.SOLVER_HEADING, fairness.HEADING, section),
        section,
        "#### What the figures say",
    )
