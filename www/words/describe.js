// Plain words for what the core reports: steps, violations, messages and the
// events worth explaining. Formatting only: every fact comes from the core's
// step, state or event; every word comes from the locale tables (i18n.js).

import { t, num, language, has as hasKey } from './i18n.js';
import { excerpt } from '../words/user-text.js';
import { phrase } from './event-text.js';

// A user's record value, quoted; a long one as an excerpt (values may be 1 KB).
const quote = (v) => t('common.quote', { value: excerpt(v, 40) });
const has = (v) => v !== null && v !== undefined;
/** `{1, 2}`: a set of brokers as the page writes it. */
export const braces = (ids) => `{${(ids || []).join(', ')}}`;

/** One scenario step in words, e.g. "broker 2 fetches". */
export function describeStep(step) {
  if (!step || typeof step !== 'object') return t('step.unknown');
  const [kind] = Object.keys(step);
  const v = step[kind];
  switch (kind) {
    case 'produce': {
      const what = t(v.to ? 'step.produce_to' : 'step.produce', { value: quote(v.value), acks: v.acks ?? 'all', to: v.to });
      if (v.partition != null) return t('step.to_partition', { what, partition: v.partition });
      if (v.key != null) return t('step.with_key', { what, key: quote(v.key) });
      return what;
    }
    case 'fetch':
      return typeof v === 'object' && v !== null ? t('step.fetch_from', { broker: v.broker, from: v.from }) : t('step.fetch', { broker: v });
    case 'advance_ms':
      return t('step.advance', { time: formatMs(v) });
    case 'crash':
      if (v.controller != null) return t('step.crash_controller', { controller: v.controller });
      if (v.rack != null) {
        return v.lose_unflushed ? t('step.power_loss_rack', { rack: quote(v.rack), count: v.lose_unflushed }) : t('step.crash_rack', { rack: quote(v.rack) });
      }
      return v.lose_unflushed ? t('step.power_loss', { broker: v.broker, count: v.lose_unflushed }) : t('step.crash', { broker: v.broker });
    case 'restart':
      return typeof v === 'object' && v !== null ? t('step.restart_controller', { controller: v.controller }) : t('step.restart', { broker: v });
    case 'elect':
      if (v !== null && typeof v === 'object') {
        return v.broker == null ? t('step.elect_partition_any', { partition: v.partition }) : t('step.elect_partition', { partition: v.partition, broker: v.broker });
      }
      return v === null ? t('step.elect_any') : t('step.elect', { broker: v });
    case 'elect_preferred':
      return v === null ? t('step.elect_preferred') : t('step.elect_preferred_one', { partition: v });
    case 'delay':
      return t('step.delay', { broker: v.broker, ms: v.ms });
    case 'cut':
      return t('step.cut', { from: v[0], to: v[1] });
    case 'partition':
      return t('step.partition', { a: v[0], b: v[1] });
    case 'isolate':
      if (typeof v === 'object' && v !== null) {
        return v.controller != null ? t('step.isolate_controller', { controller: v.controller }) : t('step.isolate_rack', { rack: quote(v.rack) });
      }
      return t('step.isolate', { broker: v });
    case 'cut_controller':
      return t('step.cut_controller', { broker: v });
    case 'controlled_shutdown':
      return t('step.controlled_shutdown', { broker: v });
    case 'begin_controlled_shutdown':
      return t('step.begin_controlled_shutdown', { broker: v });
    case 'heal':
      if (v === 'all') return t('step.heal_all');
      if (Array.isArray(v)) return t('step.heal_link', { a: v[0], b: v[1] });
      if (typeof v === 'object' && v !== null) return t('step.reconnect_controller', { controller: v.controller });
      return t('step.reconnect', { broker: v });
    case 'consume':
      return v === null ? t('step.consume') : t('step.consume_partition', { partition: v.partition });
    case 'pause':
      return t('step.pause', { broker: v });
    case 'resume':
      return t('step.resume', { broker: v });
    case 'resign':
      return t('step.resign');
    default:
      return kind;
  }
}

