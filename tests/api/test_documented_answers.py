"""What the API document declares for every operation that reads a bearer token: a
wrong token is 401 `unauthorized` with `WWW-Authenticate`, and past the address's limit
429 `too_many_auth_failures` with `Retry-After`, on every one of them (the token
required or optional). Each answer is also compared with the document by the check of
tests/api/conftest.py."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from tests.api import conformance
from tests.api.conftest import assert_error, settings_for

WRONG = {"Authorization": "Bearer not-a-token"}
# A value for each path parameter of the document's operations.
PATH_VALUES = {"game_id": str(uuid.UUID(int=1)), "variant": "rank-and-file", "date": "today"}


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    # Room for one wrong token per operation before the limit: each gets its 401 first.
    return settings_for(database_url, tmp_path, auth_failures_per_minute=100)


def token_operations(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(method, URL) of every operation that reads a token: a bearer scheme among its
    security requirements, or none given (the document's default, "a token or none")."""
    found = []
    for template, operations in document["paths"].items():
        for method, operation in operations.items():
            security = operation.get("security", document["security"])
            if any("HTTPBearer" in scheme for scheme in security):
                found.append((method.upper(), template.format(**PATH_VALUES)))
    return found


async def test_every_operation_that_reads_a_token_answers_a_wrong_one_as_documented(
    client: httpx.AsyncClient, app: FastAPI, settings: Settings
) -> None:
    document = app.openapi()
    operations = token_operations(document)
    assert ("GET", "/api/v1/players/me") in operations
    assert ("GET", "/api/v1/daily/rank-and-file/today/results") in operations  # optional
    for method, url in operations:
        answer = await client.request(method, url, headers=WRONG)
        assert_error(answer, 401, "unauthorized")
        assert answer.headers["WWW-Authenticate"] == "Bearer"
        assert answer.headers["X-Request-ID"]
    for _ in range(settings.auth_failures_per_minute - len(operations)):
        await client.get("/api/v1/players/me", headers=WRONG)
    for method, url in operations:
        answer = await client.request(method, url, headers=WRONG)
        assert_error(answer, 429, "too_many_auth_failures")
        assert 1 <= int(answer.headers["Retry-After"]) <= 60
        assert answer.headers["X-Request-ID"]


def test_the_check_finds_an_undeclared_status_code_and_header(app: FastAPI) -> None:
    document = app.openapi()
    me = "/api/v1/players/me"

    def answer(status: int, code: str | None, *headers: str) -> conformance.Answer:
        return conformance.Answer("get", me, status, code, frozenset(headers))

    assert conformance.violations(document, answer(200, None, "x-request-id", "etag")) == [
        "header:etag"
    ]
    assert conformance.violations(document, answer(401, "game_not_found")) == [
        "code:game_not_found"
    ]
    assert conformance.violations(document, answer(302, None)) == ["status"]
    no_body = conformance.Answer("get", me, 304, None, frozenset(), body=True)
    assert conformance.violations(document, no_body) == ["status"]
    variants = conformance.Answer("get", "/api/v1/variants", 304, None, frozenset(), body=True)
    assert conformance.violations(document, variants) == ["body"]
    # 4XX covers what any operation answers before it runs.
    assert conformance.violations(document, answer(413, "payload_too_large")) == []
    assert conformance.template_of(document, "/api/v1/players/me", "get") == me
    assert conformance.template_of(document, "/api/v1/games/abc/moves", "post") == (
        "/api/v1/games/{game_id}/moves"
    )


def test_each_allowance_names_an_operation_of_the_document(app: FastAPI) -> None:
    paths = app.openapi()["paths"]
    for method, template, _status, _what in conformance.ALLOWED:
        assert method in paths.get(template, {}), (method, template)
