"""Page cursors of every list that pages by key (`GET /games`, `GET /games/{id}/moves`,
the daily results): where a page ended, as an opaque URL-safe string only this server's secret
makes and reads.

A cursor is sealed, not only encoded: its values (a move's seq, the last listed game of
a ranking, which is another player's game id, a game's creation time and id) are encrypted and authenticated with
AES-SIV (RFC 5297, `cryptography`) under a key derived from `SECRET_KEY`, so a client
can neither read nor forge one, and every instance with the same secret reads the
cursors of the others. AES-SIV is deterministic (the same page end gives the same
cursor) and authenticates the list and its context as associated data (a cursor of one
game's moves is refused for another game's, or for the results). Anything else is 422
`invalid_cursor`.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from app.errors import InvalidCursor

# AES-256-SIV: two 256-bit keys, one for the synthetic IV's MAC and one for the cipher.
_KEY_BYTES = 64


def _b64encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PageCursors:
    """Seals and opens page cursors under keys derived from the server's secret."""

    def __init__(self, secret: str) -> None:
        # A key of its own: a cursor says nothing of stream tokens or daily deals.
        key = HKDF(
            algorithm=hashes.SHA256(), length=_KEY_BYTES, salt=None, info=b"page-cursor"
        ).derive(secret.encode())
        self._siv = AESSIV(key)

    def seal(self, kind: str, context: str, values: list[Any]) -> str:
        """The cursor of `values` (JSON) for the list `kind` of `context` (its game, its
        variant and date)."""
        plain = json.dumps(values, separators=(",", ":")).encode()
        return _b64encode(self._siv.encrypt(plain, [kind.encode(), context.encode()]))

    def open(self, kind: str, context: str, cursor: str) -> list[Any]:
        """The values sealed in `cursor` for this list and context; 422 `invalid_cursor`
        for anything this server did not seal for them."""
        try:
            sealed = _b64decode(cursor)
            plain = self._siv.decrypt(sealed, [kind.encode(), context.encode()])
        except (ValueError, binascii.Error, InvalidTag) as exc:
            raise InvalidCursor() from exc
        values = json.loads(plain)
        if not isinstance(values, list):  # only what `seal` wrote is authentic
            raise InvalidCursor()
        return values
