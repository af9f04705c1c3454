//! Tours as data, checked by the model. A tour is one or more parts, each a
//! scenario with stops; a stop shows the run at a position with a caption
//! and may state facts (HWs, LEOs, the ISR, a write's result…) that must
//! hold there, or ask the learner to predict a value before the board shows
//! it. The built-in tours (`www/tours/`, words in the locale files) and a
//! docs author's own tour file (`"highwater_tour": 1`, words inline, one
//! entry per language tag; docs/tours.md) share the stops, the facts'
//! vocabulary and this check, so that a caption never states what the model
//! does not bear out: `highwater tour check FILE`, the page when a tour
//! loads, and `tests/tours.rs`.

use crate::base::text::{excerpt, json_for_terminal, quoted, thousands};
use crate::model::config::{limits, Budgets, PartitionId};
use crate::model::event::{Event, Traced};
use crate::model::simulation::Simulation;
use crate::run::link::{self, Format};
use crate::run::scenario::{path_error, reject_duplicate_keys, Scenario};
use crate::run::timeline::Timeline;
use crate::view::state::{LogWindow, StateView};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};

/// The version of the tour file format that this reader knows.
pub const TOUR_FORMAT_VERSION: u32 = 1;
/// A tour file is read whole, like a scenario file.
pub const MAX_TOUR_BYTES: usize = limits::MAX_SCENARIO_BYTES;
pub const MAX_TOUR_PARTS: usize = 8;
pub const MAX_TOUR_STOPS: usize = 200;
/// A caption or a task: what fits a tour panel.
pub const MAX_TOUR_TEXT_CHARS: usize = 2_000;
pub const MAX_TOUR_LANGUAGES: usize = 16;
/// Characters of a tour link (what follows `#t=`). A browser must take the
/// whole URL: Chromium takes 2 MiB (`url::kMaxURLChars`), Firefox 1 MiB
/// (`network.standard-url.max-length`); half of the smaller leaves room for
/// the page's own address and query. A tour holds scenarios and words in
/// several languages, so its links may be longer than a scenario's
/// (`limits::MAX_LINK_CHARS`); the text a link holds is a tour file, at most
/// `MAX_TOUR_BYTES` decompressed.
pub const MAX_TOUR_LINK_CHARS: usize = 500_000;
/// A tour link (`#t=`): the tour file as `link::encode_within` writes it.
pub const TOUR_LINK: Format = Format {
    holds: "tour",
    foreign: "does not start with \"v1.\"; it is not a Highwater tour link",
    label: "tour link",
    max_chars: MAX_TOUR_LINK_CHARS,
    max_bytes: MAX_TOUR_BYTES,
};
const MAX_KEY_CHARS: usize = 64;
const MAX_LANGUAGE_TAG_CHARS: usize = 35;

/// Words in one or more languages: a language tag (`en`, `zh-Hans`) to the text.
pub type Words = BTreeMap<String, String>;

/// A docs author's tour file (docs/tours.md).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TourFile {
    pub highwater_tour: u32,
    pub id: String,
    pub title: Words,
    #[serde(default, skip_serializing_if = "Words::is_empty")]
    pub summary: Words,
    pub parts: Vec<TourPart>,
}

/// A built-in tour (`www/tours/<id>.json`): its words are in the locale files.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BuiltInTour {
    pub id: String,
    /// The seed tutorial the tour comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    pub parts: Vec<TourPart>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TourPart {
    /// A whole scenario in the scenario format, read by `Scenario::from_value`.
    pub scenario: Value,
    pub stops: Vec<TourStop>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TourStop {
    pub key: String,
    /// The position shown: 0 before any step, n after the n-th.
    pub at: usize,
    /// The learner takes step `at` (of the part's scenario) themselves.
    #[serde(default, rename = "do", skip_serializing_if = "std::ops::Not::not")]
    pub does: bool,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub facts: Map<String, Value>,
    /// A path into the state view (`brokers.2.high_watermark`): the learner
    /// chooses its value at `at` before the board moves there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predict: Option<String>,
    #[serde(default, skip_serializing_if = "Words::is_empty")]
    pub caption: Words,
    #[serde(default, skip_serializing_if = "Words::is_empty")]
    pub task: Words,
    /// A topic of several partitions: the partition the board shows at
    /// this stop, and the one its facts `leader`, `isr`, `brokers.…` are
    /// of (0 when not written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionId>,
}

/// What the check found wrong at one stop (or in the file).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// The stop's key; empty for the file as a whole.
    pub stop: String,
    /// The part (0-based) and position, when the finding is about a stop.
    pub part: Option<usize>,
    pub at: Option<usize>,
    /// A fact that does not hold: its path, what the tour states, what the model has.
    pub fact: Option<String>,
    pub expected: Option<Value>,
    pub actual: Option<Value>,
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.stop.is_empty() {
            write!(f, "stop {}", quoted(&self.stop))?;
            if let (Some(p), Some(at)) = (self.part, self.at) {
                write!(f, " (part {}, at {at})", p + 1)?;
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

/// The result of checking a tour: every finding, and what each prediction
/// stop offers (the model's value first, then the others, in the order the
/// page shows them).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TourCheck {
    /// The first `MAX_FINDINGS` findings.
    pub findings: Vec<Finding>,
    /// Findings past those, counted.
    pub more_findings: usize,
    pub predictions: Vec<Prediction>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    pub stop: String,
    pub path: String,
    /// The model's value at the stop.
    pub answer: Value,
    /// Three or four choices, the answer among them, in ascending order.
    pub choices: Vec<Value>,
}

/// A tour's text as JSON: bounded, and strict as a scenario file is (no
/// key twice in an object). Tours are read from this value, as scenarios
/// are (`Scenario::from_value`), so that the page's core holds each type's
/// reader once.
fn json_value(text: &str) -> Result<Value, String> {
    if text.len() > MAX_TOUR_BYTES {
        return Err(format!("tour: {} bytes is larger than the limit of {} bytes", thousands(text.len() as u64), thousands(MAX_TOUR_BYTES as u64)));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    reject_duplicate_keys(text).map_err(|e| e.0.replacen("scenario", "tour", 1))?;
    serde_json::from_str(text).map_err(|e| format!("tour is not valid JSON: {e}"))
}

fn read_value<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| path_error(&e, "tour"))
}

impl TourFile {
    /// Reads a tour file: strict (unknown keys are errors) and bounded.
    /// The scenarios are read when the tour is checked.
    pub fn from_json(text: &str) -> Result<TourFile, String> {
        let value = json_value(text)?;
        // The format's version first, so that a future format gets a clear message.
        match value.get("highwater_tour") {
            None => return Err("highwater_tour: missing (a tour file starts with \"highwater_tour\": 1)".into()),
            Some(v) if v.as_u64() != Some(TOUR_FORMAT_VERSION as u64) => {
                return Err(format!("highwater_tour: {} is not supported (this reader knows version 1)", quoted(&v.to_string())))
            }
            _ => {}
        }
        let tour: TourFile = read_value(value)?;
        tour.validate_shape()?;
        Ok(tour)
    }

    fn validate_shape(&self) -> Result<(), String> {
        check_key("id", &self.id)?;
        check_words("title", &self.title, true)?;
        check_words("summary", &self.summary, false)?;
        check_parts_shape(&self.parts)?;
        for (p, part) in self.parts.iter().enumerate() {
            for (s, stop) in part.stops.iter().enumerate() {
                let here = format!("parts[{p}].stops[{s}]");
                check_words(&format!("{here}.caption"), &stop.caption, true)?;
                check_words(&format!("{here}.task"), &stop.task, stop.does)?;
                if !stop.does && !stop.task.is_empty() {
                    return Err(format!("{here}.task: only a \"do\" stop has a task"));
                }
            }
        }
        Ok(())
    }

    /// The tour as a link's text (`v1.…`, what follows `#t=`): the file as
    /// read, written compactly. Refused past `TOUR_LINK`'s limits.
    pub fn to_link(&self) -> Result<String, String> {
        link::encode_within(&serde_json::to_string(self).expect("a tour serializes"), &TOUR_LINK)
    }

    /// Reads a tour link's text (what follows `#t=`) as `from_json` reads a
    /// file. Every message starts with "tour link: ".
    pub fn from_link(text: &str) -> Result<TourFile, String> {
        let json = link::decode_text(text, &TOUR_LINK)?;
        TourFile::from_json(&json).map_err(|e| format!("{}: {e}", TOUR_LINK.label))
    }

