// The client's controller: a player (token kept in localStorage), the current game
// (its id kept too, so a reload carries on), the new-game form, the tool bar, the daily
// page. Every change goes through the API (api.js); every answer's events are animated
// (render.js) and then its state is drawn as the truth. The game's live stream (live.js)
// brings the changes made elsewhere (another tab), drawn the same way. Once a game is
// over, the coach (coach.js) shows its analysis and plays the winning line on a copy.

import { Api, ApiError } from "./api.js";
import {
  LINE_SPEEDS,
  analyse,
  copyButtonText,
  lineOfPlay,
  lineStart,
  practiceCopy,
  progressText,
  showMoveList,
  summary,
} from "./coach.js";
import { attachInput } from "./input.js";
import { Follow } from "./live.js";
import { currentLanguage, keepLanguage, loadLanguage, preferredLanguage, t, translatePage } from "./i18n.js";
import { describeMove, differences, replays } from "./model.js";
import { Table } from "./render.js";
import { TIMINGS } from "./timings.js";

const STORE = {
  token: "solitaire.token",
  game: "solitaire.game",
  variant: "solitaire.variant",
  speed: "solitaire.speed",
  lineSpeed: "solitaire.lineSpeed",
};
/** Milliseconds per animated event, by the speed setting; finish plays faster. */
const SPEEDS = { normal: 180, fast: 60, off: 0 };
/** An animation longer than this (ms) offers to skip to its end. */
const SKIPPABLE_MS = 1000;
/** How long (ms) a first click on Resign waits for the second that confirms it. */
const RESIGN_CONFIRM_MS = 4000;
/** The statuses of a game that is over (a stuck one still takes an undo). */
const OVER = new Set(["won", "stuck", "resigned"]);

const $ = (id) => document.getElementById(id);

const api = new Api(localStorage.getItem(STORE.token));
const table = new Table($("table"));
const app = {
  variants: [],
  game: null,
  hint: null,
  busy: false,
  mismatches: 0,
  /** The newest change the live stream brought while an action ran: drawn after it. */
  pending: null,
  /** The daily page's date (`YYYY-MM-DD`), null for today; and today's, once known. */
  dailyDate: null,
  today: null,
  /**
   * The daily page's rating (`easy` ... `expert`: that rating's deal of the date), null
   * for the date's first deal; and whether the server rates its deals (the first deal
   * has a `difficulty`).
   */
  dailyRating: null,
  rated: false,
  /** The game whose analysis is being waited for (its id), else null. */
  analysing: null,
  /** The last analysis done: `{ gameId, analysis, entries }` (entries: its move log). */
  coach: null,
  /**
   * The practice copy: `{ gameId, of, start, kind, line, next, playing }`: the copy's id,
   * the analysed game's, the moves dealt again (where the winning line starts), why there
   * (coach.js `lineStart`), the winning line, how many of its moves were played, and
   * whether it plays itself.
   */
  practice: null,
};
const live = new Follow(api, fromStream, showLink);

function variantOf(id) {
  return app.variants.find((v) => v.id === id);
}

function speed() {
  return SPEEDS[localStorage.getItem(STORE.speed) ?? "normal"] ?? SPEEDS.normal;
}

// ---- messages

let messageTimer = null;

function say(text, kind = "info") {
  const box = $("message");
  box.replaceChildren(text);
  box.dataset.kind = kind;
  delete box.dataset.code;
  delete box.dataset.reason;
  box.hidden = false;
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => (box.hidden = true), kind === "error" ? 6000 : 3500);
}

/** An error shown goes once an action succeeds (its message would be about the past). */
function clearError() {
  const box = $("message");
  if (box.hidden || box.dataset.kind !== "error") return;
  clearTimeout(messageTimer);
  box.hidden = true;
}

/**
 * A refusal as a sentence for the player: the server's own message (in the page's
 * language, by Accept-Language), first letter up and a full stop. Its code and reason,
 * what a developer searches for, go to the box's data-code and data-reason and the
 * console, never into the words.
 */
function sayError(error) {
  if (!(error instanceof ApiError)) {
    console.error(error);
    say(t("Something went wrong on this page: reload it to go on."), "error");
    return;
  }
  const box = $("message");
  say(sentence(error.message), "error");
  box.dataset.code = error.code;
  if (error.reason) box.dataset.reason = error.reason;
  console.info(`refused: ${error.status} ${error.code}${error.reason ? ` (${error.reason})` : ""}`);
}

/** A message as a sentence: its first letter up, ending with a full stop. */
function sentence(text) {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const upper = trimmed[0].toLocaleUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(upper) ? upper : `${upper}.`;
}

