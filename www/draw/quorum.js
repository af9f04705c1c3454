// The KRaft controller quorum on the board: a line with the active
// controller, the quorum epoch and the metadata HW, then the metadata log
// (`__cluster_metadata`) drawn in the partition's grammar: records as cells
// coloured by the epoch that appended them, solid below the HW and dashed
// above it, LEO and HW markers, roles. Closed (a tour, an embed), it is one
// row: each controller with its role and actions, and the log of the quorum
// leader with a flag where each other controller's log ends, as the
// partition's leader flags its followers. Open, it is a row per controller,
// each with its own log. The actions are the brokers' (crash or restart,
// isolate or reconnect) and resign for the active controller. Every fact is
// a field of the core's `quorum` view (`src/view/quorum.rs`): nothing is
// decided here. Loaded with its style sheet the first time a scenario with
// controllers is drawn; a scenario without loads none of it.

import { h } from './dom.js';
import { EPOCH_COLOURS } from './render.js';
import { t } from '../words/i18n.js';

const has = (v) => v !== null && v !== undefined;

/**
 * A metadata record's cell: its Kafka name shortened, and what it names
 * (`c1` a controller, `b2` a broker, `p0→2` partition 0 led by broker 2),
 * read from the core's words for it (`MetadataRecord`'s Display, the
 * `record` of `highwater run --json`). The cell's title has the whole.
 */
const SHORT = [
  [/^LeaderChange controller (\d+)/, (m) => ['Leader', `c${m[1]}`]],
  [/^RegisterBroker (\d+)/, (m) => ['Reg', `b${m[1]}`]],
  [/^PartitionRecord p(\d+) leader (\d+)/, (m) => ['Part', `p${m[1]}→${m[2]}`]],
  [/^PartitionChange p(\d+) leader (\d+)/, (m) => ['Change', `p${m[1]}→${m[2]}`]],
  [/^PartitionChange p(\d+) \(no leader\)/, (m) => ['Change', `p${m[1]}→–`]],
  [/^FenceBroker (\d+)/, (m) => ['Fence', `b${m[1]}`]],
  [/^UnfenceBroker (\d+)/, (m) => ['Unfence', `b${m[1]}`]],
];

export function recordLabel(record) {
  for (const [re, make] of SHORT) {
    const m = re.exec(record);
    if (m) return make(m);
  }
  return [record.split(' ')[0], ''];
}

/**
 * The metadata offsets drawn, [start, end): the last `count` of the longest
 * log. Where a row's track is narrower than they need (beside the
 * controller's name on a phone), they are drawn from its right edge, so the
 * logs' ends and their LEO stay in view (quorum.css: `--n`).
 */
export function quorumWindow(q, count) {
  const end = Math.max(0, ...q.voters.map((v) => v.log_end_offset));
  return { start: Math.max(0, end - count), end };
}

