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