// ---- the live connection's sign

let linkTimer = null;

/**
 * The sign of the game's live connection (live.js): shown while it is down, then for a
 * few seconds once it is back; hidden when no game is followed (`up` null).
 */
function showLink(up) {
  const sign = $("live-sign");
  clearTimeout(linkTimer);
  document.body.dataset.link = up === false ? "down" : "up";
  if (up === null) {
    sign.hidden = true;
    return;
  }
  sign.dataset.state = up ? "back" : "down";
  sign.textContent = up
    ? t("Connected again: the table is up to date.")
    : t("Connection lost: trying to reconnect. Changes made elsewhere are not shown meanwhile.");
  sign.hidden = false;
  if (up) linkTimer = setTimeout(() => (sign.hidden = true), TIMINGS.backSignMs);
}

// ---- one action at a time

function setBusy(busy) {
  app.busy = busy;
  document.body.dataset.busy = busy ? "1" : "0";
  updateTools();
}

async function run(action) {
  if (app.busy) return;
  if (live.down && document.body.dataset.view === "table") {
    // Said at once, not after the request's own retries fail.
    say(t("No live connection to the server: this may not be the game as it is now. Trying anyway..."), "warn");
  }
  setBusy(true);
  try {
    await action();
    clearError();
  } catch (error) {
    await recover(error);
  } finally {
    setBusy(false);
  }
  if (app.pending) {
    const { state, events } = app.pending;
    app.pending = null;
    fromStream(state, events);
  }
}

/**
 * After a refusal: say it. Where the game changed elsewhere (another tab) the move was
 * made on a position no longer there: show the position now, and say nothing was played.
 */
async function recover(error) {
  if (error instanceof ApiError && error.code === "version_conflict" && app.game) {
    show(await api.game(app.game.id));
    say(t("This game changed elsewhere (another tab?): here it is now. Nothing was played."));
    return;
  }
  sayError(error);
  if (!(error instanceof ApiError) || !app.game) return;
  if (error.code === "unauthorized") {
    // The server no longer knows the token (a new database): start over as a new player.
    api.token = null;
    localStorage.removeItem(STORE.token);
    localStorage.removeItem(STORE.game);
    await ensurePlayer();
  }
}

// ---- the game shown

/** A game's status in words. */
function statusWords(status) {
  const words = { playing: t("playing"), won: t("won"), stuck: t("stuck"), resigned: t("resigned") };
  return words[status] ?? status;
}

/** Where a game's deal came from, in words (when the API does not show its number). */
function sourceWords(source) {
  const words = {
    random: t("random deal"),
    solvable: t("solvable deal"),
    daily: t("daily deal"),
    deal: t("chosen deal"),
    practice: t("practice deal"),
  };
  return words[source] ?? source;
}

/** A difficulty in words. */
function difficultyWords(level) {
  const words = { easy: t("easy"), medium: t("medium"), hard: t("hard"), expert: t("expert") };
  return words[level] ?? level;
}

function show(state) {
  app.game = state;
  $("first").hidden = true;
  const variant = variantOf(state.variant);
  localStorage.setItem(STORE.game, state.id);
  localStorage.setItem(STORE.variant, state.variant);
  table.show(state, variant);
  $("game-name").textContent = variant ? variant.name : state.variant;
  $("deal").textContent = state.deal_str ? t("deal {number}", { number: state.deal_str }) : sourceWords(state.source);
  const status = $("status");
  status.textContent = statusWords(state.status);
  status.dataset.status = state.status;
  document.body.dataset.status = state.status;
  document.body.dataset.version = String(state.version);
  $("moves").textContent = t("{count} moves", { count: state.move_count });
  $("redeals").textContent =
    variant && variant.stock.redeals !== 0
      ? state.redeals_left === null
        ? t("redeals left: unlimited")
        : t("redeals left: {number}", { number: state.redeals_left })
      : "";
  $("assisted").hidden = !state.assisted;
  $("practice-game").hidden = !state.practice;
  // A proven deal's rating, once the server shows it (asked for, or the game is over).
  $("difficulty-shown").hidden = !state.difficulty;
  $("difficulty-shown").textContent = state.difficulty
    ? t("difficulty: {level}", { level: difficultyWords(state.difficulty) })
    : "";
  $("ranked").hidden = !state.ranked;
  $("auto-play").checked = state.settings.auto_play;
  $("auto-finish").checked = state.settings.auto_finish;
  $("won").hidden = state.status !== "won";
  $("won-text").textContent = state.assisted
    ? t("Won in {count} moves (with help).", { count: state.move_count })
    : t("Won in {count} moves.", { count: state.move_count });
  if (state.status === "stuck") say(t("No card can be played any more: draw to the end, or undo."));
  setHint(null);
  disarmResign();
  showCoach();
  showPractice();
  updateTools();
  live.follow(state);
}

