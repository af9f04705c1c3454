//! New inputs from old ones: byte mutations of the text, structure-aware
//! mutations of the JSON (extreme numbers, many steps, long advances, timed
//! mode, tiny timeouts, 7 brokers), links packed from either and then
//! corrupted, and whole scenarios generated from nothing.

use crate::check::{Input, Kind};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use highwater::model::config::limits;
use highwater::Protocol;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::{IndexedMutRandom, IndexedRandom};
use rand::RngExt;
use serde_json::{json, Map, Value};

pub type Rng = Xoshiro256PlusPlus;

/// Numbers that sit on or just past a limit, or break a type.
fn extreme_number(rng: &mut Rng) -> Value {
    let hour = limits::MAX_SIMULATED_MS;
    let picks: [Value; 24] = [
        json!(0),
        json!(1),
        json!(2),
        json!(9),
        json!(10),
        json!(11),
        json!(500),
        json!(999),
        json!(30_000),
        json!(hour - 1),
        json!(hour),
        json!(hour + 1),
        json!(u32::MAX),
        json!(u32::MAX as u64 + 1),
        json!(i32::MAX),
        json!(limits::MAX_SEED),
        json!(limits::MAX_SEED + 1),
        json!(u64::MAX),
        json!(-1),
        json!(i64::MIN),
        json!(1.5),
        json!(1e300),
        json!(limits::MAX_STEPS),
        json!(limits::MAX_VALUE_BYTES),
    ];
    picks.choose(rng).unwrap().clone()
}

/// A duration biased to the small values that make timers fire often, and
/// to the longest allowed.
fn duration(rng: &mut Rng) -> u64 {
    match rng.random_range(0..10) {
        0..=3 => rng.random_range(1..=20),
        4 => limits::MAX_DURATION_MS,
        5 => rng.random_range(0..=limits::MAX_DURATION_MS),
        6 => [0, 2, 10, 100, 500, 1_000, 5_000, 30_000][rng.random_range(0..8)],
        _ => rng.random_range(1..=2_000),
    }
}

fn protocol_name(rng: &mut Rng) -> Value {
    let p = Protocol::ALL[rng.random_range(0..Protocol::ALL.len())];
    json!(p.name())
}

