"""Exact error classes of the engine: each carries a stable snake_case code and a message."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""

    code: str = "engine_error"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class IllegalMove(EngineError):
    """A well-formed move that the rules refuse in this position (the position is unchanged)."""


class InvalidMove(EngineError):
    """A move that cannot even be read: bad text, unknown pile id, bad count."""


class InvalidDeal(EngineError):
    """A deal number outside the range the shuffle accepts."""


class UnknownVariant(EngineError):
    """No variant has this id or alias."""


class CorruptState(EngineError):
    """Bytes that do not decode to a consistent position."""


class InvalidRecord(EngineError):
    """A game record that cannot be read, or whose line the rules refuse: ``code`` says
    what (``bad_header``, ``missing_result``, a move's ``bad_move`` or ``wrong_colour``,
    ``result_mismatch``, ...), ``line`` where (1-based) and ``move_number`` which move
    (1-based), where the error is in a move."""

    def __init__(
        self, code: str, message: str, *, line: int | None = None, move_number: int | None = None
    ) -> None:
        super().__init__(code, message)
        self.line = line
        self.move_number = move_number
