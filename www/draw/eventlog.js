// The event log: the trace lines up to the current position, newest last.
// Lines wrap; only the last LOG_LINES_SHOWN are in the DOM (a step of a long
// timed run can cause hundreds of thousands), and the Trace dialog has them
// all. The text of a line is the core's trace line in English, or the same
// typed event in the page's language.

import { h } from './dom.js';
import { t } from '../words/i18n.js';

export const LOG_LINES_SHOWN = 300;

/** The class of a line, from the core's (English) trace line. */
function lineClass(line, current) {
  const cls = ['log-line'];
  if (current) cls.push('current');
  if (line.includes(' VIOLATION ')) cls.push('violation');
  else if (line.includes(' rejected ')) cls.push('rejected');
  else if (line.includes(' truncated its log ')) cls.push('truncation');
  return cls.join(' ');
}

/**
 * lines: all trace lines of the timeline; count: how many are up to the
 * current position; stepOf(i): the step of line i; currentFrom: the first
 * line of the current step; text(i): what line i says in the page's language.
 */
export function renderEventLog({ lines, count, stepOf, currentFrom, text }) {
  const first = Math.max(0, count - LOG_LINES_SHOWN);
  const rows = [];
  if (first > 0) rows.push(h('div', { class: 'log-line log-earlier', key: 'earlier', role: 'listitem' }, t('eventlog.earlier', { count: first })));
  for (let i = first; i < count; i++) {
    const cls = lineClass(lines[i], i >= currentFrom);
    const step = stepOf(i);
    const said = text(i);
    // A line drawn as before is left as it is.
    rows.push(h('div', { class: cls, key: i, memo: `${cls}|${step}|${said}`, 'data-step': step, role: 'listitem' }, said));
  }
  if (!count) rows.push(h('div', { class: 'log-line log-empty', key: 'empty', role: 'listitem' }, t('eventlog.empty')));
  return h('div', { class: 'log-list', role: 'list', 'aria-label': t('eventlog.count', { count }) }, rows);
}
