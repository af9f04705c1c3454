//! The WebAssembly boundary: one opaque handle around a `Timeline`, coarse
//! calls, plain objects out, and every error turned into a JS `Error` here.
//! No protocol logic lives on this side or in JavaScript.

use crate::base::text;
use crate::model::config::{limits, Budgets, Config};
use crate::run::link;
use crate::run::scenario::{Acks, Scenario, Step};
use crate::run::timeline::{Timeline, TimelineBuild};
use crate::view::state::{EventView, LogWindow, StateView};
use serde::Serialize;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Remembers the message of a panic, so that the page can show it after the
/// module traps (the page then starts a fresh instance).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
    }));
}

/// The message of the last panic in the core, if any.
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> Option<String> {
    LAST_PANIC.with(|p| p.borrow().clone())
}

pub(super) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let text = serde_json::to_string(value).map_err(|e| JsError::new(&e.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|_| JsError::new("JSON.parse failed"))
}

fn events_to_js(events: &[crate::model::event::Traced], last: Option<usize>) -> Result<JsValue, JsError> {
    let from = last.map_or(0, |n| events.len().saturating_sub(n));
    to_js(&events[from..].iter().map(EventView::of).collect::<Vec<_>>())
}

/// Trace lines as one text, each ended by a newline.
fn trace_text(events: &[crate::model::event::Traced]) -> String {
    let mut text = String::new();
    for e in events {
        // A trace line is one line; the split must not see another.
        text.push_str(&e.to_string().replace('\n', "\\n"));
        text.push('\n');
    }
    text
}

/// Arguments are checked here, before they reach the core: wasm-bindgen
/// alone reads a number given for a string as the string's address (a trap),
/// wraps 2^32 + 5 to 5 and NaN to 0. A value of the wrong type is a
/// `TypeError`, a number that is not whole or out of range a `RangeError`,
/// each naming the function and the argument.
pub(super) mod args {
    use super::*;

    /// What a JS value is, for a message: `null`, `a number`, `an object`…
    fn kind(value: &JsValue) -> String {
        if value.is_null() {
            return "null".into();
        }
        if value.is_array() {
            return "an array".into();
        }
        match value.js_typeof().as_string().as_deref() {
            Some("undefined") => "undefined".into(),
            Some("object") => "an object".into(),
            Some(t) => format!("a {t}"),
            None => "a value".into(),
        }
    }

    pub fn type_error(what: &str, expected: &str, got: &JsValue) -> JsValue {
        js_sys::TypeError::new(&format!("{what}: expected {expected}, got {}", kind(got))).into()
    }

    pub fn range_error(message: &str) -> JsValue {
        js_sys::RangeError::new(message).into()
    }

    /// A JS string of at most `max_units` UTF-16 units, checked before it is
    /// copied into the core's memory (its UTF-8 bytes are at least as many).
    pub fn text(value: &JsValue, what: &str, max_units: usize) -> Result<String, JsValue> {
        let Some(js) = value.dyn_ref::<js_sys::JsString>() else { return Err(type_error(what, "a string", value)) };
        if js.length() as usize > max_units {
            return Err(range_error(&format!("{what}: {} characters is longer than the limit of {max_units}", js.length())));
        }
        Ok(js.as_string().unwrap_or_default())
    }

    /// A whole number in `0..=max` (a JS number: at most 2^53 - 1 is exact).
    pub fn whole(value: &JsValue, what: &str, max: u64) -> Result<u64, JsValue> {
        let Some(n) = value.as_f64() else { return Err(type_error(what, "a number", value)) };
        if !(n.is_finite() && n.fract() == 0.0 && n >= 0.0 && n <= max as f64) {
            let n = if n.is_nan() { "NaN".into() } else if n.is_infinite() { format!("{}Infinity", if n < 0.0 { "-" } else { "" }) } else { n.to_string() };
            return Err(range_error(&format!("{what}: {n} is not a whole number in 0..={max}")));
        }
        Ok(n as u64)
    }

