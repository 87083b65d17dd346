"""The reference client at /play, driven in a real Chromium (Debian's `chromium`, through
Playwright) against a real server (`python -m app.server`), the way a player uses it:
drag and drop, clicks, undo, hints, finish, reload, the daily page, a phone's screen.

What the page shows is checked against what the server holds, read over the API with
the page's own token. Every test also checks, at its end, that no request left the
server's origin, that every move carried an `Idempotency-Key`, that the page logged no
error, and that the answers' events, replayed by the client, led to each answer's piles.

Chromium is found at `CHROMIUM_PATH`, else `chromium` on the PATH. Without it these
tests are skipped, unless `REQUIRE_BROWSER=1` (`.ci/run` sets it and installs Debian's
chromium package), where its absence fails them.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from app.engine import Move
from app.seeds import seed_line
from tests.probes.server import Server
from tests.web.browser import CHROMIUM_ARGS, chromium_path
from tests.web.figures import (
    CLS_INIT,
    SCREENS,
    away_from_play,
    figures,
    layout_shift,
    open_menu,
    play_line,
)

playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = chromium_path()
if not Path(CHROMIUM).exists():
    if os.environ.get("REQUIRE_BROWSER") == "1":
        raise RuntimeError(f"REQUIRE_BROWSER=1 but no Chromium at {CHROMIUM}")
    pytest.skip(f"no Chromium at {CHROMIUM} (CHROMIUM_PATH)", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
MAIN_GAMES = ["rank-and-file", "rows-of-four", "rainbow"]
# Deals of seeds/ (proven winnable), so each main game has a move from the start.
DEALS = {"rank-and-file": 1, "rows-of-four": 1, "rainbow": 2}
TIMEOUT_MS = 30_000
T = TypeVar("T")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("play")
    yield from serving(data, "play")


def serving(data: Path, name: str, **env: str) -> Iterator[Server]:
    """A server on a database of its own under `data`, proving a solvable deal of each game
    ahead and waiting up to a minute for a daily deal; killed at the end."""
    server = Server(
        f"sqlite+aiosqlite:///{data / f'{name}.sqlite3'}",
        data,
        SOLVABLE_PREPARE_AHEAD="true",
        SOLVABLE_POOL_SIZE="1",
        DAILY_WAIT_SECONDS="60",
        LOG_FORMAT="text",
        **env,
    )
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Play:
    """A page of the client, and the server it talks to."""

    page: Any
    server: Server
    requests: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # Console lines a test provokes: the refusals it asks for (Chromium logs each 4xx as
    # a failed load), and a lost answer where it cuts one.
    expected: list[str] = field(default_factory=lambda: ["the server responded with a status of 4"])
    http: httpx.Client | None = None

    # ---- the page

    def ready(self) -> None:
        self.page.wait_for_function("() => document.body.dataset.busy === '0'", timeout=TIMEOUT_MS)

    def storage(self, key: str) -> str | None:
        value: str | None = self.page.evaluate(f"localStorage.getItem({key!r})")
        return value

    @property
    def game_id(self) -> str:
        game = self.storage("solitaire.game")
        assert game is not None
        return game

    def new_game(self, variant: str, kind: str = "random", deal: int | None = None) -> None:
        open_menu(self.page)
        self.page.select_option("#variant", variant)
        self.page.select_option("#deal-kind", kind)
        if deal is not None:
            self.page.fill("#deal-number", str(deal))
        self.page.click("#new-game-button")
        self.page.wait_for_function(
            "variant => document.body.dataset.busy === '0'"
            " && localStorage.getItem('solitaire.variant') === variant",
            arg=variant,
            timeout=TIMEOUT_MS,
        )

    def card(self, pile: str, index: int) -> Any:
        return self.page.locator(f'[data-pile="{pile}"] .card[data-index="{index}"]')

    def pile(self, pile: str) -> Any:
        return self.page.locator(f'[data-pile="{pile}"]')

    def press_card(self, pile: str, index: int) -> None:
        """The pointer down on the card's visible strip (cards above cover the rest)."""
        box = self.card(pile, index).bounding_box()
        self.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + min(10, box["height"] / 2))
        self.page.mouse.down()

    def drag(
        self, source: str, index: int, target: str, check_targets: set[str] | None = None
    ) -> None:
        self.press_card(source, index)
        box = self.pile(target).bounding_box()
        self.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=8)
        if check_targets is not None:
            lit = set(
                self.page.eval_on_selector_all(
                    ".pile.target", "els => els.map(e => e.dataset.pile)"
                )
            )
            assert lit == check_targets
        self.page.mouse.up()
        self.ready()

    def click_card(self, pile: str, index: int) -> None:
        self.press_card(pile, index)
        self.page.mouse.up()
        self.ready()

    def message(self) -> tuple[str, str | None]:
        box = self.page.locator("#message")
        box.wait_for(state="visible", timeout=TIMEOUT_MS)
        return box.inner_text(), box.get_attribute("data-code")

    # ---- the server, over the API with the page's token

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        token = self.storage("solitaire.token")
        headers = {"Authorization": f"Bearer {token}", **kwargs.pop("headers", {})}
        if self.http is None:  # one client, its connection kept: a test sends hundreds
            self.http = httpx.Client(base_url=f"{self.server.base_url}/api/v1", timeout=30)
        return self.http.request(method, path, headers=headers, **kwargs)

    def close(self) -> None:
        if self.http is not None:
            self.http.close()
            self.http = None

    def state(self) -> dict[str, Any]:
        answer = self.api("GET", f"/games/{self.game_id}")
        assert answer.status_code == 200
        state: dict[str, Any] = answer.json()
        return state

    def last_move(self) -> dict[str, Any]:
        log = self.api("GET", f"/games/{self.game_id}/moves").json()
        move: dict[str, Any] = log["items"][-1]["move"]
        return move

    def animated_events(self) -> int:
        return int(self.page.evaluate("document.body.dataset.animatedEvents || '0'"))

    def shown_version(self) -> int:
        return int(self.page.evaluate("document.body.dataset.version"))

    def shot(self, name: str) -> Path:
        """A screenshot of the page as the test sees it, for a person to look at:
        `SCREENSHOT_DIR`, else build/screenshots (ignored by git)."""
        folder = Path(os.environ.get("SCREENSHOT_DIR") or ROOT / "build" / "screenshots")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        return path


@contextmanager
def opened(
    browser: Any, server: Server, before: Callable[[Any], None] | None = None, **context_args: Any
) -> Iterator[Play]:
    """/play in a new browser context (`context_args`: its viewport, storage, ...), with
    the checks every page passes at its end; `before(page)` runs before it loads."""
    context = browser.new_context(**{"locale": "en-US", **context_args})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    session = Play(page, server)
    page.on("request", lambda request: session.requests.append(request))
    page.on("pageerror", lambda error: session.problems.append(f"page error: {error}"))
    page.on(
        "console",
        lambda line: (
            session.problems.append(f"console {line.type}: {line.text}")
            if line.type in ("error", "warning")
            else None
        ),
    )
    if before is not None:
        before(page)
    page.goto(f"{server.base_url}/play/")
    session.ready()
    try:
        yield session
        # What holds for every page, whatever the test did.
        foreign = [r.url for r in session.requests if not r.url.startswith(server.base_url + "/")]
        assert foreign == [], "requests left the server's origin"
        moves = [
            r
            for r in session.requests
            if r.method == "POST" and r.url.endswith(("/moves", "/undo"))
        ]
        assert all(r.headers.get("idempotency-key") for r in moves)
        assert [p for p in session.problems if not any(e in p for e in session.expected)] == []
        assert page.evaluate("document.body.dataset.eventMismatches") is None
    finally:
        session.close()
        context.close()


