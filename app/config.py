"""Settings from the environment (pydantic-settings)."""

from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATA_DIR = Path("data")
# The committed lists of proven deals live in the repository, wherever the server starts.
DEFAULT_SEEDS_DIR = Path(__file__).resolve().parent.parent / "seeds"


class Settings(BaseSettings):
    """Everything the service reads from the environment.

    `SECRET_KEY` is what must stay unpredictable (daily deals are derived from it);
    when it is not given it is generated once and kept in `<DATA_DIR>/secret_key`
    so that a restart does not change it.
    """

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = ""
    data_dir: Path = DEFAULT_DATA_DIR
    cors_origins: str = ""
    secret_key: str = ""
    # Pool sizes are small on purpose: the machine has two cores.
    db_pool_size: int = Field(default=5, ge=1)
    sqlite_busy_timeout_ms: int = Field(default=10_000, ge=0)
    idempotency_ttl_hours: float = Field(default=24, gt=0)
    seeds_dir: Path = DEFAULT_SEEDS_DIR

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'solitaire.sqlite3').as_posix()}"

    @property
    def cors_origin_list(self) -> list[str]:
        return [o.strip() for o in self.cors_origins.split(",") if o.strip()]

    def ensure_data_dir(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)

    def resolved_secret_key(self) -> str:
        """The server secret: from the environment, else read or created in the data dir."""
        if self.secret_key:
            return self.secret_key
        self.ensure_data_dir()
        path = self.data_dir / "secret_key"
        try:
            return path.read_text().strip()
        except FileNotFoundError:
            pass
        key = secrets.token_urlsafe(48)
        # O_EXCL: two workers starting together must agree on one key.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_text().strip()
        with os.fdopen(fd, "w") as fh:
            fh.write(key)
        return key


@lru_cache
def get_settings() -> Settings:
    return Settings()
