// The event log's lines in the page's language, from the core's typed events
// (src/model/event.rs; one object per event with its serde fields, `step`,
// `time_ms`, an optional `repeated` and the English `line`).
//
// The words live in locales/<language>/events.json under `events.`: one
// template per event type (its serde `type` tag), sub-tables for the nested
// enums, and fragments for the parts the core writes only sometimes. English
// reproduces the core's Display lines exactly: `eventLine(e, t) === e.line`.
// This file only picks the template and formats fields (lists, quoted values,
// thousands) the way the core does; numbers are passed as text, so they come
// out as the core writes them, not in the locale's number format.
//
// A few fields are free text the core composes (a rejected step's reason, an
// offline partition's reason, a violation's detail). PHRASES holds their
// English templates: a text that matches one is rendered from the language's
// `events.<key>` with the captured parts (themselves translated when they
// match a phrase); a text that matches none stays as the core wrote it.

const K = 'events.';

/** `3599998` as `3,599,998` (`event::thousands`). */
export function thousands(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Grapheme_Extend}]/u;

/** A value as Rust's `{:?}` writes a string: quoted, escaped, on one line. */
export function quoted(value) {
  let out = '"';
  for (const ch of String(value)) {
    switch (ch) {
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\0': out += '\\0'; break;
      default:
        out += ch !== ' ' && NON_PRINTABLE.test(ch) ? `\\u{${ch.codePointAt(0).toString(16)}}` : ch;
    }
  }
  return `${out}"`;
}

/** Broker ids as the core lists them: `[1, 2]`. */
export function brokerList(ids) {
  return `[${(ids ?? []).join(', ')}]`;
}

/** A metadata record as the core's `MetadataRecord` Display names it. */
function metadataRecordText(r, t) {
  if (r.type === 'partition_change') {
    const p = { ...fields(r), isr: brokerList(r.isr) };
    return t(`${K}metadata_record.partition_change.${r.leader == null ? 'leaderless' : 'leader'}`, p);
  }
  if (r.type === 'register_broker' && r.fenced) return t(`${K}metadata_record.register_broker_fenced`, fields(r));
  return t(`${K}metadata_record.${r.type}`, fields(r));
}

/** Every field of an object as text (numbers plain, as the core prints them). */
function fields(o) {
  const p = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') p[k] = String(v);
  }
  return p;
}

/** snake_case of a PascalCase name (`FetchResponse` -> `fetch_response`). */
export function snakeCase(name) {
  return name.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
}

// ----- free text ------------------------------------------------------------

/**
 * English templates of the free-text parts the core composes, by key under
 * `events.`; locales/en/events.json holds the same strings (a test checks).
 */
