//! Fork: the same scenario with ONE thing changed ("what if acks had been
//! all? min.insync.replicas 2? a newer Kafka?"), and the differences between
//! two runs' states at the same position.
//!
//! A `Change` is a closed enum named in Kafka's words; `fork` applies it to
//! a scenario and checks the result with the scenario's own validation.
//! `differences` compares two `StateView`s field by field; nothing here
//! decides a protocol fact, it only reads what the model reported.
//!
//! # The text form of a change (for links)
//!
//! Short, URL-safe (letters, digits and `-._~:@=%` only; no `&`, `#`, `/`
//! or space, so it sits in a query or fragment parameter as is), and
//! canonical: `Change` → text → `Change` is exact, and text that the
//! printer would write differently is refused with a message saying how to
//! write it.
//!
//! ```text
//! change  = "protocol=" preset                  protocol=4.1
//!         | "acks=" acks                        acks=all      (every produce step)
//!         | "acks@" n "=" acks                  acks@5=1      (produce step n)
//!         | "min_insync_replicas=" int          min_insync_replicas=2
//!         | "unclean_leader_election=" bool     unclean_leader_election=false
//!         | "replica_lag_time_max_ms=" int      replica_lag_time_max_ms=30000
//!         | "enable_idempotence=" bool          enable_idempotence=true
//!         | "step@" n "=" step                  step@7=crash:2
//! preset  = 0.10 | 0.11 | 2.0 | 2.1 | 2.8 | 3.5 | 3.7 | 4.1   ("2.7" reads as 2.8)
//! acks    = 0 | 1 | all
//! n       = the step's number, 1-based (the page's "step n")
//! step    = produce:VALUE:ACKS[:TO] | fetch:B | advance_ms:MS
//!         | crash:B[:LOSE_UNFLUSHED] | restart:B | elect | elect:B
//!         | delay:B:MS | cut:A:B | partition:A:B | isolate:B
//!         | heal:all | heal:B | heal:A:B | consume | pause:B | resume:B
//! ```
//!
//! Integers are decimal without leading zeros or signs; booleans are `true`
//! and `false`. A produce VALUE is percent-encoded (UTF-8 bytes other than
//! `A-Z a-z 0-9 - . _ ~` as `%XX` with upper-case hex; an empty value is
//! empty). `crash:B` is a process crash; `crash:B:N` a power loss that
//! loses N unflushed records (N ≥ 1).
//!
//! # The same step in two runs
//!
//! Both runs have the same number of steps (a change never adds or removes
//! one), so position p is "after p steps" in both. A run that went past a
//! work budget stops at the step where it did (`Timeline::new`); at a
//! position past that step it is shown as it stopped
//! (`aligned_position`), and `differences` reports `stopped` while the
//! other run has not stopped.

use crate::model::config::limits;
use crate::model::config::{BrokerId, Protocol};
use crate::model::violation::{Allowance, ViolationKind};
use crate::run::scenario::{Acks, Nodes, Crash, Delay, Elect, Fetch, Heal, Produce, Scenario, Step};
use crate::view::state::StateView;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// Characters of a change's text: a produce value and a key of
/// `MAX_VALUE_BYTES` each, every byte percent-encoded, and the rest.
pub const MAX_CHANGE_CHARS: usize = 2 * 3 * limits::MAX_VALUE_BYTES + 64;

/// The one thing a fork changes.
///
/// Its JSON form (`Serialize`, read back by `Change::from_json`) is tagged
/// by `change`: `{"change": "acks", "step": 8, "acks": "1"}`,
/// `{"change": "step", "step": 14, "with": {"crash": {"broker": 3}}}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "change")]
pub enum Change {
    /// The Kafka version preset, switched as the settings page switches it
    /// (`Config::with_protocol`: settings left at the old version's
    /// defaults take the new version's).
    Protocol { protocol: Protocol },
    /// The producer's `acks` on every produce step.
    AcksAll { acks: Acks },
    /// The `acks` of one produce step (`step` is 1-based).
    Acks { step: usize, acks: Acks },
    MinInsyncReplicas { value: u32 },
    UncleanLeaderElection { value: bool },
    ReplicaLagTimeMaxMs { value: u64 },
    EnableIdempotence { value: bool },
    /// One step (1-based) replaced by another.
    Step { step: usize, with: Step },
}

/// Why a change cannot be applied to a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForkError {
    /// The change names a step the scenario does not have.
    StepOutOfRange { step: usize, steps: usize },
    /// `acks@n` on a step that is not a produce.
    NotAProduce { step: usize, found: &'static str },
    /// `acks=` with no produce step to give it to.
    NoProduceStep,
    /// The changed scenario is not valid (a value out of the config's
    /// bounds, a broker that does not exist): the scenario validation's words.
    Invalid(String),
}

