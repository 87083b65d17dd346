// @ts-check
// The client's own words in the player's language: `t(english, params)` looks the English
// source up in the language's catalogue (`locales/<language>.json`, keyed by the English
// source; a source missing there is shown in English) and fills its `{name}` placeholders.
// A source with `{count}` has plural forms: its entry is an object keyed by the
// Intl.PluralRules category of `count` (`one`, `few`, `many`, `other`; English's are in
// `locales/en.json`). The page's own words (index.html) are translated once on loading
// (`translatePage`), before it is shown. The language is the one chosen (kept as
// `solitaire.language`), else the browser's first that the client speaks, else English;
// the API is asked in the same one (api.js sends it as `Accept-Language`).
// tests/api/test_play_locales.py checks each catalogue against the sources of the JS
// and HTML files: nothing missing, nothing stale, the same placeholders.

const LANGUAGES = ["en", "de", "ru", "fr"];
const STORE = "solitaire.language";

/** @typedef {string | Record<string, string>} Entry */

/** @type {Record<string, Entry>} */
let catalogue = {};
let language = "en";
/** @type {Intl.PluralRules} */
let plurals = new Intl.PluralRules("en");

/**
 * The English source in the current language, its `{name}` placeholders filled.
 * @param {string} source
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function t(source, params) {
  const entry = catalogue[source];
  let text = source;
  if (typeof entry === "string") text = entry;
  else if (entry && params && typeof params.count === "number") {
    text = entry[plurals.select(params.count)] ?? entry.other ?? source;
  }
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    const value = params[name];
    if (value === undefined) return whole;
    return typeof value === "number" ? value.toLocaleString(language) : value;
  });
}

/** The language shown: `en`, `de`, `ru` or `fr`. */
export function currentLanguage() {
  return language;
}

/**
 * The language chosen before (kept), else the browser's first that the client speaks.
 * @returns {string}
 */
export function preferredLanguage() {
  const kept = localStorage.getItem(STORE);
  if (kept && LANGUAGES.includes(kept)) return kept;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

/**
 * Keeps the player's choice (a later load starts in it).
 * @param {string} chosen
 */
export function keepLanguage(chosen) {
  localStorage.setItem(STORE, chosen);
}

/**
 * Reads the language's catalogue and makes it the current one; `<html lang>` says it.
 * @param {string} wanted
 */
export async function loadLanguage(wanted) {
  const chosen = LANGUAGES.includes(wanted) ? wanted : "en";
  const response = await fetch(`locales/${chosen}.json`, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`no catalogue for ${chosen}: ${response.status}`);
  catalogue = await response.json();
  language = chosen;
  plurals = new Intl.PluralRules(chosen);
  document.documentElement.lang = chosen;
}

/** The attributes of the page's elements that hold words. */
const ATTRIBUTES = ["title", "placeholder", "aria-label"];

/**
 * The page's own words (text and the ATTRIBUTES) in the current language; an element
 * with a `lang` of its own (a language's name in the chooser) is left as it is.
 * @param {ParentNode} root
 */
export function translatePage(root = document.body) {
  const foreign = (/** @type {Element | null} */ el) => el !== null && el.closest("[lang]:not(html)") !== null;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const raw = node.nodeValue ?? "";
    const source = raw.replace(/\s+/g, " ").trim();
    if (!source || foreign(node.parentElement)) continue;
    const lead = raw.match(/^\s*/)?.[0] ? " " : "";
    const tail = raw.match(/\s*$/)?.[0] ? " " : "";
    node.nodeValue = lead + t(source) + tail;
  }
  for (const name of ATTRIBUTES) {
    root.querySelectorAll(`[${name}]`).forEach((el) => {
      const value = el.getAttribute(name);
      if (value && !foreign(el)) el.setAttribute(name, t(value));
    });
  }
  document.title = t(document.title);
}
