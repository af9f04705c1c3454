// The cluster map: a topic's partitions by its brokers, at a glance. One row
// per partition (a button: it puts that partition on the board below), one
// column per broker, the brokers grouped by rack; each cell is that broker's
// replica of that partition as the controller sees it: the leader, a
// follower in the ISR, one out of it, one in the ELR, one on a broker that is
// down, or no replica. Above it, how many partitions are under-replicated,
// under min ISR and offline. Every fact is a field of the core's
// `partitions` summaries (`StateView::with_partitions`): nothing is decided
// here. Loaded with its style sheet the first time a topic of several
// partitions is drawn.

import { h } from './dom.js';
import { t } from '../words/i18n.js';
import { braces } from '../words/describe.js';

/** What a broker's replica of a partition is, as the map draws it. */
export function cellKind(partition, broker) {
  if (!partition.replicas.includes(broker.id)) return 'none';
  if (!broker.alive && broker.role !== 'starting') return 'down';
  if (partition.leader === broker.id) return 'leader';
  if (partition.elr.includes(broker.id)) return 'elr';
  return partition.isr.includes(broker.id) ? 'isr' : 'out';
}

const GLYPH = { leader: 'L', isr: '●', out: '○', elr: 'E', down: '×', none: '' };

/** The brokers in the map's column order: by rack, then by id (no racks: by id). */
export function columns(brokers) {
  return [...brokers].sort((a, b) => (a.rack ?? '').localeCompare(b.rack ?? '') || a.id - b.id);
}

/** Runs of neighbouring columns in one rack: [{ rack, span }]. */
function rackRuns(cols) {
  const runs = [];
  for (const b of cols) {
    const last = runs[runs.length - 1];
    if (last && last.rack === b.rack) last.span += 1;
    else runs.push({ rack: b.rack, span: 1 });
  }
  return runs;
}

/** A partition's state in words, for its row's label. */
function rowState(p) {
  const parts = [p.leader === null || p.leader === undefined ? t('map.no_leader') : t('map.led_by', { broker: p.leader }), `ISR ${braces(p.isr)}`];
  if (p.offline) parts.push(t('map.offline'));
  else if (p.under_min_isr) parts.push(t('map.under_min_isr'));
  if (p.under_replicated && !p.offline) parts.push(t('map.under_replicated'));
  return parts.join(t('map.separator'));
}

function count(label, n, testid) {
  return h('span', { class: `map-count${n ? ' map-count-bad' : ''}`, 'data-testid': testid, 'data-count': n }, t(label, { count: n }));
}

/** A partition's state as a class of its row or chip. */
function stateClass(p) {
  return p.offline ? 'is-offline' : p.under_min_isr ? 'is-under-min-isr' : p.under_replicated ? 'is-under-replicated' : '';
}

/**
 * The map of `state.partitions` over `state.brokers`; `selected` is the
 * partition on the board. `open`: the grid is shown; closed, one chip per
 * partition chooses it (the embed's first view, where height is short).
 */
