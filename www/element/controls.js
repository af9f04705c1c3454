// The controls that act on the run: each broker's buttons, the producer and
// consumer, the network form, the clock's buttons, elections, the record
// cells' zoom and window, and the event log's lines (a click seeks). Every
// action is a step handed to the core.

import { h, patch } from '../draw/dom.js';
import { t } from '../words/i18n.js';
import { formatMs } from '../words/describe.js';

function intField(input, fallback) {
  const n = Number(input && input.value);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback;
}

/** The step a controller row's button stands for (draw/quorum.js). */
function controllerStep(button) {
  const controller = Number(button.dataset.controller);
  const steps = {
    'crash-controller': () => ({ crash: { controller } }),
    'restart-controller': () => ({ restart: { controller } }),
    'isolate-controller': () => ({ isolate: { controller } }),
    'heal-controller': () => ({ heal: { controller } }),
    resign: () => ({ resign: null }),
  };
  const make = steps[button.dataset.action];
  return make ? make() : null;
}

/** The step a broker card's button stands for. */
function brokerStep(pg, button) {
  if (button.dataset.controller) return controllerStep(button);
  const id = Number(button.dataset.broker);
  const field = (name) => pg.$('cluster').querySelector(`input[data-field="${name}"][data-broker="${id}"]`);
  const steps = {
    fetch: () => ({ fetch: id }),
    crash: () => ({ crash: { broker: id } }),
    restart: () => ({ restart: id }),
    powerloss: () => ({ crash: { broker: id, lose_unflushed: Math.max(1, intField(field('lose'), 1)) } }),
    isolate: () => ({ isolate: id }),
    'heal-broker': () => ({ heal: id }),
    'cut-controller': () => ({ cut_controller: id }),
    'controlled-shutdown': () => ({ controlled_shutdown: id }),
    'begin-controlled-shutdown': () => ({ begin_controlled_shutdown: id }),
    pause: () => ({ pause: id }),
    resume: () => ({ resume: id }),
    delay: () => ({ delay: { broker: id, ms: intField(field('delay'), 400) } }),
    elect: () => (pg.partition ? { elect: { partition: pg.partition, broker: id } } : { elect: id }),
    'crash-rack': () => ({ crash: { rack: button.dataset.rack } }),
    'isolate-rack': () => ({ isolate: { rack: button.dataset.rack } }),
  };
  const make = steps[button.dataset.action];
  return make ? make() : null;
}

function onClusterClick(pg, event) {
  // The leader's own Produce: the Producer form, submitted as it is.
  if (event.target.closest('button[data-produce]')) {
    pg.$('produce-form').requestSubmit();
    return;
  }
  if (event.target.closest('button[data-quorum-toggle]')) {
    pg.quorumOpen = !pg.quorumOpen;
    pg.draw();
    return;
  }
  const button = event.target.closest('button[data-action]');
  if (!button) return;
  if (button.getAttribute('aria-disabled') === 'true') {
    pg.notify('warn', t('notice.not_possible', { reason: button.dataset.reason }), { timeoutMs: 5000 });
    return;
  }
  const step = brokerStep(pg, button);
  if (!step) return;
  const menu = button.closest('details');
  if (menu) menu.open = false;
  if (!pg.apply(step)) return;
  // In manual mode a fetch is one whole round: a link's latency changes nothing
  // on the board until followers fetch on their own. Said, with the way there.
  if (step.delay && !pg.config.auto_fetch) {
    pg.notify('info', t('notice.delay_step_mode', { broker: step.delay.broker, ms: step.delay.ms }), {
      timeoutMs: 12000,
      action: { label: t('notice.timed_mode_on'), run: () => switchToTimedMode(pg) },
    });
  }
}

/** The run again in timed mode (as the settings would), its manual run one Undo away. */
function switchToTimedMode(pg) {
  pg.player.stop();
  const before = pg.currentScenario();
  const position = pg.sim.position();
  const ok = pg.guarded(t('notice.could_not_step', { step: t('notice.timed_mode_on') }), () => pg.loadScenario({ ...before, config: { ...before.config, auto_fetch: true } }, { at: position }));
  if (!ok.ok) return;
  pg.undo = { scenario: before, position };
  pg.notify('info', before.steps.length ? t('notice.settings_rebuilt', { count: before.steps.length }) : t('notice.settings_applied'), pg.undoAction());
}

