// The operator's view: what Kafka's own tools would show at this moment, as
// the core computed it (`Simulation.operator()`, src/view/operator.rs), and
// each metric over the run (`operatorSeries`). Pure drawing: the describe
// lines, every metric value and every sample are the core's; this file only
// lays them out, every word by key.

import { h } from './dom.js';
import { t, num } from '../words/i18n.js';

/** The chart's size in SVG units (drawn at this size, CSS pixels). */
const W = 100;
const H = 28;
const PAD = 3;

/** One broker's value of a metric: a number, or a dash while its process is down. */
function brokerValue(value, broker) {
  return value === null || value === undefined
    ? t('operator.broker_down', { broker })
    : t('operator.broker_value', { broker, value: num(value) });
}

/**
 * A metric's dashboard value over the run: a step line (a gauge holds its
 * value between samples), a mark at the position shown. Choosing a point of
 * it goes to that step (`data-positions` says where the samples are).
 */
function chart(name, samples, positions, position) {
  const last = positions[positions.length - 1] || 0;
  const top = Math.max(1, ...samples);
  const x = (p) => (PAD + ((W - 2 * PAD) * p) / Math.max(1, last)).toFixed(1);
  const y = (v) => (H - PAD - ((H - 2 * PAD) * v) / top).toFixed(1);
  let d = `M${x(positions[0])} ${y(samples[0])}`;
  for (let k = 1; k < samples.length; k += 1) d += `H${x(positions[k])}V${y(samples[k])}`;
  // The sample in force at the position shown: the last one at or before it.
  let now = 0;
  while (now + 1 < positions.length && positions[now + 1] <= position) now += 1;
  const highest = Math.max(...samples);
  const at = positions[samples.indexOf(highest)];
  const label = t('operator.chart_label', { metric: name, first: num(samples[0]), highest: num(highest), step: num(at), last: num(samples[samples.length - 1]) });
  return h('svg', {
    class: 'metric-chart', xmlns: 'http://www.w3.org/2000/svg', width: W, height: H, viewBox: `0 0 ${W} ${H}`,
    role: 'img', 'aria-label': label, 'data-metric-chart': name, 'data-last': String(last),
  },
  h('title', null, label),
  h('line', { class: 'chart-base', x1: PAD, x2: W - PAD, y1: y(0), y2: y(0) }),
  h('path', { class: 'chart-line', d }),
  h('line', { class: 'chart-now', x1: x(Math.min(position, last)), x2: x(Math.min(position, last)), y1: 1, y2: H - 1 }),
  h('circle', { class: 'chart-dot', cx: x(Math.min(position, last)), cy: y(samples[now]), r: 2.2 }));
}

/**
 * A metric in one line: its name, the dashboard's value, its chart. What it
 * means, how the value is put together, each broker's own value and the
 * MBean are one click away (the name opens them).
 */
function metricRow(m, series, position) {
  const perBroker = m.per_broker.length
    ? m.per_broker.map((v, i) => brokerValue(v, i + 1)).join(' · ')
    : '';
  const samples = series && series.metrics.find((s) => s.name === m.name);
  return h('tr', { key: m.name, 'data-metric': m.name },
    h('th', { scope: 'row' },
      h('details', { class: 'metric-about' },
        h('summary', null,
          h('code', { class: 'metric-name' }, m.name),
          m.meter ? h('span', { class: 'metric-count muted small' }, ` (${t('operator.count')})`) : null),
        h('div', { class: 'metric-help muted small' }, t(`operator.metric.${m.name}`)),
        h('div', { class: 'metric-scope muted small' }, t(`operator.aggregate.${m.aggregate}`)),
        perBroker ? h('div', { class: 'metric-brokers muted small' }, perBroker) : null,
        h('div', { class: 'metric-mbean muted small' }, h('code', null, m.mbean)))),
    h('td', { class: 'metric-value', 'data-value': String(m.value) }, num(m.value)),
    h('td', { class: 'metric-run' }, samples ? chart(m.name, samples.values, series.positions, position) : null));
}

/** The words for an option's empty output: `--under-min-isr-partitions` -> `under_min_isr`. */
const noneKey = (option) => option.replace(/^--|-partitions$/g, '').replaceAll('-', '_');

/** `kafka-topics.sh --describe`, alone or with one of the options that list some partitions. */
function describe(view, option) {
  const list = view.lists.find((l) => l.option === option);
  const output = list ? list.output : view.describe;
  return [
    h('div', { class: 'operator-cmd' },
      h('label', { class: 'muted small', for: 'describe-option' }, t('operator.describe_caption', { topic: view.topic })),
      h('select', { id: 'describe-option', 'data-testid': 'describe-option' },
        h('option', { value: '', selected: !list }, t('operator.describe_all')),
        view.lists.map((l) => h('option', { key: l.option, value: l.option, selected: list === l }, l.option)))),
    output
      ? h('pre', { class: 'operator-describe', tabindex: '0', 'aria-label': t('operator.describe_label') }, output)
      : h('p', { class: 'operator-describe-none muted small', 'data-testid': 'describe-none' }, t(`operator.none.${noneKey(option)}`)),
  ];
}

/**
 * The panel's contents from an `OperatorView`, the run's `OperatorSeries`
 * (or null while it is not computed), the position shown and the
 * `--describe` option chosen ('' for every partition).
 */
export function renderOperator(view, series, position, option) {
  return [
    describe(view, option),
    h('table', { class: 'operator-metrics' },
      h('caption', { class: 'muted small' }, t('operator.metrics_caption')),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, t('operator.col_metric')),
        h('th', { scope: 'col' }, t('operator.col_value')),
        h('th', { scope: 'col' }, t('operator.col_run')))),
      h('tbody', null, view.metrics.map((m) => metricRow(m, series, position)))),
  ];
}

/** The step a click at `clientX` on a chart points at (the nearest sample's). */
export function chartPosition(svg, clientX) {
  const box = svg.getBoundingClientRect();
  const last = Number(svg.dataset.last);
  const p = Math.round(((clientX - box.left) / box.width * W - PAD) / (W - 2 * PAD) * last);
  return Math.max(0, Math.min(last, p));
}