export const PHRASES = {
  'phrase.moved_on': 'the follower has moved to another leader or epoch since',
  'phrase.log_end_moved': 'its log end moved since the request',
  'phrase.controller_unreachable': 'the controller is unreachable; the request stays pending and is retried',
  'phrase.controller_rejected': "the controller rejected it (FENCED_LEADER_EPOCH: the request's leader epoch is older than the controller's)",
  'phrase.stale_isr_answer': "the answer came after the partition's state had changed, and is ignored",
  'phrase.every_replica_fenced': 'every replica is fenced',
  'phrase.no_unfenced_in_isr_or_elr': 'no unfenced replica in the ISR {isr} or the ELR {elr}, and unclean.leader.election.enable is false',
  'phrase.no_unfenced_in_isr': 'no unfenced replica in the ISR {isr} and unclean.leader.election.enable is false',
  'phrase.consume_no_leader': 'NOT_LEADER_OR_FOLLOWER: the partition has no leader',
  'phrase.consume_leader_down': 'NETWORK_EXCEPTION: leader broker {broker} is down',
  'phrase.consume_out_of_range': 'OFFSET_OUT_OF_RANGE: {why} and auto.offset.reset is none',
  'phrase.epoch_too_old': "the leader knows no epoch as new as the position's (UNDEFINED_EPOCH_OFFSET)",
  'phrase.position_past_end': "position {position} is past the leader's log end {log_end_offset}",
  'phrase.run_stopped': 'the run has stopped: {what} (limit {limit_name})',
  'phrase.no_such_broker': '{field}: broker {broker} does not exist (brokers are 1..={brokers})',
  'phrase.value_too_long': 'produce.value: {bytes} bytes is longer than the limit of {limit} bytes',
  'phrase.time_limit': 'advance_ms: {ms} would take the scenario past the limit of {limit} ms of simulated time (already {elapsed_ms} ms)',
  'phrase.lose_too_many': 'crash.lose_unflushed: {count} is more than a log can hold ({limit} records)',
  'phrase.delay_too_long': 'delay.ms: {ms} is larger than the limit of {limit} ms',
  'phrase.cut_from_itself': '{field}: a broker cannot be cut from itself ({broker})',
  'phrase.heal_itself': 'heal: a broker has no link to itself ({broker})',
  'phrase.already_cut': 'the link from broker {from} to broker {to} is already cut',
  'phrase.already_partitioned': 'brokers {from} and {to} are already partitioned',
  'phrase.fetcher_already_paused': "broker {broker}'s fetcher is already paused",
  'phrase.fetcher_already_running': "broker {broker}'s fetcher is already running",
  'phrase.already_leader': 'broker {broker} is already the leader',
  'phrase.fenced_session_expired': 'broker {broker} is fenced: its session expired',
  'phrase.not_in_isr_unclean_disabled': 'broker {broker} is not in the ISR and unclean.leader.election.enable is false',
  'phrase.not_in_isr_live_isr': 'broker {broker} is not in the ISR, and a live ISR member can be elected cleanly',
  'phrase.already_down': 'broker {broker} is already down',
  'phrase.already_running': 'broker {broker} is already running',
  'phrase.already_running_registering': 'broker {broker} is already running (waiting to register)',
  'phrase.already_isolated': 'broker {broker} is already isolated',
  'phrase.nothing_to_heal': 'nothing to heal: no such cut or isolation',
  'phrase.fetch_waiting_to_register': 'broker {broker} is waiting to register: its old session is still valid',
  'phrase.fetch_broker_down': 'broker {broker} is down',
  'phrase.fetch_no_leader': 'broker {broker} knows no leader to fetch from (the partition is offline)',
  'phrase.fetch_by_leader': 'broker {broker} is the leader; only followers fetch',
  'phrase.acked_then_other': '{value} ({acks}) was acknowledged at offset {offset} by broker {by} in epoch {epoch}, but the leader, broker {leader} (epoch {leader_epoch}), holds {other} there.',
  'phrase.acked_then_missing': '{value} ({acks}) was acknowledged at offset {offset} by broker {by} in epoch {epoch}, but the leader, broker {leader} (epoch {leader_epoch}), has no record there (its log ends at {log_end_offset}).',
  'phrase.cause_stale_leader': 'Broker {by} acknowledged it as leader of epoch {epoch}, but the controller had already moved leadership to broker {leader} in epoch {leader_epoch}: broker {by} was a stale leader that had not heard of the election.',
  'phrase.cause_truncated': 'Broker {broker} removed it at step {step}: {truncation}.',
  'phrase.cause_unclean': 'Broker {broker} became leader of epoch {epoch} at step {step} through an unclean election: it was not in the ISR and lacked the record.',
  'phrase.cause_clean': 'Broker {broker} was elected leader of epoch {epoch} at step {step} from the ISR without holding the record.',
  'phrase.cause_not_held': 'Broker {broker} does not hold it.',
  'phrase.acks1_allowed': "acks=1 waits only for the leader's own append, so this loss is allowed by Kafka's contract.",
  'phrase.unclean_allowed': "unclean.leader.election.enable lets a replica outside the ISR become leader without the records it lacks, so this loss is allowed by Kafka's contract.",
  'phrase.acks_all_loss': 'acks=all promised the write would survive any failure the ISR could absorb: this is data loss.',
  'phrase.consumer_vanished': "the consumer read {value} at offset {offset}, but the leader's log (broker {leader}) now {now}: a record below the HW vanished.",
  'phrase.now_holds': 'holds {other} there',
  'phrase.now_ends': 'ends at {log_end_offset}',
  'phrase.isr_member_differs': 'broker {broker} is in the ISR and holds {value} (epoch {epoch}) at offset {offset}, but leader broker {leader} holds {other} (epoch {leader_epoch}) there, below its HW {high_watermark}.',
  'phrase.isr_member_lacks': "broker {broker} is in the ISR but its log ends at {log_end_offset}, below leader broker {leader}'s HW {high_watermark}: it lacks the committed record {value} at offset {log_end_offset}, and could be elected without it.",
  'phrase.last_truncated': 'Broker {broker} last truncated at step {step} ({from} -> {to}): {truncation}.',
  'phrase.hw_above_leo': 'broker {broker} has HW {high_watermark} above its LEO {log_end_offset}.',
  'phrase.hw_lowered': 'leader broker {broker} lowered its HW from {from} to {to} within epoch {epoch}.',
  'phrase.fork_no_equals': 'change: {value} has no "="; expected setting=value, like min_insync_replicas=2',
  'phrase.fork_unknown_setting': 'change: unknown setting {value}; expected {what}',
  'phrase.fork_not_preset': 'protocol: {value} is not a version preset; expected one of {what}',
  'phrase.fork_step_range': 'step {step}: the scenario has steps 1..={steps}',
  'phrase.fork_not_produce': 'acks@{step}: step {step} is a {found} step, not a produce',
  'phrase.fork_invalid': 'the forked scenario is not valid: {what}',
  'phrase.link_too_long': 'link: {count} characters is longer than the limit of {limit}',
  'phrase.link_prefix': 'link: does not start with "v1."; it is not a Highwater scenario link',
  'phrase.link_base64': 'link: is not valid base64url ({why}); it may be cut short',
  'phrase.link_too_big': 'link: expands past the limit of {limit} bytes',
  'phrase.link_corrupt': 'link: is corrupt or truncated (it does not decompress)',
  'phrase.link_not_utf8': 'link: does not hold UTF-8 text',
  // A scenario the core refuses (a link's, the settings', a tour's): its own
  // sentences and serde's and serde_json's, whose descriptions of what was
  // found and expected are phrases too. `link: {what}` comes last, after the
  // link's own sentences.
  'phrase.scenario_not_json': 'scenario is not valid JSON: {why}',
  'phrase.scenario_not_object': 'scenario: expected a JSON object like {"version": 1, "steps": [...]}',
  'phrase.version_missing': 'version: missing (this reader knows version 1)',
  'phrase.version_unsupported': 'version: {number} is not supported (this reader knows version 1)',
  'phrase.name_too_long': 'name: longer than {limit} characters',
  'phrase.description_too_long': 'description: longer than {limit} characters',
  'phrase.too_many_steps': 'steps: {count} steps is more than the limit of {limit}',
  'phrase.step_unknown': 'steps[{index}]: unknown step {value}',
  'phrase.step_needs_argument': 'steps[{index}]: {value} needs its argument: {what}',
  'phrase.step_invalid': 'steps[{index}].{what}',
  'phrase.argument_broker': 'a broker id, like {what}',
  'phrase.argument_pair': 'a pair of brokers, like {what}',
  'phrase.argument_elect': '{"elect": null} or {"elect": 2}',
  'phrase.argument_heal': '{"heal": "all"}, {"heal": 1} or {"heal": [1, 2]}',
  'phrase.duplicate_key': '{path}: the key appears twice',
  'phrase.unknown_field_one_of': '{path}: unknown field {field}, expected one of {list}',
  'phrase.unknown_field': '{path}: unknown field {field}, expected {list}',
  'phrase.unknown_field_none': '{path}: unknown field {field}, there are no fields',
  'phrase.missing_field': '{path}: missing field {field}',
  'phrase.unknown_variant_one_of': '{path}: unknown variant {field}, expected one of {list}',
  'phrase.unknown_variant': '{path}: unknown variant {field}, expected {list}',
  'phrase.invalid_value': '{path}: invalid value: {unexpected}, expected {expected}',
  'phrase.invalid_type': '{path}: invalid type: {unexpected}, expected {expected}',
  'phrase.invalid_length': '{path}: invalid length {count}, expected {expected}',
  'phrase.json_string': 'string {value}',
  'phrase.json_integer': 'integer `{number}`',
  'phrase.json_float': 'floating point `{number}`',
  'phrase.json_boolean': 'boolean `{flag}`',
  'phrase.json_map': 'map',
  'phrase.json_sequence': 'sequence',
  'phrase.json_a_sequence': 'a sequence',
  'phrase.json_a_string': 'a string',
  'phrase.json_a_boolean': 'a boolean',
  'phrase.json_single_key': 'map with a single key',
  'phrase.json_array_length': 'an array of length {count}',
  'phrase.expected_preset': 'a Kafka version preset: {list}, or {aliases}',
  'phrase.expected_heal': '"all", a broker id, a pair of broker ids [a, b], or {"controller": id}',
  'phrase.expected_acks': '"0", "1" or "all"',
  'phrase.out_of_range': '{field}: {number} is out of range {range}',
  'phrase.no_such_partition': "{field}: partition {partition} does not exist (partitions are 0..={last})",
  'phrase.key_too_long': "produce.key: {bytes} bytes is longer than the limit of {limit} bytes",
  'phrase.fetch_no_sources': "broker {broker} follows no leader it fetches from: it leads, or its partitions are offline",
  'phrase.fetch_not_from': "broker {broker} fetches no partition from broker {leader}",
  'phrase.rf_range': "config.replication_factor: {number} must be between 1 and brokers ({brokers})",
  'phrase.racks_count': "config.racks: {count} names for {brokers} brokers (one per broker, racks[0] for broker 1)",
  'phrase.rack_name': "{field}: a rack's name has 1 to {limit} characters, none of them a control character",
  'phrase.assignment_count': "config.assignment: {count} replica lists for {partitions} partitions (one per partition)",
  'phrase.assignment_rf': "{field}: {count} replicas where the replication factor is {number}: every partition has the same number",
  'phrase.assignment_broker': "{field}: broker {broker} is out of range 1..={brokers}",
  'phrase.assignment_twice': "{field}: broker {broker} appears twice",
  'phrase.preferred_not_needed': "partition {partition}: ELECTION_NOT_NEEDED: its preferred replica leads it",
  'phrase.preferred_not_available': "partition {partition}: PREFERRED_LEADER_NOT_AVAILABLE: its preferred replica is fenced, shutting down or not in the ISR",
  'phrase.preferred_none_moved': "no partition moved: each is led by its preferred replica, or that replica is fenced, shutting down or not in the ISR",
  'phrase.no_replica_here': "broker {broker} holds no replica of partition {partition}",
  'phrase.rack_none': "{field}: the brokers have no racks (config.racks is not set)",
  'phrase.rack_unknown': "{field}: no broker is in rack {value} (the racks are {list})",
  'phrase.rack_down': "every broker of rack {value} is already down",
  'phrase.rack_already_cut': "rack {value} is already cut off",
  'phrase.crash_one_node': "{path}: a crash names one of a broker, a rack or a controller",
  'phrase.expected_isolate': "a broker id, {\"rack\": name} or {\"controller\": id}",
  'phrase.expected_fetch': "a broker id, or {\"broker\": b, \"from\": l}",
  'phrase.min_isr_range': 'config.min_insync_replicas: {number} must be between 1 and brokers ({brokers})',
  'phrase.retries_too_large': 'config.retries: {number} is larger than Kafka\'s largest, {limit}',
  'phrase.idempotent_in_flight': 'config.max_in_flight_requests_per_connection: {number} is more than {limit}, the most enable_idempotence allows in {version}',
  'phrase.no_idempotence': 'config.enable_idempotence: the idempotent producer came in 0.11 (KIP-98); {version} has none',
  'phrase.seed_too_large': 'config.seed: {number} is larger than {limit} (2^53 - 1)',
  'phrase.name_rack_or_controller': "name a rack or a controller: {\"rack\": name} or {\"controller\": id}",
  'phrase.controller_flushes': "a controller flushes its metadata log before it answers: it has no unflushed records to lose",
  'phrase.restart_node': "restart: name a broker id or {\"controller\": c}",
  'phrase.controller_down': "controller {controller} is already down",
  'phrase.controller_running': "controller {controller} is already running",
  'phrase.controller_already_isolated': "controller {controller} is already isolated",
  'phrase.controller_not_isolated': "nothing to heal: controller {controller} is not isolated",
  'phrase.no_quorum_leader': "resign: no controller leads the quorum now",
  'phrase.no_quorum': "{field}: the scenario has no controller quorum (config.controllers is 0)",
  'phrase.controller_unknown': "{field}: controller {controller} does not exist (controllers are 1..={count})",
  'phrase.controllers_count': "config.controllers: {number} is not 0, 1, 3 or 5",
  'phrase.controllers_zookeeper': "config.controllers: {version} is a ZooKeeper-era preset, which has no controller quorum (KRaft presets: 3.5 on)",
  'phrase.quorum_epoch_back': "controller {controller} went from epoch {from} back to epoch {to}",
  'phrase.quorum_two_leaders': "controllers {other_controller} and {controller} both led epoch {epoch}",
  'phrase.quorum_hw_down': "the metadata HW went down from {from} to {to} on controller {controller}, leader of epoch {epoch}",
  'phrase.quorum_hw_minority': "controller {controller} has metadata HW {hw}, reached by only {count} of {number} voters (a majority is {majority})",
  'phrase.quorum_committed_differs': "controller {controller} holds {what} (epoch {epoch}) below its HW at offset {offset}, where {why} (epoch {number}) was committed",
  'phrase.json_eof': 'EOF while parsing {what} at line {line} column {column}',
  'phrase.json_a_value': 'a value',
  'phrase.json_an_object': 'an object',
  'phrase.json_a_list': 'a list',
  'phrase.json_expected_value': 'expected value at line {line} column {column}',
  'phrase.json_trailing': 'trailing characters at line {line} column {column}',
  'phrase.json_comma_brace': 'expected `,` or `}` at line {line} column {column}',
  'phrase.json_comma_bracket': 'expected `,` or `]` at line {line} column {column}',
  'phrase.json_colon': 'expected `:` at line {line} column {column}',
  'phrase.json_key_string': 'key must be a string at line {line} column {column}',
  'phrase.json_invalid_number': 'invalid number at line {line} column {column}',
  'phrase.json_number_range': 'number out of range at line {line} column {column}',
  'phrase.json_ident': 'expected ident at line {line} column {column}',
  'phrase.json_escape': 'invalid escape at line {line} column {column}',
  'phrase.json_control': 'control character (\\u0000-\\u001F) found while parsing a string at line {line} column {column}',
  'phrase.json_recursion': 'recursion limit exceeded at line {line} column {column}',
  'phrase.json_trailing_comma': 'trailing comma at line {line} column {column}',
  'phrase.json_quote': 'expected `"` at line {line} column {column}',
  'phrase.json_code_point': 'invalid unicode code point at line {line} column {column}',
  'phrase.json_surrogate': 'lone leading surrogate in hex escape at line {line} column {column}',
  'phrase.json_hex_end': 'unexpected end of hex escape at line {line} column {column}',
  'phrase.json_either': '`{first}` or `{second}`',
  'phrase.json_unit': 'unit',
  'phrase.link_invalid': 'link: {what}',
  'phrase.grid_budget_each': "whatif: {cells} cells of about {work} units of work each go past the grid's budget of {limit} units of work (MAX_WORK_PER_GRID); a shorter run (fewer steps, less time advanced) fits",
  'phrase.grid_budget_total': "whatif: its {cells} cells together go past the grid's budget of {limit} units of work (MAX_WORK_PER_GRID); a shorter run (fewer steps, less time advanced) fits",
  'truncation.high_watermark': 'truncated to HW {high_watermark} (pre-KIP-101 rule: truncate to own HW on becoming follower)',
  'truncation.leader_epoch': 'leader says epoch {requested_epoch} ends at {end_offset} (KIP-101 OffsetsForLeaderEpoch)',
  'truncation.undefined_epoch_offset': 'leader has no end offset for epoch {requested_epoch} (UNDEFINED_EPOCH_OFFSET: older or newer than every epoch it knows); truncated to HW {high_watermark} (KIP-101 fallback)',
  'truncation.epoch_end_offset': 'leader says epoch {epoch} ends at {end_offset}, here at {follower_end_offset} (KIP-279 OffsetsForLeaderEpoch)',
  'truncation.diverging_epoch': 'diverging epoch {epoch} ends at {end_offset} on the leader, at {follower_end_offset} here (KIP-279 DivergingEpoch)',
  'truncation.offset_out_of_range': "fetch offset beyond the leader's log end {leader_log_end_offset} (OFFSET_OUT_OF_RANGE)",
  'truncation.power_loss': 'power loss: {lost} unflushed record(s) gone',
  'budget.events_per_step': 'this step caused more than {limit} events',
  'budget.events_per_run': 'the run caused more than {limit} events',
  'budget.messages_in_flight': 'more than {limit} messages were in flight at once',
  'budget.work_per_step': 'this step ran more than {limit} timer firings and producer retries',
  'budget.work_per_run': 'the run ran more than {limit} timer firings and producer retries',
};

