"""The reference client's own words (app/web): the English sources, as its files hold them,
and its catalogues (app/web/locales/<language>.json, keyed by the English source).

The sources are the literal first arguments of `t("...")` in the JS modules and the words
of index.html (its text, and its `title`, `placeholder` and `aria-label` attributes, less
an element with a `lang` of its own) as i18n.js `translatePage` reads them. A source with
`{count}` has plural forms: its entry is an object by Intl.PluralRules category (English's
in en.json, which holds only those).

    .venv/bin/python scripts/web_messages.py            # what each catalogue lacks or has too many
    .venv/bin/python scripts/web_messages.py --sources  # the sources, one per line
    .venv/bin/python scripts/web_messages.py --merge scripts/web_messages_pending.json
        # each catalogue given the entries it lacks from that file ({language: {source:
        # entry}}), its stale entries dropped, written back sorted

tests/api/test_play_locales.py checks the catalogues with `problems()`.
"""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

WEB = Path(__file__).resolve().parent.parent / "app" / "web"
LANGUAGES = ("en", "de", "ru", "fr")
# The plural categories each language's catalogue gives a `{count}` source (Intl.PluralRules
# of integers: French's `many` is for millions, shown with `other`).
PLURALS = {
    "en": {"one", "other"},
    "de": {"one", "other"},
    "ru": {"one", "few", "many", "other"},
    "fr": {"one", "other"},
}
ATTRIBUTES = ("title", "placeholder", "aria-label")
T_CALL = re.compile(r"""\bt\(\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)')""")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


class _Words(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.words: set[str] = set()
        self.stack: list[tuple[str, bool]] = []  # (tag, inside an element with a lang)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        foreign = (self.stack[-1][1] if self.stack else False) or (
            "lang" in values and tag != "html"
        )
        if tag not in ("input", "meta", "link", "br", "img"):
            self.stack.append((tag, foreign))
        if foreign:
            return
        for name in ATTRIBUTES:
            value = values.get(name)
            if value:
                self.words.add(value)

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if not text or not self.stack:
            return
        tag, foreign = self.stack[-1]
        if foreign or tag in ("script", "style"):
            return
        self.words.add(text)


def _unescape(text: str) -> str:
    decoded: str = json.loads(f'"{text}"')
    return decoded


def sources() -> set[str]:
    """Every English source of the client: its `t()` calls and index.html's words."""
    found: set[str] = set()
    for path in sorted(WEB.glob("*.js")):
        for double, single in T_CALL.findall(path.read_text()):
            found.add(_unescape(double) if double else single.replace("\\'", "'"))
    parser = _Words()
    parser.feed((WEB / "index.html").read_text())
    found |= parser.words
    return found


def catalogue(language: str) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((WEB / "locales" / f"{language}.json").read_text())
    return loaded


def _entry_problems(language: str, source: str, entry: object) -> list[str]:
    wanted = set(PLACEHOLDER.findall(source))
    if "count" in wanted:
        if not isinstance(entry, dict) or set(entry) != PLURALS[language]:
            return [f"{language}: {source!r} wants the plural forms {sorted(PLURALS[language])}"]
        forms = list(entry.values())
    else:
        if not isinstance(entry, str):
            return [f"{language}: {source!r} wants a string"]
        forms = [entry]
    problems = []
    for form in forms:
        if not isinstance(form, str) or not form.strip():
            problems.append(f"{language}: {source!r} has an empty form")
        elif set(PLACEHOLDER.findall(form)) != wanted:
            problems.append(f"{language}: {source!r} -> {form!r}: not the placeholders {wanted}")
        elif language == "fr" and "\u2019" in form:
            problems.append(f"fr: {source!r} -> {form!r}: a curly apostrophe")
    return problems


def _wanted(language: str, known: set[str]) -> set[str]:
    """The sources a language's catalogue holds: English shows its sources as they are,
    so its catalogue holds only their plural forms."""
    return {s for s in known if "{count}" in s} if language == "en" else known


def problems() -> list[str]:
    """What is missing, stale or malformed in the catalogues (empty: none)."""
    known = sources()
    found: list[str] = []
    for language in LANGUAGES:
        entries = catalogue(language)
        wanted = _wanted(language, known)
        found += [f"{language}: missing {s!r}" for s in sorted(wanted - set(entries))]
        found += [f"{language}: stale {s!r}" for s in sorted(set(entries) - wanted)]
        for source in sorted(wanted & set(entries)):
            found += _entry_problems(language, source, entries[source])
    return found


def merge(path: Path) -> None:
    """Each catalogue given the entries its sources lack from `path`, less its stale ones."""
    given: dict[str, dict[str, object]] = json.loads(path.read_text())
    known = sources()
    for language in LANGUAGES:
        entries = catalogue(language)
        wanted = _wanted(language, known)
        for source, entry in given.get(language, {}).items():
            if source in wanted and source not in entries:
                entries[source] = entry
        kept = {s: entries[s] for s in sorted(entries) if s in wanted}
        text = json.dumps(kept, ensure_ascii=False, indent=1)
        (WEB / "locales" / f"{language}.json").write_text(text + "\n")


def main() -> None:
    if "--sources" in sys.argv:
        print("\n".join(sorted(sources())))
        return
    if "--merge" in sys.argv:
        merge(Path(sys.argv[sys.argv.index("--merge") + 1]))
    found = problems()
    print("\n".join(found) or "the catalogues hold every source, and nothing else")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
