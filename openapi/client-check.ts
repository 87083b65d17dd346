// What a front-end writes against the types openapi-typescript generates from
// openapi.json (scripts/check_openapi.sh generates ./schema.d.ts beside a copy of this
// file and runs `tsc --noEmit --strict`): it stops compiling if the document stops
// typing what a client reads, for example an answer left as an untyped map.
import type { components, paths } from "./schema";

type Schemas = components["schemas"];
type GameState = Schemas["GameState"];
type Pile = Schemas["PileOut"];
type MoveAnswer =
  paths["/api/v1/games/{game_id}/moves"]["post"]["responses"]["200"]["content"]["application/json"];
type ErrorAnswer = Schemas["ErrorResponse"];

/** The code of each pile's top card, or null where it lies face down or the pile is empty. */
export function topCodes(state: GameState): (string | null)[] {
  return state.piles.map((pile: Pile) => {
    const top = pile.cards[pile.cards.length - 1];
    return top !== undefined && top.face_up ? top.code : null;
  });
}

/** Foundations, found by their kind (an enum of pile kinds, not a free string). */
export function foundations(state: GameState): Pile[] {
  return state.piles.filter((pile) => pile.kind === "foundation");
}

/** What a move answers: the new version, for the next request's expected_version. */
export function nextVersion(answer: MoveAnswer): number {
  return answer.version;
}

/** The stable error code a client branches on. */
export function errorCode(answer: ErrorAnswer): string {
  return answer.error.code;
}

// --- POST /games: the body is one of its shapes (GameCreate is their union) ----------
type GameCreate = Schemas["GameCreate"];
const record = '[Variant "rank-and-file"]\n[Deal "1"]\n\n*\n';

/** Each shape the server takes compiles. */
export const gameCreateShapes: GameCreate[] = [
  { variant: "rank-and-file", deal: 12345 },
  { variant: "rank-and-file", deal: "99999999999999999999", rules: { foundation_return: true } },
  { variant: "rainbow", solvable: true },
  { variant: "forty-thieves", solvable: true, difficulty: "hard", settings: { auto_finish: false } },
  { record },
  { record, settings: { auto_play: false } },
  { variant: "rank-and-file" },
  { variant: "rank-and-file", deal: null, solvable: false },
];

/** The combinations the server refuses do not. */
export const refusedGameCreates: GameCreate[] = [
  // @ts-expect-error no variant (and no record)
  {},
  // @ts-expect-error a record names its variant
  { record, variant: "rank-and-file" },
  // @ts-expect-error a record names its rules
  { record, rules: { foundation_return: true } },
  // @ts-expect-error a deal by number, or a solvable one: not both
  { variant: "rank-and-file", deal: 5, solvable: true },
  // @ts-expect-error a difficulty only with "solvable": true
  { variant: "rank-and-file", difficulty: "hard" },
  // @ts-expect-error no variant
  { deal: 5, solvable: true },
  // @ts-expect-error no variant
  { difficulty: "easy" },
];

// --- the live stream (GET /api/v1/games/{game_id}/events): its events typed ----------
type StreamAnswer =
  paths["/api/v1/games/{game_id}/events"]["get"]["responses"]["200"]["content"]["text/event-stream"];
type StreamChange = Schemas["StreamChange"];
type GameEvent = Schemas["GameEvent"];
/** An event of the stream with its data parsed, told apart by its name. */
type StreamEvent =
  | { event: "state"; id: string; state: GameState }
  | { event: "change"; id: string; change: StreamChange };

/** An SSE event's fields, as an EventSource or a reader of the stream hands them over,
 * with its `data` parsed into the type the document gives it (no cast). */
export function parseStreamEvent(frame: StreamAnswer): StreamEvent {
  if (frame.event === "state") {
    const state: GameState = JSON.parse(frame.data);
    return { event: "state", id: frame.id, state };
  }
  const change: StreamChange = JSON.parse(frame.data);
  return { event: "change", id: frame.id, change };
}

/** The cards a stream's change turned up, read from its typed events. */
export function cardsTurnedUp(event: StreamEvent): string[] {
  if (event.event === "state") return [];
  return event.change.events.flatMap((step: GameEvent) =>
    step.type === "turn_up" ? [step.card] : [],
  );
}

/** The version to resume from (`Last-Event-ID`, `?since=`) after this event. */
export function resumeFrom(event: StreamEvent): number {
  return event.event === "state" ? event.state.version : event.change.version;
}

// --- what the document says of every answer: bodies, codes and headers (issue 61) ---

type DailyGame = paths["/api/v1/daily/{variant}/{date}/game"]["post"]["responses"];

/** The daily game's answer has the state whether it was created now (201) or before (200),
 * and both carry its ETag. */
export function dailyGame(
  answer: DailyGame["200"]["content"]["application/json"] | DailyGame["201"]["content"]["application/json"],
  headers: DailyGame["200"]["headers"] & DailyGame["201"]["headers"],
): [GameState, string | undefined] {
  return [answer, headers.ETag];
}

type Me = paths["/api/v1/players/me"]["get"]["responses"];
type MeRefusal =
  | Me["401"]["content"]["application/json"]["error"]["code"]
  | Me["429"]["content"]["application/json"]["error"]["code"];

/** An exhaustive switch over what a wrong token gets: 401, or 429 past the address's limit. */
export function afterWrongToken(code: MeRefusal, retryAfter: Me["429"]["headers"]["Retry-After"]): string {
  switch (code) {
    case "unauthorized":
      return "sign in again";
    case "too_many_auth_failures":
      return `wait ${retryAfter ?? 60} s`;
    default: {
      const never: never = code;
      return never;
    }
  }
}

/** Every answer names its request id; a replayed move says so. */
export function requestId(
  headers: Me["200"]["headers"],
  replayed: paths["/api/v1/games/{game_id}/moves"]["post"]["responses"]["200"]["headers"],
): [string | undefined, "true" | undefined] {
  return [headers["X-Request-ID"], replayed["Idempotent-Replayed"]];
}
