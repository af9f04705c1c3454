// The words of a prediction: what a path of the facts' vocabulary names
// (`brokers.2.high_watermark` is "broker 2's high watermark", `partitions.3.leader`
// "partition 3's leader") and a value
// of it as the board shows it (`[1, 2]` of an ISR is "{1, 2}", a leader 2 is
// "broker 2", a write's "acked" is the producer list's "acked", a role the
// board's role label, a time as the clock writes it). The paths
// are those of `lookup` in src/view/tour.rs.

import { t, has, num } from './i18n.js';
import { formatMs } from './describe.js';

/** What `path` names, in the page's language (the path itself for one it does not know). */
export function describePath(path) {
  const parts = String(path).split('.');
  const [head, a, b] = parts;
  if (parts.length === 1 && has(`predict.what.${head}`)) return t(`predict.what.${head}`);
  if (head === 'brokers' && parts.length === 3 && has(`predict.broker.${b}`)) return t(`predict.broker.${b}`, { broker: a });
  if (head === 'partitions' && parts.length === 3 && has(`predict.partition.${b}`)) return t(`predict.partition.${b}`, { partition: a });
  if (head === 'quorum' && parts.length === 2 && has(`predict.quorum.${a}`)) return t(`predict.quorum.${a}`);
  if (head === 'controllers' && parts.length === 3 && has(`predict.controller.${b}`)) return t(`predict.controller.${b}`, { controller: a });
  if (head === 'leader_view' && parts.length === 2) return t('predict.leader_view', { broker: a });
  if ((head === 'produce' || head === 'produce_error') && parts.length >= 2) return t(`predict.${head}`, { value: parts.slice(1).join('.') });
  return String(path);
}

/** A value at `path` as the board writes it. */
export function formatValue(path, value) {
  const field = String(path).split('.').pop();
  // The quorum's leader, its active controller, a vote: a controller, not a broker.
  const controller = /^(quorum\.(leader|active_controller)|controllers\.\d+\.voted_for)$/.test(String(path));
  if (controller) return value === null || value === undefined ? t('predict.no_controller') : t('predict.controller_n', { controller: value });
  if (value === null || value === undefined) return t(field === 'leader' ? 'predict.no_leader' : 'predict.none');
  if (typeof value === 'boolean') return t(value ? 'predict.yes' : 'predict.no');
  if (typeof value === 'number') return field === 'leader' || field === 'preferred_leader' ? t('predict.broker_n', { broker: value }) : field === 'time_ms' ? formatMs(value) : num(value);
  if (typeof value === 'string') {
    // A write's result and a broker's role as the board labels them; an error code as Kafka names it.
    if (path.startsWith('produce.') && has(`result.label.${value}`)) return t(`result.label.${value}`);
    if (field === 'role' && path.startsWith('controllers.') && has(`quorum.role.${value}`)) return t(`quorum.role.${value}`);
    if (field === 'role' && has(`role.${value}`)) return t(`role.${value}`);
    return value;
  }
  if (Array.isArray(value)) {
    if (field === 'epoch_cache') return value.length ? value.map(([epoch, offset]) => `e${epoch}@${offset}`).join(' ') : t('predict.empty');
    if (field === 'isr' || field === 'elr') return `{${value.join(', ')}}`;
    return value.length ? value.map((v) => (typeof v === 'number' ? num(v) : String(v))).join(', ') : t('predict.empty');
  }
  return JSON.stringify(value);
}
