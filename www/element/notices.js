// Notices (toasts): a short, bounded stack in the bottom corner, away from the
// timeline. Each goes by itself (errors last longer), the oldest gives way to
// a new one, and user text is quoted only as a short excerpt.

import { t } from '../words/i18n.js';
import { excerpt } from '../words/user-text.js';

export const MAX_NOTICES = 3;
const LIFETIME_MS = { info: 6000, warn: 9000, error: 15000 };

/**
 * Shows a notice in `box`: kind is info, warn or error; `action` adds a
 * button ({ label, run }); `timeoutMs` overrides how long it stays.
 */
export function notify(box, kind, text, { action, timeoutMs } = {}) {
  const note = document.createElement('div');
  note.className = `notice notice-${kind}`;
  note.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  const p = document.createElement('p');
  p.textContent = text;
  note.append(p);
  if (action) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = action.label;
    b.addEventListener('click', () => {
      note.remove();
      action.run();
    });
    note.append(b);
  }
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'close';
  close.setAttribute('aria-label', t('notice.dismiss'));
  close.textContent = '✕';
  close.addEventListener('click', () => note.remove());
  note.append(close);
  box.append(note);
  while (box.children.length > MAX_NOTICES) box.firstElementChild.remove();
  // It stays while the pointer is on it, so a long message can be read.
  let timer = 0;
  const arm = () => { timer = setTimeout(() => note.remove(), timeoutMs ?? LIFETIME_MS[kind] ?? LIFETIME_MS.info); };
  note.addEventListener('pointerenter', () => clearTimeout(timer));
  note.addEventListener('pointerleave', arm);
  arm();
  return note;
}