    /// Every fact of every stop against the model, and every step happens.
    pub fn check(&self) -> TourCheck {
        check_parts(&self.parts)
    }

    /// The languages the file has words in: the title's, in the file's order
    /// of preference (the first given is the default).
    pub fn languages(&self) -> Vec<&str> {
        self.title.keys().map(String::as_str).collect()
    }
}

impl BuiltInTour {
    pub fn from_json(text: &str) -> Result<BuiltInTour, String> {
        let tour: BuiltInTour = read_value(json_value(text)?)?;
        check_key("id", &tour.id)?;
        check_parts_shape(&tour.parts)?;
        Ok(tour)
    }

    pub fn check(&self) -> TourCheck {
        check_parts(&self.parts)
    }
}

/// Lower-kebab-case, as tour ids and stop keys are.
pub fn is_kebab(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= MAX_KEY_CHARS
        && !key.starts_with('-')
        && !key.ends_with('-')
        && !key.contains("--")
        && key.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn check_key(field: &str, key: &str) -> Result<(), String> {
    if is_kebab(key) {
        Ok(())
    } else {
        Err(format!("{field}: {} is not lower-kebab-case (a-z, 0-9 and single dashes, at most {MAX_KEY_CHARS} characters)", quoted(key)))
    }
}

/// A BCP 47 language tag's shape: letters, digits and dashes (`en`, `zh-Hans`, `pt-BR`).
fn is_language_tag(tag: &str) -> bool {
    !tag.is_empty()
        && tag.len() <= MAX_LANGUAGE_TAG_CHARS
        && tag.split('-').all(|part| !part.is_empty() && part.len() <= 8 && part.chars().all(|c| c.is_ascii_alphanumeric()))
}

fn check_words(field: &str, words: &Words, required: bool) -> Result<(), String> {
    if required && words.is_empty() {
        return Err(format!("{field}: missing (one entry per language tag, like {{\"en\": \"…\"}})"));
    }
    if words.len() > MAX_TOUR_LANGUAGES {
        return Err(format!("{field}: {} languages is more than the limit of {MAX_TOUR_LANGUAGES}", words.len()));
    }
    for (tag, text) in words {
        if !is_language_tag(tag) {
            return Err(format!("{field}: {} is not a language tag (like \"en\" or \"zh-Hans\")", quoted(tag)));
        }
        let n = text.chars().count();
        if text.trim().is_empty() {
            return Err(format!("{field}.{tag}: empty"));
        }
        if n > MAX_TOUR_TEXT_CHARS {
            return Err(format!("{field}.{tag}: {} characters is longer than the limit of {}", thousands(n as u64), thousands(MAX_TOUR_TEXT_CHARS as u64)));
        }
    }
    Ok(())
}

fn check_parts_shape(parts: &[TourPart]) -> Result<(), String> {
    if parts.is_empty() {
        return Err("parts: a tour has at least one part".into());
    }
    if parts.len() > MAX_TOUR_PARTS {
        return Err(format!("parts: {} parts is more than the limit of {MAX_TOUR_PARTS}", parts.len()));
    }
    let stops: usize = parts.iter().map(|p| p.stops.len()).sum();
    if stops > MAX_TOUR_STOPS {
        return Err(format!("parts: {stops} stops is more than the limit of {MAX_TOUR_STOPS}"));
    }
    Ok(())
}

/// The state at the timeline's position as the page sees it (the same value
/// `highwater run --json` prints and the wasm build hands to the page).
///
/// Through the JSON text, not `serde_json::to_value`: the page's core writes
/// every view as text already, and a second serializer would add a copy of
/// each type's writer to the wasm file (about 40 KB gzipped).
pub fn state_value(timeline: &Timeline) -> Value {
    state_of(timeline.current())
}

fn state_of(sim: &Simulation) -> Value {
    let text = serde_json::to_string(&StateView::of(sim, LogWindow::ALL).with_partitions(sim, LogWindow { start: 0, max_records: 0 })).expect("the state serializes");
    serde_json::from_str(&text).expect("the state reads back")
}

/// What of the state the stops at one position read: the records of the
/// logs, the consumer's reads, and which produce requests (by value). The
/// rest of the state is small; these grow with the run (9,999 produce
/// requests are 1.4 MB of JSON), so a check that wrote them whole at each of
/// 200 stops cost seconds where the run costs a tenth of one.
#[derive(Default)]
struct Needs {
    logs: bool,
    consumed: bool,
    produce: BTreeSet<String>,
}

impl Needs {
    fn of(stops: &[&TourStop]) -> Needs {
        let mut needs = Needs::default();
        let path = |p: &str, needs: &mut Needs| {
            let (head, rest) = p.split_once('.').map_or((p, ""), |(h, r)| (h, r));
            match head {
                "brokers" => needs.logs |= rest.ends_with(".log") || rest.ends_with(".log_epochs"),
                "consumed" => needs.consumed = true,
                "produce" | "produce_error" => {
                    needs.produce.insert(rest.to_string());
                }
                _ => {}
            }
        };
        for stop in stops {
            for (key, value) in &stop.facts {
                match key.as_str() {
                    "brokers" => {
                        for facts in value.as_object().into_iter().flat_map(|m| m.values()) {
                            needs.logs |= facts.as_object().is_some_and(|f| f.contains_key("log") || f.contains_key("log_epochs"));
                        }
                    }
                    "produce" | "produce_error" => needs.produce.extend(value.as_object().into_iter().flat_map(|m| m.keys().cloned())),
                    other => path(other, &mut needs),
                }
            }
            if let Some(p) = &stop.predict {
                path(p, &mut needs);
            }
        }
        needs
    }
}

/// `state_of` with only what the stops read of what grows with the run
/// (`Needs`): the same values at every path they read.
fn state_for(sim: &Simulation, needs: &Needs, partition: PartitionId) -> Value {
    let window = if needs.logs { LogWindow::ALL } else { LogWindow { start: 0, max_records: 0 } };
    // Every partition's summary (without records) for the `partitions` facts and counts.
    let mut view = StateView::of_partition(sim, partition, window).with_partitions(sim, LogWindow { start: 0, max_records: 0 });
    view.producer.retain(|p| needs.produce.contains(&*p.value));
    if !needs.consumed {
        view.consumer.read.clear();
    }
    let text = serde_json::to_string(&view).expect("the state serializes");
    serde_json::from_str(&text).expect("the state reads back")
}

/// The serde `type` tag of an event (`high_watermark_changed`): its
/// variant's name in snake case, read from the first word of its `Debug`
/// text and never the rest, so a step of 50,000 events costs 50,000 short
/// writes, not 50,000 JSON texts.
pub fn event_type(event: &Event) -> String {
    struct Head(String, bool);
    impl fmt::Write for Head {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for c in s.chars() {
                if !c.is_ascii_alphanumeric() {
                    self.1 = true;
                    return Err(fmt::Error);
                }
                if c.is_ascii_uppercase() && !self.0.is_empty() {
                    self.0.push('_');
                }
                self.0.push(c.to_ascii_lowercase());
            }
            Ok(())
        }
    }
    let mut head = Head(String::new(), false);
    let _ = fmt::write(&mut head, format_args!("{event:?}"));
    // A controller's role changes share the brokers' type names (serde `rename`).
    match RENAMED.iter().find(|(variant, _)| *variant == head.0) {
        Some((_, tag)) => tag.to_string(),
        None => head.0,
    }
}

/// Variants whose serde tag is not their own name: the quorum's role
/// changes are `became_leader` and `became_follower`, with `controller`.
const RENAMED: [(&str, &str); 2] = [("controller_became_leader", "became_leader"), ("controller_became_follower", "became_follower")];

/// The serde `type` tags of the events of step `at` (none at position 0).
pub fn event_types(timeline: &Timeline, at: usize) -> Vec<String> {
    timeline.step_events(at).iter().map(|e| event_type(&e.event)).collect()
}

