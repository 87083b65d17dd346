// Input: pointer events (mouse, pen and touch alike). A press on a card that may be
// picked up (the pile's `movable_from` and above) and a move of a few pixels is a drag:
// the cards follow the pointer, the piles `legal_moves` lists for them are highlighted,
// and the drop is sent as a move, legal or not (the server words any refusal). A press
// without a move is the API's click on that card (or on the stock: draw or redeal).
// Hovering a card with a mouse marks where its click would send it. A drop or a click
// is sent at the game's version when the card was pressed: if another tab's change was
// drawn meanwhile, the server refuses it (version_conflict) rather than play it unseen.

import { targetsOf } from "./model.js";

/** Pixels a press must travel before it is a drag rather than a click. */
const DRAG_THRESHOLD = 6;

/**
 * @param {import("./render.js").Table} table
 * @param {{canAct: () => boolean,
 *          version: () => number,
 *          onDrop: (from: string, count: number, to: string, version: number) => void,
 *          onClick: (pile: string, index: number | null, version: number) => void}} handlers
 */
export function attachInput(table, handlers) {
  const root = table.root;
  let press = null;

  root.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || !handlers.canAct()) return;
    const pileEl = event.target.closest(".pile");
    if (!pileEl) return;
    const id = pileEl.dataset.pile;
    const cardEl = event.target.closest(".card");
    const index = cardEl ? Number(cardEl.dataset.index) : null;
    const meta = table.meta(id);
    const cards = table.model.get(id) ?? [];
    const movable =
      cardEl !== null &&
      cardEl.classList.contains("up") &&
      meta.movable_from !== null &&
      index >= meta.movable_from;
    press = {
      id,
      index,
      faceUp: cardEl !== null && cardEl.classList.contains("up"),
      count: movable ? cards.length - index : 0,
      x: event.clientX,
      y: event.clientY,
      pointerId: event.pointerId,
      version: handlers.version(),
      drag: null,
    };
    root.setPointerCapture(event.pointerId);
    event.preventDefault();
  });

  root.addEventListener("pointermove", (event) => {
    if (press && press.pointerId === event.pointerId) {
      const dx = event.clientX - press.x;
      const dy = event.clientY - press.y;
      if (!press.drag && press.count > 0 && Math.hypot(dx, dy) >= DRAG_THRESHOLD) {
        press.drag = startDrag(table, press);
      }
      if (press.drag) moveDrag(table, press.drag, dx, dy, event);
      return;
    }
    if (event.pointerType === "mouse") hover(table, event);
  });

  const release = (event, cancelled) => {
    if (!press || press.pointerId !== event.pointerId) return;
    const done = press;
    press = null;
    if (root.hasPointerCapture(event.pointerId)) root.releasePointerCapture(event.pointerId);
    if (done.drag) {
      const to = cancelled ? null : dropTarget(table, done.drag, event);
      endDrag(table, done.drag);
      if (to !== null && to !== done.id) handlers.onDrop(done.id, done.count, to, done.version);
      return;
    }
    if (cancelled) return;
    if (done.faceUp) handlers.onClick(done.id, done.index, done.version);
    else if (table.meta(done.id).kind === "stock") handlers.onClick(done.id, null, done.version);
  };
  root.addEventListener("pointerup", (event) => release(event, false));
  root.addEventListener("pointercancel", (event) => release(event, true));

  // The keyboard: Enter or Space on a focused card is a click on it.
  root.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const cardEl = event.target.closest(".card");
    const pileEl = event.target.closest(".pile");
    if (!cardEl || !pileEl || !handlers.canAct()) return;
    event.preventDefault();
    handlers.onClick(pileEl.dataset.pile, Number(cardEl.dataset.index), handlers.version());
  });
}

function startDrag(table, press) {
  const cards = table.topCards(press.id, press.count);
  const first = cards[0].getBoundingClientRect();
  const ghost = document.createElement("div");
  ghost.className = "ghost";
  for (const card of cards) {
    const rect = card.getBoundingClientRect();
    const copy = card.cloneNode(true);
    copy.style.left = `${rect.left - first.left}px`;
    copy.style.top = `${rect.top - first.top}px`;
    ghost.append(copy);
    card.classList.add("lifted");
  }
  ghost.style.width = `${first.width}px`;
  // The ghost inherits the table's card size.
  table.root.append(ghost);
  const targets = targetsOf(table.state, press.id, press.count);
  for (const id of targets) table.pileElement(id).classList.add("target");
  return { ghost, cards, origin: first, targets, over: null };
}

function moveDrag(table, drag, dx, dy, event) {
  drag.ghost.style.transform = `translate(${drag.origin.left + dx}px, ${drag.origin.top + dy}px)`;
  const over = dropTarget(table, drag, event);
  if (over === drag.over) return;
  if (drag.over) table.pileElement(drag.over).classList.remove("over");
  if (over) table.pileElement(over).classList.add("over");
  drag.over = over;
}

/** The pile under the pointer, else the one the held cards overlap most. */
function dropTarget(table, drag, event) {
  for (const el of document.elementsFromPoint(event.clientX, event.clientY)) {
    const pile = el.closest(".pile");
    if (pile && table.root.contains(pile)) return pile.dataset.pile;
  }
  const held = drag.ghost.getBoundingClientRect();
  let best = null;
  let bestArea = 0;
  for (const [id, el] of table.pileElements) {
    const rect = el.getBoundingClientRect();
    const width = Math.min(held.right, rect.right) - Math.max(held.left, rect.left);
    const height = Math.min(held.top + held.width * 1.4, rect.bottom) - Math.max(held.top, rect.top);
    const area = width > 0 && height > 0 ? width * height : 0;
    if (area > bestArea) {
      best = id;
      bestArea = area;
    }
  }
  return best;
}

function endDrag(table, drag) {
  drag.ghost.remove();
  for (const card of drag.cards) card.classList.remove("lifted");
  table.clearMarks("target", "over");
}

function hover(table, event) {
  table.clearMarks("click-target");
  const cardEl = event.target.closest(".card.clickable");
  const pileEl = event.target.closest(".pile");
  if (!cardEl || !pileEl) return;
  const meta = table.meta(pileEl.dataset.pile);
  const face = meta.cards[Number(cardEl.dataset.index)];
  const click = face && face.face_up ? face.click : null;
  if (click && click.action === "move") table.pileElement(click.to).classList.add("click-target");
}