export function renderClusterMap(state, { selected = 0, open = true } = {}) {
  const partitions = state.partitions;
  const cols = columns(state.brokers);
  const racks = cols.some((b) => b.rack !== null && b.rack !== undefined);
  const style = { '--map-cols': cols.length };
  const urp = partitions.filter((p) => p.under_replicated).length;
  const offline = partitions.filter((p) => p.offline).length;
  const underMin = partitions.filter((p) => p.under_min_isr && !p.offline).length;
  const rf = partitions[0].replicas.length;
  const head = h('div', { class: 'map-head', key: 'head' },
    h('button', { type: 'button', class: 'map-toggle', 'data-map-toggle': '', 'aria-expanded': String(open), title: t(open ? 'map.hide' : 'map.show') },
      h('span', { class: 'map-caret', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
      h('strong', { class: 'map-title' }, t('map.topic', { count: partitions.length, rf, brokers: cols.length }))),
    count('map.count_under_replicated', urp, 'map-urp'),
    count('map.count_under_min_isr', underMin, 'map-under-min-isr'),
    count('map.count_offline', offline, 'map-offline'),
  );
  if (!open) {
    // Closed: one line, the toggle, a chip per partition, and the counts that are not zero.
    return h('div', { class: 'map-closed', key: 'closed' },
      h('button', { type: 'button', class: 'map-toggle', 'data-map-toggle': '', 'aria-expanded': 'false', title: t('map.show') },
        h('span', { class: 'map-caret', 'aria-hidden': 'true' }, '▸'),
        h('strong', { class: 'map-title' }, t('map.partitions', { count: partitions.length }))),
      h('div', { class: 'map-chips', role: 'group', 'aria-label': t('map.label', { count: partitions.length }) },
        partitions.map((p) => h('button', {
          type: 'button', class: `map-chip ${stateClass(p)}${p.id === selected ? ' is-selected' : ''}`, key: `c${p.id}`, 'data-partition': p.id,
          'aria-pressed': String(p.id === selected), 'aria-label': t('map.row_label', { partition: p.id, state: rowState(p) }), title: t('map.row_label', { partition: p.id, state: rowState(p) }),
        }, `P${p.id}`))),
      count('map.count_under_replicated', urp, 'map-urp'),
      underMin ? count('map.count_under_min_isr', underMin, 'map-under-min-isr') : null,
      count('map.count_offline', offline, 'map-offline'),
    );
  }
  return [
    head,
    h('div', { class: 'map-grid', key: 'grid', role: 'group', 'aria-label': t('map.label', { count: partitions.length }), style },
      racks
        ? h('div', { class: 'map-line map-racks', 'aria-hidden': 'true', key: 'racks' },
            h('span', { class: 'map-corner' }),
            rackRuns(cols).map((r, i) => h('span', { class: 'map-rack', key: `r${i}`, style: { 'grid-column': `span ${r.span}` }, title: t('map.rack', { rack: r.rack ?? '–' }) }, r.rack ?? '–')))
        : null,
      h('div', { class: 'map-line map-brokers', 'aria-hidden': 'true', key: 'brokers' },
        h('span', { class: 'map-corner' }),
        cols.map((b) => h('span', { class: `map-broker${!b.alive && b.role !== 'starting' ? ' is-down' : ''}`, key: b.id, title: t('cluster.broker', { broker: b.id }) }, String(b.id)))),
      partitions.map((p) => {
        const classes = ['map-line', 'map-row'];
        if (p.id === selected) classes.push('is-selected');
        if (stateClass(p)) classes.push(stateClass(p));
        return h('button', {
          type: 'button', class: classes.join(' '), key: `p${p.id}`, 'data-partition': p.id, 'aria-pressed': String(p.id === selected),
          'aria-label': t('map.row_label', { partition: p.id, state: rowState(p) }),
        },
        h('span', { class: 'map-pid' }, `P${p.id}`),
        cols.map((b) => {
          const kind = cellKind(p, b);
          const preferred = p.preferred_leader === b.id;
          return h('span', { class: `map-cell kind-${kind}${preferred ? ' preferred' : ''}`, key: b.id, 'data-broker': b.id, 'data-kind': kind, 'aria-hidden': 'true' }, GLYPH[kind]);
        }));
      }),
    ),
    h('p', { class: 'map-legend muted', key: 'legend' },
      ['leader', 'isr', 'out', 'elr', 'down'].map((k) => h('span', { class: 'map-key', key: k }, h('span', { class: `map-cell kind-${k}`, 'aria-hidden': 'true' }, GLYPH[k]), ` ${t(`map.kind.${k}`)}`)),
      h('span', { class: 'map-key', key: 'preferred' }, h('span', { class: 'map-cell kind-none preferred', 'aria-hidden': 'true' }), ` ${t('map.kind.preferred')}`),
    ),
  ];
}