/// Every event type the model has (the serde `type` tags of
/// `src/model/event.rs`'s `Event`, in its order): an `events` fact names
/// only these.
pub const EVENT_TYPES: [&str; 76] = [
    "produce_request", "produce_queued", "duplicate_produce", "appended", "produce_response", "sent", "dropped",
    "response_ignored", "fetch_timed_out", "fetcher_removed", "fetch_held", "remote_log_end_offset_updated",
    "follower_appended", "high_watermark_changed", "high_watermark_held", "truncated", "epoch_cache_trimmed",
    "isr_shrunk", "isr_expanded", "alter_partition_sent", "isr_change_failed", "broker_fenced",
    "registration_refused", "broker_registered", "leader_epoch_bumped", "eligible_leader_replicas_changed",
    "broker_unfenced", "leader_elected", "partition_offline", "auto_leader_rebalance", "became_leader", "became_follower", "crashed",
    "restarted", "high_watermark_checkpointed", "latency_changed", "link_cut", "isolated", "rack_isolated", "link_healed",
    "isolation_healed", "controller_cut", "controller_link_healed", "controlled_shutdown_started",
    "controlled_shutdown_completed", "shutdown_fetcher_stopped", "fetcher_paused", "fetcher_resumed", "clock_advanced", "consumed",
    "consume_failed", "consumer_truncation_detected", "consumer_position_reset", "step_rejected",
    "budget_exceeded", "violation", "vote_request", "vote_granted", "vote_rejected", "quorum_sent", "quorum_dropped",
    "became_candidate", "became_prospective", "became_unattached", "resigned", "metadata_appended", "metadata_fetched",
    "metadata_truncated", "metadata_committed", "metadata_high_watermark", "controller_crashed", "controller_restarted",
    "controller_isolated", "controller_healed", "controller_activated", "metadata_applied",
];

/// Every kind of safety violation (`ViolationKind::name`): a `violations`
/// fact names only these.
pub const VIOLATION_KINDS: [&str; 9] = [
    "acked_write_lost",
    "committed_divergence",
    "consumer_saw_vanished_record",
    "hw_exceeds_leo",
    "single_leader",
    "monotonic_epoch",
    "monotonic_high_watermark",
    "majority_reached_high_watermark",
    "consistent_committed_data",
];

/// Findings a check lists, whatever the file: past it they are counted
/// (`TourCheck::more_findings`), not built, so that a check's output is a
/// few kilobytes however many facts a file states wrongly.
pub const MAX_FINDINGS: usize = 20;
/// Characters of a value's JSON text that a finding shows.
pub const MAX_VALUE_CHARS: usize = 80;
/// Characters of a prediction's answer (its JSON text): a learner chooses
/// among short values (an offset, a set of brokers), not among logs.
pub const MAX_ANSWER_CHARS: usize = 200;

/// Findings as they are found: the first `MAX_FINDINGS` built, the rest
/// counted.
#[derive(Default)]
struct Findings {
    list: Vec<Finding>,
    more: usize,
}

impl Findings {
    fn add(&mut self, make: impl FnOnce() -> Finding) {
        if self.list.len() < MAX_FINDINGS {
            self.list.push(make());
        } else {
            self.more += 1;
        }
    }

    fn append(&mut self, other: Findings) {
        let more = other.more;
        for f in other.list {
            self.add(|| f);
        }
        self.more += more;
    }
}

/// A value as a finding shows it: its JSON text with every invisible
/// character as a `\u` escape (`json_for_terminal`), at most
/// `MAX_VALUE_CHARS` characters, with its length when cut.
pub fn shown(value: &Value) -> String {
    let text = serde_json::to_string(value).expect("a value serializes");
    let text = json_for_terminal(&text);
    let n = text.chars().count();
    if n <= MAX_VALUE_CHARS {
        return text.into_owned();
    }
    format!("{}… ({} characters)", text.chars().take(MAX_VALUE_CHARS).collect::<String>(), thousands(n as u64))
}

/// A value as a finding's `expected` or `actual` holds it: the value when
/// its text is short, else the excerpt `shown` gives, as a string.
fn bounded(value: Value) -> Value {
    let short = serde_json::to_string(&value).map(|t| t.chars().count() <= MAX_VALUE_CHARS).unwrap_or(false);
    if short {
        value
    } else {
        Value::String(shown(&value))
    }
}

fn file_finding(message: String) -> Finding {
    Finding { stop: String::new(), part: None, at: None, fact: None, expected: None, actual: None, message }
}

/// Checks every part: the scenario reads and runs, every step happens, the
/// stops' keys are unique and kebab-case, stops come in order within the
/// part, a "do" stop has a step to do, and every fact holds.
///
/// Each part's run is made once, forward, as `highwater run` makes it (one
/// step's events held at a time), and each stop is checked as the run
/// passes its position: the check costs the run plus the facts.
pub fn check_parts(parts: &[TourPart]) -> TourCheck {
    let mut file = Findings::default();
    let mut stops_found = Findings::default();
    let mut predictions = vec![];
    let mut keys = BTreeSet::new();
    for (p, part) in parts.iter().enumerate() {
        let scenario = match Scenario::from_value(part.scenario.clone()) {
            Ok(s) => s,
            Err(e) => {
                file.add(|| file_finding(format!("parts[{p}].scenario: {e}")));
                continue;
            }
        };
        if let Err(e) = scenario.validate() {
            file.add(|| file_finding(format!("parts[{p}].scenario does not run: {e}")));
            continue;
        }
        let len = scenario.steps.len();
        if part.stops.is_empty() {
            file.add(|| file_finding(format!("parts[{p}]: no stops")));
        }
        // The stops' own findings, and the stops to check at each position.
        let mut at_position: BTreeMap<usize, Vec<&TourStop>> = BTreeMap::new();
        let mut last_at: Option<usize> = None;
        for stop in &part.stops {
            let finding = |message: String| Finding { stop: stop.key.clone(), part: Some(p), at: Some(stop.at), fact: None, expected: None, actual: None, message };
            if !is_kebab(&stop.key) {
                stops_found.add(|| finding(format!("the key {} is not lower-kebab-case", quoted(&stop.key))));
            }
            if !keys.insert(stop.key.as_str()) {
                stops_found.add(|| finding("the key is used twice in this tour".into()));
            }
            if let Some(prev) = last_at.filter(|&prev| stop.at <= prev) {
                stops_found.add(|| finding(format!("at {} does not come after the previous stop's {prev}", stop.at)));
            }
            last_at = Some(stop.at);
            if stop.does && stop.at == 0 {
                stops_found.add(|| finding("a \"do\" stop needs a step to do (at 0 there is none)".into()));
            }
            if stop.predict.is_some() && stop.at == 0 {
                // The page asks at the position before `at` and then moves the board there.
                stops_found.add(|| finding("a \"predict\" stop is asked at the position before it (at 0 there is none)".into()));
            }
            at_position.entry(stop.at).or_default().push(stop);
        }
        let mut sim = Simulation::new(scenario.config.clone());
        sim.accounting.budgets = Budgets::default();
        let mut ran = 0;
        let stop_at = |position: usize, sim: &Simulation, events: &[Traced], found: &mut Findings, predictions: &mut Vec<Prediction>| {
            let Some(stops) = at_position.get(&position) else { return };
            // The state (of each partition stops there show) and the events' types only when a stop there needs them.
            let mut states: BTreeMap<PartitionId, Value> = BTreeMap::new();
            let needs = Needs::of(stops);
            for stop in stops {
                if stop.facts.is_empty() && (stop.predict.is_none() || position == 0) {
                    continue;
                }
                let partition = stop.partition.unwrap_or(0);
                if partition >= sim.config.partitions {
                    found.add(|| Finding {
                        stop: stop.key.clone(),
                        part: Some(p),
                        at: Some(stop.at),
                        fact: None,
                        expected: None,
                        actual: None,
                        message: format!("partition {partition}: the topic has partitions 0 to {}", sim.config.partitions - 1),
                    });
                    continue;
                }
                let state = states.entry(partition).or_insert_with(|| state_for(sim, &needs, partition));
                let mut facts = Findings::default();
                check_facts_into(&stop.facts, state, &StepEvents::Traced(events), &mut facts);
                let more = facts.more;
                for mut f in facts.list {
                    found.add(|| {
                        (f.stop, f.part, f.at) = (stop.key.clone(), Some(p), Some(stop.at));
                        f
                    });
                }
                found.more += more;
                let Some(path) = stop.predict.as_ref().filter(|_| position > 0) else { continue };
                let finding = |message: String| Finding { stop: stop.key.clone(), part: Some(p), at: Some(stop.at), fact: None, expected: None, actual: None, message };
                match lookup(path, state) {
                    Ok(answer) => {
                        let chars = serde_json::to_string(&answer).map_or(0, |t| t.chars().count());
                        if chars > MAX_ANSWER_CHARS {
                            found.add(|| finding(format!("predict {}: the answer is {} characters of JSON, more than the limit of {MAX_ANSWER_CHARS} (a learner chooses among short values)", quoted(path), thousands(chars as u64))));
                        } else {
                            let choices = choices(path, &answer, state);
                            predictions.push(Prediction { stop: stop.key.clone(), path: path.clone(), answer, choices });
                        }
                    }
                    Err(e) => found.add(|| finding(format!("predict {}: {e}", quoted(path)))),
                }
            }
        };
        stop_at(0, &sim, &[], &mut stops_found, &mut predictions);
        let mut refused: Option<String> = None;
        for (i, step) in scenario.steps.iter().enumerate() {
            if sim.stopped().is_some() {
                break;
            }
            if let Err(e) = step.validate(&scenario.config, sim.now_ms) {
                refused = Some(format!("steps[{i}].{e}"));
                break;
            }
            let events = sim.apply_in_place(step);
            ran = i + 1;
            // A tour teaches with steps that happen: a rejected step would leave
            // the learner pressing a button that does nothing.
            if events.iter().any(|e| matches!(e.event, Event::StepRejected { .. })) {
                file.add(|| file_finding(format!("parts[{p}]: step {ran} ({}) is rejected by the model", excerpt(&step.to_json()))));
            }
            let events: Vec<Traced> = if at_position.contains_key(&ran) { events.to_vec() } else { vec![] };
            stop_at(ran, &sim, &events, &mut stops_found, &mut predictions);
        }
        if let Some(e) = refused {
            file.add(|| file_finding(format!("parts[{p}].scenario does not run: {e}")));
            continue;
        }
        if ran != len {
            let why = sim.stopped().map(|b| crate::model::event::budget_message(b, sim.budgets().limit(b))).unwrap_or_default();
            file.add(|| file_finding(format!("parts[{p}]: the run stopped after {ran} of {len} steps: {why}")));
        }
        for (&at, stops) in at_position.range(ran + 1..) {
            for stop in stops {
                stops_found.add(|| Finding {
                    stop: stop.key.clone(),
                    part: Some(p),
                    at: Some(at),
                    fact: None,
                    expected: None,
                    actual: None,
                    message: format!("at {at} is past the last step ({ran})"),
                });
            }
        }
    }
    file.append(stops_found);
    TourCheck { findings: file.list, more_findings: file.more, predictions }
}