impl fmt::Display for ForkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ForkError::StepOutOfRange { step, steps } => {
                if *steps == 0 {
                    write!(f, "step {step}: the scenario has no steps")
                } else {
                    write!(f, "step {step}: the scenario has steps 1..={steps}")
                }
            }
            ForkError::NotAProduce { step, found } => write!(f, "acks@{step}: step {step} is a {found} step, not a produce"),
            ForkError::NoProduceStep => f.write_str("acks: the scenario has no produce step"),
            ForkError::Invalid(e) => write!(f, "the forked scenario is not valid: {e}"),
        }
    }
}

impl std::error::Error for ForkError {}

/// Text that is not a change: what is wrong, naming the part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeTextError(pub String);

impl fmt::Display for ChangeTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ChangeTextError {}

/// The scenario with `change` applied, validated as a scenario file is.
pub fn fork(scenario: &Scenario, change: &Change) -> Result<Scenario, ForkError> {
    let mut s = scenario.clone();
    let steps = s.steps.len();
    let at = |step: usize| if step >= 1 && step <= steps { Ok(step - 1) } else { Err(ForkError::StepOutOfRange { step, steps }) };
    match change {
        Change::Protocol { protocol } => s.config = s.config.with_protocol(*protocol),
        Change::AcksAll { acks } => {
            let mut any = false;
            for step in &mut s.steps {
                if let Step::Produce(p) = step {
                    p.acks = *acks;
                    any = true;
                }
            }
            if !any {
                return Err(ForkError::NoProduceStep);
            }
        }
        Change::Acks { step, acks } => match &mut s.steps[at(*step)?] {
            Step::Produce(p) => p.acks = *acks,
            other => return Err(ForkError::NotAProduce { step: *step, found: step_name(other) }),
        },
        Change::MinInsyncReplicas { value } => s.config.min_insync_replicas = *value,
        Change::UncleanLeaderElection { value } => s.config.unclean_leader_election = *value,
        Change::ReplicaLagTimeMaxMs { value } => s.config.replica_lag_time_max_ms = *value,
        Change::EnableIdempotence { value } => s.config = s.config.with_idempotence(*value),
        Change::Step { step, with } => {
            let i = at(*step)?;
            s.steps[i] = with.clone();
        }
    }
    s.validate().map_err(|e| ForkError::Invalid(e.0))?;
    Ok(s)
}

/// A step's kind as the scenario format names it.
pub fn step_name(step: &Step) -> &'static str {
    match step {
        Step::Produce(_) => "produce",
        Step::Fetch(_) => "fetch",
        Step::AdvanceMs(_) => "advance_ms",
        Step::Crash(_) => "crash",
        Step::Restart(_) => "restart",
        Step::Elect(_) => "elect",
        Step::ElectPreferred(_) => "elect_preferred",
        Step::Delay(_) => "delay",
        Step::Cut(_) => "cut",
        Step::Partition(_) => "partition",
        Step::Isolate(_) => "isolate",
        Step::CutController(_) => "cut_controller",
        Step::ControlledShutdown(_) => "controlled_shutdown",
        Step::BeginControlledShutdown(_) => "begin_controlled_shutdown",
        Step::Heal(_) => "heal",
        Step::Consume(_) => "consume",
        Step::Pause(_) => "pause",
        Step::Resume(_) => "resume",
        Step::Resign(()) => "resign",
    }
}

/// What a change does to a scenario, for the header "Fork: min.insync.replicas 1 → 2":
/// the setting in Kafka's name, the step it touches (1-based) if any, and
/// the value before and after, as text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangeSummary {
    /// The change's text form.
    pub text: String,
    /// `protocol`, `acks`, `min.insync.replicas`, `unclean.leader.election.enable`,
    /// `replica.lag.time.max.ms`, `enable.idempotence` or `step`.
    pub setting: &'static str,
    pub step: Option<usize>,
    /// Before; for `acks=` on every produce, the distinct acks before ("1" or "1, all").
    pub from: String,
    pub to: String,
}

