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

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled whole (an error raised in another process is raised again here).
        return (_restored, (type(self), self.args, self.__dict__))


def _restored(kind: type[Exception], args: tuple[Any, ...], fields: dict[str, Any]) -> Exception:
    error = kind.__new__(kind)
    error.args = args
    error.__dict__.update(fields)
    return error


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


# Every code the engine's errors carry, with what it means: the `reason` of the API's
# refusals (`illegal_move`, `invalid_move`, `invalid_deal`, `invalid_rules`, `game_over`,
# `invalid_record`), listed in its document. A test finds every code raised here.
REASONS: dict[str, str] = {
    # a move the rules refuse (IllegalMove)
    "bad_count": "more cards than the pile holds, or a count this move cannot have",
    "bad_move": "a move that is not a move here (from a pile to itself by draw, ...)",
    "card_face_down": "the cards to move include a face-down card",
    "empty_pile": "the pile to move from is empty",
    "foundation_full": "the foundation is complete",
    "foundation_needs_base": "an empty foundation takes only the base rank (Ace, or the "
    "deal's base rank)",
    "foundation_return_not_allowed": "a foundation card may go back only to the tableau, "
    "and only where the house rule allows it",
    "game_over": "the game is won: no move is left",
    "no_redeals_left": "the stock may not be dealt again",
    "no_such_pile": "a pile id this game does not have (tableau-42)",
    "no_target": "a click on a card that can go nowhere",
    "not_a_target": "nothing may be put on that pile",
    "not_one_rank_higher": "a foundation takes the next rank up in its suit",
    "not_one_rank_lower": "a tableau card goes only on a card one rank higher",
    "not_playable": "a click on a card that may not be moved",
    "nothing_on_ace": "nothing may be built on an Ace in this game",
    "one_card_to_foundation": "cards go to a foundation one at a time",
    "reserve_fills_empty": "an empty tableau pile is filled from the reserve, not by a move",
    "run_not_in_sequence": "the cards to move are not a run this game lets move together",
    "same_pile": "a move from a pile to itself",
    "single_cards_only": "this game moves single cards only",
    "stock_empty": "a draw with the stock empty",
    "stock_not_empty": "a redeal while the stock still has cards",
    "stock_not_playable": "cards are drawn from the stock, not moved from it",
    "waste_empty": "the waste is empty",
    "wrong_colour": "the tableau builds in alternating colours",
    "wrong_suit": "the pile builds in suit",
    # a move that cannot be read (InvalidMove)
    "bad_action": "an action the API does not know",
    "bad_card": "not a card code (AS, TD, KH, ...)",
    "bad_index": "a card index outside the pile",
    "bad_pile": "not a pile id (stock, waste, reserve, foundation-N, tableau-N)",
    # a deal, a variant, house rules
    "invalid_deal": "a deal number is a whole number from 1 to 10^20 - 1",
    "unknown_variant": "no variant has this id or alias",
    "bad_rule": "a house rule's value is not true or false",
    "unknown_rule": "a house rule this variant does not have",
    # a game record (InvalidRecord; its moves carry the codes above)
    "bad_header": 'a header line that is not [Name "value"]',
    "duplicate_header": "a header given twice",
    "missing_header": "a required header (Variant, Deal) is missing",
    "missing_result": "the record does not end with its result (won or *)",
    "result_mismatch": "the result does not match where the moves lead",
    "too_long": "the record has more characters than a record may have",
    "too_many_moves": "the record has more moves than a record may have",
    "unknown_header": "a header the format does not have",
}
