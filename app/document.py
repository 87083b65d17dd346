"""The API document as front-ends' generators read it: FastAPI's, shaped once when first
asked for. Who may call each operation, the error envelope with the codes each answer
can carry, `Retry-After` where it is sent, and request bodies whose defaults are in
words (a generator reads a `default` as "always present": openapi-typescript then makes
the field required in the request type too)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI

from app import i18n
from app.errors import (
    BadRequest,
    CorsRefused,
    DatabaseBusy,
    InternalError,
    MethodNotAllowed,
    PayloadTooLarge,
    RequestTimeout,
    TooManyAuthFailures,
    Unauthorized,
    ValidationFailed,
)
from app.logs import MAX_REQUEST_ID, REQUEST_ID_HEADER
from app.routers.common import ERROR_CODES, RETRY_AFTER
from app.routers.streams import stream_components
from app.schemas.requests import GAME_CREATE_SHAPES

# The bearer scheme as FastAPI names it in components.securitySchemes.
BEARER = "HTTPBearer"


def _optional_body_as_model(operation: dict[str, Any]) -> None:
    """An optional body (`Model | None = None`) is documented as FastAPI writes it, "the
    model or null"; say "the model, or no body", which is what it means (a generated
    client then leaves it out when not given, instead of sending its placeholder)."""
    body = operation.get("requestBody")
    if not body or body.get("required"):
        return
    for media in body.get("content", {}).values():
        choices = media.get("schema", {}).get("anyOf", [])
        models = [choice for choice in choices if choice != {"type": "null"}]
        if len(choices) == 2 and len(models) == 1:
            media["schema"] = models[0]


ERROR_REF = {"$ref": "#/components/schemas/ErrorResponse"}
# Answered before any operation runs, whichever it is (docs/api.md).
BEFORE_OPERATION = (
    BadRequest,
    RequestTimeout,
    PayloadTooLarge,
    MethodNotAllowed,
    CorsRefused,
)


def _error_content(codes: list[str]) -> dict[str, Any]:
    """The envelope, its `code` narrowed to `codes`: a generated client's type of the
    answer is then the union of exactly those codes."""
    narrowed = {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code"],
                "properties": {"code": {"type": "string", "enum": codes}},
            }
        },
    }
    return {"application/json": {"schema": {"allOf": [ERROR_REF, narrowed]}}}


# Operations under these paths read or write the database: any of them may find it busy.
USES_DATABASE = ("/api/",)


def _database_busy(responses: dict[str, Any]) -> None:
    """503 `database_busy` beside the operation's own 503 codes, if any."""
    response = responses.setdefault(
        "503", {"description": "Unavailable (`Retry-After`):", ERROR_CODES: []}
    )
    codes = response.setdefault(ERROR_CODES, [])
    codes.append(DatabaseBusy.code)
    listed = ", ".join(f"`{code}`" for code in codes)
    response["description"] = f"Unavailable (`Retry-After`): {listed}."
    response["headers"] = {**response.get("headers", {}), **RETRY_AFTER}


def _document_errors(responses: dict[str, Any], *, uses_database: bool) -> None:
    """Each error answer with the codes it can carry (`x-error-codes` from
    app.routers.common.errors), the 422 with `validation_error` first (FastAPI's own
    validation or ours), what any operation can answer before it runs (4XX), and 500;
    503 `database_busy` where the operation uses the database."""
    if uses_database:
        _database_busy(responses)
    for status, response in responses.items():
        codes = response.pop(ERROR_CODES, None)
        if status == "422":
            others = [code for code in codes or [] if code != ValidationFailed.code]
            codes = [ValidationFailed.code, *others]
            listed = ", ".join(f"`{code}`" for code in codes)
            response["description"] = f"Refused: {listed}."
        if codes is not None:
            response["content"] = _error_content(codes)
    before = [kind.code for kind in BEFORE_OPERATION]
    listed = ", ".join(f"`{code}`" for code in before)
    responses.setdefault(
        "4XX",
        {
            "description": f"Refused before the operation ran: {listed} (docs/api.md).",
            "content": _error_content(before),
        },
    )
    responses["500"] = {
        "description": "`internal_error` (no details are shown).",
        "content": _error_content([InternalError.code]),
    }