/** A duration: whole tenths of seconds as seconds, else milliseconds. */
export function formatMs(ms) {
  // A duration (a timeout, a wait): plain digits, as the trace writes times.
  if (ms >= 1000 && ms % 100 === 0) return t('common.seconds', { s: String(ms / 1000) });
  return t('common.ms', { ms: String(ms) });
}

/**
 * A point in the run's time (the caption's clock, when a message arrives,
 * until when a fetch is held): always in seconds, with one decimal, more
 * only where the time has them ("0.0 s", "22.4 s", "1.308 s"), so that
 * two times side by side read alike and none is rounded to another.
 */
export function formatTime(ms) {
  const s = ms / 1000;
  return t('common.seconds', { s: Number.isInteger(ms / 100) ? s.toFixed(1) : String(s) });
}

/** The headline of a violation banner, in plain words. */
export function violationHeadline(v) {
  const value = has(v.value) ? quote(v.value) : t('violation.a_record');
  const at = has(v.offset) ? t('violation.at_offset', { offset: v.offset }) : '';
  switch (v.kind) {
    case 'acked_write_lost':
      if (v.allowed_by === 'unclean.leader.election.enable') return t('violation.unclean_write_lost', { value, at, acks: v.acks ?? 'all' });
      return v.allowed_by === 'acks=1'
        ? t('violation.acks1_write_lost', { value, at })
        : t('violation.acked_write_lost', { value, at, acks: v.acks ?? 'all' });
    case 'committed_divergence': {
      // brokers: [the ISR member, the leader]. The member either holds another
      // record at that offset or none at all; the detail says which.
      const [member, leader] = v.brokers || [];
      return has(member) && has(leader)
        ? t('violation.committed_divergence', { at, member, leader })
        : t('violation.committed_divergence_any', { at, brokers: braces(v.brokers) });
    }
    case 'consumer_saw_vanished_record':
      return t('violation.consumer_saw_vanished_record', { value, at });
    case 'hw_exceeds_leo':
      return t('violation.hw_exceeds_leo', { brokers: braces(v.brokers) });
    default:
      return String(v.kind);
  }
}

/**
 * The longer explanation under a violation's headline: the core's own
 * sentences in English (they name what it found and its cause: the step
 * that removed the record, the election, the last truncation); in another
 * language the same sentences through the event log's phrase tables, and
 * only when a sentence is not one of them (a newer core's words), the bare
 * facts from the violation's fields.
 */
export function violationDetail(v) {
  if (language() === 'en' && v.detail) return v.detail;
  if (v.detail) {
    const text = phrase(v.detail, t);
    if (text !== v.detail) return text;
  }
  const value = has(v.value) ? quote(v.value) : t('violation.a_record');
  const lost = v.kind === 'acked_write_lost' && ALLOWED[v.allowed_by];
  const key = `violation.detail.${lost ? `${lost}_write_lost` : v.kind}`;
  return t(key, { value, offset: v.offset ?? '?', brokers: braces(v.brokers), acks: v.acks ?? 'all' });
}

/** What Kafka's contract allows a violation by (`allowed_by`), as the keys name it. */
const ALLOWED = { 'acks=1': 'acks1', 'unclean.leader.election.enable': 'unclean' };

/**
 * A violation's verdict: `protocol` for a guarantee Kafka makes, else the
 * setting that allows it, as the banner's tag and the notices name it
 * (`acks1`, `unclean`); `setting` is that setting as Kafka writes it.
 */
export function verdict(v) {
  const allowed = v.protocol_violation ? null : ALLOWED[v.allowed_by] ?? null;
  if (!allowed) return { kind: 'protocol', setting: null };
  return { kind: allowed, setting: allowed === 'acks1' ? 'acks=1' : 'unclean.leader.election.enable=true' };
}

/** The name of a violation kind, e.g. for the banner's footer. */
export function violationKindName(kind) {
  return t(`violation.kind.${kind}`);
}

