// The table, drawn from the state JSON: piles in the state's order (stock, waste,
// reserve, foundations on top; tableau below), face-down cards as backs, the stock's and
// reserve's counts, empty foundations with the rank they take. Between two answers it
// animates the events one at a time on the piles it holds (model.js), then draws the
// new state as the truth.

import { t } from "./i18n.js";
import { applyEvent, describeCard, pileName, pilesOf, rankLabel, SUITS } from "./model.js";

/** Offsets of a tableau card below the one under it, in card heights. */
const FAN_DOWN = 0.12;
const FAN_UP = 0.26;
/** The least visible strip of a face-up card under another, in CSS px (WCAG 2.5.8's 24). */
const MIN_STRIP = 26;
/** The least strip of a face-down card, in CSS px. */
const MIN_DOWN = 3;
/** A card's height over its width (play.css: --ch). */
const CARD_RATIO = 1.4;

export class Table {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.state = null;
    this.variant = null;
    this.model = new Map();
    /** @type {Map<string, HTMLElement>} */
    this.pileElements = new Map();
    /** Set by `skip()`: the events left are played without being drawn moving. */
    this.skipping = false;
    /** The animations of the event being drawn. */
    this.running = [];
    window.addEventListener("resize", () => this.layoutTableau());
  }

  /** The pile's description in the current state (kind, movable_from, click). */
  meta(id) {
    return this.state.piles.find((pile) => pile.id === id);
  }

  pileElement(id) {
    return this.pileElements.get(id);
  }

  /** Draws the whole table from a state: the truth after every answer. */
  show(state, variant) {
    const rebuild =
      this.state === null || this.state.id !== state.id || this.state.piles.length !== state.piles.length;
    this.state = state;
    this.variant = variant;
    this.model = pilesOf(state);
    if (rebuild) this.build();
    for (const pile of state.piles) this.renderPile(pile.id);
    this.layoutTableau();
  }

  build() {
    this.root.replaceChildren();
    this.pileElements.clear();
    const top = document.createElement("div");
    top.className = "row top";
    const tableau = document.createElement("div");
    tableau.className = "row tableau";
    let topCount = 0;
    let tableauCount = 0;
    for (const pile of this.state.piles) {
      const element = document.createElement("div");
      element.className = `pile ${pile.kind}`;
      element.dataset.pile = pile.id;
      element.setAttribute("aria-label", pileName(pile.id));
      this.pileElements.set(pile.id, element);
      if (pile.kind === "tableau") {
        tableau.append(element);
        tableauCount += 1;
      } else {
        // The foundations stand apart, at the right (play.css: .apart).
        if (pile.kind === "foundation" && !top.querySelector(".foundation")) {
          element.classList.add("apart");
        }
        top.append(element);
        topCount += 1;
      }
    }
    this.root.style.setProperty("--cols", String(Math.max(topCount, tableauCount)));
    this.root.append(top, tableau);
  }

  /** Draws one pile from the cards held (this.model) and the state's description. */
  renderPile(id) {
    const element = this.pileElements.get(id);
    const meta = this.meta(id);
    const cards = this.model.get(id) ?? [];
    const playing = this.state.status !== "won";
    element.replaceChildren();
    element.classList.toggle("empty", cards.length === 0);
    element.dataset.count = String(cards.length);
    if (cards.length === 0) element.append(this.slot(meta));
    // The waste fans its top three where a draw turns up three (Canfield).
    const fanWaste = meta.kind === "waste" && this.variant && this.variant.stock.draw > 1;
    cards.forEach((card, index) => {
      const face = meta.cards[index];
      const clickable = card.face_up && face && face.face_up ? face.click : null;
      const el = cardElement(card, index, clickable);
      if (fanWaste) {
        const shown = Math.min(3, cards.length);
        const place = index - (cards.length - shown);
        if (place > 0) el.style.left = `calc(var(--cw) * ${0.28 * place})`;
      }
      if (playing && meta.movable_from !== null && index >= meta.movable_from && card.face_up) {
        el.classList.add("movable");
      }
      element.append(el);
    });
    if (meta.kind === "stock" || meta.kind === "reserve") {
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = String(cards.length);
      element.append(badge);
    }
    if (meta.kind === "tableau") this.fan(element);
  }

  /** What an empty pile shows: the foundation's suit and the rank it takes next. */
  slot(meta) {
    const slot = document.createElement("div");
    slot.className = "slot";
    if (meta.kind === "foundation") {
      const suit = meta.suit ? SUITS[meta.suit].symbol : "";
      slot.textContent = `${meta.base_rank ? rankLabel(meta.base_rank) : ""}${suit}`;
    } else if (meta.kind === "stock" && meta.click && meta.click.action === "redeal") {
      slot.textContent = "\u21bb";
      slot.title = t("redeal");
    }
    return slot;
  }

  /**
   * Tableau cards fanned down: each card's offset below the one under it in px (the
   * pile's `data-up` and `data-down`, set by `layoutTableau`), else the natural offsets.
   */
  fan(element) {
    const card = element.offsetWidth * CARD_RATIO;
    const up = Number(element.dataset.up || FAN_UP * card);
    const down = Number(element.dataset.down || FAN_DOWN * card);
    let top = 0;
    let last = 0;
    for (const el of element.querySelectorAll(".card")) {
      el.style.top = `${top}px`;
      last = top;
      top += el.classList.contains("up") ? up : down;
    }
    element.style.height = `${last + card}px`;
  }

  /**
   * The offsets of each tableau pile so that it fits the window's height (less the tool
   * bar at the foot of a phone's screen, play.css --dock): the face-down cards squeezed
   * first, the face-up ones no closer than MIN_STRIP, so that the strip of each stays
   * large enough to press. A pile that cannot fit makes the page scroll.
   */
  layoutTableau() {
    const row = this.root.querySelector(".row.tableau");
    if (!row) return;
    const pile = row.querySelector(".pile");
    const card = (pile ? pile.offsetWidth : 70) * CARD_RATIO;
    const dock = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--dock")) || 0;
    const room = Math.max(window.innerHeight - dock - row.getBoundingClientRect().top - 12, card * 2);
    const natural = Math.max(FAN_UP * card, MIN_STRIP);
    for (const element of row.querySelectorAll(".pile")) {
      const cards = [...element.querySelectorAll(".card")].slice(0, -1);
      const ups = cards.filter((c) => c.classList.contains("up")).length;
      const downs = cards.length - ups;
      let up = natural;
      let down = FAN_DOWN * card;
      const free = room - card;
      if (ups * up + downs * down > free) {
        down = downs ? Math.max(MIN_DOWN, (free - ups * up) / downs) : down;
        if (ups * up + downs * down > free && ups) {
          up = Math.max(MIN_STRIP, (free - downs * down) / ups);
        }
      }
      element.dataset.up = String(up);
      element.dataset.down = String(down);
      this.fan(element);
    }
  }

  /** The top `count` card elements of a pile. */
  topCards(id, count) {
    const cards = [...this.pileElements.get(id).querySelectorAll(".card")];
    return count > 0 ? cards.slice(-count) : [];
  }

  /**
   * Plays an answer's events, one at a time, on the piles held; `duration` in ms per
   * event (0: none drawn, the piles still follow the events; after `skip()` too).
   */
  async play(events, duration) {
    for (const event of events) await this.animate(event, this.skipping ? 0 : duration);
  }

  /** Ends the animation under way: the events left land at once (until `skipping` is reset). */
  skip() {
    this.skipping = true;
    for (const animation of this.running) animation.finish();
  }

  async animate(event, duration) {
    const moving = transferOf(event);
    const before = moving ? this.topCards(moving.from, moving.count).map(rectOf) : [];
    const touched = applyEvent(this.model, event);
    for (const id of touched) this.renderPile(id);
    if (duration <= 0 || touched.length === 0) return;
    const animations = [];
    if (moving) {
      this.topCards(moving.to, moving.count).forEach((el, i) => {
        const from = before[i];
        if (!from) return;
        const to = el.getBoundingClientRect();
        el.classList.add("flying");
        const animation = el.animate(
          [
            { transform: `translate(${from.left - to.left}px, ${from.top - to.top}px)` },
            { transform: "translate(0, 0)" },
          ],
          { duration, easing: "ease-out" },
        );
        animation.finished.finally(() => el.classList.remove("flying"));
        animations.push(animation);
      });
    } else if (event.type === "turn_up" || event.type === "turn_down") {
      const el = this.pileElements.get(event.pile).querySelectorAll(".card")[event.index];
      if (el) {
        animations.push(
          el.animate([{ transform: "rotateY(90deg)" }, { transform: "rotateY(0)" }], {
            duration: duration / 2,
            easing: "ease-out",
          }),
        );
      }
    }
    if (animations.length) {
      // How many events were animated, for the browser tests.
      const body = document.body.dataset;
      body.animatedEvents = String(Number(body.animatedEvents || 0) + 1);
    }
    this.running = animations;
    await Promise.allSettled(animations.map((a) => a.finished));
    this.running = [];
  }

  /** Marks the hint: the cards to move and where they go. */
  markHint(move) {
    this.clearMarks("hint-from", "hint-to");
    if (move.action === "draw" || move.action === "redeal") {
      this.pileElements.get("stock").classList.add("hint-from");
      return;
    }
    for (const el of this.topCards(move.from, move.count)) el.classList.add("hint-from");
    this.pileElements.get(move.to).classList.add("hint-to");
  }

  clearMarks(...classes) {
    for (const name of classes) {
      for (const el of this.root.querySelectorAll(`.${name}`)) el.classList.remove(name);
    }
  }
}

/** The cards an event carries from one pile to another, if it does. */
function transferOf(event) {
  switch (event.type) {
    case "move":
    case "auto_finish":
    case "move_back":
      return { from: event.from, to: event.to, count: event.count };
    case "reserve_fill":
      return { from: event.from, to: event.pile, count: 1 };
    default:
      return null;
  }
}

function rectOf(element) {
  return element.getBoundingClientRect();
}

/** A card: a back, or a face with its rank and suit in a corner and in the middle. */
function cardElement(card, index, click) {
  const el = document.createElement("div");
  el.dataset.index = String(index);
  if (!card.face_up) {
    el.className = "card down";
    el.setAttribute("aria-label", t("face-down card"));
    return el;
  }
  const what = describeCard(card.code);
  el.className = `card up ${what.red ? "red" : "black"}`;
  el.dataset.code = card.code;
  el.setAttribute("aria-label", what.words);
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.textContent = `${what.label}${what.symbol}`;
  const middle = document.createElement("span");
  middle.className = "middle";
  middle.textContent = what.symbol;
  el.append(corner, middle);
  if (click) {
    el.classList.add("clickable");
    el.tabIndex = 0;
  }
  return el;
}
