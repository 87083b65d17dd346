"""Accept-Language: the texts of the answers (variant names, the rules in words, error
messages) in English, German, Russian or French; codes and ids the same in all four;
Content-Language and Vary on every answer; ETags of the variants per language."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.engine import VARIANTS
from app.i18n import LANGUAGES
from tests.api.conftest import API, NewGame, assert_error

FR = {"Accept-Language": "fr"}


def _language_headers(response: httpx.Response, language: str) -> None:
    assert response.headers["content-language"] == language
    vary = [v.strip().lower() for v in response.headers.get("vary", "").split(",")]
    assert vary.count("accept-language") == 1


async def test_variants_in_french(client: httpx.AsyncClient) -> None:
    english = (await client.get(f"{API}/variants/rainbow")).json()
    response = await client.get(f"{API}/variants/rainbow", headers=FR)
    assert response.status_code == 200
    _language_headers(response, "fr")
    french = response.json()
    # Words change; ids, aliases and the rules as data do not.
    assert french["rules"] != english["rules"] and len(french["rules"]) == len(english["rules"])
    assert "fondations" in french["rules"][2] and "défausse" in french["rules"][6]
    assert french["house_rules"][0]["name"] == "foundation_return"
    assert french["house_rules"][0]["description"].startswith("La carte du dessus")
    for key in ("id", "aliases", "tableau", "foundation", "stock", "reserve", "decks"):
        assert french[key] == english[key]


@pytest.mark.parametrize(
    ("language", "word"), [("de", "Zielstapel"), ("ru", "баз"), ("fr", "fondations")]
)
async def test_every_variant_in_each_language(
    client: httpx.AsyncClient, language: str, word: str
) -> None:
    english = (await client.get(f"{API}/variants")).json()
    response = await client.get(f"{API}/variants", headers={"Accept-Language": language})
    _language_headers(response, language)
    listed = response.json()
    assert [v["id"] for v in listed] == [v["id"] for v in english] == list(VARIANTS)
    for theirs, ours in zip(listed, english, strict=True):
        assert theirs["name"]  # the games' own names, as the source sites keep them
        assert all(line not in ours["rules"] for line in theirs["rules"])
        assert any(word in line for line in theirs["rules"])


async def test_english_by_default_and_for_other_languages(client: httpx.AsyncClient) -> None:
    plain = await client.get(f"{API}/variants/rank-and-file")
    _language_headers(plain, "en")
    assert plain.json()["name"] == "Rank and File"
    assert plain.json()["rules"][0].startswith("Played with two decks")
    for header in ("es", "*", "zz-ZZ, xx;q=0.5", "fr;q=0", "garbage;;q=x", ""):
        response = await client.get(
            f"{API}/variants/rank-and-file", headers={"Accept-Language": header}
        )
        assert response.status_code == 200, header
        _language_headers(response, "en")
        assert response.json()["rules"] == plain.json()["rules"]


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("de;q=0.5, fr;q=0.9", "fr"),
        ("fr;q=0.5, de;q=0.9", "de"),
        ("es, ru;q=0.2, en;q=0.1", "ru"),
        ("fr-CA", "fr"),
        ("DE-at, en;q=0.8", "de"),
        ("en-GB, fr", "en"),
        ("fr;q=0, ru;q=0.001", "ru"),
        ("ru;q=1.5, de", "de"),  # a q above 1 is not one: left out
    ],
)
async def test_quality_values(client: httpx.AsyncClient, header: str, language: str) -> None:
    response = await client.get(f"{API}/variants/emperor", headers={"Accept-Language": header})
    _language_headers(response, language)


async def test_error_messages_translated_codes_kept(
    client: httpx.AsyncClient, new_game: NewGame, auth: dict[str, str]
) -> None:
    game = await new_game(variant="rank-and-file", deal=1)
    url = f"{API}/games/{game['id']}/moves"
    # After a draw, the waste card onto an empty foundation: refused unless an Ace.
    move = {"action": "move", "from": "waste", "to": "foundation-0", "count": 1}
    await client.post(url, json={"action": "draw"}, headers=auth)
    english = assert_error(await client.post(url, json=move, headers=auth), 422, "illegal_move")
    response = await client.post(url, json=move, headers={**auth, **FR})
    _language_headers(response, "fr")
    french = assert_error(response, 422, "illegal_move")
    assert french["reason"] == english["reason"]
    assert french["message"] != english["message"]
    assert "fondation" in french["message"]


_NAMES = {
    "en": {1: "Ace", 11: "Jack", 12: "Queen", 13: "King"},
    "de": {1: "Ass", 11: "Bube", 12: "Dame", 13: "König"},
    "ru": {1: "туз", 11: "валет", 12: "дама", 13: "король"},
}


async def test_message_with_ranks_translated(
    client: httpx.AsyncClient, new_game: NewGame, auth: dict[str, str]
) -> None:
    """A refusal that names ranks names them in the language (`not_one_rank_lower`)."""
    game = await new_game(variant="rows-of-four", deal=1)
    state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    tops = {p["id"]: p["cards"][-1]["rank"] for p in state["piles"] if p["kind"] == "tableau"}
    src, dst = next(
        (a, b) for a in tops for b in tops if a != b and tops[b] != 1 and tops[a] != tops[b] - 1
    )
    move = {"action": "move", "from": src, "to": dst, "count": 1}
    url = f"{API}/games/{game['id']}/moves"
    for language, expected in (
        ("en", "({moving} is not one below {target})"),
        ("de", "({moving} liegt nicht einen Rang unter {target})"),
        ("ru", "({moving} не на одно достоинство младше, чем {target})"),
    ):
        names = _NAMES[language]
        response = await client.post(url, json=move, headers={**auth, "Accept-Language": language})
        error = assert_error(response, 422, "illegal_move")
        assert error["reason"] == "not_one_rank_lower"
        moving, target = (names.get(tops[pile], str(tops[pile])) for pile in (src, dst))
        assert error["message"].endswith(expected.format(moving=moving, target=target))


async def test_named_errors_and_unknown_routes_translated(client: httpx.AsyncClient) -> None:
    missing = await client.get(f"{API}/variants/nope", headers={"Accept-Language": "de"})
    error = assert_error(missing, 404, "variant_not_found")
    assert error["message"].startswith("kein Spiel heißt 'nope'")
    _language_headers(missing, "de")
    route = await client.get("/no/such/route", headers={"Accept-Language": "ru"})
    assert assert_error(route, 404, "not_found")["message"] == "не найдено"
    _language_headers(route, "ru")
    english = await client.get("/no/such/route")
    assert assert_error(english, 404, "not_found")["message"] == "not found"
    unauthorized = await client.get(f"{API}/games", headers=FR)
    assert assert_error(unauthorized, 401, "unauthorized")["message"] == (
        "un jeton Bearer valide est requis"
    )
    bad_deal = await client.post(
        f"{API}/games",
        json={"variant": "emperor", "deal": 0},
        headers={**FR, "Authorization": "Bearer x"},
    )
    assert bad_deal.status_code in (401, 422)


async def test_invalid_record_quotes_the_engine_in_the_language(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    record = '[Variant "rank-and-file"]\n[Deal "1"]\n\nt1>t0 *\n'
    english = assert_error(
        await client.post(f"{API}/games", json={"record": record}, headers=auth),
        422,
        "invalid_record",
    )
    french = assert_error(
        await client.post(f"{API}/games", json={"record": record}, headers={**auth, **FR}),
        422,
        "invalid_record",
    )
    assert (french["reason"], french["line"], french["move_number"]) == (
        english["reason"],
        english["line"],
        english["move_number"],
    )
    assert english["message"] == (
        "line 4, move 1 (t1>t0): a card goes only on a card one rank higher (9 is not one below 7)"
    )
    assert french["message"] == (
        "ligne 4, coup 1 (t1>t0) : une carte ne se pose que sur une carte d'une valeur "
        "immédiatement supérieure (la valeur 9 n'est pas juste en dessous de la valeur 7)"
    )


async def test_validation_of_deal_numbers_in_the_language(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.post(
        f"{API}/games", json={"variant": "emperor", "deal": 0}, headers={**auth, **FR}
    )
    error = assert_error(response, 422, "invalid_deal")
    assert (
        "un numéro de donne est un nombre entier de 1 à 99999999999999999999" in (error["message"])
    )


async def test_every_api_answer_says_its_language(
    client: httpx.AsyncClient, new_game: NewGame, auth: dict[str, str]
) -> None:
    game = await new_game(variant="emperor", deal=3)
    for language in LANGUAGES:
        headers = {**auth, "Accept-Language": language}
        for response in (
            await client.get(f"{API}/games/{game['id']}", headers=headers),
            await client.get(f"{API}/games", headers=headers),
            await client.get(f"{API}/players/me", headers=headers),
            await client.get(f"{API}/health", headers=headers),
        ):
            assert response.status_code == 200
            _language_headers(response, language)


async def test_vary_merged_with_gzip(client: httpx.AsyncClient) -> None:
    response = await client.get(
        f"{API}/variants", headers={"Accept-Language": "ru", "Accept-Encoding": "gzip"}
    )
    assert response.headers["content-encoding"] == "gzip"
    vary = {v.strip().lower() for v in response.headers["vary"].split(",")}
    assert {"accept-encoding", "accept-language"} <= vary  # CORS adds Origin
    _language_headers(response, "ru")


async def test_variant_etags_per_language(client: httpx.AsyncClient) -> None:
    url = f"{API}/variants/canfield"
    english = await client.get(url)
    french = await client.get(url, headers=FR)
    tag_en, tag_fr = english.headers["etag"], french.headers["etag"]
    assert tag_en != tag_fr
    # Each language revalidates its own answer ...
    again = await client.get(url, headers={**FR, "If-None-Match": tag_fr})
    assert again.status_code == 304 and again.headers["etag"] == tag_fr
    _language_headers(again, "fr")
    # ... and never another language's: the English tag gets the French body.
    crossed = await client.get(url, headers={**FR, "If-None-Match": tag_en})
    assert crossed.status_code == 200 and crossed.json() == french.json()
    listed = await client.get(f"{API}/variants", headers={"Accept-Language": "de"})
    tag = listed.headers["etag"]
    cached = await client.get(
        f"{API}/variants", headers={"Accept-Language": "de", "If-None-Match": tag}
    )
    assert cached.status_code == 304
    other = await client.get(f"{API}/variants", headers={"If-None-Match": tag})
    assert other.status_code == 200


async def test_game_etag_language_neutral_body(
    client: httpx.AsyncClient, new_game: NewGame, auth: dict[str, str]
) -> None:
    """A game's state has no words: the same body in every language, so its ETag (the
    version) is the same, and Vary: Accept-Language keeps caches' copies apart anyway."""
    game = await new_game(variant="emperor", deal=5)
    url = f"{API}/games/{game['id']}"
    english = await client.get(url, headers=auth)
    french = await client.get(url, headers={**auth, **FR})
    assert english.json() == french.json() and english.headers["etag"] == french.headers["etag"]
    again = await client.get(url, headers={**auth, **FR, "If-None-Match": french.headers["etag"]})
    assert again.status_code == 304
    _language_headers(again, "fr")


async def test_openapi_declares_accept_language(client: httpx.AsyncClient) -> None:
    document: dict[str, Any] = (await client.get("/openapi.json")).json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            names = [p["name"] for p in operation.get("parameters", []) if p["in"] == "header"]
            assert names.count("Accept-Language") == 1, (method, path)
            for status, answer in operation["responses"].items():
                assert "Content-Language" in answer.get("headers", {}), (method, path, status)
