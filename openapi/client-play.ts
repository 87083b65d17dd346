// A game played through a client generated from openapi.json with the generators'
// default settings (openapi-typescript for the types, openapi-fetch for the calls), as
// an integrator writes it: scripts/check_openapi.sh compiles it with tsc --strict and
// runs it with Node against a server. Every request leaves out what has a default
// (`solvable`, `rules`, `settings` on a new game; `auto_play` beside `auto_finish`; a
// move's `count`), and refusals are read by their typed codes.
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

async function main(base: string): Promise<void> {
  const api = createClient<paths>({ baseUrl: base });
  const player = await api.POST("/api/v1/players", { body: {} });
  check(player.data !== undefined, "a player is registered without a name");
  const headers = { Authorization: `Bearer ${player.data.token}` };

  const created = await api.POST("/api/v1/games", {
    body: { variant: "rank-and-file", deal: 1 },
    headers,
  });
  check(created.data !== undefined, "a game is dealt from a variant and a deal alone");
  let state: GameState = created.data;
  const path = { game_id: state.id };

  const patched = await api.PATCH("/api/v1/games/{game_id}", {
    params: { path },
    body: { settings: { auto_finish: false } },
    headers,
  });
  check(patched.data?.settings.auto_finish === false, "one setting changes alone");
  check(patched.data.settings.auto_play, "the other keeps its value");
  state = patched.data;

  const legal = state.legal_moves.find((move) => move.action === "move");
  const body = legal?.action === "move" ? { action: "move" as const, from: legal.from, to: legal.to } : { action: "draw" as const };
  const moved = await api.POST("/api/v1/games/{game_id}/moves", { params: { path }, body, headers });
  check(moved.data !== undefined && moved.data.version > state.version, "a move without a count");
  state = moved.data;

  const refused = await api.POST("/api/v1/games/{game_id}/moves", {
    params: { path },
    body: { action: "move", from: "stock", to: "tableau-0" },
    headers,
  });
  const error: MoveRefusal | undefined = refused.error;
  check(error !== undefined && refused.response.status === 422, "a move from the stock is refused");
  check(error.error.code === "illegal_move", `refused as ${error.error.code}`);
  check(refusal(error.error.code).length > 0, "a refusal is read by its code");
  check(error.error.reason === "stock_not_playable", `the reason is ${error.error.reason}`);

  const undone = await api.POST("/api/v1/games/{game_id}/undo", { params: { path }, headers });
  check(undone.data !== undefined && undone.data.move_count === state.move_count - 1, "an undo");

  const hint = await api.POST("/api/v1/games/{game_id}/hint", { params: { path }, headers });
  check(hint.data !== undefined && hint.data.result === "solved", "a hint on a proven deal");

  // A conditional read: a 304 has no body (openapi-fetch: data undefined, no error).
  const current = await api.GET("/api/v1/games/{game_id}", { params: { path }, headers });
  const tag = current.response.headers.get("ETag");
  check(current.data !== undefined && tag !== null, "the game and its ETag");
  const again = await api.GET("/api/v1/games/{game_id}", {
    params: { path, header: { "If-None-Match": tag } },
    headers,
  });
  check(again.response.status === 304 && again.data === undefined, "304 when unchanged");

  await followStream(api, path, headers);

  const log = await api.GET("/api/v1/games/{game_id}/moves", { params: { path }, headers });
  check(log.data !== undefined && log.data.items.length === current.data.move_count, "the move log");
  console.log(`played ${current.data.variant} deal ${current.data.deal_str}: ${log.data.items.length} moves, hint ${hint.data.result}`);
}

main(process.argv[2] ?? "http://127.0.0.1:8000").catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
