// @ts-check
// The table as the client holds it between answers: each pile's cards, bottom first,
// face down (no code) or face up (a code). The events of an answer replayed on the
// previous answer's piles give the new piles (docs/api.md, "Events"); the renderer
// animates them one at a time with `applyEvent`, then takes the answer's state as the
// truth, and `differences` says whether the two agreed.

import { t } from "./i18n.js";

/** @typedef {import("./schema").components["schemas"]} Schemas */
/** @typedef {Schemas["GameState"]} GameState */
/**
 * @typedef {Schemas["MoveEvent"] | Schemas["TurnUpEvent"] | Schemas["ReserveFillEvent"]
 *   | Schemas["AutoFinishEvent"] | Schemas["UndoEvent"] | Schemas["TurnDownEvent"]
 *   | Schemas["MoveBackEvent"]} GameEvent
 */
/** @typedef {{face_up: boolean, code: string | null}} Card */
/** @typedef {Map<string, Card[]>} Piles */

/**
 * The piles of a state, card faces only.
 * @param {GameState} state
 * @returns {Piles}
 */
export function pilesOf(state) {
  /** @type {Piles} */
  const piles = new Map();
  for (const pile of state.piles) {
    piles.set(
      pile.id,
      pile.cards.map((card) => ({ face_up: card.face_up, code: card.face_up ? card.code : null })),
    );
  }
  return piles;
}

/**
 * @param {Piles} piles
 * @param {string} id
 * @returns {Card[]}
 */
function pile(piles, id) {
  const cards = piles.get(id);
  if (cards === undefined) throw new Error(`an event names a pile this game has not: ${id}`);
  return cards;
}

/**
 * `count` cards from the top of `from` onto `to`, named (`cards`, bottom first) or
 * face down (`cards` null: a redeal, or an undone draw).
 * @param {Piles} piles
 * @param {string} from
 * @param {string} to
 * @param {number} count
 * @param {string[] | null} cards
 */
function transfer(piles, from, to, count, cards) {
  const source = pile(piles, from);
  if (count > source.length) throw new Error(`${from} has fewer than ${count} cards`);
  source.splice(source.length - count, count);
  const target = pile(piles, to);
  for (let i = 0; i < count; i += 1) {
    const code = cards === null ? null : (cards[i] ?? null);
    target.push({ face_up: code !== null, code });
  }
}

/**
 * Plays one event on the piles (in place). The pile ids it touched, for the renderer.
 * @param {Piles} piles
 * @param {GameEvent} event
 * @returns {string[]}
 */
export function applyEvent(piles, event) {
  switch (event.type) {
    case "move":
    case "auto_finish":
    case "move_back":
      transfer(piles, event.from, event.to, event.count, event.cards ?? null);
      return [event.from, event.to];
    case "reserve_fill":
      transfer(piles, event.from, event.pile, 1, [event.card]);
      return [event.from, event.pile];
    case "turn_up":
      pile(piles, event.pile)[event.index] = { face_up: true, code: event.card };
      return [event.pile];
    case "turn_down":
      pile(piles, event.pile)[event.index] = { face_up: false, code: null };
      return [event.pile];
    case "undo":
      return [];
    default:
      return [];
  }
}

/**
 * Where the piles differ from the state's (empty when they agree).
 * @param {Piles} piles
 * @param {GameState} state
 * @returns {string[]}
 */
export function differences(piles, state) {
  /** @type {string[]} */
  const found = [];
  const expected = pilesOf(state);
  for (const [id, cards] of expected) {
    const mine = piles.get(id) ?? [];
    const same =
      mine.length === cards.length &&
      mine.every((card, i) => card.face_up === cards[i].face_up && card.code === cards[i].code);
    if (!same) found.push(id);
  }
  return found;
}

/**
 * Whether the events, played on a copy of the piles, lead to the state's piles: a
 * change the live stream sends is animated only from the view it was made on.
 * @param {Piles} piles
 * @param {GameEvent[]} events
 * @param {GameState} state
 * @returns {boolean}
 */
export function replays(piles, events, state) {
  /** @type {Piles} */
  const copy = new Map([...piles].map(([id, cards]) => [id, cards.map((card) => ({ ...card }))]));
  try {
    for (const event of events) applyEvent(copy, event);
  } catch {
    return false; // an event names a card or a pile these piles have not
  }
  return differences(copy, state).length === 0;
}

/**
 * The move a drop of `count` cards from `from` onto `to` would play, if the state
 * lists it as legal.
 * @param {GameState} state
 * @param {string} from
 * @param {number} count
 * @returns {Set<string>} the pile ids it may go to
 */
export function targetsOf(state, from, count) {
  const targets = new Set();
  for (const move of state.legal_moves) {
    if (move.action === "move" && move.from === from && move.count === count) targets.add(move.to);
  }
  return targets;
}

