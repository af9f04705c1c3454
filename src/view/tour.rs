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

use crate::base::text::{quoted, thousands};
use crate::model::config::limits;
use crate::run::link::{self, Format};
use crate::run::scenario::{path_error, reject_duplicate_keys, Scenario};
use crate::run::timeline::Timeline;
use crate::view::state::{EventView, LogWindow, StateView};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

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
            write!(f, "stop {:?}", self.stop)?;
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
    pub findings: Vec<Finding>,
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
    let text = serde_json::to_string(&StateView::of(timeline.current(), LogWindow::ALL)).expect("the state serializes");
    serde_json::from_str(&text).expect("the state reads back")
}

/// The serde `type` tags of the events of step `at` (none at position 0).
pub fn event_types(timeline: &Timeline, at: usize) -> Vec<String> {
    timeline
        .step_events(at)
        .iter()
        .map(|e| {
            // As the page's core writes an event (`EventView`): one writer for events in the wasm file.
            let v: Option<Value> = serde_json::to_string(&EventView::of(e)).ok().and_then(|t| serde_json::from_str(&t).ok());
            v.and_then(|v| v["type"].as_str().map(str::to_string)).unwrap_or_else(|| "?".into())
        })
        .collect()
}

/// Checks every part: the scenario reads and runs, every step happens, the
/// stops' keys are unique and kebab-case, stops come in order within the
/// part, a "do" stop has a step to do, and every fact holds.
pub fn check_parts(parts: &[TourPart]) -> TourCheck {
    let mut check = TourCheck::default();
    let mut keys = BTreeSet::new();
    let file = |message: String| Finding { stop: String::new(), part: None, at: None, fact: None, expected: None, actual: None, message };
    for (p, part) in parts.iter().enumerate() {
        let scenario = match Scenario::from_value(part.scenario.clone()) {
            Ok(s) => s,
            Err(e) => {
                check.findings.push(file(format!("parts[{p}].scenario: {e}")));
                continue;
            }
        };
        let mut timeline = match Timeline::new(&scenario) {
            Ok(t) => t,
            Err(e) => {
                check.findings.push(file(format!("parts[{p}].scenario does not run: {e}")));
                continue;
            }
        };
        let len = scenario.steps.len();
        if timeline.len() != len {
            let why = timeline.stopped().unwrap_or_default();
            check.findings.push(file(format!("parts[{p}]: the run stopped after {} of {len} steps: {why}", timeline.len())));
        }
        // A tour teaches with steps that happen: a rejected step would leave
        // the learner pressing a button that does nothing.
        for step in 1..=timeline.len() {
            if event_types(&timeline, step).iter().any(|t| t == "step_rejected") {
                check.findings.push(file(format!("parts[{p}]: step {step} ({}) is rejected by the model", scenario.steps[step - 1].to_json())));
            }
        }
        if part.stops.is_empty() {
            check.findings.push(file(format!("parts[{p}]: no stops")));
        }
        let mut last_at: Option<usize> = None;
        for stop in &part.stops {
            let finding = |message: String| Finding { stop: stop.key.clone(), part: Some(p), at: Some(stop.at), fact: None, expected: None, actual: None, message };
            if !is_kebab(&stop.key) {
                check.findings.push(finding(format!("the key {} is not lower-kebab-case", quoted(&stop.key))));
            }
            if !keys.insert(stop.key.clone()) {
                check.findings.push(finding("the key is used twice in this tour".into()));
            }
            if stop.at > timeline.len() {
                check.findings.push(finding(format!("at {} is past the last step ({})", stop.at, timeline.len())));
                continue;
            }
            if let Some(prev) = last_at.filter(|&prev| stop.at <= prev) {
                check.findings.push(finding(format!("at {} does not come after the previous stop's {prev}", stop.at)));
            }
            last_at = Some(stop.at);
            if stop.does && stop.at == 0 {
                check.findings.push(finding("a \"do\" stop needs a step to do (at 0 there is none)".into()));
            }
            timeline.seek(stop.at).expect("a position within the timeline");
            let state = state_value(&timeline);
            let events = event_types(&timeline, stop.at);
            for mut f in check_facts(&stop.facts, &state, &events) {
                (f.stop, f.part, f.at) = (stop.key.clone(), Some(p), Some(stop.at));
                check.findings.push(f);
            }
            if stop.predict.is_some() && stop.at == 0 {
                // The page asks at the position before `at` and then moves the board there.
                check.findings.push(finding("a \"predict\" stop is asked at the position before it (at 0 there is none)".into()));
            } else if let Some(path) = &stop.predict {
                match lookup(path, &state) {
                    Ok(answer) => {
                        let choices = choices(path, &answer, &state);
                        check.predictions.push(Prediction { stop: stop.key.clone(), path: path.clone(), answer, choices });
                    }
                    Err(e) => check.findings.push(finding(format!("predict {}: {e}", quoted(path)))),
                }
            }
        }
    }
    check
}

