"""The API's scalar types and what every model shares: strict requests, the deal
number, the error envelope."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
    computed_field,
    model_validator,
)
from pydantic_core import PydanticCustomError
from typing_extensions import TypeAliasType

from app.engine import MAX_DEAL, REASONS
from app.errors import ANSWERED_CODES, OWN_FAULTS

# A proven deal's rating, measured (app/solver/difficulty.py); one schema of its own.
Difficulty = TypeAliasType("Difficulty", Literal["easy", "medium", "hard", "expert"])

# Requests are validated strictly: a field takes exactly the JSON type it declares
# (`deal` refuses true, "12", 1000.0 and 1e10; `expected_version` refuses "0").
STRICT = ConfigDict(extra="forbid", strict=True)


# --- the API's scalar types ---------------------------------------------------------


def _as_utc(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; every time stored is UTC.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def rfc3339(moment: datetime) -> str:
    """`2026-11-30T10:00:00.123Z`: RFC 3339, UTC, `Z`, always milliseconds (what
    JavaScript's `Date.prototype.toISOString` writes, and `Date.parse` reads exactly)."""
    moment = _as_utc(moment)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


Timestamp = Annotated[
    datetime,
    AfterValidator(_as_utc),
    PlainSerializer(rfc3339, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "description": "RFC 3339, UTC, with `Z` and milliseconds.",
            "examples": ["2026-11-30T10:00:00.123Z"],
        },
        mode="serialization",
    ),
]
"""Every moment the API answers: one type, one format (RFC 3339, UTC, `Z`)."""

# A deal number as a decimal string: the digits of a JSON integer (no sign, no leading
# zero, ASCII digits only).
_DEAL_TEXT = re.compile(r"0|[1-9][0-9]*")
_DEAL_DIGITS = len(str(MAX_DEAL))

# The largest integer every JSON reader holds exactly (JavaScript's
# Number.MAX_SAFE_INTEGER, a double's 53 bits). No deal number the API reads or writes
# as a JSON number passes it: larger ones travel as strings of their digits.
SAFE_INTEGER_MAX = 2**53 - 1

_DEAL_TYPE = "a deal number is a JSON integer or a string of its decimal digits"
_DEAL_UNSAFE = "a deal number above {max} is sent as a string of its decimal digits"


def _deal_number(value: Any) -> int:
    """A JSON integer up to 2^53 - 1, or a decimal string of any deal number; in
    1 .. 10^20 - 1, else the `invalid_deal` error (app.errors). A JSON integer above
    2^53 - 1 (and a deal number) is refused with the field code `deal_type`: a reader
    may have rounded it (JSON.parse does), so only its string is taken."""
    if isinstance(value, str):
        if not _DEAL_TEXT.fullmatch(value):
            raise PydanticCustomError("deal_type", _DEAL_TYPE)
        # Checked before int(): Python refuses to convert strings of thousands of digits.
        number = int(value) if len(value) <= _DEAL_DIGITS else MAX_DEAL + 1
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise PydanticCustomError("deal_type", _DEAL_TYPE)
    if not 1 <= number <= MAX_DEAL:
        raise PydanticCustomError(
            "invalid_deal", "a deal number is a whole number from 1 to {max}", {"max": MAX_DEAL}
        )
    if number > SAFE_INTEGER_MAX and not isinstance(value, str):
        raise PydanticCustomError("deal_type", _DEAL_UNSAFE, {"max": SAFE_INTEGER_MAX})
    return number


DealNumber = Annotated[
    int,
    PlainValidator(_deal_number),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": SAFE_INTEGER_MAX},
                {"type": "string", "pattern": f"^[1-9][0-9]{{0,{_DEAL_DIGITS - 1}}}$"},
            ],
            "description": "1 .. 10^20 - 1 as a string of its decimal digits, or, up to "
            "2^53 - 1 (9007199254740991), as a JSON integer (a larger JSON integer: 422 "
            "validation_error, field code `deal_type`).",
            "examples": [12345, "99999999999999999999"],
        },
        mode="validation",
    ),
]
"""A deal number in a request: a decimal string, or a JSON integer JavaScript holds."""