/**
 * A state the live stream sent: a change made elsewhere (a change this tab made is seen
 * in its own answer first). Animated from its events when they lead from the piles shown
 * to it, else drawn as it is; kept for later while an action runs.
 */
function fromStream(state, events) {
  if (!app.game || state.id !== app.game.id || state.version <= app.game.version) return;
  if (app.busy) {
    app.pending = { state, events };
    return;
  }
  run(async () => {
    // A long line (another tab's finish or auto-finish) at most at the finish's speed.
    const long = events !== null && events.length > 3;
    const duration = long ? Math.min(speed(), SPEEDS.fast) : speed();
    if (events && replays(table.model, events, state)) await answer(state, events, duration);
    else show(state);
  });
}

function updateTools() {
  const game = app.game;
  const legal = game ? game.legal_moves : [];
  const playing = game !== null && game.status !== "won" && game.status !== "resigned";
  $("draw").disabled = app.busy || !playing || !legal.some((m) => m.action === "draw");
  $("redeal").disabled = app.busy || !playing || !legal.some((m) => m.action === "redeal");
  $("undo").disabled = app.busy || !playing || game.move_count === 0;
  $("hint-button").disabled = app.busy || !playing;
  $("finish").disabled = app.busy || !playing;
  $("resign").disabled = app.busy || game === null || game.status !== "playing";
  $("analyse").disabled = app.busy || app.analysing !== null;
  $("practice").disabled = app.busy;
  const practice = app.practice;
  const lineMove = practice !== null && game !== null && practiceMove(practice, game) !== null;
  $("practice-next").disabled = app.busy || !lineMove;
  $("practice-play").disabled = practice === null || (!practice.playing && (app.busy || !lineMove));
  $("practice-back").disabled = app.busy;
  $("play-hint").disabled = app.busy || !app.hint || !app.hint.move;
  $("new-game-button").disabled = app.busy;
  $("auto-play").disabled = game === null;
  $("auto-finish").disabled = game === null;
}

/** Animates an answer's events, checks they lead to its state, then shows the state. */
async function answer(state, events, duration = speed()) {
  await animate([events], duration);
  agree(state);
  show(state);
}

/**
 * Plays lists of events in turn; a long animation offers to skip to its end. A hint shown
 * was for the position before these moves: it goes as they start.
 */
async function animate(lists, duration) {
  const count = lists.reduce((sum, events) => sum + events.length, 0);
  table.skipping = false;
  setHint(null);
  $("skip").hidden = count * duration <= SKIPPABLE_MS;
  try {
    for (const events of lists) await table.play(events, duration);
  } finally {
    $("skip").hidden = true;
  }
}

function agree(state) {
  const off = differences(table.model, state);
  if (off.length) {
    app.mismatches += 1;
    document.body.dataset.eventMismatches = String(app.mismatches);
    console.warn("the events did not lead to the state's piles:", off);
  }
}

// ---- what the player does

/** A move, made on the position of `version` (the one shown when the card was pressed). */
function sendMove(move, version = app.game.version) {
  run(async () => {
    const state = await api.move(app.game.id, move, version);
    await answer(state, state.events);
  });
}

function onDrop(from, count, to, version) {
  sendMove({ action: "move", from, to, count }, version);
}

function onClick(pile, index, version) {
  if (!app.game || app.game.status === "won" || app.game.status === "resigned") return;
  sendMove(index === null ? { action: "click", pile } : { action: "click", pile, index }, version);
}

/**
 * Undo, a hint and finish take a daily game out of the ranking for good: the player
 * says so first (true: go on); `question` says it.
 */
function keepsOrLeavesRanking(question) {
  if (!app.game || !app.game.ranked) return true;
  return window.confirm(question);
}

function undo() {
  const question = t(
    "An undo takes this daily game out of today's ranking, for good. You can still finish it as practice. Go on?",
  );
  if (!keepsOrLeavesRanking(question)) return;
  run(async () => {
    const state = await api.undo(app.game.id, app.game.version);
    await answer(state, state.events);
  });
}

function busyNotice(seconds) {
  say(t("The solver is busy: asking again in {seconds} s.", { seconds }));
}

