"""`POST /games` takes four shapes of body (a deal by number, a solvable deal, a game
record, a random deal), and the document says so: its `GameCreate` is their union, so
that a body the document takes is one the server takes, and one the server refuses
(each with its own fault) is not in the document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from tests.api.conftest import API, assert_error

ROOT = Path(__file__).resolve().parents[2]
RECORD = '[Variant "rank-and-file"]\n[Deal "1"]\n\n*\n'

# Bodies the server takes: dealt (201), or a solvable one with no proven deal ready yet
# (503 no_solvable_deals, which is not a refusal of the body).
ACCEPTED: list[dict[str, Any]] = [
    {"variant": "rank-and-file", "deal": 12345},
    {"variant": "rank-and-file", "deal": "99999999999999999999", "solvable": False},
    {"variant": "rank-and-file", "deal": 7, "rules": {"foundation_return": True}},
    {"variant": "rank-and-file", "deal": 7, "difficulty": None, "record": None},
    {"variant": "rank-and-file", "solvable": True},
    {"variant": "rank-and-file", "solvable": True, "difficulty": "easy", "deal": None},
    {"record": RECORD},
    {"record": RECORD, "settings": {"auto_play": False}},
    {"record": RECORD, "variant": None, "deal": None, "solvable": False, "rules": None},
    {"variant": "rank-and-file"},
    {"variant": "rank-and-file", "deal": None, "solvable": False, "settings": None},
]

# Bodies the server refuses, with the field and code of their fault.
REFUSED: list[tuple[dict[str, Any], str, str]] = [
    ({}, "variant", "missing"),
    ({"deal": 5, "solvable": True}, "variant", "missing"),
    ({"difficulty": "hard"}, "variant", "missing"),
    ({"record": RECORD, "variant": "rank-and-file"}, "record", "record_not_alone"),
    ({"record": RECORD, "deal": 1}, "record", "record_not_alone"),
    ({"record": RECORD, "solvable": True}, "record", "record_not_alone"),
    ({"record": RECORD, "rules": {"foundation_return": True}}, "record", "record_not_alone"),
    ({"record": RECORD, "difficulty": "hard"}, "record", "record_not_alone"),
    ({"variant": "rank-and-file", "deal": 5, "solvable": True}, "solvable", "deal_and_solvable"),
    (
        {"variant": "rank-and-file", "difficulty": "hard"},
        "difficulty",
        "difficulty_without_solvable",
    ),
    (
        {"variant": "rank-and-file", "deal": 5, "difficulty": "hard"},
        "difficulty",
        "difficulty_without_solvable",
    ),
]


def _documented() -> Draft202012Validator:
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    body = document["paths"]["/api/v1/games"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    return Draft202012Validator({**schema, "components": document["components"]})


def test_the_body_is_the_union_of_four_shapes() -> None:
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    schemas = document["components"]["schemas"]
    shapes = [choice["$ref"].rsplit("/", 1)[1] for choice in schemas["GameCreate"]["anyOf"]]
    assert shapes == [
        "GameCreateByDeal",
        "GameCreateSolvable",
        "GameCreateRecord",
        "GameCreateRandom",
    ]
    for name in shapes:
        assert schemas[name]["additionalProperties"] is False, name


@pytest.mark.parametrize("body", ACCEPTED)
async def test_each_body_the_server_takes_is_one_shape_of_the_document(
    client: httpx.AsyncClient, auth: dict[str, str], body: dict[str, Any]
) -> None:
    answer = await client.post(f"{API}/games", json=body, headers=auth)
    if answer.status_code == 503:
        assert_error(answer, 503, "no_solvable_deals")
    else:
        assert answer.status_code == 201, answer.text
    assert list(_documented().iter_errors(body)) == []
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    components = document["components"]
    matching = [
        shape["$ref"]
        for shape in components["schemas"]["GameCreate"]["anyOf"]
        if Draft202012Validator({**shape, "components": components}).is_valid(body)
    ]
    assert len(matching) == 1, (body, matching)  # the shapes exclude each other


@pytest.mark.parametrize(("body", "field", "code"), REFUSED)
async def test_each_body_the_server_refuses_is_none_of_them(
    client: httpx.AsyncClient, auth: dict[str, str], body: dict[str, Any], field: str, code: str
) -> None:
    answer = await client.post(f"{API}/games", json=body, headers=auth)
    error = assert_error(answer, 422, "validation_error")
    assert [(fault["field"], fault["code"]) for fault in error["errors"]] == [(field, code)]
    assert not _documented().is_valid(body)
