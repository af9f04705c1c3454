//! What if: the outcome grid of a scenario. The same steps are run under
//! every version preset × acks × `min.insync.replicas` × unclean election,
//! and each run is reduced to one outcome, read from the model's own
//! violations, producer results and controller state (nothing here decides
//! a protocol fact).
//!
//! Pure and single-threaded (it builds for wasm): a caller that wants the
//! cells in parallel takes `cells` and runs `run_cell` on each.

use crate::model::config::{Budgets, Protocol};
use crate::model::event::{Event, ProduceResult};
use crate::model::violation::{Allowance, ViolationKind};
use crate::model::clients::accumulator::Status;
use crate::model::protocol::Errors;
use crate::run::scenario::{Acks, Scenario, ScenarioError, Step};
use crate::model::simulation::Simulation;
use serde::Serialize;

/// What a run came to, from the application's and the checks' point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Nothing below happened.
    Safe,
    /// `ViolationKind::AckedWriteLost` with `protocol_violation`: an acks=all
    /// write lost, and no unclean election explains it.
    AckedWriteLost,
    /// `ViolationKind::CommittedDivergence`.
    CommittedDivergence,
    /// `ViolationKind::ConsumerSawVanishedRecord`.
    ConsumerSawVanishedRecord,
    /// `ViolationKind::HwExceedsLeo` (the property tests say the model never
    /// reports it; it is here so that no violation reads as `safe`).
    HwExceedsLeo,
    /// A violation allowed by `unclean.leader.election.enable`
    /// (`Allowance::UncleanLeaderElection`): a record acknowledged or read
    /// before an unclean election, lost because its leader lacked it.
    UncleanElectionLoss,
    /// `ViolationKind::AckedWriteLost` allowed by acks=1
    /// (`Allowance::AcksOne`): an acks=1 write lost, which Kafka's contract allows.
    Acks1WriteLost,
    /// The controller has no leader at the end (`Event::PartitionOffline`).
    Offline,
    /// A write the application never saw acknowledged was refused at least
    /// once with NOT_ENOUGH_REPLICAS or NOT_ENOUGH_REPLICAS_AFTER_APPEND
    /// (`Event::ProduceResponse`). The application saw that error (no
    /// retries before 2.1), REQUEST_TIMED_OUT (`delivery.timeout.ms`), or
    /// nothing yet (still retrying at the end). A write acknowledged on a
    /// later retry is not counted.
    NotEnoughReplicas,
}

/// Most severe first: a cell shows the first of these that happened.
pub const SEVERITY: [Outcome; 8] = [
    Outcome::AckedWriteLost,
    Outcome::CommittedDivergence,
    Outcome::ConsumerSawVanishedRecord,
    Outcome::HwExceedsLeo,
    Outcome::UncleanElectionLoss,
    Outcome::Acks1WriteLost,
    Outcome::Offline,
    Outcome::NotEnoughReplicas,
];

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Safe => "safe",
            Outcome::AckedWriteLost => "acked_write_lost",
            Outcome::CommittedDivergence => "committed_divergence",
            Outcome::ConsumerSawVanishedRecord => "consumer_saw_vanished_record",
            Outcome::HwExceedsLeo => "hw_exceeds_leo",
            Outcome::UncleanElectionLoss => "unclean_election_loss",
            Outcome::Acks1WriteLost => "acks1_write_lost",
            Outcome::Offline => "offline",
            Outcome::NotEnoughReplicas => "not_enough_replicas",
        }
    }
}

