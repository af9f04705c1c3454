// Notices (toasts): a short, bounded stack in the bottom corner, away from the
// timeline. Each goes by itself (errors last longer), the oldest gives way to
// a new one, and user text is quoted only as a short excerpt. A notice is a
// few lines at most (a longer text is clamped, whole in its title and behind
// "More"), its ✕ is always in view, and one under the pointer stays longer
// but still goes: a pointer resting on a corner of the page keeps nothing forever.

import { t } from '../words/i18n.js';
import { excerpt } from '../words/user-text.js';

export const MAX_NOTICES = 3;
const LIFETIME_MS = { info: 6000, warn: 9000, error: 15000 };
const HOVER_HOLD = 4; // under the pointer a notice stays up to this many lifetimes

/**
 * Shows a notice in `box`: kind is info, warn or error; `action` adds a
 * button ({ label, run }); `timeoutMs` overrides how long it stays.
 */
export function notify(box, kind, text, { action, timeoutMs } = {}) {
  const note = document.createElement('div');
  note.className = `notice notice-${kind}`;
  note.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  const p = document.createElement('p');
  p.className = 'notice-text';
  p.textContent = text;
  p.title = text;
  note.append(p);
  if (action) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'notice-action';
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
  if (!box) return note; // the element is gone: nowhere to show it
  box.append(note);
  while (box.children.length > MAX_NOTICES) box.firstElementChild.remove();
  // Clamped to a few lines: "More" shows the whole text (it is in the title too).
  if (p.scrollHeight > p.clientHeight + 1) {
    const more = document.createElement('button');
    more.type = 'button';
    more.className = 'notice-more link-button';
    more.textContent = t('notice.more');
    more.setAttribute('aria-expanded', 'false');
    more.addEventListener('click', () => {
      const open = note.classList.toggle('expanded');
      more.textContent = t(open ? 'notice.less' : 'notice.more');
      more.setAttribute('aria-expanded', String(open));
    });
    p.after(more);
  }
  // Under the pointer it stays longer, so a long message can be read, but not forever.
  const lifetime = timeoutMs ?? LIFETIME_MS[kind] ?? LIFETIME_MS.info;
  let timer = 0;
  const arm = (ms) => {
    clearTimeout(timer);
    timer = setTimeout(() => note.remove(), ms);
  };
  note.addEventListener('pointerenter', () => arm(lifetime * HOVER_HOLD));
  note.addEventListener('pointerleave', () => arm(lifetime));
  arm(lifetime);
  return note;
}