impl Change {
    /// The change as the header says it, read against the original scenario.
    pub fn summary(&self, original: &Scenario) -> ChangeSummary {
        let c = &original.config;
        let step_at = |n: usize| original.steps.get(n.wrapping_sub(1));
        let (setting, step, from, to) = match self {
            Change::Protocol { protocol } => ("protocol", None, c.protocol.name().to_string(), protocol.name().to_string()),
            Change::AcksAll { acks } => {
                let mut before: Vec<Acks> = original.steps.iter().filter_map(|s| if let Step::Produce(p) = s { Some(p.acks) } else { None }).collect();
                before.sort();
                before.dedup();
                let from = before.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ");
                ("acks", None, from, acks.name().to_string())
            }
            Change::Acks { step, acks } => {
                let from = match step_at(*step) {
                    Some(Step::Produce(p)) => p.acks.name().to_string(),
                    _ => "?".to_string(),
                };
                ("acks", Some(*step), from, acks.name().to_string())
            }
            Change::MinInsyncReplicas { value } => ("min.insync.replicas", None, c.min_insync_replicas.to_string(), value.to_string()),
            Change::UncleanLeaderElection { value } => ("unclean.leader.election.enable", None, c.unclean_leader_election.to_string(), value.to_string()),
            Change::ReplicaLagTimeMaxMs { value } => ("replica.lag.time.max.ms", None, c.replica_lag_time_max_ms.to_string(), value.to_string()),
            Change::EnableIdempotence { value } => ("enable.idempotence", None, c.enable_idempotence.to_string(), value.to_string()),
            Change::Step { step, with } => ("step", Some(*step), step_at(*step).map_or("?".to_string(), step_text), step_text(with)),
        };
        ChangeSummary { text: self.to_string(), setting, step, from, to }
    }
}

// ---------------------------------------------------------------- text form

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Protocol { protocol } => write!(f, "protocol={}", protocol.name()),
            Change::AcksAll { acks } => write!(f, "acks={}", acks.name()),
            Change::Acks { step, acks } => write!(f, "acks@{step}={}", acks.name()),
            Change::MinInsyncReplicas { value } => write!(f, "min_insync_replicas={value}"),
            Change::UncleanLeaderElection { value } => write!(f, "unclean_leader_election={value}"),
            Change::ReplicaLagTimeMaxMs { value } => write!(f, "replica_lag_time_max_ms={value}"),
            Change::EnableIdempotence { value } => write!(f, "enable_idempotence={value}"),
            Change::Step { step, with } => write!(f, "step@{step}={}", step_text(with)),
        }
    }
}

impl std::str::FromStr for Change {
    type Err = ChangeTextError;
    fn from_str(text: &str) -> Result<Change, ChangeTextError> {
        Change::parse(text)
    }
}

const SETTINGS: &str = "protocol, acks, acks@N, min_insync_replicas, unclean_leader_election, replica_lag_time_max_ms, enable_idempotence or step@N";

fn err<T>(message: String) -> Result<T, ChangeTextError> {
    Err(ChangeTextError(message))
}

/// A decimal integer as the printer writes it (no sign, no leading zero).
fn int<T: std::str::FromStr + ToString>(what: &str, text: &str) -> Result<T, ChangeTextError> {
    match text.parse::<T>() {
        Ok(n) if n.to_string() == text => Ok(n),
        Ok(n) => err(format!("{what}: {} is written {:?}", quoted(text), n.to_string())),
        Err(_) if text.is_empty() => err(format!("{what}: missing (a whole number)")),
        Err(_) => err(format!("{what}: {} is not a whole number in range", quoted(text))),
    }
}

fn boolean(what: &str, text: &str) -> Result<bool, ChangeTextError> {
    match text {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => err(format!("{what}: {} is not true or false", quoted(text))),
    }
}

fn acks(what: &str, text: &str) -> Result<Acks, ChangeTextError> {
    match text {
        "0" => Ok(Acks::Zero),
        "1" => Ok(Acks::One),
        "all" => Ok(Acks::All),
        _ => err(format!("{what}: {} is not 0, 1 or all", quoted(text))),
    }
}

/// A 1-based step number.
fn step_number(what: &str, text: &str) -> Result<usize, ChangeTextError> {
    let n: usize = int(what, text)?;
    if n == 0 || n > limits::MAX_STEPS {
        return err(format!("{what}: step {n} is out of range 1..={} (steps are numbered from 1)", limits::MAX_STEPS));
    }
    Ok(n)
}

impl Change {
    /// Reads the text form (module docs). The error names the part that is wrong.
    pub fn parse(text: &str) -> Result<Change, ChangeTextError> {
        if text.is_empty() {
            return err(format!("change: empty; expected setting=value, like min_insync_replicas=2 (settings: {SETTINGS})"));
        }
        if text.len() > MAX_CHANGE_CHARS {
            return err(format!("change: {} characters is longer than the limit of {MAX_CHANGE_CHARS}", text.len()));
        }
        let Some((name, value)) = text.split_once('=') else {
            return err(format!("change: {} has no \"=\"; expected setting=value, like min_insync_replicas=2", quoted(text)));
        };
        if let Some(n) = name.strip_prefix("acks@") {
            let step = step_number("acks@N", n)?;
            return Ok(Change::Acks { step, acks: acks(&format!("acks@{step}"), value)? });
        }
        if let Some(n) = name.strip_prefix("step@") {
            let step = step_number("step@N", n)?;
            return Ok(Change::Step { step, with: parse_step(&format!("step@{step}"), value)? });
        }
        Ok(match name {
            "protocol" => match Protocol::parse_version(value) {
                Some(protocol) => Change::Protocol { protocol },
                None => {
                    let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
                    return err(format!("protocol: {} is not a version preset; expected one of {}", quoted(value), names.join(", ")));
                }
            },
            "acks" => Change::AcksAll { acks: acks("acks", value)? },
            "min_insync_replicas" => Change::MinInsyncReplicas { value: int(name, value)? },
            "unclean_leader_election" => Change::UncleanLeaderElection { value: boolean(name, value)? },
            "replica_lag_time_max_ms" => Change::ReplicaLagTimeMaxMs { value: int(name, value)? },
            "enable_idempotence" => Change::EnableIdempotence { value: boolean(name, value)? },
            _ => return err(format!("change: unknown setting {}; expected {SETTINGS}", quoted(name))),
        })
    }
}