fn broker<'a>(state: &'a Value, id: &str) -> Option<&'a Value> {
    by_id(&state["brokers"], id)
}

/// The state's KRaft quorum, or why a fact of it cannot be read.
fn quorum(state: &Value) -> Result<&Value, String> {
    let q = &state["quorum"];
    if q.is_object() { Ok(q) } else { Err("the scenario has no controller quorum (config.controllers)".into()) }
}

/// The object of `list` (an array of objects with an `id`) whose id `id` names.
fn by_id<'a>(list: &'a Value, id: &str) -> Option<&'a Value> {
    let id: u64 = id.parse().ok()?;
    list.as_array()?.iter().find(|x| x["id"].as_u64() == Some(id))
}

/// The broker facts a tour may state, as the state view names them.
pub const BROKER_FACTS: [&str; 15] = [
    "leader_count",
    "log_end_offset",
    "high_watermark",
    "checkpointed_high_watermark",
    "leader_epoch",
    "role",
    "alive",
    "in_isr",
    "in_elr",
    "fenced",
    "log",
    "log_epochs",
    "epoch_cache",
    "metadata_offset",
    "broker_epoch",
];
/// The KRaft quorum's facts (`quorum.high_watermark`), as `QuorumView`
/// names them; a scenario without controllers has none.
pub const QUORUM_FACTS: [&str; 4] = ["epoch", "leader", "active_controller", "high_watermark"];
/// A controller's facts (`controllers.2.role`), as `VoterView` names them;
/// `log` is its metadata records in words (`"FenceBroker 1"`).
pub const CONTROLLER_FACTS: [&str; 8] = ["role", "epoch", "voted_for", "log_end_offset", "high_watermark", "alive", "isolated", "log"];
/// A controller's roles as the quorum view names them.
const CONTROLLER_ROLES: [&str; 8] = ["unattached", "voted", "prospective", "candidate", "leader", "follower", "resigned", "down"];
/// The partition's facts.
pub const PARTITION_FACTS: [&str; 5] = ["leader", "leader_epoch", "isr", "elr", "high_watermark"];
/// The facts of any partition of the topic (`partitions.3.leader`), as
/// `StateView::with_partitions` names them.
pub const TOPIC_PARTITION_FACTS: [&str; 10] =
    ["leader", "leader_epoch", "isr", "elr", "high_watermark", "replicas", "preferred_leader", "under_replicated", "under_min_isr", "offline"];
/// The topic's counts (`kafka-topics.sh --describe` with each list's option).
pub const TOPIC_COUNTS: [&str; 3] = ["under_replicated_partitions", "under_min_isr_partitions", "offline_partitions"];
/// A broker's roles as the state view names them.
const ROLES: [&str; 5] = ["leader", "follower", "none", "starting", "down"];

/// The shape a fact's value must have: a value of another shape is an
/// error naming the stop and the key, never compared (a list of objects
/// where kinds are strings would otherwise match nothing, or everything).
#[derive(Clone, Copy)]
enum Shape {
    /// A non-negative integer (an offset, an epoch, a time).
    Number,
    NumberOrNull,
    Bool,
    /// A broker's role (`ROLES`).
    Role,
    /// A controller's role (`CONTROLLER_ROLES`).
    ControllerRole,
    /// Any string (a produce result: `"acked"`, a Kafka error name).
    Text,
    TextOrNull,
    /// An array of non-negative integers.
    Numbers,
    /// An array of strings (record values).
    Texts,
    /// `[[epoch, start_offset], ...]`.
    EpochCache,
}

impl Shape {
    fn of_path(head: &str, field: Option<&str>) -> Option<Shape> {
        Some(match (head, field) {
            ("leader", None) | ("high_watermark", None) => Shape::NumberOrNull,
            ("leader_epoch" | "time_ms", None) => Shape::Number,
            (count, None) if TOPIC_COUNTS.contains(&count) => Shape::Number,
            ("partitions", Some(f)) => match f {
                "leader" | "high_watermark" => Shape::NumberOrNull,
                "leader_epoch" | "preferred_leader" => Shape::Number,
                "isr" | "elr" | "replicas" => Shape::Numbers,
                "under_replicated" | "under_min_isr" | "offline" => Shape::Bool,
                _ => return None,
            },
            ("isr" | "elr", None) => Shape::Numbers,
            ("consumed", None) => Shape::Texts,
            ("leader_view", Some(_)) => Shape::NumberOrNull,
            ("produce", Some(_)) => Shape::Text,
            ("produce_error", Some(_)) => Shape::TextOrNull,
            ("brokers", Some(f)) => match f {
                "log_end_offset" | "high_watermark" | "checkpointed_high_watermark" | "leader_epoch" | "leader_count" => Shape::Number,
                "metadata_offset" | "broker_epoch" => Shape::NumberOrNull,
                "role" => Shape::Role,
                "alive" | "in_isr" | "in_elr" | "fenced" => Shape::Bool,
                "log" => Shape::Texts,
                "log_epochs" => Shape::Numbers,
                "epoch_cache" => Shape::EpochCache,
                _ => return None,
            },
            ("quorum", Some(f)) => match f {
                "epoch" => Shape::Number,
                "leader" | "active_controller" | "high_watermark" => Shape::NumberOrNull,
                _ => return None,
            },
            ("controllers", Some(f)) => match f {
                "role" => Shape::ControllerRole,
                "epoch" | "log_end_offset" => Shape::Number,
                "voted_for" | "high_watermark" => Shape::NumberOrNull,
                "alive" | "isolated" => Shape::Bool,
                "log" => Shape::Texts,
                _ => return None,
            },
            _ => return None,
        })
    }