fn broker<'a>(state: &'a Value, id: &str) -> Option<&'a Value> {
    let id: u64 = id.parse().ok()?;
    state["brokers"].as_array()?.iter().find(|b| b["id"].as_u64() == Some(id))
}

/// The broker facts a tour may state, as the state view names them.
pub const BROKER_FACTS: [&str; 12] = [
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
];
/// The partition's facts.
pub const PARTITION_FACTS: [&str; 5] = ["leader", "leader_epoch", "isr", "elr", "high_watermark"];

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
        ("leader_view", Some(follower)) => {
            let leader = partition["leader"].as_u64().map(|l| l.to_string());
            let leader_broker = leader.as_deref().and_then(|l| broker(state, l)).ok_or("the partition has no leader")?;
            let remote = leader_broker["remote"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|r| r["id"].as_u64().map(|i| i.to_string()).as_deref() == Some(follower))
                .ok_or_else(|| format!("the leader keeps no LEO for broker {}", quoted(follower)))?;
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

/// Checks facts against the state at one position and the types of the
/// events of the step that led there: one finding per fact that does not
/// hold, or that the vocabulary does not know. The facts are an object as a
/// tour writes them: `{"leader": 1, "brokers": {"2": {"high_watermark": 1}},
/// "produce": {"m1": "acked"}, "violations": [...], "events": [...]}`.
pub fn check_facts(facts: &Map<String, Value>, state: &Value, events: &[String]) -> Vec<Finding> {
    let mut out = vec![];
    let mut wrong = |fact: String, expected: &Value, actual: Value| {
        let message = format!("fact `{fact}`: expected {expected}, actual {actual}");
        out.push(Finding { stop: String::new(), part: None, at: None, fact: Some(fact), expected: Some(expected.clone()), actual: Some(actual), message });
    };
    let mut unknown = vec![];
    for (key, expected) in facts {
        let nested = |expected: &Value, what: &str| -> Result<Vec<(String, Value)>, String> {
            let map = expected.as_object().ok_or_else(|| format!("fact `{key}`: expected an object keyed by {what}, found {expected}"))?;
            Ok(map.iter().map(|(k, v)| (format!("{key}.{k}"), v.clone())).collect())
        };
        let paths: Result<Vec<(String, Value)>, String> = match key.as_str() {
            "brokers" => nested(expected, "broker id").and_then(|ids| {
                let mut paths = vec![];
                for (id_path, broker_facts) in ids {
                    let map = broker_facts.as_object().ok_or_else(|| format!("fact `{id_path}`: expected an object of facts, found {broker_facts}"))?;
                    paths.extend(map.iter().map(|(f, v)| (format!("{id_path}.{f}"), v.clone())));
                }
                Ok(paths)
            }),
            "leader_view" => nested(expected, "follower id"),
            "produce" | "produce_error" => nested(expected, "record value"),
            "violations" => {
                let actual: BTreeSet<&str> = state["violations"].as_array().into_iter().flatten().filter_map(|v| v["kind"].as_str()).collect();
                match expected.as_array() {
                    Some(want) => {
                        let want: BTreeSet<&str> = want.iter().filter_map(Value::as_str).collect();
                        if want != actual {
                            let actual_value = Value::Array(actual.iter().map(|k| Value::from(*k)).collect());
                            wrong(key.clone(), expected, actual_value);
                        }
                    }
                    None => unknown.push(format!("fact `violations`: expected an array of kinds, found {expected}")),
                }
                continue;
            }
            "events" => {
                match expected.as_array() {
                    Some(want) => {
                        for w in want {
                            let w = w.as_str().unwrap_or("?");
                            if !events.iter().any(|e| e == w) {
                                unknown.push(format!("fact `events`: expected a {w:?} event at this step, the step caused {events:?}"));
                            }
                        }
                    }
                    None => unknown.push(format!("fact `events`: expected an array of event types, found {expected}")),
                }
                continue;
            }
            _ => Ok(vec![(key.clone(), expected.clone())]),
        };
        match paths {
            Ok(paths) => {
                for (path, want) in paths {
                    match lookup(&path, state) {
                        Ok(actual) if actual == want => {}
                        Ok(actual) => wrong(path, &want, actual),
                        Err(e) => unknown.push(format!("fact `{path}`: {e}")),
                    }
                }
            }
            Err(e) => unknown.push(e),
        }
    }
    out.extend(unknown.into_iter().map(|message| Finding { stop: String::new(), part: None, at: None, fact: None, expected: None, actual: None, message }));
    out
}

/// What a prediction stop offers: the model's value and two or three others
/// that a learner could believe, drawn from nearby values of the same kind
/// in the same state (never written by the author, so the answer is always
/// the model's). In ascending order, the answer among them.
pub fn choices(path: &str, answer: &Value, state: &Value) -> Vec<Value> {
    let mut others: Vec<Value> = match answer {
        // A leader: another broker, or none.
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
}