/// A configuration object, mostly valid, leaning to the expensive corner:
/// timed mode, 7 brokers, tiny intervals.
pub fn config(rng: &mut Rng) -> Value {
    let mut c = Map::new();
    let brokers = if rng.random_bool(0.5) { 7 } else { rng.random_range(1..=7u32) };
    c.insert("brokers".into(), json!(brokers));
    if rng.random_bool(0.7) {
        c.insert("auto_fetch".into(), json!(true));
    }
    let durations = [
        "replica_lag_time_max_ms",
        "broker_session_timeout_ms",
        "hw_checkpoint_interval_ms",
        "request_timeout_ms",
        "replica_fetch_wait_max_ms",
        "replica_fetch_backoff_ms",
        "link_latency_ms",
        "delivery_timeout_ms",
        "retry_backoff_ms",
        "retry_backoff_max_ms",
    ];
    for name in durations {
        if rng.random_bool(0.4) {
            let mut ms = duration(rng);
            // Keep most configurations valid: the interesting ones run.
            if name.contains("fetch") && rng.random_bool(0.9) {
                ms = ms.max(limits::MIN_FETCH_WAIT_MS);
            } else if name != "link_latency_ms" && rng.random_bool(0.9) {
                ms = ms.max(if name == "replica_lag_time_max_ms" { 2 } else { 1 });
            }
            c.insert(name.into(), json!(ms));
        }
    }
    if rng.random_bool(0.3) {
        c.insert("protocol".into(), protocol_name(rng));
    }
    if rng.random_bool(0.3) {
        c.insert("min_insync_replicas".into(), json!(rng.random_range(1..=brokers)));
    }
    if rng.random_bool(0.2) {
        c.insert("unclean_leader_election".into(), json!(rng.random_bool(0.5)));
    }
    if rng.random_bool(0.3) {
        c.insert("seed".into(), json!(rng.random_range(0..=limits::MAX_SEED)));
    }
    if rng.random_bool(0.2) {
        c.insert("retries".into(), json!([0, 1, 3, i32::MAX as u64][rng.random_range(0..4)]));
    }
    if rng.random_bool(0.2) {
        c.insert("enable_idempotence".into(), json!(rng.random_bool(0.5)));
    }
    if rng.random_bool(0.1) {
        c.insert("auto_offset_reset".into(), json!(["latest", "earliest", "none"][rng.random_range(0..3)]));
    }
    // A topic on a cluster: up to 12 partitions (now and then one past the
    // range), a replication factor, racks and an assignment that are mostly
    // valid, and the leader balance in the expensive corner.
    if rng.random_bool(0.4) {
        let partitions = match rng.random_range(0..10) {
            0 => [0, 13][rng.random_range(0..2)],
            1 => 12,
            _ => rng.random_range(1..=12u32),
        };
        c.insert("partitions".into(), json!(partitions));
        let rf = if rng.random_bool(0.5) {
            let rf = if rng.random_bool(0.95) { rng.random_range(1..=brokers) } else { brokers + 1 };
            c.insert("replication_factor".into(), json!(rf));
            rf
        } else {
            brokers.min(3)
        };
        if rng.random_bool(0.5) {
            let names = ["a", "b", "c"];
            let count = if rng.random_bool(0.95) { brokers } else { brokers + 1 };
            let racks: Vec<&str> = (0..count).map(|_| names[rng.random_range(0..names.len())]).collect();
            c.insert("racks".into(), json!(racks));
        }
        if rng.random_bool(0.2) {
            let assignment: Vec<Vec<u32>> = (0..partitions)
                .map(|p| (0..rf).map(|i| if rng.random_bool(0.98) { (p + i) % brokers + 1 } else { broker(rng, brokers) }).collect())
                .collect();
            c.insert("assignment".into(), json!(assignment));
        }
        if rng.random_bool(0.3) {
            c.insert("auto_leader_rebalance".into(), json!(rng.random_bool(0.5)));
        }
        if rng.random_bool(0.3) {
            c.insert("leader_imbalance_per_broker_percentage".into(), json!(rng.random_range(0..=101u32)));
        }
        if rng.random_bool(0.3) {
            c.insert("leader_imbalance_check_interval_ms".into(), json!(duration(rng)));
        }
    }
    Value::Object(c)
}

/// A partition of the topic (now and then one past it).
fn partition(rng: &mut Rng, partitions: u32) -> u32 {
    if rng.random_bool(0.03) {
        partitions
    } else {
        rng.random_range(0..partitions.max(1))
    }
}

/// A step of a topic of several partitions, or about racks.
fn cluster_step(rng: &mut Rng, brokers: u32, partitions: u32) -> Value {
    let b = broker(rng, brokers);
    let p = partition(rng, partitions);
    let rack = ["a", "b", "c", "z"][rng.random_range(0..4)];
    let acks = ["1", "all"][rng.random_range(0..2)];
    let key = ["", "a", "key-1", "\u{1f600}"][rng.random_range(0..4)];
    match rng.random_range(0..9) {
        0 => json!({ "produce": { "value": "k", "acks": acks, "partition": p } }),
        1 => json!({ "produce": { "value": "k", "key": key } }),
        2 => json!({ "fetch": { "broker": b, "from": broker(rng, brokers) } }),
        3 => json!({ "elect": if rng.random_bool(0.5) { json!({ "partition": p }) } else { json!({ "partition": p, "broker": b }) } }),
        4 => json!({ "elect_preferred": if rng.random_bool(0.5) { Value::Null } else { json!(p) } }),
        5 => json!({ "crash": { "rack": rack, "lose_unflushed": rng.random_range(0..3) } }),
        6 => json!({ "isolate": { "rack": rack } }),
        7 => json!({ "consume": { "partition": p } }),
        _ => json!({ "restart": b }),
    }
}

