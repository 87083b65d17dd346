"""The reference web client (`app/web/`), served as static files at `/play/`.

It is a front-end like any other: it calls only the public API, on this server's own
origin, so the Content-Security-Policy allows nothing else (no request leaves the
origin; it works offline)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

WEB_DIR = Path(__file__).resolve().parent.parent / "web"

# 'self' only: scripts, styles, API calls; images also data: (the empty favicon).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; connect-src 'self'; script-src 'self'; "
    "style-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


class PlayFiles(StaticFiles):
    """Static files with the client's policy, revalidated on each load (an upgraded
    server's client is picked up at once; unchanged files answer 304 by their ETag)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response


def mount_play(app: FastAPI) -> None:
    async def play_root() -> RedirectResponse:
        return RedirectResponse("/play/", status_code=308)

    app.add_api_route(
        "/play", play_root, methods=["GET", "HEAD"], include_in_schema=False, name="play_root"
    )
    app.mount("/play", PlayFiles(directory=WEB_DIR, html=True), name="play")