impl Change {
    /// Reads the JSON form (as `Serialize` writes it). Read by hand rather
    /// than derived: a derived internally tagged enum would compile the
    /// scenario's step reader a second time into the wasm file; this one
    /// reads `with` as JSON text, through the reader scenario files use.
    pub fn from_json(value: &serde_json::Value) -> Result<Change, ChangeTextError> {
        use serde_json::Value;
        let Some(fields) = value.as_object() else { return err("change: expected an object like {\"change\": \"min_insync_replicas\", \"value\": 2}".into()) };
        let Some(kind) = fields.get("change").and_then(Value::as_str) else { return err("change: the field \"change\" (a string) is missing".into()) };
        let expected: &[&str] = match kind {
            "protocol" => &["change", "protocol"],
            "acks_all" => &["change", "acks"],
            "acks" => &["change", "step", "acks"],
            "step" => &["change", "step", "with"],
            "min_insync_replicas" | "unclean_leader_election" | "replica_lag_time_max_ms" | "enable_idempotence" => &["change", "value"],
            _ => return err(format!("change: unknown change {}", quoted(kind))),
        };
        if let Some(extra) = fields.keys().find(|k| !expected.contains(&k.as_str())) {
            return err(format!("change.{}: unknown field for the {kind} change (fields: {})", excerpt(extra), expected.join(", ")));
        }
        let field = |name: &str| fields.get(name).ok_or_else(|| ChangeTextError(format!("change.{name}: missing")));
        let text = |name: &str| -> Result<&str, ChangeTextError> { field(name)?.as_str().ok_or_else(|| ChangeTextError(format!("change.{name}: expected a string"))) };
        let number = |name: &str| -> Result<u64, ChangeTextError> { field(name)?.as_u64().ok_or_else(|| ChangeTextError(format!("change.{name}: expected a whole number"))) };
        let flag = |name: &str| -> Result<bool, ChangeTextError> { field(name)?.as_bool().ok_or_else(|| ChangeTextError(format!("change.{name}: expected true or false"))) };
        let step = || -> Result<usize, ChangeTextError> { step_number("change.step", &number("step")?.to_string()) };
        let small = |name: &str| -> Result<u32, ChangeTextError> { u32::try_from(number(name)?).map_err(|_| ChangeTextError(format!("change.{name}: too large"))) };
        Ok(match kind {
            "protocol" => Change::parse(&format!("protocol={}", text("protocol")?))?,
            "acks_all" => Change::AcksAll { acks: acks("change.acks", text("acks")?)? },
            "acks" => Change::Acks { step: step()?, acks: acks("change.acks", text("acks")?)? },
            "step" => {
                let json = serde_json::to_string(field("with")?).expect("a JSON value serializes");
                let value: serde_json::Value = serde_json::from_str(&json).map_err(|e| ChangeTextError(format!("change.with: {e}")))?;
                // Read as a scenario's steps are (one deserializer per type in the wasm file).
                let with: Step = serde_path_to_error::deserialize(value).map_err(|e| ChangeTextError(crate::run::scenario::path_error(&e, "change.with")))?;
                Change::Step { step: step()?, with }
            }
            "min_insync_replicas" => Change::MinInsyncReplicas { value: small("value")? },
            "unclean_leader_election" => Change::UncleanLeaderElection { value: flag("value")? },
            "replica_lag_time_max_ms" => Change::ReplicaLagTimeMaxMs { value: number("value")? },
            _ => Change::EnableIdempotence { value: flag("value")? },
        })
    }
}

use crate::base::text::{excerpt, quoted};

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for &b in value.as_bytes() {
        if unreserved(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn percent_decode(what: &str, text: &str) -> Result<String, ChangeTextError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = text.get(i + 1..i + 3).filter(|h| h.bytes().all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(&c)));
            let Some(hex) = hex else {
                return err(format!("{what}: \"%\" at character {} must be followed by two upper-case hex digits", i + 1));
            };
            let byte = u8::from_str_radix(hex, 16).expect("two hex digits");
            if unreserved(byte) {
                return err(format!("{what}: %{hex} is written {:?}", (byte as char).to_string()));
            }
            out.push(byte);
            i += 3;
        } else if unreserved(b) {
            out.push(b);
            i += 1;
        } else {
            let c = text[i..].chars().next().unwrap_or('?');
            return err(format!("{what}: {c:?} at character {} must be percent-encoded", i + 1));
        }
    }
    String::from_utf8(out).map_err(|_| ChangeTextError(format!("{what}: the percent-encoded bytes are not UTF-8 text")))
}