/** A short label for a message travelling between brokers. */
export function messageLabel(m) {
  switch (m.kind) {
    case 'Fetch':
      return t('message.fetch', { offset: m.fetch_offset });
    case 'FetchResponse': {
      if (m.error) return t('message.fetch_response_error', { error: m.error });
      const label = t('message.fetch_response', { count: m.record_count, hw: m.high_watermark });
      return m.diverging_epoch ? `${label}${t('message.diverging', { epoch: m.diverging_epoch.epoch ?? '' })}` : label;
    }
    case 'OffsetsForLeaderEpoch':
      return t('message.offsets_for_leader_epoch', { epoch: m.leader_epoch });
    case 'OffsetsForLeaderEpochResponse': {
      if (m.error) return t('message.epoch_end_error', { error: m.error });
      const epoch = has(m.leader_epoch) ? m.leader_epoch : '';
      return has(m.end_offset) ? t('message.epoch_ends', { epoch, offset: m.end_offset }) : t('message.epoch_unknown', { epoch });
    }
    default:
      return m.kind;
  }
}

/** What a produce result means, for the producer panel's tooltips. */
export function resultHelp(result) {
  const key = `result.help.${result}`;
  return hasKey(key) ? t(key) : result;
}

/** A produce result's label: the Kafka error names stay as Kafka writes them. */
export function resultLabel(result) {
  const key = `result.label.${result}`;
  return hasKey(key) ? t(key) : result;
}

// ---------------------------------------------------------------- brokers

/** The role badge of a broker, by the core's `role`. */
export function roleText(role) {
  return t(`role.${role}`);
}

/** What a restarted broker waiting to register is doing, from its latest `registration_refused` event (or null). */
export function startingNote(id, refusal, nowMs) {
  if (refusal && has(refusal.session_expires_ms)) {
    const at = refusal.session_expires_ms;
    return at > nowMs
      ? t('broker.starting_until_left', { broker: id, at: formatTime(at), left: formatMs(at - nowMs) })
      : t('broker.starting_until', { broker: id, at: formatTime(at) });
  }
  if (refusal) return t('broker.starting_unreachable');
  return t('broker.starting');
}

/** Why a broker action is not possible for a broker in this role (null: it is). */
export function unavailableReason(action, id, role) {
  if (role === 'starting') {
    if (action === 'fetch') return t('broker.unavailable.fetch_starting', { broker: id });
    if (action === 'elect') return t('broker.unavailable.elect_starting', { broker: id });
  }
  if (role === 'down' && action === 'elect') return t('broker.unavailable.elect_down', { broker: id });
  return null;
}

// ---------------------------------------------------------------- events

/** `1:5, 2:5, 3:4`: each ISR member's LEO as the leader knows it. */
const leoList = (isr) => (isr || []).map(([b, leo]) => `${b}:${leo}`).join(', ');

const resultName = (r) => (typeof r === 'string' ? r : r && r.error ? r.error : String(r));

/**
 * One event in plain words with the rule that made it so, for the events
 * worth explaining; null for the rest. `rank`: how much it matters to the
 * story of a step (the caption keeps the highest).
 */
export function explainEvent(e) {
  const text = explainText(e);
  return text ? { text, rank: RANK[e.type] ?? 1 } : null;
}

const RANK = {
  violation: 9,
  leader_elected: 8,
  partition_offline: 8,
  truncated: 7,
  budget_exceeded: 7,
  step_rejected: 7,
  consumer_truncation_detected: 7,
  high_watermark_changed: 6,
  high_watermark_held: 6,
  isr_shrunk: 6,
  isr_expanded: 6,
  alter_partition_sent: 4,
  produce_response: 5,
  broker_fenced: 5,
  registration_refused: 5,
  broker_registered: 4,
  leader_epoch_bumped: 4,
  eligible_leader_replicas_changed: 4,
  duplicate_produce: 4,
  follower_appended: 3,
  remote_log_end_offset_updated: 3,
  appended: 3,
  consumed: 3,
  fetch_held: 2,
  fetch_timed_out: 3,
  crashed: 2,
  restarted: 2,
  consumer_position_reset: 3,
};