function hint() {
  const question = t(
    "A hint takes this daily game out of today's ranking, for good. You can still finish it as practice. Go on?",
  );
  if (!keepsOrLeavesRanking(question)) return;
  run(async () => {
    const answerHint = await api.hint(app.game.id, busyNotice);
    if (answerHint.version !== app.game.version) {
      // The hint marked the game assisted (its version went up): read that state.
      show(await api.game(app.game.id));
    }
    setHint(answerHint);
  });
}

function setHint(hintAnswer) {
  app.hint = hintAnswer;
  table.clearMarks("hint-from", "hint-to");
  const box = $("hint");
  if (!hintAnswer) {
    box.hidden = true;
    updateTools();
    return;
  }
  box.hidden = false;
  box.dataset.result = hintAnswer.result;
  let text;
  if (hintAnswer.move) {
    const words = describeMove(app.game, hintAnswer.move);
    text =
      hintAnswer.result === "solved"
        ? t("Hint: {move}.", { move: words })
        : t("Not proven, but try: {move}.", { move: words });
    table.markHint(hintAnswer.move);
  } else if (hintAnswer.result === "unsolvable") {
    text = t("This game can no longer be won.");
  } else {
    text = t("No move is left.");
  }
  $("hint-text").textContent = text;
  updateTools();
}

function playHint() {
  const given = app.hint;
  if (!given || !given.move) return;
  run(async () => {
    const state = await api.move(app.game.id, given.move, given.version);
    await answer(state, state.events);
  });
}

function finish() {
  const question = t(
    "Finish takes this daily game out of today's ranking, for good. You can still finish it as practice. Go on?",
  );
  if (!keepsOrLeavesRanking(question)) return;
  run(async () => {
    say(t("The solver is looking for a winning line..."));
    const state = await api.finish(app.game.id, busyNotice);
    const duration = Math.min(speed(), SPEEDS.fast);
    await animate(
      state.steps.map((step) => step.events),
      duration,
    );
    agree(state);
    show(state);
  });
}

// ---- resigning

let resignTimer = null;

/** The first click arms the button (a second one within a few seconds resigns). */
function resign() {
  const button = $("resign");
  if (button.dataset.confirm !== "1") {
    button.dataset.confirm = "1";
    button.textContent = t("Sure? Resign");
    resignTimer = setTimeout(disarmResign, RESIGN_CONFIRM_MS);
    return;
  }
  disarmResign();
  run(async () => {
    show(await api.resign(app.game.id, app.game.version));
    say(t("You resigned: the game is over. Analyse it to see where it was lost."));
  });
}

function disarmResign() {
  clearTimeout(resignTimer);
  const button = $("resign");
  delete button.dataset.confirm;
  button.textContent = t("Resign");
}

// ---- the coach: the analysis of a game that is over

/** The coach's part of the page for the game shown: its analysis, if one was read. */
function showCoach() {
  const game = app.game;
  const over = game !== null && OVER.has(game.status);
  $("coach").hidden = !over;
  if (!over) return;
  const done = app.coach !== null && app.coach.gameId === game.id ? app.coach : null;
  const list = $("move-list");
  $("coach").dataset.state = done ? "done" : app.analysing === game.id ? "running" : "";
  list.hidden = done === null;
  $("analyse").hidden = done !== null;
  const start = done !== null ? lineStart(done.analysis) : null;
  $("practice").hidden = start === null;
  if ($("coach").dataset.game !== game.id) {
    // Another game: what was said of the last one goes.
    $("coach").dataset.game = game.id;
    coachText("");
  }
  if (done === null) {
    $("analyse").title =
      game.status === "stuck" ? t("Asking for the analysis of a stuck game marks it assisted") : "";
    return;
  }
  showMoveList(list, done.analysis, done.entries);
  coachText(summary(done.analysis, done.entries));
  const again = app.practice !== null && app.practice.of === game.id;
  if (start) $("practice").textContent = again ? t("Back to the practice copy") : copyButtonText(start);
}

function coachText(text, code = null) {
  const line = $("coach-text");
  line.textContent = text;
  if (code) line.dataset.code = code;
  else delete line.dataset.code;
}

/**
 * Asks for the analysis of the game shown and waits for it (outside `run`: the page stays
 * usable while the solver works), then shows it with the move list.
 */
