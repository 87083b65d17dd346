// A game played through a client generated from openapi.json with the generators'
// default settings (openapi-typescript for the types, openapi-fetch for the calls), as
// an integrator writes it: scripts/check_openapi.sh compiles it with tsc --strict and
// runs it with Node against a server. Every request leaves out what has a default
// (`solvable`, `rules`, `settings` on a new game; `auto_play` beside `auto_finish`; a
// move's `count`), and refusals are read by their typed codes. It calls every operation
// of the document (tests/api/test_play_files.py checks that), each refusal through an
// exhaustive switch over that operation's codes.
import { EventSourceParserStream } from "eventsource-parser/stream";
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

declare const process: { argv: string[]; exitCode?: number };

type Schemas = components["schemas"];
type GameState = Schemas["GameState"];
type StreamChange = Schemas["StreamChange"];
// One event of the live stream, as the document types it: its name, id and JSON text.
type StreamEvent =
  paths["/api/v1/games/{game_id}/events"]["get"]["responses"]["200"]["content"]["text/event-stream"];
type Client = ReturnType<typeof createClient<paths>>;
type GamePath = { game_id: string };
type Headers = Record<string, string>;
type MoveRefusal = NonNullable<
  Awaited<ReturnType<ReturnType<typeof createClient<paths>>["POST"]>>["error"]
>;
// The codes a move can be refused with, as the document lists them for this operation.
type MoveErrorCode =
  paths["/api/v1/games/{game_id}/moves"]["post"]["responses"]["422"]["content"]["application/json"]["error"]["code"];

// @ts-expect-error a misspelt code is not one of the operation's codes
const misspelt: MoveErrorCode = "illegal_mov";
void misspelt;

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`failed: ${what}`);
}

/** What a refused move says, by its code: a new code in the document fails to compile. */
function refusal(code: MoveErrorCode): string {
  switch (code) {
    case "validation_error":
      return "the request is not a move";
    case "illegal_move":
      return "the rules refuse it";
    case "invalid_move":
      return "it cannot be read";
    case "auto_play_off":
      return "clicks are off";
    case "idempotency_key_reused":
      return "the key was used for another move";
  }
}

/** The events of a live stream's body (openapi-fetch's `parseAs: "stream"`), as the
 * document types them; heartbeats are comments, which the parser skips. */
async function* streamEvents(body: ReadableStream<Uint8Array<ArrayBuffer>>): AsyncGenerator<StreamEvent> {
  const messages = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const { done, value } = await messages.read();
      if (done) return;
      const { event, id = "", data } = value;
      if (event === "state" || event === "change") yield { event, id, data };
    }
  } finally {
    await messages.cancel();
  }
}

/** The game's live stream read through openapi-fetch: the state, then a change. */
async function followStream(
  api: ReturnType<typeof createClient<paths>>,
  path: { game_id: string },
  headers: Record<string, string>,
): Promise<void> {
  const opened = await api.GET("/api/v1/games/{game_id}/events", {
    params: { path },
    headers,
    parseAs: "stream", // the default, JSON, would wait for the end of an endless body
  });
  check(opened.data != null, "the stream opens");
  const events = streamEvents(opened.data);
  const first = (await events.next()).value;
  check(first !== undefined && first.event === "state", "the stream starts with the state");
  const state: GameState = JSON.parse(first.data);
  check(String(state.version) === first.id, "the state's id is its version");

  const patched = await api.PATCH("/api/v1/games/{game_id}", {
    params: { path },
    body: { settings: { auto_finish: !state.settings.auto_finish } },
    headers,
  });
  check(patched.data !== undefined, "a setting changed while the stream is open");
  const next = (await events.next()).value;
  check(next !== undefined && next.event === "change", "a change follows");
  const change: StreamChange = JSON.parse(next.data);
  check(change.version === patched.data.version, "the change's version is the new one");
  check(change.state.settings.auto_finish === patched.data.settings.auto_finish, "its state");
  check(change.events.every((event) => typeof event.type === "string"), "its events typed");
  await events.return(undefined); // closes the stream
}