/// A step in the compact form of `step@N=` (module docs).
pub fn step_text(step: &Step) -> String {
    match step {
        Step::Produce(p) => {
            // Optional slots in order, empty when unset, trailing empties left out.
            let slots = [p.to.map(|b| b.to_string()), p.partition.map(|x| x.to_string()), p.key.as_deref().map(percent_encode)];
            let used = slots.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
            let mut s = format!("produce:{}:{}", percent_encode(&p.value), p.acks.name());
            for slot in &slots[..used] {
                s += ":";
                s += slot.as_deref().unwrap_or("");
            }
            s
        }
        Step::Fetch(Fetch { broker, from: None }) => format!("fetch:{broker}"),
        Step::Fetch(Fetch { broker, from: Some(l) }) => format!("fetch:{broker}:{l}"),
        Step::AdvanceMs(ms) => format!("advance_ms:{ms}"),
        Step::Crash(Crash { nodes: Nodes::Broker(broker), lose_unflushed: 0 }) => format!("crash:{broker}"),
        Step::Crash(Crash { nodes: Nodes::Broker(broker), lose_unflushed }) => format!("crash:{broker}:{lose_unflushed}"),
        Step::Crash(Crash { nodes: Nodes::Rack(rack), lose_unflushed: 0 }) => format!("crash_rack:{}", percent_encode(rack)),
        Step::Crash(Crash { nodes: Nodes::Rack(rack), lose_unflushed }) => format!("crash_rack:{}:{lose_unflushed}", percent_encode(rack)),
        Step::Crash(Crash { nodes: Nodes::Controller(c), .. }) => format!("crash_controller:{c}"),
        Step::Restart(Nodes::Broker(b)) => format!("restart:{b}"),
        Step::Restart(Nodes::Controller(c)) => format!("restart_controller:{c}"),
        // Not a step a scenario can hold (`Step::validate`).
        Step::Restart(Nodes::Rack(rack)) => format!("restart:{}", percent_encode(rack)),
        Step::Elect(Elect { partition: 0, broker: None }) => "elect".into(),
        Step::Elect(Elect { partition: 0, broker: Some(b) }) => format!("elect:{b}"),
        Step::Elect(Elect { partition, broker: None }) => format!("elect_partition:{partition}"),
        Step::Elect(Elect { partition, broker: Some(b) }) => format!("elect_partition:{partition}:{b}"),
        Step::ElectPreferred(None) => "elect_preferred".into(),
        Step::ElectPreferred(Some(p)) => format!("elect_preferred:{p}"),
        Step::Delay(Delay { broker, ms }) => format!("delay:{broker}:{ms}"),
        Step::Cut([a, b]) => format!("cut:{a}:{b}"),
        Step::Partition([a, b]) => format!("partition:{a}:{b}"),
        Step::Isolate(Nodes::Broker(b)) => format!("isolate:{b}"),
        Step::Isolate(Nodes::Rack(rack)) => format!("isolate_rack:{}", percent_encode(rack)),
        Step::Isolate(Nodes::Controller(c)) => format!("isolate_controller:{c}"),
        Step::CutController(b) => format!("cut_controller:{b}"),
        Step::ControlledShutdown(b) => format!("controlled_shutdown:{b}"),
        Step::BeginControlledShutdown(b) => format!("begin_controlled_shutdown:{b}"),
        Step::Heal(Heal::All) => "heal:all".into(),
        Step::Heal(Heal::Broker(b)) => format!("heal:{b}"),
        Step::Heal(Heal::Link(a, b)) => format!("heal:{a}:{b}"),
        Step::Heal(Heal::Controller(c)) => format!("heal_controller:{c}"),
        Step::Consume(None) => "consume".into(),
        Step::Consume(Some(one)) => format!("consume:{}", one.partition),
        Step::Pause(b) => format!("pause:{b}"),
        Step::Resume(b) => format!("resume:{b}"),
        Step::Resign(()) => "resign".into(),
    }
}