@pytest.fixture
def play(browser: Any, server: Server) -> Iterator[Play]:
    with opened(browser, server, viewport={"width": 1200, "height": 860}) as session:
        yield session


@contextmanager
def elsewhere(play: Play) -> Iterator[None]:
    """figures.away_from_play, then the page ready again."""
    with away_from_play(play.page, play.server):
        yield
    play.ready()


def same_player(play: Play) -> dict[str, Any]:
    """A browser context's storage holding this page's player and game (a second tab)."""
    items = [
        {"name": "solitaire.token", "value": play.storage("solitaire.token")},
        {"name": "solitaire.game", "value": play.game_id},
    ]
    return {"cookies": [], "origins": [{"origin": play.server.base_url, "localStorage": items}]}


def shown_piles(play: Play, state: dict[str, Any]) -> list[list[str | None]]:
    return [
        play.page.eval_on_selector_all(
            f'[data-pile="{pile["id"]}"] .card', "els => els.map(e => e.dataset.code || null)"
        )
        for pile in state["piles"]
    ]


def held_piles(state: dict[str, Any]) -> list[list[str | None]]:
    return [[card.get("code") for card in pile["cards"]] for pile in state["piles"]]


LIVE = "() => document.body.dataset.live === '1'"
# The client's waits on the clock (app/web/timings.js): its defaults, and shorter ones a
# test not about them sets before the page loads.
DEFAULT_TIMINGS = {"resendMs": 250, "backSignMs": 3000, "fastLineMs": 150}
SHORT_TIMINGS = (
    "localStorage.setItem('solitaire.timings', JSON.stringify({resendMs: 150, backSignMs: 1000}))"
)
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "has_touch": True,
    "is_mobile": True,
}


def scrolls_sideways(play: Play) -> bool:
    width: bool = play.page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    return width


def legal_drop(state: dict[str, Any]) -> dict[str, Any] | None:
    """A legal move of cards a player can drag (not a draw), preferring tableau to tableau."""
    moves = [m for m in state["legal_moves"] if m["action"] == "move"]
    moves.sort(key=lambda m: (not m["to"].startswith("tableau"), m["from"]))
    return moves[0] if moves else None


def draw_until(play: Play, wanted: Callable[[dict[str, Any]], T | None], limit: int = 40) -> T:
    """Draws (the Draw button) until the state has what `wanted` looks for."""
    for _ in range(limit):
        state = play.state()
        found = wanted(state)
        if found is not None:
            return found
        if play.page.locator("#draw").is_visible():
            play.page.click("#draw")
        else:  # a phone: the stock is the draw button
            play.page.click('[data-pile="stock"]')
        play.ready()
    raise AssertionError("no such position within the draws")


@pytest.mark.parametrize("variant", MAIN_GAMES)
def test_drag_drop_click_and_undo_play_through_the_api(play: Play, variant: str) -> None:
    play.new_game(variant, "number", DEALS[variant])
    state = play.state()
    assert state["variant"] == variant and state["deal"] == DEALS[variant]
    assert play.page.inner_text("#deal") == f"deal {DEALS[variant]}"
    # The table is the state: every pile, face-down cards as backs, face-up ones by code.
    for pile in state["piles"]:
        shown = play.page.eval_on_selector_all(
            f'[data-pile="{pile["id"]}"] .card', "els => els.map(e => e.dataset.code || null)"
        )
        assert shown == [card.get("code") for card in pile["cards"]]

    # A legal drop, with its legal targets lit while dragging: the server plays it.
    move = draw_until(play, legal_drop)
    state = play.state()
    source = next(p for p in state["piles"] if p["id"] == move["from"])
    index = len(source["cards"]) - move["count"]
    targets = {
        m["to"]
        for m in state["legal_moves"]
        if m["action"] == "move" and m["from"] == move["from"] and m["count"] == move["count"]
    }
    animated = play.animated_events()
    play.drag(move["from"], index, move["to"], check_targets=targets)
    after = play.state()
    assert after["move_count"] == state["move_count"] + 1
    assert play.last_move() == move
    assert play.shown_version() == after["version"]
    # Each event of the answer was animated (the dragged cards' landing, a card turned up).
    log = play.api("GET", f"/games/{play.game_id}/moves").json()["items"]
    assert play.animated_events() - animated == len(log[-1]["events"])

    # An illegal drop: the server's words on the page, and nothing changed.
    state = after
    tops = [
        p
        for p in state["piles"]
        if p["kind"] == "tableau" and p["movable_from"] is not None and p["cards"]
    ]
    refused = None
    for pile in tops:
        legal = {
            m["to"]
            for m in state["legal_moves"]
            if m.get("from") == pile["id"] and m.get("count") == 1
        }
        others = [
            p["id"]
            for p in state["piles"]
            if p["kind"] == "tableau" and p["id"] not in legal | {pile["id"]}
        ]
        if others:
            refused = (pile["id"], len(pile["cards"]) - 1, others[0])
            break
    assert refused is not None
    expected = play.api(
        "POST",
        f"/games/{play.game_id}/moves",
        json={"action": "move", "from": refused[0], "to": refused[2], "count": 1},
    )
    assert expected.status_code == 422
    play.drag(*refused)
    text, code = play.message()
    assert code == expected.json()["error"]["code"]
    # The server's message as a sentence (a capital, a full stop); the code is not in it.
    message = expected.json()["error"]["message"]
    assert text == f"{message[0].upper()}{message[1:]}."
    assert code is not None and code not in text
    assert play.state()["version"] == state["version"]

    # A click plays what the state says the card's click plays.
    def clickable(state: dict[str, Any]) -> tuple[str, int, dict[str, Any]] | None:
        for pile in state["piles"]:
            if pile["kind"] == "stock":
                continue
            for i, card in enumerate(pile["cards"]):
                if card["face_up"] and card.get("click"):
                    return pile["id"], i, card["click"]
        return None

    pile_id, index, click = draw_until(play, clickable)
    before = play.state()
    play.click_card(pile_id, index)
    after = play.state()
    assert after["move_count"] == before["move_count"] + 1
    assert play.last_move() == click

    # Undo takes it back.
    play.page.click("#undo")
    play.ready()
    undone = play.state()
    assert undone["move_count"] == before["move_count"]
    assert [p["cards"] for p in undone["piles"]] == [p["cards"] for p in before["piles"]]
    assert play.shown_version() == undone["version"]


def test_two_tabs_on_one_game_stay_in_step(play: Play, browser: Any, server: Server) -> None:
    play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
    play.page.wait_for_function(LIVE)
    viewport = {"width": 1200, "height": 860}
    with opened(browser, server, storage_state=same_player(play), viewport=viewport) as other:
        other.page.wait_for_function(LIVE)
        assert other.game_id == play.game_id
        assert other.shown_version() == play.shown_version()
        # A move in the first tab appears in the second within 2 s, without a reload.
        move = draw_until(play, legal_drop)
        state = play.state()
        source = next(p for p in state["piles"] if p["id"] == move["from"])
        play.drag(move["from"], len(source["cards"]) - move["count"], move["to"])
        moved = play.state()
        assert moved["move_count"] == state["move_count"] + 1
        other.page.wait_for_function(
            f"() => document.body.dataset.version === '{moved['version']}'", timeout=2_000
        )
        other.ready()
        assert shown_piles(other, moved) == held_piles(moved)
        other.shot("two-tabs-second-tab-in-step")
        assert other.page.inner_text("#moves").startswith(f"{moved['move_count']} move")
        # A move in the second tab is accepted, and reaches the first.
        other.page.click("#draw")
        other.ready()
        drawn = other.state()
        assert drawn["move_count"] == moved["move_count"] + 1
        assert other.last_move() == {"action": "draw"}
        play.page.wait_for_function(
            f"() => document.body.dataset.version === '{drawn['version']}'", timeout=2_000
        )
        play.ready()
        assert shown_piles(play, drawn) == held_piles(drawn)
        reloads = [r for r in play.requests + other.requests if r.resource_type == "document"]
        assert len(reloads) == 2  # each tab loaded once


