// @ts-check
// The coach (docs/api.md, "Analysis of a finished game"): the analysis of a game that is
// over, asked for once and read again until it is done; the game's move list with the
// verdict of each position and the losing move marked; and a practice copy (`POST
// /games/{id}/analysis/practice`: a game of its own, never ranked nor counted in the
// statistics) at the position where the analysis' winning line starts: before the losing
// move, or, where no move lost the game, where it was left (resigned while winnable) or
// the last position proven winnable (the boundary undecided). On the copy the line is
// played a move at a time, or plays itself at a chosen speed.
// Type-checked against the API's types like api.js (scripts/check_openapi.sh).

import { t } from "./i18n.js";
import { moveInWords } from "./model.js";
import { TIMINGS } from "./timings.js";

/** @typedef {import("./api.js").Api} Api */
/** @typedef {import("./api.js").Analysis} Analysis */
/** @typedef {import("./api.js").Schemas["MoveLogEntry"]} LogEntry */
/** @typedef {import("./api.js").Schemas["PlyVerdict"]["verdict"]} Verdict */

/** Milliseconds between reads of an analysis still running: longer each time, the last repeated. */
const POLL_MS = [300, 500, 800, 1200, 2000, 3000];

/** How each verdict is marked on the move list, and said in words. */
const MARKS = {
  winnable: { mark: "✓", words: () => t("could still be won") },
  lost: { mark: "✗", words: () => t("lost") },
  undecided: { mark: "?", words: () => t("undecided") },
};

/**
 * A logged move in words (model.js `moveInWords`): its cards read off its events.
 * @param {LogEntry} entry
 */
function entryInWords(entry) {
  const moved = entry.events.find((e) => e.type === "move");
  const cards = moved && moved.type === "move" ? (moved.cards ?? null) : null;
  return moveInWords(entry.move, cards);
}

/** Milliseconds between the moves of a line that plays itself, by the speed chosen. */
export const LINE_SPEEDS = { slow: 1500, normal: 600, fast: TIMINGS.fastLineMs };

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asks for the analysis (202 while it runs, 200 once done), then reads it again, waiting
 * longer each time, until it is done.
 * @param {Api} api
 * @param {string} gameId
 * @param {(analysis: Analysis) => void} onProgress told each answer still pending or running
 * @param {() => boolean} wanted false once nobody waits for it (another game shown): stop
 * @returns {Promise<Analysis | null>} null when stopped
 */
export async function analyse(api, gameId, onProgress, wanted) {
  let analysis = await api.analyse(gameId);
  for (let tries = 0; analysis.state !== "done"; tries += 1) {
    onProgress(analysis);
    await sleep(POLL_MS[Math.min(tries, POLL_MS.length - 1)]);
    if (!wanted()) return null;
    analysis = await api.analysis(gameId);
  }
  return analysis;
}

/** @param {Analysis} analysis @returns {string} the progress of one still running */
export function progressText(analysis) {
  const positions = analysis.move_count + 1;
  let state = t("running");
  if (analysis.state === "pending") {
    state = analysis.place
      ? t("waiting for the solver, {place} ahead", { place: analysis.place })
      : t("waiting for the solver");
  }
  return t("Analysing ({state}): {decided} of {positions} positions decided, {searched} searched.", {
    state,
    decided: analysis.decided,
    positions,
    searched: analysis.positions.toLocaleString(),
  });
}

/**
 * The whole line of play, a page at a time (a game that is over no longer changes).
 * @param {Api} api
 * @param {string} gameId
 * @returns {Promise<LogEntry[]>}
 */
export async function lineOfPlay(api, gameId) {
  /** @type {LogEntry[]} */
  const entries = [];
  let offset = 0;
  for (;;) {
    const page = await api.moveLog(gameId, offset);
    entries.push(...page.items);
    if (page.next_offset === null) return entries;
    offset = page.next_offset;
  }
}

/**
 * Where the analysis' winning line starts, and why there: `losing` (the position before
 * the losing move), `left` (no move lost the game: where it was left), `proven` (the
 * boundary undecided: the last position proven winnable); null without a line.
 * @param {Analysis} analysis
 * @returns {{ ply: number, kind: "losing" | "left" | "proven" } | null}
 */
export function lineStart(analysis) {
  const ply = analysis.winning_line_ply;
  if (ply === null || ply === undefined || analysis.winning_line === null) return null;
  if (analysis.losing_ply !== null) return { ply, kind: "losing" };
  return { ply, kind: ply === analysis.move_count ? "left" : "proven" };
}

