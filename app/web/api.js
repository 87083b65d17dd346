// @ts-check
// The API, as a front-end calls it: one function per operation of docs/api.md, the
// bearer token, an Idempotency-Key on every move, 429 `solver_busy` waited out for
// Retry-After, and every refusal thrown as an ApiError with the server's own words.
// The types are the ones openapi-typescript generates from openapi/openapi.json
// (scripts/check_openapi.sh type-checks this file against them with tsc --checkJs).

/** @typedef {import("./schema").components["schemas"]} Schemas */
/** @typedef {Schemas["GameState"]} GameState */
/** @typedef {Schemas["GameMoveResult"]} MoveAnswer */
/** @typedef {Schemas["UndoResult"]} UndoAnswer */
/** @typedef {Schemas["FinishResult"]} FinishAnswer */
/** @typedef {Schemas["Hint"]} Hint */
/** @typedef {Schemas["VariantOut"]} Variant */
/** @typedef {Schemas["PlayerCreated"]} PlayerCreated */
/** @typedef {Schemas["PlayerOut"]} Player */
/** @typedef {Schemas["PlayerStats"]} PlayerStats */
/** @typedef {Schemas["DailyOut"]} Daily */
/** @typedef {Schemas["DailyResults"]} DailyResults */
/** @typedef {Schemas["GameCreate"]} GameCreate */
/** @typedef {Schemas["GameSettingsPatch"]} SettingsPatch */
/** @typedef {Schemas["StreamToken"]} StreamToken */
/** @typedef {Schemas["Analysis"]} Analysis */
/** @typedef {Schemas["MoveLog"]} MoveLog */
/** @typedef {Schemas["GameRecord"]} GameRecord */
/** @typedef {Schemas["PracticeRequest"]} PracticeRequest */
/** @typedef {Schemas["MoveRequestMove"] | Schemas["DrawRequest"] | Schemas["RedealRequest"] | Schemas["ClickRequest"]} MoveRequest */

import { TIMINGS } from "./timings.js";

const PREFIX = "/api/v1";
/** How many times a request that got no answer at all (the network) is sent again. */
const NETWORK_RETRIES = 3;
/** How many 429 `solver_busy` answers a hint or finish waits out before giving up. */
const BUSY_RETRIES = 5;
/**
 * The refusals a hint, finish or daily game waits out for Retry-After: the pool is full,
 * this player's own search (another tab's, a retried request's) is still running, or a
 * (past) daily deal is still being proven.
 */
const BUSY_CODES = new Set(["solver_busy", "solver_search_in_progress", "daily_not_ready"]);

/** A refusal, as the server worded it: `{"error": {"code", "message", "reason"?}}`. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {string | null} reason
   * @param {number | null} retryAfter seconds, from the Retry-After header
   */
  constructor(status, code, message, reason, retryAfter) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.reason = reason;
    this.retryAfter = retryAfter;
  }
}

/** A random Idempotency-Key (crypto.randomUUID needs a secure context; this does not). */
export function newIdempotencyKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @typedef {object} RequestOptions
 * @property {unknown} [body] sent as JSON
 * @property {boolean} [auth] send the bearer token (default true)
 * @property {boolean} [idempotent] send an Idempotency-Key, the same on every retry
 * @property {boolean} [waitWhenBusy] wait out the BUSY_CODES refusals for Retry-After
 * @property {(seconds: number) => void} [onBusy] told before each such wait
 * @property {Record<string, string | null>} [query] query parameters (null ones left out)
 */

export class Api {
  /** @param {string | null} token */
  constructor(token) {
    /** @type {string | null} */
    this.token = token;
    /**
     * The language the answers' words are asked in (`Accept-Language`): the page's own
     * (i18n.js), so that a page never mixes two; null: the browser's.
     * @type {string | null}
     */
    this.language = null;
  }

