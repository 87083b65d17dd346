"""Exact error classes of the engine: each carries a stable snake_case code and a message.

A message is an English template and its parameters (``template.format(**params)`` is
``message``): the engine knows no language, and a layer above it may word the same
template in another (the API's catalogues, ``app/locales``). Parameters are plain values
(pile ids, card codes, numbers), a :class:`~app.engine.cards.RankName` where a rank is
named, or another engine error whose message is quoted.
"""

from __future__ import annotations

from typing import Any


def N_(template: str) -> str:
    """Marks an English message template chosen from a table (for ``pybabel extract``,
    as the error classes' second argument is); the text itself, unchanged."""
    return template


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""

    code: str = "engine_error"

    def __init__(self, code: str, template: str, /, **params: Any) -> None:
        message = template.format(**params) if params else template
        super().__init__(message)
        self.code = code
        self.message = message
        self.template = template
        self.params = params

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
    (1-based), where the error is in a move. Both are parameters of the message too
    (``{line}``, ``{move_number}``)."""

    def __init__(
        self,
        code: str,
        template: str,
        /,
        *,
        line: int | None = None,
        move_number: int | None = None,
        **params: Any,
    ) -> None:
        where = {"line": line, "move_number": move_number}
        super().__init__(
            code, template, **{k: v for k, v in where.items() if v is not None}, **params
        )
        self.line = line
        self.move_number = move_number
