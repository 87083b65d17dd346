"""`info.version` follows semantic versioning, and docs/api-changes.md says what each
version changed: the document's version is the newest entry there."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

from app.main import create_app

ROOT = Path(__file__).resolve().parents[2]
SEMVER = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
ENTRY = re.compile(r"^## ([0-9.]+) \(([0-9]{4}-[0-9]{2}-[0-9]{2})\)$", flags=re.MULTILINE)


def _entries() -> list[tuple[tuple[int, ...], date]]:
    """(version, date) of every entry of docs/api-changes.md, in the order written."""
    text = (ROOT / "docs" / "api-changes.md").read_text()
    entries = []
    for version, day in ENTRY.findall(text):
        match = SEMVER.fullmatch(version)
        assert match, f"not a semantic version: {version}"
        entries.append((tuple(int(part) for part in match.groups()), date.fromisoformat(day)))
    return entries


def test_the_document_version_is_the_newest_entry_of_the_changes() -> None:
    entries = _entries()
    assert entries, "docs/api-changes.md has no entry"
    newest = ".".join(str(part) for part in entries[0][0])
    committed = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    assert committed["info"]["version"] == newest
    assert create_app().openapi()["info"]["version"] == newest


def test_the_changes_are_newest_first_one_entry_per_version() -> None:
    entries = _entries()
    versions = [version for version, _ in entries]
    assert versions == sorted(set(versions), reverse=True)
    days = [day for _, day in entries]
    assert days == sorted(days, reverse=True)