async function analyseGame() {
  const game = app.game;
  if (!game || app.analysing !== null) return;
  const gameId = game.id;
  app.analysing = gameId;
  showCoach();
  updateTools();
  coachText(t("Asking for the analysis..."));
  const shown = () => app.game !== null && app.game.id === gameId;
  try {
    const analysis = await analyse(
      api,
      gameId,
      (progress) => shown() && coachText(progressText(progress)),
      shown,
    );
    if (analysis === null) return;
    app.coach = { gameId, analysis, entries: await lineOfPlay(api, gameId) };
    if (!shown()) return;
    if (app.game.status === "stuck" && !app.game.assisted) {
      // Asking marked the stuck game assisted: read that state.
      await run(async () => show(await api.game(gameId)));
    }
  } catch (error) {
    sayError(error);
    if (!shown() || !(error instanceof ApiError)) return;
    // A daily game's deal is everyone's until its date is over: the server says when.
    const text = error.code === "daily_not_over" ? t("Not yet: {message}", { message: error.message }) : error.message;
    coachText(text, error.code);
    return;
  } finally {
    app.analysing = null;
    if (shown()) showCoach();
    updateTools();
  }
}

// ---- the practice copy: where the winning line starts, the line played on it

/** The line's next move, while the copy is where the line left it; else null. */
function practiceMove(practice, game) {
  if (game.id !== practice.gameId || game.status !== "playing") return null;
  if (game.move_count !== practice.start + practice.next) return null;
  return practice.line[practice.next] ?? null;
}

/**
 * A practice copy of the analysed game at the position where its winning line starts
 * (`POST /games/{id}/analysis/practice`, a game of its own); or back to the copy made
 * already.
 */
function practise() {
  const done = app.coach;
  const where = done ? lineStart(done.analysis) : null;
  if (!done || !where) return;
  const made = app.practice !== null && app.practice.of === done.gameId ? app.practice : null;
  run(async () => {
    if (made) {
      show(await api.game(made.gameId));
      return;
    }
    const { copy, start } = await practiceCopy(api, done.gameId, where.ply);
    app.practice = {
      gameId: copy.id,
      of: done.gameId,
      start,
      kind: where.kind,
      line: done.analysis.winning_line,
      next: 0,
      playing: false,
    };
    show(copy);
  });
}

function showPractice() {
  const practice = app.practice;
  const game = app.game;
  const on = practice !== null && game !== null && game.id === practice.gameId;
  $("practice-bar").hidden = !on;
  if (!on) return;
  const move = practiceMove(practice, game);
  const played = t("{played} of {count} moves of the winning line played", {
    played: practice.next,
    count: practice.line.length,
  });
  let text;
  if (game.status === "won") {
    text = t("The winning line played to a win ({count} moves).", { count: practice.next });
  } else if (move) {
    text = `${startWords(practice)}: ${played}.`;
  } else {
    text = t("{played}; you played on yourself: undo back to move {move} to go on with the line.", {
      played,
      move: practice.start + practice.next,
    });
  }
  $("practice-text").textContent = t("{text} It is a practice game: it does not count in your statistics.", { text });
  $("practice-next").textContent = move
    ? t("Step: {move}", { move: describeMove(game, move) })
    : t("Step");
  $("practice-play").textContent = practice.playing ? t("Pause") : t("Play the line");
  document.body.dataset.practiceNext = String(practice.next);
  document.body.dataset.practicePlaying = practice.playing ? "1" : "0";
}

/** Where the copy started, in words. */
function startWords(practice) {
  if (practice.kind === "left") return t("Your game where you left it");
  if (practice.kind === "proven") {
    return t("Your game after move {ply}, the last position proven winnable", { ply: practice.start });
  }
  return t("Your game before its losing move (move {move})", { move: practice.start + 1 });
}

/** Plays the winning line's next move on the copy (a step: the line stops playing itself). */
function practiceNext() {
  const practice = app.practice;
  if (practice) practice.playing = false;
  playLineMove(practice);
}

/** The line's next move on the copy (resolved once played, or refused). */
function playLineMove(practice) {
  const move = practice && app.game ? practiceMove(practice, app.game) : null;
  if (!move) return Promise.resolve();
  return run(async () => {
    const state = await api.move(practice.gameId, move, app.game.version);
    practice.next += 1;
    await answer(state, state.events);
  });
}

function lineSpeed() {
  return LINE_SPEEDS[localStorage.getItem(STORE.lineSpeed) ?? "normal"] ?? LINE_SPEEDS.normal;
}

/**
 * The line plays itself, a move every `lineSpeed()` ms, until it is won, paused (the
 * same button), stepped, or the copy leaves the line (another game shown, a move of the
 * player's own, a refusal).
 */
