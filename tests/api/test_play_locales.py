"""The reference client's own words (app/web) in English, German, Russian and French: each
catalogue of app/web/locales holds every source of the client's files (its `t()` calls and
index.html's words) and nothing else, with the source's placeholders and the plural forms
of its language (scripts/web_messages.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _messages() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "web_messages", ROOT / "scripts" / "web_messages.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_catalogue_holds_every_source_and_nothing_else() -> None:
    messages = _messages()
    assert messages.problems() == []


def test_the_sources_are_read_from_the_js_calls_and_the_page() -> None:
    sources = _messages().sources()
    assert "Undo" in sources  # index.html, a button
    assert "Deal number" in sources  # index.html, an aria-label and a placeholder's source
    assert "{cards} to {pile}" in sources  # model.js, a move in words
    assert "Hint: {move}." in sources  # main.js
    assert "English" not in sources  # a language's own name (lang="en") is not translated


def test_a_missing_or_stale_entry_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    messages = _messages()
    locales = tmp_path / "locales"
    locales.mkdir()
    for language in messages.LANGUAGES:
        entries = messages.catalogue(language)
        if language == "de":
            entries.pop("Undo")
            entries["Gone"] = "Weg"
            entries["Hint: {move}."] = "Tipp: {zug}."
        (locales / f"{language}.json").write_text(json.dumps(entries))
    web = tmp_path
    (web / "index.html").write_text((messages.WEB / "index.html").read_text())
    for script in messages.WEB.glob("*.js"):
        (web / script.name).write_text(script.read_text())
    monkeypatch.setattr(messages, "WEB", web)
    found = messages.problems()
    assert "de: missing 'Undo'" in found
    assert "de: stale 'Gone'" in found
    assert any(p.startswith("de: 'Hint: {move}.'") for p in found)
    assert len(found) == 3
