//! The scenario format, version 1: a configuration and a list of steps.
//! A public contract, documented in `docs/scenario-format.md`.

use crate::base::text;
use crate::model::config::{limits, Config};
pub use crate::model::step::{Acks, Nodes, Crash, Delay, Elect, Fetch, Heal, OnePartition, Produce, Step};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

pub const FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub version: u32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default)]
    pub config: Config,
    #[serde(default)]
    pub steps: Vec<Step>,
}


/// A step written as a bare string: `"consume"` is `{"consume": null}`;
/// another step name gets a message that shows the form it needs.
fn bare_steps(raw: &mut serde_json::Value) -> Result<(), ScenarioError> {
    let Some(steps) = raw.get_mut("steps").and_then(|s| s.as_array_mut()) else { return Ok(()) };
    for (i, step) in steps.iter_mut().enumerate() {
        let Some(name) = step.as_str() else { continue };
        let example = match name {
            "consume" => {
                *step = serde_json::json!({ "consume": null });
                continue;
            }
            "produce" => r#"{"produce": {"value": "m1", "acks": "all"}}"#,
            "fetch" | "restart" | "isolate" | "cut_controller" | "controlled_shutdown" | "begin_controlled_shutdown" | "pause" | "resume" => "a broker id, like {\"fetch\": 2}",
            "advance_ms" => r#"{"advance_ms": 1000}"#,
            "crash" => r#"{"crash": {"broker": 1}}"#,
            "elect" => r#"{"elect": null} or {"elect": 2}"#,
            "delay" => r#"{"delay": {"broker": 3, "ms": 400}}"#,
            "cut" | "partition" => r#"a pair of brokers, like {"cut": [1, 2]}"#,
            "heal" => r#"{"heal": "all"}, {"heal": 1} or {"heal": [1, 2]}"#,
            _ => return Err(ScenarioError(format!("steps[{i}]: unknown step {}", text::quoted(name)))),
        };
        return Err(ScenarioError(format!("steps[{i}]: {name:?} needs its argument: {example}")));
    }
    Ok(())
}

/// One step as `apply` takes it: a bare `"consume"` is `{"consume": null}`,
/// as in a file; another name gets the file's message, about "step".
pub fn bare_step(step: &mut serde_json::Value) -> Result<(), String> {
    let mut raw = serde_json::json!({ "steps": [step.take()] });
    let read = bare_steps(&mut raw).map_err(|e| e.0.replacen("steps[0]", "step", 1));
    *step = raw["steps"][0].take();
    read
}

/// A place in a scenario's JSON as segments, formatted only when an error
/// names it: building a path string for every value would copy a long key
/// once per element of the array below it.
enum Segment {
    Key(String),
    Index(usize),
}

/// `config.brokers`, `steps[3].produce`: each key cut to an excerpt
/// (`text::excerpt`), its invisible characters escaped.
fn path_text(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&text::excerpt(key));
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// JSON allows an object to repeat a key (and serde keeps the last one);
/// a scenario does not: the error names the key and where it is. The walk
/// keeps one path, pushing and popping a segment per value: linear in the
/// text whatever its shape.
pub fn reject_duplicate_keys(text: &str) -> Result<(), ScenarioError> {
    use serde::de::{DeserializeSeed, MapAccess, SeqAccess};
    struct Walk<'a>(&'a mut Vec<Segment>);
    impl<'de> DeserializeSeed<'de> for Walk<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Walk<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("JSON")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> { Ok(()) }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> { Ok(()) }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> { Ok(()) }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> { Ok(()) }
        fn visit_str<E>(self, _: &str) -> Result<(), E> { Ok(()) }
        fn visit_unit<E>(self) -> Result<(), E> { Ok(()) }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let path = self.0;
            let mut i = 0;
            loop {
                path.push(Segment::Index(i));
                let more = seq.next_element_seed(Walk(&mut *path))?.is_some();
                path.pop();
                if !more {
                    return Ok(());
                }
                i += 1;
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let path = self.0;
            // serde_json's own map type: its code is in the file already.
            let mut seen = serde_json::Map::new();
            while let Some(key) = map.next_key::<String>()? {
                if seen.contains_key(&key) {
                    path.push(Segment::Key(key));
                    return Err(de::Error::custom(format!("{}: the key appears twice", path_text(path))));
                }
                seen.insert(key.clone(), serde_json::Value::Null);
                path.push(Segment::Key(key));
                map.next_value_seed(Walk(&mut *path))?;
                path.pop();
            }
            Ok(())
        }
    }
    let mut d = serde_json::Deserializer::from_str(text);
    let mut path = vec![];
    match Walk(&mut path).deserialize(&mut d) {
        Ok(()) => Ok(()),
        // Syntax errors are reported by the parse that follows, with their position.
        Err(e) if e.is_syntax() || e.is_eof() => Ok(()),
        Err(e) => {
            let message = e.to_string();
            let message = message.rsplit_once(" at line").map_or(&*message, |m| m.0).to_string();
            Err(ScenarioError(message))
        }
    }
}

