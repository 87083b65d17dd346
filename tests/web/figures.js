// What a player sees, measured in the page (tests/web/figures.py evaluates this): the
// sizes of controls and of each face-up card's visible part, sideways scrolling, text cut
// off, the contrast of text, where the table starts, what the Won box covers, the
// message box's width. Returns one object of figures; each list names the offenders.
() => {
  const visible = (el) => {
    if (!el.isConnected) return false;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const name = (el) => {
    const id = el.id ? `#${el.id}` : "";
    const text = (el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 24);
    return `${el.tagName.toLowerCase()}${id}${text ? ` "${text}"` : ""}`;
  };
  const round = (x) => Math.round(x * 10) / 10;

  // ---- controls: their box, or a checkbox's label (what a finger hits)
  const controls = [];
  for (const el of document.querySelectorAll("button, a[href], select, input, summary")) {
    if (!visible(el)) continue;
    let box = el;
    if (el.type === "checkbox" || el.type === "radio") box = el.closest("label") || el;
    const r = box.getBoundingClientRect();
    controls.push({ name: name(box), width: round(r.width), height: round(r.height) });
  }
  const small = controls.filter((c) => c.width < 44 || c.height < 44);

  // ---- face-up cards a player may press: the part no card above covers
  const cards = [];
  for (const pile of document.querySelectorAll("#table .pile")) {
    const all = [...pile.querySelectorAll(".card")];
    all.forEach((card, i) => {
      if (!card.classList.contains("up")) return;
      const tappable =
        card.classList.contains("movable") || card.classList.contains("clickable") ||
        pile.classList.contains("tableau");
      if (!tappable) return;
      const r = card.getBoundingClientRect();
      let width = r.width;
      let height = r.height;
      const next = all[i + 1];
      if (next) {
        const n = next.getBoundingClientRect();
        if (n.top > r.top + 0.5) height = n.top - r.top;
        else if (n.left > r.left + 0.5) width = n.left - r.left;
        else return; // wholly covered: not a card a player sees (a squared pile)
      }
      cards.push({ name: `${pile.dataset.pile}[${i}]`, width: round(width), height: round(height) });
    });
  }
  const smallCards = cards.filter((c) => c.width < 24 || c.height < 24);

  // ---- text cut off: an element narrower than its text, or outside its clipping bar
  const cut = [];
  for (const el of document.querySelectorAll("body *")) {
    if (!visible(el) || el.closest("#table")) continue;
    const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!hasText) continue;
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) {
      cut.push(name(el));
      continue;
    }
    // Clipped by an ancestor that hides its overflow.
    const r = el.getBoundingClientRect();
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX === "visible" && style.overflowY === "visible") continue;
      const b = a.getBoundingClientRect();
      if (r.right > b.right + 1 || r.left < b.left - 1 || r.bottom > b.bottom + 1) cut.push(name(el));
      break;
    }
  }

  // ---- contrast of text with what is behind it (WCAG relative luminance)
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1);
  };
  const background = (el) => {
    const layers = [];
    for (let a = el; a; a = a.parentElement) {
      const bg = parse(getComputedStyle(a).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let colour = [255, 255, 255, 1];
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const opacity = (el) => {
    let o = 1;
    for (let a = el; a; a = a.parentElement) o *= Number(getComputedStyle(a).opacity);
    return o;
  };
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = [];
  for (const el of document.querySelectorAll("body *")) {
    if (!visible(el)) continue;
    if (el.closest(":disabled")) continue; // WCAG 1.4.3: inactive controls are exempt
    const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!hasText || el.closest(".card")) continue;
    const bg = background(el);
    const fg = parse(getComputedStyle(el).color);
    const alpha = fg[3] * opacity(el);
    const shown = over([fg[0], fg[1], fg[2], alpha], bg);
    const [l1, l2] = [luminance(shown), luminance(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    contrast.push({ name: name(el), ratio: Math.round(ratio * 100) / 100 });
  }
  const lowContrast = contrast.filter((c) => c.ratio < 4.5);

  // ---- the table's top, the Won box, the message box
  const firstPile = document.querySelector("#table .pile");
  const tableTop = firstPile && visible(firstPile) ? round(firstPile.getBoundingClientRect().top) : null;
  const won = document.getElementById("won");
  const covered = [];
  if (won && visible(won)) {
    const w = won.getBoundingClientRect();
    for (const el of document.querySelectorAll("button, a[href], select, input")) {
      if (!visible(el) || won.contains(el)) continue;
      const r = el.getBoundingClientRect();
      if (!(r.left < w.right && r.right > w.left && r.top < w.bottom && r.bottom > w.top)) continue;
      // Covered where the Won box is what a tap there would hit (not a menu above both).
      const x = Math.max(r.left, w.left) + 1;
      const y = Math.max(r.top, w.top) + 1;
      const top = document.elementFromPoint(x, y);
      if (top && won.contains(top)) covered.push(name(el));
    }
  }
  const message = document.getElementById("message");
  const messageWidth = message && visible(message) ? round(message.getBoundingClientRect().width) : null;
  return {
    width: window.innerWidth,
    height: window.innerHeight,
    // A mobile browser widens its layout viewport to a page too wide (innerWidth grows
    // past the screen's): that is sideways scrolling too.
    sideways:
      document.documentElement.scrollWidth > window.innerWidth || window.innerWidth > screen.width,
    smallestControl: controls.length ? Math.min(...controls.map((c) => Math.min(c.width, c.height))) : null,
    small,
    smallestCard: cards.length ? Math.min(...cards.map((c) => Math.min(c.width, c.height))) : null,
    smallCards,
    cards,
    cut,
    lowestContrast: contrast.length ? Math.min(...contrast.map((c) => c.ratio)) : null,
    lowContrast,
    tableTop,
    covered,
    messageWidth,
  };
};