// What a placeholder of a phrase can match: a quoted value, a broker list,
// free text (itself perhaps a phrase), or one word.
// A user's text is quoted as a short excerpt; when cut, its length follows
// (`"aaaa…" (100,000 characters)`, the core's `text::quoted`).
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"(?: \\([0-9,]+ characters\\))?';
const QUOTE_LENGTH = / \(([0-9,]+) characters\)$/;
const CAPTURE = {
  value: QUOTED, other: QUOTED, field: `(?:${QUOTED}|\\S+?)`,
  isr: '\\[[^\\]]*\\]', elr: '\\[[^\\]]*\\]',
  why: '.+?', what: '.+?', now: '.+?', truncation: '.+?',
  unexpected: '.+?', expected: '.+?', list: '.+?', aliases: '.+?',
};

function compile(template) {
  const seen = new Set();
  let source = '';
  let last = 0;
  for (const m of template.matchAll(/\{([a-z_]+)\}/g)) {
    source += template.slice(last, m.index).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const name = m[1];
    source += seen.has(name) ? `\\k<${name}>` : `(?<${name}>${CAPTURE[name] ?? '\\S+?'})`;
    seen.add(name);
    last = m.index + m[0].length;
  }
  source += template.slice(last).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return source;
}

/** The phrases as patterns, made when a text is first read (not as the module runs: a page's first draw needs none). */
let compiled = null;
const patterns = () => (compiled ??= Object.entries(PHRASES).map(([key, english]) => {
  const source = compile(english);
  return { key, whole: new RegExp(`^${source}$`, 's'), start: new RegExp(`^${source}(?= |$)`, 's') };
}));

