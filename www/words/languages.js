// The page's languages, and which one to show: no import, so that the
// page's own script (index.js) decides its poster's language with it before
// the element's module has arrived.
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'zh-Hans', name: '简体中文' },
  { code: 'zh-Hant', name: '繁體中文' },
];

const CODES = new Set(LANGUAGES.map((l) => l.code));

/** Is `code` one of the page's languages? */
export function isLanguage(code) {
  return CODES.has(code);
}

/**
 * The language to show: `?lang=` when it names one, else the first of the
 * browser's languages the page speaks (Chinese script by region when the tag
 * names none), else English.
 */
export function chooseLanguage(requested, preferred = []) {
  if (isLanguage(requested)) return requested;
  for (const tag of preferred) {
    const lower = String(tag).toLowerCase();
    if (lower === 'en' || lower.startsWith('en-')) return 'en';
    if (lower === 'zh' || lower.startsWith('zh-')) {
      if (lower.includes('hant') || /-(tw|hk|mo)\b/.test(lower)) return 'zh-Hant';
      return 'zh-Hans';
    }
  }
  return 'en';
}