def test_a_move_from_a_stale_view_shows_the_new_position_first(
    play: Play, browser: Any, server: Server
) -> None:
    play.new_game("rank-and-file", "number", DEALS["rank-and-file"])

    def no_stream(page: Any) -> None:
        page.route("**/api/v1/games/*/events*", lambda route: route.abort())

    with opened(browser, server, no_stream, storage_state=same_player(play)) as stale:
        stale.expected.append("net::ERR_FAILED")
        shown = stale.shown_version()
        play.page.click("#draw")
        play.ready()
        moved = play.state()
        assert stale.shown_version() == shown < moved["version"]
        # The stale tab's draw is refused; it shows the position now and says so.
        stale.page.click("#draw")
        stale.ready()
        text, code = stale.message()
        assert "changed elsewhere" in text and code is None
        stale.shot("stale-tab-shows-the-new-position")
        assert stale.shown_version() == moved["version"]
        assert shown_piles(stale, moved) == held_piles(moved)
        assert stale.state()["move_count"] == moved["move_count"]
        # Its next move is made on that position, and accepted.
        stale.page.click("#draw")
        stale.ready()
        assert stale.state()["move_count"] == moved["move_count"] + 1


@pytest.fixture(scope="module")
def short_streams(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose live streams end after 1 s and whose stream tokens are good for
    1 s: EventSource opens an ended stream again 3 s later, with a token expired by then."""
    data = tmp_path_factory.mktemp("streams")
    short = Server(
        f"sqlite+aiosqlite:///{data / 'streams.sqlite3'}",
        data,
        STREAM_TOKEN_SECONDS="1",
        STREAM_MAX_SECONDS="1",
        SOLVABLE_PREPARE_AHEAD="false",
        LOG_FORMAT="text",
    )
    short.start()
    try:
        yield short
    finally:
        short.kill()


def test_the_stream_is_opened_again_with_a_new_token_after_it_ends(
    browser: Any, short_streams: Server
) -> None:
    # Each reconnect of EventSource is refused (401: its token expired), and the client
    # asks for a new token.
    with opened(browser, short_streams) as play:
        play.expected.append("EventSource's response has a status 401")
        play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
        play.page.wait_for_function(LIVE)

        def tokens() -> int:
            return sum(r.url.endswith("/stream-token") for r in play.requests)

        first = tokens()
        deadline = time.monotonic() + 20
        while tokens() == first:
            assert time.monotonic() < deadline, "no new stream token after the stream ended"
            play.page.wait_for_timeout(200)
        play.page.wait_for_function(LIVE)
        # A change made elsewhere still reaches the page.
        answer = play.api("POST", f"/games/{play.game_id}/moves", json={"action": "draw"})
        assert answer.status_code == 200
        version = answer.json()["version"]
        play.page.wait_for_function(
            f"() => document.body.dataset.version === '{version}'", timeout=6_000
        )


def test_a_first_visit_deals_no_game_until_asked(play: Play) -> None:
    # The fixture's page is a first visit: a player, no game, a prompt to deal one.
    assert play.page.locator("#first").is_visible()
    assert play.page.locator("#table .pile").count() == 0
    assert play.storage("solitaire.game") is None
    assert play.api("GET", "/games").json()["items"] == []
    play.shot("first-visit-prompt")
    # The client's waits on the clock are its own (no test shortened them here).
    timings = play.page.evaluate("import('/play/timings.js').then(m => ({...m.TIMINGS}))")
    assert timings == DEFAULT_TIMINGS
    stats = play.api("GET", "/players/me/stats").json()
    assert sum(line["played"] for line in stats["variants"]) == 0
    # The prompt's button deals the game chosen above.
    play.page.select_option("#variant", "rows-of-four")
    play.page.click("#first-new")
    play.ready()
    assert play.page.locator("#first").is_hidden()
    assert play.state()["variant"] == "rows-of-four"
    stats = play.api("GET", "/players/me/stats").json()
    assert sum(line["played"] for line in stats["variants"]) == 1


def test_an_error_goes_at_the_next_successful_action(play: Play) -> None:
    play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
    play.page.uncheck("#auto-play")
    play.ready()
    pile = next(p for p in play.state()["piles"] if p["kind"] == "tableau")
    play.click_card(pile["id"], len(pile["cards"]) - 1)
    text, code = play.message()
    assert code == "auto_play_off"
    # A sentence for the player: the server's words, no code (that is data-code's).
    assert text == "Clicks are off for this game (setting auto_play)."
    play.page.click("#draw")
    play.ready()
    # Gone as the draw's answer is shown, not 6 s after the refusal.
    assert play.page.locator("#message").is_hidden()
    play.shot("error-gone-after-a-draw")
    assert play.last_move() == {"action": "draw"}
    # A message over a control (a phone's, above the tool bar) goes at a tap.
    play.click_card(pile["id"], len(pile["cards"]) - 1)
    assert play.message()[1] == "auto_play_off"
    play.page.click("#message")
    assert play.page.locator("#message").is_hidden()


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_a_hint_does_not_move_the_table(browser: Any, server: Server, screen: str) -> None:
    args = PHONE if screen == "phone" else {"viewport": {"width": 1200, "height": 860}}
    with opened(browser, server, **args) as play:
        play.new_game("rank-and-file", "number", DEALS["rank-and-file"])

        def place() -> tuple[float, float, float]:
            box = play.page.locator("#table").bounding_box()
            return box["x"], box["y"], box["width"]

        before = place()
        play.page.click("#hint-button")
        play.ready()
        assert play.page.locator("#hint").is_visible()
        assert place() == before
        play.shot(f"hint-shown-{screen}")
        assert not scrolls_sideways(play)
        play.page.click("#play-hint")
        play.ready()
        assert play.page.locator("#hint").is_hidden()
        assert place() == before


def test_finish_can_be_skipped_to_the_end(play: Play) -> None:
    play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
    play.page.click("#hint-button")
    play.page.locator("#hint").wait_for(state="visible")
    with play.page.expect_response("**/finish") as answered:
        play.page.click("#finish")
    finish = answered.value.json()
    events = sum(len(step["events"]) for step in finish["steps"])
    assert events > 50  # some 60 ms each: seconds of animation
    play.page.locator("#skip").wait_for(state="visible")
    # The hint was for the position before the finish's moves: it goes when they start
    # (on a phone it shared its line with the skip button, cut off).
    assert play.page.locator("#hint").is_hidden()
    skipped = time.monotonic()
    play.page.click("#skip")
    animated = play.animated_events()
    play.page.wait_for_function("() => document.body.dataset.status === 'won'", timeout=1_000)
    play.ready()
    assert time.monotonic() - skipped < 1.5
    assert play.animated_events() - animated <= 1  # none of the events left is drawn moving
    assert play.page.locator("#skip").is_hidden()
    assert play.page.locator("#won").is_visible()
    play.shot("finish-skipped-to-the-win")
    state = play.state()
    assert state["status"] == "won" and play.shown_version() == state["version"]
    assert shown_piles(play, state) == held_piles(state)


def test_no_page_scrolls_sideways_on_a_phone(browser: Any, server: Server) -> None:
    with opened(browser, server, **PHONE) as play:
        assert not scrolls_sideways(play), "the first visit's page"
        for variant in MAIN_GAMES:
            play.new_game(variant, "number", DEALS[variant])
            assert not scrolls_sideways(play), variant
            play.shot(f"phone-{variant}")
        play.page.click("#nav-daily")
        play.ready()
        assert not scrolls_sideways(play), "the daily page"
        play.shot("phone-daily")
        widths = play.page.evaluate(
            "[...document.querySelectorAll('#daily-view table')].map(t => t.scrollWidth)"
        )
        assert max(widths) <= 390
        play.page.click("#daily-prev")
        play.ready()
        assert not scrolls_sideways(play), "a past date's daily page"


def test_the_daily_page_reaches_past_dates(play: Play) -> None:
    play.page.goto(f"{play.server.base_url}/play/#daily")
    play.ready()
    play.page.select_option("#daily-variant", "rainbow")
    play.ready()
    today = play.api("GET", "/daily/rainbow/today").json()["date"]
    assert play.page.input_value("#daily-date") == today
    assert play.page.locator("#daily-next").is_disabled()
    play.page.click("#daily-prev")
    play.ready()
    yesterday = (date.fromisoformat(today) - timedelta(days=1)).isoformat()
    daily = play.api("GET", f"/daily/rainbow/{yesterday}").json()
    assert play.page.input_value("#daily-date") == yesterday
    assert play.page.inner_text("#daily-title") == f"The deal of {yesterday}"
    summary = play.page.inner_text("#daily-summary")
    assert summary.startswith(yesterday) and f"{daily['players']} player" in summary
    assert "practice" in summary and "not played" in play.page.inner_text("#daily-me")
    play.shot("daily-yesterday")
    # Its deal is played as practice: the same game the API gives for that date.
    play.page.click("#daily-play")
    play.ready()
    state = play.state()
    assert state["source"] == "daily" and state["ranked"] is False
    mine = play.api("POST", f"/daily/rainbow/{yesterday}/game")
    assert mine.status_code == 200 and mine.json()["id"] == state["id"]
    # The date picker goes to a date, and the day after comes back to today.
    # The daily view comes back and loads the date it showed (after its hash changes).
    with play.page.expect_response(f"**/api/v1/daily/rainbow/{yesterday}"):
        play.page.click("#nav-daily")
    play.ready()
    before = (date.fromisoformat(today) - timedelta(days=2)).isoformat()
    play.page.fill("#daily-date", before)
    # The page asks for that day once the field changes: wait for it to show it.
    play.page.wait_for_function(
        "day => document.body.dataset.dailyDate === day", arg=before, timeout=TIMEOUT_MS
    )
    play.ready()
    play.page.click("#daily-next")
    play.ready()
    play.page.click("#daily-next")
    play.ready()
    assert play.page.inner_text("#daily-title") == "Today's deal"
    assert play.page.locator("#daily-next").is_disabled()


def test_hint_followed_then_a_solvable_game_finished_to_a_win(play: Play) -> None:
    deadline = time.monotonic() + 180
    while not play.api("GET", "/variants/rank-and-file").json()["solvable_available"]:
        assert time.monotonic() < deadline, "no solvable deal was proven in 3 minutes"
        time.sleep(1)
    play.new_game("rank-and-file", "solvable")
    state = play.state()
    assert state["source"] == "solvable" and state["deal"] is None
    assert play.page.inner_text("#deal") == "solvable deal"

    with play.page.expect_response("**/hint") as answered:
        play.page.click("#hint-button")
    play.ready()
    hint = answered.value.json()
    assert hint["result"] == "solved" and hint["move"] is not None
    assert play.page.locator("#hint").is_visible()
    assert play.page.get_attribute("#hint", "data-result") == "solved"
    if hint["move"]["action"] == "move":
        assert play.pile(hint["move"]["to"]).get_attribute("class").split().count("hint-to") == 1
    play.page.click("#play-hint")
    play.ready()
    assert play.last_move() == hint["move"]
    assert play.state()["assisted"] is True
    assert play.page.locator("#assisted").is_visible()

    # The finish not animated (the speed setting "off"): hundreds of events, and the
    # animation is test_finish_can_be_skipped_to_the_end's.
    play.page.evaluate("localStorage.setItem('solitaire.speed', 'off')")
    play.page.click("#finish")
    play.page.wait_for_function("() => document.body.dataset.status === 'won'", timeout=120_000)
    play.ready()
    state = play.state()
    assert state["status"] == "won"
    assert play.page.locator("#won").is_visible()
    assert play.page.inner_text("#status") == "won"
    # Every card ended on a foundation, on the page as on the server.
    shown = play.page.eval_on_selector_all(".pile.foundation .card", "els => els.length")
    assert shown == sum(len(p["cards"]) for p in state["piles"] if p["kind"] == "foundation")


def test_a_reload_carries_on_with_the_same_player_and_game(play: Play) -> None:
    play.new_game("rainbow", "number", DEALS["rainbow"])
    move = draw_until(play, legal_drop)
    state = play.state()
    source = next(p for p in state["piles"] if p["id"] == move["from"])
    play.drag(move["from"], len(source["cards"]) - move["count"], move["to"])
    token, game = play.storage("solitaire.token"), play.game_id
    play.page.reload()
    play.ready()
    assert (play.storage("solitaire.token"), play.game_id) == (token, game)
    state = play.state()
    assert play.shown_version() == state["version"]
    assert play.page.input_value("#variant") == "rainbow"
    for pile in state["piles"]:
        shown = play.page.eval_on_selector_all(
            f'[data-pile="{pile["id"]}"] .card', "els => els.map(e => e.dataset.code || null)"
        )
        assert shown == [card.get("code") for card in pile["cards"]]


@pytest.mark.parametrize("code", ["solver_busy", "solver_search_in_progress"])
def test_solver_busy_waits_for_retry_after(play: Play, code: str) -> None:
    play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
    asked: list[float] = []

    def busy_once(route: Any) -> None:
        asked.append(time.monotonic())
        if len(asked) == 1:
            route.fulfill(
                status=429,
                headers={"Retry-After": "2", "Content-Type": "application/json"},
                body=json.dumps({"error": {"code": code, "message": "the solver is busy"}}),
            )
        else:
            route.continue_()

    play.page.route("**/api/v1/games/*/hint", busy_once)
    play.page.click("#hint-button")
    text, _ = play.message()
    assert "busy" in text and "2 s" in text
    play.ready()
    assert len(asked) == 2 and asked[1] - asked[0] >= 1.9
    assert play.page.locator("#hint").is_visible()


def test_a_move_whose_answer_is_lost_is_sent_again_and_played_once(play: Play) -> None:
    play.new_game("rows-of-four", "number", DEALS["rows-of-four"])
    before = play.state()
    sent: list[str] = []

    def lose_first_answer(route: Any) -> None:
        sent.append(route.request.headers["idempotency-key"])
        if len(sent) == 1:
            route.fetch()  # the server plays the move; its answer never arrives
            route.abort("connectionreset")
        else:
            route.continue_()

    play.page.route("**/api/v1/games/*/moves", lose_first_answer)
    play.expected.append("net::ERR_CONNECTION_RESET")
    play.page.click("#draw")
    play.ready()
    assert len(sent) == 2 and sent[0] == sent[1]
    after = play.state()
    assert after["move_count"] == before["move_count"] + 1
    assert play.shown_version() == after["version"]
    assert (
        play.page.inner_text("#moves")
        == f"{after['move_count']} move{'s' if after['move_count'] != 1 else ''}"
    )


def test_settings_auto_play_off_refuses_clicks_in_the_servers_words(play: Play) -> None:
    play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
    play.page.uncheck("#auto-play")
    play.ready()
    assert play.state()["settings"]["auto_play"] is False
    play.page.uncheck("#auto-finish")
    play.ready()
    assert play.state()["settings"] == {"auto_play": False, "auto_finish": False}
    state = play.state()
    pile = next(p for p in state["piles"] if p["kind"] == "tableau")
    play.click_card(pile["id"], len(pile["cards"]) - 1)
    _, code = play.message()
    assert code == "auto_play_off"
    assert play.state()["version"] == state["version"]


def test_daily_page_shows_the_day_and_the_players_stats(play: Play) -> None:
    play.page.goto(f"{play.server.base_url}/play/#daily")
    play.ready()
    play.page.select_option("#daily-variant", "rainbow")
    play.ready()
    daily = play.api("GET", "/daily/rainbow/today").json()
    summary = play.page.inner_text("#daily-summary")
    assert daily["date"] in summary and f"{daily['players']} player" in summary
    assert "not played" in play.page.inner_text("#daily-me")

    play.page.click("#daily-play")
    play.ready()
    state = play.state()
    assert state["source"] == "daily" and state["variant"] == "rainbow"
    assert play.page.evaluate("document.body.dataset.view") == "table"
    play.page.click("#draw")
    play.ready()
    assert play.state()["ranked"] is True and play.page.locator("#ranked").is_visible()
    # Undo would take the game out of the ranking: the player is asked first.
    asked: list[str] = []

    def answer(dialog: Any, accept: bool) -> None:
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    play.page.once("dialog", lambda dialog: answer(dialog, accept=False))
    play.page.click("#undo")
    play.ready()
    assert "ranking" in asked[0]
    assert play.state()["move_count"] == 1 and play.state()["ranked"] is True
    play.page.once("dialog", lambda dialog: answer(dialog, accept=True))
    with play.page.expect_response("**/undo"):
        play.page.click("#undo")
    play.ready()
    assert len(asked) == 2 and play.state()["ranked"] is False
    assert play.page.locator("#ranked").is_hidden()
    play.page.click("#draw")
    play.ready()

    play.page.click("#nav-daily")
    play.ready()
    play.page.select_option("#daily-variant", "rainbow")
    play.ready()
    assert "Your game: playing, 1 move, not ranked" in play.page.inner_text("#daily-me")
    stats = play.api("GET", "/players/me/stats").json()
    line = next(v for v in stats["variants"] if v["variant"] == "rainbow")
    row = play.page.locator('#stats tr[data-variant="rainbow"] td').all_inner_texts()
    assert row[1:3] == [str(line["played"]), str(line["won"])] and line["played"] >= 1


def point(at: tuple[float, ...]) -> dict[str, float]:
    return {"x": at[0], "y": at[1]}


@pytest.mark.parametrize("variant", MAIN_GAMES)
def test_a_phone_screen_holds_the_whole_table(browser: Any, server: Server, variant: str) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    session: Play | None = None
    try:
        page = context.new_page()
        page.goto(f"{server.base_url}/play/")
        session = Play(page, server)
        session.ready()
        session.new_game(variant, "number", DEALS[variant])
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, "the table scrolls sideways"
        # Every pile is on the screen, side by side without overlapping.
        boxes = [
            page.locator(f'[data-pile="{p["id"]}"]').bounding_box()
            for p in session.state()["piles"]
        ]
        assert all(b["x"] >= 0 and b["x"] + b["width"] <= 390 for b in boxes)
        # Cards as wide as the piles across allow (ten piles: about 37 px, not 30).
        columns = max(
            sum(p["kind"] == "tableau" for p in session.state()["piles"]),
            sum(p["kind"] != "tableau" for p in session.state()["piles"]),
        )
        card = session.card("tableau-0", 0).bounding_box()
        assert card["width"] >= (390 - 6 - 2 * (columns - 1)) / columns - 0.5
        if columns == 10:
            assert card["width"] >= 36 and card["height"] >= 50
        # A tap on the stock draws.
        before = session.state()["move_count"]
        page.tap('[data-pile="stock"]')
        session.ready()
        assert session.state()["move_count"] == before + 1
        # A drag with a finger plays a move.
        move = draw_until(session, legal_drop)
        state = session.state()
        source = next(p for p in state["piles"] if p["id"] == move["from"])
        card = session.card(move["from"], len(source["cards"]) - move["count"]).bounding_box()
        target = session.pile(move["to"]).bounding_box()
        start = (card["x"] + card["width"] / 2, card["y"] + min(6, card["height"] / 2))
        end = (target["x"] + target["width"] / 2, target["y"] + target["height"] / 2)
        touch = context.new_cdp_session(page)
        touch.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point(start)]}
        )
        for step in range(1, 11):
            at = tuple(a + (b - a) * step / 10 for a, b in zip(start, end, strict=True))
            touch.send(
                "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point(at)]}
            )
        touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        session.ready()
        assert session.state()["move_count"] == state["move_count"] + 1
        assert session.last_move() == move
        session.shot(f"phone-drag-{variant}")
    finally:
        if session is not None:
            session.close()
        context.close()


def resign_in_page(play: Play) -> dict[str, Any]:
    """Resign through the page: a first click arms the button and sends nothing, the
    second resigns. The server's state after it."""
    version = play.state()["version"]
    play.page.click("#resign")
    assert play.page.get_attribute("#resign", "data-confirm") == "1"
    assert play.page.inner_text("#resign") == "Sure? Resign"
    assert play.state()["version"] == version  # nothing sent yet
    with play.page.expect_response("**/resign") as answered:
        play.page.click("#resign")
    play.ready()
    assert answered.value.status == 200
    assert answered.value.request.headers.get("idempotency-key")
    return play.state()


def test_resign_then_a_daily_game_is_analysed_only_once_its_date_is_over(play: Play) -> None:
    play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
    assert play.page.locator("#coach").is_hidden()
    state = resign_in_page(play)
    assert state["status"] == "resigned"
    assert play.page.inner_text("#status") == "resigned"
    for tool in ("#resign", "#undo", "#hint-button", "#finish"):
        assert play.page.locator(tool).is_disabled(), tool
    assert play.page.locator("#analyse").is_visible()
    play.shot("resigned")

    # Today's daily game, resigned: its deal is everyone's until the date is over, so
    # the analysis is refused in the server's words, shown beside the Analyse button.
    play.new_game("rainbow", "daily")
    assert resign_in_page(play)["status"] == "resigned"
    play.page.click("#analyse")
    play.page.wait_for_selector('#coach-text[data-code="daily_not_over"]')
    assert play.page.inner_text("#coach-text")
    assert play.message()[1] == "daily_not_over"
    assert play.page.locator("#move-list").is_hidden()
    play.shot("daily-not-over")


# Canfield deal 1 of seeds/ (as tests/api/test_analysis.py): after the first 24 moves of
# its proven line the position is winnable, and `w>f1` there throws it away.
COACH_GAME, COACH_DEAL, GOOD_MOVES, BAD_MOVE = "canfield", 1, 24, "w>f1"


def test_analysis_marks_the_losing_move_and_its_winning_line_wins_on_a_copy(play: Play) -> None:
    line = seed_line(ROOT / "seeds", COACH_GAME, COACH_DEAL)
    assert line is not None
    # No animation (the speed setting "off"): the line is some 150 moves, played one by one.
    play.page.evaluate("localStorage.setItem('solitaire.speed', 'off')")
    play.new_game(COACH_GAME, "number", COACH_DEAL)
    game_id = play.game_id
    # A game thrown away on purpose, over the API with the page's token, then resigned.
    with elsewhere(play):
        play.api("PATCH", f"/games/{game_id}", json={"settings": {"auto_finish": False}})
        for move in [*line[:GOOD_MOVES], Move.parse(BAD_MOVE)]:
            played = play.api("POST", f"/games/{game_id}/moves", json=move.to_json())
            assert played.status_code == 200, played.text
        assert play.api("POST", f"/games/{game_id}/resign").json()["status"] == "resigned"
    assert play.page.inner_text("#status") == "resigned"

    play.page.click("#analyse")
    play.page.wait_for_selector('#coach[data-state="done"]', timeout=120_000)
    analysis = play.api("GET", f"/games/{game_id}/analysis").json()
    assert analysis["losing_ply"] == GOOD_MOVES + 1
    items = play.page.eval_on_selector_all(
        "#move-list li",
        "els => els.map(e => [Number(e.dataset.ply), e.dataset.verdict,"
        " e.querySelector('.move').dataset.text, e.dataset.losing === '1',"
        " e.querySelector('.move').textContent])",
    )
    log = play.api("GET", f"/games/{game_id}/moves").json()["items"]
    assert [item[0] for item in items] == list(range(GOOD_MOVES + 2))
    assert [item[2] for item in items[1:]] == [entry["text"] for entry in log]
    assert [item[1] for item in items] == ["winnable"] * (GOOD_MOVES + 1) + ["lost"]
    assert [item[0] for item in items if item[3]] == [GOOD_MOVES + 1]
    assert items[GOOD_MOVES + 1][2] == BAD_MOVE
    # Each move in words, piles counted from one: `w>f1` is a card to foundation 2.
    words = items[GOOD_MOVES + 1][4]
    assert words.endswith(" to foundation 2") and words[0] in "A23456789JQK1"
    assert f"Move {GOOD_MOVES + 1} ({words}) lost the game" in play.page.inner_text("#coach-text")
    play.shot("analysis-move-list")

    # The copy: the position before the losing move, a game of its own, marked as practice.
    play.page.click("#practice")
    play.ready()
    copy = play.state()
    assert play.game_id != game_id
    assert copy["status"] == "playing" and copy["move_count"] == GOOD_MOVES
    copy_log = play.api("GET", f"/games/{copy['id']}/moves").json()["items"]
    assert [e["text"] for e in copy_log] == [e["text"] for e in log[:GOOD_MOVES]]
    assert play.page.locator("#practice-bar").is_visible()
    assert copy["practice"] is True and copy["source"] == "practice"
    assert "does not count in your statistics" in play.page.inner_text("#practice-text")
    assert play.page.locator("#practice-game").is_visible()
    play.shot("practice-copy")
    winning = analysis["winning_line"]
    for step in range(len(winning)):
        assert play.page.evaluate("document.body.dataset.practiceNext") == str(step)
        # Clicked where it is, without Playwright's wait for it to stand still: a button
        # still disabled or covered takes no click, and the next step's check fails.
        play.page.click("#practice-next", force=True)
        play.ready()
    state = play.state()
    assert state["status"] == "won" and state["move_count"] == GOOD_MOVES + len(winning)
    # Each step played the line's next move (the log read once: some 150 steps).
    copy_log = play.api("GET", f"/games/{copy['id']}/moves").json()["items"]
    assert [entry["move"] for entry in copy_log[GOOD_MOVES:]] == winning
    assert play.page.inner_text("#status") == "won"
    assert play.page.locator("#practice-next").is_disabled()
    # Practice: the copy, won, counts neither as played nor as won.
    stats = play.api("GET", "/players/me/stats").json()
    (canfield,) = [line for line in stats["variants"] if line["variant"] == COACH_GAME]
    assert canfield["played"] == 1 and canfield["won"] == 0
    play.shot("practice-won")

    # Back to the game: its analysis is shown again.
    play.page.click("#practice-back")
    play.ready()
    assert play.game_id == game_id
    assert play.page.locator("#move-list li.losing").get_attribute("data-ply") == str(
        GOOD_MOVES + 1
    )


@pytest.fixture(scope="module")
def rated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose deals are rated by a stand-in rater (every rating a quarter of the
    deals, by number), so that the pools and the daily deals of all four ratings are
    proven at once."""
    yield from serving(
        tmp_path_factory.mktemp("rated"),
        "rated",
        DIFFICULTY_GAMES="1",
        DIFFICULTY_RATER="tests.api.test_difficulty:by_number",
    )


# ---- what a player sees: sizes, contrast, layout shift, on phones and a desktop


def assert_seen_well(play: Play, where: str, screen: dict[str, Any]) -> dict[str, Any]:
    """The figures of tests/web/figures.js for the page as it is now: every control 44 x
    44 CSS px at least, each face-up card's visible part 24 x 24 (WCAG 2.5.8), no sideways
    scrolling, no text cut off, text contrast 4.5:1 at least, the table's top in the top
    quarter of the screen, the Won box over no control."""
    seen = figures(play.page)
    label = f"{where} at {screen['viewport']}"
    assert seen["small"] == [], label
    assert seen["smallCards"] == [], label
    assert not seen["sideways"], label
    assert seen["cut"] == [], label
    assert seen["lowContrast"] == [], label
    if seen["tableTop"] is not None:
        assert seen["tableTop"] <= screen["viewport"]["height"] / 4, label
    assert seen["covered"] == [], label
    return seen


@pytest.mark.parametrize("name", list(SCREENS))
def test_what_a_player_sees_on_a_phone_and_a_desktop(
    browser: Any, server: Server, name: str
) -> None:
    screen = SCREENS[name]
    width = screen["viewport"]["width"]

    def before(page: Any) -> None:
        page.add_init_script(CLS_INIT)
        page.add_init_script("localStorage.setItem('solitaire.speed', 'off')")

    with opened(browser, server, before=before, **screen) as play:
        play.page.wait_for_timeout(300)  # a shift is reported a frame after it happens
        assert layout_shift(play.page, reset=True) <= 0.05, "loading"
        assert_seen_well(play, "a first visit", screen)

        play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
        play.page.wait_for_timeout(300)
        assert layout_shift(play.page, reset=True) <= 0.05, "dealing"
        assert_seen_well(play, "a new deal", screen)

        # Half its proven line played: long fanned piles of face-up cards.
        play_line(play.page, play.server, 0.45)
        seen = assert_seen_well(play, "half a game", screen)
        fanned = [c for c in seen["cards"] if c["height"] < c["width"] * 1.3]
        assert len(fanned) >= 10 and seen["smallestCard"] >= 24
        play.shot(f"seen-{name}-game")

        # A refusal in the server's words: the message as wide as the screen lets it be.
        play.api("PATCH", f"/games/{play.game_id}", json={"settings": {"auto_play": False}})
        play.page.reload()
        play.ready()
        state = play.state()
        pile = next(p for p in state["piles"] if p["kind"] == "tableau" and p["cards"])
        play.click_card(pile["id"], len(pile["cards"]) - 1)
        _, code = play.message()
        assert code == "auto_play_off"
        seen = assert_seen_well(play, "an error", screen)
        if screen.get("is_mobile"):  # a long message: the screen's width less 8 px a side
            assert seen["messageWidth"] >= width - 16 - 1
        play.shot(f"seen-{name}-error")
        play.api("PATCH", f"/games/{play.game_id}", json={"settings": {"auto_play": True}})

        # Today's daily deal: the "ranked" badge readable.
        play.new_game("rank-and-file", "daily")
        assert play.page.locator("#ranked").is_visible()
        assert_seen_well(play, "a daily game", screen)

        # Won: the Won box under the table, over no control ("Analyse this game" shown).
        play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
        play.page.click("#finish")
        play.page.wait_for_function("() => document.body.dataset.status === 'won'")
        play.ready()
        assert play.page.locator("#won").is_visible()
        assert play.page.locator("#analyse").is_visible()
        assert_seen_well(play, "a won game", screen)
        play.shot(f"seen-{name}-won")
        if screen.get("is_mobile"):
            # The menu opens over the page: nothing under it moves.
            layout_shift(play.page, reset=True)
            open_menu(play.page)
            play.page.wait_for_timeout(300)
            assert layout_shift(play.page) <= 0.05, "the menu"
            assert_seen_well(play, "the menu", screen)
            play.shot(f"seen-{name}-menu")
            play.page.keyboard.press("Escape")
            assert play.page.locator("#menu").is_hidden()
        # The daily page.
        play.page.click("#nav-daily")
        play.ready()
        assert_seen_well(play, "the daily page", screen)
        play.shot(f"seen-{name}-daily")


# ---- languages: the page's own words and the server's, in one language

ENGLISH_ONLY = {  # sources whose translation is the same word in that language
    "de": {"Analyse", "normal", "Analysis"},
    "ru": set(),
    "fr": {"Table", "Analyse", "Date (UTC)", "expert", "six", "pile {number}"},
}


def english_words_shown(page: Any, language: str) -> list[str]:
    """The client's English sources that the page shows as they are (none, in a language
    that translates them)."""
    catalogue = json.loads((ROOT / "app" / "web" / "locales" / f"{language}.json").read_text())
    sources = [
        s
        for s, words in catalogue.items()
        if isinstance(words, str) and words != s and "{" not in s and len(s) > 3
    ]
    shown: list[str] = page.evaluate(
        """sources => {
          const texts = new Set();
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const el = n.parentElement;
            if (!el || el.closest('[lang]:not(html)') || !el.checkVisibility()) continue;
            texts.add(n.nodeValue.replace(/\\s+/g, ' ').trim());
          }
          for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]'))
            for (const a of ['title', 'aria-label', 'placeholder'])
              if (el.getAttribute(a)) texts.add(el.getAttribute(a));
          return sources.filter(s => texts.has(s));
        }""",
        [s for s in sources if s not in ENGLISH_ONLY[language]],
    )
    return shown


def test_the_page_speaks_the_browsers_language_or_the_one_chosen(
    browser: Any, server: Server
) -> None:
    phone = {**SCREENS["phone-360"], "locale": "de-DE"}
    with opened(browser, server, **phone) as play:
        assert play.page.evaluate("document.documentElement.lang") == "de"
        assert play.page.inner_text("#first-new") == "Neues Spiel"
        play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
        assert play.page.inner_text("#undo") == "Zurück"
        assert play.page.inner_text("#status") == "läuft"
        # The API asked in the page's language, not the browser's list ("de-DE,de;q=0.9")
        # (the live stream, an EventSource, sends no header of the page's: it carries states).
        api_calls = [
            r for r in play.requests if "/api/v1/" in r.url and r.resource_type != "eventsource"
        ]
        assert api_calls and {r.headers.get("accept-language") for r in api_calls} == {"de"}
        # The server's refusal in German too: the page mixes no two languages.
        play.api("PATCH", f"/games/{play.game_id}", json={"settings": {"auto_play": False}})
        play.page.reload()
        play.ready()
        state = play.state()
        pile = next(p for p in state["piles"] if p["kind"] == "tableau" and p["cards"])
        play.click_card(pile["id"], len(pile["cards"]) - 1)
        text, code = play.message()
        german = play.api(
            "POST",
            f"/games/{play.game_id}/moves",
            json={"action": "click", "pile": pile["id"], "index": len(pile["cards"]) - 1},
            headers={"Accept-Language": "de"},
        )
        english = play.api(
            "POST",
            f"/games/{play.game_id}/moves",
            json={"action": "click", "pile": pile["id"], "index": len(pile["cards"]) - 1},
        )
        assert german.json()["error"]["message"] != english.json()["error"]["message"]
        assert text.startswith(german.json()["error"]["message"]) and code == "auto_play_off"
        assert english_words_shown(play.page, "de") == []
        play.api("PATCH", f"/games/{play.game_id}", json={"settings": {"auto_play": True}})

        # The chooser: each language in turn, kept across a reload; a screenshot of each.
        for language in ["en", "ru", "fr", "de"]:
            open_menu(play.page)
            play.page.select_option("#language", language)
            play.page.wait_for_load_state()
            play.ready()
            play.page.reload()
            play.ready()
            assert play.page.evaluate("document.documentElement.lang") == language
            assert play.storage("solitaire.language") == language
            play.page.click("#hint-button")
            play.ready()
            if language != "en":
                assert english_words_shown(play.page, language) == []
            # Longer words, on the smallest screen: still nothing cut off nor too small.
            assert_seen_well(play, language, phone)
            open_menu(play.page)
            assert_seen_well(play, f"{language}, the menu", phone)
            play.shot(f"language-{language}-menu")
            play.page.keyboard.press("Escape")
            play.shot(f"language-{language}")
        asked = {
            r.headers.get("accept-language") for r in play.requests if r.resource_type == "fetch"
        }
        assert asked >= {"en", "ru", "fr", "de"}


def test_a_solvable_deal_of_a_chosen_difficulty_shows_its_rating(
    browser: Any, rated: Server
) -> None:
    with opened(browser, rated, viewport={"width": 1200, "height": 860}) as play:
        # Until the pool of that rating has a deal: 503 no_solvable_deals, said so.
        play.expected.append("the server responded with a status of 503")
        play.page.select_option("#variant", "rank-and-file")
        play.page.select_option("#deal-kind", "solvable")
        assert play.page.locator("#difficulty").is_visible()
        play.page.select_option("#difficulty", "hard")
        deadline = time.monotonic() + 120
        while play.storage("solitaire.game") is None:
            assert time.monotonic() < deadline, "no hard deal was dealt in time"
            play.page.click("#new-game-button")
            play.ready()
            play.page.wait_for_timeout(500)
        assert play.state()["difficulty"] == "hard"
        assert play.page.inner_text("#difficulty-shown") == "difficulty: hard"
        play.shot("solvable-hard")


def test_the_daily_page_offers_the_deal_of_each_rating(browser: Any, rated: Server) -> None:
    with opened(browser, rated, viewport={"width": 1200, "height": 860}) as play:
        play.expected.append("the server responded with a status of 503")  # being proven
        # Today's first deal, proven (and rated) on its first game's request.
        deadline = time.monotonic() + 180
        while play.api("POST", "/daily/rank-and-file/today/game").status_code == 503:
            assert time.monotonic() < deadline, "today's deal was not proven in time"
        first = play.api("GET", "/daily/rank-and-file/today").json()
        play.page.goto(f"{rated.base_url}/play/#daily")
        play.ready()
        play.page.select_option("#daily-variant", "rank-and-file")
        play.ready()
        ratings = play.page.locator("#daily-ratings")
        assert ratings.is_visible()
        pressed = '#daily-ratings button[aria-pressed="true"]'
        assert play.page.get_attribute(pressed, "data-rating") == first["difficulty"]
        other = next(r for r in ("expert", "easy") if r != first["difficulty"])
        play.page.click(f'#daily-ratings button[data-rating="{other}"]')
        play.page.wait_for_function(
            "r => document.body.dataset.busy === '0' && document.body.dataset.dailyRating === r",
            arg=other,
            timeout=180_000,
        )
        assert play.page.get_attribute(pressed, "data-rating") == other
        play.shot("daily-rating")
        play.page.click("#daily-play")
        play.ready()
        state = play.state()
        assert state["source"] == "daily" and state["difficulty"] == other
        mine = play.api("POST", f"/daily/rank-and-file/today/game?difficulty={other}")
        assert mine.status_code == 200 and mine.json()["id"] == state["id"]
        first_game = play.api("POST", "/daily/rank-and-file/today/game").json()
        assert first_game["id"] != state["id"]


def thrown_away(play: Play, moves: list[Move]) -> str:
    """A Canfield deal 1 game of these moves (over the API, the auto-finish off), resigned,
    shown again in the page: its id."""
    play.new_game(COACH_GAME, "number", COACH_DEAL)
    game_id = play.game_id
    with elsewhere(play):
        play.api("PATCH", f"/games/{game_id}", json={"settings": {"auto_finish": False}})
        for move in moves:
            played = play.api("POST", f"/games/{game_id}/moves", json=move.to_json())
            assert played.status_code == 200, played.text
        assert play.api("POST", f"/games/{game_id}/resign").json()["status"] == "resigned"
    return game_id


def test_a_game_resigned_while_winnable_is_taken_up_on_a_copy_the_line_plays_to_a_win(
    play: Play,
) -> None:
    line = seed_line(ROOT / "seeds", COACH_GAME, COACH_DEAL)
    assert line is not None
    left = len(line) - 30  # resigned 30 moves short of the proven line's win
    play.page.evaluate("localStorage.setItem('solitaire.speed', 'off')")
    # The line's fast speed faster still (timings.js), read as the page loads again.
    play.page.evaluate("localStorage.setItem('solitaire.timings', '{\"fastLineMs\": 40}')")
    game_id = thrown_away(play, line[:left])
    play.page.click("#analyse")
    play.page.wait_for_selector('#coach[data-state="done"]', timeout=120_000)
    analysis = play.api("GET", f"/games/{game_id}/analysis").json()
    assert analysis["losing_ply"] is None and analysis["winning_line_ply"] == left
    assert "where it was left, it could still be won" in play.page.inner_text("#coach-text")
    assert "where you left it" in play.page.inner_text("#practice")
    play.page.click("#practice")
    play.ready()
    copy = play.state()
    assert copy["practice"] is True and copy["move_count"] == left
    assert "where you left it" in play.page.inner_text("#practice-text")

    # The line plays itself; paused it stops, a step plays one move, then on to the win.
    play.page.select_option("#practice-speed", "fast")
    play.page.click("#practice-play")
    play.page.wait_for_function("() => Number(document.body.dataset.practiceNext) >= 2")
    play.page.click("#practice-play")
    assert play.page.evaluate("document.body.dataset.practicePlaying") == "0"
    play.ready()
    paused = int(play.page.evaluate("document.body.dataset.practiceNext"))
    play.page.wait_for_timeout(600)
    assert int(play.page.evaluate("document.body.dataset.practiceNext")) == paused
    assert play.state()["move_count"] == left + paused
    play.page.click("#practice-next")
    play.ready()
    assert play.page.evaluate("document.body.dataset.practiceNext") == str(paused + 1)
    assert play.last_move() == analysis["winning_line"][paused]
    play.page.click("#practice-play")
    play.page.wait_for_function("() => document.body.dataset.status === 'won'", timeout=60_000)
    play.ready()
    state = play.state()
    assert state["status"] == "won"
    assert state["move_count"] == left + len(analysis["winning_line"])
    play.page.wait_for_function("() => document.body.dataset.practicePlaying === '0'")
    play.shot("practice-line-played-to-a-win")


def test_an_undecided_boundary_offers_a_copy_at_the_last_position_proven_winnable(
    play: Play,
) -> None:
    # The analysis' answer, stubbed: the losing move's boundary left undecided (as a long
    # game's may be), its line from the last position proven winnable.
    line = seed_line(ROOT / "seeds", COACH_GAME, COACH_DEAL)
    assert line is not None
    game_id = thrown_away(play, [*line[:GOOD_MOVES], Move.parse(BAD_MOVE)])

    def undecided(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        if body.get("state") == "done":
            assert body["losing_ply"] == GOOD_MOVES + 1
            body["plies"][GOOD_MOVES + 1]["verdict"] = "undecided"
            body["losing_ply"] = body["losing_move"] = None
        route.fulfill(response=answer, json=body)

    play.page.route(f"**/api/v1/games/{game_id}/analysis", undecided)
    play.page.click("#analyse")
    play.page.wait_for_selector('#coach[data-state="done"]', timeout=120_000)
    text = play.page.inner_text("#coach-text")
    assert "could not decide" in text and f"the last after move {GOOD_MOVES}" in text
    assert f"{GOOD_MOVES + 1} of its positions were proven winnable" in text
    assert (
        play.page.inner_text("#practice")
        == f"Play on from move {GOOD_MOVES}, on a copy (a new game)"
    )
    play.page.click("#practice")
    play.ready()
    copy = play.state()
    assert copy["move_count"] == GOOD_MOVES and copy["practice"] is True
    assert "the last position proven winnable" in play.page.inner_text("#practice-text")
    winning = play.api("GET", f"/games/{game_id}/analysis").json()["winning_line"]
    play.page.click("#practice-next")
    play.ready()
    assert play.last_move() == winning[0]


def test_the_live_sign_shows_a_cut_stream_and_its_return(
    browser: Any, short_streams: Server
) -> None:
    # Streams ended by the server after 1 s: EventSource opens them again, unless cut
    # (then, the stream let through again, its expired token is refused, and the client
    # opens it with a new one). The client's resends of a move that got no answer, and
    # the sign that the stream is back, shortened (timings.js; the defaults are
    # test_a_first_visit_deals_no_game_until_asked's).
    def shorter(page: Any) -> None:
        page.add_init_script(SHORT_TIMINGS)

    with opened(browser, short_streams, shorter) as play:
        play.expected += ["net::ERR_FAILED", "EventSource"]
        play.new_game("rank-and-file", "number", DEALS["rank-and-file"])
        play.page.wait_for_function(LIVE)
        sign = play.page.locator("#live-sign")
        assert sign.is_hidden()
        play.page.route("**/api/v1/games/*/events*", lambda route: route.abort())
        play.page.wait_for_selector('#live-sign[data-state="down"]', timeout=20_000)
        assert "Connection lost" in sign.inner_text()
        play.shot("live-sign-down")
        # An action while it is down says so at once, before its request gives up.
        play.page.route("**/api/v1/games/*/moves", lambda route: route.abort())
        started = time.monotonic()
        play.page.click("#draw")
        play.page.wait_for_selector('#message[data-kind="warn"]', timeout=1_000)
        assert time.monotonic() - started < 1.5
        assert "No live connection" in play.page.inner_text("#message")
        play.ready()
        assert play.message()[1] == "network_error"
        play.page.unroute("**/api/v1/games/*/moves")
        play.page.unroute("**/api/v1/games/*/events*")
        play.page.wait_for_selector('#live-sign[data-state="back"]', timeout=20_000)
        play.page.wait_for_function(LIVE)
        # Live again: a change made elsewhere reaches the page (while the stream just
        # opened is open), and the sign goes a few seconds after it came back.
        answer = play.api("POST", f"/games/{play.game_id}/moves", json={"action": "draw"})
        version = answer.json()["version"]
        play.page.wait_for_function(
            f"() => document.body.dataset.version === '{version}'", timeout=10_000
        )
        sign.wait_for(state="hidden", timeout=10_000)