// --- every operation's refusals, by code: one exhaustive switch per operation ---------
// A code the document adds to an operation and its switch does not handle reaches
// `common`, whose parameter does not take it: the client stops compiling.

/** What a client does about a refusal. */
type Advice = "wait and ask again" | "sign in again" | "fix the request" | "not there" | "refused by the game" | "report it";

/** The error codes an operation's answers declare, as a union. */
type Codes<Operation> = Operation extends { responses: infer Answers }
  ? {
      [Status in keyof Answers]: Answers[Status] extends {
        content: { "application/json": { error: { code: infer Code } } };
      }
        ? Code
        : never;
    }[keyof Answers]
  : never;

type Common =
  | "validation_error" | "bad_request" | "request_timeout" | "payload_too_large"
  | "method_not_allowed" | "cors_refused" | "internal_error" | "database_busy"
  | "unauthorized" | "too_many_auth_failures";

/** The codes every operation may answer with (its transport, its token, the database). */
function common(code: Common): Advice {
  switch (code) {
    case "validation_error":
    case "bad_request":
    case "payload_too_large":
    case "method_not_allowed":
    case "cors_refused":
      return "fix the request";
    case "request_timeout":
    case "database_busy":
    case "too_many_auth_failures":
      return "wait and ask again";
    case "unauthorized":
      return "sign in again";
    case "internal_error":
      return "report it";
    default: {
      const never: never = code;
      return never;
    }
  }
}

type Op<Path extends keyof paths, Method extends keyof paths[Path]> = Codes<paths[Path][Method]>;

