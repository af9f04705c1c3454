// The operator's view: what Kafka's own tools would show at this moment, as
// the core computed it (`Simulation.operator()`, src/view/operator.rs). Pure
// drawing: the describe line and every metric value are the core's; this
// file only lays them out, every word by key.

import { h } from './dom.js';
import { t, num } from '../words/i18n.js';

/** One broker's value of a metric: a number, or a dash while its process is down. */
function brokerValue(value, broker) {
  return value === null || value === undefined
    ? t('operator.broker_down', { broker })
    : t('operator.broker_value', { broker, value: num(value) });
}

function metricRow(m) {
  const perBroker = m.per_broker.length
    ? m.per_broker.map((v, i) => brokerValue(v, i + 1)).join(' · ')
    : '';
  return h('tr', { key: m.name, 'data-metric': m.name },
    h('th', { scope: 'row' },
      h('code', { class: 'metric-name', title: m.mbean }, m.name),
      m.meter ? h('span', { class: 'metric-count' }, ` (${t('operator.count')})`) : null,
      h('div', { class: 'metric-help muted small' }, t(`operator.metric.${m.name}`))),
    h('td', { class: 'metric-value', 'data-value': String(m.value) }, num(m.value),
      h('div', { class: 'metric-scope muted small' }, t(`operator.aggregate.${m.aggregate}`)),
      perBroker ? h('div', { class: 'metric-brokers muted small' }, perBroker) : null));
}

/** The panel's contents from an `OperatorView`. */
export function renderOperator(view) {
  return [
    h('p', { class: 'operator-cmd muted small' }, t('operator.describe_caption', { topic: view.topic })),
    h('pre', { class: 'operator-describe', tabindex: '0', 'aria-label': t('operator.describe_label') }, view.describe),
    h('table', { class: 'operator-metrics' },
      h('caption', { class: 'muted small' }, t('operator.metrics_caption')),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, t('operator.col_metric')),
        h('th', { scope: 'col' }, t('operator.col_value')))),
      h('tbody', null, view.metrics.map(metricRow))),
  ];
}