export function wireControls(pg) {
  const $ = (id) => pg.$(id);
  const player = pg.player;
  $('btn-reset').addEventListener('click', () => {
    player.stop();
    pg.keepForUndo();
    const steps = pg.steps.length;
    pg.loadScenario({ version: 1, config: { ...pg.config }, steps: [] });
    if (steps) pg.notify('info', t('notice.reset', { count: steps }), pg.undoAction());
  });

  $('cluster').addEventListener('click', (e) => onClusterClick(pg, e));
  // The cluster map: a partition's row puts it on the board.
  $('cluster-map').addEventListener('click', (e) => {
    const row = e.target.closest('button[data-partition]');
    if (row) pg.setPartition(Number(row.dataset.partition));
    if (e.target.closest('button[data-map-toggle]')) {
      pg.mapOpen = !pg.mapOpen;
      pg.draw();
    }
  });
  // The operator's view: the describe option, and a chart's point goes to its step.
  $('operator').addEventListener('change', (e) => {
    if (e.target.id !== 'describe-option') return;
    pg.describeOption = e.target.value;
    pg.draw();
  });
  $('operator').addEventListener('click', (e) => {
    const svg = e.target.closest('svg[data-metric-chart]');
    if (svg && pg.operatorView) { player.stop(); pg.seek(pg.operatorView.chartPosition(svg, e.clientX), { animate: true }); }
  });
  $('banner').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-action="goto"]');
    if (b) { player.stop(); pg.seek(Number(b.dataset.step), { animate: true }); }
  });
  $('network').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-action="heal-link"]');
    if (b) pg.apply({ heal: [Number(b.dataset.a), Number(b.dataset.b)] });
  });
  $('link-form').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-link]');
    if (!b) return;
    const a = Number($('link-a').value);
    const c = Number($('link-b').value);
    const steps = { cut: { cut: [a, c] }, partition: { partition: [a, c] }, heal: { heal: [a, c] }, 'heal-all': { heal: 'all' } };
    pg.apply(steps[b.dataset.link]);
  });
  // A hint's own button: the control it stands for, which may be among the closed tools.
  $('caption').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-hint-action]');
    if (b) $(b.dataset.hintAction === 'session' ? 'btn-session' : 'btn-settings').click();
  });
  pg.root.querySelectorAll('button[data-advance]').forEach((b) => b.addEventListener('click', () => {
    const kind = b.dataset.advance;
    const ms = kind === 'session' ? pg.config.broker_session_timeout_ms : kind === 'lag' ? pg.config.replica_lag_time_max_ms : Number(kind);
    pg.apply({ advance_ms: ms });
  }));
  $('btn-elect').addEventListener('click', () => {
    const v = $('elect-target').value;
    const broker = v === '' ? null : Number(v);
    if (pg.partition) pg.apply({ elect: broker === null ? { partition: pg.partition } : { partition: pg.partition, broker } });
    else pg.apply({ elect: broker });
  });
  // kafka-leader-election.sh --election-type PREFERRED for the partition shown (in a topic of one, the topic).
  $('btn-elect-preferred').addEventListener('click', () => pg.apply({ elect_preferred: pg.partitions > 1 ? pg.partition : null }));
  $('produce-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('produce-value');
    const value = input.value !== '' ? input.value : input.placeholder;
    const step = { produce: { value, acks: $('produce-acks').value } };
    const to = $('produce-to').value;
    if (to !== '') step.produce.to = Number(to);
    if (pg.partitions > 1) {
      // A partition chosen, else the key's (Kafka's hash), else the next in turn.
      const partition = $('produce-partition').value;
      const key = $('produce-key').value;
      if (partition !== '') step.produce.partition = Number(partition);
      if (key !== '') step.produce.key = key;
    }
    if (pg.apply(step)) input.value = ''; // apply() numbers the next placeholder
  });
  $('btn-consume').addEventListener('click', () => pg.apply({ consume: null }));
  $('zoom').value = pg.zoom;
  $('zoom').addEventListener('change', (e) => { pg.zoom = e.target.value; pg.draw(); });

  // Log window (which offsets are drawn).
  $('win-start').addEventListener('input', (e) => { pg.follow = false; pg.windowStart = Number(e.target.value); pg.draw(); });
  $('win-prev').addEventListener('click', () => { pg.follow = false; pg.windowStart = Math.max(0, pg.windowStart - Math.max(1, Math.floor(pg.windowCount / 2))); pg.draw(); });
  $('win-next').addEventListener('click', () => { pg.follow = false; pg.windowStart += Math.max(1, Math.floor(pg.windowCount / 2)); pg.draw(); });
  $('win-end').addEventListener('click', () => { pg.follow = true; pg.draw(); });

  // Event log: click a line to go to its step.
  $('event-log').addEventListener('click', (e) => {
    const line = e.target.closest('.log-line');
    if (line && line.dataset.step) { player.stop(); pg.seek(Number(line.dataset.step), { animate: true }); }
  });

  pg.root.addEventListener('keydown', (e) => closeMenusOnEscape(pg, e));

  // The producer list draws the rows in view (render.js): a scroll draws those now there.
  const producer = $('producer');
  let frame = 0;
  producer.addEventListener('scroll', () => {
    pg.producerTop = producer.scrollTop;
    pg.producerHeight = producer.clientHeight;
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      pg.drawProducer();
    });
  }, { passive: true });

  // The records' track's width, read where the layout is done already (the
  // playground observes the track once it exists); a new width that changes
  // how many offsets fit redraws.
  pg.sizes = new ResizeObserver(() => {
    if (!pg.sim) return;
    pg.trackWidth = pg.readTrackWidth();
    const count = pg.measureWindow();
    if (count !== pg.windowCount) pg.draw();
  });
  pg.sizes.observe($('cluster'));
}

