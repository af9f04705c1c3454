// A user's own text (a scenario's name, a record's value, a key from a link)
// as the page shows it. Characters that are not seen but change what is seen
// (controls, bidi overrides and isolates such as U+202E, zero-width and other
// format characters, line separators) are shown escaped, as the core's trace
// and the event log write them (Rust's `{:?}`: `\u{202e}`), so "gnp.exe"
// with a right-to-left override cannot read "exe.png", and no reversal spills
// into what is drawn beside it. Where a user's text sits beside the page's own
// words, the drawing also isolates it (`<bdi>`, `unicode-bidi: isolate`), so a
// right-to-left value written as it should be stays in its own box.

export const EXCERPT_CHARS = 60;

// Controls (C0, DEL, C1), format characters (bidi marks, embeddings,
// overrides and isolates, zero-width spaces, the BOM, interlinear
// annotations…), line and paragraph separators, unpaired surrogates and
// noncharacters. Kept: the zero-width joiner (emoji sequences) and the
// variation selectors (not format characters).
const HIDDEN = /(?!\u200d)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\ufdd0-\ufdef\ufffe\uffff]/gu;
const SHORT = { '\0': '\\0', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A user's text with its unseen characters written out (`\u{202e}`, `\n`); the rest as written. */
export function visible(text) {
  return String(text ?? '').replace(HIDDEN, (ch) => SHORT[ch] ?? `\\u{${ch.codePointAt(0).toString(16)}}`);
}

/** A user's text as a short excerpt: at most EXCERPT_CHARS characters (before escaping), on one line, unseen characters written out. */
export function excerpt(text, max = EXCERPT_CHARS) {
  const flat = String(text ?? '').replace(/[ \t\n\r\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g, ' ');
  const chars = [...flat];
  return visible(chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`);
}

// Characters XML 1.0 does not allow at all (not even as references): what a
// standalone SVG cannot carry. `visible` writes them out; this is the net
// under it for any text that reaches an export.
const NOT_XML = /[\0-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text as XML can carry it: characters XML forbids written out as `visible` would. */
export function xmlSafe(text) {
  return String(text ?? '').replace(NOT_XML, (ch) => SHORT[ch] ?? `\\u{${ch.charCodeAt(0).toString(16)}}`);
}