function explainText(e) {
  switch (e.type) {
    case 'appended':
      return t('explain.appended', { broker: e.broker, value: quote(e.value), offset: e.offset, epoch: e.epoch, leo: e.offset + 1 });
    case 'follower_appended':
      return t('explain.follower_appended', { follower: e.follower, leader: e.leader, count: e.count, first: e.first_offset, leo: e.log_end_offset });
    case 'remote_log_end_offset_updated':
      return t('explain.remote_leo', { leader: e.leader, follower: e.follower, leo: e.to });
    case 'high_watermark_changed':
      return explainHighWatermark(e);
    case 'high_watermark_held':
      return t('explain.hw_held', { broker: e.broker, hw: e.high_watermark, size: e.isr_size, min: e.min_insync_replicas });
    case 'truncated':
      return t('explain.truncated', { broker: e.broker, from: e.from, to: e.to, why: truncationWhy(e.truncation) });
    case 'isr_shrunk':
      return e.by_controller
        ? t('explain.isr_shrunk_controller', { removed: braces(e.removed), isr: braces(e.isr) })
        : t('explain.isr_shrunk', { removed: braces(e.removed), isr: braces(e.isr), leader: e.leader });
    case 'isr_expanded':
      return t('explain.isr_expanded', { added: e.added, isr: braces(e.isr), leader: e.leader });
    case 'alter_partition_sent':
      return t(`explain.alter_partition_sent.${e.added == null ? 'shrink' : 'expand'}`, { leader: e.leader, proposed: braces(e.proposed), added: e.added, ms: e.answer_in_ms });
    case 'isr_change_failed':
      return t('explain.isr_change_failed', { leader: e.leader, proposed: braces(e.proposed) });
    case 'produce_response':
      return explainProduceResponse(e);
    case 'duplicate_produce':
      return t('explain.duplicate_produce', { broker: e.broker, request: e.request, offset: e.offset });
    case 'broker_fenced':
      return t('explain.broker_fenced', { broker: e.broker, timeout: formatMs(e.session_timeout_ms) });
    case 'registration_refused':
      return has(e.session_expires_ms)
        ? t('explain.registration_refused', { broker: e.broker, at: formatTime(e.session_expires_ms) })
        : t('explain.registration_unreachable', { broker: e.broker });
    case 'broker_registered':
      return t('explain.broker_registered', { broker: e.broker });
    case 'leader_epoch_bumped':
      return t('explain.leader_epoch_bumped', { epoch: e.leader_epoch, leader: e.leader });
    case 'eligible_leader_replicas_changed':
      return e.elr && e.elr.length
        ? t('explain.elr_changed', { elr: braces(e.elr), isr: braces(e.isr) })
        : t('explain.elr_empty', { isr: braces(e.isr) });
    case 'leader_elected': {
      const key = `explain.election.${e.kind}`;
      if (!hasKey(key)) return null;
      const text = t(key, { leader: e.leader, epoch: e.leader_epoch });
      return e.unreachable ? `${text} ${t('explain.election.unreachable', { leader: e.leader })}` : text;
    }
    case 'partition_offline':
      return t('explain.partition_offline');
    case 'consumed':
      if (e.to === e.from + 1) return t('explain.consumed_one', { broker: e.broker, offset: e.from, hw: e.high_watermark });
      return e.to > e.from
        ? t('explain.consumed', { broker: e.broker, from: e.from, last: e.to - 1, hw: e.high_watermark })
        : t('explain.consumed_nothing', { broker: e.broker, hw: e.high_watermark });
    case 'consumer_truncation_detected':
      return e.seek
        ? t('explain.consumer_truncation_seek', { epoch: e.epoch, end: e.end_offset, position: e.position })
        : t('explain.consumer_truncation_none', { epoch: e.epoch, end: e.end_offset, position: e.position });
    case 'consumer_position_reset':
      return t('explain.consumer_position_reset', { reset: e.reset, from: e.from, to: e.to });
    case 'fetch_held':
      return t('explain.fetch_held', { leader: e.leader, follower: e.follower, until: formatTime(e.until_ms) });
    case 'fetch_timed_out':
      return t('explain.fetch_timed_out', { follower: e.follower, leader: e.leader });
    case 'crashed':
      return e.lose_unflushed ? t('explain.power_loss', { broker: e.broker }) : t('explain.crashed', { broker: e.broker });
    case 'restarted':
      return t('explain.restarted', { broker: e.broker });
    case 'step_rejected':
      return t('explain.step_rejected', { reason: e.reason });
    default:
      return null;
  }
}