async function practicePlay() {
  const practice = app.practice;
  if (!practice || !app.game || app.game.id !== practice.gameId) return;
  if (practice.playing) {
    practice.playing = false;
    showPractice();
    return;
  }
  practice.playing = true;
  showPractice();
  updateTools();
  while (practice.playing && app.practice === practice) {
    if (app.busy) {
      await pause(50); // another action (the stream's change) runs: the line waits for it
      continue;
    }
    const before = practice.next;
    if (!app.game || practiceMove(practice, app.game) === null) break;
    await playLineMove(practice);
    if (practice.next === before) break; // refused: the player reads why
    if (!app.game || practiceMove(practice, app.game) === null) break; // won, or off the line
    await pause(lineSpeed());
  }
  practice.playing = false;
  if (app.game && app.game.id === practice.gameId) showPractice();
  updateTools();
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function backToGame() {
  const practice = app.practice;
  if (!practice) return;
  run(async () => show(await api.game(practice.of)));
}

function changeSetting(name, value) {
  run(async () => {
    show(await api.updateSettings(app.game.id, { [name]: value }, app.game.version));
  });
}

// ---- new games

function newGame(event) {
  if (event) event.preventDefault();
  const variant = $("variant").value;
  const kind = $("deal-kind").value;
  run(async () => {
    let state;
    if (kind === "daily") state = await api.playDaily(variant, "today");
    else if (kind === "solvable") {
      const difficulty = /** @type {"easy" | "medium" | "hard" | "expert" | ""} */ ($("difficulty").value);
      state = await api.createGame(difficulty ? { variant, solvable: true, difficulty } : { variant, solvable: true });
    }
    else if (kind === "number") {
      const deal = $("deal-number").value.trim();
      state = await api.createGame({ variant, deal });
    } else state = await api.createGame({ variant });
    location.hash = "#table";
    show(state);
  });
}

async function ensurePlayer() {
  if (api.token) {
    try {
      await api.me();
      return;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "unauthorized") throw error;
    }
  }
  const number = String(Math.floor(Math.random() * 10000)).padStart(4, "0");
  const created = await api.register(`player-${number}`);
  api.token = created.token;
  localStorage.setItem(STORE.token, created.token);
}

// ---- the daily page

function formatTime(ms) {
  if (ms === null || ms === undefined) return "";
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.append(td);
}

/** The UTC date `days` after a `YYYY-MM-DD` date. */
function addDays(date, days) {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}

/** The daily page's date: today's (`today`, as the API names it) or a past one. */
function dailyDate() {
  return app.dailyDate ?? "today";
}

/** Said while a rating's deal is still being proven (the request waits for it). */
function preparing(seconds) {
  say(t("The deal is being prepared: asking again in {seconds} s.", { seconds }));
}

async function showDaily() {
  const variant = $("daily-variant").value;
  const date = dailyDate();
  const rating = app.dailyRating;
  const [daily, results, stats] = await Promise.all([
    api.daily(variant, date, rating, preparing),
    api.dailyResults(variant, date, rating),
    api.stats(),
  ]);
  if (date === "today") app.today = daily.date;
  if (rating === null) app.rated = daily.difficulty !== null;
  const past = app.today !== null && daily.date !== app.today;
  showDailyDate(daily.date, past);
  showRatings(daily);
  const players = t("{count} players", { count: daily.players });
  if (past) {
    const day = daily.deal_str ? t("{date} (deal {number})", { date: daily.date, number: daily.deal_str }) : daily.date;
    $("daily-summary").textContent = t(
      "{day}: {players} started it on its day, {wins} won it cleanly (no undo, hint or finish). Played now, it is practice: not ranked, not counted in your statistics.",
      { day, players, wins: daily.wins },
    );
  } else {
    const left = Math.max(0, new Date(daily.ends_at).getTime() - Date.now());
    const hours = Math.floor(left / 3600000);
    const minutes = Math.floor((left % 3600000) / 60000);
    $("daily-summary").textContent = t(
      "{day}: {players} started it, {wins} won it cleanly (no undo, hint or finish). A new deal in {hours} h {minutes} min.",
      { day: daily.date, players, wins: daily.wins, hours, minutes },
    );
  }
  const me = results.me;
  let mine;
  if (me) {
    const details = [statusWords(me.status), t("{count} moves", { count: me.moves })];
    if (me.rank) details.push(t("ranked {rank}", { rank: me.rank }));
    else if (!me.ranked) details.push(t("not ranked"));
    if (me.time_ms !== null) details.push(formatTime(me.time_ms));
    mine = t("Your game: {details}", { details: details.join(", ") });
  } else {
    mine = past ? t("You have not played this deal yet.") : t("You have not played today's deal yet.");
  }
  $("daily-me").textContent = mine;
  const body = $("daily-results").querySelector("tbody");
  body.replaceChildren();
  for (const entry of results.items) {
    const row = document.createElement("tr");
    cell(row, String(entry.rank));
    cell(row, entry.name);
    cell(row, String(entry.moves));
    cell(row, formatTime(entry.time_ms));
    body.append(row);
  }
  if (!results.items.length) {
    const row = document.createElement("tr");
    cell(row, t("nobody yet"));
    body.append(row);
  }
  const statsBody = $("stats").querySelector("tbody");
  statsBody.replaceChildren();
  for (const line of stats.variants) {
    const row = document.createElement("tr");
    row.dataset.variant = line.variant;
    const name = variantOf(line.variant);
    cell(row, name ? name.name : line.variant);
    cell(row, String(line.played));
    cell(row, String(line.won));
    cell(row, line.win_rate === null ? "" : line.win_rate.toLocaleString(currentLanguage(), { style: "percent" }));
    cell(row, String(line.daily_wins));
    cell(row, String(line.daily_streak));
    cell(row, String(line.longest_daily_streak));
    statsBody.append(row);
  }
}

