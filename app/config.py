"""Settings from the environment (pydantic-settings)."""

from __future__ import annotations

import logging
import os
import secrets
import stat
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

log = logging.getLogger("app.config")

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
    # How long a write waits for a lock another holds before the request is answered
    # 503 database_busy (SQLite: the database's write lock; PostgreSQL: a row's lock; 0:
    # PostgreSQL waits without bound).
    sqlite_busy_timeout_ms: int = Field(default=10_000, ge=0)
    postgres_lock_timeout_ms: int = Field(default=10_000, ge=0)
    # FULL: a commit is on disk before the answer, so an acknowledged move survives a
    # power loss or an OS crash too (about 0.1 ms a commit here). NORMAL trades that for
    # speed: in WAL mode the last commits may roll back after such a crash.
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    # Stored answers to Idempotency-Key requests: replayed for this long, deleted in the
    # background once older (every instance sweeps), and at most this many per player
    # (the oldest go; an answer is a few KB).
    idempotency_ttl_hours: float = Field(default=24, gt=0)
    idempotency_sweep_seconds: float = Field(default=600, gt=0)
    idempotency_max_per_player: int = Field(default=1_000, ge=1)
    seeds_dir: Path = DEFAULT_SEEDS_DIR
    # Apply the migrations at start-up (instances starting together take turns on
    # PostgreSQL); false where a deployment runs `alembic upgrade head` once itself.
    migrate_on_start: bool = True
    # Daily deals: candidates are tried in turn until the prover solves one within
    # these budgets. Small budgets favour quickly proven deals, which is fine: any
    # proof will do, and preparing must not hog the two cores (17 of 18 proofs
    # measured took under 1.1 s; a failed candidate costs the whole budget).
    daily_prepare_ahead: bool = True  # today's and the next days' at start-up and each day
    # Speculative work (nobody waits for it): the days after today whose deals are
    # prepared ahead, and whether a date's deals of the other ratings are prepared ahead
    # too (false: each when a player first asks for it).
    daily_days_ahead: int = Field(default=1, ge=0, le=7)
    daily_ratings_ahead: bool = True
    daily_max_positions: int = Field(default=100_000, ge=1)
    daily_max_seconds: float = Field(default=2.0, gt=0)
    daily_max_attempts: int = Field(default=1_000, ge=1)
    # How long a request waits for a deal being prepared before 503 daily_not_ready.
    daily_wait_seconds: float = Field(default=10.0, ge=0)
    # The first date with a daily deal: earlier dates are refused (404), so a request
    # cannot make the server prove deals for any date back to 1900.
    daily_first_date: date = date(2026, 11, 1)
    # Preparations of past dates' deals in progress at once; a request that would start
    # one more answers 503 daily_not_ready at once (joining one in progress is fine).
    daily_max_pending: int = Field(default=4, ge=0)
    # The background lane of the one worker pool (services.background.cpu_pool): processes for proofs,
    # daily and solvable deals alike (off the event loop, at low priority); 0: a thread.
    daily_workers: int = Field(default=1, ge=0)
    # Work the background job queue in this process (services.background.job_runner): the daily deals,
    # the solvable pools, the analyses. False: a web instance that only queues jobs and
    # serves players' searches, beside workers (`python -m app.worker`, docs/deploy.md).
    background_work: bool = True
    # A worker renews its hold on a job every third of this; a job whose worker died is
    # taken again once it runs out.
    job_lease_seconds: float = Field(default=30.0, ge=3, le=3600)
    # How often a worker looks for jobs other processes queued (its own: at once).
    job_poll_seconds: float = Field(default=1.0, gt=0, le=60)
    # "module:function" with the solver's signature:
    # solve(state, max_positions=, max_seconds=, table_size=).
    daily_prover: str = "app.solver.plan:solve"
    # Solvable games: proven deals ready per variant and rating, kept topped up in the
    # background with the daily budgets (services.background.solvable_pools).
    solvable_prepare_ahead: bool = True
    solvable_pool_size: int = Field(default=3, ge=0)
    # How long a request without a difficulty waits, on an empty pool, for a deal
    # proven for it (holding no database connection) before 503 no_solvable_deals; 0:
    # refused at once.
    solvable_wait_seconds: float = Field(default=20.0, ge=0, le=120)
    # Difficulty: every proven deal (solvable pools, daily deals) is rated right after its
    # proof, in the same background worker, from this many simulated games of a
    # human-like player (app/solver/difficulty.py; 0: deals are not rated). The rater is
    # "module:function" with the signature rate(state, number, positions, games) -> level.
    difficulty_games: int = Field(default=32, ge=0, le=1_000)
    difficulty_rater: str = "app.solver.difficulty:rate"
    # Hints and finish: the players' lane of the pool (processes: the replay of a line
    # holds the GIL and would stall the event loop), bounded; full: 429 solver_busy.
    solver_workers: int = Field(default=1, ge=1)
    solver_queue: int = Field(default=2, ge=0)  # requests waiting beyond the busy workers
    solver_kind: Literal["process", "thread"] = "process"
    # Workers beside those, for hints only (services.background.cpu_pool): a hint never waits behind a
    # finish's whole budget; finishes also leave these places of the bound to hints.
    solver_hint_workers: int = Field(default=1, ge=0)
    # A search that answered unknown is remembered (in memory, per process) for this
    # long, for the same position and budget: a retry answers at once, without a search.
    # 0: nothing is remembered. The oldest go beyond the bound (about 200 bytes each).
    solver_unknown_ttl_seconds: float = Field(default=600.0, ge=0)
    solver_unknown_max_entries: int = Field(default=10_000, ge=1)
    # The native search's transposition table bound, in keys (11 to 21 bytes each): a
    # search that fills it answers unknown. Never more than its position budget.
    solver_table_size: int = Field(default=1 << 23, ge=1)
    # The budget that decides the most hints within the 0.4 s cap: of 720 positions
    # along greedy play of all nine games, 78.2% decided against 71.0% at 400,000;
    # past 1,000,000 wider beam passes spend the 0.4 s before the full search, and
    # fewer are decided (docs/decisions/0002-hint-budget.md).
    hint_max_positions: int = Field(default=1_000_000, ge=1)
    hint_max_seconds: float = Field(default=0.4, gt=0)  # a hint always answers promptly
    finish_max_positions: int = Field(default=1_000_000, ge=1)
    finish_max_seconds: float = Field(default=20.0, gt=0)
    # The longest winning line a finish plays (every move validated, logged and answered
    # as a step: a 13,907-move line took 2.1 s, a 76,350-move one 18.5 s). A longer line is
    # a depth-first search's wandering (foundation cards going back and forth), not a
    # finish a player would watch: 409 no_win_found, and hints still follow it.
    finish_max_moves: int = Field(default=10_000, ge=1)
    # The analysis of a game that is over (services.analysis.service), in the background lane:
    # each position of its line searched at most this much (from the end backwards,
    # what the solver knows first), and at most this many positions for the whole game;
    # a position left undecided is `undecided`.
    analysis_ply_max_positions: int = Field(default=1_000_000, ge=1)
    analysis_ply_max_seconds: float = Field(default=10.0, gt=0)
    analysis_max_positions: int = Field(default=20_000_000, ge=1)
    # What the solver knows, in the database, shared by every instance: positions along
    # winning lines (a line has some hundreds; a row is about 60 bytes with its index)
    # and positions proven lost. The oldest go beyond these bounds.
    solver_knowledge_max_positions: int = Field(default=2_000_000, ge=1)
    solver_knowledge_max_lost: int = Field(default=100_000, ge=1)

    # Long request work (a record's replay, a practice copy, a finish's line) runs in
    # this many worker processes ("thread": threads, for tests), and this many more such
    # requests wait; one more is 503 server_busy (services.kit.offload).
    lane_workers: int = Field(default=1, ge=1, le=8)
    lane_queue: int = Field(default=32, ge=0)
    lane_kind: Literal["process", "thread"] = "process"
    # Once started, the objects of start-up (some hundred thousand: the app, its routes,
    # the engine's tables) are left out of the garbage collector's full passes, which
    # otherwise walk them all while every request waits (180 ms, against 90 ms, with
    # four records imported at once). False for processes that make many apps (tests).
    gc_freeze: bool = True

    # Limits on what one client can make the server hold.
    max_body_bytes: int = Field(default=65_536, ge=1_024)  # the largest move is 100 bytes
    body_timeout_seconds: float = Field(default=10.0, gt=0)  # a body sent this slowly: 408
    header_timeout_seconds: float = Field(default=10.0, gt=0)  # a request head, from its start
    keep_alive_seconds: float = Field(default=5.0, gt=0)  # idle between requests
    # A request head (request line and headers up to the blank line) longer than this,
    # or with more headers: 431, refused before more of it is held (browsers send well
    # under 8 KiB; nginx's default is 8 KiB, Node's 16 KiB).
    max_header_bytes: int = Field(default=16_384, ge=1_024)
    max_headers: int = Field(default=100, ge=10)
    # Open connections per process; one more is answered 503 and closed as it is accepted.
    max_connections: int = Field(default=1_000, ge=1)
    # Live streams of a game (GET /games/{id}/events): open at once per player and per
    # process, beyond which 429 too_many_streams and 429 streams_full; each ends after
    # `stream_max_seconds` (the client reconnects with its last id). The versions of the
    # games streamed in a process are read in one query every `stream_poll_seconds`
    # (changes by other processes on the same SQLite file; on PostgreSQL, where
    # LISTEN/NOTIFY carries changes across instances, every `stream_resync_seconds`, for
    # what a lost connection missed). A stream sends a comment every `stream_ping_seconds`
    # (proxies close idle connections). A stream token (POST /games/{id}/stream-token)
    # opens streams of its game for `stream_token_seconds`.
    stream_max_per_player: int = Field(default=8, ge=1)
    stream_max_per_instance: int = Field(default=500, ge=1)
    stream_max_seconds: float = Field(default=1_800.0, gt=0)
    stream_poll_seconds: float = Field(default=1.0, gt=0)
    stream_resync_seconds: float = Field(default=30.0, gt=0)
    stream_ping_seconds: float = Field(default=15.0, gt=0)
    # A reader that takes no event for this long (its socket full) is dropped, not buffered.
    stream_send_timeout_seconds: float = Field(default=10.0, gt=0)
    stream_token_seconds: float = Field(default=600.0, gt=0)
    auth_failures_per_minute: int = Field(default=20, ge=1)  # wrong tokens per client address

    # --- Bounds a free account cannot multiply (services.kit.account_bounds; docs/api.md, "Bounds").
    # Each is counted in the database, so every instance of a deployment shares it; past
    # one, the answer is 429 with its code and Retry-After.
    # New players per client address (an IPv6 address by its /64) within an hour: a
    # household or an office signs up a few; a class behind one NAT is the case an
    # operator raises it for. Behind a proxy the address is the forwarded one
    # (docs/deploy.md, FORWARDED_ALLOW_IPS).
    players_per_address_per_hour: int = Field(default=20, ge=1)
    # Server-to-server keys (comma-separated, each of 32 characters or more) of trusted
    # front-ends that create players for their own signed-in users: `X-Client-Key: <key>`
    # on POST /players lifts the per-address bound (such a site's server is one address).
    trusted_client_keys: SecretStr | None = None
    # Per player, counted from the player's own rows. Games dealt within an hour (daily
    # games and played records included, practice copies not): twice the fastest honest
    # pace, a deal a minute, with deals dealt again and again to find a liked one.
    games_per_player_per_hour: int = Field(default=120, ge=1)
    # Solvable games of one variant within an hour: each takes a proven deal (a proof of
    # seconds of a background core) from a pool of a few; a player finishes or gives up
    # a game in two minutes at best.
    solvable_per_player_per_hour: int = Field(default=30, ge=1)
    # Practice copies (POST /games/{id}/analysis/practice) within an hour: one a game is
    # usual, a few tries from the losing position are many.
    practice_per_player_per_hour: int = Field(default=30, ge=1)
    # Analyses of the player's games pending or running at once: an analysis takes
    # seconds to a minute of the background lane; one at a time keeps one player's from
    # standing ahead of everyone else's in the queue.
    analyses_per_player: int = Field(default=1, ge=1)

    @field_validator("trusted_client_keys", mode="before")
    @classmethod
    def _no_keys_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("trusted_client_keys")
    @classmethod
    def _long_keys(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and any(len(key) < 32 for key in client_keys(value)):
            raise ValueError("each trusted client key has 32 characters or more")
        return value

    @property
    def trusted_client_key_list(self) -> list[str]:
        return client_keys(self.trusted_client_keys)

    # Answers this size or larger are gzip-compressed for clients that accept gzip.
    gzip_minimum_bytes: int = Field(default=1_024, ge=0)
    # Logs of `python -m app.server`: one JSON object per line ("json") or plain text.
    log_format: Literal["json", "text"] = "json"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    # GET /metrics (Prometheus): when set, only with `Authorization: Bearer <this>`;
    # unset (or empty), open to anyone who reaches it.
    metrics_token: SecretStr | None = None

    @field_validator("metrics_token", mode="before")
    @classmethod
    def _empty_token_is_none(cls, value: object) -> object:
        # `METRICS_TOKEN=` (as .env.example writes it) means no token.
        return None if value == "" else value

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'solitaire.sqlite3').as_posix()}"

    @property
    def cors_origin_list(self) -> list[str]:
        return [o.strip() for o in self.cors_origins.split(",") if o.strip()]

    def ensure_data_dir(self) -> None:
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        make_private(self.data_dir)

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


def client_keys(value: SecretStr | None) -> list[str]:
    """The keys of TRUSTED_CLIENT_KEYS (comma-separated; spaces around each ignored)."""
    if value is None:
        return []
    return [key.strip() for key in value.get_secret_value().split(",") if key.strip()]


def make_private(path: Path) -> None:
    """Takes group and other access away from `path` where it has any: the data folder
    and the database hold hidden positions and the secret, and a folder or file an older
    version made with the umask's 0755/0644 is tightened too. A shared folder (sticky,
    such as /tmp) and another user's file are left as they are, with a warning."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    current = stat.S_IMODE(info.st_mode)
    if not current & 0o077:
        return
    if info.st_mode & stat.S_ISVTX or info.st_uid != os.geteuid():
        log.warning("%s is open to other users (mode %o); not changed", path, current)
        return
    path.chmod(current & 0o700)


@lru_cache
def get_settings() -> Settings:
    return Settings()