fn broker(rng: &mut Rng, brokers: u32) -> u32 {
    if rng.random_bool(0.02) {
        rng.random_range(0..=9)
    } else {
        rng.random_range(1..=brokers.max(1))
    }
}

/// One step; `left_ms` is the simulated time still allowed, which long
/// advances use up. A topic of several partitions takes its own steps too.
pub fn step(rng: &mut Rng, brokers: u32, partitions: u32, left_ms: &mut u64) -> Value {
    if partitions > 1 && rng.random_bool(0.3) {
        return cluster_step(rng, brokers, partitions);
    }
    let b = broker(rng, brokers);
    match rng.random_range(0..21) {
        0..=5 => {
            let ms = match rng.random_range(0..6) {
                0 => *left_ms,
                1 => rng.random_range(0..=*left_ms),
                2 => 1,
                _ => rng.random_range(1..=(*left_ms).clamp(1, 20_000)),
            };
            *left_ms = left_ms.saturating_sub(ms);
            json!({ "advance_ms": ms })
        }
        6..=8 => {
            let len = match rng.random_range(0..4) {
                0 => limits::MAX_VALUE_BYTES,
                _ => rng.random_range(0..=8),
            };
            let acks = ["0", "1", "all"][rng.random_range(0..3)];
            let mut p = json!({ "value": "x".repeat(len), "acks": acks });
            if rng.random_bool(0.1) {
                p["to"] = json!(b);
            }
            json!({ "produce": p })
        }
        9 => json!({ "fetch": b }),
        10 => json!({ "crash": { "broker": b, "lose_unflushed": rng.random_range(0..3) } }),
        11 => json!({ "restart": b }),
        12 => json!({ "elect": if rng.random_bool(0.5) { Value::Null } else { json!(b) } }),
        13 => json!({ "delay": { "broker": b, "ms": duration(rng) } }),
        14 => json!({ "cut": [b, broker(rng, brokers)] }),
        15 => json!({ "partition": [b, broker(rng, brokers)] }),
        16 => json!({ "isolate": b }),
        17 => json!({ "heal": match rng.random_range(0..3) { 0 => json!("all"), 1 => json!(b), _ => json!([b, broker(rng, brokers)]) } }),
        18 => json!("consume"),
        19 => json!({ ["cut_controller", "controlled_shutdown", "begin_controlled_shutdown"][rng.random_range(0..3)]: b }),
        _ => json!({ if rng.random_bool(0.5) { "pause" } else { "resume" }: b }),
    }
}

/// A whole scenario: a few steps, or many (up to the limit).
pub fn scenario(rng: &mut Rng) -> Value {
    let config = config(rng);
    let brokers = config["brokers"].as_u64().unwrap_or(3) as u32;
    let partitions = config["partitions"].as_u64().unwrap_or(1) as u32;
    let n = match rng.random_range(0..10) {
        0 => rng.random_range(100..=limits::MAX_STEPS),
        1 => limits::MAX_STEPS,
        _ => rng.random_range(1..=12),
    };
    let mut left_ms = limits::MAX_SIMULATED_MS;
    let steps: Vec<Value> = (0..n).map(|_| step(rng, brokers, partitions, &mut left_ms)).collect();
    json!({ "version": 1, "config": config, "steps": steps })
}