    /// `whole`, or `None` for undefined or null (an argument left out).
    pub fn optional_whole(value: &JsValue, what: &str, max: u64) -> Result<Option<u64>, JsValue> {
        if value.is_undefined() || value.is_null() {
            return Ok(None);
        }
        whole(value, what, max).map(Some)
    }

    /// An index or a count: whole, at most 2^53 - 1 (beyond, a JS number is
    /// not exact), then as a `usize` (on wasm32, one past `u32::MAX` reads
    /// as "more than there are", which every caller clamps).
    pub fn index(value: &JsValue, what: &str) -> Result<usize, JsValue> {
        whole(value, what, MAX_SAFE_INTEGER).map(|n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    pub fn optional_index(value: &JsValue, what: &str) -> Result<Option<usize>, JsValue> {
        Ok(optional_whole(value, what, MAX_SAFE_INTEGER)?.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
    }

    pub fn flag(value: &JsValue, what: &str) -> Result<bool, JsValue> {
        value.as_bool().ok_or_else(|| type_error(what, "true or false", value))
    }

    // A search's progress callback (searches.rs, in the workers' core only).
    #[cfg_attr(not(feature = "workers"), allow(dead_code))]
    pub fn function<'a>(value: &'a JsValue, what: &str) -> Result<&'a js_sys::Function, JsValue> {
        value.dyn_ref::<js_sys::Function>().ok_or_else(|| type_error(what, "a function", value))
    }

    /// `Number.MAX_SAFE_INTEGER`.
    pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
}

/// Text as is (at most `MAX_SCENARIO_BYTES` characters); an object through
/// `JSON.stringify`; anything else a `TypeError`.
pub(super) fn json_text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    if value.is_string() {
        return args::text(value, what, limits::MAX_SCENARIO_BYTES);
    }
    if !value.is_object() || value.is_function() {
        return Err(args::type_error(what, "an object or JSON text", value));
    }
    let text = js_sys::JSON::stringify(value).map_err(|_| js_sys::TypeError::new(&format!("{what}: cannot be written as JSON (a cycle, or a BigInt)")))?;
    args::text(&text.into(), what, limits::MAX_SCENARIO_BYTES)
}

#[wasm_bindgen]
pub struct Simulation {
    timeline: Timeline,
    /// The operator's metrics after each step, kept as the timeline grows
    /// (`operatorSeries`).
    #[cfg(feature = "views")]
    series: Option<crate::view::operator::SeriesReplay>,
}

#[wasm_bindgen]
impl Simulation {
    /// A scenario as an object or JSON text; throws with the field and the problem.
    #[wasm_bindgen(js_name = fromScenario)]
    pub fn from_scenario(#[wasm_bindgen(unchecked_param_type = "object | string")] scenario: JsValue) -> Result<Simulation, JsValue> {
        let text = json_text(&scenario, "fromScenario: scenario")?;
        let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
        Ok(Self::run(&scenario)?)
    }

