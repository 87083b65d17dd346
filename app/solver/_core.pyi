# Types of the native core (app/solver/native/module.c); app.solver.core wraps it.

from app.solver.core import SearchLimits

MAX_CARDS: int
DEFAULT_MAX_DEPTH: int
RELAXED_STATE_LIMIT: int
RELAXED_MOST_STATES: int
RELAXED_BEAM_STATE_LIMIT: int
RELAXED_STOCK_LIMIT: int
RELAXED_CLOCK_EVERY: int
FULL_REDUCTIONS: tuple[str, ...]

class Tables:
    def __init__(
        self,
        name: str,
        decks: int,
        tableau_piles: int,
        foundation_count: int,
        draw: int,
        runs_any: bool,
        reserve_fills_empty: bool,
        foundation_return: bool,
        single_pass: bool,
        stack_ok: bytes,
        found_next: bytes,
        children: bytes,
        *,
        arranged: bool = False,
        klass: bytes = ...,
        parent_class: bytes = ...,
        narrow_children: bytes = ...,
        relaxed: bool = False,
    ) -> None: ...
    @property
    def name(self) -> str: ...

class Position:
    def __init__(self, tables: Tables, data: bytes) -> None: ...
    @property
    def is_won(self) -> bool: ...
    @property
    def tables(self) -> Tables: ...
    def to_bytes(self) -> bytes: ...
    def legal_moves(self) -> list[str]: ...
    def apply(self, move: str) -> Position: ...
    def key(self) -> int: ...
    def features(self) -> tuple[int, int, int, int, int, int, int]: ...
    def children(self) -> list[tuple[str, list[str], Position]]: ...
    def safe_move(self, eager: bool = False) -> str | None: ...
    def settle(self, eager: bool = False) -> tuple[list[str], Position]: ...
    def scored_children(
        self, draw_score: int, last: str | None = None
    ) -> list[tuple[int, str, int]]: ...
    # Run arrangement (app/solver/arrangements.py); ValueError unless the tables are
    # arranged ones (arrangements.supports).
    def arranged_key(self) -> int: ...
    def arranged_children(self, draw_score: int) -> list[tuple[int, list[str], str]]: ...

def exhaustive(position: Position, max_positions: int) -> tuple[str, int]: ...
def playout(position: Position, seed: int, steps: int) -> tuple[int, int, Position]: ...
def shorten(position: Position, line: list[str], max_seconds: float | None) -> list[str]: ...
def search(
    position: Position, limits: SearchLimits
) -> tuple[
    str, list[str], int, str, tuple[int, int, int]
]: ...  # ..., (children, expansions, skipped)
def beam(
    position: Position,
    width: int,
    max_positions: int,
    max_seconds: float | None,
    closure: int,
    endgame: int,
    weights: tuple[int, ...],
    *,
    best: bool = False,
    single: bool = False,
    relaxed: bool = True,
) -> tuple[list[str] | None, int, str]: ...
