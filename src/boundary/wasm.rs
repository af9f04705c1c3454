//! The WebAssembly boundary: one opaque handle around a `Timeline`, coarse
//! calls, plain objects out, and every error turned into a JS `Error` here.
//! No protocol logic lives on this side or in JavaScript.

use crate::model::config::{limits, Config};
use crate::search::explore::{self, Search, Strategy};
use crate::run::link;
use crate::run::scenario::{Acks, Scenario, Step};
use crate::run::timeline::Timeline;
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

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let text = serde_json::to_string(value).map_err(|e| JsError::new(&e.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|_| JsError::new("JSON.parse failed"))
}

fn events_to_js(events: &[crate::model::event::Traced], last: Option<u32>) -> Result<JsValue, JsError> {
    let from = last.map_or(0, |n| events.len().saturating_sub(n as usize));
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

/// Text as is; anything else through `JSON.stringify`.
fn json_text(value: &JsValue, what: &str) -> Result<String, JsError> {
    if let Some(s) = value.as_string() {
        return Ok(s);
    }
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| JsError::new(&format!("{what}: expected an object or JSON text")))
}

#[wasm_bindgen]
pub struct Simulation {
    timeline: Timeline,
}

#[wasm_bindgen]
impl Simulation {
    /// A scenario as an object or JSON text; throws with the field and the problem.
    #[wasm_bindgen(js_name = fromScenario)]
    pub fn from_scenario(scenario: JsValue) -> Result<Simulation, JsError> {
        let text = json_text(&scenario, "scenario")?;
        let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
        Self::run(&scenario)
    }

    /// A share link's scenario text; throws on a corrupt, truncated or oversized link.
    #[wasm_bindgen(js_name = fromLink)]
    pub fn from_link(text: &str) -> Result<Simulation, JsError> {
        let scenario = link::decode(text).map_err(|e| JsError::new(&e.0))?;
        Self::run(&scenario)
    }

    fn run(scenario: &Scenario) -> Result<Simulation, JsError> {
        Timeline::new(scenario).map(|timeline| Simulation { timeline }).map_err(|e| JsError::new(&e.0))
    }

    /// Applies one step (scenario format) at the current position and returns
    /// the events it caused (with `last`, only the last `last` of them: a
    /// step of a long timed run can cause hundreds of thousands). Throws if
    /// the step is malformed or over a limit.
    pub fn apply(&mut self, step: JsValue, last: Option<u32>) -> Result<JsValue, JsError> {
        let text = json_text(&step, "step")?;
        let step: Step = from_json_text(&text, "step")?;
        let events = self.timeline.apply(step).map_err(|e| JsError::new(&e))?;
        events_to_js(events, last)
    }