def _refs(node: Any) -> Iterator[str]:
    """The component schemas `node` names, directly."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            yield ref.rsplit("/", 1)[1]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _reachable(schemas: dict[str, Any], roots: set[str]) -> set[str]:
    seen: set[str] = set()
    waiting = list(roots)
    while waiting:
        name = waiting.pop()
        if name not in seen and name in schemas:
            seen.add(name)
            waiting.extend(_refs(schemas[name]))
    return seen


def _request_defaults_in_words(document: dict[str, Any]) -> None:
    """A request body's field with a default is optional: say its default in its
    description instead of `default`, which generators read as "always present"
    (openapi-typescript's default settings make such a field required). Only schemas
    that no answer uses: in answers a default is what it says."""
    schemas = document.get("components", {}).get("schemas", {})
    operations = [
        operation
        for path in document.get("paths", {}).values()
        for operation in path.values()
        if isinstance(operation, dict)
    ]
    sent = {name for op in operations for name in _refs(op.get("requestBody", {}))}
    answered = {name for op in operations for name in _refs(op.get("responses", {}))}
    for name in _reachable(schemas, sent) - _reachable(schemas, answered):
        for field in schemas[name].get("properties", {}).values():
            if "default" not in field:
                continue
            default = json.dumps(field.pop("default"))
            text = field.get("description", "").rstrip()
            field["description"] = f"{text} Default: `{default}`.".strip()


def _content_language(document: dict[str, Any]) -> None:
    """Every answer says the language of its texts (app.i18n): `Content-Language`, one
    header defined once and named by every response."""
    components = document.setdefault("components", {})
    components.setdefault("headers", {})["Content-Language"] = {
        "description": "The language of the answer's texts (variant names, the rules in "
        "words, an error's message), negotiated from `Accept-Language`: `en` by default. "
        "Answers also carry `Vary: Accept-Language`.",
        "schema": {"type": "string", "enum": list(i18n.LANGUAGES)},
    }
    reference = {"$ref": "#/components/headers/Content-Language"}
    for path in document.get("paths", {}).values():
        for operation in path.values():
            for answer in operation.get("responses", {}).values():
                answer.setdefault("headers", {})["Content-Language"] = reference


# --- POST /games: its body as the union of the shapes the server takes ----------------


def _given(field: dict[str, Any]) -> dict[str, Any]:
    """A nullable field of the model as a required one: its choice other than null."""
    choices = [choice for choice in field.get("anyOf", []) if choice != {"type": "null"}]
    rest = {key: value for key, value in field.items() if key not in ("anyOf", "title")}
    if len(choices) != 1:
        return rest
    return {**rest, **choices[0]}


def _absent(name: str) -> dict[str, Any]:
    """A field a shape does not take, but accepts as the value that means "not given"."""
    if name == "solvable":
        return {"type": "boolean", "const": False, "description": "Only `false` here."}
    return {"type": "null", "description": "Not with this shape (null: not given)."}


def _game_create_union(document: dict[str, Any]) -> None:
    """`GameCreate` as the union (`anyOf`) of its shapes
    (app.schemas.requests.GAME_CREATE_SHAPES), which exclude each other: each a schema
    of its own with no other field, so a generated client compiles exactly the bodies
    the server takes (not `{}`, `{record, variant}` or `{variant, difficulty}`). `anyOf`:
    Redocly's `no-illogical-composition-keywords` cannot see that required fields and
    `null` keep the shapes apart, and warns of a `oneOf`."""
    schemas = document.get("components", {}).get("schemas", {})
    model = schemas.get("GameCreate")
    if model is None:
        return
    fields: dict[str, Any] = model["properties"]
    for shape in GAME_CREATE_SHAPES:
        properties = {}
        for name, field in fields.items():
            if name == "solvable" and name in shape.given:
                given = _given(field)
                text = given["description"].split(" Default:")[0]
                properties[name] = {**given, "const": True, "description": text}
            elif name in shape.given:
                properties[name] = _given(field)
            elif name in shape.optional:
                properties[name] = {k: v for k, v in field.items() if k != "title"}
            elif name in shape.absent:
                properties[name] = _absent(name)
        schemas[shape.name] = {
            "type": "object",
            "title": shape.name,
            "description": shape.description,
            "properties": properties,
            "required": list(shape.given),
            "additionalProperties": False,
        }
    schemas["GameCreate"] = {
        "title": "GameCreate",
        "description": "One of the bodies `POST /games` takes. Other combinations are "
        "refused with 422 validation_error: a field beside `record` (`record_not_alone`), "
        "`deal` with `solvable` (`deal_and_solvable`), `difficulty` without `solvable` "
        "(`difficulty_without_solvable`), no `variant` (`missing`).",
        "anyOf": [{"$ref": f"#/components/schemas/{shape.name}"} for shape in GAME_CREATE_SHAPES],
        "examples": model.get("examples", []),
    }


def _stream_payloads(document: dict[str, Any]) -> None:
    """The live stream's payloads as component schemas (`app.routers.streams`): its
    `text/event-stream` answer names them. Those the document has already (GameState,
    the events) are FastAPI's own."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in stream_components().items():
        schemas.setdefault(name, schema)


# --- what a token, a request id and an Idempotency-Key add to every answer ------------


def _takes_token(operation: dict[str, Any]) -> bool:
    """Does the operation read a bearer token (required or optional)? As FastAPI wrote
    its security, before `install_openapi` shapes it."""
    return any(BEARER in scheme for scheme in operation.get("security", []))


def _token_answers(operation: dict[str, Any]) -> None:
    """What any operation that reads a token can answer for a wrong one: 401
    `unauthorized`, and 429 `too_many_auth_failures` (with `Retry-After`) past the
    address's limit (app.deps, app.services.kit.auth_failures), beside its own 401 and 429
    codes. Before its security is shaped (`_takes_token`)."""
    if not _takes_token(operation):
        return
    responses = operation.setdefault("responses", {})
    for kind, title in ((Unauthorized, "Unauthorized"), (TooManyAuthFailures, None)):
        response = responses.setdefault(str(kind.status), {"description": ""})
        codes = response.setdefault(ERROR_CODES, [])
        if kind.code not in codes:
            codes.append(kind.code)
        if title is None:
            title = "Too many requests (`Retry-After`)"
            response["headers"] = {**response.get("headers", {}), **RETRY_AFTER}
        listed = ", ".join(f"`{code}`" for code in codes)
        response["description"] = f"{title}: {listed}."


# The headers below, defined once in components.headers and named by the answers that
# carry them.
_HEADERS: dict[str, dict[str, Any]] = {
    REQUEST_ID_HEADER: {
        "description": "The request's id, on every answer: the `X-Request-ID` sent when "
        f"it is 1 to {MAX_REQUEST_ID} characters of `A-Z a-z 0-9 - _ . :`, else one made up (32 hex "
        "digits). The server's log lines of the request carry it.",
        "schema": {"type": "string"},
    },
    "WWW-Authenticate": {
        "description": "`Bearer`: the operation wants a valid bearer token.",
        "schema": {"type": "string"},
    },
    "Idempotent-Replayed": {
        "description": "`true` when the answer is the stored answer of an earlier "
        "request with the same `Idempotency-Key` (nothing was done again); absent "
        "otherwise.",
        "schema": {"type": "string", "enum": ["true"]},
    },
}


def _takes_idempotency_key(operation: dict[str, Any]) -> bool:
    return any(
        parameter.get("in") == "header" and parameter.get("name", "").lower() == "idempotency-key"
        for parameter in operation.get("parameters", [])
    )


def _answer_headers(document: dict[str, Any]) -> None:
    """`X-Request-ID` on every answer (app.logs), `WWW-Authenticate` on every 401
    (app.errors.Unauthorized), `Idempotent-Replayed` on the successful answers of
    operations that take an `Idempotency-Key` (a replay repeats a stored success)."""
    components = document.setdefault("components", {}).setdefault("headers", {})
    components.update(_HEADERS)

    def ref(name: str) -> dict[str, str]:
        return {"$ref": f"#/components/headers/{name}"}

    for path in document.get("paths", {}).values():
        for operation in path.values():
            replays = _takes_idempotency_key(operation)
            for status, answer in operation.get("responses", {}).items():
                headers = answer.setdefault("headers", {})
                headers[REQUEST_ID_HEADER] = ref(REQUEST_ID_HEADER)
                if status == "401":
                    headers["WWW-Authenticate"] = ref("WWW-Authenticate")
                if replays and status.startswith("2"):
                    headers["Idempotent-Replayed"] = ref("Idempotent-Replayed")


def install_openapi(app: FastAPI) -> None:
    """Document the error envelope where FastAPI would show its own validation shape,
    the answers any operation can get (4XX before it runs, 500), and who may call it:
    `security: []` on public operations, the bearer token where one is required, and the
    document's default, "a token or none", where it is optional (generated clients then
    take a plain client there). An operation says its token is
    optional with `openapi_extra={"security": [{"HTTPBearer": []}, {}]}` (as
    `get_daily_results` does)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        document = build()
        for route, path in document.get("paths", {}).items():
            # /health answers a busy database with its own 503 body.
            uses_database = route.startswith(USES_DATABASE) and not route.endswith("/health")
            for operation in path.values():
                # FastAPI adds the scheme of every security dependency to what the
                # route declared: an optional token shows as {} among them. Those take
                # the document's default (a token or none) rather than saying it again,
                # since client generators read any operation-level list as "required".
                security = operation.get("security", [])
                _token_answers(operation)
                if {} in security:
                    del operation["security"]
                else:
                    operation["security"] = security
                _optional_body_as_model(operation)
                responses = operation.setdefault("responses", {})
                _document_errors(responses, uses_database=uses_database)
        _request_defaults_in_words(document)
        _game_create_union(document)
        _content_language(document)
        _stream_payloads(document)

        _answer_headers(document)
        document["security"] = [{}, {BEARER: []}]
        schemas = document.get("components", {}).get("schemas", {})
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]
