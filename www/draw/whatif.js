// The what-if grid: the current scenario under every version preset × acks
// (1, all: given to every produce) × min.insync.replicas × unclean election,
// each cell the most severe outcome and its step, as the core's `whatif`
// reports them (`highwater whatif` prints the same grid). Pure: cells in,
// a table out.

import { h } from './dom.js';
import { t } from '../words/i18n.js';

/** The outcomes, most severe first (the order the core picks a cell's outcome in). */
export const OUTCOMES = ['acked_write_lost', 'committed_divergence', 'consumer_saw_vanished_record', 'hw_exceeds_leo', 'unclean_election_loss', 'acks1_write_lost', 'offline', 'not_enough_replicas', 'safe'];

/** Each outcome's tone (tone-* classes). */
export const TONE = {
  acked_write_lost: 'bad',
  committed_divergence: 'bad',
  consumer_saw_vanished_record: 'bad',
  hw_exceeds_leo: 'bad',
  // Losses Kafka's contract allows: by unclean.leader.election.enable, by acks=1.
  unclean_election_loss: 'warn',
  acks1_write_lost: 'warn',
  offline: 'muted',
  not_enough_replicas: 'muted',
  safe: 'ok',
};

/** The grid as a table: a row per version × acks, a column per min ISR × unclean election. */
export function renderGrid(cells, brokers) {
  const isrs = Array.from({ length: brokers }, (_, i) => i + 1);
  const byKey = new Map(cells.map((c) => [`${c.protocol}|${c.acks}|${c.min_insync_replicas}|${c.unclean_leader_election}`, c]));
  const protocols = [...new Set(cells.map((c) => c.protocol))];
  const cell = (c, i) => {
    if (!c) return h('td', { key: i, class: 'grid-cell pending' }, '…');
    const label = t(`whatif.outcome.${c.outcome}`);
    const where = c.step === null || c.step === undefined ? '' : t('whatif.at_step', { step: c.step });
    const title = `${t('version.name', { name: c.protocol })} · acks=${c.acks} · min.insync.replicas=${c.min_insync_replicas} · ${t(c.unclean_leader_election ? 'whatif.unclean_on' : 'whatif.unclean_off')}: ${label}${where ? ` ${where}` : ''}${c.stopped ? ` (${c.stopped})` : ''}`;
    return h('td', { key: i, class: `grid-cell tone-${TONE[c.outcome] || 'muted'}`, 'data-outcome': c.outcome },
      h('button', {
        type: 'button',
        class: 'grid-button',
        'data-protocol': c.protocol,
        'data-acks': c.acks,
        'data-min-isr': c.min_insync_replicas,
        'data-unclean': String(c.unclean_leader_election),
        'data-step': c.step ?? '',
        title,
        'aria-label': title,
      }, label, where ? h('span', { class: 'grid-step' }, ` ${where}`) : null, c.stopped ? '*' : null));
  };
  return h('table', { class: 'whatif-grid' },
    h('thead', null,
      h('tr', null,
        h('th', { rowspan: 2, scope: 'col' }, t('whatif.version')),
        h('th', { rowspan: 2, scope: 'col' }, 'acks'),
        isrs.map((n) => h('th', { key: n, colspan: 2, scope: 'colgroup' }, `min.insync.replicas=${n}`))),
      h('tr', null, isrs.flatMap((n) => [
        h('th', { key: `${n}f`, scope: 'col', class: 'small' }, t('whatif.unclean_off')),
        h('th', { key: `${n}t`, scope: 'col', class: 'small' }, t('whatif.unclean_on')),
      ]))),
    h('tbody', null, protocols.flatMap((p) => ['1', 'all'].map((acks) => h('tr', { key: `${p}${acks}` },
      acks === '1' ? h('th', { rowspan: 2, scope: 'row' }, p) : null,
      h('th', { scope: 'row' }, acks),
      isrs.flatMap((n) => [false, true].map((u) => cell(byKey.get(`${p}|${acks}|${n}|${u}`), `${n}${u}`))))))));
}

/** The outcomes' legend: each name with what it means. */
export function renderOutcomeLegend() {
  return h('dl', { class: 'whatif-legend' }, OUTCOMES.filter((o) => o !== 'hw_exceeds_leo').map((o) => h('div', { key: o, class: `tone-${TONE[o]}` },
    h('dt', null, t(`whatif.outcome.${o}`)),
    h('dd', null, t(`whatif.meaning.${o}`)))));
}
