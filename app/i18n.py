"""The languages of the answers: `Accept-Language` chooses English, German, Russian or
French for the texts the API writes for people (variant names, the rules in words, error
messages); codes, ids and enums never change.

English is the source: every message is written in English in the code (the engine's
messages are English templates with parameters, `app.engine.errors`), and the English
text is the message id of the catalogues `app/locales/<lang>/LC_MESSAGES/messages.po`
(extracted into `app/locales/messages.pot` by `pybabel extract -F babel.cfg`; docs/api.md,
"Languages"). The `.po` files are read as they are at start-up (no compiled `.mo` to keep
in step); a message missing from a catalogue is answered in English.

The language of a request is negotiated once, by `LanguageMiddleware`
(app/middleware.py), which keeps it in a context variable for the code that writes
texts (`translate`) and names it in `Content-Language`.
"""

from __future__ import annotations

import io
import logging
import string
from collections.abc import Mapping
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

from babel.core import negotiate_locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from app.engine import EngineError, RankName

log = logging.getLogger(__name__)

DEFAULT_LANGUAGE = "en"
# The source language first; the others each have a catalogue.
LANGUAGES = ("en", "de", "ru", "fr")
LOCALES_DIR = Path(__file__).with_name("locales")
DOMAIN = "messages"

# What `pybabel extract` reads as a message (babel.cfg maps the files): `N_(...)`, and
# the English template the engine's errors take as their second argument.
EXTRACT_KEYWORDS = (
    "N_",
    "IllegalMove:2",
    "InvalidMove:2",
    "InvalidDeal:2",
    "InvalidRecord:2",
    "UnknownVariant:2",
)
BABEL_CONFIG = Path(__file__).parent.parent / "babel.cfg"
TEMPLATE = LOCALES_DIR / f"{DOMAIN}.pot"

_LANGUAGE: ContextVar[str] = ContextVar("language", default=DEFAULT_LANGUAGE)

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "N_",
    "current_language",
    "gettext",
    "negotiate",
    "set_language",
    "translate",
]


def N_(message: str) -> str:
    """Marks an English message for `pybabel extract` where it is written once and
    worded later (`translate`); the text itself, unchanged."""
    return message


# --- negotiation ---------------------------------------------------------------------


def _preferences(header: str) -> list[str]:
    """The language ranges of an `Accept-Language` value, best first (by q, then in the
    order given); ranges with q=0 (refused) or a q that cannot be read are left out."""
    ranked: list[tuple[float, int, str]] = []
    for position, item in enumerate(header.split(",")):
        tag, *params = (part.strip() for part in item.split(";"))
        if not tag:
            continue
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = -1.0
        if 0 < quality <= 1:
            ranked.append((-quality, position, tag))
    return [tag for _q, _position, tag in sorted(ranked)]


def negotiate(header: str | None) -> str:
    """The language to answer in: the best of `LANGUAGES` the header accepts (a region
    falls back to its language: `fr-CA` is `fr`), else English. `*` accepts English."""
    if not header:
        return DEFAULT_LANGUAGE
    preferred = [tag for tag in _preferences(header[:1024]) if tag != "*"]
    found = (negotiate_locale(preferred, LANGUAGES, sep="-") or "").lower()
    return found if found in LANGUAGES else DEFAULT_LANGUAGE


def current_language() -> str:
    """The language of the request being answered (English outside a request)."""
    return _LANGUAGE.get()


def set_language(language: str) -> Any:
    """Answer the current request in `language`; the token resets it
    (`reset_language`)."""
    return _LANGUAGE.set(language if language in LANGUAGES else DEFAULT_LANGUAGE)


def reset_language(token: Any) -> None:
    _LANGUAGE.reset(token)


# --- catalogues ----------------------------------------------------------------------


def catalogue_path(language: str) -> Path:
    return LOCALES_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalogue(language: str) -> Catalog:
    with catalogue_path(language).open("rb") as handle:
        return read_po(handle, locale=language, domain=DOMAIN)


@cache
def translations(language: str) -> Translations | None:
    """The language's messages, read from its `.po` (none for English, the source)."""
    if language == DEFAULT_LANGUAGE:
        return None
    catalog = read_catalogue(language)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)  # fuzzy entries are left out, as msgfmt does
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def load_all() -> None:
    """Read every catalogue now (at start-up), so a broken one fails the start."""
    for language in LANGUAGES:
        translations(language)


def gettext(message: str, language: str | None = None) -> str:
    """`message` (an English text) in `language` (default: the request's)."""
    found = translations(language or current_language())
    return message if found is None else found.gettext(message)


def placeholders(template: str) -> set[str]:
    """The names a message template formats (`{pile}`, `{name!r}` -> pile, name)."""
    return {
        name.split(".")[0].split("[")[0]
        for _text, name, _spec, _conversion in string.Formatter().parse(template)
        if name
    }


def _worded(value: Any, language: str) -> Any:
    if isinstance(value, RankName):
        return gettext(str(value), language)
    if isinstance(value, EngineError):
        return translate(value.template, value.params, language)
    return value


def translate(
    template: str, params: Mapping[str, Any] | None = None, language: str | None = None
) -> str:
    """The message `template` (English, with `{name}` placeholders) in `language`
    (default: the request's), formatted with `params`: a rank is named in that language,
    a quoted engine error worded in it too; ids, codes and numbers stay as they are."""
    language = language or current_language()
    text = gettext(template, language)
    if not params:
        return text
    values = {name: _worded(value, language) for name, value in params.items()}
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        # A translation naming a placeholder the template has not (the catalogue test
        # catches it): the English text, never an error for the player.
        log.error("message %r in %s does not format; answered in English", template, language)
        return template.format(**params)


# --- extraction (make messages) -------------------------------------------------------


def extract(output: Path = TEMPLATE) -> None:
    """`pybabel extract` of app/ into `output`, with babel.cfg and `EXTRACT_KEYWORDS`: the
    messages the catalogues translate, sorted, without line numbers (so the file changes
    only when a message does)."""
    from babel.messages.frontend import CommandLineInterface

    arguments = ["pybabel", "-q", "extract", "-F", str(BABEL_CONFIG), "-o", str(output)]
    for keyword in EXTRACT_KEYWORDS:
        arguments += ["-k", keyword]
    arguments += ["--no-default-keywords", "--no-location", "--sort-output", "--omit-header"]
    arguments += ["--no-wrap", str(Path(__file__).parent)]
    CommandLineInterface().run(arguments)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["extract"]:
        raise SystemExit("usage: python -m app.i18n extract")
    extract()