/**
 * The date's deal of each rating, where the server rates its deals: a button per rating,
 * the one shown pressed (the first deal's own rating while no rating is chosen).
 */
function showRatings(daily) {
  const box = $("daily-ratings");
  box.hidden = !app.rated;
  if (!app.rated) return;
  for (const button of box.querySelectorAll("button[data-rating]")) {
    const shown = button.dataset.rating === daily.difficulty;
    button.setAttribute("aria-pressed", shown ? "true" : "false");
  }
  document.body.dataset.dailyRating = daily.difficulty ?? "";
}

/** Shows the date's deal of another rating (the first deal's own: that deal, no rating). */
function chooseRating(rating) {
  if (app.busy) return;
  const before = app.dailyRating;
  app.dailyRating = rating;
  run(async () => {
    try {
      await showDaily();
    } catch (error) {
      app.dailyRating = before;
      throw error;
    }
  });
}

/** The page's words and date controls for the date shown. */
function showDailyDate(date, past) {
  $("daily-title").textContent = past ? t("The deal of {date}", { date }) : t("Today's deal");
  $("daily-caption").textContent = past ? t("Won on {date} without help", { date }) : t("Won today without help");
  $("daily-play").textContent = past ? t("Play this deal (practice)") : t("Play today's deal");
  const input = $("daily-date");
  input.value = date;
  if (app.today) input.max = app.today;
  $("daily-next").disabled = !past;
  document.body.dataset.dailyDate = date;
}

/** Shows another date's deal; a date the API has no deal for is refused, and not kept.
 * While the page is busy (the daily view still loading) the choice is not taken: the
 * field shows the date shown again. */
function goToDate(date) {
  if (app.busy) {
    $("daily-date").value = document.body.dataset.dailyDate ?? "";
    return;
  }
  const before = app.dailyDate;
  app.dailyDate = date === app.today ? null : date;
  run(async () => {
    try {
      await showDaily();
    } catch (error) {
      app.dailyDate = before;
      $("daily-date").value = before ?? app.today ?? "";
      throw error;
    }
  });
}

function route() {
  const daily = location.hash === "#daily";
  document.body.dataset.view = daily ? "daily" : "table";
  $("table-view").hidden = daily;
  $("daily-view").hidden = !daily;
  if (daily) run(showDaily);
  else table.layoutTableau();
}

// ---- start

function fillVariants() {
  for (const select of [$("variant"), $("daily-variant")]) {
    select.replaceChildren();
    for (const variant of app.variants) {
      const option = document.createElement("option");
      option.value = variant.id;
      option.textContent = variant.name;
      select.append(option);
    }
  }
  const last = localStorage.getItem(STORE.variant);
  if (last && variantOf(last)) {
    $("variant").value = last;
    $("daily-variant").value = last;
  }
}

/** The phone's menu (the new game's form and the options): open or closed. */
function openMenu(open) {
  document.body.dataset.menu = open ? "open" : "closed";
  $("menu-button").setAttribute("aria-expanded", String(open));
}

