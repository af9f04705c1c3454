//! The searches' calls, for the Web Workers that run them
//! (www/workers/explore-worker.js, whatif-worker.js): `explore`, the
//! counterexample explorer, and `whatif`, the outcome grid. Built only with
//! the `workers` feature, which scripts/build-wasm.sh turns on for the
//! workers' core (www/pkg-fast): the page's main thread never runs a search,
//! so the page's core (www/pkg, www/pkg-quorum) leaves them out. Thin, as
//! `wasm.rs` is.

use super::wasm::{args, from_json_text, json_text, to_js};
use crate::base::text;
use crate::model::config::{limits, Config};
use crate::run::link;
use crate::run::scenario::{Acks, Scenario, Step};
use crate::search::explore::{self, Goal, Search, Strategy};
use serde::Serialize;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The search (`explore` or `whatif`) running now, whose progress
    /// callback is the only way back into the module during a call.
    static SEARCHING: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// Held while `explore` or `whatif` runs: a progress callback that starts
/// another search is refused with an error, where each nested search used
/// to take more of the wasm stack until the module trapped (at a depth of
/// 201 in www/pkg, 161 in www/pkg-fast).
struct Searching;

impl Searching {
    fn start(name: &'static str) -> Result<Searching, JsValue> {
        match SEARCHING.with(|s| s.get()) {
            Some(running) => Err(JsError::new(&format!(
                "{name}: called from the progress callback of {running}; a search does not start inside another (call it after {running} returns)"
            ))
            .into()),
            None => {
                SEARCHING.with(|s| s.set(Some(name)));
                Ok(Searching)
            }
        }
    }
}

impl Drop for Searching {
    fn drop(&mut self) {
        SEARCHING.with(|s| s.set(None));
    }
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
    shutdowns: bool,
    #[serde(default)]
    consume: bool,
    /// A rack's faults (`Search::rack_faults`); the brokers need racks.
    #[serde(default)]
    rack_faults: bool,
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
    /// "violation" (the default) or "lost_write" (`explore::Goal`).
    #[serde(default)]
    goal: Goal,
    /// Web Workers sharing the search (www/workers/explore-worker.js); the
    /// core's `explore` is one of them, whatever this says.
    #[serde(default = "default_workers")]
    workers: u32,
}