    fn holds(self, v: &Value) -> bool {
        match self {
            Shape::Number => v.is_u64(),
            Shape::NumberOrNull => v.is_u64() || v.is_null(),
            Shape::Bool => v.is_boolean(),
            Shape::Role => v.as_str().is_some_and(|r| ROLES.contains(&r)),
            Shape::ControllerRole => v.as_str().is_some_and(|r| CONTROLLER_ROLES.contains(&r)),
            Shape::Text => v.is_string(),
            Shape::TextOrNull => v.is_string() || v.is_null(),
            Shape::Numbers => v.as_array().is_some_and(|a| a.iter().all(Value::is_u64)),
            Shape::Texts => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            Shape::EpochCache => v.as_array().is_some_and(|a| {
                a.iter().all(|e| e.as_array().is_some_and(|pair| pair.len() == 2 && pair.iter().all(Value::is_u64)))
            }),
        }
    }

    fn describe(self) -> String {
        match self {
            Shape::Number => "a number (0 or more)".into(),
            Shape::NumberOrNull => "a number (0 or more) or null".into(),
            Shape::Bool => "true or false".into(),
            Shape::Role => format!("one of {}", ROLES.map(|r| format!("\"{r}\"")).join(", ")),
            Shape::ControllerRole => format!("one of {}", CONTROLLER_ROLES.map(|r| format!("\"{r}\"")).join(", ")),
            Shape::Text => "a string".into(),
            Shape::TextOrNull => "a string or null".into(),
            Shape::Numbers => "an array of numbers".into(),
            Shape::Texts => "an array of strings".into(),
            Shape::EpochCache => "an array of [epoch, start_offset] pairs".into(),
        }
    }
}

/// The value at a path of the facts' vocabulary (docs/tours.md):
/// `high_watermark`, `isr`, `brokers.2.high_watermark`, `leader_view.3`,
/// `produce.m2` (the result of the write with value m2), `consumed`…
pub fn lookup(path: &str, state: &Value) -> Result<Value, String> {
    let (head, rest) = path.split_once('.').map_or((path, None), |(h, r)| (h, Some(r)));
    let partition = &state["partition"];
    match (head, rest) {
        (fact, None) if PARTITION_FACTS.contains(&fact) => Ok(partition[fact].clone()),
        ("time_ms", None) => Ok(state["time_ms"].clone()),
        ("consumed", None) => {
            Ok(Value::Array(state["consumer"]["read"].as_array().into_iter().flatten().map(|c| c["value"].clone()).collect()))
        }
        ("brokers", Some(rest)) => {
            let (id, field) = rest.split_once('.').ok_or_else(|| format!("{} names no broker fact (like brokers.2.high_watermark)", quoted(path)))?;
            let b = broker(state, id).ok_or_else(|| format!("there is no broker {}", quoted(id)))?;
            Ok(match field {
                "log" => Value::Array(b["log"].as_array().into_iter().flatten().map(|r| r["value"].clone()).collect()),
                "log_epochs" => Value::Array(b["log"].as_array().into_iter().flatten().map(|r| r["epoch"].clone()).collect()),
                // Null under 0.10: no leader-epoch cache.
                "epoch_cache" => match b["leader_epoch_cache"].as_array() {
                    Some(entries) => Value::Array(entries.iter().map(|e| Value::Array(vec![e["epoch"].clone(), e["start_offset"].clone()])).collect()),
                    None => Value::Null,
                },
                f if BROKER_FACTS.contains(&f) => b[f].clone(),
                _ => return Err(format!("{}: unknown broker fact (one of {})", quoted(field), BROKER_FACTS.join(", "))),
            })
        }
        ("quorum", Some(field)) => {
            if !QUORUM_FACTS.contains(&field) {
                return Err(format!("{}: unknown quorum fact (one of {})", quoted(field), QUORUM_FACTS.join(", ")));
            }
            Ok(quorum(state)?[field].clone())
        }
        ("controllers", Some(rest)) => {
            let (id, field) = rest.split_once('.').ok_or_else(|| format!("{} names no controller fact (like controllers.2.role)", quoted(path)))?;
            let v = by_id(&quorum(state)?["voters"], id).ok_or_else(|| format!("there is no controller {}", quoted(id)))?;
            Ok(match field {
                "log" => Value::Array(v["log"].as_array().into_iter().flatten().map(|r| r["record"].clone()).collect()),
                f if CONTROLLER_FACTS.contains(&f) => v[f].clone(),
                _ => return Err(format!("{}: unknown controller fact (one of {})", quoted(field), CONTROLLER_FACTS.join(", "))),
            })
        }
        ("partitions", Some(rest)) => {
            let (id, field) = rest.split_once('.').ok_or_else(|| format!("{} names no partition fact (like partitions.3.leader)", quoted(path)))?;
            let summary = by_id(&state["partitions"], id).ok_or_else(|| format!("there is no partition {}", quoted(id)))?;
            if !TOPIC_PARTITION_FACTS.contains(&field) {
                return Err(format!("{}: unknown partition fact (one of {})", quoted(field), TOPIC_PARTITION_FACTS.join(", ")));
            }
            Ok(summary[field].clone())
        }
        // `kafka-topics.sh --describe --under-replicated-partitions` (and the
        // other two lists): how many partitions it lists.
        (list @ ("under_replicated_partitions" | "under_min_isr_partitions" | "offline_partitions"), None) => {
            let flag = list.trim_end_matches("_partitions");
            Ok(Value::from(state["partitions"].as_array().into_iter().flatten().filter(|p| p[flag] == Value::Bool(true)).count()))
        }
        ("leader_view", Some(follower)) => {
            let leader = partition["leader"].as_u64().map(|l| l.to_string());
            let leader_broker = leader.as_deref().and_then(|l| broker(state, l)).ok_or("the partition has no leader")?;
            let remote = by_id(&leader_broker["remote"], follower).ok_or_else(|| format!("the leader keeps no LEO for broker {}", quoted(follower)))?;
            Ok(remote["log_end_offset"].clone())
        }
        ("produce" | "produce_error", Some(value)) => {
            let field = if head == "produce" { "result" } else { "last_error" };
            let found: Vec<&Value> =
                state["producer"].as_array().into_iter().flatten().filter(|r| r["value"].as_str() == Some(value)).collect();
            match found.as_slice() {
                [one] => Ok(one[field].clone()),
                [] => Err(format!("no produce request has the value {}", quoted(value))),
                _ => Err(format!("{} produce requests have the value {}; use distinct values", found.len(), quoted(value))),
            }
        }
        _ => Err("unknown fact".to_string()),
    }
}

/// The events of the step a stop shows: as the check's run holds them, or
/// as their types (`event_types`).
enum StepEvents<'a> {
    Traced(&'a [Traced]),
    Types(&'a [String]),
}

impl StepEvents<'_> {
    /// Each type the step caused, with how many events of it.
    fn counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        let mut add = |t: String| *counts.entry(t).or_insert(0) += 1;
        match self {
            StepEvents::Traced(events) => events.iter().for_each(|e| add(event_type(&e.event))),
            StepEvents::Types(types) => types.iter().for_each(|t| add(t.clone())),
        }
        counts
    }
}

/// Types a finding names, at most: a step of 50,000 events has at most a
/// few dozen types, and a finding names the first of them.
const MAX_TYPES_NAMED: usize = 8;


/// Checks facts against the state at one position and the types of the
/// events of the step that led there: one finding per fact that does not
/// hold, or whose key or value's shape the vocabulary does not know. The
/// facts are an object as a tour writes them: `{"leader": 1, "brokers":
/// {"2": {"high_watermark": 1}}, "produce": {"m1": "acked"}, "violations":
/// [...], "events": [...]}`. At most `MAX_FINDINGS`, each a bounded line.
pub fn check_facts(facts: &Map<String, Value>, state: &Value, events: &[String]) -> Vec<Finding> {
    let mut found = Findings::default();
    check_facts_into(facts, state, &StepEvents::Types(events), &mut found);
    found.list
}