    /// A share link's scenario text; throws on a corrupt, truncated or oversized link.
    #[wasm_bindgen(js_name = fromLink)]
    pub fn from_link(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<Simulation, JsValue> {
        // Longer text is refused by `decode` with its length; this bound only keeps it out of memory.
        let text = args::text(&text, "fromLink: text", 4 * limits::MAX_LINK_CHARS)?;
        let scenario = link::decode(&text).map_err(|e| JsError::new(&e.0))?;
        Ok(Self::run(&scenario)?)
    }

    fn run(scenario: &Scenario) -> Result<Simulation, JsError> {
        Timeline::new(scenario).map(|timeline| Simulation { timeline, #[cfg(feature = "views")] series: None }).map_err(|e| JsError::new(&e.0))
    }

    /// `fromScenario`, computed in slices (`SimulationBuild.run`), so that a
    /// long run leaves the caller's thread free between them. Throws at once
    /// for what `fromScenario` refuses before running a step.
    #[wasm_bindgen(js_name = buildScenario)]
    pub fn build_scenario(#[wasm_bindgen(unchecked_param_type = "object | string")] scenario: JsValue) -> Result<SimulationBuild, JsValue> {
        let text = json_text(&scenario, "buildScenario: scenario")?;
        let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
        Ok(SimulationBuild::start(&scenario)?)
    }

    /// `fromLink`, computed in slices (`buildScenario`).
    #[wasm_bindgen(js_name = buildLink)]
    pub fn build_link(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<SimulationBuild, JsValue> {
        let text = args::text(&text, "buildLink: text", 4 * limits::MAX_LINK_CHARS)?;
        let scenario = link::decode(&text).map_err(|e| JsError::new(&e.0))?;
        Ok(SimulationBuild::start(&scenario)?)
    }

    /// Applies one step (scenario format) at the current position and returns
    /// the events it caused (with `last`, only the last `last` of them: a
    /// step of a long timed run can cause hundreds of thousands). Throws if
    /// the step is malformed or over a limit.
    pub fn apply(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "object | string")] step: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] last: JsValue,
    ) -> Result<JsValue, JsValue> {
        let last = args::optional_index(&last, "apply: last")?;
        let text = json_text(&step, "apply: step")?;
        let mut value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| JsError::new(&format!("step: {}", text::one_line(&e.to_string()))))?;
        if value.is_string() {
            // A bare step, as a scenario file writes it: `"consume"`.
            crate::run::scenario::bare_step(&mut value).map_err(|e| JsError::new(&e))?;
        }
        let step: Step = from_json_value(value, "step")?;
        let events = self.timeline.apply(step).map_err(|e| JsError::new(&e))?;
        Ok(events_to_js(events, last)?)
    }

