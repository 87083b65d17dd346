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
