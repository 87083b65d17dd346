"""The message catalogues (app/locales): every message the code writes is in
messages.pot, and every language translates every message, with the same placeholders;
the negotiation of Accept-Language; messages worded with their parameters."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from app import i18n
from app.engine import VARIANTS, IllegalMove, InvalidRecord, RankName, get_variant
from app.errors import CATALOGUE

TRANSLATED = [language for language in i18n.LANGUAGES if language != i18n.DEFAULT_LANGUAGE]


def _template_ids(path: Path = i18n.TEMPLATE) -> set[str]:
    with path.open("rb") as handle:
        return {str(message.id) for message in read_po(handle) if message.id}


def test_template_is_what_the_code_says(tmp_path: Path) -> None:
    """messages.pot holds exactly the messages `make messages` (pybabel extract) finds now
    (compared as messages: Babel's versions differ in the flags they write)."""
    fresh = tmp_path / "messages.pot"
    i18n.extract(fresh)
    assert _template_ids(fresh) == _template_ids(), (
        "app/locales/messages.pot is stale: run `make messages`, then translate what changed"
    )


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_in_every_language(language: str) -> None:
    catalogue = i18n.read_catalogue(language)
    wanted = _template_ids()
    have = {str(message.id): message for message in catalogue if message.id}
    assert sorted(wanted - set(have)) == [], f"untranslated in {language}"
    assert sorted(set(have) - wanted) == [], f"obsolete in {language}"
    for msgid, message in have.items():
        assert isinstance(message.string, str) and message.string.strip(), (language, msgid)
        assert not message.fuzzy, (language, msgid)
        assert i18n.placeholders(message.string) == i18n.placeholders(msgid), (language, msgid)
        assert message.string.strip() == message.string, (language, msgid)


def test_catalogue_messages_and_texts_are_in_the_template() -> None:
    """What the API writes from tables is extracted: error defaults, variant names, the
    rules in words of every variant, the ranks."""
    ids = _template_ids()
    assert {kind.default_message for kind in CATALOGUE.values()} <= ids
    for variant in VARIANTS.values():
        assert variant.title in ids
        assert {template for template, _ in variant.rule_texts()} <= ids
    assert {"Ace", "Jack", "Queen", "King"} <= ids


def test_english_rule_texts_unchanged() -> None:
    rules = get_variant("rank-and-file").describe()
    assert rules[0] == (
        "Played with two decks (104 cards); 10 tableau piles of 4 cards, 3 face down under "
        "1 face up."
    )
    assert [i18n.translate(t, p, "en") for t, p in get_variant("canfield").rule_texts()] == (
        get_variant("canfield").describe()
    )


@pytest.mark.parametrize(
    ("header", "language"),
    [
        (None, "en"),
        ("", "en"),
        ("fr", "fr"),
        ("FR-be", "fr"),
        ("de;q=0.4, ru;q=0.6", "ru"),
        ("ru;q=0.6, de;q=0.6", "ru"),  # equal q: the order given
        ("es, *;q=0.1", "en"),
        ("fr;q=0", "en"),
        ("fr;q=abc, de", "de"),
        ("ru;q=2", "en"),
        (",,;q=1,", "en"),
        ("x" * 5000 + ", fr", "en"),  # read to 1,024 characters only
    ],
)
def test_negotiate(header: str | None, language: str) -> None:
    assert i18n.negotiate(header) == language


def test_translate_words_ranks_and_quoted_errors() -> None:
    refusal = IllegalMove(
        "not_one_rank_lower",
        "a card goes only on a card one rank higher ({moving} is not one below {target})",
        moving=RankName(12),
        target=RankName(1),
    )
    assert refusal.message.endswith("(Queen is not one below Ace)")
    assert i18n.translate(refusal.template, refusal.params, "fr").endswith(
        "(la valeur dame n'est pas juste en dessous de la valeur as)"
    )
    record = InvalidRecord(
        refusal.code,
        "line {line}, move {move_number} ({move}): {cause}",
        line=3,
        move_number=7,
        move="t1>t0",
        cause=refusal,
    )
    assert record.message == f"line 3, move 7 (t1>t0): {refusal.message}"
    assert i18n.translate(record.template, record.params, "de") == (
        "Zeile 3, Zug 7 (t1>t0): eine Karte kommt nur auf eine Karte, die einen Rang höher "
        "ist (Dame liegt nicht einen Rang unter Ass)"
    )


def test_missing_message_is_english() -> None:
    assert i18n.translate("no such text {x}", {"x": 1}, "ru") == "no such text 1"
    assert i18n.gettext("Ace", "ru") == "туз" and i18n.gettext("Ace", "en") == "Ace"
