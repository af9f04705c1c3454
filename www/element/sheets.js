// Style sheets for the shadow roots: each file fetched once for the page,
// however many playgrounds ask at the same moment, and shared by all of them
// as one constructed sheet (a shadow root adopts it; nothing is copied).

const sheets = new Map(); // URL -> Promise<CSSStyleSheet>

/** The sheet at `url` (a URL object or text), fetched and parsed once. */
export function styleSheet(url) {
  const key = String(url);
  if (!sheets.has(key)) {
    const p = fetch(key).then(async (response) => {
      if (!response.ok) throw new Error(`${new URL(key).pathname}: ${response.status}`);
      const sheet = new CSSStyleSheet();
      await sheet.replace(await response.text());
      return sheet;
    });
    p.catch(() => sheets.delete(key));
    sheets.set(key, p);
  }
  return sheets.get(key);
}

/** Adds a sheet to a shadow root (once). */
export function adopt(root, sheet) {
  if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}
