"""A game record: one plain text naming a deal, its house rules and the line of play,
in the manner of PGN (python-chess's ``chess.pgn``)::

    [Variant "rank-and-file"]
    [Deal "12345"]
    [Rules "foundation_return=false"]

    t1>t0 w>f0 draw t2>t5x3
    redeal t4>f1 won

Header lines ``[Name "value"]`` first (``Variant`` and ``Deal`` required, ``Rules``
optional: omitted, the variant's own rules), then one blank line, then the moves in
their text forms (``str(Move)``, read by ``Move.parse``: the seeds' line format),
separated by spaces or line breaks, and last a result: ``won`` (the game is won) or
``*`` (it is not: in play or stuck). The result also says how the moves are played
again: each without the auto-finish, except the last move of a ``won`` record, which is
played with it (the server's auto-finish wins the game with that move's events, never
with a move of its own, and a won game takes no more moves: so this reproduces any line
the service logged, whatever the game's `auto_finish` setting was).

``Record.parse(str(r)) == r`` for every record; ``Record.parse`` is strict and raises
:class:`InvalidRecord` with a stable code, the line (1-based) and, for a move, its
number in the line (1-based).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .deal import MAX_DEAL, deal
from .errors import N_, EngineError, InvalidRecord
from .moves import Move
from .state import State
from .variants import HOUSE_RULES, Rules, Variant, get_variant

# The most moves a record may hold (the longest line a finish plays is as long), and its
# longest text: with the JSON around it, under the API's default body limit (64 KiB), so
# that a longer text is refused as a record (422), not as a body (413). About six
# characters a move: some 10,000 moves fit.
RECORD_MAX_MOVES = 10_000
RECORD_MAX_CHARS = 60_000
WON, NOT_WON = "won", "*"
# Written lines of moves are at most this long (a reader takes any length).
_WIDTH = 80

_HEADER = re.compile(r'\[([A-Za-z]+) "([^"\\\x00-\x1f\x7f]*)"\]')
_DEAL = re.compile(r"[1-9][0-9]{0,19}")
_RULE = re.compile(r"([a-z_]+)=(true|false)")
_TOKEN = re.compile(r"[^ \t]+")
_HEADERS = ("Variant", "Deal", "Rules")
_REQUIRED = ("Variant", "Deal")


@dataclass(frozen=True)
class Record:
    """A deal (variant, number, house rules) and a line of play from it. ``won``: the
    line wins (its last move with the auto-finish). The variant is kept as the base
    variant and the rules as their effective values, so equal games give equal records."""

    variant: Variant
    deal: int
    rules: Rules = field(default_factory=Rules)
    moves: tuple[Move, ...] = ()
    won: bool = False
    # Parsed records: the line each token (each move, then the result) was read from.
    lines: tuple[int, ...] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        base = get_variant(self.variant.name)
        ruled = base.with_rules(self.rules)
        object.__setattr__(self, "variant", base)
        object.__setattr__(self, "rules", Rules(foundation_return=ruled.foundation_return))
        object.__setattr__(self, "moves", tuple(self.moves))

    # ------------------------------------------------------------------ text
    def __str__(self) -> str:
        rules = " ".join(f"{name}={_rule_text(self.rules, name)}" for name in HOUSE_RULES)
        head = [
            f'[Variant "{self.variant.name}"]',
            f'[Deal "{self.deal}"]',
            f'[Rules "{rules}"]',
        ]
        return "\n".join([*head, "", *_wrapped([*map(str, self.moves), self.result])]) + "\n"

    @property
    def result(self) -> str:
        return WON if self.won else NOT_WON

    @classmethod
    def parse(cls, text: str) -> Record:
        """The record a text holds; :class:`InvalidRecord` says what is wrong and where.
        Lines end with ``\\n`` (or ``\\r\\n``)."""
        if not isinstance(text, str) or len(text) > RECORD_MAX_CHARS:
            raise InvalidRecord(
                "too_long", "a record is a text of at most {max} characters", max=RECORD_MAX_CHARS
            )
        lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
        headers, body_start = _read_headers(lines)
        variant, number, rules = _deal_of(headers)
        tokens = [
            (match.group(), number_)
            for number_, line in enumerate(lines[body_start:], start=body_start + 1)
            for match in _TOKEN.finditer(line)
        ]
        if not tokens or tokens[-1][0] not in (WON, NOT_WON):
            last = tokens[-1][1] if tokens else len(lines)
            raise InvalidRecord(
                "missing_result",
                "line {line}: the moves end with a result, `won` or `*`",
                line=last,
            )
        if len(tokens) - 1 > RECORD_MAX_MOVES:
            raise InvalidRecord(
                "too_many_moves",
                "a record holds at most {max} moves",
                max=RECORD_MAX_MOVES,
                line=tokens[RECORD_MAX_MOVES][1],
                move_number=RECORD_MAX_MOVES + 1,
            )
        moves = tuple(_move(token, line, n) for n, (token, line) in enumerate(tokens[:-1], 1))
        lines_read = tuple(line for _token, line in tokens)
        return cls(variant, number, rules, moves, tokens[-1][0] == WON, lines_read)

    # ------------------------------------------------------------------ play
    def start(self) -> State:
        """The deal's opening position under the record's rules."""
        return deal(self.variant, self.deal, self.rules)

    def auto_finish_at(self, index: int) -> bool:
        """Is the move at ``index`` (0-based) played with the auto-finish? Only the last
        move of a won record."""
        return self.won and index == len(self.moves) - 1

    def replay(self) -> State:
        """Play the line from the deal, every move checked by the rules: the position it
        leads to. :class:`InvalidRecord` (with the engine's reason: ``wrong_colour``,
        ``game_over``, ...) for the first move the rules refuse, and ``result_mismatch``
        when the line does not end as the result says."""
        state = self.start()
        for index, move in enumerate(self.moves):
            try:
                state, _events = state.apply(move, auto_finish=self.auto_finish_at(index))
            except EngineError as exc:
                raise self.refused(index, exc) from exc
        self.check_result(state)
        return state

    def refused(self, index: int, exc: EngineError) -> InvalidRecord:
        """The record's error for the move at ``index`` (0-based) refused with ``exc``."""
        line = self.line_of(index)
        template = (
            N_("line {line}, move {move_number} ({move}): {cause}")
            if line is not None
            else N_("move {move_number} ({move}): {cause}")
        )
        return InvalidRecord(
            exc.code,
            template,
            line=line,
            move_number=index + 1,
            move=str(self.moves[index]),
            cause=exc,
        )

    def check_result(self, state: State) -> None:
        """Raise ``result_mismatch`` unless ``state`` (the line's end) is won exactly when
        the record says so."""
        if state.is_won != self.won:
            template = (
                N_("the record says the game is won, but its moves leave it {status}")
                if self.won
                else N_("the record says the game is not won (*), but its moves leave it {status}")
            )
            line = self.line_of(len(self.moves))
            raise InvalidRecord("result_mismatch", template, line=line, status=state.status)

    def line_of(self, index: int) -> int | None:
        """The line the token at ``index`` (a move, or the result after the last) was read
        from; None for a record that was not parsed."""
        lines = self.lines
        return lines[index] if lines is not None and index < len(lines) else None


