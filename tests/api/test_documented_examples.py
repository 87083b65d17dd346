"""docs/api.md and the server agree on every status.

1. The error table (`| status | code | when |` rows, the daily deals' too) is the
   catalogue of `app/errors/catalogue.py`: every row names an `ApiError` type with that code and
   status, and every type has its row. Every other "<status> `<code>`" the docs write
   (prose, the metrics table; README.md too) says the catalogue's status, but in the table
   of answers earlier versions gave. The document's error answers list codes of their own
   status, and its conditional GETs declare their 304 with the ETag.
2. The examples: every ```http block of docs/api.md is a request and the answer it
   claims; they run against the app in order, as one client (the section "Requests and
   answers, checked against the server" says how they are read).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from app.errors import CATALOGUE, ApiError
from app.main import create_app

ROOT = Path(__file__).resolve().parents[2]
API_MD = ROOT / "docs" / "api.md"

ROW = re.compile(r"^\| ([0-9]{3}) \| `([a-z_]+)` \|", flags=re.MULTILINE)
# "409 `game_over`", "429 `too_many_streams`, 429 `streams_full`", "503 `daily_not_ready`".
MENTION = re.compile(r"\b([1-5][0-9]{2}) `([a-z_]+)`")
# The table of answers earlier versions gave: its old statuses are history, not the server.
EARLIER_TABLE = re.compile(r"^\| condition \| earlier answer \| answer now \|\n(?:\|.*\n)*", re.M)
PLACEHOLDER = re.compile(r"<([a-z_]+)>")


# --- 1. the error catalogue ------------------------------------------------------------------


def _error_types() -> set[type[ApiError]]:
    """Every ApiError subclass, however deep."""
    found: set[type[ApiError]] = set()
    todo = list(ApiError.__subclasses__())
    while todo:
        kind = todo.pop()
        found.add(kind)
        todo.extend(kind.__subclasses__())
    return found


def _documented_rows() -> dict[str, int]:
    rows: dict[str, int] = {}
    for status, code in ROW.findall(API_MD.read_text()):
        assert rows.setdefault(code, int(status)) == int(status), f"{code}: two statuses"
    return rows


def test_every_documented_error_row_is_a_named_error_type_and_back() -> None:
    rows = _documented_rows()
    by_code = {kind.code: kind for kind in _error_types()}
    assert set(by_code) == set(CATALOGUE), "an ApiError subclass outside the catalogue"
    for code, status in rows.items():
        assert code in by_code, f"docs/api.md documents {code}, which no ApiError type has"
        kind = by_code[code]
        assert kind.status == status, (
            f"{code}: documented {status}, {kind.__name__} is {kind.status}"
        )
    undocumented = {kind.__name__: code for code, kind in by_code.items() if code not in rows}
    assert not undocumented, f"error types without a row in docs/api.md: {undocumented}"


def test_every_status_the_docs_give_a_code_is_its_status() -> None:
    for path in (API_MD, ROOT / "README.md"):
        text = EARLIER_TABLE.sub("", path.read_text())
        for status, code in MENTION.findall(text):
            if code not in CATALOGUE:  # e.g. a reason or an event type after a number
                continue
            assert CATALOGUE[code].status == int(status), (
                f"{path.name} says {status} `{code}`; the server answers {CATALOGUE[code].status}"
            )


def test_the_documents_errors_and_304s_agree_with_the_server() -> None:
    document = create_app().openapi()
    for route, methods in document["paths"].items():
        for method, operation in methods.items():
            where = f"{method.upper()} {route}"
            responses = operation["responses"]
            for status, answer in responses.items():
                if not status.isdigit() or int(status) < 400:
                    continue
                for code in re.findall(r"`([a-z_]+)`", answer["description"]):
                    assert code in CATALOGUE, (where, code)
                    assert CATALOGUE[code].status == int(status), (where, status, code)
            takes = {p["name"] for p in operation.get("parameters", [])}
            if "If-None-Match" in takes:
                assert "ETag" in responses["304"]["headers"], where


# --- 2. the examples -------------------------------------------------------------------------


@dataclass
class Message:
    first: str  # the request line, or the status line
    headers: list[tuple[str, str]]
    body: str


@dataclass
class Example:
    line: int  # where the block starts in docs/api.md
    request: Message
    answer: Message


def _message(lines: list[str]) -> Message:
    blank = lines.index("") if "" in lines else len(lines)
    headers = [tuple(h.split(": ", 1)) for h in lines[1:blank]]
    assert all(len(h) == 2 for h in headers), lines
    return Message(lines[0], [(h[0], h[1]) for h in headers], "\n".join(lines[blank:]).strip())


def _examples() -> list[Example]:
    text = API_MD.read_text()
    examples = []
    for match in re.finditer(r"^```http\n(.*?)^```$", text, flags=re.M | re.S):
        lines = match.group(1).rstrip("\n").split("\n")
        split = next(i for i, line in enumerate(lines) if line.startswith("HTTP/1.1 "))
        line = text.count("\n", 0, match.start()) + 1
        examples.append(Example(line, _message(lines[:split]), _message(lines[split:])))
    return examples


class Bindings:
    """The values answers gave, by placeholder name."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def fill(self, text: str) -> str:
        """A request's text with every placeholder replaced by its value."""

        def value(match: re.Match[str]) -> str:
            assert match.group(1) in self.values, f"<{match.group(1)}> is bound by no answer"
            return self.values[match.group(1)]

        return PLACEHOLDER.sub(value, text)

    def match(self, pattern: str, actual: str) -> bool:
        """Does `actual` read as `pattern`, its bound placeholders as their values and
        the others as any text (then bound)?"""
        parts, seen, at = [], set(), 0
        for found in PLACEHOLDER.finditer(pattern):
            parts.append(re.escape(pattern[at : found.start()]))
            name = found.group(1)
            if name in self.values:
                parts.append(re.escape(self.values[name]))
            elif name in seen:
                parts.append(f"(?P={name})")
            else:
                parts.append(f"(?P<{name}>.+?)")
                seen.add(name)
            at = found.end()
        parts.append(re.escape(pattern[at:]))
        matched = re.fullmatch("".join(parts), actual, flags=re.S)
        if matched is None:
            return False
        self.values.update(matched.groupdict())
        return True

    def match_json(self, expected: Any, actual: Any, where: str = "body") -> None:
        """`actual` has every field `expected` shows, with its value (lists whole)."""
        if isinstance(expected, dict):
            assert isinstance(actual, dict), (where, actual)
            for key, value in expected.items():
                assert key in actual, f"{where}.{key} missing in {actual}"
                self.match_json(value, actual[key], f"{where}.{key}")
        elif isinstance(expected, list):
            assert isinstance(actual, list) and len(actual) == len(expected), (where, actual)
            for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
                self.match_json(want, got, f"{where}[{i}]")
        elif isinstance(expected, str):
            assert isinstance(actual, str) and self.match(expected, actual), (where, actual)
        else:
            assert type(actual) is type(expected) and actual == expected, (where, actual)