    /// The state at the current position, shaped like `highwater run --json`
    /// without `events`. With `logFrom`/`logCount`, only that window of each
    /// log; with `partition`, that partition on the board (`partition` and
    /// `brokers[]`; 0 by default). A topic of several partitions, or of fewer
    /// replicas than brokers, also has `partitions`, each without its
    /// records (the cluster map's).
    pub fn state(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] log_from: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] log_count: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] partition: JsValue,
    ) -> Result<JsValue, JsValue> {
        let window = LogWindow {
            start: args::optional_whole(&log_from, "state: logFrom", args::MAX_SAFE_INTEGER)?.unwrap_or(0),
            max_records: args::optional_index(&log_count, "state: logCount")?.unwrap_or(usize::MAX),
        };
        let sim = self.timeline.current();
        let last = u64::from(sim.config.partitions - 1);
        let p = args::optional_whole(&partition, "state: partition", last)?.unwrap_or(0) as u32;
        let view = StateView::of_partition(sim, p, window);
        let cluster = sim.config.partitions > 1 || sim.config.replication_factor() < sim.config.brokers;
        let view = if cluster { view.with_partitions(sim, LogWindow { start: 0, max_records: 0 }) } else { view };
        Ok(to_js(&view)?)
    }

    /// The end of the log on the board for `partition` (0 by default): the
    /// largest `log_end_offset` of `state(…, partition).brokers`, without the
    /// state, for a window that follows the log (its `logFrom`).
    #[wasm_bindgen(js_name = logEnd)]
    pub fn log_end(&self, #[wasm_bindgen(unchecked_optional_param_type = "number")] partition: JsValue) -> Result<f64, JsValue> {
        let sim = self.timeline.current();
        let last = u64::from(sim.config.partitions - 1);
        let p = args::optional_whole(&partition, "logEnd: partition", last)?.unwrap_or(0) as u32;
        Ok(crate::view::state::log_end(sim, p) as f64)
    }

    /// Trace lines up to the current position, as the command line prints them.
    #[wasm_bindgen(js_name = traceLines)]
    pub fn trace_lines(&self) -> Vec<String> {
        self.timeline.trace_lines()
    }

    /// The trace up to the current position as one text, a line per event:
    /// one crossing of the boundary however long the run (split it on "\n").
    #[wasm_bindgen(js_name = traceText)]
    pub fn trace_text(&self) -> String {
        trace_text(self.timeline.events())
    }

    /// For each step of the timeline, the number of events up to its end.
    #[wasm_bindgen(js_name = stepEnds)]
    pub fn step_ends(&self) -> Vec<u32> {
        self.timeline.step_ends().iter().map(|&n| n as u32).collect()
    }

    /// The `registration_refused` events up to the current position (a
    /// restarted broker waiting for its old session to expire).
    #[wasm_bindgen(js_name = registrationRefusals)]
    pub fn registration_refusals(&self) -> Result<JsValue, JsError> {
        let refused = self.timeline.events().iter().filter(|e| matches!(e.event, crate::model::event::Event::RegistrationRefused { .. }));
        to_js(&refused.map(EventView::of).collect::<Vec<_>>())
    }

    /// Events up to the current position, from index `from` on.
    #[wasm_bindgen(js_name = eventsSince)]
    pub fn events_since(&self, #[wasm_bindgen(unchecked_param_type = "number")] from: JsValue) -> Result<JsValue, JsValue> {
        let from = args::index(&from, "eventsSince: index")?;
        let events = self.timeline.events();
        let from = from.min(events.len());
        Ok(to_js(&events[from..].iter().map(EventView::of).collect::<Vec<_>>())?)
    }

    /// Events `from..to` of the whole timeline (trace line indices, whatever
    /// the position), for the page's event log in a language other than the
    /// trace's English.
    #[wasm_bindgen(js_name = eventsIn)]
    pub fn events_in(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] from: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] to: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (from, to) = (args::index(&from, "eventsIn: from")?, args::index(&to, "eventsIn: to")?);
        let events = self.timeline.all_events();
        let to = to.min(events.len());
        let from = from.min(to);
        Ok(to_js(&events[from..to].iter().map(EventView::of).collect::<Vec<_>>())?)
    }

    /// The events of one step (1-based), whatever the position; with
    /// `last`, only the last `last` of them.
    #[wasm_bindgen(js_name = stepEvents)]
    pub fn step_events(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] step: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] last: JsValue,
    ) -> Result<JsValue, JsValue> {
        let step = args::index(&step, "stepEvents: step")?;
        let last = args::optional_index(&last, "stepEvents: last")?;
        Ok(events_to_js(self.timeline.step_events(step), last)?)
    }

    /// The trace lines of one step (1-based) as one text, a line per event.
    #[wasm_bindgen(js_name = stepText)]
    pub fn step_text(&self, #[wasm_bindgen(unchecked_param_type = "number")] step: JsValue) -> Result<String, JsValue> {
        Ok(trace_text(self.timeline.step_events(args::index(&step, "stepText: step")?)))
    }

    /// What Kafka's tools would show at the current position: the
    /// `kafka-topics.sh --describe` line and the broker metrics (`operator.rs`).
    #[cfg(feature = "views")]
    pub fn operator(&self) -> Result<JsValue, JsError> {
        to_js(&crate::view::operator::OperatorView::of_timeline(&self.timeline))
    }

    /// The metrics over the whole run, whatever the position: at most
    /// `maxPoints` samples (2 to 2,000), from the start to the last step
    /// (`OperatorSeries`). The first call replays the run; later ones only
    /// the steps added since (the whole run again if an earlier one changed).
    #[cfg(feature = "views")]
    #[wasm_bindgen(js_name = operatorSeries)]
    pub fn operator_series(&mut self, #[wasm_bindgen(unchecked_param_type = "number")] max_points: JsValue) -> Result<JsValue, JsValue> {
        let max_points = args::whole(&max_points, "operatorSeries: maxPoints", 2000)?.max(2) as usize;
        let timeline = &self.timeline;
        let replay = self.series.get_or_insert_with(|| crate::view::operator::SeriesReplay::new(timeline));
        replay.update(timeline);
        Ok(to_js(&replay.series(max_points))?)
    }

    /// Time travel: the state after `position` steps (a whole number in
    /// `0..=length()`; a `RangeError` otherwise).
    pub fn seek(&mut self, #[wasm_bindgen(unchecked_param_type = "number")] position: JsValue) -> Result<(), JsValue> {
        let position = args::whole(&position, "seek: position", self.timeline.len() as u64)?;
        self.timeline.seek(position as usize).map_err(|e| JsError::new(&e).into())
    }

    /// Steps applied up to the current position.
    pub fn position(&self) -> usize {
        self.timeline.position()
    }

    /// Steps in the timeline (including any after the position).
    pub fn length(&self) -> usize {
        self.timeline.len()
    }

    /// The scenario: config and every step of the timeline.
    pub fn scenario(&self) -> Result<JsValue, JsError> {
        to_js(self.timeline.scenario())
    }

    /// The scenario as text for a URL fragment.
    #[wasm_bindgen(js_name = toLink)]
    pub fn to_link(&self) -> String {
        link::encode(self.timeline.scenario())
    }

    /// The space-time diagram of steps `from..=to` (1-based, clamped to the
    /// timeline, whatever the position) with at most `maxArrows` arrows and
    /// as many marks (`spacetime::MAX_ARROWS` if not given, at most
    /// `MAX_ARROWS_LIMIT`): lanes, arrows, marks and step spans
    /// (`spacetime.rs`). It does not depend on the position but for
    /// `position`: after a seek, draw the same data with another current step.
    /// With `partition` (a topic of several), only the messages and marks
    /// that concern it, and the brokers' own (a crash, a fence, a cut).
    #[cfg(feature = "views")]
    #[wasm_bindgen(js_name = spaceTime)]
    pub fn space_time(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] from: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] to: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] max_arrows: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] partition: JsValue,
    ) -> Result<JsValue, JsValue> {
        let from = args::whole(&from, "spaceTime: from", args::MAX_SAFE_INTEGER)?;
        let to = args::whole(&to, "spaceTime: to", args::MAX_SAFE_INTEGER)?;
        let max_arrows = args::optional_index(&max_arrows, "spaceTime: maxArrows")?;
        let max = max_arrows.map_or(crate::view::spacetime::MAX_ARROWS, |m| m.min(crate::view::spacetime::MAX_ARROWS_LIMIT));
        let partitions = self.timeline.scenario().config.partitions;
        let partition = args::optional_whole(&partition, "spaceTime: partition", u64::from(partitions) - 1)?.map(|p| p as u32);
        Ok(to_js(&crate::view::spacetime::SpaceTime::of(&self.timeline, from, to, max, partition))?)
    }
}