/// Reads a step's compact form; `what` names where it is (`step@7`).
pub fn parse_step(what: &str, text: &str) -> Result<Step, ChangeTextError> {
    let parts: Vec<&str> = text.split(':').collect();
    let name = parts[0];
    let args = &parts[1..];
    let forms = match name {
        "produce" => "produce:VALUE:ACKS, then optionally :TO, :PARTITION and :KEY (an empty slot for one not given)",
        "fetch" => "fetch:BROKER or fetch:BROKER:LEADER",
        "restart" | "isolate" | "pause" | "resume" | "cut_controller" | "controlled_shutdown" | "begin_controlled_shutdown" => "NAME:BROKER",
        "crash_controller" | "restart_controller" | "isolate_controller" | "heal_controller" => "NAME:CONTROLLER",
        "resign" => "resign",
        "advance_ms" => "advance_ms:MS",
        "crash" => "crash:BROKER or crash:BROKER:LOSE_UNFLUSHED",
        "crash_rack" => "crash_rack:RACK or crash_rack:RACK:LOSE_UNFLUSHED",
        "isolate_rack" => "isolate_rack:RACK",
        "elect" => "elect or elect:BROKER",
        "elect_partition" => "elect_partition:PARTITION or elect_partition:PARTITION:BROKER",
        "elect_preferred" => "elect_preferred or elect_preferred:PARTITION",
        "delay" => "delay:BROKER:MS",
        "cut" | "partition" => "NAME:A:B",
        "heal" => "heal:all, heal:BROKER or heal:A:B",
        "consume" => "consume or consume:PARTITION",
        "" => return err(format!("{what}: missing the step, like fetch:2 or produce:m1:all")),
        _ => {
            return err(format!(
                "{what}: unknown step {}; expected produce, fetch, advance_ms, crash, crash_rack, restart, elect, elect_partition, elect_preferred, delay, cut, partition, isolate, isolate_rack, cut_controller, controlled_shutdown, begin_controlled_shutdown, heal, consume, pause, resume, crash_controller, restart_controller, isolate_controller, heal_controller or resign",
                quoted(name)
            ))
        }
    };
    let bad = || ChangeTextError(format!("{what}: {} does not fit {forms}", quoted(text)));
    let broker = |i: usize| -> Result<BrokerId, ChangeTextError> { int(&format!("{what}.{name}"), args[i]) };
    let rack = |i: usize| -> Result<Arc<str>, ChangeTextError> { percent_decode(&format!("{what}.{name}"), args[i]).map(Arc::from) };
    let step = match (name, args.len()) {
        // A trailing empty slot is written only for an empty key.
        ("produce", 3 | 4) if args.last().is_some_and(|a| a.is_empty()) => return Err(bad()),
        ("produce", 2..=5) => {
            let slot = |i: usize| args.get(i).filter(|a| !a.is_empty());
            Step::Produce(Produce {
                value: percent_decode(&format!("{what}.produce.value"), args[0])?,
                acks: acks(&format!("{what}.produce.acks"), args[1])?,
                to: slot(2).map(|_| broker(2)).transpose()?,
                partition: slot(3).map(|p| int(&format!("{what}.produce.partition"), p)).transpose()?,
                // The last slot is the key even when empty (an empty key is a key).
                key: args.get(4).map(|k| percent_decode(&format!("{what}.produce.key"), k)).transpose()?,
            })
        }
        ("fetch", 1) => Step::fetch(broker(0)?),
        ("fetch", 2) => Step::Fetch(Fetch { broker: broker(0)?, from: Some(broker(1)?) }),
        ("restart", 1) => Step::Restart(Nodes::Broker(broker(0)?)),
        ("crash_controller", 1) => Step::Crash(Crash { nodes: Nodes::Controller(broker(0)?), lose_unflushed: 0 }),
        ("restart_controller", 1) => Step::Restart(Nodes::Controller(broker(0)?)),
        ("isolate_controller", 1) => Step::Isolate(Nodes::Controller(broker(0)?)),
        ("heal_controller", 1) => Step::Heal(Heal::Controller(broker(0)?)),
        ("resign", 0) => Step::Resign(()),
        ("isolate", 1) => Step::Isolate(Nodes::Broker(broker(0)?)),
        ("isolate_rack", 1) => Step::Isolate(Nodes::Rack(rack(0)?)),
        ("cut_controller", 1) => Step::CutController(broker(0)?),
        ("controlled_shutdown", 1) => Step::ControlledShutdown(broker(0)?),
        ("begin_controlled_shutdown", 1) => Step::BeginControlledShutdown(broker(0)?),
        ("pause", 1) => Step::Pause(broker(0)?),
        ("resume", 1) => Step::Resume(broker(0)?),
        ("advance_ms", 1) => Step::AdvanceMs(int(&format!("{what}.advance_ms"), args[0])?),
        ("crash", 1) => Step::Crash(Crash::broker(broker(0)?, 0)),
        ("crash_rack", 1) => Step::Crash(Crash { nodes: Nodes::Rack(rack(0)?), lose_unflushed: 0 }),
        ("crash" | "crash_rack", 2) => {
            let lose: u64 = int(&format!("{what}.{name}.lose_unflushed"), args[1])?;
            if lose == 0 {
                return err(format!("{what}: a process crash is written {name}:{}", args[0]));
            }
            let nodes = if name == "crash" { Nodes::Broker(broker(0)?) } else { Nodes::Rack(rack(0)?) };
            Step::Crash(Crash { nodes, lose_unflushed: lose })
        }
        ("elect", 0) => Step::Elect(Elect::default()),
        ("elect", 1) => Step::Elect(Elect { partition: 0, broker: Some(broker(0)?) }),
        ("elect_partition", 1 | 2) if args[0] == "0" => return err(format!("{what}: partition 0 is written elect or elect:BROKER")),
        ("elect_partition", 1 | 2) => Step::Elect(Elect {
            partition: int(&format!("{what}.elect_partition"), args[0])?,
            broker: if args.len() == 2 { Some(broker(1)?) } else { None },
        }),
        ("elect_preferred", 0) => Step::ElectPreferred(None),
        ("elect_preferred", 1) => Step::ElectPreferred(Some(int(&format!("{what}.elect_preferred"), args[0])?)),
        ("delay", 2) => Step::Delay(Delay { broker: broker(0)?, ms: int(&format!("{what}.delay.ms"), args[1])? }),
        ("cut", 2) => Step::Cut([broker(0)?, broker(1)?]),
        ("partition", 2) => Step::Partition([broker(0)?, broker(1)?]),
        ("heal", 1) if args[0] == "all" => Step::Heal(Heal::All),
        ("heal", 1) => Step::Heal(Heal::Broker(broker(0)?)),
        ("heal", 2) => Step::Heal(Heal::Link(broker(0)?, broker(1)?)),
        ("consume", 0) => Step::Consume(None),
        ("consume", 1) => Step::Consume(Some(crate::model::step::OnePartition { partition: int(&format!("{what}.consume"), args[0])? })),
        _ => return Err(bad()),
    };
    Ok(step)
}

