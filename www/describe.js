// Plain words for what the core reports: steps, violations and messages.
// Formatting only: every fact comes from the core's step, state or event.

const quote = (v) => `“${v}”`;

/** One scenario step in words, e.g. "broker 2 fetches". */
export function describeStep(step) {
  if (!step || typeof step !== 'object') return 'step';
  const [kind] = Object.keys(step);
  const v = step[kind];
  switch (kind) {
    case 'produce': {
      const to = v.to ? ` to broker ${v.to}` : '';
      return `produce ${quote(v.value)} with acks=${v.acks ?? 'all'}${to}`;
    }
    case 'fetch':
      return `broker ${v} fetches from its leader`;
    case 'advance_ms':
      return `advance the clock ${formatMs(v)}`;
    case 'crash':
      return v.lose_unflushed ? `broker ${v.broker} loses power (${v.lose_unflushed} unflushed record(s) at risk)` : `broker ${v.broker} crashes`;
    case 'restart':
      return `broker ${v} restarts`;
    case 'elect':
      return v === null ? 'the controller elects a leader of its choice' : `the controller elects broker ${v}`;
    case 'delay':
      return `links of broker ${v.broker} take ${v.ms} ms`;
    case 'cut':
      return `cut the link from broker ${v[0]} to broker ${v[1]}`;
    case 'partition':
      return `partition broker ${v[0]} from broker ${v[1]}`;
    case 'isolate':
      return `isolate broker ${v}`;
    case 'heal':
      if (v === 'all') return 'heal every link';
      if (Array.isArray(v)) return `heal the link between broker ${v[0]} and broker ${v[1]}`;
      return `reconnect broker ${v}`;
    case 'consume':
      return 'the consumer reads';
    case 'pause':
      return `pause the fetcher of broker ${v}`;
    case 'resume':
      return `resume the fetcher of broker ${v}`;
    default:
      return kind;
  }
}