/// A share link for any text, valid scenario or not, packed the way
/// `link::encode` packs one.
pub fn pack(text: &str, level: u8) -> String {
    format!("v1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(text.as_bytes(), level)))
}

/// The text inside a link, if it unpacks (at most twice the size limit).
pub fn unpack(link: &str) -> Option<String> {
    let body = link.trim().strip_prefix("v1.")?;
    let packed = URL_SAFE_NO_PAD.decode(body).ok()?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, 2 * limits::MAX_SCENARIO_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

/// The JSON text of an input (a link's unpacked), if it has any.
fn json_of(input: &Input) -> Option<Value> {
    let text = match input.kind {
        Kind::Scenario | Kind::Tour => input.text.clone(),
        Kind::Link | Kind::TourLink => unpack(&input.text)?,
    };
    serde_json::from_str(&text).ok()
}

const TOKENS: [&str; 22] = [
    "0", "-1", "1e999", "18446744073709551616", "9007199254740993", "3600000", "3600001", "4294967296", "1.5", "-0",
    "null", "true", "\"\"", "{}", "[]", "\"all\"", "{\"advance_ms\":3600000}", "\"consume\"", ",", "\"\\u0000\"", "\u{feff}", "\"auto_fetch\":true,",
];

/// Byte mutations of a text (invalid UTF-8 is replaced, as a browser would).
fn bytes(rng: &mut Rng, text: &str, other: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let at = if b.is_empty() { 0 } else { rng.random_range(0..=b.len()) };
        match rng.random_range(0..8) {
            0 if at < b.len() => b[at] ^= 1 << rng.random_range(0..8),
            1 if at < b.len() => b[at] = rng.random(),
            2 => {
                let t = TOKENS.choose(rng).unwrap();
                b.splice(at..at, t.bytes());
            }
            3 if at < b.len() => {
                let end = rng.random_range(at..=b.len().min(at + 16));
                b.drain(at..end);
            }
            4 if at < b.len() => {
                let end = rng.random_range(at..=b.len().min(at + 64));
                let chunk: Vec<u8> = b[at..end].to_vec();
                for _ in 0..rng.random_range(1..=8) {
                    b.splice(at..at, chunk.iter().copied());
                }
            }
            5 => b.truncate(at),
            6 if !other.is_empty() => {
                // Splice: this text's head, the other's tail.
                let from = rng.random_range(0..other.len());
                b.truncate(at);
                b.extend_from_slice(&other.as_bytes()[from..]);
            }
            _ if at < b.len() => b[at] = b"{}[]\":,0123456789-.eE"[rng.random_range(0..21)],
            _ => {}
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// A link whose base64 text is changed, with its alphabet mostly.
fn link_text(rng: &mut Rng, link: &str) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut b = link.as_bytes().to_vec();
    for _ in 0..rng.random_range(1..=3) {
        let at = rng.random_range(0..=b.len());
        match rng.random_range(0..5) {
            0 if at < b.len() => b[at] = B64[rng.random_range(0..64)],
            1 => b.truncate(at),
            2 => b.insert(at, B64[rng.random_range(0..64)]),
            3 if at < b.len() => {
                b.remove(at);
            }
            _ => b.insert(at, b"=+/ %.#\n"[rng.random_range(0..8)]),
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// A link whose deflate stream is changed, then packed again as base64.
fn deflate_stream(rng: &mut Rng, link: &str) -> String {
    let Some(mut packed) = link.trim().strip_prefix("v1.").and_then(|b| URL_SAFE_NO_PAD.decode(b).ok()) else { return link.into() };
    for _ in 0..rng.random_range(1..=3) {
        if packed.is_empty() {
            break;
        }
        let at = rng.random_range(0..packed.len());
        match rng.random_range(0..3) {
            0 => packed[at] ^= 1 << rng.random_range(0..8),
            1 => packed[at] = rng.random(),
            _ => packed.truncate(at),
        }
    }
    format!("v1.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// A path into a JSON value, picked at random among its nodes (arrays
/// sampled, so a 10,000-step scenario costs no more than a small one).
fn random_node<'a>(rng: &mut Rng, v: &'a mut Value) -> &'a mut Value {
    if rng.random_bool(0.3) {
        return v;
    }
    let is_leaf = match v {
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => true,
    };
    if is_leaf {
        return v;
    }
    match v {
        Value::Object(m) => {
            let i = rng.random_range(0..m.len());
            let child = m.values_mut().nth(i).unwrap();
            random_node(rng, child)
        }
        Value::Array(a) => {
            let i = rng.random_range(0..a.len());
            random_node(rng, &mut a[i])
        }
        _ => unreachable!(),
    }
}

/// Structure-aware changes to a scenario's JSON.
fn structure(rng: &mut Rng, mut v: Value) -> Value {
    if !v.is_object() {
        return scenario(rng);
    }
    let brokers = v.pointer("/config/brokers").and_then(Value::as_u64).unwrap_or(3).clamp(1, 7) as u32;
    let partitions = v.pointer("/config/partitions").and_then(Value::as_u64).unwrap_or(1).clamp(1, 12) as u32;
    for _ in 0..rng.random_range(1..=3) {
        if !v.is_object() {
            break; // an extreme number replaced the whole scenario
        }
        match rng.random_range(0..12) {
            0 => *random_node(rng, &mut v) = extreme_number(rng),
            1 => {
                // A config field to an extreme or a fresh value.
                let fresh = config(rng);
                let c = v.as_object_mut().unwrap().entry("config").or_insert_with(|| json!({}));
                if let (Some(c), Some(fresh)) = (c.as_object_mut(), fresh.as_object()) {
                    for (k, val) in fresh {
                        if rng.random_bool(0.5) {
                            c.insert(k.clone(), if rng.random_bool(0.2) { extreme_number(rng) } else { val.clone() });
                        }
                    }
                }
            }
            2 => v["config"] = config(rng),
            3 => {
                // Timed mode, 7 brokers, the shortest waits.
                let c = v.as_object_mut().unwrap().entry("config").or_insert_with(|| json!({}));
                if c.is_object() {
                    c["auto_fetch"] = json!(true);
                    c["brokers"] = json!(7);
                    for k in ["replica_fetch_wait_max_ms", "replica_fetch_backoff_ms"] {
                        c[k] = json!(limits::MIN_FETCH_WAIT_MS);
                    }
                    let tiny = ["request_timeout_ms", "replica_lag_time_max_ms", "hw_checkpoint_interval_ms", "retry_backoff_ms", "broker_session_timeout_ms"];
                    c[*tiny.choose(rng).unwrap()] = json!(rng.random_range(1..=3));
                }
            }
            _ => {
                let steps = v.as_object_mut().unwrap().entry("steps").or_insert_with(|| json!([]));
                let Some(steps) = steps.as_array_mut() else { continue };
                let used: u64 = steps.iter().filter_map(|s| s.get("advance_ms").and_then(Value::as_u64)).sum();
                let mut left = limits::MAX_SIMULATED_MS.saturating_sub(used);
                let at = rng.random_range(0..=steps.len());
                match rng.random_range(0..7) {
                    0 => steps.insert(at, step(rng, brokers, partitions, &mut left)),
                    1 => steps.insert(at, json!({ "advance_ms": left })),
                    2 if !steps.is_empty() => {
                        // Repeat a run of steps many times (up to the limit).
                        let from = rng.random_range(0..steps.len());
                        let to = rng.random_range(from..steps.len().min(from + 4)) + 1;
                        let chunk: Vec<Value> = steps[from..to].to_vec();
                        let times = [2, 10, 100, 1_000, limits::MAX_STEPS][rng.random_range(0..5)];
                        let room = (limits::MAX_STEPS + 1).saturating_sub(steps.len()) / chunk.len();
                        for _ in 0..times.min(room) {
                            steps.splice(at.min(steps.len())..at.min(steps.len()), chunk.iter().cloned());
                        }
                    }
                    3 if !steps.is_empty() => {
                        steps.remove(rng.random_range(0..steps.len()));
                    }
                    4 if !steps.is_empty() => {
                        // Split the time left into many short advances.
                        let n = rng.random_range(10..=5_000usize).min(limits::MAX_STEPS.saturating_sub(steps.len()));
                        let each = (left / n.max(1) as u64).max(1);
                        let many: Vec<Value> = (0..n).map(|_| json!({ "advance_ms": each })).collect();
                        steps.splice(at..at, many);
                    }
                    5 => {
                        let i = rng.random_range(0..=steps.len());
                        steps.truncate(i);
                    }
                    _ => {
                        for _ in 0..rng.random_range(1..=20) {
                            let at = rng.random_range(0..=steps.len());
                            steps.insert(at, step(rng, brokers, partitions, &mut left));
                        }
                    }
                }
            }
        }
    }
    v
}

/// Event types a tour's `events` fact may name, and some it may not.
const EVENT_NAMES: [&str; 10] =
    ["sent", "fetch_held", "appended", "high_watermark_changed", "truncated", "isr_shrunk", "leader_elected", "violation", "x0", "produce"];

/// A fact's value as a tour file might state it: right or wrong, of the
/// right shape or not, huge or hostile.
fn fact_value(rng: &mut Rng) -> Value {
    match rng.random_range(0..10) {
        0 => extreme_number(rng),
        1 => json!([{ "kind": "acked_write_lost" }, 42, null]),
        2 => Value::Array((0..rng.random_range(1..2_000)).map(|i| json!(format!("m{i}"))).collect()),
        3 => json!(hostile_text(rng, 40)),
        4 => json!(null),
        5 => json!([1, 2, 3]),
        6 => json!("acked"),
        7 => json!(true),
        _ => json!(rng.random_range(0..5)),
    }
}

/// A stop's facts: every kind of fact, some keys hostile, the events and
/// violations facts in shapes the check must refuse.
fn facts(rng: &mut Rng) -> Value {
    let mut f = Map::new();
    for _ in 0..rng.random_range(0..6) {
        match rng.random_range(0..9) {
            0 => {
                let n = rng.random_range(1..800);
                let names: Vec<Value> = (0..n).map(|i| if rng.random_bool(0.3) { json!(format!("x{i}")) } else { json!(EVENT_NAMES[rng.random_range(0..EVENT_NAMES.len())]) }).collect();
                f.insert("events".into(), Value::Array(names));
            }
            1 => {
                f.insert("violations".into(), if rng.random_bool(0.5) { json!(["acked_write_lost"]) } else { fact_value(rng) });
            }
            2 => {
                let values: Map<String, Value> = (0..rng.random_range(1..500)).map(|i| (format!("m{i}"), fact_value(rng))).collect();
                f.insert("produce".into(), Value::Object(values));
            }
            3 => {
                let mut b = Map::new();
                let id = if rng.random_bool(0.8) { rng.random_range(1..8).to_string() } else { hostile_text(rng, 10) };
                let field = ["log_end_offset", "high_watermark", "role", "log", "epoch_cache", "alive"][rng.random_range(0..6)];
                b.insert(field.into(), fact_value(rng));
                f.insert("brokers".into(), json!({ id: Value::Object(b) }));
            }
            4 => {
                let chars = rng.random_range(1..200);
                let key = hostile_text(rng, chars);
                f.insert(key, fact_value(rng));
            }
            5 => {
                f.insert("leader_view".into(), json!({ "2": fact_value(rng) }));
            }
            _ => {
                let key = ["leader", "isr", "high_watermark", "leader_epoch", "time_ms", "consumed", "elr"][rng.random_range(0..7)];
                f.insert(key.into(), fact_value(rng));
            }
        }
    }
    Value::Object(f)
}

/// A tour file around a scenario: stops at random positions (some past
/// the end, some twice), with facts, predictions and words.
fn tour_of(rng: &mut Rng, scenario: Value) -> Value {
    let steps = scenario["steps"].as_array().map_or(0, Vec::len);
    let most = if rng.random_bool(0.1) { 200 } else { 6 };
    let n = rng.random_range(1..=most);
    let mut at = 0;
    let stops: Vec<Value> = (0..n)
        .map(|i| {
            at = if rng.random_bool(0.8) { (at + rng.random_range(0..3)).min(steps) } else { rng.random_range(0..=steps + 2) };
            let mut stop = json!({ "key": format!("s{i}"), "at": at, "caption": { "en": if rng.random_bool(0.2) { hostile_text(rng, 100) } else { "A stop.".into() } }, "facts": facts(rng) });
            if rng.random_bool(0.2) {
                stop["predict"] = json!(["high_watermark", "leader", "isr", "brokers.1.log", "produce.m1", "consumed"][rng.random_range(0..6)]);
            }
            stop
        })
        .collect();
    json!({ "highwater_tour": 1, "id": "fuzz", "title": { "en": "Fuzz" }, "parts": [{ "scenario": scenario, "stops": stops }] })
}

/// A new tour from a tour (its facts changed, its scenario mutated) or
/// from a scenario, as a file or as a link.
fn mutate_tour(rng: &mut Rng, parent: &Input) -> Input {
    let mut tour = match json_of(parent) {
        Some(v) if v.get("highwater_tour").is_some() => v,
        Some(v) if v.is_object() => tour_of(rng, v),
        _ => {
            let s = scenario(rng);
            tour_of(rng, s)
        }
    };
    match rng.random_range(0..4) {
        0 => {
            if let Some(s) = tour.pointer_mut("/parts/0/scenario") {
                *s = structure(rng, s.take());
            }
        }
        1 => {
            let s = match tour.pointer("/parts/0/scenario").cloned() {
                Some(s) => s,
                None => scenario(rng),
            };
            tour = tour_of(rng, s);
        }
        _ => {
            if let Some(stops) = tour.pointer_mut("/parts/0/stops").and_then(Value::as_array_mut) {
                if let Some(stop) = stops.choose_mut(rng) {
                    stop["facts"] = facts(rng);
                }
            }
        }
    }
    let text = tour.to_string();
    if rng.random_bool(0.3) {
        Input { kind: Kind::TourLink, text: pack(&text, 9) }
    } else {
        Input { kind: Kind::Tour, text }
    }
}

/// A new input from `parent` (and `other`, for splicing).
pub fn mutate(rng: &mut Rng, parent: &Input, other: &Input) -> Input {
    // Tours: from a tour, or now and then around a scenario.
    if parent.is_tour() || rng.random_range(0..10) == 0 {
        return mutate_tour(rng, parent);
    }
    let choice = rng.random_range(0..20);
    // A whole new scenario, as text or as a link.
    if choice == 0 {
        let text = scenario(rng).to_string();
        return if rng.random_bool(0.5) { Input { kind: Kind::Scenario, text } } else { Input { kind: Kind::Link, text: pack(&text, 9) } };
    }
    if choice == 1 {
        return bomb(rng);
    }
    let as_link = match rng.random_range(0..10) {
        0..=1 => parent.kind != Kind::Link, // switch kinds
        _ => parent.kind == Kind::Link,
    };
    // Structure first (when the text is JSON), then maybe bytes.
    let mut text = match (choice < 12, json_of(parent)) {
        (true, Some(v)) => {
            let v = structure(rng, v);
            if rng.random_bool(0.8) { v.to_string() } else { serde_json::to_string_pretty(&v).unwrap() }
        }
        _ => match parent.kind {
            Kind::Link | Kind::TourLink => unpack(&parent.text).unwrap_or_else(|| parent.text.clone()),
            Kind::Scenario | Kind::Tour => parent.text.clone(),
        },
    };
    if choice >= 12 || rng.random_bool(0.1) {
        let other_text = match other.kind {
            Kind::Link | Kind::TourLink => unpack(&other.text).unwrap_or_default(),
            Kind::Scenario | Kind::Tour => other.text.clone(),
        };
        text = bytes(rng, &text, &other_text);
    }
    if !as_link {
        return Input { kind: Kind::Scenario, text };
    }
    let mut link = pack(&text, [1, 6, 9, 10][rng.random_range(0..4)]);
    match rng.random_range(0..6) {
        0 => link = link_text(rng, &link),
        1 => link = deflate_stream(rng, &link),
        _ => {}
    }
    Input { kind: Kind::Link, text: link }
}

/// A small link that expands to something big: padding up to (or past) the
/// size limit, or the largest step list.
pub fn bomb(rng: &mut Rng) -> Input {
    let limit = limits::MAX_SCENARIO_BYTES;
    let text = match rng.random_range(0..6) {
        0 => " ".repeat(limit + rng.random_range(1..=1_000)),
        1 => {
            let body = r#"{"version":1,"steps":[]}"#;
            format!("{}{body}", " ".repeat(limit - body.len() - rng.random_range(0..2)))
        }
        2 => {
            let step = [r#"{"advance_ms":360}"#, r#""consume""#, r#"{"fetch":2}"#, r#"{"produce":{"value":"x"}}"#][rng.random_range(0..4)];
            let n = limits::MAX_STEPS + rng.random_range(0..2);
            format!(r#"{{"version":1,"config":{{"auto_fetch":true,"brokers":7}},"steps":[{}]}}"#, vec![step; n].join(","))
        }
        3 => format!("[{}]", "[".repeat(rng.random_range(100..=100_000))),
        // A long key, then many values below it: a reader that copies the
        // path for every value does quadratic work (a 1 MiB file once took
        // 100 s). The key sits at the top, in config or in a step.
        4 => {
            let chars = rng.random_range(1_000..=limit / 2);
            let key = hostile_text(rng, chars);
            let key = serde_json::to_string(&key).unwrap();
            let left = limit.saturating_sub(key.len() + 64) / 3;
            let array = format!("[{}]", vec!["[]"; rng.random_range(left / 2..=left.max(1))].join(","));
            match rng.random_range(0..3) {
                0 => format!(r#"{{"version":1,{key}:{array}}}"#),
                1 => format!(r#"{{"version":1,"config":{{{key}:{array}}}}}"#),
                _ => format!(r#"{{"version":1,"steps":[{{{key}:{array}}}]}}"#),
            }
        }
        // Long text where an error quotes it: an unknown field, acks, a
        // protocol, a step name, a duplicate key.
        _ => {
            let chars = rng.random_range(100..=limit / 4);
            let t = serde_json::to_string(&hostile_text(rng, chars)).unwrap();
            match rng.random_range(0..5) {
                0 => format!(r#"{{"version":1,"config":{{{t}:1}}}}"#),
                1 => format!(r#"{{"version":1,"steps":[{{"produce":{{"value":"x","acks":{t}}}}}]}}"#),
                2 => format!(r#"{{"version":1,"config":{{"protocol":{t}}}}}"#),
                3 => format!(r#"{{"version":1,"steps":[{t}]}}"#),
                _ => format!(r#"{{"version":1,"config":{{{t}:1,{t}:2}}}}"#),
            }
        }
    };
    Input { kind: Kind::Link, text: pack(&text, 9) }
}

/// `chars` characters of text an error message might quote: letters, with
/// now and then a bidi override, a terminal escape (a title, a screen
/// clear), a NUL or a newline.
pub fn hostile_text(rng: &mut Rng, chars: usize) -> String {
    const HOSTILE: [&str; 6] = ["\u{202E}", "\u{1B}]0;pwned\u{7}", "\u{1B}[2J", "\u{0}", "\n", "\u{2066}"];
    let mut out = String::with_capacity(chars);
    let mut n = 0;
    while n < chars {
        if rng.random_range(0..1_000) == 0 {
            let h = HOSTILE[rng.random_range(0..HOSTILE.len())];
            out.push_str(h);
            n += h.chars().count();
        } else {
            out.push('k');
            n += 1;
        }
    }
    out
}
