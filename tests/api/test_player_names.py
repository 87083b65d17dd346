"""Player names are shown in public results: control and format characters (Unicode
categories Cc and Cf: the right-to-left override, zero-width characters, C1 controls)
are refused, and a name is stored in NFC, so one name has one spelling."""

from __future__ import annotations

import re
import unicodedata

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.models import Player
from app.schemas import HIDDEN_CHARACTERS, NAME_PATTERN
from tests.api.conftest import API, assert_error


async def player_count(app: FastAPI) -> int:
    async with app.state.services.database.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(Player)) or 0)


@pytest.mark.parametrize(
    "name",
    [
        "ada\u202egnp.exe",  # RIGHT-TO-LEFT OVERRIDE (Cf)
        "a\u200bda",  # ZERO WIDTH SPACE (Cf)
        "a\u200dda",  # ZERO WIDTH JOINER (Cf)
        "\ufeffada",  # ZERO WIDTH NO-BREAK SPACE, the BOM (Cf)
        "ada\u2066",  # LEFT-TO-RIGHT ISOLATE (Cf)
        "ad\u00ada",  # SOFT HYPHEN (Cf)
        "ada\u0085",  # NEXT LINE, a C1 control (Cc)
        "ada\u009b",  # CONTROL SEQUENCE INTRODUCER (Cc)
    ],
)
async def test_control_and_format_characters_are_refused(
    client: httpx.AsyncClient, app: FastAPI, name: str
) -> None:
    before = await player_count(app)
    error = assert_error(
        await client.post(f"{API}/players", json={"name": name}), 422, "validation_error"
    )
    assert "name" in error["message"]
    assert await player_count(app) == before  # nothing was stored


@pytest.mark.parametrize(
    "name",
    [
        " ",  # spaces only
        "\u00a0\u00a0",  # NO-BREAK SPACE (Zs)
        "\u3164",  # HANGUL FILLER, a letter (Lo) that draws nothing
        "\u2800\u2800",  # BRAILLE PATTERN BLANK (So)
        "\ufe0f",  # a lone VARIATION SELECTOR-16 (Mn)
        "\u0301\u0301",  # combining marks on nothing
        "ada\u2028bob",  # LINE SEPARATOR (Zl)
        "ada\u2029",  # PARAGRAPH SEPARATOR (Zp)
        "a" + "\u0301" * 63,  # 63 combining marks stacked on one letter
        "a" + "\u0300\u0301" * 4,  # 8 marks in a row
    ],
)
async def test_blank_multi_line_and_piled_up_names_are_refused(
    client: httpx.AsyncClient, app: FastAPI, name: str
) -> None:
    before = await player_count(app)
    error = assert_error(
        await client.post(f"{API}/players", json={"name": name}), 422, "validation_error"
    )
    assert "name" in error["message"]
    assert await player_count(app) == before


async def test_names_with_spaces_marks_and_emoji_in_their_place_are_taken(
    client: httpx.AsyncClient,
) -> None:
    for name in (
        " ada ",  # spaces around a visible name
        "Nguy\u1ec5n",  # Vietnamese: a letter with two marks (one precomposed in NFC)
        "a\u0323\u0302\u0301",  # three marks on one letter
        "\u0f56\u0f66\u0f92\u0fb2\u0f74\u0f56\u0f66",  # Tibetan: stacked marks
        "\u2764\ufe0f",  # an emoji with its variation selector
    ):
        created = await client.post(f"{API}/players", json={"name": name})
        assert created.status_code == 201, (name, created.text)


async def test_a_name_is_stored_in_nfc(client: httpx.AsyncClient) -> None:
    decomposed = "Zoe\u0301 Bjo\u0308rk"  # é and ö as letter + combining mark (NFD)
    created = await client.post(f"{API}/players", json={"name": decomposed})
    assert created.status_code == 201
    nfc = unicodedata.normalize("NFC", decomposed)
    assert nfc == "Zo\u00e9 Bj\u00f6rk" and created.json()["name"] == nfc
    token = created.json()["token"]
    me = await client.get(f"{API}/players/me", headers={"Authorization": f"Bearer {token}"})
    assert me.json()["name"] == nfc


async def test_other_scripts_and_marks_are_taken(client: httpx.AsyncClient) -> None:
    for name in ("Ада", "李小龍", "ناديا", "🂡 ace"):
        created = await client.post(f"{API}/players", json={"name": name})
        assert created.status_code == 201 and created.json()["name"] == name


def test_the_documented_pattern_is_the_refused_characters() -> None:
    """The document's pattern (Unicode 14.0's Cc, Cf, Zl and Zp) refuses what the validator
    refuses; a newer Python's Unicode may add characters, never take them away."""
    pattern = re.compile(NAME_PATTERN)
    hidden = {code for low, high in HIDDEN_CHARACTERS for code in range(low, high + 1)}
    refused = ("Cc", "Cf", "Zl", "Zp")
    categories = {c for c in range(0x110000) if unicodedata.category(chr(c)) in refused}
    assert hidden <= categories
    if unicodedata.unidata_version == "14.0.0":
        assert hidden == categories
    for code in hidden:
        assert not pattern.match(f"a{chr(code)}b")
    assert all(pattern.match(name) for name in ("ada", "Zo\u00e9", "李小龍", "🂡 ace", "a b"))