export function formatMs(ms) {
  if (ms >= 1000 && ms % 100 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** The headline of a violation banner, in plain words. */
export function violationHeadline(v) {
  const value = v.value !== null && v.value !== undefined ? quote(v.value) : 'a record';
  const at = v.offset !== null && v.offset !== undefined ? ` at offset ${v.offset}` : '';
  const brokers = (v.brokers || []).map((b) => `broker ${b}`).join(' and ');
  switch (v.kind) {
    case 'acked_write_lost':
      return v.protocol_violation
        ? `Data loss: ${value}${at} was acknowledged (acks=${v.acks ?? 'all'}) and is gone`
        : `${value}${at} was acknowledged with acks=1 and is gone: a loss acks=1 allows`;
    case 'committed_divergence': {
      // brokers: [the ISR member, the leader]. The member either holds another
      // record at that offset or none at all; the detail says which.
      const [member, leader] = v.brokers || [];
      return member !== undefined && leader !== undefined
        ? `Committed logs diverged${at}: broker ${member}, in the ISR, does not hold leader broker ${leader}'s committed record there`
        : `Committed logs diverged${at}: ${brokers || 'two replicas'} disagree below the high watermark`;
    }
    case 'consumer_saw_vanished_record':
      return `The consumer read ${value}${at}, and that record no longer exists`;
    case 'hw_exceeds_leo':
      return `High watermark out of bounds${brokers ? ` on ${brokers}` : ''}`;
    default:
      return String(v.kind);
  }
}

/** A short label for a message travelling between brokers. */
export function messageLabel(m) {
  switch (m.kind) {
    case 'Fetch':
      return `Fetch @${m.fetch_offset}`;
    case 'FetchResponse': {
      if (m.error) return `FetchResponse ${m.error}`;
      const records = m.record_count === 1 ? '1 record' : `${m.record_count} records`;
      const diverging = m.diverging_epoch ? `, diverging epoch ${m.diverging_epoch.epoch ?? ''}` : '';
      return `${records}, HW ${m.high_watermark}${diverging}`;
    }
    case 'OffsetsForLeaderEpoch':
      return `OffsetsForLeaderEpoch(${m.leader_epoch})`;
    case 'OffsetsForLeaderEpochResponse': {
      if (m.error) return `epoch end: ${m.error}`;
      const epoch = m.leader_epoch === null || m.leader_epoch === undefined ? 'epoch' : `epoch ${m.leader_epoch}`;
      return m.end_offset === null || m.end_offset === undefined ? `${epoch} unknown` : `${epoch} ends at ${m.end_offset}`;
    }
    default:
      return m.kind;
  }
}

/** Explanations of the produce results the producer panel shows. */
export const RESULT_HELP = {
  acked: 'acknowledged to the producer',
  pending: 'waiting for the ISR (acks=all) or for the leader',
  retrying: 'a retriable error: the producer client sends it again (retries, within delivery.timeout.ms)',
  sent: 'acks=0: sent, no response expected',
  NOT_ENOUGH_REPLICAS: 'refused: the ISR is smaller than min.insync.replicas',
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 'appended, but the ISR shrank below min.insync.replicas before it was committed',
  NOT_LEADER_OR_FOLLOWER: 'the broker is not the leader (or there is none)',
  REQUEST_TIMED_OUT: 'no answer within request.timeout.ms',
  NETWORK_EXCEPTION: 'the connection to the broker was lost',
  FENCED_LEADER_EPOCH: 'the broker is fenced: a newer leader epoch exists',
};

// ---------------------------------------------------------------- brokers

/** The role badge of a broker, by the core's `role`. */
export const ROLE_TEXT = { leader: 'leader', follower: 'follower', none: 'no leader', down: 'down', starting: 'starting' };

export const ELR_TEXT = {
  mark: 'ELR',
  // The tooltip and accessible name of a broker's ELR mark.
  broker: (id) => `Broker ${id} is an Eligible Leader Replica (KIP-966): it left the ISR while the ISR was below min.insync.replicas, so it still holds every committed record and may be elected leader.`,
  // The same for the partition summary.
  partition: 'Eligible Leader Replicas (KIP-966): replicas that left the ISR while it was below min.insync.replicas. They still hold every committed record, so the controller may elect one when the ISR is empty.',
  lastKnownLeaderLabel: 'last known leader',
  lastKnownLeader: 'KIP-966: the leader when the ISR became empty; it may be elected if the ELR is empty too.',
};

/** What a restarted broker waiting to register is doing, from its latest `registration_refused` event (or null). */
export function startingNote(id, refusal, nowMs) {
  if (refusal && refusal.session_expires_ms !== null && refusal.session_expires_ms !== undefined) {
    const at = refusal.session_expires_ms;
    const left = at > nowMs ? `, ${formatMs(at - nowMs)} from now` : '';
    return `Restarted, waiting to register: the controller still holds broker ${id}'s old session until ${formatMs(at)}${left}. It serves nothing until then.`;
  }
  if (refusal) return `Restarted, but it cannot reach the controller to register; it serves nothing until it can.`;
  return `Restarted, waiting to register with the controller until its old session expires; it serves nothing until then.`;
}

/** Why a broker action is not possible for a broker in this role (null: it is). */
export function unavailableReason(action, id, role) {
  if (role === 'starting') {
    if (action === 'fetch') return `Broker ${id} is starting: it cannot fetch until the controller accepts its registration.`;
    if (action === 'elect') return `Broker ${id} is starting: it cannot be elected until the controller accepts its registration.`;
  }
  if (role === 'down' && action === 'elect') return `Broker ${id} is down: restart it first.`;
  return null;
}

// ---------------------------------------------------------------- events

const braces = (ids) => `{${(ids || []).join(', ')}}`;

/** One event in plain words, for the events worth explaining; null for the rest. */
export function explainEvent(e) {
  switch (e.type) {
    case 'registration_refused':
      return e.session_expires_ms === null || e.session_expires_ms === undefined
        ? `Broker ${e.broker} restarted but cannot reach the controller to register, so it serves nothing.`
        : `Broker ${e.broker} restarted, but its old session is valid until ${formatMs(e.session_expires_ms)}: the controller refuses a new registration of the same broker until then, and the broker serves nothing meanwhile.`;
    case 'broker_registered':
      return `Broker ${e.broker} registered with the controller as a new incarnation: it can follow the leader again and rejoin the ISR once it has caught up.`;
    case 'leader_epoch_bumped':
      return `The controller bumped the leader epoch to ${e.leader_epoch} for the ISR shrink; broker ${e.leader} stays leader, in the new epoch.`;
    case 'eligible_leader_replicas_changed':
      return e.elr && e.elr.length
        ? `Eligible Leader Replicas now ${braces(e.elr)} (ISR ${braces(e.isr)}): they left the ISR while it was below min.insync.replicas, so they hold every committed record and may be elected (KIP-966).`
        : `No Eligible Leader Replicas any more (ISR ${braces(e.isr)}).`;
    case 'leader_elected':
      if (!ELECTION_TEXT[e.kind]) return null;
      return e.unreachable
        ? `${ELECTION_TEXT[e.kind](e)} But broker ${e.leader} is down or cut off: the controller cannot know before its session expires, so it serves nothing until it is fenced and replaced.`
        : ELECTION_TEXT[e.kind](e);
    case 'truncated':
      if (e.truncation && e.truncation.rule === 'epoch_end_offset') {
        const t = e.truncation;
        return `Broker ${e.broker} asked the leader where its epoch ends (OffsetsForLeaderEpoch); the answer names the leader's epoch ${t.epoch}, ending at ${t.end_offset}, and the follower's log has that epoch up to ${t.follower_end_offset}: it truncated to ${e.to} (KIP-279).`;
      }
      return null;
    case 'duplicate_produce':
      return `Broker ${e.broker} already holds request #${e.request} at offset ${e.offset}: the idempotent producer's retry is not written twice (KIP-98).`;
    case 'consumer_truncation_detected':
      return e.seek
        ? `The consumer found that records it had read were truncated: the leader's epoch ${e.epoch} ends at ${e.end_offset}, below its position ${e.position}, so it goes back to offset ${e.end_offset} (KIP-320).`
        : `The consumer found that records it had read were truncated (the leader's epoch ${e.epoch} ends at ${e.end_offset}, below its position ${e.position}); with auto.offset.reset=none the application gets LogTruncationException.`;
    case 'consumer_position_reset':
      return `auto.offset.reset=${e.reset} moved the consumer from offset ${e.from} to ${e.to}.`;
    case 'partition_offline':
      return 'No replica can be elected: the partition is offline, and nothing can be written or read until one can.';
    default:
      return null;
  }
}

/** Each kind of `leader_elected`, in plain words. */
export const ELECTION_TEXT = {
  clean: (e) => `Broker ${e.leader} was elected leader in epoch ${e.leader_epoch} from the ISR: a clean election, it holds every committed record.`,
  unclean: (e) => `Broker ${e.leader} was elected although it is not in the ISR (unclean election): committed records it lacks are lost.`,
  eligible_leader_replica: (e) => `The ISR was empty, so broker ${e.leader} was elected from the Eligible Leader Replicas (KIP-966): it left the ISR while it was below min.insync.replicas and holds every committed record. It leads alone until others catch up.`,
  last_known_leader: (e) => `The ISR and the ELR were empty, so broker ${e.leader}, the last known leader, was elected (KIP-966), even after an unclean shutdown: records it lost in a crash are gone.`,
};

// ---------------------------------------------------------------- versions

/** Labels of the settings whose defaults differ by version (the keys of `versions()[i].defaults`). */
export const DEFAULT_LABELS = {
  broker_session_timeout_ms: 'broker session timeout',
  replica_lag_time_max_ms: 'replica.lag.time.max.ms',
  unclean_leader_election: 'unclean.leader.election.enable',
  enable_idempotence: 'producer enable.idempotence',
  retries: 'producer retries',
};

/** A setting's value as text: durations (names ending in _ms) as times. */
export function settingValue(value, key = '') {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'number' && key.endsWith('_ms')) return formatMs(value);
  return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
}

export const VERSION_TEXT = {
  name: (name) => `Kafka ${name}`,
  option: (name, isRun) => `Kafka ${name}${isRun ? ' (this run)' : ''}`,
  aliases: (v) => (v.aliases && v.aliases.length ? ` (${v.aliases.map(quote).join(', ')})` : ''),
  oldest: 'The oldest version modelled: its rules are where the table starts.',
  unchanged: 'No rule changed at this version.',
  rulesHeading: (n) => `Rules in force (${n})`,
  changedHeading: (prev) => `What changed from ${prev}`,
  defaultsHeading: 'Defaults',
  introduced: 'new',
  retired: 'retired',
  thisRun: 'this run',
  release: (r) => `Kafka ${r}`,
  buttonLabel: (name) => `Kafka ${name}: the rules in force in this version`,
};

/** A rule's one-line summary as a sentence start. */
export function ruleSentence(rule) {
  const s = rule.summary || rule.rule;
  return s.charAt(0).toUpperCase() + s.slice(1);
}
