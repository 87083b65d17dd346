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
)
from pydantic_core import PydanticCustomError
from typing_extensions import TypeAliasType

from app.engine import MAX_DEAL, REASONS
from app.errors import ANSWERED_CODES

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


def _deal_number(value: Any) -> int:
    """A JSON integer, or a decimal string of one (JavaScript cannot hold numbers above
    2^53 exactly); in 1 .. 10^20 - 1, else the `invalid_deal` error (app.errors)."""
    if isinstance(value, str):
        if not _DEAL_TEXT.fullmatch(value):
            raise PydanticCustomError(
                "deal_type",
                "a deal number is a JSON integer or a string of its decimal digits",
            )
        # Checked before int(): Python refuses to convert strings of thousands of digits.
        number = int(value) if len(value) <= _DEAL_DIGITS else MAX_DEAL + 1
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise PydanticCustomError(
            "deal_type", "a deal number is a JSON integer or a string of its decimal digits"
        )
    if not 1 <= number <= MAX_DEAL:
        raise PydanticCustomError(
            "invalid_deal", "a deal number is a whole number from 1 to {max}", {"max": MAX_DEAL}
        )
    return number


DealNumber = Annotated[
    int,
    PlainValidator(_deal_number),
    WithJsonSchema(
        {
            "anyOf": [
                # exclusiveMaximum 10^20 (MAX_DEAL + 1): exact as a double, as the
                # OpenAPI document writes bounds; MAX_DEAL itself would round up to 1e20.
                {"type": "integer", "minimum": 1, "exclusiveMaximum": MAX_DEAL + 1},
                {"type": "string", "pattern": f"^[1-9][0-9]{{0,{_DEAL_DIGITS - 1}}}$"},
            ],
            "description": "1 .. 10^20 - 1, as a JSON integer or as a string of its "
            "decimal digits (exact in JavaScript above 2^53).",
            "examples": [12345, "99999999999999999999"],
        },
        mode="validation",
    ),
]
"""A deal number in a request: integer or decimal string, one range."""


class _WithDeal(BaseModel):
    """An answer that shows a deal number: `deal` and, beside it, `deal_str`."""

    deal: int | None

    @computed_field(  # type: ignore[prop-decorator]
        description="`deal` as a decimal string (null with it): read this one in "
        "JavaScript, where numbers above 2^53 lose digits.",
        examples=["12345"],
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
        "`string_too_long`, ...) or the service's own (`date_format`, "
        "`deal_and_solvable`, `difficulty_without_solvable`, `record_not_alone`, "
        "`null_body`, `json_invalid`).",
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