// ---------------------------------------------------------------- differences

/// Which run of the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Left,
    Right,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Consumed {
    pub offset: u64,
    pub value: Arc<str>,
}

/// One way two states differ. Records are compared by offset on each
/// broker; producer results by request (the n-th produce, 1-based); the
/// consumer's reads by their order; violations by kind, offset and value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Difference {
    /// The two runs went to different simulated times (a replaced `advance_ms`).
    Time { left: u64, right: u64 },
    /// One run stopped at a work budget (the core's words) and the other did not, or not for the same reason.
    Stopped { left: Option<String>, right: Option<String> },
    /// The controller's leader (null: offline).
    Leader { left: Option<BrokerId>, right: Option<BrokerId> },
    PartitionEpoch { left: u32, right: u32 },
    Isr { left: Vec<BrokerId>, right: Vec<BrokerId> },
    /// KIP-966's Eligible Leader Replicas.
    Elr { left: Vec<BrokerId>, right: Vec<BrokerId> },
    /// The leader's HW, what consumers can read up to (null: offline).
    PartitionHighWatermark { left: Option<u64>, right: Option<u64> },
    /// A broker's role: leader, follower, none, starting or down (crashed).
    Role { broker: BrokerId, left: &'static str, right: &'static str },
    LogEndOffset { broker: BrokerId, left: u64, right: u64 },
    HighWatermark { broker: BrokerId, left: u64, right: u64 },
    /// Different records at the same offset.
    RecordValue { broker: BrokerId, offset: u64, left: Arc<str>, right: Arc<str>, left_epoch: u32, right_epoch: u32 },
    /// The same value written in different leader epochs.
    RecordEpoch { broker: BrokerId, offset: u64, value: Arc<str>, left: u32, right: u32 },
    /// A record one run's broker has at this offset and the other's does not.
    RecordMissing { broker: BrokerId, offset: u64, only_in: Side, value: Arc<str>, epoch: u32 },
    /// The n-th produce request's result as the application sees it
    /// (`acked`, `sent`, `pending`, `retrying` or a Kafka error); null
    /// where that run has no such request (yet).
    ProduceResult { request: usize, value: Arc<str>, left: Option<&'static str>, right: Option<&'static str> },
    /// The n-th record the consumer read (1-based); null where that run read fewer.
    ConsumerRead { read: usize, left: Option<Consumed>, right: Option<Consumed> },
    ConsumerPosition { left: u64, right: u64 },
    /// A violation one run reports and the other does not.
    Violation { only_in: Side, violation: ViolationKind, step: u64, offset: Option<u64>, value: Option<Arc<str>>, protocol_violation: bool, allowed_by: Option<Allowance> },
}