fn check_facts_into(facts: &Map<String, Value>, state: &Value, events: &StepEvents, out: &mut Findings) {
    let mut unknown = Findings::default();
    for (key, expected) in facts {
        fn nested<'v>(key: &str, expected: &'v Value, what: &str) -> Result<Vec<(String, &'v Value)>, String> {
            let map = expected.as_object().ok_or_else(|| format!("fact `{}`: expected an object keyed by {what}, found {}", excerpt(key), shown(expected)))?;
            Ok(map.iter().map(|(k, v)| (format!("{key}.{k}"), v)).collect())
        }
        /// `{"2": {"leader": 3, …}}`: an object of facts per id (a broker's, a partition's).
        fn nested_twice<'v>(key: &str, expected: &'v Value, what: &str) -> Result<Vec<(String, &'v Value)>, String> {
            let mut paths = vec![];
            for (id_path, facts) in nested(key, expected, what)? {
                let map = facts.as_object().ok_or_else(|| format!("fact `{}`: expected an object of facts, found {}", excerpt(&id_path), shown(facts)))?;
                paths.extend(map.iter().map(|(f, v)| (format!("{id_path}.{f}"), v)));
            }
            Ok(paths)
        }
        let paths: Result<Vec<(String, &Value)>, String> = match key.as_str() {
            "brokers" => nested_twice(key, expected, "broker id"),
            "leader_view" => nested(key, expected, "follower id"),
            "partitions" => nested_twice(key, expected, "partition id"),
            "controllers" => nested_twice(key, expected, "controller id"),
            "quorum" => nested(key, expected, "quorum fact"),
            "produce" | "produce_error" => nested(key, expected, "record value"),
            "violations" => {
                match strings_of(expected, &VIOLATION_KINDS) {
                    Err(why) => unknown.add(|| file_finding(format!("fact `violations`: {why} (an array of kinds: {})", VIOLATION_KINDS.join(", ")))),
                    Ok(want) => {
                        let actual: BTreeSet<&str> = state["violations"].as_array().into_iter().flatten().filter_map(|v| v["kind"].as_str()).collect();
                        if want != actual {
                            out.add(|| {
                                let actual = Value::Array(actual.iter().map(|k| Value::from(*k)).collect());
                                wrong(key, expected, actual)
                            });
                        }
                    }
                }
                continue;
            }
            "events" => {
                match strings_of(expected, &EVENT_TYPES) {
                    Err(why) => unknown.add(|| file_finding(format!("fact `events`: {why} (an array of event types, like \"truncated\" or \"isr_shrunk\"; docs/tours.md)"))),
                    Ok(want) => {
                        // The step's types once, and only when a stated one is missing.
                        let mut counts: Option<BTreeMap<String, usize>> = None;
                        let counts = counts.get_or_insert_with(|| events.counts());
                        let missing: Vec<&str> = want.iter().copied().filter(|w| !counts.contains_key(*w)).collect();
                        if !missing.is_empty() {
                            out.add(|| file_finding(events_message(&missing, counts)));
                        }
                    }
                }
                continue;
            }
            _ => Ok(vec![(key.clone(), expected)]),
        };
        match paths {
            Ok(paths) => {
                for (path, want) in paths {
                    let (head, rest) = path.split_once('.').map_or((path.as_str(), None), |(h, r)| (h, Some(r)));
                    let field = match (head, rest) {
                        ("brokers" | "partitions" | "controllers", Some(rest)) => rest.split_once('.').map(|(_, f)| f),
                        (_, rest) => rest,
                    };
                    match Shape::of_path(head, field) {
                        Some(shape) if !shape.holds(want) => {
                            unknown.add(|| file_finding(format!("fact `{}`: expected {}, found {}", excerpt(&path), shape.describe(), shown(want))));
                            continue;
                        }
                        _ => {}
                    }
                    match lookup(&path, state) {
                        Ok(actual) if &actual == want => {}
                        Ok(actual) => out.add(|| wrong(&path, want, actual)),
                        Err(e) => unknown.add(|| file_finding(format!("fact `{}`: {e}", excerpt(&path)))),
                    }
                }
            }
            Err(e) => unknown.add(|| file_finding(e)),
        }
    }
    out.append(unknown);
}

/// A fact that does not hold: its path, both values, bounded.
fn wrong(path: &str, expected: &Value, actual: Value) -> Finding {
    let message = format!("fact `{}`: expected {}, actual {}", excerpt(path), shown(expected), shown(&actual));
    Finding { stop: String::new(), part: None, at: None, fact: Some(excerpt(path)), expected: Some(bounded(expected.clone())), actual: Some(bounded(actual)), message }
}

/// An array of strings, each one of `known`, as a set; else why not, naming
/// the first entry that is not.
fn strings_of<'a>(value: &'a Value, known: &[&str]) -> Result<BTreeSet<&'a str>, String> {
    let Some(items) = value.as_array() else { return Err(format!("expected an array, found {}", shown(value))) };
    let mut set = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some(s) if known.contains(&s) => {
                set.insert(s);
            }
            Some(s) => return Err(format!("[{i}] {} is not one the model has", quoted(s))),
            None => return Err(format!("[{i}] is {}, not a string", shown(item))),
        }
    }
    Ok(set)
}

/// "the step caused no \"isr_shrunk\" event (nor 2 more stated); it caused
/// 50,000 events of 3 types: fetch_held (20,000), …": bounded whatever the
/// number of events and of types stated.
fn events_message(missing: &[&str], counts: &BTreeMap<String, usize>) -> String {
    let mut m = format!("fact `events`: the step caused no {} event", quoted(missing[0]));
    if missing.len() > 1 {
        let _ = write!(m, " (nor {} more of those stated)", missing.len() - 1);
    }
    let total: usize = counts.values().sum();
    if total == 0 {
        m.push_str("; it caused none");
        return m;
    }
    let _ = write!(m, "; it caused {} event{} of {} type{}: ", thousands(total as u64), if total == 1 { "" } else { "s" }, counts.len(), if counts.len() == 1 { "" } else { "s" });
    let named: Vec<String> = counts.iter().take(MAX_TYPES_NAMED).map(|(t, n)| format!("{t} ({})", thousands(*n as u64))).collect();
    m.push_str(&named.join(", "));
    if counts.len() > MAX_TYPES_NAMED {
        let _ = write!(m, " and {} more", counts.len() - MAX_TYPES_NAMED);
    }
    m
}

/// What a prediction stop offers: the model's value and two or three others
/// that a learner could believe, drawn from nearby values of the same kind
/// in the same state (never written by the author, so the answer is always
/// the model's). In ascending order, the answer among them.
pub fn choices(path: &str, answer: &Value, state: &Value) -> Vec<Value> {
    let mut others: Vec<Value> = match answer {
        // A leader: another broker, or none.
        // The quorum's leader or active controller: another controller, or none.
        Value::Null | Value::Number(_) if matches!(path, "quorum.leader" | "quorum.active_controller") || path.ends_with(".voted_for") => {
            controller_ids(state).into_iter().map(Value::from).chain([Value::Null]).collect()
        }
        Value::Null | Value::Number(_) if path == "leader" || path.ends_with(".leader") => {
            broker_ids(state).into_iter().map(Value::from).chain([Value::Null]).collect()
        }
        Value::Number(n) if n.as_u64().is_some() => {
            let v = n.as_u64().unwrap_or(0);
            // Offsets the learner sees on the board (LEOs and HWs), then neighbours.
            let mut seen: Vec<u64> = vec![];
            for b in state["brokers"].as_array().into_iter().flatten() {
                for f in ["log_end_offset", "high_watermark"] {
                    seen.extend(b[f].as_u64());
                }
            }
            seen.extend(state["partition"]["high_watermark"].as_u64());
            // The metadata log's offsets, for a fact of the quorum's.
            if path.starts_with("quorum.") || path.starts_with("controllers.") {
                for v in state["quorum"]["voters"].as_array().into_iter().flatten() {
                    for f in ["log_end_offset", "high_watermark"] {
                        seen.extend(v[f].as_u64());
                    }
                }
            }
            seen.extend([v + 1, v.saturating_sub(1), v + 2]);
            seen.sort_by_key(|&x| (x.abs_diff(v), x));
            seen.dedup();
            let mut near: Vec<u64> = seen.into_iter().filter(|&x| x != v).collect();
            near.dedup();
            near.into_iter().take(3).map(Value::from).collect()
        }
        Value::Bool(b) => vec![Value::Bool(!b)],
        Value::Array(members) if members.iter().all(Value::is_u64) => {
            // A set of brokers: one fewer, one more. The ISR keeps its
            // leader (the leader is always in it), so no choice drops it.
            let ids = broker_ids(state);
            let have: Vec<u64> = members.iter().filter_map(Value::as_u64).collect();
            let leader = if path == "isr" { state["partition"]["leader"].as_u64() } else { None };
            let mut sets = vec![];
            for &m in have.iter().filter(|&&m| Some(m) != leader) {
                sets.push(have.iter().copied().filter(|&x| x != m).collect::<Vec<u64>>());
            }
            for &id in &ids {
                if !have.contains(&id) {
                    let mut more = have.clone();
                    more.push(id);
                    more.sort();
                    sets.push(more);
                }
            }
            sets.into_iter().take(3).map(|s| Value::Array(s.into_iter().map(Value::from).collect())).collect()
        }
        Value::String(s) if path.starts_with("produce.") => {
            ["acked", "pending", "NOT_ENOUGH_REPLICAS", "NOT_LEADER_OR_FOLLOWER"].iter().filter(|r| *r != s).take(3).map(|r| Value::from(*r)).collect()
        }
        Value::String(s) if path.starts_with("controllers.") && path.ends_with(".role") => {
            ["leader", "follower", "candidate", "resigned", "down"].iter().filter(|r| *r != s).map(|r| Value::from(*r)).collect()
        }
        Value::String(s) if path.ends_with(".role") => {
            ["leader", "follower", "down"].iter().filter(|r| *r != s).map(|r| Value::from(*r)).collect()
        }
        _ => vec![],
    };
    others.retain(|o| o != answer);
    others.truncate(3);
    let mut all = vec![answer.clone()];
    all.extend(others);
    all.sort_by(order);
    all.dedup();
    all
}