const RANK_NAMES = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
/** The ranks in words, in the current language (index 1: the ace). */
const rankWords = () => [
  "",
  t("ace"),
  t("two"),
  t("three"),
  t("four"),
  t("five"),
  t("six"),
  t("seven"),
  t("eight"),
  t("nine"),
  t("ten"),
  t("jack"),
  t("queen"),
  t("king"),
];
/** @type {Record<string, {symbol: string, red: boolean}>} */
export const SUITS = {
  S: { symbol: "\u2660", red: false },
  H: { symbol: "\u2665", red: true },
  D: { symbol: "\u2666", red: true },
  C: { symbol: "\u2663", red: false },
};
/** @param {string} suit */
const suitWord = (suit) =>
  ({ S: t("spades"), H: t("hearts"), D: t("diamonds"), C: t("clubs") })[suit] ?? suit;
const RANK_OF_CODE = "A23456789TJQK";

/**
 * A card code (`TD`, `AS`) read: rank 1-13, suit letter, and how to show and say it.
 * @param {string} code
 */
export function describeCard(code) {
  const rank = RANK_OF_CODE.indexOf(code[0]) + 1;
  const suit = SUITS[code[1]];
  return {
    rank,
    suit: code[1],
    label: RANK_NAMES[rank],
    symbol: suit.symbol,
    red: suit.red,
    words: t("{rank} of {suit}", { rank: rankWords()[rank], suit: suitWord(code[1]) }),
  };
}

/** @param {number} rank */
export function rankLabel(rank) {
  return RANK_NAMES[rank] ?? String(rank);
}

/** @param {string} code a card as the table shows it: "10♦" */
function cardName(code) {
  const card = describeCard(code);
  return `${card.label}${card.symbol}`;
}

/**
 * A pile in words, counted from one as people count: `tableau-2` -> "pile 3".
 * @param {string} id
 */
export function pileName(id) {
  const match = /^([a-z]+)-(\d+)$/.exec(id);
  const number = match ? Number(match[2]) + 1 : 0;
  switch (match ? match[1] : id) {
    case "tableau":
      return t("pile {number}", { number });
    case "foundation":
      return t("foundation {number}", { number });
    case "reserve":
      return match ? t("reserve {number}", { number }) : t("the reserve");
    case "waste":
      return t("the waste");
    case "stock":
      return t("the stock");
    default:
      return id;
  }
}

/**
 * A move in words, the one way the hints, the move list and the coach say it:
 * "7♥ to pile 3", "7♥–5♣ to pile 3" (the cards moved, bottom first, where known),
 * "draw from the stock".
 * @param {Schemas["MoveAction"] | Schemas["DrawAction"] | Schemas["RedealAction"]} move
 * @param {(string | null)[] | null} [cards] the codes of the cards moved, bottom first
 */
export function moveInWords(move, cards = null) {
  if (move.action === "draw") return t("draw from the stock");
  if (move.action === "redeal") return t("redeal the waste");
  const known = cards ? cards.filter((c) => c !== null) : [];
  let what;
  if (known.length === move.count && known.length > 0) {
    what = known.length > 1 ? `${cardName(known[0])}\u2013${cardName(known[known.length - 1])}` : cardName(known[0]);
  } else {
    what = t("{count} cards", { count: move.count });
  }
  return toPile(what, move.to);
}

/**
 * "{cards} to" a pile, one sentence for each kind of pile (a language may say the pile
 * in another case after its "to").
 * @param {string} cards
 * @param {string} id
 */
function toPile(cards, id) {
  const match = /^([a-z]+)-(\d+)$/.exec(id);
  const number = match ? Number(match[2]) + 1 : 0;
  switch (match ? match[1] : id) {
    case "tableau":
      return t("{cards} to pile {number}", { cards, number });
    case "foundation":
      return t("{cards} to foundation {number}", { cards, number });
    case "reserve":
      return match ? t("{cards} to reserve {number}", { cards, number }) : t("{cards} to the reserve", { cards });
    case "waste":
      return t("{cards} to the waste", { cards });
    default:
      return t("{cards} to {pile}", { cards, pile: pileName(id) });
  }
}

/**
 * A move of the state's position in words (a hint's): its cards read off the state.
 * @param {GameState} state
 * @param {Schemas["MoveAction"] | Schemas["DrawAction"] | Schemas["RedealAction"]} move
 */
export function describeMove(state, move) {
  if (move.action !== "move") return moveInWords(move);
  const from = state.piles.find((p) => p.id === move.from);
  const cards = from ? from.cards.slice(from.cards.length - move.count).map((c) => (c.face_up ? c.code : null)) : null;
  return moveInWords(move, cards);
}
