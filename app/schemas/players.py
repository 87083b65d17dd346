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
    (0x2028, 0x2029),  # the line and paragraph separators (Zl, Zp): a name is one line
)  # fmt: skip
# Characters that are letters or symbols to Unicode but draw nothing: the Hangul fillers
# and the blank Braille pattern. With spaces, marks and the hidden characters above,
# a name of these alone shows as blank.
BLANK_CHARACTERS = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800})
# Combining marks (Unicode M*) in a row on one character: real writing puts up to three
# or four on a letter (Vietnamese two, Tibetan stacks four); dozens stacked draw over the
# lines above and below a name in the results.
MAX_MARKS_IN_A_ROW = 6


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
    """A name as it is stored and shown: NFC (one spelling for one name), one line
    without control or format characters (Unicode Cc and Cf: a right-to-left override or
    a zero-width character would disguise a name in the public results; NUL never
    reaches a database, and PostgreSQL cannot store it in text), with something to see
    (not only spaces, marks or blank characters) and no pile of combining marks."""
    name = unicodedata.normalize("NFC", name)
    hidden = sorted(
        {f"U+{ord(c):04X}" for c in name if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")}
    )
    if hidden:
        raise ValueError(
            f"control, format and line separator characters are not allowed ({', '.join(hidden)})"
        )
    if len(name) > NAME_MAX_LENGTH:  # NFC can lengthen a few characters
        raise ValueError(f"at most {NAME_MAX_LENGTH} characters")
    if not any(_visible(c) for c in name):
        raise ValueError("a name needs a visible character (not only spaces or marks)")
    if _most_marks_in_a_row(name) > MAX_MARKS_IN_A_ROW:
        raise ValueError(f"at most {MAX_MARKS_IN_A_ROW} combining marks in a row")
    return name


def _visible(character: str) -> bool:
    kind = unicodedata.category(character)[0]
    return kind not in "ZMC" and ord(character) not in BLANK_CHARACTERS


def _most_marks_in_a_row(name: str) -> int:
    most = run = 0
    for character in name:
        run = run + 1 if unicodedata.category(character)[0] == "M" else 0
        most = max(most, run)
    return most


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
        description="Shown in daily results: one line with at least one visible "
        "character (not only spaces, combining marks or blank characters such as U+3164 or "
        "U+2800), no control, format or line separator characters (Unicode categories "
        "Cc, Cf, Zl and Zp, such as U+202E, U+200B or U+2028) and at most "
        f"{MAX_MARKS_IN_A_ROW} combining marks in a row. Stored in Unicode NFC.",
    )


class PlayerOut(BaseModel):
    id: str
    name: str | None
    created_at: Timestamp


class PlayerCreated(BaseModel):
    id: str
    name: str | None
    token: str = Field(description="Shown once: send it as `Authorization: Bearer <token>`.")