/// Limits the page shows and checks against before asking the core: a
/// struct rather than `json!` (which would build a map of values and
/// compile its serialisation), its fields in the order the map wrote them
/// (by name).
#[derive(Serialize)]
struct Limits {
    max_brokers: u32,
    max_events_per_run: u64,
    max_events_per_step: u64,
    max_explorer_states: u64,
    max_link_chars: usize,
    max_messages_in_flight: u64,
    max_simulated_ms: u64,
    max_steps: usize,
    max_timeline_snapshot_bytes: usize,
    max_value_bytes: usize,
    max_work_per_run: u64,
    max_work_per_step: u64,
}

/// Limits the page shows and checks against before asking the core.
#[wasm_bindgen]
pub fn limits() -> Result<JsValue, JsError> {
    to_js(&Limits {
        max_brokers: limits::MAX_BROKERS,
        max_events_per_run: limits::MAX_EVENTS_PER_RUN,
        max_events_per_step: limits::MAX_EVENTS_PER_STEP,
        max_explorer_states: limits::MAX_EXPLORER_STATES,
        max_link_chars: limits::MAX_LINK_CHARS,
        max_messages_in_flight: limits::MAX_MESSAGES_IN_FLIGHT,
        max_simulated_ms: limits::MAX_SIMULATED_MS,
        max_steps: limits::MAX_STEPS,
        max_timeline_snapshot_bytes: limits::MAX_TIMELINE_SNAPSHOT_BYTES,
        max_value_bytes: limits::MAX_VALUE_BYTES,
        max_work_per_run: limits::MAX_WORK_PER_RUN,
        max_work_per_step: limits::MAX_WORK_PER_STEP,
    })
}