/// serde's message about a value, with the user's text in it quoted as
/// every message quotes it (`text::quoted`): serde writes an unknown field
/// or variant whole between backticks, and a string whole in Rust's
/// escaping (`string "…"`), however long.
pub fn serde_message(message: &str) -> String {
    for (head, tails) in [
        ("unknown field `", ["`, expected ", "`, there are no fields"]),
        ("unknown variant `", ["`, expected ", "`, there are no variants"]),
    ] {
        let Some(rest) = message.strip_prefix(head) else { continue };
        // The expected names are this crate's: the last match ends the user's text.
        if let Some((at, tail)) = tails.iter().filter_map(|t| rest.rfind(t).map(|at| (at, t))).max_by_key(|m| m.0) {
            let what = &head[..head.len() - 2];
            let expected = closest_names(&rest[..at], &rest[at + tail.len()..]);
            let tail = &tail[1..];
            return text::one_line(&format!("{what} {}{}{expected}", text::quoted(&rest[..at]), tail.replace('`', "")));
        }
    }
    // `invalid type: string "…", expected …` and `invalid value: string "…", …`.
    if let Some(at) = message.find("string \"") {
        let body = &message[at + "string \"".len()..];
        if let Some((text, len)) = unescape_debug(body) {
            return text::one_line(&format!("{}string {}{}", &message[..at], text::quoted(&text), &body[len..]));
        }
    }
    text::one_line(message)
}

/// Names a message may list whole; past this many it names the closest.
const MAX_EXPECTED_NAMES: usize = 20;

/// serde's list of the expected names (`one of `a`, `b`, …`), or, when it
/// is long (a scenario's `config` has over twenty settings), the names
/// close to what was written (a typo's edit distance, or a part of the
/// name), so that the message stays short and says what was meant; with
/// none close, the first of them and `…`.
fn closest_names(written: &str, expected: &str) -> String {
    let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    if names.len() <= MAX_EXPECTED_NAMES {
        return expected.to_string();
    }
    let short = written.chars().count() <= 64;
    let close = |name: &str| short && (strsim::osa_distance(written, name) <= 2 || (written.len() >= 3 && name.contains(written)));
    let near: Vec<&str> = names.iter().copied().filter(|n| close(n)).take(5).collect();
    let listed = if near.is_empty() { &names[..MAX_EXPECTED_NAMES / 2] } else { &near[..] };
    let list: Vec<String> = listed.iter().map(|n| format!("`{n}`")).collect();
    let more = if near.is_empty() { ", …" } else { "" };
    format!("one of {}{more}", list.join(", "))
}

/// The string Rust's `{:?}` wrote at the start of `body` (after its opening
/// quote): the text and the bytes up to and including the closing quote.
fn unescape_debug(body: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, i + 1)),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                '0' => out.push('\0'),
                'u' => {
                    let mut hex = String::new();
                    for (_, h) in chars.by_ref() {
                        match h {
                            '{' => {}
                            '}' => break,
                            h => hex.push(h),
                        }
                    }
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// The path serde_path_to_error found, formatted as `path_text` does.
fn serde_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment as S;
    let mut segments = vec![];
    for s in path.iter() {
        segments.push(match s {
            S::Seq { index } => Segment::Index(*index),
            S::Map { key } => Segment::Key(key.clone()),
            S::Enum { variant } => Segment::Key(variant.clone()),
            S::Unknown => Segment::Key("?".into()),
        });
    }
    path_text(&segments)
}

/// A serde_path_to_error failure as `what.path: message`, bounded and escaped
/// (`serde_message`); `what` alone when the path is the top.
pub fn path_error(e: &serde_path_to_error::Error<serde_json::Error>, what: &str) -> String {
    let path = serde_path(e.path());
    let message = serde_message(&e.inner().to_string());
    match (what.is_empty(), path.is_empty()) {
        (true, true) => format!("scenario: {message}"),
        (true, false) => format!("{path}: {message}"),
        (false, true) => format!("{what}: {message}"),
        (false, false) => format!("{what}.{path}: {message}"),
    }
}

