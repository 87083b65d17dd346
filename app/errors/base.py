"""The base of every named error: `ApiError` (a stable code, an HTTP status, a message
translated into the request's language), and `CATALOGUE`, every code's named type
(filled as each type is defined, in `app.errors.catalogue`)."""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from app.i18n import translate

log = logging.getLogger("app.errors")

# code -> its named type; filled by ApiError.__init_subclass__.
CATALOGUE: dict[str, type[ApiError]] = {}


class ApiError(Exception):
    """An expected failure: a stable code, an HTTP status and a message for humans.

    Raise a named subclass (`GameNotFound()`, `VersionConflict("...")`); each has its code,
    status and a default message. A message is English, and a template where it names
    values (`DailyNotAvailable("... {date} ...", params={"date": ...})`): the handler
    answers it in the request's language (app.i18n), formatted with `params`."""

    code: ClassVar[str] = "internal_error"
    status: ClassVar[int] = 500
    default_message: ClassVar[str] = "internal server error"
    # Where the answer comes from when no handler of ours raises it (documentation only).
    answered_by: ClassVar[str] = "the service"
    # The answer carries `Retry-After` (declared in the API document where it is answered).
    sends_retry_after: ClassVar[bool] = False

    def __init__(
        self,
        message: str | None = None,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        reason: str | None = None,
    ) -> None:
        self.template = message or self.default_message
        self.params = params or {}
        # In English (logs, tests); `localized()` in the request's language.
        self.message = self.template.format(**self.params) if self.params else self.template
        super().__init__(self.message)
        self.headers = headers
        # For engine refusals: the engine's own reason code (e.g. "wrong_colour").
        self.reason = reason
        # More of the envelope's fields, where a type has them (`invalid_record`'s place).
        self.fields: dict[str, Any] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled whole: an error raised in the lane's process is answered here.
        return (_restored, (type(self), self.args, self.__dict__))

    def localized(self) -> str:
        """The message in the language of the request being answered."""
        return translate(self.template, self.params)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.code in CATALOGUE:
            raise TypeError(f"two error types with the code {cls.code!r}")
        CATALOGUE[cls.code] = cls


def _restored(kind: type[ApiError], args: tuple[Any, ...], fields: dict[str, Any]) -> ApiError:
    error = kind.__new__(kind)
    error.args = args
    error.__dict__.update(fields)
    return error


def retry_after(seconds: int) -> dict[str, str]:
    return {"Retry-After": str(seconds)}
