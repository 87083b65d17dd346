"""The files the app keeps on disk hold hidden positions and the secret: the data folder
is 0700, the SQLite database and its -wal and -shm files 0600, whatever the umask, and
those an older version left open to others are tightened at start-up."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.api.conftest import API, running


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The common umask 022: files 0644 and folders 0755 unless the app says otherwise."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def on_disk(data: Path) -> dict[str, int]:
    names = ("", "solitaire.sqlite3", "solitaire.sqlite3-wal", "solitaire.sqlite3-shm")
    return {name or "data": mode(data / name) for name in names}


PRIVATE = {
    "data": 0o700,
    "solitaire.sqlite3": 0o600,
    "solitaire.sqlite3-wal": 0o600,
    "solitaire.sqlite3-shm": 0o600,
}


def settings_for(data: Path, tmp_path: Path) -> Settings:
    (tmp_path / "seeds").mkdir(exist_ok=True)
    return Settings(
        database_url="",  # the default: a SQLite file in the data folder
        data_dir=data,
        seeds_dir=tmp_path / "seeds",
        daily_prepare_ahead=False,
        solvable_prepare_ahead=False,
    )


async def start_and_write(settings: Settings) -> dict[str, int]:
    """Starts the app, writes (a player), and reads the modes while it runs (the -wal
    and -shm files exist while a connection is open)."""
    app = create_app(settings)
    async with running(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            assert (await client.post(f"{API}/players", json={"name": "ada"})).status_code == 201
        return on_disk(settings.data_dir)


async def test_a_new_data_folder_and_database_are_private(tmp_path: Path, open_umask: None) -> None:
    data = tmp_path / "data"
    assert await start_and_write(settings_for(data, tmp_path)) == PRIVATE
    assert mode(data / "secret_key") == 0o600


async def test_an_older_versions_open_files_are_tightened(tmp_path: Path, open_umask: None) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    older = sqlite3.connect(data / "solitaire.sqlite3")  # kept open: its -wal and -shm stay
    try:
        older.execute("PRAGMA journal_mode=WAL")
        older.execute("CREATE TABLE left_over (x)")
        older.commit()
        assert on_disk(data) == {name: 0o755 if name == "data" else 0o644 for name in PRIVATE}
        assert await start_and_write(settings_for(data, tmp_path)) == PRIVATE
    finally:
        older.close()
