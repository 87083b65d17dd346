"""Players: a name and a token."""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
)

from app.schemas.common import STRICT, Timestamp

# --- players -----------------------------------------------------------------


NAME_MAX_LENGTH = 64
# The control and format characters (Unicode categories Cc and Cf) of Unicode 14.0,
# Python 3.11's: for the document's pattern, which must not change with the Python that
# writes it. Names are checked against the running Python's categories.
HIDDEN_CHARACTERS = (
    (0x0000, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD), (0x0600, 0x0605),
    (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891),
    (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip


def _class_char(code: int) -> str:
    # \uXXXX reads the same in ECMAScript and Python; beyond the BMP, the character.
    return f"\\u{code:04X}" if code <= 0xFFFF else chr(code)


NAME_PATTERN = (
    "^[^"
    + "".join(
        _class_char(low) + ("" if low == high else "-" + _class_char(high))
        for low, high in HIDDEN_CHARACTERS
    )
    + "]+$"
)


def _public_name(name: str) -> str:
    """A name as it is stored and shown: NFC (one spelling for one name), without control
    or format characters (Unicode Cc and Cf: a right-to-left override or a zero-width
    character would disguise a name in the public results; NUL never reaches a database,
    and PostgreSQL cannot store it in text)."""
    name = unicodedata.normalize("NFC", name)
    hidden = sorted({f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in ("Cc", "Cf")})
    if hidden:
        raise ValueError(f"control and format characters are not allowed ({', '.join(hidden)})")
    if len(name) > NAME_MAX_LENGTH:  # NFC can lengthen a few characters
        raise ValueError(f"at most {NAME_MAX_LENGTH} characters")
    return name


PlayerName = Annotated[
    str,
    # The pattern is documented, not run: the validator says which character it refuses.
    Field(min_length=1, max_length=NAME_MAX_LENGTH, json_schema_extra={"pattern": NAME_PATTERN}),
    AfterValidator(_public_name),
]


class PlayerCreate(BaseModel):
    model_config = STRICT | ConfigDict(json_schema_extra={"examples": [{"name": "ada"}]})

    name: PlayerName | None = Field(
        default=None,
        description="Shown in daily results; no control or format characters (Unicode "
        "categories Cc and Cf, such as U+202E or U+200B). Stored in Unicode NFC.",
    )


class PlayerOut(BaseModel):
    id: str
    name: str | None
    created_at: Timestamp


class PlayerCreated(BaseModel):
    id: str
    name: str | None
    token: str = Field(description="Shown once: send it as `Authorization: Bearer <token>`.")