// Chinese sets no space between two Han characters; a template's space
// before a placeholder is for the Latin text it usually holds (“应为 u32”).
const HAN_SPACE_HAN = /(\p{Script=Han}) +(?=\p{Script=Han})/gu;

function renderMatch(key, groups, t) {
  const params = {};
  for (const [name, v] of Object.entries(groups)) {
    if (CAPTURE[name] === '.+?') params[name] = phrase(v, t);
    else params[name] = v?.replace(QUOTE_LENGTH, (_, length) => t(`${K}quote_length`, { length })) ?? v;
  }
  // serde's lists of names or values: `a`, `b` (", " in English, "、" in Chinese).
  for (const name of ['list', 'aliases']) if (params[name] != null) params[name] = params[name].replace(/, (?=[`"])/g, t(`${K}list_gap`));
  return t(K + key, params).replace(HAN_SPACE_HAN, '$1');
}

/**
 * A text the core composed, in the language of `t`: one phrase, or sentences
 * that are each a phrase; as written when it is not (a newer core's words).
 */
export function phrase(text, t) {
  const s = String(text);
  const all = patterns();
  for (const p of all) {
    const m = p.whole.exec(s);
    if (m) return renderMatch(p.key, m.groups ?? {}, t);
  }
  const parts = [];
  let rest = s;
  while (rest) {
    const hit = all.map((p) => ({ p, m: p.start.exec(rest) })).find((h) => h.m);
    if (!hit) return s;
    parts.push(renderMatch(hit.p.key, hit.m.groups ?? {}, t));
    rest = rest.slice(hit.m[0].length);
    if (rest.startsWith(' ')) rest = rest.slice(1);
  }
  return parts.join(t(K + 'sentence_gap'));
}

// ----- nested values ----------------------------------------------------------

/** A protocol message (`Message`, tag `kind`) as the core writes it. */
export function messageText(m, t) {
  const key = `${K}message.${snakeCase(m.kind)}`;
  const p = fields(m);
  switch (m.kind) {
    case 'Fetch':
      p.current = m.current_leader_epoch == null ? '' : t(`${key}.current`, p);
      p.last = m.last_fetched_epoch == null ? '' : t(`${key}.last`, p);
      return t(`${key}.line`, p);
    case 'FetchResponse':
      if (m.error != null) return t(`${key}.error`, p);
      if (m.diverging_epoch != null) return t(`${key}.diverging`, { ...p, ...fields(m.diverging_epoch) });
      if (m.record_count === 0) return t(`${key}.none`, p);
      if (m.record_count === 1) return t(`${key}.one`, p);
      return t(`${key}.many`, { ...p, last_offset: String(m.fetch_offset + m.record_count - 1) });
    case 'OffsetsForLeaderEpoch':
      p.current = m.current_leader_epoch == null ? '' : t(`${key}.current`, p);
      return t(`${key}.line`, p);
    case 'OffsetsForLeaderEpochResponse':
      if (m.error != null) return t(`${key}.error`, p);
      if (m.end_offset == null) return t(`${key}.undefined`, p);
      return t(`${key}.${m.leader_epoch == null ? 'end_offset' : 'epoch'}`, p);
    default:
      return m.kind;
  }
}

/** A message between controllers (`quorum::message::Rpc`, tag `kind`) as the core writes it. */
export function rpcText(r, t) {
  const key = `${K}rpc`;
  const p = fields(r);
  p.error = r.error == null ? '' : t(`${key}.error`, { error: r.error });
  switch (r.kind) {
    case 'end_quorum_epoch':
      p.successors = brokerList(r.successors);
      break;
    case 'fetch_response':
      if (r.diverging != null) {
        p.body = t(`${key}.diverging`, { diverging_epoch: String(r.diverging[0]), end_offset: String(r.diverging[1]) });
      } else {
        p.body = r.error == null ? t(`${key}.records`, { count: String(r.records.length) }) : '';
      }
      p.hw = r.high_watermark == null ? t(`${key}.hw_unknown`) : t(`${key}.hw`, p);
      break;
    default:
  }
  return t(`${key}.${r.kind}`, p);
}

function truncationText(tr, t) {
  return t(`${K}truncation.${tr.rule}`, fields(tr));
}

function causeText(c, t) {
  const p = fields(c);
  if (c.cause === 'isr_log_end_offsets') p.isr = c.isr.map(([b, leo]) => `${b}:${leo}`).join(', ');
  return t(`${K}hw_cause.${c.cause}`, p);
}

function budgetText(budget, limit, t) {
  return t(`${K}budget.${budget}`, { limit: thousands(limit) });
}

// ----- events -------------------------------------------------------------------

/**
 * Per event type, the code that picks a sub-template or formats a field;
 * a type not listed is its template `events.<type>` filled with its fields.
 */
const SPECIAL = {
  produce_request(e, p, t) {
    p.value = quoted(e.value);
    p.attempt = e.attempt > 1 ? t(`${K}produce_request.attempt`, p) : '';
    return t(`${K}produce_request.${e.to == null ? 'no_leader' : 'to_broker'}`, p);
  },
  produce_queued(e, p, t) {
    p.value = quoted(e.value);
    return t(`${K}produce_queued.${e.behind == null ? 'in_flight' : 'behind'}`, p);
  },
  appended(e, p, t) {
    p.value = quoted(e.value);
    return t(`${K}appended`, p);
  },
  produce_response(e, p, t) {
    const key = `${K}produce_response`;
    p.value = quoted(e.value);
    if (e.result === 'acked') p.outcome = t(`${key}.${e.offset == null ? 'acked' : 'acked_at'}`, p);
    else if (e.result === 'sent') p.outcome = t(`${key}.sent`, p);
    else p.outcome = t(`${key}.error`, { error: e.result?.error ?? String(e.result) });
    if (e.retry_in_ms != null) {
      p.more = t(`${key}.retry`, p);
    } else {
      const kind = !e.expired ? null : e.expired.in_flight ? 'expired_in_flight' : e.expired.last_error == null ? 'expired_unsent' : 'expired';
      const expired = kind ? t(`${key}.${kind}`, fields(e.expired)) : '';
      p.more = expired + (e.attempts > 1 ? t(`${key}.attempts`, p) : '');
    }
    return t(`${key}.line`, p);
  },
  sent(e, p, t) {
    p.message = messageText(e.message, t);
    p.arrives = e.latency_ms > 0 ? t(`${K}sent.arrives`, p) : '';
    return t(`${K}sent.line`, p);
  },
  dropped(e, p, t) {
    p.reason = t(`${K}drop_reason.${e.reason}`);
    return t(`${K}dropped`, p);
  },
  fetch_timed_out(e, p, t) {
    const key = `${K}fetch_timed_out`;
    p.discarded = e.discarded === 0 ? '' : t(`${key}.${e.discarded === 1 ? 'discarded_one' : 'discarded_many'}`, p);
    return t(`${key}.line`, p);
  },
  fetcher_removed(e, p, t) {
    const key = `${K}fetcher_removed`;
    p.discarded = e.discarded === 0 ? '' : t(`${key}.${e.discarded === 1 ? 'discarded_one' : 'discarded_many'}`, p);
    return t(`${key}.line`, p);
  },
  remote_log_end_offset_updated(e, p, t) {
    return t(`${K}remote_log_end_offset_updated.${e.from == null ? 'unknown' : 'known'}`, p);
  },
  high_watermark_changed(e, p, t) {
    p.cause = causeText(e.cause, t);
    return t(`${K}high_watermark_changed`, p);
  },
  truncated(e, p, t) {
    p.truncation = truncationText(e.truncation, t);
    return t(`${K}truncated`, p);
  },
  isr_shrunk(e, p, t) {
    p.isr = brokerList(e.isr);
    p.removed = brokerList(e.removed);
    p.leader = e.leader == null ? '' : String(e.leader);
    return t(`${K}isr_shrunk.${e.by_controller ? 'by_controller' : 'by_leader'}`, p);
  },
  isr_expanded(e, p, t) {
    p.isr = brokerList(e.isr);
    return t(`${K}isr_expanded`, p);
  },
  alter_partition_sent(e, p, t) {
    p.proposed = brokerList(e.proposed);
    return t(`${K}alter_partition_sent`, p);
  },
  isr_change_failed(e, p, t) {
    p.proposed = brokerList(e.proposed);
    return t(`${K}isr_change_failed`, p);
  },
  registration_refused(e, p, t) {
    return t(`${K}registration_refused.${e.session_expires_ms == null ? 'unreachable' : 'until'}`, p);
  },
  eligible_leader_replicas_changed(e, p, t) {
    p.elr = brokerList(e.elr);
    p.isr = brokerList(e.isr);
    return t(`${K}eligible_leader_replicas_changed`, p);
  },
  leader_elected(e, p, t) {
    p.isr = brokerList(e.isr);
    p.kind = t(`${K}election_kind.${e.kind}`);
    p.unreachable = e.unreachable ? t(`${K}leader_elected.unreachable`, p) : '';
    return t(`${K}leader_elected.line`, p);
  },
  became_follower(e, p, t) {
    // A controller's role change shares the brokers' type name.
    if (e.controller != null) return t(`${K}controller_became_follower`, p);
    return t(`${K}became_follower.${e.leader == null ? 'none' : 'leader'}`, p);
  },
  became_leader(e, p, t) {
    return t(`${K}${e.controller != null ? 'controller_became_leader' : 'became_leader'}`, p);
  },
  vote_request(e, p, t) {
    const key = `${K}vote_request`;
    p.what = t(`${key}.${e.pre_vote ? 'pre_vote' : 'vote'}`);
    p.arrives = e.latency_ms > 0 ? t(`${K}sent.arrives`, p) : '';
    return t(`${key}.line`, p);
  },
  vote_granted(e, p, t) {
    return t(`${K}vote_granted.${e.pre_vote ? 'pre_vote' : 'vote'}`, p);
  },
  vote_rejected(e, p, t) {
    p.reason = t(`${K}vote_refusal.${e.reason}`);
    return t(`${K}vote_rejected.${e.pre_vote ? 'pre_vote' : 'vote'}`, p);
  },
  quorum_sent(e, p, t) {
    p.rpc = rpcText(e.rpc, t);
    p.arrives = e.latency_ms > 0 ? t(`${K}sent.arrives`, p) : '';
    return t(`${K}quorum_sent`, p);
  },
  quorum_dropped(e, p, t) {
    p.reason = t(`${K}drop_reason.${e.reason}`);
    return t(`${K}quorum_dropped`, p);
  },
  became_candidate(e, p, t) {
    p.reason = t(`${K}quorum_cause.${e.reason}`);
    return t(`${K}became_candidate`, p);
  },
  became_prospective(e, p, t) {
    p.reason = t(`${K}quorum_cause.${e.reason}`);
    return t(`${K}became_prospective`, p);
  },
  became_unattached(e, p, t) {
    p.reason = t(`${K}quorum_cause.${e.reason}`);
    return t(`${K}became_unattached`, p);
  },
  resigned(e, p, t) {
    p.reason = t(`${K}quorum_cause.${e.reason}`);
    return t(`${K}resigned`, p);
  },
  metadata_appended(e, p, t) {
    return t(`${K}metadata_appended`, { ...p, ...fields(e.entry), record: metadataRecordText(e.entry.record, t) });
  },
  metadata_committed(e, p, t) {
    return t(`${K}metadata_committed.${e.from == null ? 'first' : 'advanced'}`, p);
  },
  metadata_high_watermark(e, p, t) {
    return t(`${K}metadata_high_watermark.${e.from == null ? 'first' : 'advanced'}`, p);
  },
  controller_restarted(e, p, t) {
    p.role = t(`${K}quorum_role.${e.role}`);
    return t(`${K}controller_restarted`, p);
  },
  crashed(e, p, t) {
    return t(`${K}crashed.${e.lose_unflushed > 0 ? 'power_loss' : 'crash'}`, p);
  },
  auto_leader_rebalance(e, p, t) {
    p.partitions = brokerList(e.partitions);
    return t(`${K}auto_leader_rebalance`, p);
  },
  rack_isolated(e, p, t) {
    p.rack = quoted(e.rack);
    p.brokers = brokerList(e.brokers);
    return t(`${K}rack_isolated`, p);
  },
  link_cut(e, p, t) {
    return t(`${K}link_cut.${e.both_ways ? 'both_ways' : 'one_way'}`, p);
  },
  consumed(e, p, t) {
    const key = `${K}consumed`;
    if (!e.values?.length) return t(`${key}.nothing`, p);
    p.values = e.values.map(quoted).join(', ');
    p.last_offset = String(e.to - 1);
    return t(`${key}.${e.to - e.from === 1 ? 'one' : 'many'}`, p);
  },
  consumer_truncation_detected(e, p, t) {
    const key = `${K}consumer_truncation_detected`;
    p.outcome = t(`${key}.${e.seek ? 'seek' : 'fail'}`, p);
    return t(`${key}.line`, p);
  },
  step_rejected(e, p, t) {
    p.action = JSON.stringify(e.action);
    return t(`${K}step_rejected`, p);
  },
  budget_exceeded(e, p, t) {
    p.what = budgetText(e.budget, e.limit, t);
    p.limit_name = `MAX_${String(e.budget).toUpperCase()}`;
    return t(`${K}budget_exceeded`, p);
  },
};

/** Fields that are free text the core composed (see PHRASES). */
const FREE_TEXT = {
  response_ignored: 'reason',
  isr_change_failed: 'reason',
  partition_offline: 'reason',
  consume_failed: 'error',
  consumer_position_reset: 'reason',
  step_rejected: 'reason',
  violation: 'detail',
};

/** The event's line without the time and step, in the language of `t`. */
export function eventText(e, t) {
  const p = fields(e);
  const free = FREE_TEXT[e.type];
  if (free && e[free] != null) p[free] = phrase(e[free], t);
  const special = SPECIAL[e.type];
  return special ? special(e, p, t) : t(K + e.type, p);
}

/** The whole line: time, step, the event, and how often it repeated. */
export function eventLine(e, t) {
  let repeated = '';
  if (e.repeated) {
    const r = { more: thousands(e.repeated.more), until_ms: String(e.repeated.until_ms) };
    repeated = t(`${K}repeated.${e.repeated.more === 1 ? 'once' : 'many'}`, r);
  }
  return t(`${K}line`, {
    time_ms: String(e.time_ms).padStart(7),
    step: String(e.step).padEnd(3),
    // In a topic of several partitions, as the trace writes it: `p2: …`.
    text: e.topic_partition != null ? `p${e.topic_partition}: ${eventText(e, t)}` : eventText(e, t),
    repeated,
  });
}
