"""Every answer the API tests get, compared with the API document: its status, its
error code and its headers must be declared for the operation that sent it.

tests/api/conftest.py records each answer that goes through an `httpx.ASGITransport`
(the tests' clients) and checks, when the test ends, that the document
(`app.openapi()`) declares it for that operation:

- the status, or a range (`4XX`) or `default` that covers it, with a body (`content`)
  where the answer has one;
- the error envelope's `code`, in the answer's narrowed `enum`;
- each header the answer carries, beyond the ones HTTP itself defines (`IGNORED`), among
  the answer's declared `headers`.

Answers to paths the document does not list (the front-end, /metrics), and to routes a
test adds to its own app outside /api/, are not checked.
`ALLOWED` names the undeclared answers that are known and being fixed elsewhere, each
with its reason: the check passes over them and over nothing else.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import httpx

# Headers HTTP (or CORS, or the transport) defines for every answer: a document need not
# declare them. Lower case.
IGNORED = frozenset(
    {
        "content-type",
        "content-length",
        "content-encoding",
        "transfer-encoding",
        "connection",
        "date",
        "server",
        "vary",
        "access-control-allow-origin",
        "access-control-allow-credentials",
        "access-control-allow-methods",
        "access-control-allow-headers",
        "access-control-expose-headers",
        "access-control-max-age",
    }
)


# The API's operations; a route a test adds to its app for itself is not one of them.
API_PREFIX = "/api/"


@dataclass(frozen=True)
class Answer:
    """One answer as the document sees it."""

    method: str
    template: str
    status: int
    code: str | None
    headers: frozenset[str]
    body: bool = False  # the answer has a body (a stream's: it has a content type)


# (method, template, status, what) -> why it may stay undeclared for now. `what` is
# "status", "body", "code:<code>" or "header:<name>".
ALLOWED: dict[tuple[str, str, int, str], str] = {}


@cache
def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}/]+\})", template)
    regex = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts)
    return re.compile(f"{regex}$")


def template_of(document: dict[str, Any], path: str, method: str) -> str | None:
    """The document's path template of `path` with an operation for `method`, preferring
    the one with the fewest parameters (a literal segment beats a parameter)."""
    matches = [
        template
        for template, operations in document.get("paths", {}).items()
        if method in operations and _pattern(template).match(path)
    ]
    return min(matches, key=lambda t: t.count("{"), default=None)


def _error_code(response: httpx.Response) -> str | None:
    if response.status_code < 400 or "json" not in response.headers.get("content-type", ""):
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


def answer_of(document: dict[str, Any], response: httpx.Response) -> Answer | None:
    """The answer `response` as the document names it, or None where the document does
    not list its path and method."""
    method = response.request.method.lower()
    template = template_of(document, response.request.url.path, method)
    if template is None or not template.startswith(API_PREFIX):
        return None
    headers = frozenset(name.lower() for name in response.headers) - IGNORED
    body = bool(response.content) if hasattr(response, "_content") else False
    body = body or "text/event-stream" in response.headers.get("content-type", "")
    code = _error_code(response)
    return Answer(method, template, response.status_code, code, headers, body)


def _declared(responses: dict[str, Any], status: int) -> dict[str, Any] | None:
    for key in (str(status), f"{status // 100}XX", "default"):
        if key in responses:
            entry: dict[str, Any] = responses[key]
            return entry
    return None


def _codes(entry: dict[str, Any]) -> set[str]:
    """The error codes an answer's schema names (its narrowed `enum`s)."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            code = node.get("properties", {}).get("code") if "properties" in node else None
            if isinstance(code, dict) and "enum" in code:
                found.update(code["enum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(entry.get("content", {}))
    return found


def violations(document: dict[str, Any], answer: Answer) -> list[str]:
    """What of `answer` the document does not declare, as `what` keys of ALLOWED."""
    operation = document["paths"][answer.template][answer.method]
    entry = _declared(operation.get("responses", {}), answer.status)
    if entry is None:
        return ["status"]
    found = []
    if answer.body and not entry.get("content"):
        found.append("body")
    if answer.code is not None and answer.code not in _codes(entry):
        found.append(f"code:{answer.code}")
    declared = {name.lower() for name in entry.get("headers", {})}
    found.extend(f"header:{name}" for name in sorted(answer.headers - declared))
    return found


def unexplained(document: dict[str, Any], answer: Answer) -> list[str]:
    """The violations of `answer` that `ALLOWED` does not name, in words."""
    return [
        f"{answer.method.upper()} {answer.template} {answer.status}: {what} not declared"
        + (f" (error code {answer.code})" if answer.code and what != f"code:{answer.code}" else "")
        for what in violations(document, answer)
        if (answer.method, answer.template, answer.status, what) not in ALLOWED
    ]