def _rule_text(rules: Rules, name: str) -> str:
    return "true" if getattr(rules, name) else "false"


def _wrapped(tokens: list[str]) -> list[str]:
    """The tokens on lines of at most `_WIDTH` characters (PGN's custom)."""
    lines: list[str] = []
    current: list[str] = []
    width = 0
    for token in tokens:
        if current and width + 1 + len(token) > _WIDTH:
            lines.append(" ".join(current))
            current, width = [], 0
        width += len(token) + (1 if current else 0)
        current.append(token)
    lines.append(" ".join(current))
    return lines


def _read_headers(lines: list[str]) -> tuple[dict[str, tuple[str, int]], int]:
    """The header values by name (with their line), and the index of the first line of
    moves (after the blank line that ends the headers)."""
    headers: dict[str, tuple[str, int]] = {}
    for index, line in enumerate(lines):
        number = index + 1
        if line == "" and headers:
            return headers, index + 1
        match = _HEADER.fullmatch(line)
        if match is None:
            raise InvalidRecord(
                "bad_header",
                'line {line}: expected a header line such as [Deal "12345"], '
                "or a blank line after the headers",
                line=number,
            )
        name, value = match.groups()
        if name not in _HEADERS:
            raise InvalidRecord(
                "unknown_header",
                "line {line}: no header is called {name!r} (known: {known})",
                line=number,
                name=name,
                known=", ".join(_HEADERS),
            )
        if name in headers:
            raise InvalidRecord(
                "duplicate_header", "line {line}: a second {name}", line=number, name=name
            )
        headers[name] = (value, number)
    raise InvalidRecord(
        "missing_result",
        "the record ends in its headers: a blank line, then the moves and a result",
        line=len(lines),
    )


def _deal_of(headers: dict[str, tuple[str, int]]) -> tuple[Variant, int, Rules]:
    for name in _REQUIRED:
        if name not in headers:
            raise InvalidRecord(
                "missing_header", "the record has no {name} header", line=1, name=name
            )
    name, line = headers["Variant"]
    try:
        variant = get_variant(name)
    except EngineError as exc:
        raise InvalidRecord(exc.code, "line {line}: {cause}", line=line, cause=exc) from exc
    number_text, line = headers["Deal"]
    if _DEAL.fullmatch(number_text) is None or int(number_text) > MAX_DEAL:
        raise InvalidRecord(
            "invalid_deal",
            "line {line}: a deal number is a whole number from 1 to {max}, in decimal digits",
            line=line,
            max=MAX_DEAL,
        )
    rules = _rules(*headers.get("Rules", ("", 0)))
    return variant, int(number_text), rules


def _rules(text: str, line: int) -> Rules:
    values: dict[str, bool] = {}
    for item in text.split(" ") if text else ():
        match = _RULE.fullmatch(item)
        if match is None:
            raise InvalidRecord(
                "bad_rule",
                "line {line}: {item!r} is not name=true or name=false",
                line=line,
                item=item,
            )
        name, value = match.groups()
        if name not in HOUSE_RULES:
            raise InvalidRecord(
                "unknown_rule",
                "line {line}: no house rule is called {name!r} (known: {known})",
                line=line,
                name=name,
                known=", ".join(HOUSE_RULES),
            )
        if name in values:
            raise InvalidRecord("bad_rule", "line {line}: {name} given twice", line=line, name=name)
        values[name] = value == "true"
    return Rules.from_json(values)


def _move(token: str, line: int, number: int) -> Move:
    try:
        return Move.parse(token)
    except EngineError as exc:
        raise InvalidRecord(
            exc.code,
            "line {line}, move {move_number}: {cause}",
            line=line,
            move_number=number,
            cause=exc,
        ) from exc
