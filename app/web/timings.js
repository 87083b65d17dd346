// @ts-check
// Waits on the clock that the browser tests (tests/web) shorten where a test is not about
// how long they last: each is its default below, unless the page's storage holds
// `solitaire.timings`, a JSON object of shorter ones (`{"backSignMs": 1000}`). A value
// that is not a number, or not shorter than its default, is ignored.

/** The defaults, in milliseconds. */
const DEFAULT_TIMINGS = Object.freeze({
  /** before a request that got no answer is sent again (doubled for each next time) */
  resendMs: 250,
  /** how long the sign that the live connection is back stays */
  backSignMs: 3000,
  /** between the moves of a line that plays itself at the fast speed (coach.js) */
  fastLineMs: 150,
});

/** @typedef {{ resendMs: number, backSignMs: number, fastLineMs: number }} Timings */

/** @returns {Timings} the defaults, less what the page's storage shortens */
function read() {
  /** @type {Timings} */
  const timings = { ...DEFAULT_TIMINGS };
  /** @type {unknown} */
  let stored = null;
  try {
    stored = JSON.parse(localStorage.getItem("solitaire.timings") ?? "null");
  } catch {
    return timings;
  }
  if (stored === null || typeof stored !== "object") return timings;
  const given = /** @type {Record<string, unknown>} */ (stored);
  for (const name of /** @type {(keyof Timings)[]} */ (Object.keys(timings))) {
    const value = given[name];
    if (typeof value === "number" && value >= 0 && value < timings[name]) timings[name] = value;
  }
  return timings;
}

/** The waits of this page, read once as it loads. */
export const TIMINGS = Object.freeze(read());