  /**
   * @template T
   * @param {string} method
   * @param {string} path
   * @param {RequestOptions} [options]
   * @returns {Promise<T>}
   */
  async request(method, path, options = {}) {
    const { body, auth = true, idempotent = false, waitWhenBusy = false, onBusy, query } = options;
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== null) params.append(name, value);
    }
    const search = params.toString();
    const url = PREFIX + path + (search ? `?${search}` : "");
    /** @type {Record<string, string>} */
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (auth && this.token) headers.Authorization = `Bearer ${this.token}`;
    if (this.language) headers["Accept-Language"] = this.language;
    if (idempotent) headers["Idempotency-Key"] = newIdempotencyKey();
    let networkTries = 0;
    let busyTries = 0;
    for (;;) {
      /** @type {Response} */
      let response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (failure) {
        // No answer: safe to send again only where the key makes a retry play once.
        if ((method === "GET" || idempotent) && networkTries < NETWORK_RETRIES) {
          networkTries += 1;
          await sleep(TIMINGS.resendMs * 2 ** networkTries);
          continue;
        }
        throw new ApiError(0, "network_error", "The server could not be reached.", null, null);
      }
      if (response.ok) return /** @type {T} */ (await response.json());
      const error = await readError(response);
      if (BUSY_CODES.has(error.code) && waitWhenBusy && busyTries < BUSY_RETRIES) {
        busyTries += 1;
        const seconds = error.retryAfter ?? 1;
        if (onBusy) onBusy(seconds);
        await sleep(seconds * 1000);
        continue;
      }
      throw error;
    }
  }

  // Players

  /** @param {string} name @returns {Promise<PlayerCreated>} */
  register(name) {
    return this.request("POST", "/players", { body: { name }, auth: false });
  }

  /** @returns {Promise<Player>} */
  me() {
    return this.request("GET", "/players/me");
  }

  /** @returns {Promise<PlayerStats>} */
  stats() {
    return this.request("GET", "/players/me/stats");
  }

  // Variants

  /** @returns {Promise<Variant[]>} */
  variants() {
    return this.request("GET", "/variants", { auth: false });
  }

  // Games

  /** @param {GameCreate} request @returns {Promise<GameState>} */
  createGame(request) {
    return this.request("POST", "/games", { body: request });
  }

  /** @param {string} gameId @returns {Promise<GameState>} */
  game(gameId) {
    return this.request("GET", `/games/${encodeURIComponent(gameId)}`);
  }

  /**
   * @param {string} gameId
   * @param {SettingsPatch} settings
   * @param {number} expectedVersion
   * @returns {Promise<GameState>}
   */
  updateSettings(gameId, settings, expectedVersion) {
    return this.request("PATCH", `/games/${encodeURIComponent(gameId)}`, {
      body: { settings, expected_version: expectedVersion },
    });
  }

  /**
   * A move, a draw, a redeal or a click, at the version the player saw.
   * @param {string} gameId
   * @param {MoveRequest} move
   * @param {number} expectedVersion
   * @returns {Promise<MoveAnswer>}
   */
  move(gameId, move, expectedVersion) {
    return this.request("POST", `/games/${encodeURIComponent(gameId)}/moves`, {
      body: { ...move, expected_version: expectedVersion },
      idempotent: true,
    });
  }

  /**
   * @param {string} gameId
   * @param {number} expectedVersion
   * @returns {Promise<UndoAnswer>}
   */
  undo(gameId, expectedVersion) {
    return this.request("POST", `/games/${encodeURIComponent(gameId)}/undo`, {
      body: { expected_version: expectedVersion },
      idempotent: true,
    });
  }

  /**
   * Ends a game in play for good (`status: "resigned"`), at the version the player saw;
   * an Idempotency-Key, as for a move, so that a retry resigns once.
   * @param {string} gameId
   * @param {number} expectedVersion
   * @returns {Promise<GameState>}
   */
  resign(gameId, expectedVersion) {
    return this.request("POST", `/games/${encodeURIComponent(gameId)}/resign`, {
      body: { expected_version: expectedVersion },
      idempotent: true,
    });
  }

  /**
   * Asks for the analysis of a game that is over (202 while it runs, 200 once done: the
   * same stored analysis however often it is asked for).
   * @param {string} gameId
   * @returns {Promise<Analysis>}
   */
  analyse(gameId) {
    return this.request("POST", `/games/${encodeURIComponent(gameId)}/analysis`);
  }

  /** @param {string} gameId @returns {Promise<Analysis>} the analysis as it is now */
  analysis(gameId) {
    return this.request("GET", `/games/${encodeURIComponent(gameId)}/analysis`);
  }

  /**
   * A practice copy of an analysed game (docs/api.md, "Practice games"): a new game at
   * the position after `request.ply` of its moves (omitted: the one before its losing
   * move), never ranked nor counted in the statistics.
   * @param {string} gameId
   * @param {PracticeRequest} request
   * @returns {Promise<GameState>}
   */
  practice(gameId, request) {
    return this.request("POST", `/games/${encodeURIComponent(gameId)}/analysis/practice`, {
      body: request,
    });
  }

  /**
   * One page of the game's line of play, the moves after `offset`.
   * @param {string} gameId
   * @param {number} offset
   * @returns {Promise<MoveLog>}
   */
  moveLog(gameId, offset = 0) {
    return this.request("GET", `/games/${encodeURIComponent(gameId)}/moves`, { query: { offset: String(offset) } });
  }

  /**
   * The game as one text (docs/api.md, "Game records"); 409 `record_not_available`
   * while its deal is secret.
   * @param {string} gameId
   * @returns {Promise<GameRecord>}
   */
  record(gameId) {
    return this.request("GET", `/games/${encodeURIComponent(gameId)}/record`);
  }

  /**
   * @param {string} gameId
   * @param {(seconds: number) => void} [onBusy]
   * @returns {Promise<Hint>}
   */
  hint(gameId, onBusy) {
    return this.request("POST", `/games/${encodeURIComponent(gameId)}/hint`, {
      waitWhenBusy: true,
      onBusy,
    });
  }

  /**
   * @param {string} gameId
   * @param {(seconds: number) => void} [onBusy]
   * @returns {Promise<FinishAnswer>}
   */
  finish(gameId, onBusy) {
    return this.request("POST", `/games/${encodeURIComponent(gameId)}/finish`, {
      waitWhenBusy: true,
      onBusy,
    });
  }

  /**
   * A short-lived token that opens the game's live stream (EventSource sends no header):
   * its `url` is the events URL with the token.
   * @param {string} gameId
   * @returns {Promise<StreamToken>}
   */
  streamToken(gameId) {
    return this.request("POST", `/games/${encodeURIComponent(gameId)}/stream-token`);
  }

  // Daily deals: `rating` names the date's deal of that rating (`?difficulty=`, docs/api.md
  // "A deal per rating"); omitted, the date's first deal.

  /**
   * @param {string} variant
   * @param {string} date
   * @param {Rating | null} [rating]
   * @param {(seconds: number) => void} [onBusy] told before waiting for a deal still being proven
   * @returns {Promise<Daily>}
   */
  daily(variant, date, rating = null, onBusy) {
    return this.request("GET", `/daily/${encodeURIComponent(variant)}/${date}`, {
      auth: false,
      query: { difficulty: rating },
      waitWhenBusy: true,
      onBusy,
    });
  }

  /**
   * The caller's game of that day's deal (a past date's is practice); waits out a deal
   * still being proven.
   * @param {string} variant
   * @param {string} date
   * @param {(seconds: number) => void} [onBusy]
   * @param {Rating | null} [rating]
   * @returns {Promise<GameState>}
   */
  playDaily(variant, date, onBusy, rating = null) {
    return this.request("POST", `/daily/${encodeURIComponent(variant)}/${date}/game`, {
      query: { difficulty: rating },
      waitWhenBusy: true,
      onBusy,
    });
  }

  /**
   * @param {string} variant
   * @param {string} date
   * @param {Rating | null} [rating]
   * @returns {Promise<DailyResults>}
   */
  dailyResults(variant, date, rating = null) {
    return this.request("GET", `/daily/${encodeURIComponent(variant)}/${date}/results`, {
      query: { limit: "20", difficulty: rating },
    });
  }
}

/** @typedef {Schemas["Difficulty"]} Rating a deal's rating */

/**
 * The error envelope of an answer that is not 2xx (a proxy's page that is not JSON
 * becomes `http_<status>`).
 * @param {Response} response
 * @returns {Promise<ApiError>}
 */
async function readError(response) {
  const header = response.headers.get("Retry-After");
  const retryAfter = header !== null && /^\d+$/.test(header) ? Number(header) : null;
  try {
    /** @type {Schemas["ErrorResponse"]} */
    const body = await response.json();
    const { code, message, reason } = body.error;
    return new ApiError(response.status, code, message, reason ?? null, retryAfter);
  } catch {
    const message = `The server answered ${response.status} ${response.statusText}.`;
    return new ApiError(response.status, `http_${response.status}`, message, null, retryAfter);
  }
}