/**
 * What the analysis found, in a sentence.
 * @param {Analysis} analysis
 * @param {LogEntry[]} entries
 */
export function summary(analysis, entries) {
  const ply = analysis.losing_ply;
  if (ply === 0) return t("The deal itself cannot be won: no move lost this game.");
  const count = (analysis.winning_line ?? []).length;
  if (ply !== null) {
    const entry = entries.find((e) => e.seq === ply);
    const move = entry
      ? t("Move {number} ({move})", { number: ply, move: entryInWords(entry) })
      : t("Move {number}", { number: ply });
    return t("{move} lost the game: before it, it could still be won, in {count} more moves.", {
      move,
      count,
    });
  }
  const start = lineStart(analysis);
  if (start && start.kind === "left") {
    return t(
      "No move lost this game: where it was left, it could still be won, in {count} more moves. Take it up on a copy to see how.",
      { count },
    );
  }
  const unsure = analysis.plies.some((p) => p.verdict !== "winnable");
  if (unsure && start) {
    const proven = analysis.plies.filter((p) => p.verdict === "winnable").length;
    return t(
      "The solver could not decide, within its budget, where this game was lost; {proven} of its positions were proven winnable, the last after move {ply}. Take it up there on a copy: it wins in {count} more moves.",
      { proven, ply: start.ply, count },
    );
  }
  return unsure
    ? t("The solver could not decide, within its budget, where this game was lost.")
    : t("No move lost this game: every position on its way could be won.");
}

/**
 * The words of the button that makes the practice copy.
 * @param {{ ply: number, kind: "losing" | "left" | "proven" }} start
 */
export function copyButtonText(start) {
  if (start.kind === "left") return t("Play on from where you left it, on a copy (a new game)");
  if (start.kind === "proven") return t("Play on from move {ply}, on a copy (a new game)", { ply: start.ply });
  return t("Play the winning line on a copy (a new game)");
}

/**
 * The move list: the deal, then each move with the verdict of the position it led to;
 * the losing move marked (`.losing`, `data-losing`).
 * @param {HTMLElement} list an `<ol>`
 * @param {Analysis} analysis
 * @param {LogEntry[]} entries
 */
export function showMoveList(list, analysis, entries) {
  /** @type {Map<number, Verdict>} */
  const verdicts = new Map(analysis.plies.map((p) => [p.ply, p.verdict]));
  list.replaceChildren(moveItem(0, t("deal"), verdicts.get(0), false));
  for (const entry of entries) {
    const losing = entry.seq === analysis.losing_ply;
    list.append(moveItem(entry.seq, entryInWords(entry), verdicts.get(entry.seq), losing, entry.text));
  }
}

/**
 * @param {number} ply
 * @param {string} text
 * @param {Verdict | undefined} verdict of the position after the move
 * @param {boolean} losing
 * @param {string} [code] the move as the log writes it (`t2>t5x3`), kept in `data-text`
 */
function moveItem(ply, text, verdict, losing, code = "") {
  const item = document.createElement("li");
  item.dataset.ply = String(ply);
  const number = document.createElement("span");
  number.className = "ply";
  number.textContent = ply === 0 ? "" : `${ply}.`;
  const move = document.createElement("span");
  move.className = "move";
  move.textContent = text;
  if (code) move.dataset.text = code;
  item.append(number, move);
  if (verdict) {
    item.dataset.verdict = verdict;
    const mark = document.createElement("span");
    mark.className = "verdict";
    mark.textContent = MARKS[verdict].mark;
    item.append(mark);
    const when = ply === 0 ? t("The deal") : t("After move {number}", { number: ply });
    item.title = t("{when}: {verdict}", { when, verdict: MARKS[verdict].words() });
  }
  if (losing) {
    item.classList.add("losing");
    item.dataset.losing = "1";
    // play.css shows it after the move (::after, attr()).
    item.dataset.losingText = t("losing move");
    item.title = t("{title} (the losing move)", { title: item.title });
  }
  return item;
}

/**
 * Makes the practice copy of an analysed game at the position where the analysis'
 * winning line starts (`ply`, its `winning_line_ply`); the line is played as the
 * analysis found it, without the auto-finish.
 * @param {Api} api
 * @param {string} gameId of a game whose analysis is done, with a winning line
 * @param {number} ply
 * @returns {Promise<{ copy: import("./api.js").GameState, start: number }>}
 */
export async function practiceCopy(api, gameId, ply) {
  const copy = await api.practice(gameId, { ply, settings: { auto_finish: false } });
  return { copy, start: copy.move_count };
}