fn controller_ids(state: &Value) -> Vec<u64> {
    state["quorum"]["voters"].as_array().into_iter().flatten().filter_map(|v| v["id"].as_u64()).collect()
}

fn broker_ids(state: &Value) -> Vec<u64> {
    state["brokers"].as_array().into_iter().flatten().filter_map(|b| b["id"].as_u64()).collect()
}

/// Numbers ascending, null last; sets of brokers by their ids ([1], [1, 2],
/// [1, 2, 3], [2]); then strings and other arrays by their text.
fn order(a: &Value, b: &Value) -> std::cmp::Ordering {
    let ids = |v: &Value| -> Option<Vec<u64>> { v.as_array()?.iter().map(Value::as_u64).collect() };
    match (a.as_u64(), b.as_u64()) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        _ => match (ids(a), ids(b)) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => (a.is_null(), a.to_string()).cmp(&(b.is_null(), b.to_string())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(facts: &str, predict: &str) -> String {
        format!(
            r#"{{"highwater_tour": 1, "id": "my-lesson", "title": {{"en": "Why acks=1 can lose a write"}},
            "parts": [{{"scenario": {{"version": 1, "config": {{"brokers": 2}}, "steps": [{{"produce": {{"value": "m1", "acks": "1"}}}}, {{"fetch": 2}}, {{"fetch": 2}}]}},
              "stops": [
                {{"key": "intro", "at": 0, "caption": {{"en": "Two brokers."}}, "facts": {{"leader": 1}}}},
                {{"key": "write", "at": 1, "do": true, "task": {{"en": "Produce m1."}}, "caption": {{"en": "m1 is on the leader."}}, "facts": {facts}}},
                {{"key": "guess", "at": 3, "predict": "{predict}", "caption": {{"en": "Two rounds."}}}}
              ]}}]}}"#
        )
    }

    #[test]
    fn a_true_lesson_has_no_findings_and_its_prediction_is_the_models() {
        let tour = TourFile::from_json(&lesson(r#"{"brokers": {"1": {"log_end_offset": 1, "high_watermark": 0}}, "produce": {"m1": "acked"}}"#, "brokers.2.high_watermark")).unwrap();
        let check = tour.check();
        assert_eq!(check.findings, vec![], "{:?}", check.findings);
        let p = &check.predictions[0];
        assert_eq!((p.stop.as_str(), &p.answer), ("guess", &Value::from(1)));
        assert!(p.choices.len() >= 3 && p.choices.contains(&p.answer), "{:?}", p.choices);
    }

    #[test]
    fn a_wrong_fact_names_the_stop_the_fact_and_both_values() {
        let tour = TourFile::from_json(&lesson(r#"{"brokers": {"1": {"high_watermark": 1}}}"#, "high_watermark")).unwrap();
        let check = tour.check();
        assert_eq!(check.findings.len(), 1, "{:?}", check.findings);
        let f = &check.findings[0];
        assert_eq!((f.stop.as_str(), f.fact.as_deref(), f.expected.clone(), f.actual.clone()), ("write", Some("brokers.1.high_watermark"), Some(Value::from(1)), Some(Value::from(0))));
        assert_eq!(f.to_string(), "stop \"write\" (part 1, at 1): fact `brokers.1.high_watermark`: expected 1, actual 0");
    }

    #[test]
    fn the_reader_is_strict_and_bounded() {
        let bad = lesson("{}", "leader").replace("\"caption\": {\"en\": \"Two brokers.\"}", "\"caption\": {\"en\": \"Two brokers.\"}, \"colour\": 1");
        let err = TourFile::from_json(&bad).unwrap_err();
        assert!(err.starts_with("tour.parts[0].stops[0].colour: unknown field \"colour\""), "{err}");
        let long_key = format!("\"{}\": 1, \"highwater_tour\"", "k".repeat(100_000));
        let err = TourFile::from_json(&lesson("{}", "leader").replacen("\"highwater_tour\"", &long_key, 1)).unwrap_err();
        assert!(err.len() < 300 && err.contains("(100,000 characters)"), "{} characters: {}", err.len(), err.chars().take(300).collect::<String>());
        assert!(TourFile::from_json(r#"{"id": "x"}"#).unwrap_err().starts_with("highwater_tour: missing"));
        assert!(TourFile::from_json(&lesson("{}", "leader").replace("\"highwater_tour\": 1", "\"highwater_tour\": 2")).unwrap_err().contains("not supported"));
        let no_task = lesson("{}", "leader").replace("\"task\": {\"en\": \"Produce m1.\"}, ", "");
        assert!(TourFile::from_json(&no_task).unwrap_err().contains("task: missing"));
        let bad_tag = lesson("{}", "leader").replace("\"title\": {\"en\"", "\"title\": {\"e n\"");
        assert!(TourFile::from_json(&bad_tag).unwrap_err().contains("not a language tag"));
        let twice = lesson("{}", "leader").replacen("\"id\": \"my-lesson\"", "\"id\": \"my-lesson\", \"id\": \"other\"", 1);
        let err = TourFile::from_json(&twice).unwrap_err();
        assert!(err.contains("the key appears twice") || err.contains("twice"), "{err}");
        let huge = " ".repeat(MAX_TOUR_BYTES + 1);
        assert!(TourFile::from_json(&huge).unwrap_err().contains("larger than the limit"));
    }

    #[test]
    fn an_unknown_fact_or_prediction_path_is_a_finding() {
        let tour = TourFile::from_json(&lesson(r#"{"brokers": {"1": {"colour": 1}}, "lag": 2}"#, "brokers.9.high_watermark")).unwrap();
        let messages: Vec<String> = tour.check().findings.iter().map(|f| f.message.clone()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("unknown broker fact")));
        assert!(messages.iter().any(|m| m.contains("fact `lag`: unknown fact")));
        assert!(messages.iter().any(|m| m.contains("there is no broker \"9\"")));
    }

    #[test]
    fn a_prediction_at_0_is_a_finding() {
        // The page asks at the position before the stop's: at 0 there is none.
        let tour = TourFile::from_json(&lesson("{}", "leader").replace(r#""facts": {"leader": 1}"#, r#""facts": {"leader": 1}, "predict": "leader""#)).unwrap();
        let check = tour.check();
        let at_0: Vec<&Finding> = check.findings.iter().filter(|f| f.stop == "intro").collect();
        assert_eq!(at_0.len(), 1, "{:?}", check.findings);
        assert_eq!(at_0[0].to_string(), "stop \"intro\" (part 1, at 0): a \"predict\" stop is asked at the position before it (at 0 there is none)");
        assert_eq!(check.predictions.iter().map(|p| p.stop.as_str()).collect::<Vec<_>>(), ["guess"], "no choices for a question that cannot be asked");
    }

    /// What a tour link holds is the file as read: the same tour, the same
    /// check, whatever whitespace and key order the author wrote.
    #[test]
    fn a_tour_link_round_trips() {
        let text = lesson(r#"{"produce": {"m1": "acked"}}"#, "brokers.2.high_watermark");
        let tour = TourFile::from_json(&text).unwrap();
        let link = tour.to_link().unwrap();
        assert!(link.starts_with("v1.") && link.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)), "{link}");
        let back = TourFile::from_link(&link).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), serde_json::to_string(&tour).unwrap());
        assert_eq!(back.check().predictions, tour.check().predictions);
        assert_eq!(back.to_link().unwrap(), link, "a link of a link is the same link");
        // Written compactly: no whitespace the author's file had survives.
        let json = link::decode_text(&link, &TOUR_LINK).unwrap();
        assert!(json.len() < text.len() && !json.contains("\n"), "{json}");
    }

    #[test]
    fn a_bad_tour_link_is_refused_with_a_short_message() {
        let link = TourFile::from_json(&lesson("{}", "leader")).unwrap().to_link().unwrap();
        let mut corrupt = 0;
        for cut in 1..20 {
            let e = TourFile::from_link(&link[..link.len() - cut]).unwrap_err();
            assert!(e.starts_with("tour link: ") && (e.contains("it may be cut short") || e.contains("is corrupt or truncated")), "{e}");
            corrupt += e.contains("corrupt") as u32;
        }
        assert!(corrupt > 0, "some cuts reach the decompressor");
        assert_eq!(TourFile::from_link("hello").unwrap_err(), "tour link: does not start with \"v1.\"; it is not a Highwater tour link");
        assert!(TourFile::from_link("v1.@@@").unwrap_err().starts_with("tour link: is not valid base64url"));
        let e = TourFile::from_link(&"v".repeat(MAX_TOUR_LINK_CHARS + 1)).unwrap_err();
        assert_eq!(e, format!("tour link: {} characters is longer than the limit of {MAX_TOUR_LINK_CHARS}", MAX_TOUR_LINK_CHARS + 1));
        let pack = |bytes: &[u8]| {
            use base64::Engine;
            format!("v1.{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(bytes, 9)))
        };
        // A bomb: 64 MiB of spaces is a short link; it stops at the limit.
        let bomb = pack(&vec![b' '; 64 << 20]);
        assert!(bomb.len() < MAX_TOUR_LINK_CHARS, "{} characters", bomb.len());
        assert_eq!(TourFile::from_link(&bomb).unwrap_err(), format!("tour link: expands past the limit of {MAX_TOUR_BYTES} bytes"));
        assert_eq!(TourFile::from_link(&pack(&[0xc3, 0x28])).unwrap_err(), "tour link: does not hold UTF-8 text");
        // Text that is not a tour: the reader's message, its quotes bounded.
        let e = TourFile::from_link(&pack(format!(r#"{{"highwater_tour": 1, "{}": 1}}"#, "k".repeat(100_000)).as_bytes())).unwrap_err();
        assert!(e.starts_with("tour link: tour.kkk") && e.contains("unknown field \"kkk") && e.contains("(100,000 characters)") && e.len() < 400, "{e}");
        let e = TourFile::from_link(&pack(br#"{"version": 1, "steps": []}"#)).unwrap_err();
        assert!(e.starts_with("tour link: highwater_tour: missing"), "a scenario's text in a tour link: {e}");
    }

    #[test]
    fn a_tour_past_the_link_limit_is_refused() {
        // Words that do not compress, in 16 languages on 200 stops: a file
        // under MAX_TOUR_BYTES whose link is past MAX_TOUR_LINK_CHARS.
        let mut x: u64 = 1;
        let mut noise = |n: usize| -> String {
            (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    char::from(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 "[(x >> 58) as usize % 63])
                })
                .collect()
        };
        let mut tour = TourFile::from_json(&lesson("{}", "leader")).unwrap();
        let stops = &mut tour.parts[0].stops;
        let template = stops[0].clone();
        stops.clear();
        for i in 0..MAX_TOUR_STOPS {
            let mut stop = template.clone();
            stop.key = format!("stop-{i}");
            stop.facts.clear();
            stop.caption = (0..MAX_TOUR_LANGUAGES).map(|l| (format!("x{l}"), noise(300))).collect();
            stops.push(stop);
        }
        let json = serde_json::to_string(&tour).unwrap();
        assert!(json.len() <= MAX_TOUR_BYTES, "{} bytes", json.len());
        let e = tour.to_link().unwrap_err();
        assert!(e.starts_with("tour link: ") && e.ends_with(&format!("characters is longer than the limit of {MAX_TOUR_LINK_CHARS}")), "{e}");
    }

    #[test]
    fn choices_are_near_the_answer_and_of_its_kind() {
        let state = serde_json::json!({
            "partition": {"leader": 1, "isr": [1, 2], "high_watermark": 2},
            "brokers": [{"id": 1, "log_end_offset": 3, "high_watermark": 2}, {"id": 2, "log_end_offset": 3, "high_watermark": 2}, {"id": 3, "log_end_offset": 1, "high_watermark": 1}]
        });
        assert_eq!(choices("high_watermark", &Value::from(2), &state), [1, 2, 3, 4].map(Value::from).to_vec());
        assert_eq!(choices("leader", &Value::from(1), &state), vec![Value::from(1), Value::from(2), Value::from(3), Value::Null]);
        // The ISR keeps its leader (1) in every choice, and sets come in the order of their ids.
        let isr = choices("isr", &serde_json::json!([1, 2]), &state);
        assert_eq!(isr, vec![serde_json::json!([1]), serde_json::json!([1, 2]), serde_json::json!([1, 2, 3])]);
        let elr = choices("elr", &serde_json::json!([1, 2]), &state);
        assert_eq!(elr, vec![serde_json::json!([1]), serde_json::json!([1, 2]), serde_json::json!([1, 2, 3]), serde_json::json!([2])]);
        assert_eq!(choices("produce.m1", &Value::from("acked"), &state).len(), 4);
        assert_eq!(choices("brokers.1.in_isr", &Value::Bool(true), &state), vec![Value::Bool(false), Value::Bool(true)]);
    }

    /// `EVENT_TYPES` is `Event`'s variants, each as serde tags it: read from
    /// the enum's source, so that an event added to the model is a name an
    /// `events` fact may state (and this test says so when it is not).
    #[test]
    fn the_event_types_are_the_models() {
        let source = include_str!("../model/event.rs");
        let body = &source[source.find("pub enum Event {").expect("the enum")..];
        let body = &body[..body.find("\n}\n").expect("its end")];
        let names: Vec<String> = body
            .lines()
            .filter_map(|l| l.strip_prefix("    "))
            .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
            .map(|l| l.split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or(""))
            .map(|name| {
                let mut snake = String::new();
                for (i, c) in name.chars().enumerate() {
                    if c.is_ascii_uppercase() && i > 0 {
                        snake.push('_');
                    }
                    snake.push(c.to_ascii_lowercase());
                }
                snake
            })
            .collect();
        // A renamed variant's tag is another's: each tag once, in the enum's order.
        let renamed: Vec<&str> = RENAMED.iter().map(|(v, _)| *v).collect();
        for (variant, tag) in RENAMED {
            assert!(body.contains(&format!("#[serde(rename = \"{tag}\")]")), "{variant} is written {tag}");
        }
        let names: Vec<String> = names.into_iter().filter(|n| !renamed.contains(&n.as_str())).collect();
        assert_eq!(names, EVENT_TYPES.to_vec());
        use crate::model::violation::ViolationKind::*;
        let kinds = [
            AckedWriteLost,
            CommittedDivergence,
            ConsumerSawVanishedRecord,
            HwExceedsLeo,
            SingleLeader,
            MonotonicEpoch,
            MonotonicHighWatermark,
            MajorityReachedHighWatermark,
            ConsistentCommittedData,
        ];
        assert_eq!(VIOLATION_KINDS.to_vec(), kinds.map(|k| k.name()).to_vec());
    }

    /// `event_type` (the first word of an event's `Debug` text) is the `type`
    /// the page's core writes, for every event of the golden scenarios.
    #[test]
    fn an_events_type_is_its_json_tag() {
        let mut seen = BTreeSet::new();
        for path in crate::run::scenario::example_files() {
            let scenario = Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
            let timeline = Timeline::new(&scenario).unwrap();
            for e in timeline.events() {
                let json: Value = serde_json::from_str(&serde_json::to_string(&crate::view::state::EventView::of(e)).unwrap()).unwrap();
                assert_eq!(event_type(&e.event), json["type"].as_str().unwrap());
                seen.insert(event_type(&e.event));
            }
        }
        assert!(seen.len() > 25, "{seen:?}");
    }
}