/// The settings of one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct CellSpec {
    pub protocol: Protocol,
    /// Given to every produce step.
    pub acks: Acks,
    pub min_insync_replicas: u32,
    pub unclean_leader_election: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Cell {
    #[serde(flatten)]
    pub spec: CellSpec,
    pub outcome: Outcome,
    /// The step (1-based) where the outcome happened; null when `safe`.
    pub step: Option<u64>,
    /// The run went past a work budget and stopped here (the
    /// `budget_exceeded` event's words): the outcome is that of the steps run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The run's work (`Simulation::work_done`), counted against the grid's budget.
    #[serde(skip)]
    pub work: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Grid {
    pub cells: Vec<Cell>,
}

/// Every cell, in the grid's order: protocol, acks 1 then all, min ISR
/// ascending, unclean off then on.
pub fn cells(scenario: &Scenario) -> Vec<CellSpec> {
    let mut out = vec![];
    for protocol in Protocol::ALL {
        for acks in [Acks::One, Acks::All] {
            for min_insync_replicas in 1..=scenario.config.brokers {
                for unclean_leader_election in [false, true] {
                    out.push(CellSpec { protocol, acks, min_insync_replicas, unclean_leader_election });
                }
            }
        }
    }
    out
}

/// The scenario as the cell runs it: the version switched as the page
/// switches it (`Config::with_protocol`), then the cell's settings, and its
/// acks on every produce step.
pub fn scenario_for(scenario: &Scenario, spec: &CellSpec) -> Scenario {
    let mut s = scenario.clone();
    s.config = s.config.with_protocol(spec.protocol);
    s.config.min_insync_replicas = spec.min_insync_replicas;
    s.config.unclean_leader_election = spec.unclean_leader_election;
    for step in &mut s.steps {
        if let Step::Produce(p) = step {
            p.acks = spec.acks;
        }
    }
    s
}

/// Runs one cell to the scenario's end (or to a budget stop), under the
/// budgets of a single run (`Budgets::default()`, as `Timeline::new` and
/// `highwater run` use). The scenario must be valid (`Scenario::validate`;
/// `whatif` checks it).
pub fn run_cell(scenario: &Scenario, spec: &CellSpec) -> Cell {
    run_cell_with(scenario, spec, Budgets::default())
}

/// `run_cell` under the given budgets (tests lower them to reach one).
pub fn run_cell_with(scenario: &Scenario, spec: &CellSpec, budgets: Budgets) -> Cell {
    let run = run_outcome_with(&scenario_for(scenario, spec), budgets);
    Cell { spec: *spec, outcome: run.outcome, step: run.step, stopped: run.stopped, work: run.work }
}

/// Units of work (events and counted work, `Simulation::work_done`) the
/// whole grid may take, its cells together: each cell is a whole run under
/// a run's budgets, and a grid has up to 448 of them, so without a budget
/// of its own a grid of runs near a run's budgets took a minute (52 s for
/// the fuzz seed 4242 on 2 threads). At this budget the slowest units
/// measured (about 1 µs each natively) keep a grid within about two
/// seconds on 2 threads; a grid past it is refused, with this limit named.
pub const MAX_WORK_PER_GRID: u64 = 4_000_000;

/// The grid's work so far, shared by the threads that run its cells: a
/// grid is refused as soon as its cells together are past
/// `MAX_WORK_PER_GRID` (or the first cell's work times the number of cells
/// is), whatever the order in which the cells ran, so whether a grid is
/// refused does not depend on the threads.
#[derive(Debug)]
pub struct GridWork {
    used: std::sync::atomic::AtomicU64,
    limit: u64,
    cells: usize,
}

impl GridWork {
    pub fn new(cells: usize) -> GridWork {
        GridWork::with_limit(cells, MAX_WORK_PER_GRID)
    }

    /// `new` with another limit (tests).
    pub fn with_limit(cells: usize, limit: u64) -> GridWork {
        GridWork { used: 0.into(), limit, cells }
    }

    /// Counts a cell's work; the refusal once the grid is past its budget.
    pub fn add(&self, cell: &Cell) -> Result<(), String> {
        use std::sync::atomic::Ordering;
        let used = self.used.fetch_add(cell.work, Ordering::Relaxed) + cell.work;
        if used > self.limit {
            return Err(self.refusal(None));
        }
        Ok(())
    }

    /// The refusal when one cell's work times the number of cells is past
    /// the budget: the answer at the cost of one run, not of a minute.
    pub fn estimate(&self, first: &Cell) -> Result<(), String> {
        if first.work.saturating_mul(self.cells as u64) > self.limit {
            return Err(self.refusal(Some(first.work)));
        }
        Ok(())
    }

    /// True once a cell has found the grid past its budget (the others stop taking cells).
    pub fn is_spent(&self) -> bool {
        self.used.load(std::sync::atomic::Ordering::Relaxed) > self.limit
    }

    fn refusal(&self, each: Option<u64>) -> String {
        use crate::base::text::thousands;
        let why = match each {
            Some(w) => format!("{} cells of about {} units of work each", self.cells, thousands(w)),
            None => format!("its {} cells together", self.cells),
        };
        format!(
            "whatif: {why} go past the grid's budget of {} units of work (MAX_WORK_PER_GRID); a shorter run (fewer steps, less time advanced) fits",
            thousands(self.limit)
        )
    }
}

/// What one whole run came to, read as a grid cell reads it (a fork's
/// original and its fork are each reduced to one of these).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct RunOutcome {
    pub outcome: Outcome,
    /// The step (1-based) where the outcome happened; null when `safe`.
    pub step: Option<u64>,
    /// The run went past a work budget and stopped (the `budget_exceeded` event's words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The run's work (`Simulation::work_done`).
    #[serde(skip)]
    pub work: u64,
}

/// Runs a (valid) scenario to its end, or to a budget stop, and reduces it
/// to its most severe outcome.
pub fn run_outcome(s: &Scenario) -> RunOutcome {
    run_outcome_with(s, Budgets::default())
}