/// The configuration defaults (Kafka's).
#[wasm_bindgen(js_name = defaultConfig)]
pub fn default_config() -> Result<JsValue, JsError> {
    to_js(&Config::default())
}

/// Every Kafka version preset with its defaults, the rules in force and
/// what changed at it, and the table of rules with their sources.
#[wasm_bindgen]
pub fn versions() -> Result<JsValue, JsError> {
    to_js(&crate::model::rules::catalogue())
}

/// The same settings under another version preset: settings left at the old
/// version's defaults take the new version's (`Config::with_protocol`).
#[wasm_bindgen(js_name = withProtocol)]
pub fn with_protocol(
    #[wasm_bindgen(unchecked_param_type = "object | string")] config: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] protocol: JsValue,
) -> Result<JsValue, JsValue> {
    let text = json_text(&config, "withProtocol: config")?;
    let config: Config = from_json_text(&text, "config")?;
    let protocol = protocol_arg(&protocol, "withProtocol: protocol")?;
    Ok(to_js(&config.with_protocol(protocol))?)
}

/// A version preset's name (or alias) given to a function.
fn protocol_arg(value: &JsValue, what: &str) -> Result<crate::model::config::Protocol, JsValue> {
    let name = args::text(value, what, 1_000)?;
    crate::model::config::Protocol::parse(&name).ok_or_else(|| {
        JsError::new(&format!("protocol: unknown version preset {}; expected {}", text::quoted(&name), crate::model::config::Protocol::accepted_names())).into()
    })
}

/// The engine benchmark's workload (`highwater::bench::timed_produce_run`),
/// for comparing wasm with native on the same code.
#[wasm_bindgen(js_name = benchTimedRun)]
pub fn bench_timed_run(#[wasm_bindgen(unchecked_param_type = "number")] records: JsValue) -> Result<JsValue, JsValue> {
    let records = args::whole(&records, "benchTimedRun: records", crate::boundary::bench::MAX_RECORDS)?;
    Ok(to_js(&crate::boundary::bench::timed_produce_run(records, &mut |_| {}))?)
}

/// The scenario one cell of the grid runs: the version switched as the
/// settings switch it, min ISR and unclean election set, the acks on every
/// produce step.
#[wasm_bindgen(js_name = whatifScenario)]
pub fn whatif_scenario(
    #[wasm_bindgen(unchecked_param_type = "object | string")] scenario: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] protocol: JsValue,
    #[wasm_bindgen(unchecked_param_type = "'1' | 'all'")] acks: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] min_insync_replicas: JsValue,
    #[wasm_bindgen(unchecked_param_type = "boolean")] unclean_leader_election: JsValue,
) -> Result<JsValue, JsValue> {
    let text = json_text(&scenario, "whatifScenario: scenario")?;
    let protocol = protocol_arg(&protocol, "whatifScenario: protocol")?;
    let acks = args::text(&acks, "whatifScenario: acks", 1_000)?;
    let min_insync_replicas = args::whole(&min_insync_replicas, "whatifScenario: minInsyncReplicas", limits::MAX_BROKERS as u64)? as u32;
    if min_insync_replicas == 0 {
        return Err(args::range_error(&format!("whatifScenario: minInsyncReplicas: 0 is not a whole number in 1..={}", limits::MAX_BROKERS)));
    }
    let unclean_leader_election = args::flag(&unclean_leader_election, "whatifScenario: uncleanLeaderElection")?;
    let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
    let acks: Acks = serde_json::from_value(serde_json::Value::String(acks.clone()))
        .map_err(|_| args::range_error(&format!("whatifScenario: acks: {} is not \"0\", \"1\" or \"all\"", text::quoted(&acks))))?;
    let spec = crate::search::whatif::CellSpec { protocol, acks, min_insync_replicas, unclean_leader_election };
    Ok(to_js(&crate::search::whatif::scenario_for(&scenario, &spec))?)
}