function wire() {
  $("menu-button").addEventListener("click", () => openMenu(document.body.dataset.menu !== "open"));
  // The menu closes with Escape, or a press anywhere else on the page.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.body.dataset.menu === "open") openMenu(false);
  });
  document.addEventListener("pointerdown", (event) => {
    const target = /** @type {Node} */ (event.target);
    if (document.body.dataset.menu === "open" && !$("menu").contains(target) && !$("menu-button").contains(target)) {
      openMenu(false);
    }
  });
  $("new-game").addEventListener("submit", (event) => {
    openMenu(false);
    newGame(event);
  });
  $("deal-kind").addEventListener("change", () => {
    $("deal-number").hidden = $("deal-kind").value !== "number";
    $("deal-number").required = $("deal-kind").value === "number";
    $("difficulty").hidden = $("deal-kind").value !== "solvable";
  });
  // A message over a control goes at a tap, before its own time is up.
  $("message").addEventListener("click", () => {
    clearTimeout(messageTimer);
    $("message").hidden = true;
  });
  $("draw").addEventListener("click", () => sendMove({ action: "draw" }));
  $("redeal").addEventListener("click", () => sendMove({ action: "redeal" }));
  $("undo").addEventListener("click", undo);
  $("hint-button").addEventListener("click", hint);
  $("play-hint").addEventListener("click", playHint);
  $("finish").addEventListener("click", finish);
  $("resign").addEventListener("click", resign);
  $("analyse").addEventListener("click", analyseGame);
  $("practice").addEventListener("click", practise);
  $("practice-next").addEventListener("click", practiceNext);
  $("practice-play").addEventListener("click", practicePlay);
  const lineSpeedSelect = $("practice-speed");
  lineSpeedSelect.value = localStorage.getItem(STORE.lineSpeed) ?? "normal";
  lineSpeedSelect.addEventListener("change", () =>
    localStorage.setItem(STORE.lineSpeed, lineSpeedSelect.value),
  );
  $("practice-back").addEventListener("click", backToGame);
  $("won-new").addEventListener("click", () => newGame(null));
  $("first-new").addEventListener("click", () => newGame(null));
  $("skip").addEventListener("click", () => table.skip());
  $("auto-play").addEventListener("change", (e) => changeSetting("auto_play", e.target.checked));
  $("auto-finish").addEventListener("change", (e) => changeSetting("auto_finish", e.target.checked));
  const languageSelect = $("language");
  languageSelect.value = currentLanguage();
  languageSelect.addEventListener("change", () => {
    // Kept, then the page loaded again in it: every word, the server's too, in one language.
    keepLanguage(languageSelect.value);
    location.reload();
  });
  const speedSelect = $("speed");
  speedSelect.value = localStorage.getItem(STORE.speed) ?? "normal";
  speedSelect.addEventListener("change", () => localStorage.setItem(STORE.speed, speedSelect.value));
  $("daily-variant").addEventListener("change", () => {
    app.dailyRating = null; // another game: its own first deal
    run(showDaily);
  });
  for (const button of $("daily-ratings").querySelectorAll("button[data-rating]")) {
    button.addEventListener("click", () => chooseRating(button.dataset.rating));
  }
  const step = (days) => {
    const from = $("daily-date").value || app.today;
    if (from) goToDate(addDays(from, days));
  };
  $("daily-prev").addEventListener("click", () => step(-1));
  $("daily-next").addEventListener("click", () => step(1));
  $("daily-date").addEventListener("change", () => {
    if ($("daily-date").value) goToDate($("daily-date").value);
  });
  $("daily-play").addEventListener("click", () =>
    run(async () => {
      const state = await api.playDaily(
        $("daily-variant").value,
        dailyDate(),
        preparing,
        app.dailyRating,
      );
      location.hash = "#table";
      show(state);
    }),
  );
  window.addEventListener("hashchange", route);
  attachInput(table, {
    canAct: () => !app.busy && app.game !== null,
    version: () => app.game.version,
    onDrop,
    onClick,
  });
}

/**
 * The page's words in the player's language before it is shown (play.css hides the page
 * until `data-lang` is set, so that no word changes, and nothing moves, once it is seen).
 */
async function translate() {
  try {
    await loadLanguage(preferredLanguage());
  } catch (error) {
    console.error(error);
  }
  api.language = currentLanguage();
  translatePage();
  document.documentElement.dataset.lang = currentLanguage();
}

async function start() {
  await translate();
  wire();
  setBusy(true);
  try {
    app.variants = await api.variants();
    fillVariants();
    await ensurePlayer();
    const saved = localStorage.getItem(STORE.game);
    let state = null;
    if (saved) {
      try {
        state = await api.game(saved);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "game_not_found") throw error;
      }
    }
    if (state === null) {
      // A first visit: no game until the player deals one (an unasked game would count
      // as played in the statistics).
      $("first").hidden = false;
    } else {
      show(state);
      $("variant").value = state.variant;
    }
  } catch (error) {
    sayError(error);
  } finally {
    setBusy(false);
  }
  route();
}

start();