const refusals = {
  listVariants: (code: Op<"/api/v1/variants", "get">): Advice => common(code),
  getVariant: (code: Op<"/api/v1/variants/{variant_id}", "get">): Advice =>
    code === "variant_not_found" ? "not there" : common(code),
  createPlayer: (code: Op<"/api/v1/players", "post">): Advice => {
    switch (code) {
      case "invalid_client_key":
        return "fix the request";
      case "too_many_players":
        return "wait and ask again";
      default:
        return common(code);
    }
  },
  me: (code: Op<"/api/v1/players/me", "get">): Advice => common(code),
  stats: (code: Op<"/api/v1/players/me/stats", "get">): Advice => common(code),
  listGames: (code: Op<"/api/v1/games", "get">): Advice =>
    code === "invalid_cursor" ? "fix the request" : common(code),
  createGame: (code: Op<"/api/v1/games", "post">): Advice => {
    switch (code) {
      case "unknown_variant":
      case "invalid_deal":
      case "invalid_rules":
      case "invalid_record":
        return "fix the request";
      case "too_many_games":
      case "too_many_solvable_deals":
      case "no_solvable_deals":
      case "server_busy":
        return "wait and ask again";
      default:
        return common(code);
    }
  },
  getGame: (code: Op<"/api/v1/games/{game_id}", "get">): Advice =>
    code === "game_not_found" ? "not there" : common(code),
  updateGame: (code: Op<"/api/v1/games/{game_id}", "patch">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "version_conflict":
        return "refused by the game";
      default:
        return common(code);
    }
  },
  move: (code: Op<"/api/v1/games/{game_id}/moves", "post">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "version_conflict":
      case "game_over":
      case "illegal_move":
      case "auto_play_off":
        return "refused by the game";
      case "invalid_move":
      case "idempotency_key_reused":
        return "fix the request";
      default:
        return common(code);
    }
  },
  undo: (code: Op<"/api/v1/games/{game_id}/undo", "post">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "version_conflict":
      case "game_over":
      case "nothing_to_undo":
        return "refused by the game";
      case "idempotency_key_reused":
        return "fix the request";
      default:
        return common(code);
    }
  },
  resign: (code: Op<"/api/v1/games/{game_id}/resign", "post">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "version_conflict":
      case "game_already_over":
        return "refused by the game";
      case "idempotency_key_reused":
        return "fix the request";
      default:
        return common(code);
    }
  },
  hint: (code: Op<"/api/v1/games/{game_id}/hint", "post">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "game_over":
        return "refused by the game";
      case "solver_busy":
      case "solver_search_in_progress":
        return "wait and ask again";
      default:
        return common(code);
    }
  },
  finish: (code: Op<"/api/v1/games/{game_id}/finish", "post">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "game_over":
      case "no_win_found":
      case "version_conflict":
        return "refused by the game";
      case "solver_busy":
      case "solver_search_in_progress":
      case "server_busy":
        return "wait and ask again";
      default:
        return common(code);
    }
  },
  listMoves: (code: Op<"/api/v1/games/{game_id}/moves", "get">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "invalid_cursor":
        return "fix the request";
      default:
        return common(code);
    }
  },
  record: (code: Op<"/api/v1/games/{game_id}/record", "get">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "record_not_available":
        return "refused by the game";
      default:
        return common(code);
    }
  },
  streamToken: (code: Op<"/api/v1/games/{game_id}/stream-token", "post">): Advice =>
    code === "game_not_found" ? "not there" : common(code),
  events: (code: Op<"/api/v1/games/{game_id}/events", "get">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "too_many_streams":
      case "streams_full":
        return "wait and ask again";
      default:
        return common(code);
    }
  },
  analyse: (code: Op<"/api/v1/games/{game_id}/analysis", "post">): Advice => {
    switch (code) {
      case "game_not_found":
        return "not there";
      case "game_not_over":
      case "daily_not_over":
        return "refused by the game";
      case "too_many_analyses":
        return "wait and ask again";
      default:
        return common(code);
    }
  },
  analysis: (code: Op<"/api/v1/games/{game_id}/analysis", "get">): Advice => {
    switch (code) {
      case "game_not_found":
      case "analysis_not_found":
        return "not there";
      default:
        return common(code);
    }
  },
  practise: (code: Op<"/api/v1/games/{game_id}/analysis/practice", "post">): Advice => {
    switch (code) {
      case "game_not_found":
      case "analysis_not_found":
        return "not there";
      case "game_not_over":
      case "daily_not_over":
      case "analysis_not_done":
        return "refused by the game";
      case "too_many_practice_copies":
      case "server_busy":
        return "wait and ask again";
      default:
        return common(code);
    }
  },
  daily: (code: Op<"/api/v1/daily/{variant}/{date}", "get">): Advice => {
    switch (code) {
      case "daily_not_available":
      case "variant_not_found":
        return "not there";
      default:
        return common(code);
    }
  },
  playDaily: (code: Op<"/api/v1/daily/{variant}/{date}/game", "post">): Advice => {
    switch (code) {
      case "daily_not_available":
      case "variant_not_found":
        return "not there";
      case "too_many_games":
      case "daily_not_ready":
        return "wait and ask again";
      default:
        return common(code);
    }
  },
  dailyResults: (code: Op<"/api/v1/daily/{variant}/{date}/results", "get">): Advice => {
    switch (code) {
      case "daily_not_available":
      case "variant_not_found":
        return "not there";
      case "invalid_cursor":
        return "fix the request";
      default:
        return common(code);
    }
  },
};

