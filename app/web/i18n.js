// @ts-check
// The client's words (a stand-in: English only). `t(source, params)` takes the English
// text as the key of every catalogue and fills its `{name}` placeholders from `params`.

/**
 * @param {string} source the English text, with `{name}` placeholders
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function t(source, params = {}) {
  return source.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}