def _shown_deal(number: int | None) -> int | None:
    return number if number is not None and number <= SAFE_INTEGER_MAX else None


ShownDeal = Annotated[
    int | None,
    PlainSerializer(_shown_deal, return_type=int | None),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": SAFE_INTEGER_MAX},
                {"type": "null"},
            ]
        },
        mode="serialization",
    ),
]
"""A deal number in an answer: a JSON integer up to 2^53 - 1, null above it (and where
the deal is secret); `deal_str` beside it carries every deal number shown, exactly."""


class _WithDeal(BaseModel):
    """An answer that shows a deal number: `deal` (a JSON integer up to 2^53 - 1) and,
    beside it, `deal_str` (every number, exact)."""

    deal: ShownDeal

    @model_validator(mode="before")
    @classmethod
    def _read_deal_str(cls, data: Any) -> Any:
        # An answer read back (a client in Python, the tests): a deal above 2^53 - 1 is
        # in `deal_str` only.
        if isinstance(data, dict) and data.get("deal") is None:
            text = data.get("deal_str")
            if isinstance(text, str) and _DEAL_TEXT.fullmatch(text):
                return {**data, "deal": int(text)}
        return data

    @computed_field(  # type: ignore[prop-decorator]
        description="The deal number as a decimal string, exact for every deal number "
        "(10^20 - 1 at most); null when the deal is secret. `deal` beside it is the same "
        "number as a JSON integer up to 2^53 - 1, and null above it: read this one.",
        examples=["12345", "99999999999999999999"],
    )
    @property
    def deal_str(self) -> str | None:
        return None if self.deal is None else str(self.deal)


def _reasons_table() -> str:
    rows = "\n".join(f"| `{code}` | {meaning} |" for code, meaning in sorted(REASONS.items()))
    return "\n\n| reason | meaning |\n| --- | --- |\n" + rows


ErrorCode = Annotated[
    str,
    WithJsonSchema(
        {
            "type": "string",
            "enum": list(ANSWERED_CODES),
            "description": "The stable code of the error (docs/api.md, the error table); "
            "each operation lists those it answers, by status.",
        }
    ),
]
Reason = Annotated[
    str,
    WithJsonSchema(
        {
            "type": "string",
            "enum": sorted(REASONS),
            "description": "The engine's reason, where it gave one (`illegal_move`, "
            "`invalid_move`, `invalid_deal`, `invalid_rules`, `game_over`, "
            "`invalid_record`):" + _reasons_table(),
        }
    ),
]


class FieldFault(BaseModel):
    """One fault of a request `validation_error` refused."""

    field: str = Field(
        description="Where: a dotted path in the body (`settings.auto_play`), or a "
        "parameter's name; empty for the request as a whole.",
        examples=["settings.auto_play"],
    )
    code: str = Field(
        description="What: pydantic's error type (`missing`, `bool_parsing`, "
        "`string_too_long`, ...) or the service's own ("
        + ", ".join(f"`{code}`" for code in OWN_FAULTS)
        + ").",
        examples=["bool_parsing"],
    )
    message: str = Field(examples=["Input should be a valid boolean"])


class ErrorDetail(BaseModel):
    code: ErrorCode = Field(examples=["illegal_move"])
    message: str = Field(examples=["a red card goes on a black one"])
    reason: Reason | None = Field(default=None, examples=["wrong_colour"])
    errors: list[FieldFault] | None = Field(
        default=None,
        description="validation_error only: each fault of the request (at most 20), beside "
        "`message`, which says them in one line.",
    )
    line: int | None = Field(
        default=None,
        ge=1,
        description="invalid_record only: the line of the record (1-based) at fault.",
    )
    move_number: int | None = Field(
        default=None,
        ge=1,
        description="invalid_record only, for a move at fault: its number in the record's "
        "line of play (1-based).",
    )


class ErrorResponse(BaseModel):
    """The envelope of every error answer."""

    error: ErrorDetail