/// `run_outcome` under the given budgets.
pub fn run_outcome_with(s: &Scenario, budgets: Budgets) -> RunOutcome {
    let mut sim = Simulation::new(s.config.clone());
    sim.accounting.budgets = budgets;
    // For `offline`: the steps after which the controller had a leader.
    let mut led_after = 0;
    // For `not_enough_replicas`: each request's first refusal, by step.
    let mut refused: Vec<(u64, u64)> = vec![];
    for step in &s.steps {
        for e in sim.apply_in_place(step) {
            if let Event::ProduceResponse { request, result: ProduceResult::Error(error), .. } = &e.event {
                let not_enough = matches!(error, Errors::NotEnoughReplicas | Errors::NotEnoughReplicasAfterAppend);
                if not_enough && !refused.iter().any(|&(r, _)| r == *request) {
                    refused.push((*request, e.step));
                }
            }
        }
        if sim.controller.partition(0).leader.is_some() {
            led_after = sim.step;
        }
        if sim.stopped().is_some() {
            break;
        }
    }
    let mut happened: Vec<(Outcome, u64)> = vec![];
    // The grid compares what befalls the data partition; the metadata
    // quorum's checks are its own (`quorum::checks`).
    for v in sim.violations.iter().filter(|v| !v.kind.of_quorum()) {
        let outcome = match (v.kind, v.allowed_by) {
            (_, Some(Allowance::UncleanLeaderElection)) => Outcome::UncleanElectionLoss,
            (_, Some(Allowance::AcksOne)) => Outcome::Acks1WriteLost,
            (ViolationKind::AckedWriteLost, None) => Outcome::AckedWriteLost,
            (ViolationKind::CommittedDivergence, None) => Outcome::CommittedDivergence,
            (ViolationKind::ConsumerSawVanishedRecord, None) => Outcome::ConsumerSawVanishedRecord,
            (ViolationKind::HwExceedsLeo, None) => Outcome::HwExceedsLeo,
            (_, None) => continue,
        };
        happened.push((outcome, v.step));
    }
    if sim.controller.partition(0).leader.is_none() {
        happened.push((Outcome::Offline, led_after + 1));
    }
    let acked = |id: u64| sim.producer.requests[id as usize].status == Status::Done(ProduceResult::Acked);
    if let Some(&(_, step)) = refused.iter().find(|&&(id, _)| !acked(id)) {
        happened.push((Outcome::NotEnoughReplicas, step));
    }
    // The first (earliest) of the most severe kind.
    let worst = SEVERITY.iter().find_map(|&o| happened.iter().filter(|h| h.0 == o).map(|h| h.1).min().map(|step| (o, step)));
    RunOutcome {
        outcome: worst.map_or(Outcome::Safe, |w| w.0),
        step: worst.map(|w| w.1),
        stopped: sim.stopped().map(|b| crate::model::event::budget_message(b, sim.budgets().limit(b))),
        work: sim.work_done(),
    }
}

/// The whole grid, one cell after another, under the grid's budget
/// (`MAX_WORK_PER_GRID`): past it, the refusal that names it.
pub fn whatif(scenario: &Scenario) -> Result<Grid, ScenarioError> {
    scenario.validate()?;
    let specs = cells(scenario);
    let work = GridWork::new(specs.len());
    let mut cells = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let cell = run_cell(scenario, spec);
        if i == 0 {
            work.estimate(&cell).map_err(ScenarioError)?;
        }
        work.add(&cell).map_err(ScenarioError)?;
        cells.push(cell);
    }
    Ok(Grid { cells })
}

/// The grid as a table: a row per protocol × acks, a column per min ISR ×
/// unclean election; each cell `outcome@step`, marked `*` when its run
/// stopped at a budget (the reasons follow the table).
pub fn table(grid: &Grid) -> String {
    let Some(brokers) = grid.cells.iter().map(|c| c.spec.min_insync_replicas).max() else { return String::new() };
    let columns = 2 * brokers as usize;
    let text = |c: &Cell| {
        let mut t = c.outcome.name().to_string();
        if let Some(step) = c.step {
            t += &format!("@{step}");
        }
        if c.stopped.is_some() {
            t += "*";
        }
        t
    };
    let heads: Vec<(String, String)> =
        (0..columns).map(|i| (format!("min ISR {}", i / 2 + 1), (if i % 2 == 0 { "unclean off" } else { "unclean on" }).to_string())).collect();
    let mut width: Vec<usize> = heads.iter().map(|h| h.1.len().max(h.0.len())).collect();
    for (i, c) in grid.cells.iter().enumerate() {
        width[i % columns] = width[i % columns].max(text(c).len());
    }
    let row = |first: &str, second: &str, items: Vec<String>| {
        let mut line = format!("{first:<8}  {second:<4}");
        for (i, item) in items.iter().enumerate() {
            line += &format!("  {item:<w$}", w = width[i]);
        }
        line.trim_end().to_string() + "\n"
    };
    let mut out = row("", "", heads.iter().map(|h| if h.1 == "unclean off" { h.0.clone() } else { String::new() }).collect());
    out += &row("protocol", "acks", heads.iter().map(|h| h.1.clone()).collect());
    for r in grid.cells.chunks(columns) {
        out += &row(r[0].spec.protocol.name(), r[0].spec.acks.name(), r.iter().map(text).collect());
    }
    let mut reasons: Vec<&String> = grid.cells.iter().filter_map(|c| c.stopped.as_ref()).collect();
    reasons.sort();
    reasons.dedup();
    for reason in reasons {
        out += &format!("* {reason}\n");
    }
    out
}