/// A fork of a scenario: `{ scenario, change }`, the scenario with the one
/// change of `change_text` applied (`fork.rs`'s text form, like
/// `min_insync_replicas=2`) and what it changed from what (`ChangeSummary`:
/// text, setting, step, from, to). Throws on text that is not a change and
/// on a change the scenario cannot take (a step out of range, acks on a
/// step that is not a produce, a value out of bounds).
#[cfg(feature = "views")]
#[wasm_bindgen(js_name = forkScenario)]
pub fn fork_scenario(
    #[wasm_bindgen(unchecked_param_type = "object | string")] scenario: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] change_text: JsValue,
) -> Result<JsValue, JsValue> {
    let text = json_text(&scenario, "forkScenario: scenario")?;
    let change_text = args::text(&change_text, "forkScenario: changeText", limits::MAX_LINK_CHARS)?;
    let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
    let change = crate::view::fork::Change::parse(&change_text).map_err(|e| JsError::new(&e.0))?;
    let forked = crate::view::fork::fork(&scenario, &change).map_err(|e| JsError::new(&e.to_string()))?;
    Ok(to_js(&Forked { scenario: &forked, change: change.summary(&scenario) })?)
}

/// `forkScenario`'s answer (a struct, not `json!`: building a JSON value
/// would compile the scenario's serialisation a second time).
#[cfg(feature = "views")]
#[derive(Serialize)]
struct Forked<'a> {
    scenario: &'a Scenario,
    change: crate::view::fork::ChangeSummary,
}

/// A change's text read into its typed form (`{ change: "acks", step: 5, acks: "all" }`); throws naming what is wrong.
#[cfg(feature = "views")]
#[wasm_bindgen(js_name = parseChange)]
pub fn parse_change(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<JsValue, JsValue> {
    let text = args::text(&text, "parseChange: text", limits::MAX_LINK_CHARS)?;
    Ok(to_js(&crate::view::fork::Change::parse(&text).map_err(|e| JsError::new(&e.0))?)?)
}

/// A change's typed form (as `parseChange` returns it) written as text for a link.
#[cfg(feature = "views")]
#[wasm_bindgen(js_name = changeText)]
pub fn change_text(#[wasm_bindgen(unchecked_param_type = "object")] change: JsValue) -> Result<String, JsValue> {
    let text = json_text(&change, "changeText: change")?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| JsError::new(&format!("change: {}", text::one_line(&e.to_string()))))?;
    let change = crate::view::fork::Change::from_json(&value).map_err(|e| JsError::new(&e.0))?;
    Ok(change.to_string())
}

/// What a whole run of a scenario came to, as a what-if cell says it:
/// `{ outcome, step, stopped? }`.
#[wasm_bindgen(js_name = runOutcome)]
pub fn run_outcome(#[wasm_bindgen(unchecked_param_type = "object | string")] scenario: JsValue) -> Result<JsValue, JsValue> {
    let text = json_text(&scenario, "runOutcome: scenario")?;
    let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
    Ok(to_js(&crate::search::whatif::run_outcome(&scenario))?)
}