    /// The state at the current position, shaped like `highwater run --json`
    /// without `events`. With `logFrom`/`logCount`, only that window of each log.
    pub fn state(&self, log_from: Option<u32>, log_count: Option<u32>) -> Result<JsValue, JsError> {
        let window = LogWindow {
            start: log_from.unwrap_or(0) as u64,
            max_records: log_count.map(|c| c as usize).unwrap_or(usize::MAX),
        };
        to_js(&StateView::of(self.timeline.current(), window))
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
    pub fn events_since(&self, from: usize) -> Result<JsValue, JsError> {
        let events = self.timeline.events();
        let from = from.min(events.len());
        to_js(&events[from..].iter().map(EventView::of).collect::<Vec<_>>())
    }

    /// Events `from..to` of the whole timeline (trace line indices, whatever
    /// the position), for the page's event log in a language other than the
    /// trace's English.
    #[wasm_bindgen(js_name = eventsIn)]
    pub fn events_in(&self, from: usize, to: usize) -> Result<JsValue, JsError> {
        let events = self.timeline.all_events();
        let to = to.min(events.len());
        let from = from.min(to);
        to_js(&events[from..to].iter().map(EventView::of).collect::<Vec<_>>())
    }

    /// The events of one step (1-based), whatever the position; with
    /// `last`, only the last `last` of them.
    #[wasm_bindgen(js_name = stepEvents)]
    pub fn step_events(&self, step: usize, last: Option<u32>) -> Result<JsValue, JsError> {
        events_to_js(self.timeline.step_events(step), last)
    }

    /// The trace lines of one step (1-based) as one text, a line per event.
    #[wasm_bindgen(js_name = stepText)]
    pub fn step_text(&self, step: usize) -> String {
        trace_text(self.timeline.step_events(step))
    }

    /// What Kafka's tools would show at the current position: the
    /// `kafka-topics.sh --describe` line and the broker metrics (`operator.rs`).
    pub fn operator(&self) -> Result<JsValue, JsError> {
        to_js(&crate::view::operator::OperatorView::of_timeline(&self.timeline))
    }

    /// Time travel: the state after `position` steps.
    pub fn seek(&mut self, position: usize) -> Result<(), JsError> {
        self.timeline.seek(position).map_err(|e| JsError::new(&e))
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
    #[wasm_bindgen(js_name = spaceTime)]
    pub fn space_time(&self, from: u32, to: u32, max_arrows: Option<u32>) -> Result<JsValue, JsError> {
        let max = max_arrows.map_or(crate::view::spacetime::MAX_ARROWS, |m| (m as usize).min(crate::view::spacetime::MAX_ARROWS_LIMIT));
        to_js(&crate::view::spacetime::SpaceTime::of(&self.timeline, from as u64, to as u64, max))
    }
}

/// Limits the page shows and checks against before asking the core.
#[wasm_bindgen]
pub fn limits() -> Result<JsValue, JsError> {
    to_js(&serde_json::json!({
        "max_brokers": limits::MAX_BROKERS,
        "max_steps": limits::MAX_STEPS,
        "max_value_bytes": limits::MAX_VALUE_BYTES,
        "max_simulated_ms": limits::MAX_SIMULATED_MS,
        "max_link_chars": limits::MAX_LINK_CHARS,
        "max_explorer_states": limits::MAX_EXPLORER_STATES,
        "max_events_per_step": limits::MAX_EVENTS_PER_STEP,
        "max_events_per_run": limits::MAX_EVENTS_PER_RUN,
        "max_messages_in_flight": limits::MAX_MESSAGES_IN_FLIGHT,
        "max_work_per_step": limits::MAX_WORK_PER_STEP,
        "max_work_per_run": limits::MAX_WORK_PER_RUN,
        "max_timeline_snapshot_bytes": limits::MAX_TIMELINE_SNAPSHOT_BYTES,
    }))
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
pub fn with_protocol(config: JsValue, protocol: &str) -> Result<JsValue, JsError> {
    let text = json_text(&config, "config")?;
    let config: Config = from_json_text(&text, "config")?;
    let protocol = crate::model::config::Protocol::parse(protocol)
        .ok_or_else(|| JsError::new(&format!("protocol: unknown version preset {protocol:?}; expected {}", crate::model::config::Protocol::accepted_names())))?;
    to_js(&config.with_protocol(protocol))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ExploreOptions {
    config: Config,
    #[serde(default)]
    acks: Acks,
    #[serde(default)]
    power_loss: bool,
    #[serde(default)]
    network_faults: bool,
    #[serde(default)]
    prefix: Vec<Step>,
    #[serde(default = "default_strategy")]
    strategy: String,
    #[serde(default = "default_depth")]
    depth: usize,
    #[serde(default = "default_max_states")]
    max_states: u64,
    #[serde(default = "default_max_produces")]
    max_produces: u32,
    #[serde(default)]
    seed: u64,
}

fn default_strategy() -> String {
    "bfs".into()
}
fn default_depth() -> usize {
    8
}
fn default_max_states() -> u64 {
    500_000
}
fn default_max_produces() -> u32 {
    3
}

#[wasm_bindgen]
extern "C" {
    /// The explorer's progress callback, called after every step of the
    /// search: numbers in and a boolean out, so that a call allocates no
    /// JS values (`Function::call2` would box each argument).
    type ProgressCallback;
    #[wasm_bindgen(method, catch, js_name = call)]
    fn report(this: &ProgressCallback, this_arg: &JsValue, states: f64, depth: f64) -> Result<Option<bool>, JsValue>;
}

/// Runs the counterexample explorer (meant for a Web Worker). `progress` is
/// called with (states, depth) after every step the search applies (the
/// worker throttles what it posts by wall time); returning false stops the
/// search. `max_states` is at most `limits::MAX_EXPLORER_STATES`.
#[wasm_bindgen]
pub fn explore(options: JsValue, progress: &js_sys::Function) -> Result<JsValue, JsError> {
    let text = json_text(&options, "options")?;
    let o: ExploreOptions = from_json_text(&text, "options")?;
    let strategy = match o.strategy.as_str() {
        "bfs" => Strategy::Bfs,
        "random" => Strategy::Random,
        other => return Err(JsError::new(&format!("options.strategy: {other:?} is not bfs or random"))),
    };
    let search = Search {
        acks: o.acks,
        power_loss: o.power_loss,
        network_faults: o.network_faults,
        prefix: o.prefix,
        strategy,
        depth: o.depth,
        max_states: o.max_states,
        max_produces: o.max_produces.clamp(1, 16),
        seed: o.seed,
        ..Search::new(o.config)
    };
    search.validate().map_err(|e| JsError::new(&format!("options.{e}")))?;
    let progress: &ProgressCallback = progress.unchecked_ref();
    // A callback that throws is ignored; one that returns false (any falsy
    // value but undefined and null) stops the search.
    let outcome =
        explore::explore(&search, &mut |states, depth| progress.report(&JsValue::NULL, states as f64, depth as f64).ok().flatten() != Some(false));
    let link = outcome.scenario.as_ref().map(link::encode);
    to_js(&Explored { outcome: &outcome, link })
}

/// The explorer's outcome with the share link of its scenario.
#[derive(Serialize)]
struct Explored<'a> {
    #[serde(flatten)]
    outcome: &'a explore::Outcome,
    link: Option<String>,
}

/// The outcome grid and whether every cell ran.
#[derive(Serialize)]
struct Grid {
    cells: Vec<crate::search::whatif::Cell>,
    complete: bool,
}

/// The engine benchmark's workload (`highwater::bench::timed_produce_run`),
/// for comparing wasm with native on the same code.
#[wasm_bindgen(js_name = benchTimedRun)]
pub fn bench_timed_run(records: u32) -> Result<JsValue, JsError> {
    to_js(&crate::boundary::bench::timed_produce_run(records as u64, &mut |_| {}))
}

/// The outcome grid (`highwater whatif`), meant for a Web Worker: every cell
/// run in turn, `progress(done, total)` after each; returning false stops it
/// with the cells so far (`complete: false`).
#[wasm_bindgen]
pub fn whatif(scenario: JsValue, progress: &js_sys::Function) -> Result<JsValue, JsError> {
    let text = json_text(&scenario, "scenario")?;
    let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
    scenario.validate().map_err(|e| JsError::new(&e.0))?;
    let specs = crate::search::whatif::cells(&scenario);
    let total = specs.len();
    let progress: &ProgressCallback = progress.unchecked_ref();
    let mut cells = Vec::with_capacity(total);
    for spec in &specs {
        cells.push(crate::search::whatif::run_cell(&scenario, spec));
        if progress.report(&JsValue::NULL, cells.len() as f64, total as f64).ok().flatten() == Some(false) {
            break;
        }
    }
    let complete = cells.len() == total;
    to_js(&Grid { cells, complete })
}

/// The scenario one cell of the grid runs: the version switched as the
/// settings switch it, min ISR and unclean election set, the acks on every
/// produce step.
#[wasm_bindgen(js_name = whatifScenario)]
pub fn whatif_scenario(scenario: JsValue, protocol: &str, acks: &str, min_insync_replicas: u32, unclean_leader_election: bool) -> Result<JsValue, JsError> {
    let text = json_text(&scenario, "scenario")?;
    let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
    let protocol = crate::model::config::Protocol::parse(protocol)
        .ok_or_else(|| JsError::new(&format!("protocol: unknown version preset {protocol:?}; expected {}", crate::model::config::Protocol::accepted_names())))?;
    let acks: Acks = from_json_value(serde_json::json!(acks), "acks")?;
    let spec = crate::search::whatif::CellSpec { protocol, acks, min_insync_replicas, unclean_leader_election };
    to_js(&crate::search::whatif::scenario_for(&scenario, &spec))
}

/// A fork of a scenario: `{ scenario, change }`, the scenario with the one
/// change of `change_text` applied (`fork.rs`'s text form, like
/// `min_insync_replicas=2`) and what it changed from what (`ChangeSummary`:
/// text, setting, step, from, to). Throws on text that is not a change and
/// on a change the scenario cannot take (a step out of range, acks on a
/// step that is not a produce, a value out of bounds).
#[wasm_bindgen(js_name = forkScenario)]
pub fn fork_scenario(scenario: JsValue, change_text: &str) -> Result<JsValue, JsError> {
    let text = json_text(&scenario, "scenario")?;
    let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
    let change = crate::view::fork::Change::parse(change_text).map_err(|e| JsError::new(&e.0))?;
    let forked = crate::view::fork::fork(&scenario, &change).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&Forked { scenario: &forked, change: change.summary(&scenario) })
}

/// `forkScenario`'s answer (a struct, not `json!`: building a JSON value
/// would compile the scenario's serialisation a second time).
#[derive(Serialize)]
struct Forked<'a> {
    scenario: &'a Scenario,
    change: crate::view::fork::ChangeSummary,
}

/// A change's text read into its typed form (`{ change: "acks", step: 5, acks: "all" }`); throws naming what is wrong.
#[wasm_bindgen(js_name = parseChange)]
pub fn parse_change(text: &str) -> Result<JsValue, JsError> {
    to_js(&crate::view::fork::Change::parse(text).map_err(|e| JsError::new(&e.0))?)
}

/// A change's typed form (as `parseChange` returns it) written as text for a link.
#[wasm_bindgen(js_name = changeText)]
pub fn change_text(change: JsValue) -> Result<String, JsError> {
    let text = json_text(&change, "change")?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| JsError::new(&format!("change: {e}")))?;
    let change = crate::view::fork::Change::from_json(&value).map_err(|e| JsError::new(&e.0))?;
    Ok(change.to_string())
}

/// What a whole run of a scenario came to, as a what-if cell says it:
/// `{ outcome, step, stopped? }`.
#[wasm_bindgen(js_name = runOutcome)]
pub fn run_outcome(scenario: JsValue) -> Result<JsValue, JsError> {
    let text = json_text(&scenario, "scenario")?;
    let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
    to_js(&crate::search::whatif::run_outcome(&scenario))
}

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

/// A value of the page's JSON text: read as a scenario's parts are (one
/// deserializer for each type in the file, and the error names the field).
fn from_json_text<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, JsError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| JsError::new(&format!("{what}: {e}")))?;
    from_json_value(value, what)
}

fn from_json_value<T: serde::de::DeserializeOwned>(value: serde_json::Value, what: &str) -> Result<T, JsError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        JsError::new(&if path == "." { format!("{what}: {}", e.inner()) } else { format!("{what}.{path}: {}", e.inner()) })
    })
}
