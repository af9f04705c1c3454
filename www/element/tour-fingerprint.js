// A built-in tour's fingerprint: FNV-1a (32 bits) over its JSON as
// `JSON.stringify` writes the parsed file, as eight hex digits. The answers
// the build computed for a tour (www/tour-answers/<id>.json, written by
// scripts/tour-answers.mjs) carry the fingerprint of the tour they were
// computed from; the page uses them only for a tour with the same one.

/** The fingerprint of a tour's parsed data. */
export function tourFingerprint(data) {
  const text = JSON.stringify(data);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