function quorumLine(q, open, compact) {
  return h('div', { class: 'controller-strip quorum-strip' },
    h('button', { type: 'button', class: 'quorum-toggle', 'data-quorum-toggle': '', 'aria-expanded': String(open), title: t(open ? 'quorum.one_row' : 'quorum.each_log') },
      h('span', { class: 'quorum-caret', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
      h('span', { class: 'controller-label' }, t('quorum.label'))),
    h('span', { title: t('quorum.active_help') }, `${t('quorum.active')} `,
      has(q.active_controller)
        ? h('strong', { 'data-testid': 'quorum-active' }, String(q.active_controller))
        : h('span', { class: 'tag tag-bad', 'data-testid': 'quorum-active', title: t('quorum.none') }, t(compact ? 'quorum.none_short' : 'quorum.none'))),
    h('span', null, `${t('cluster.epoch')} `, h('strong', { 'data-testid': 'quorum-epoch' }, String(q.epoch))),
    h('span', { title: t('quorum.hw_help') }, `${t('quorum.hw')} `, h('strong', { 'data-testid': 'quorum-hw' }, has(q.high_watermark) ? String(q.high_watermark) : '–')),
  );
}

/**
 * The quorum: its line, then one row (closed) or a row per controller
 * (`view.quorumOpen`). In an embed (`view.compact`), closed is the line
 * alone, beside the partition's (the board's height is the brokers'); its
 * toggle opens the rows.
 */
export function renderQuorum(state, view) {
  const q = state.quorum;
  const count = view.windowCount;
  const open = Boolean(view.quorumOpen);
  const { start, end } = quorumWindow(q, count);
  const lineOnly = !open && view.compact;
  return h('section', { class: `quorum${open ? ' open' : ''}`, 'data-testid': 'quorum', 'aria-label': t('quorum.label'), style: { '--n': end - start } },
    quorumLine(q, open, view.compact),
    open ? q.voters.map((v) => controllerRow(v, q, start, count)) : lineOnly ? null : quorumRow(q, start, count),
  );
}

/**
 * The controller whose log the closed row draws: the quorum leader; with
 * none, the controller up whose log is longest (the first of them).
 */
export function drawnController(q) {
  const leader = q.voters.find((v) => v.id === q.leader && v.alive);
  if (leader) return leader;
  const up = q.voters.filter((v) => v.alive);
  return (up.length ? up : q.voters).reduce((best, v) => (v.log_end_offset > best.log_end_offset ? v : best));
}

/** The closed quorum: the controllers with their roles and actions beside one log, the others' ends flagged on it. */
function quorumRow(q, start, count) {
  const drawn = drawnController(q);
  return h('section', { class: 'controller-row quorum-row', key: 'one', 'data-drawn': drawn.id, role: 'group', 'aria-label': t('quorum.drawn_label', { controller: drawn.id }) },
    h('div', { class: 'broker-info controller-info' },
      q.voters.map((v) => h('div', { class: `voter${v.alive ? '' : ' is-down'}`, key: `v${v.id}`, 'data-testid': `voter-${v.id}`, 'data-controller': v.id },
        h('span', { class: 'voter-name', title: t('quorum.row_label', { controller: v.id, role: t(`quorum.role.${v.role}`), epoch: v.epoch, leo: v.log_end_offset, hw: has(v.high_watermark) ? v.high_watermark : '–' }) }, t('quorum.name', { controller: v.id })),
        roleTag(v),
        v.isolated ? h('span', { class: 'tag tag-bad', 'data-testid': `voter-${v.id}-isolated` }, t('quorum.isolated')) : null,
        controllerActions(v, q),
      )),
    ),
    h('div', { class: 'track', 'data-window-start': start },
      h('div', { class: 'cells' }, drawn.log.filter((r) => r.offset >= start && r.offset < start + count).map((r) => recordCell(r, drawn, start))),
      markers(drawn, start, count, q.voters.filter((v) => v.id !== drawn.id)),
    ),
  );
}

function roleTag(v) {
  return h('span', { class: `role role-${v.role === 'leader' ? 'leader' : v.alive ? 'quorum' : 'down'}`, 'data-role': v.role }, t(`quorum.role.${v.role}`));
}

function controllerRow(v, q, start, count) {
  const classes = ['controller-row', `role-${v.role}`];
  if (!v.alive) classes.push('is-down');
  if (v.isolated) classes.push('is-isolated');
  const role = t(`quorum.role.${v.role}`);
  const label = t('quorum.row_label', { controller: v.id, role, epoch: v.epoch, leo: v.log_end_offset, hw: has(v.high_watermark) ? v.high_watermark : '–' });
  return h('section', { class: classes.join(' '), key: `c${v.id}`, 'data-controller': v.id, 'data-testid': `voter-${v.id}`, role: 'group', 'aria-label': label },
    h('div', { class: 'broker-info controller-info' },
      h('div', { class: 'controller-title' },
        h('span', { class: 'broker-name' }, t('quorum.name', { controller: v.id })),
        roleTag(v),
        h('span', { class: 'epoch-pill', title: t('quorum.epoch_help') }, `${t('cluster.epoch')} `, h('span', null, String(v.epoch))),
      ),
      v.isolated ? h('div', { class: 'badges' }, h('span', { class: 'tag tag-bad', 'data-testid': `voter-${v.id}-isolated` }, t('quorum.isolated'))) : null,
      h('div', { class: 'stats' },
        h('span', { class: 'stat', title: t('quorum.leo_help') }, h('span', { class: 'stat-label' }, 'LEO'), ' ', h('span', { class: 'stat-value', 'data-stat': 'leo' }, String(v.log_end_offset))),
        h('span', { class: 'stat', title: t('quorum.hw_help') }, h('span', { class: 'stat-label' }, 'HW'), ' ', h('span', { class: 'stat-value', 'data-stat': 'hw' }, has(v.high_watermark) ? String(v.high_watermark) : '–')),
        has(v.voted_for) && v.role !== 'leader' ? h('span', { class: 'stat muted', 'data-stat': 'voted-for' }, t('quorum.voted_for', { controller: v.voted_for })) : null,
      ),
      controllerActions(v, q),
    ),
    h('div', { class: 'track', 'data-window-start': start },
      h('div', { class: 'cells' }, v.log.filter((r) => r.offset >= start && r.offset < start + count).map((r) => recordCell(r, v, start))),
      markers(v, start, count),
    ),
  );
}

function recordCell(r, v, start) {
  const committed = has(v.high_watermark) && r.offset < v.high_watermark;
  const [name, what] = recordLabel(r.record);
  const title = t(committed ? 'quorum.cell_committed' : 'quorum.cell_uncommitted', { offset: r.offset, epoch: r.epoch, record: r.record });
  return h('div', { class: `cell md-cell epoch-${r.epoch % EPOCH_COLOURS} ${committed ? 'committed' : 'uncommitted'}`, key: r.offset, style: { '--o': r.offset - start }, title, 'data-record': r.record },
    h('span', { class: 'cell-offset' }, String(r.offset)),
    h('span', { class: 'md-name' }, name),
    what ? h('span', { class: 'md-what' }, what) : null,
    h('span', { class: 'cell-epoch' }, `e${r.epoch}`),
  );
}

/** A log's HW and LEO; on the closed row, a flag where each other controller's log ends (`others`). */
function markers(v, start, count, others = []) {
  const end = start + count;
  const at = (offset) => Math.min(Math.max(offset, start), end) - start;
  const marker = (kind, offset, text, title, key = kind) => {
    const o = at(offset);
    const edge = o > count - 3 ? ' edge-right' : o < 1 ? ' edge-left' : '';
    return h('div', { class: `marker marker-${kind}${edge}`, key, style: { '--o': o }, title, 'data-marker': kind },
      h('span', { class: 'marker-label' }, text));
  };
  const byEnd = new Map();
  for (const o of others) byEnd.set(o.log_end_offset, [...(byEnd.get(o.log_end_offset) || []), o.id]);
  return h('div', { class: 'markers' },
    has(v.high_watermark) ? marker('hw', v.high_watermark, `HW ${v.high_watermark}`, t('quorum.hw_help')) : null,
    marker('leo', v.log_end_offset, `LEO ${v.log_end_offset}`, t('quorum.leo_help')),
    [...byEnd].map(([offset, ids]) => h('div', { class: 'marker marker-remote', key: `r${offset}`, style: { '--o': at(offset) }, title: t('quorum.others_end', { controllers: ids.join(', '), count: ids.length, offset }), 'data-remote-marker': ids.join(',') },
      h('span', { class: 'marker-label' }, `▴ ${ids.join(',')}`))),
  );
}

/** A controller's faults, in the brokers' grammar: the process, then a menu. */
function controllerActions(v, q) {
  const id = v.id;
  const a = (key) => t(`quorum.action.${key}`, { controller: id });
  const btn = (action, key, slot = action) => h('button', { type: 'button', class: 'mini', key: slot, 'data-action': action, 'data-controller': id, 'aria-label': a(`${key}_label`) }, a(key));
  return h('div', { class: 'broker-actions' },
    v.alive ? btn('crash-controller', 'crash', 'process') : btn('restart-controller', 'restart', 'process'),
    h('details', { class: 'more', key: 'more' },
      h('summary', { class: 'mini', 'aria-label': a('more_label') }, a('more')),
      h('div', { class: 'menu' },
        h('div', { class: 'menu-row', key: 'isolate' }, v.isolated ? btn('heal-controller', 'reconnect') : btn('isolate-controller', 'isolate')),
        // A graceful hand-over (`RaftClient.resign`, EndQuorumEpoch): the active controller's only.
        q.active_controller === id ? h('div', { class: 'menu-row', key: 'resign' }, btn('resign', 'resign')) : null,
      ),
    ),
  );
}
