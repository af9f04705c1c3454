// A user's own text (a scenario's name, a record's value, a key from a link)
// as the page quotes it: a short excerpt on one line.

export const EXCERPT_CHARS = 60;

/** A user's text as a short excerpt: at most EXCERPT_CHARS characters, on one line. */
export function excerpt(text, max = EXCERPT_CHARS) {
  const flat = String(text).replace(/\s+/g, ' ');
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}
