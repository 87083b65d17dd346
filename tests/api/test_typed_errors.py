"""Errors as the API document types them: each operation's error answers list exactly
the codes they can carry (with that status), `Retry-After` is declared wherever a code
sends it, `code` and `reason` are enums of the catalogue and of the engine's reasons,
and `validation_error` lists each fault as `{field, code, message}`."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from app.engine import REASONS
from app.errors import ANSWERED_CODES, CATALOGUE
from tests.api.conftest import API, NewGame, assert_error


def _error_answers(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", status, response)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        for status, response in operation["responses"].items()
        if status[0] in "45" and _is_error(response)
    ]


def _is_error(response: dict[str, Any]) -> bool:
    """An answer in the error envelope (not, say, /health's 503, which is its state)."""
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    return "allOf" in schema or schema == {"$ref": "#/components/schemas/ErrorResponse"}


def _codes(response: dict[str, Any]) -> list[str]:
    schema = response["content"]["application/json"]["schema"]
    envelope, narrowed = schema["allOf"]
    assert envelope == {"$ref": "#/components/schemas/ErrorResponse"}
    codes: list[str] = narrowed["properties"]["error"]["properties"]["code"]["enum"]
    return codes


def test_each_error_answer_lists_its_codes_with_their_status(app: FastAPI) -> None:
    answers = _error_answers(app.openapi())
    assert len(answers) > 50
    for operation, status, response in answers:
        codes = _codes(response)
        assert codes and len(codes) == len(set(codes)), (operation, status)
        for code in codes:
            kind = CATALOGUE[code]
            if status == "4XX":
                assert 400 <= kind.status < 500, (operation, code)
            else:
                assert kind.status == int(status), (operation, status, code)
        retry = any(CATALOGUE[code].sends_retry_after for code in codes)
        assert ("Retry-After" in response.get("headers", {})) == retry, (operation, status)


def test_code_and_reason_are_enums_of_the_catalogue_and_the_engines_reasons(
    app: FastAPI,
) -> None:
    detail = app.openapi()["components"]["schemas"]["ErrorDetail"]["properties"]
    assert detail["code"]["enum"] == list(ANSWERED_CODES)
    assert set(CATALOGUE) <= set(ANSWERED_CODES)
    reason = next(choice for choice in detail["reason"]["anyOf"] if "enum" in choice)
    assert reason["enum"] == sorted(REASONS)
    for code, meaning in REASONS.items():  # each explained in the document itself
        assert f"| `{code}` | {meaning} |" in reason["description"]


async def test_validation_error_lists_each_fault(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    body = {"variant": "rank-and-file", "solvable": "yes", "settings": {"auto_play": 1}}
    answer = await client.post(f"{API}/games", json=body, headers=auth)
    error = assert_error(answer, 422, "validation_error")
    faults = {(fault["field"], fault["code"]) for fault in error["errors"]}
    assert faults == {("solvable", "bool_type"), ("settings.auto_play", "bool_type")}
    assert all(fault["message"] for fault in error["errors"])
    assert "solvable" in error["message"] and "settings.auto_play" in error["message"]


async def test_the_services_own_refusals_name_their_field(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    both = {"variant": "rank-and-file", "deal": 5, "solvable": True}
    answer = await client.post(f"{API}/games", json=both, headers=auth)
    error = assert_error(answer, 422, "validation_error")
    assert [(f["field"], f["code"]) for f in error["errors"]] == [("solvable", "deal_and_solvable")]
    answer = await client.get(f"{API}/daily/rank-and-file/2026-02-30")
    error = assert_error(answer, 422, "validation_error")
    assert [(f["field"], f["code"]) for f in error["errors"]] == [("date", "date_format")]
    game = await new_game()
    answer = await client.post(
        f"{API}/games/{game['id']}/moves",
        content=b"{not json",
        headers={**auth, "Content-Type": "application/json"},
    )
    error = assert_error(answer, 422, "validation_error")
    assert [(f["field"], f["code"]) for f in error["errors"]] == [("body", "json_invalid")]


async def test_a_body_of_many_faults_lists_twenty(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    body = {f"field_{i}": i for i in range(50)}  # each one forbidden
    answer = await client.post(f"{API}/games", json=body, headers=auth)
    error = assert_error(answer, 422, "validation_error")
    assert len(error["errors"]) == 20