async def _run(client: httpx.AsyncClient, example: Example, bound: Bindings) -> None:
    method, target = example.request.first.split(" ")[:2]
    body = bound.fill(example.request.body)
    answer = await client.request(
        method,
        bound.fill(target),
        headers={name: bound.fill(value) for name, value in example.request.headers},
        content=body.encode() if body else None,
    )
    where = f"docs/api.md:{example.line}: {method} {target}"
    status = int(example.answer.first.split(" ")[1])
    assert answer.status_code == status, f"{where}: {answer.status_code} {answer.text[:300]}"
    for name, pattern in example.answer.headers:
        got = answer.headers.get(name)
        assert got is not None and bound.match(pattern, got), f"{where}: {name}: {got}"
    if example.answer.body:
        bound.match_json(json.loads(example.answer.body), answer.json(), where)
    elif status == 304:
        assert answer.content == b"", where


async def test_the_documented_examples_answer_as_documented(client: httpx.AsyncClient) -> None:
    examples = _examples()
    flows = {(e.request.first.split(" ")[0], int(e.answer.first.split(" ")[1])) for e in examples}
    # The key flows are there: a game made, a move, a refused move, a won game's 409, a 304.
    assert {("POST", 201), ("POST", 200), ("POST", 422), ("POST", 409), ("GET", 304)} <= flows
    bound = Bindings()
    for example in examples:
        await _run(client, example, bound)
