"""Page cursors of the lists that page by key (`GET /games/{id}/moves`, the daily
results): where a page ended, as an opaque URL-safe string only this server's secret
makes and reads.

A cursor is sealed, not only encoded: its values (a move's seq, the last listed game of
a ranking, which is another player's game id) are encrypted and authenticated with keys
derived from `SECRET_KEY`, so a client can neither read nor forge one, and every
instance with the same secret reads the cursors of the others. The construction is the
synthetic-IV one with HMAC-SHA256 as its pseudo-random function: the IV is a MAC of the
list, its context and the values, the values are XORed with a keystream drawn from the
IV; opening recomputes the MAC and compares it in constant time. A cursor is
deterministic (the same page end gives the same cursor) and bound to its list and
context (a cursor of one game's moves is refused for another game's, or for the
results). Anything else is 422 `invalid_cursor`.

(`GET /games` keeps its own cursor, `app.services.games.cursors`: the caller's own
games' (created_at, id), validated rather than sealed.)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

from app.errors import InvalidCursor

_IV_BYTES = 16
_BLOCK = hashlib.sha256().digest_size


def _b64encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PageCursors:
    """Seals and opens page cursors under keys derived from the server's secret."""

    def __init__(self, secret: str) -> None:
        # Keys of their own: a cursor's MAC says nothing of stream tokens or daily deals.
        self._mac_key = hmac.new(secret.encode(), b"page-cursor-mac", hashlib.sha256).digest()
        self._stream_key = hmac.new(secret.encode(), b"page-cursor-key", hashlib.sha256).digest()

    def _iv(self, kind: str, context: str, plain: bytes) -> bytes:
        message = b"\x00".join((kind.encode(), context.encode(), plain))
        return hmac.new(self._mac_key, message, hashlib.sha256).digest()[:_IV_BYTES]

    def _xor(self, iv: bytes, data: bytes) -> bytes:
        blocks = (len(data) + _BLOCK - 1) // _BLOCK
        stream = b"".join(
            hmac.new(self._stream_key, iv + n.to_bytes(4, "big"), hashlib.sha256).digest()
            for n in range(blocks)
        )
        return bytes(a ^ b for a, b in zip(data, stream, strict=False))

    def seal(self, kind: str, context: str, values: list[Any]) -> str:
        """The cursor of `values` (JSON) for the list `kind` of `context` (its game, its
        variant and date)."""
        plain = json.dumps(values, separators=(",", ":")).encode()
        iv = self._iv(kind, context, plain)
        return _b64encode(iv + self._xor(iv, plain))

    def open(self, kind: str, context: str, cursor: str) -> list[Any]:
        """The values sealed in `cursor` for this list and context; 422 `invalid_cursor`
        for anything this server did not seal for them."""
        try:
            raw = _b64decode(cursor)
        except (ValueError, binascii.Error) as exc:
            raise InvalidCursor() from exc
        iv, sealed = raw[:_IV_BYTES], raw[_IV_BYTES:]
        plain = self._xor(iv, sealed)
        if len(iv) != _IV_BYTES or not hmac.compare_digest(iv, self._iv(kind, context, plain)):
            raise InvalidCursor()
        values = json.loads(plain)
        if not isinstance(values, list):  # only what `seal` wrote is authentic
            raise InvalidCursor()
        return values
