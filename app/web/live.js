// @ts-check
// A game's live stream (docs/api.md, "The live stream of a game"), so that a game open in
// two tabs stays in step: a stream token, then an EventSource on its URL; each `state`
// and `change` is handed on. The game is followed while it is in progress. When the
// stream closes for good (a reconnect refused: its token expired, the server restarted)
// a new token is asked for and the stream opened again, waiting longer after each
// failure; EventSource itself reconnects (with Last-Event-ID) after the server ends a
// stream that was open. A stream opened again asks for the changes since the version
// it last sent (`since`), so that they can be animated. It is closed when the game ends or another game is shown.
// body[data-live] is 1 while the stream is open (for the browser tests).
// The player is told when the stream is down (`onLink(false)`): once it has stayed closed
// for DOWN_AFTER_MS (a stream the server ends is opened again within EventSource's own
// 3 s, and says nothing), and when it is back (`onLink(true)`).

/** @typedef {import("./api.js").GameState} GameState */
/** @typedef {import("./model.js").GameEvent} GameEvent */
/** @typedef {import("./schema").components["schemas"]["StreamChange"]} StreamChange */

/** Milliseconds before opening again after a failure, the last one repeated. */
const RETRY_MS = [500, 1000, 2000, 5000, 15000, 30000];
/** Milliseconds a stream stays closed before the player is told it is down. */
const DOWN_AFTER_MS = 4000;

export class Follow {
  /**
   * @param {import("./api.js").Api} api
   * @param {(state: GameState, events: GameEvent[] | null) => void} onState told each
   *   state the stream sends, with the events that led to it when the stream has them
   * @param {(up: boolean | null) => void} [onLink] told that the stream is down (false),
   *   back (true), or no longer followed (null)
   */
  constructor(api, onState, onLink = () => {}) {
    this.api = api;
    this.onState = onState;
    this.onLink = onLink;
    /** true once the player was told the stream is down, until it is open again */
    this.down = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.downTimer = undefined;
    /** @type {string | null} the game followed */
    this.gameId = null;
    /** @type {EventSource | null} */
    this.source = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.failures = 0;
    /** @type {number | null} the version of the last state the stream sent */
    this.version = null;
  }

  /**
   * Follows the game of this state while it is in progress (a game followed already
   * goes on as it is); stops following at its end.
   * @param {GameState} state
   */
  follow(state) {
    if (state.status !== "playing") {
      this.stop();
      return;
    }
    if (this.gameId === state.id) return;
    this.stop();
    this.gameId = state.id;
    this.failures = 0;
    this.version = state.version;
    this.open(state.id);
  }

  stop() {
    this.gameId = null;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.source) this.source.close();
    this.source = null;
    document.body.dataset.live = "0";
    clearTimeout(this.downTimer);
    this.downTimer = undefined;
    if (this.down) this.onLink(null);
    this.down = false;
  }

  /** The stream closed: the player is told if it stays so for DOWN_AFTER_MS. */
  lost() {
    if (this.down || this.downTimer !== undefined) return;
    this.downTimer = setTimeout(() => {
      this.downTimer = undefined;
      if (this.gameId === null || document.body.dataset.live === "1") return;
      this.down = true;
      this.onLink(false);
    }, DOWN_AFTER_MS);
  }

  /** The stream is open. */
  found() {
    clearTimeout(this.downTimer);
    this.downTimer = undefined;
    if (!this.down) return;
    this.down = false;
    this.onLink(true);
  }

  /** @param {string} gameId */
  async open(gameId) {
    let url;
    try {
      url = (await this.api.streamToken(gameId)).url;
    } catch {
      if (this.gameId === gameId) {
        this.lost();
        this.retry(gameId);
      }
      return;
    }
    if (this.gameId !== gameId) return; // another game was shown meanwhile
    // A new EventSource sends no Last-Event-ID: `since` resumes from the version held.
    const since = this.version === null ? "" : `&since=${this.version}`;
    const source = new EventSource(url + since);
    this.source = source;
    source.addEventListener("open", () => {
      this.failures = 0;
      document.body.dataset.live = "1";
      this.found();
    });
    source.addEventListener("state", (event) => {
      /** @type {GameState} */
      const state = JSON.parse(event.data);
      this.version = state.version;
      this.onState(state, null);
    });
    source.addEventListener("change", (event) => {
      /** @type {StreamChange} */
      const change = JSON.parse(event.data);
      this.version = change.version;
      this.onState(change.state, change.events.length ? change.events : null);
    });
    source.addEventListener("error", () => {
      if (this.source !== source) return;
      document.body.dataset.live = "0";
      this.lost();
      // CONNECTING: EventSource reconnects by itself. CLOSED: it gave up; a new token.
      if (source.readyState === EventSource.CLOSED) {
        this.source = null;
        this.retry(gameId);
      }
    });
  }

  /** @param {string} gameId */
  retry(gameId) {
    const wait = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)];
    this.failures += 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.gameId === gameId) this.open(gameId);
    }, wait);
  }
}