/// The page's explorer: at most 16 records produced, at most 64 steps deep (`Search::validate`).
const MAX_EXPLORER_PRODUCES: u32 = 16;
const MAX_EXPLORER_DEPTH: usize = 64;
/// Web Workers one search may use in the page.
const MAX_EXPLORER_WORKERS: u32 = 16;

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
fn default_workers() -> u32 {
    1
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
pub fn explore(
    #[wasm_bindgen(unchecked_param_type = "object | string")] options: JsValue,
    #[wasm_bindgen(unchecked_param_type = "(states: number, depth: number) => boolean | void")] progress: JsValue,
) -> Result<JsValue, JsValue> {
    let progress = args::function(&progress, "explore: progress")?;
    let _searching = Searching::start("explore")?;
    let search = explore_search(&options, "explore")?;
    let progress: &ProgressCallback = progress.unchecked_ref();
    // A callback that throws is ignored; one that returns false (any falsy
    // value but undefined and null) stops the search.
    let outcome =
        explore::explore(&search, &mut |states, depth| progress.report(&JsValue::NULL, states as f64, depth as f64).ok().flatten() != Some(false));
    let link = outcome.scenario.as_ref().map(link::encode);
    Ok(to_js(&Explored { outcome: &outcome, link })?)
}

/// The explorer's options read and checked: the search they ask for.
/// `what` names the call in messages.
pub(super) fn explore_search(options: &JsValue, what: &str) -> Result<Search, JsValue> {
    let text = json_text(options, &format!("{what}: options"))?;
    let o: ExploreOptions = from_json_text(&text, "options")?;
    // The search's numbers out of range are a RangeError, as every argument's are.
    if !(1..=MAX_EXPLORER_PRODUCES).contains(&o.max_produces) {
        return Err(args::range_error(&format!("{what}: options.max_produces: {} is out of range 1..={MAX_EXPLORER_PRODUCES}", o.max_produces)));
    }
    if o.depth == 0 || o.depth > MAX_EXPLORER_DEPTH {
        return Err(args::range_error(&format!("{what}: options.depth: {} is out of range 1..={MAX_EXPLORER_DEPTH}", o.depth)));
    }
    if o.max_states == 0 || o.max_states > limits::MAX_EXPLORER_STATES {
        return Err(args::range_error(&format!("{what}: options.max_states: {} is out of range 1..={}", o.max_states, limits::MAX_EXPLORER_STATES)));
    }
    if !(1..=MAX_EXPLORER_WORKERS).contains(&o.workers) {
        return Err(args::range_error(&format!("{what}: options.workers: {} is out of range 1..={MAX_EXPLORER_WORKERS}", o.workers)));
    }
    let strategy = match o.strategy.as_str() {
        "bfs" => Strategy::Bfs,
        "random" => Strategy::Random,
        other => return Err(JsError::new(&format!("options.strategy: {} is not bfs or random", text::quoted(other))).into()),
    };
    let search = Search {
        acks: o.acks,
        power_loss: o.power_loss,
        network_faults: o.network_faults,
        shutdowns: o.shutdowns,
        consume: o.consume,
        rack_faults: o.rack_faults,
        prefix: o.prefix,
        strategy,
        depth: o.depth,
        max_states: o.max_states,
        max_produces: o.max_produces,
        seed: o.seed,
        goal: o.goal,
        ..Search::new(o.config)
    };
    search.validate().map_err(|e| JsError::new(&format!("options.{e}")))?;
    Ok(search)
}

/// The explorer's outcome with the share link of its scenario.
#[derive(Serialize)]
pub(super) struct Explored<'a> {
    #[serde(flatten)]
    pub outcome: &'a explore::Outcome,
    pub link: Option<String>,
}

/// The outcome grid and whether every cell ran.
#[derive(Serialize)]
struct Grid {
    cells: Vec<crate::search::whatif::Cell>,
    complete: bool,
}

/// The outcome grid (`highwater whatif`), meant for a Web Worker: every cell
/// run in turn, `progress(done, total)` after each; returning false stops it
/// with the cells so far (`complete: false`).
#[wasm_bindgen]
pub fn whatif(
    #[wasm_bindgen(unchecked_param_type = "object | string")] scenario: JsValue,
    #[wasm_bindgen(unchecked_param_type = "(done: number, total: number) => boolean | void")] progress: JsValue,
) -> Result<JsValue, JsValue> {
    let progress = args::function(&progress, "whatif: progress")?;
    let _searching = Searching::start("whatif")?;
    let text = json_text(&scenario, "whatif: scenario")?;
    let scenario = Scenario::from_json(&text).map_err(|e| JsError::new(&e.0))?;
    scenario.validate().map_err(|e| JsError::new(&e.0))?;
    let specs = crate::search::whatif::cells(&scenario);
    let total = specs.len();
    let progress: &ProgressCallback = progress.unchecked_ref();
    let mut cells = Vec::with_capacity(total);
    // The grid's own budget (`MAX_WORK_PER_GRID`): refused past it, with the limit named.
    let work = crate::search::whatif::GridWork::new(total);
    for spec in &specs {
        let cell = crate::search::whatif::run_cell(&scenario, spec);
        if cells.is_empty() {
            work.estimate(&cell).map_err(|e| JsError::new(&e))?;
        }
        work.add(&cell).map_err(|e| JsError::new(&e))?;
        cells.push(cell);
        if progress.report(&JsValue::NULL, cells.len() as f64, total as f64).ok().flatten() == Some(false) {
            break;
        }
    }
    let complete = cells.len() == total;
    Ok(to_js(&Grid { cells, complete })?)
}
