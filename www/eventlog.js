// The event log: the trace lines up to the current position, drawn as a
// windowed list (only the rows in view exist in the DOM), so a run with
// thousands of events stays light.

import { h } from './dom.js';

export const ROW_HEIGHT = 20;
const OVERSCAN = 8;

/**
 * lines: all trace lines of the timeline; count: how many are up to the
 * current position; stepOf(i): the step of line i; currentFrom: the first
 * line of the current step; scrollTop/height: the viewport.
 */
export function renderEventLog({ lines, count, stepOf, currentFrom, scrollTop, height }) {
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  const rows = [];
  for (let i = first; i < last; i++) {
    const line = lines[i];
    const cls = ['log-line'];
    if (i >= currentFrom) cls.push('current');
    if (line.includes(' VIOLATION ')) cls.push('violation');
    else if (line.includes(' rejected ')) cls.push('rejected');
    else if (line.includes(' truncated its log ')) cls.push('truncation');
    rows.push(h('div', { class: cls.join(' '), key: i, style: `top:${i * ROW_HEIGHT}px`, title: line, 'data-step': stepOf(i), role: 'listitem' }, line));
  }
  return h('div', { class: 'log-spacer', style: `height:${count * ROW_HEIGHT}px`, role: 'list', 'aria-label': `${count} trace lines` }, rows);
}