/** An answer's body, or a failure that says the refusal's code and what to do about it. */
function answered<Data, Code extends string>(
  what: string,
  result: { data?: Data; error?: { error: { code: Code } }; response: Response },
  advise: (code: Code) => Advice,
): Data {
  if (result.data !== undefined) return result.data;
  const code = result.error?.error.code;
  const advice = code === undefined ? "no error body" : advise(code);
  throw new Error(`${what}: ${result.response.status} ${code ?? ""} (${advice})`);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The variants, the service's health and the player: the operations a client starts with. */
async function start(api: Client): Promise<Record<string, string>> {
  const variants = answered("the variants", await api.GET("/api/v1/variants"), refusals.listVariants);
  check(variants.some((variant) => variant.id === "rank-and-file"), "Rank and File is offered");
  const one = await api.GET("/api/v1/variants/{variant_id}", {
    params: { path: { variant_id: "dress-parade" } },
  });
  check(answered("a variant by its alias", one, refusals.getVariant).id === "rank-and-file", "an alias");
  const unknown = await api.GET("/api/v1/variants/{variant_id}", {
    params: { path: { variant_id: "no-such-game" } },
  });
  const advice = unknown.error ? refusals.getVariant(unknown.error.error.code) : "";
  check(unknown.response.status === 404 && advice === "not there", "an unknown variant is 404");
  // A 503 of /health is no refusal: it has the same body, saying what is down.
  const health = await api.GET("/api/v1/health");
  const report = health.data ?? health.error;
  check(report !== undefined && "status" in report, `health: ${health.response.status}`);
  check(report.status === "ok", "the service is healthy");

  const player = answered("a player", await api.POST("/api/v1/players", { body: {} }), refusals.createPlayer);
  const headers = { Authorization: `Bearer ${player.token}` };
  const me = answered("me", await api.GET("/api/v1/players/me", { headers }), refusals.me);
  check(me.id === player.id && me.name === null, "a player registered without a name");
  return headers;
}

/** A game's stream token, its relative `url` resolved against the API's base. */
async function streamUrl(api: Client, base: string, path: GamePath, headers: Headers): Promise<URL> {
  const token = await api.POST("/api/v1/games/{game_id}/stream-token", { params: { path }, headers });
  const url = new URL(answered("a stream token", token, refusals.streamToken).url, base);
  check(url.pathname.endsWith(`/games/${path.game_id}/events`), `the stream's url ${url}`);
  return url;
}

/** The game finished by the server, its record, its analysis, and a practice copy. */
async function finishAndAnalyse(api: Client, path: GamePath, headers: Headers): Promise<string> {
  const finished = answered(
    "finish",
    await api.POST("/api/v1/games/{game_id}/finish", { params: { path }, headers }),
    refusals.finish,
  );
  check(finished.status === "won" && finished.steps.length > 0, "the server finishes a proven deal");
  const record = answered(
    "the record",
    await api.GET("/api/v1/games/{game_id}/record", { params: { path }, headers }),
    refusals.record,
  );
  check(record.record.includes('[Variant "rank-and-file"]'), "the record names its variant");

  let analysis = answered(
    "an analysis",
    await api.POST("/api/v1/games/{game_id}/analysis", { params: { path }, headers }),
    refusals.analyse,
  );
  for (let wait = 100; analysis.state !== "done"; wait = Math.min(wait * 2, 2000)) {
    await sleep(wait);
    const read = await api.GET("/api/v1/games/{game_id}/analysis", { params: { path }, headers });
    analysis = answered("the analysis", read, refusals.analysis);
  }
  check(analysis.plies.length === analysis.move_count + 1 && analysis.losing_ply === null, "won: nothing lost");
  const copy = answered(
    "a practice copy",
    await api.POST("/api/v1/games/{game_id}/analysis/practice", {
      params: { path },
      body: { ply: 1 },
      headers,
    }),
    refusals.practise,
  );
  check(copy.practice && copy.move_count === 1, "a practice copy after the first move");
  return copy.id;
}

/** Today's daily deal, its game and its results: a deal still being proven says so. */
async function daily(api: Client, headers: Headers): Promise<string> {
  const path = { variant: "rank-and-file", date: "today" };
  for (let attempt = 0; ; attempt++) {
    const game = await api.POST("/api/v1/daily/{variant}/{date}/game", { params: { path }, headers });
    if (game.data !== undefined) {
      check(game.data.source === "daily", "the daily game");
      break;
    }
    const advice = answered("the daily game", game, refusals.playDaily);
    check(attempt < 30 && game.error?.error.code === "daily_not_ready", `the daily game: ${advice}`);
    await sleep(Number(game.response.headers.get("Retry-After") ?? "1") * 1000);
  }
  const deal = answered(
    "the daily deal",
    await api.GET("/api/v1/daily/{variant}/{date}", { params: { path } }),
    refusals.daily,
  );
  const results = answered(
    "the daily results",
    await api.GET("/api/v1/daily/{variant}/{date}/results", { params: { path }, headers }),
    refusals.dailyResults,
  );
  check(results.date === deal.date && deal.players >= 1, "the day's deal and its results");
  return deal.date;
}

async function main(base: string): Promise<void> {
  const api = createClient<paths>({ baseUrl: base });
  const headers = await start(api);

  const created = await api.POST("/api/v1/games", {
    body: { variant: "rank-and-file", deal: 1 },
    headers,
  });
  let state: GameState = answered("a game dealt from a variant and a deal alone", created, refusals.createGame);
  const path = { game_id: state.id };

  const patched = await api.PATCH("/api/v1/games/{game_id}", {
    params: { path },
    body: { settings: { auto_finish: false } },
    headers,
  });
  state = answered("a setting changed", patched, refusals.updateGame);
  check(state.settings.auto_finish === false, "one setting changes alone");
  check(state.settings.auto_play, "the other keeps its value");

  const legal = state.legal_moves.find((move) => move.action === "move");
  const body = legal?.action === "move" ? { action: "move" as const, from: legal.from, to: legal.to } : { action: "draw" as const };
  const moved = await api.POST("/api/v1/games/{game_id}/moves", { params: { path }, body, headers });
  const afterMove = answered("a move without a count", moved, refusals.move);
  check(afterMove.version > state.version, "a move without a count");
  state = afterMove;

  const refused = await api.POST("/api/v1/games/{game_id}/moves", {
    params: { path },
    body: { action: "move", from: "stock", to: "tableau-0" },
    headers,
  });
  const error: MoveRefusal | undefined = refused.error;
  check(error !== undefined && refused.response.status === 422, "a move from the stock is refused");
  check(error.error.code === "illegal_move", `refused as ${error.error.code}`);
  check(refusal(error.error.code).length > 0, "a refusal is read by its code");
  check(refusals.move(error.error.code) === "refused by the game", "and advised on by it");
  check(error.error.reason === "stock_not_playable", `the reason is ${error.error.reason}`);

  const undone = answered(
    "an undo",
    await api.POST("/api/v1/games/{game_id}/undo", { params: { path }, headers }),
    refusals.undo,
  );
  check(undone.move_count === state.move_count - 1, "an undo");

  const hint = answered(
    "a hint",
    await api.POST("/api/v1/games/{game_id}/hint", { params: { path }, headers }),
    refusals.hint,
  );
  check(hint.result === "solved", "a hint on a proven deal");

  // A conditional read: a 304 has no body (openapi-fetch: data undefined, no error).
  const current = await api.GET("/api/v1/games/{game_id}", { params: { path }, headers });
  const tag = current.response.headers.get("ETag");
  const shown = answered("the game", current, refusals.getGame);
  check(tag !== null, "the game and its ETag");
  const again = await api.GET("/api/v1/games/{game_id}", {
    params: { path, header: { "If-None-Match": tag } },
    headers,
  });
  check(again.response.status === 304 && again.data === undefined, "304 when unchanged");

  const url = await streamUrl(api, base, path, headers);
  await followStream(api, path, headers);

  const log = answered(
    "the move log",
    await api.GET("/api/v1/games/{game_id}/moves", { params: { path }, headers }),
    refusals.listMoves,
  );
  check(log.items.length === shown.move_count, "the move log");

  const copy = await finishAndAnalyse(api, path, headers);
  const resigned = answered(
    "a resignation",
    await api.POST("/api/v1/games/{game_id}/resign", { params: { path: { game_id: copy } }, headers }),
    refusals.resign,
  );
  check(resigned.status === "resigned", "the practice copy resigned");
  const date = await daily(api, headers);

  const games = answered("my games", await api.GET("/api/v1/games", { headers }), refusals.listGames);
  check(games.items.length >= 3, "the games played are listed");
  const stats = answered("my statistics", await api.GET("/api/v1/players/me/stats", { headers }), refusals.stats);
  const played = stats.variants.find((variant) => variant.variant === "rank-and-file");
  check(played !== undefined, "the statistics count the games");
  console.log(
    `played ${shown.variant} deal ${shown.deal_str}: ${log.items.length} moves, hint ${hint.result}, ` +
      `finished, analysed, practised and resigned; stream at ${url.pathname}; the daily deal of ${date}; ` +
      `${games.items.length} games listed`,
  );
}

main(process.argv[2] ?? "http://127.0.0.1:8000").catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