function explainHighWatermark(e) {
  const c = e.cause || {};
  const p = { broker: e.broker, from: e.from, to: e.to };
  switch (c.cause) {
    case 'isr_log_end_offsets':
      return t('explain.hw.isr', { ...p, leos: leoList(c.isr) });
    case 'fetch_response':
      return t('explain.hw.fetch_response', { ...p, leader_hw: c.leader_high_watermark });
    case 'truncation':
      return t('explain.hw.truncation', p);
    case 'checkpoint':
      return t('explain.hw.checkpoint', { ...p, checkpointed: c.checkpointed });
    default:
      return t('explain.hw.other', p);
  }
}

/** Why a log was truncated: the rule and its source. */
export function truncationWhy(tr) {
  if (!tr) return '';
  switch (tr.rule) {
    case 'high_watermark':
      return t('truncation.high_watermark', { hw: tr.high_watermark });
    case 'leader_epoch':
      return t('truncation.leader_epoch', { epoch: tr.requested_epoch, end: tr.end_offset });
    case 'undefined_epoch_offset':
      return t('truncation.undefined_epoch_offset', { epoch: tr.requested_epoch, hw: tr.high_watermark });
    case 'epoch_end_offset':
      return t('truncation.epoch_end_offset', { epoch: tr.epoch, end: tr.end_offset, here: tr.follower_end_offset });
    case 'diverging_epoch':
      return t('truncation.diverging_epoch', { epoch: tr.epoch, end: tr.end_offset, here: tr.follower_end_offset });
    case 'offset_out_of_range':
      return t('truncation.offset_out_of_range', { end: tr.leader_log_end_offset });
    case 'power_loss':
      return t('truncation.power_loss', { count: tr.lost });
    default:
      return tr.rule;
  }
}

function explainProduceResponse(e) {
  const result = resultName(e.result);
  const p = { value: quote(e.value), acks: e.acks, offset: e.offset ?? '?', error: result, attempts: e.attempts };
  if (has(e.retry_in_ms)) return t('explain.produce.retry', { ...p, ms: formatMs(e.retry_in_ms) });
  if (e.expired && e.expired.last_error == null) return t('explain.produce.expired_unsent', { ...p, timeout: e.expired.timeout });
  if (e.expired) return t('explain.produce.expired', { ...p, timeout: e.expired.timeout, last: resultName(e.expired.last_error) });
  if (result === 'acked') return t(e.acks === 'all' ? 'explain.produce.acked_all' : 'explain.produce.acked', p);
  if (result === 'sent') return null;
  return `${t('explain.produce.error', p)} ${resultHelp(result)}`;
}

// ---------------------------------------------------------------- versions

/** Labels of the settings whose defaults differ by version (the keys of `versions()[i].defaults`). */
export function defaultLabel(key) {
  const k = `setting.${key}`;
  return hasKey(k) ? t(k) : key;
}

/** A setting's value as text: durations (names ending in _ms) as times. */
export function settingValue(value, key = '') {
  if (typeof value === 'boolean') return value ? t('common.on') : t('common.off');
  if (typeof value === 'number' && key.endsWith('_ms')) return formatMs(value);
  return typeof value === 'number' ? num(value) : String(value);
}

