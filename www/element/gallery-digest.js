// A run's settings as a short digest (FNV-1a, 32 bits, of the settings'
// JSON as the core writes them, every default filled in): the gallery keeps
// one per entry and version (scripts/gallery.mjs), and the page compares the
// run's with them, so that a run is shown with an entry's words only under
// the settings those words are about. No imports: the gallery script loads
// it in Node.

/** The digest of `config` (an object, as `sim.scenario().config` gives it): 8 hex digits. */
export function settingsDigest(config) {
  const text = JSON.stringify(config ?? null);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