/// A scenario that could not be read: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub String);

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    pub fn new(config: Config) -> Self {
        Scenario { version: FORMAT_VERSION, name: String::new(), description: String::new(), config, steps: vec![] }
    }

    /// Reads and validates a scenario. Never panics; the error names the field.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > limits::MAX_SCENARIO_BYTES {
            return Err(ScenarioError(format!(
                "scenario: {} bytes is larger than the limit of {} bytes",
                text.len(),
                limits::MAX_SCENARIO_BYTES
            )));
        }
        // A UTF-8 byte-order mark is not part of the JSON.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        reject_duplicate_keys(text)?;
        // Check the version first so that a future format gets a clear message.
        let raw: serde_json::Value = serde_json::from_str(text).map_err(|e| ScenarioError(format!("scenario is not valid JSON: {}", text::one_line(&e.to_string()))))?;
        Self::from_value(raw)
    }

    pub fn from_value(mut raw: serde_json::Value) -> Result<Scenario, ScenarioError> {
        if !raw.is_object() {
            return Err(ScenarioError("scenario: expected a JSON object like {\"version\": 1, \"steps\": [...]}".into()));
        }
        match raw.get("version") {
            None => return Err(ScenarioError("version: missing (this reader knows version 1)".into())),
            Some(v) if v.as_u64() != Some(FORMAT_VERSION as u64) => {
                // `serde_json::to_string`, not `Value`'s `Display`: the same
                // text, through the writer every value already uses (`Display`
                // would compile `Value`'s serialisation twice more).
                let v = serde_json::to_string(v).unwrap_or_default();
                return Err(ScenarioError(format!("version: {} is not supported (this reader knows version 1)", text::excerpt(&v))));
            }
            _ => {}
        }
        bare_steps(&mut raw)?;
        let scenario: Scenario = serde_path_to_error::deserialize(raw).map_err(|e| ScenarioError(path_error(&e, "")))?;
        scenario.validate()?;
        Ok(scenario)
    }

    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.name.chars().count() > limits::MAX_NAME_CHARS {
            return Err(ScenarioError(format!("name: longer than {} characters", limits::MAX_NAME_CHARS)));
        }
        if self.description.chars().count() > limits::MAX_DESCRIPTION_CHARS {
            return Err(ScenarioError(format!("description: longer than {} characters", limits::MAX_DESCRIPTION_CHARS)));
        }
        self.config.validate().map_err(ScenarioError)?;
        if self.steps.len() > limits::MAX_STEPS {
            return Err(ScenarioError(format!("steps: {} steps is more than the limit of {}", self.steps.len(), limits::MAX_STEPS)));
        }
        let mut elapsed_ms = 0u64;
        for (i, step) in self.steps.iter().enumerate() {
            step.validate(&self.config, elapsed_ms).map_err(|e| ScenarioError(format!("steps[{i}].{e}")))?;
            if let Step::AdvanceMs(ms) = step {
                elapsed_ms += ms;
            }
        }
        Ok(())
    }

    /// Pretty JSON with one step per line, as the scenario files are written.
    pub fn to_json_pretty(&self) -> String {
        let head = Scenario { steps: vec![], ..self.clone() };
        let mut text = serde_json::to_string_pretty(&head).expect("a scenario always serializes");
        let steps: Vec<String> = self.steps.iter().map(|s| format!("    {}", s.to_json())).collect();
        let body = if steps.is_empty() { "[]".to_string() } else { format!("[\n{}\n  ]", steps.join(",\n")) };
        let at = text.rfind("\"steps\": []").expect("steps field present");
        text.replace_range(at.., &format!("\"steps\": {body}\n}}"));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Scenario::from_json(text).unwrap_err().0
    }

    #[test]
    fn reads_every_step_form_and_writes_it_back() {
        let text = r#"{"version":1,"steps":[
            {"produce":{"value":"m1","acks":"all"}},{"produce":{"value":"m2","acks":1,"to":2}},
            {"fetch":2},{"advance_ms":10000},{"crash":{"broker":1,"lose_unflushed":1}},{"restart":1},
            {"elect":null},{"elect":2},{"delay":{"broker":2,"ms":400}},{"cut":[1,2]},{"partition":[1,2]},
            {"isolate":1},{"heal":[1,2]},{"heal":"all"},{"heal":3},{"consume":null},{"pause":2},{"resume":2}]}"#;
        let s = Scenario::from_json(text).unwrap();
        assert_eq!(s.steps.len(), 18);
        assert_eq!(s.steps[1], Step::Produce(Produce { value: "m2".into(), acks: Acks::One, to: Some(2), partition: None, key: None }));
        assert_eq!(s.steps[6], Step::Elect(Elect::default()));
        let all: Step = serde_json::from_str(r#"{"produce":{"value":"x","acks":-1}}"#).unwrap();
        assert_eq!(all, Step::Produce(Produce { value: "x".into(), acks: Acks::All, to: None, partition: None, key: None }));
        assert_eq!(s.steps[14], Step::Heal(Heal::Broker(3)));
        let back = Scenario::from_json(&s.to_json_pretty()).unwrap();
        assert_eq!(back, s);
        assert_eq!(Step::Consume(None).to_json(), r#"{"consume":null}"#);
        assert_eq!(Step::Elect(Elect::default()).to_json(), r#"{"elect":null}"#);
    }

    #[test]
    fn errors_name_the_field() {
        assert_eq!(err(r#"{"steps":[]}"#), "version: missing (this reader knows version 1)");
        assert_eq!(err(r#"{"version":2}"#), "version: 2 is not supported (this reader knows version 1)");
        assert!(err(r#"{"version":1,"config":{"brokers":9}}"#).starts_with("config.brokers: 9 is out of range"));
        assert!(err(r#"{"version":1,"config":{"brokerz":3}}"#).starts_with("config.brokerz: unknown field \"brokerz\", expected one of `brokers`"));
        let e = err(r#"{"version":1,"steps":[{"fetch":2},{"produce":{"value":"x","acks":"2"}}]}"#);
        assert!(e.starts_with("steps[1].produce.acks: invalid value"), "{e}");
        let e = err(r#"{"version":1,"steps":[{"fetch":5}]}"#);
        assert_eq!(e, "steps[0].fetch: broker 5 does not exist (brokers are 1..=3)");
        let e = err(r#"{"version":1,"steps":[{"jump":1}]}"#);
        assert!(e.starts_with("steps[0]: unknown variant \"jump\", expected one of `produce`"), "{e}");
        assert!(err("{").starts_with("scenario is not valid JSON"));
        assert!(err("[]").starts_with("scenario: expected a JSON object"));
    }

    #[test]
    fn strict_reading() {
        assert_eq!(err(r#"{"version":1,"config":{"brokers":9,"brokers":3}}"#), "config.brokers: the key appears twice");
        assert_eq!(err(r#"{"version":1,"steps":[{"produce":{"value":"a","value":"b"}}]}"#), "steps[0].produce.value: the key appears twice");
        let bom = Scenario::from_json("\u{feff}{\"version\":1,\"steps\":[\"consume\"]}").unwrap();
        assert_eq!(bom.steps, vec![Step::Consume(None)], "a byte-order mark is skipped; a bare \"consume\" is a consume step");
        assert_eq!(err(r#"{"version":1,"steps":["fetch"]}"#), r#"steps[0]: "fetch" needs its argument: a broker id, like {"fetch": 2}"#);
        assert_eq!(err(r#"{"version":1,"steps":["jump"]}"#), r#"steps[0]: unknown step "jump""#);
        let e = err(r#"{"version":1,"steps":[{"crash":{"broker":1,"lose_unflushed":18446744073709551615}}]}"#);
        assert!(e.starts_with("steps[0].crash.lose_unflushed: 18446744073709551615 is more than a log can hold"), "{e}");
    }

    #[test]
    fn limits_are_enforced_with_their_numbers() {
        let big = "x".repeat(limits::MAX_VALUE_BYTES + 1);
        let e = err(&format!(r#"{{"version":1,"steps":[{{"produce":{{"value":"{big}"}}}}]}}"#));
        assert!(e.starts_with("steps[0].produce.value: 1025 bytes is longer than the limit of 1024"), "{e}");
        let e = err(r#"{"version":1,"steps":[{"advance_ms":3000000},{"advance_ms":3000000}]}"#);
        assert!(e.starts_with("steps[1].advance_ms: 3000000 would take the scenario past the limit"), "{e}");
        let steps = vec![r#"{"fetch":2}"#; limits::MAX_STEPS + 1].join(",");
        let e = err(&format!(r#"{{"version":1,"steps":[{steps}]}}"#));
        assert!(e.starts_with("steps: 10001 steps is more than the limit"), "{e}");
        let e = err(r#"{"version":1,"config":{"seed":9007199254740992}}"#);
        assert!(e.starts_with("config.seed:"), "{e}");
        let e = err(&" ".repeat(limits::MAX_SCENARIO_BYTES + 1));
        assert!(e.contains("larger than the limit"), "{e}");
    }
}

/// The example scenarios' files (`tests/scenarios/` and its `cluster/`), for
/// the unit tests that run every one.
#[cfg(test)]
pub(crate) fn example_files() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<std::path::PathBuf> = [root.clone(), root.join("cluster")]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}