#[cfg(feature = "views")]
#[wasm_bindgen]
impl Simulation {
    /// Every difference between this run's state and `other`'s, each at its
    /// current position, whole logs compared (`fork::differences`; this run
    /// is `left`). Seek both first: to the same position, or a run that
    /// stopped early to its last step (`fork::aligned_position`).
    #[wasm_bindgen(js_name = differencesWith)]
    pub fn differences_with(&self, other: &Simulation) -> Result<JsValue, JsError> {
        let a = StateView::of(self.timeline.current(), LogWindow::ALL);
        let b = StateView::of(other.timeline.current(), LogWindow::ALL);
        to_js(&crate::view::fork::differences(&a, &b))
    }
}

/// A run being computed a slice at a time (`Simulation.buildLink`,
/// `buildScenario`): `run(slice)` until it returns true, then `finish()`.
/// The run is the one `fromLink` / `fromScenario` makes.
#[wasm_bindgen]
pub struct SimulationBuild {
    build: Option<TimelineBuild>,
}

impl SimulationBuild {
    fn start(scenario: &Scenario) -> Result<SimulationBuild, JsError> {
        let build = Timeline::build(scenario, Budgets::default()).map_err(|e| JsError::new(&e.0))?;
        Ok(SimulationBuild { build: Some(build) })
    }

    fn build(&mut self, what: &str) -> Result<&mut TimelineBuild, JsValue> {
        self.build.as_mut().ok_or_else(|| JsError::new(&format!("{what}: the build is finished")).into())
    }
}

#[wasm_bindgen]
impl SimulationBuild {
    /// Runs on for about `slice` events and units of work (a whole number
    /// from 1); true once every step is applied or the run stopped at a
    /// budget. Throws as `fromScenario` would for a step it refuses.
    pub fn run(&mut self, #[wasm_bindgen(unchecked_param_type = "number")] slice: JsValue) -> Result<bool, JsValue> {
        let slice = args::whole(&slice, "run: slice", args::MAX_SAFE_INTEGER)?;
        if slice == 0 {
            return Err(args::range_error("run: slice: 0 is not a whole number in 1..=9007199254740991"));
        }
        let build = self.build("run")?;
        build.run(slice).map_err(|e| JsError::new(&e.0).into())
    }

    /// Steps applied so far.
    #[wasm_bindgen(js_name = stepsDone)]
    pub fn steps_done(&self) -> usize {
        self.build.as_ref().map_or(0, |b| b.progress().0)
    }

    /// Steps in the scenario.
    #[wasm_bindgen(js_name = stepsTotal)]
    pub fn steps_total(&self) -> usize {
        self.build.as_ref().map_or(0, |b| b.progress().1)
    }

    /// The run, once `run` has returned true; the build is then used up.
    pub fn finish(&mut self) -> Result<Simulation, JsValue> {
        let build = self.build.take().ok_or_else(|| JsValue::from(JsError::new("finish: the build is finished")))?;
        if !build.is_done() {
            self.build = Some(build);
            return Err(JsError::new("finish: the run is not computed yet (run until it returns true)").into());
        }
        Ok(Simulation { timeline: build.finish(), #[cfg(feature = "views")] series: None })
    }
}

/// A value of the page's JSON text: read as a scenario's parts are (one
/// deserializer for each type in the file, and the error names the field).
pub(super) fn from_json_text<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, JsError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| JsError::new(&format!("{what}: {}", text::one_line(&e.to_string()))))?;
    from_json_value(value, what)
}

/// serde's failure, its path and the user's text in it bounded and escaped
/// as the scenario reader's are (`scenario::path_error`).
fn from_json_value<T: serde::de::DeserializeOwned>(value: serde_json::Value, what: &str) -> Result<T, JsError> {
    serde_path_to_error::deserialize(value).map_err(|e| JsError::new(&crate::run::scenario::path_error(&e, what)))
}
