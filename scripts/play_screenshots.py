"""Screenshots of the reference client (/play) for docs/ and the README: a game in
progress of each main game on a desktop window, and one on a phone's screen (360 x 640)
in English and in German.

Starts a real server on a throw-away SQLite file, opens /play in Debian's Chromium
(Playwright), deals each game's first proven deal of seeds/, plays the first part of its
proven line through the API with the page's token, reloads the page, and takes the
picture.

    .venv/bin/python scripts/play_screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import httpx
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.seeds import read_line  # noqa: E402
from tests.probes.server import Server  # noqa: E402
from tests.web.browser import CHROMIUM_ARGS, chromium_path  # noqa: E402

GAMES = {"rank-and-file": 0.45, "rows-of-four": 0.35, "rainbow": 0.4}  # share of the line played


def ready(page: Page) -> None:
    page.wait_for_function("() => document.body.dataset.busy === '0'", timeout=60_000)


def play_part(page: Page, server: Server, variant: str, share: float) -> None:
    seed = json.loads((ROOT / "seeds" / f"{variant}.json").read_text())["deals"][0]
    if page.locator("#menu-button").is_visible():  # a phone: the form is in the menu
        page.click("#menu-button")
    page.select_option("#variant", variant)
    page.select_option("#deal-kind", "number")
    page.fill("#deal-number", str(seed["deal"]))
    page.click("#new-game-button")
    ready(page)
    token = page.evaluate("localStorage.getItem('solitaire.token')")
    game = page.evaluate("localStorage.getItem('solitaire.game')")
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=f"{server.base_url}/api/v1", headers=headers) as client:
        client.patch(f"/games/{game}", json={"settings": {"auto_finish": False}})
        moves = read_line(seed["line"])
        for move in moves[: int(len(moves) * share)]:
            client.post(f"/games/{game}/moves", json=move.to_json()).raise_for_status()
    page.reload()
    ready(page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    chromium = chromium_path()
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(
            f"sqlite+aiosqlite:///{tmp}/shots.sqlite3", Path(tmp), SOLVABLE_PREPARE_AHEAD="false"
        )
        server.start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
                desktop = browser.new_page(viewport={"width": 1200, "height": 820})
                desktop.goto(f"{server.base_url}/play/")
                ready(desktop)
                for variant, share in GAMES.items():
                    play_part(desktop, server, variant, share)
                    desktop.screenshot(path=str(args.out / f"play-{variant}.png"))
                for language in ("en", "de"):
                    phone = browser.new_page(
                        viewport={"width": 360, "height": 640},
                        is_mobile=True,
                        has_touch=True,
                        locale=language,
                    )
                    phone.goto(f"{server.base_url}/play/")
                    ready(phone)
                    play_part(phone, server, "rank-and-file", 0.45)
                    phone.click("#hint-button")
                    ready(phone)
                    phone.screenshot(path=str(args.out / f"play-phone-{language}.png"))
                browser.close()
        finally:
            server.kill()
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