/** The words of the version picker and the rules dialog. */
export const VERSION_TEXT = {
  name: (name) => t('version.name', { name }),
  option: (name, isRun) => t(isRun ? 'version.option_run' : 'version.name', { name }),
  /** The version picker's option: "Kafka 3.7 (the HW waits while…)", what changed at it in plain words (null for a version without them). */
  whatChanged: (name) => {
    const key = `version.what.${name.replace(/\./g, '_')}`;
    return hasKey(key) ? t('version.option', { name, what: t(key) }) : null;
  },
  aliases: (v) => (v.aliases && v.aliases.length ? ` (${v.aliases.map((a) => `“${a}”`).join(', ')})` : ''),
  oldest: () => t('version.oldest'),
  unchanged: () => t('version.unchanged'),
  rulesHeading: (n) => t('version.rules_heading', { n }),
  changedHeading: (prev) => t('version.changed_heading', { prev }),
  defaultsHeading: () => t('version.defaults'),
  introduced: () => t('version.introduced'),
  retired: () => t('version.retired'),
  thisRun: () => t('version.this_run'),
  release: (r) => t('version.name', { name: r }),
  buttonLabel: (name) => t('version.button_label', { name }),
};

/**
 * A rule's one-line summary as a sentence: the core's own words in English;
 * in another language the locale's text for that rule id (the bundle
 * locales/<language>/rules.json, which the dialogs that show rules load
 * before they open: until it is in, the core's English).
 */
export function ruleSentence(rule) {
  const key = `rules.${rule.rule}`;
  const s = language() === 'en' || !hasKey(key) ? rule.summary || rule.rule : t(key);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// ---------------------------------------------------------------- hints

/**
 * What to try next at the end of a run, from its state: the rule that makes
 * nothing happen yet, and the control that moves it on: { text, action, label,
 * broker } (`broker`: the one it speaks of, kept in view after an action).
 * `action` is the hint's own button, for a control that may be among the
 * closed tools: 'session' (advance the clock by the session timeout) or
 * 'settings' (open the settings). Null when nothing useful is to be said.
 */
export function hintFor(state, config) {
  const p = state.partition;
  const brokers = state.brokers || [];
  const leader = has(p.leader) ? brokers.find((b) => b.id === p.leader) : null;
  const session = formatMs(config.broker_session_timeout_ms);
  const starting = brokers.find((b) => b.role === 'starting');
  if (starting) return { text: t('hint.starting', { broker: starting.id, time: session }), action: 'session', label: t('toolbar.session', { time: session }), broker: starting.id };
  if (leader && !leader.alive && !leader.fenced) return { text: t('hint.leader_down', { broker: leader.id, time: session }), action: 'session', label: t('toolbar.session', { time: session }), broker: leader.id };
  if (!leader) {
    const down = brokers.find((b) => !b.alive);
    return { text: down ? t('hint.offline_restart', { broker: down.id }) : t('hint.offline'), action: 'settings', label: t('nav.settings'), broker: down ? down.id : null };
  }
  if (!brokers.some((b) => b.log_end_offset > 0)) return { text: t('hint.produce'), broker: leader.id };
  if (config.auto_fetch) return null;
  const behind = brokers.find((b) => b.alive && b.role === 'follower' && !b.fetcher_paused && b.log_end_offset < leader.log_end_offset);
  if (behind) return { text: t('hint.fetch', { broker: behind.id }), broker: behind.id };
  const stale = (leader.remote || []).find((r) => (leader.isr || []).includes(r.id) && r.log_end_offset !== leader.log_end_offset);
  if (stale && brokers.find((b) => b.id === stale.id && b.alive)) return { text: t('hint.fetch_again', { broker: stale.id }), broker: stale.id };
  const lagging = brokers.find((b) => b.alive && b.role === 'follower' && b.high_watermark < leader.high_watermark);
  if (lagging) return { text: t('hint.follower_hw', { broker: lagging.id }), broker: lagging.id };
  return null;
}