/**
 * Escape closes an open menu (a broker's More, Export: <details>, which have
 * no Escape of their own) and gives the focus back to its summary. While a
 * dialog is open, Escape is the dialog's: it closes the dialog. Safe to call
 * twice for one event (from the shadow root and from the document).
 */
export function closeMenusOnEscape(pg, e) {
  if (e.key !== 'Escape' || e.defaultPrevented || pg.root.querySelector('dialog[open]')) return;
  const open = [...pg.root.querySelectorAll('details.more[open], details.export-menu[open]')];
  if (!open.length) return;
  const target = e.composedPath()[0];
  const around = open.find((d) => d.contains(target));
  for (const d of open) d.open = false;
  if (around) around.querySelector('summary').focus();
  e.preventDefault();
}

/** Controls that depend on the configuration (broker lists, time buttons). */
export function refreshStaticControls(pg) {
  const $ = (id) => pg.$(id);
  const ids = Array.from({ length: pg.config.brokers }, (_, i) => i + 1);
  const options = (first) => [first, ...ids.map((id) => h('option', { value: id, key: id }, t('cluster.broker', { broker: id })))];
  const keep = (select, fn) => {
    const v = select.value;
    patch(select, fn());
    select.value = [...select.options].some((o) => o.value === v) ? v : select.options[0]?.value ?? '';
  };
  keep($('elect-target'), () => options(h('option', { value: '', key: 'c' }, t('toolbar.controllers_choice'))));
  keep($('produce-to'), () => options(h('option', { value: '', key: 'l' }, t('producer.to_leader'))));
  // A topic of several partitions: where a record goes (the partition shown, by default).
  const cluster = pg.partitions > 1;
  for (const label of pg.root.querySelectorAll('#produce-form .cluster-only')) label.hidden = !cluster;
  if (cluster) {
    patch($('produce-partition'), [
      h('option', { value: '', key: 'k' }, t('producer.partition_by_key')),
      ...Array.from({ length: pg.partitions }, (_, p) => h('option', { value: p, key: `p${p}` }, t('map.partition', { partition: p }))),
    ]);
    $('produce-partition').value = String(pg.partition);
  }
  keep($('link-a'), () => options(null));
  keep($('link-b'), () => options(null));
  if ($('link-a').value === $('link-b').value && ids.length > 1) $('link-b').value = String(ids.find((i) => String(i) !== $('link-a').value));
  const session = formatMs(pg.config.broker_session_timeout_ms);
  const lag = formatMs(pg.config.replica_lag_time_max_ms);
  $('btn-session').textContent = t('toolbar.session', { time: session });
  $('btn-session').setAttribute('aria-label', t('toolbar.session_label', { time: session }));
  $('btn-lag').textContent = t('toolbar.lag', { time: lag });
  $('btn-lag').setAttribute('aria-label', t('toolbar.lag_label', { time: lag }));
  updateProducePlaceholder(pg);
}

export function updateProducePlaceholder(pg) {
  const n = pg.steps.filter((s) => s && s.produce).length + 1;
  pg.$('produce-value').placeholder = `m${n}`;
}
