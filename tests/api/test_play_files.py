"""The reference web client's files at /play (its behaviour in a browser is
tests/web): served on the API's own origin with a policy that lets nothing else load,
no asset from elsewhere, and no API operation it calls that the document lacks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from app.routers.play import CONTENT_SECURITY_POLICY, WEB_DIR
from tests.api.conftest import assert_error

ROOT = Path(__file__).resolve().parents[2]


async def test_play_redirects_to_the_client_and_serves_it_with_its_policy(
    client: httpx.AsyncClient,
) -> None:
    bare = await client.get("/play")
    assert bare.status_code == 308 and bare.headers["location"] == "/play/"
    page = await client.get("/play/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert page.headers["cache-control"] == "no-cache"
    assert page.headers["x-content-type-options"] == "nosniff"
    # Revalidated by its ETag: an unchanged file is a 304.
    again = await client.get("/play/", headers={"If-None-Match": page.headers["etag"]})
    assert again.status_code == 304
    # Every script and style sheet of the client, as it is on disk.
    for name in sorted(p.name for p in WEB_DIR.iterdir() if p.suffix in (".js", ".css")):
        asset = await client.get(f"/play/{name}")
        assert asset.status_code == 200, name
        assert asset.text == (WEB_DIR / name).read_text()
    # The catalogues of the client's words (i18n.js reads them), with the page's policy.
    for path in sorted((WEB_DIR / "locales").glob("*.json")):
        catalogue = await client.get(f"/play/locales/{path.name}")
        assert catalogue.status_code == 200, path.name
        assert catalogue.headers["content-type"].startswith("application/json")
        assert catalogue.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert catalogue.json() == json.loads(path.read_text())
    script = await client.get("/play/main.js")
    assert script.headers["content-type"].startswith(("text/javascript", "application/javascript"))


async def test_a_missing_file_under_play_is_the_usual_error(client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/play/nothing.js"), 404, "not_found")
    assert_error(await client.get("/play/../app/config.py"), 404, "not_found")


def test_the_policy_allows_the_servers_own_origin_only() -> None:
    directives = dict(part.strip().split(" ", 1) for part in CONTENT_SECURITY_POLICY.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["connect-src"] == "'self'"
    assert directives["script-src"] == "'self'"  # no inline script, no eval
    assert "unsafe" not in CONTENT_SECURITY_POLICY


def test_the_client_loads_nothing_from_elsewhere() -> None:
    for path in WEB_DIR.rglob("*"):
        if path.is_dir():
            continue
        text = path.read_text()
        assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", text), path.name
        assert "@import" not in text and "url(" not in text, path.name
    html = (WEB_DIR / "index.html").read_text()
    referenced = re.findall(r'(?:src|href)="([^"#:]+)"', html)
    assert set(referenced) == {"play.css", "main.js"}
    imports = {
        name
        for path in WEB_DIR.glob("*.js")
        for name in re.findall(r'from "\./([\w.]+)"', path.read_text())
    }
    assert imports and all((WEB_DIR / name).exists() for name in imports)


def test_every_operation_the_client_calls_is_in_the_api_document() -> None:
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    source = (WEB_DIR / "api.js").read_text()
    prefix = re.search(r'const PREFIX = "([^"]+)"', source)
    assert prefix is not None
    calls = re.findall(r'this\.request\(\s*"(\w+)",\s*[`"]([^`"]+)[`"]', source)
    assert len(calls) >= 14
    documented = {
        (method.upper(), re.sub(r"\{[^}]+\}", "{}", path))
        for path, operations in document["paths"].items()
        for method in operations
    }
    for method, path in calls:
        normal = prefix.group(1) + re.sub(r"\$\{[^}]+\}", "{}", path.split("?")[0])
        assert (method, normal) in documented, (method, path)


def test_the_generated_client_check_uses_every_operation_of_the_document() -> None:
    """openapi/client-play.ts (compiled and run by scripts/check_openapi.sh) calls every
    operation with an exhaustive switch over its codes: a new operation needs both."""
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    source = (ROOT / "openapi" / "client-play.ts").read_text()
    called = set(re.findall(r'api\.(GET|POST|PATCH)\(\s*"([^"]+)"', source))
    switched = set(re.findall(r'Op<"([^"]+)", "(get|post|patch)">', source))
    operations = {
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method in operations
        if method in {"get", "post", "patch", "put", "delete"}
    }
    assert operations - called == set(), "operations the client never calls"
    refused = {(method.upper(), path) for path, method in switched}
    assert operations - refused - {("GET", "/api/v1/health")} == set(), (
        "operations whose refusals no switch handles"
    )