/// Every difference between two states, in a fixed order: time and stop,
/// the partition, then broker by broker (role, LEO, HW, records by
/// offset), the producer, the consumer, the violations. Both states must
/// hold whole logs (`LogWindow::ALL`), or records outside the window are
/// not compared.
pub fn differences(a: &StateView, b: &StateView) -> Vec<Difference> {
    let mut out = vec![];
    let mut diff = |same: bool, d: Difference| {
        if !same {
            out.push(d);
        }
    };
    diff(a.time_ms == b.time_ms, Difference::Time { left: a.time_ms, right: b.time_ms });
    diff(a.stopped == b.stopped, Difference::Stopped { left: a.stopped.clone(), right: b.stopped.clone() });
    let (pa, pb) = (&a.partition, &b.partition);
    diff(pa.leader == pb.leader, Difference::Leader { left: pa.leader, right: pb.leader });
    diff(pa.leader_epoch == pb.leader_epoch, Difference::PartitionEpoch { left: pa.leader_epoch, right: pb.leader_epoch });
    diff(pa.isr == pb.isr, Difference::Isr { left: pa.isr.clone(), right: pb.isr.clone() });
    diff(pa.elr == pb.elr, Difference::Elr { left: pa.elr.clone(), right: pb.elr.clone() });
    diff(pa.high_watermark == pb.high_watermark, Difference::PartitionHighWatermark { left: pa.high_watermark, right: pb.high_watermark });
    for (x, y) in a.brokers.iter().zip(&b.brokers) {
        let broker = x.id;
        diff(x.role == y.role, Difference::Role { broker, left: x.role, right: y.role });
        diff(x.log_end_offset == y.log_end_offset, Difference::LogEndOffset { broker, left: x.log_end_offset, right: y.log_end_offset });
        diff(x.high_watermark == y.high_watermark, Difference::HighWatermark { broker, left: x.high_watermark, right: y.high_watermark });
        let (mut i, mut j) = (0, 0);
        while i < x.log.len() || j < y.log.len() {
            let (r, s) = (x.log.get(i), y.log.get(j));
            match (r, s) {
                (Some(r), Some(s)) if r.offset == s.offset => {
                    if r.value != s.value {
                        diff(false, Difference::RecordValue {
                            broker,
                            offset: r.offset,
                            left: r.value.clone(),
                            right: s.value.clone(),
                            left_epoch: r.epoch,
                            right_epoch: s.epoch,
                        });
                    } else {
                        diff(r.epoch == s.epoch, Difference::RecordEpoch { broker, offset: r.offset, value: r.value.clone(), left: r.epoch, right: s.epoch });
                    }
                    i += 1;
                    j += 1;
                }
                (Some(r), s) if s.is_none_or(|s| r.offset < s.offset) => {
                    diff(false, Difference::RecordMissing { broker, offset: r.offset, only_in: Side::Left, value: r.value.clone(), epoch: r.epoch });
                    i += 1;
                }
                (_, Some(s)) => {
                    diff(false, Difference::RecordMissing { broker, offset: s.offset, only_in: Side::Right, value: s.value.clone(), epoch: s.epoch });
                    j += 1;
                }
                _ => unreachable!("one log has a record left"),
            }
        }
    }
    for n in 0..a.producer.len().max(b.producer.len()) {
        let (r, s) = (a.producer.get(n), b.producer.get(n));
        let (left, right) = (r.map(|r| r.result), s.map(|s| s.result));
        let value = r.or(s).map(|p| p.value.clone()).expect("one run has the request");
        diff(left == right && r.map(|r| &r.value) == s.map(|s| &s.value), Difference::ProduceResult { request: n + 1, value, left, right });
    }
    let (ra, rb) = (&a.consumer.read, &b.consumer.read);
    let consumed = |c: &crate::view::state::ConsumedView| Consumed { offset: c.offset, value: c.value.clone() };
    for n in 0..ra.len().max(rb.len()) {
        let (left, right) = (ra.get(n).map(consumed), rb.get(n).map(consumed));
        diff(left == right, Difference::ConsumerRead { read: n + 1, left, right });
    }
    diff(a.consumer.position == b.consumer.position, Difference::ConsumerPosition { left: a.consumer.position, right: b.consumer.position });
    let key = |v: &crate::model::violation::Violation| (v.kind, v.offset, v.value.clone(), v.allowed_by);
    for (side, mine, theirs) in [(Side::Left, &a.violations, &b.violations), (Side::Right, &b.violations, &a.violations)] {
        for v in mine.iter() {
            if !theirs.iter().any(|w| key(w) == key(v)) {
                diff(false, Difference::Violation {
                    only_in: side,
                    violation: v.kind,
                    step: v.step,
                    offset: v.offset,
                    value: v.value.clone(),
                    protocol_violation: v.protocol_violation,
                    allowed_by: v.allowed_by,
                });
            }
        }
    }
    out
}

/// The position a run of `len` steps is shown at when the shared timeline
/// is at `position`: the same step, or the last it ran if it stopped
/// earlier at a budget (module docs).
pub fn aligned_position(position: usize, len: usize) -> usize {
    position.min(len)
}
