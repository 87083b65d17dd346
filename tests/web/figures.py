"""What a player sees of /play, measured in the page: tests/web/figures.js (control and
card sizes, sideways scrolling, text cut off, contrast, the table's top, the Won box, the
message box) and the layout shift (CLS) summed by a PerformanceObserver.

Run alone, it prints the figures of a few screens (a phone held upright, a larger phone,
a desktop) for a dealt game, a daily game, an error and a won game:

    .venv/bin/python -m tests.web.figures
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

FIGURES_JS = (Path(__file__).parent / "figures.js").read_text()

# Every layout shift from the page's first moment, input or not (a deal follows a click,
# and its shifts count here as a player sees them).
CLS_INIT = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    window.__shifts.push(entry.value);
    window.__moved = (window.__moved || []).concat(
      (entry.sources || []).map((s) => s.node ? (s.node.id || s.node.className || s.node.nodeName) : "?"));
  }
}).observe({ type: "layout-shift", buffered: true });
"""

SCREENS: dict[str, dict[str, Any]] = {
    "phone-360": {
        "viewport": {"width": 360, "height": 640},
        "has_touch": True,
        "is_mobile": True,
        "device_scale_factor": 2,
    },
    "phone-390": {
        "viewport": {"width": 390, "height": 844},
        "has_touch": True,
        "is_mobile": True,
        "device_scale_factor": 3,
    },
    "desktop": {"viewport": {"width": 1200, "height": 860}},
}


def figures(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(FIGURES_JS)
    return found


def layout_shift(page: Any, reset: bool = False) -> float:
    """The layout shift summed since the page loaded (or since the last reset)."""
    total: float = page.evaluate("(window.__shifts || []).reduce((a, b) => a + b, 0)")
    if reset:
        page.evaluate("window.__shifts = []")
    return round(total, 4)


def _api(page: Any, server: Any) -> Any:
    import httpx

    token = page.evaluate("localStorage.getItem('solitaire.token')")
    headers = {"Authorization": f"Bearer {token}"}
    return httpx.Client(base_url=f"{server.base_url}/api/v1", headers=headers, timeout=30)


@contextmanager
def away_from_play(page: Any, server: Any) -> Iterator[None]:
    """The page away from /play (on the server's /health: its origin, its storage, no
    client) while a test plays over the API, then what it showed loaded again: a page that
    followed the game would take and draw each of a long line's moves as it came."""
    shown = page.url
    page.goto(f"{server.base_url}/health")
    yield
    page.goto(shown)


def play_line(page: Any, server: Any, share: float) -> None:
    """Plays a share of the proven line of the game shown (deal 1 of its seeds/), reloads."""
    from app.seeds import read_line

    game = page.evaluate("localStorage.getItem('solitaire.game')")
    variant = page.evaluate("localStorage.getItem('solitaire.variant')")
    root = Path(__file__).resolve().parents[2]
    seed = json.loads((root / "seeds" / f"{variant}.json").read_text())["deals"][0]
    with _api(page, server) as client, away_from_play(page, server):
        client.patch(f"/games/{game}", json={"settings": {"auto_finish": False}})
        moves = read_line(seed["line"])
        for move in moves[: int(len(moves) * share)]:
            client.post(f"/games/{game}/moves", json=move.to_json()).raise_for_status()
    page.wait_for_function("() => document.body.dataset.busy === '0'", timeout=60_000)


def refuse_click(page: Any, server: Any) -> None:
    """auto_play off (over the API), then a click on a face-up card: refused, the message shown."""
    game = page.evaluate("localStorage.getItem('solitaire.game')")
    with _api(page, server) as client:
        client.patch(f"/games/{game}", json={"settings": {"auto_play": False}})
    page.reload()
    page.wait_for_function("() => document.body.dataset.busy === '0'", timeout=60_000)
    card = page.locator("#table .pile.tableau .card.up").last
    box = card.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] - 5)
    page.locator("#message").wait_for(state="visible")
    with _api(page, server) as client:
        client.patch(f"/games/{game}", json={"settings": {"auto_play": True}})


def open_menu(page: Any) -> None:
    """Opens the phone's menu (the new game's form) where it is closed."""
    if page.locator("#menu-button").is_visible() and not page.locator("#variant").is_visible():
        page.click("#menu-button")


def main() -> None:  # pragma: no cover - a measuring tool
    from playwright.sync_api import sync_playwright

    from tests.probes.server import Server
    from tests.web.browser import CHROMIUM_ARGS, chromium_path

    def ready(page: Any) -> None:
        page.wait_for_function("() => document.body.dataset.busy === '0'", timeout=60_000)

    with tempfile.TemporaryDirectory() as tmp:
        server = Server(
            f"sqlite+aiosqlite:///{tmp}/f.sqlite3", Path(tmp), SOLVABLE_PREPARE_AHEAD="false"
        )
        server.start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium_path(), args=CHROMIUM_ARGS
                )
                for screen, args in SCREENS.items():
                    context = browser.new_context(**args)
                    context.add_init_script(CLS_INIT)
                    page = context.new_page()
                    page.goto(f"{server.base_url}/play/")
                    ready(page)
                    page.wait_for_timeout(300)
                    out: dict[str, Any] = {"load CLS": layout_shift(page, reset=True)}
                    open_menu(page)
                    page.select_option("#variant", "rank-and-file")
                    page.select_option("#deal-kind", "number")
                    page.fill("#deal-number", "1")
                    page.click("#new-game-button")
                    ready(page)
                    page.wait_for_timeout(300)
                    out["moved"] = page.evaluate("window.__moved")
                    out["deal CLS"] = layout_shift(page, reset=True)
                    out["game"] = figures(page)
                    play_line(page, server, 0.45)
                    out["mid-game"] = figures(page)
                    page.evaluate("document.querySelector('#message').hidden = true")
                    refuse_click(page, server)
                    out["error"] = figures(page)
                    open_menu(page)
                    page.select_option("#deal-kind", "daily")
                    page.click("#new-game-button")
                    ready(page)
                    out["daily"] = figures(page)
                    open_menu(page)
                    page.select_option("#deal-kind", "number")
                    page.fill("#deal-number", "1")
                    page.click("#new-game-button")
                    ready(page)
                    page.click("#finish")
                    page.wait_for_function("() => document.body.dataset.status === 'won'")
                    ready(page)
                    out["won"] = figures(page)
                    print(screen, json.dumps(out, indent=1, ensure_ascii=False))
                    sys.stdout.flush()
                    context.close()
                browser.close()
        finally:
            server.kill()


if __name__ == "__main__":  # pragma: no cover
    main()
