//! The counterexample explorer: searches the scenario format's own steps for
//! a run that breaks a safety check, like a model checker, and hands back the
//! shortest one it finds as a replayable scenario, minimised.
//!
//! Two strategies: seeded random walks (fast, reproducible from the seed) and
//! an exhaustive search, breadth-first on any number of threads
//! (`breadth_first`) with canonical state keys (`state_key`), which either
//! proves there is no violation up to the depth or returns a shortest one,
//! the same one whatever the number of threads.

use crate::base::rng::Rng;
use crate::model::config::{limits, Config};
use crate::model::simulation::Simulation;
use crate::model::violation::{Allowance, Violation};
use crate::run::scenario::{Acks, Scenario, Step};
use crate::search::breadth_first;
use crate::search::moves::{MoveList, Moves};
use serde::Serialize;

pub use crate::search::state_key::canonical_hash;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    Bfs,
    Random,
}

/// What to search: the cluster, the faults allowed, and the bounds.
#[derive(Clone, Debug)]
pub struct Search {
    pub config: Config,
    pub acks: Acks,
    pub power_loss: bool,
    /// Allow one-way cuts from the leader, cuts to the controller and `heal`.
    pub network_faults: bool,
    /// Allow controlled shutdowns (`controlled_shutdown`, and under KRaft
    /// its first half alone, `begin_controlled_shutdown`).
    pub shutdowns: bool,
    /// Let the consumer read (`consume`): a record it read must stay.
    pub consume: bool,
    /// Steps to start from (a scenario prefix).
    pub prefix: Vec<Step>,
    pub strategy: Strategy,
    /// Steps after the prefix.
    pub depth: usize,
    pub max_states: u64,
    /// Records the producer may write (bounds the space).
    pub max_produces: u32,
    /// Random walks only.
    pub seed: u64,
    /// Which violations count: a protocol violation always; the losses
    /// Kafka's contract allows (`Violation::allowed_by`) only when asked.
    pub count_acks_one_losses: bool,
    /// Count the losses an unclean election explains (allowed by
    /// `unclean.leader.election.enable`).
    pub count_unclean_losses: bool,
    /// What the search looks for: any broken guarantee, or a lost record only.
    pub goal: Goal,
    /// Threads of the exhaustive search (1 to 256); the answer is the same
    /// for any number.
    pub threads: usize,
}

/// What counts as found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// Any violation the search counts (a protocol violation, or an allowed
    /// loss when asked): the first one found.
    #[default]
    Violation,
    /// Only a record gone (`ViolationKind::loses_data`): a diverged log or an
    /// HW above the LEO on the way is searched past. The page's "Find a way
    /// to lose data" asks this.
    LostWrite,
}

impl Search {
    pub fn new(config: Config) -> Search {
        Search {
            config,
            acks: Acks::All,
            power_loss: false,
            network_faults: false,
            shutdowns: false,
            consume: false,
            prefix: vec![],
            strategy: Strategy::Bfs,
            depth: 8,
            max_states: 1_000_000,
            // Three records: KIP-279's divergence needs a third write.
            max_produces: 3,
            seed: 1,
            count_acks_one_losses: false,
            count_unclean_losses: false,
            goal: Goal::Violation,
            threads: 1,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub found: bool,
    pub violation: Option<Violation>,
    /// A complete scenario that replays to the violation (minimised).
    pub scenario: Option<Scenario>,
    /// Distinct states visited (exhaustive), or steps taken (random).
    pub states: u64,
    /// States generated: every step the search applied to a state it
    /// expanded, duplicates included (TLC's "states generated").
    pub generated: u64,
    /// The depth searched to completion (exhaustive), or the walk length (random).
    pub depth: usize,
    /// False if the search stopped before finishing its depth (`stopped` says why).
    pub complete: bool,
    pub stopped: Option<Stop>,
}

/// Why a search ended before finishing its depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// `max_states` distinct states (exhaustive) or steps (random).
    MaxStates,
    /// The progress callback returned false (Ctrl-C on the command line).
    Interrupted,
}

/// Progress callback: (states so far, depth being searched); false stops the
/// search. It is called after every step the search applies, so that a
/// caller throttling by wall time hears from the search (and can stop it)
/// even when a step is slow: with extreme timers (`replica_lag_time_max_ms`
/// 2) one advance runs millions of timer checks. The core keeps no clock.
pub type Progress<'a> = &'a mut dyn FnMut(u64, usize) -> bool;

/// The steps the explorer may choose from in a state (bounded: values are
/// numbered, at most `max_produces` records, one lost record per power loss).
pub fn actions(sim: &Simulation, search: &Search, out: &mut Vec<Step>) {
    let moves = Moves::new(&sim.config, search, sim.producer.requests.len() + search.depth);
    let mut list = MoveList::new();
    moves.list(sim, search, &mut list);
    out.clear();
    out.extend(list.iter().map(|&m| moves.step(m).clone()));
}

/// Whether a violation is one the search looks for.
pub(crate) fn counts(v: &Violation, search: &Search) -> bool {
    if search.goal == Goal::LostWrite && !v.kind.loses_data() {
        return false;
    }
    match v.allowed_by {
        None => true,
        Some(Allowance::AcksOne) => search.count_acks_one_losses,
        Some(Allowance::UncleanLeaderElection) => search.count_unclean_losses,
    }
}

/// Applies steps from a fresh simulation; the first counted violation, if any.
pub(crate) fn replay(search: &Search, steps: &[Step]) -> (Simulation, Option<Violation>) {
    let mut sim = Simulation::new(search.config.clone());
    for step in steps {
        sim.apply(step);
        if let Some(v) = sim.violations.iter().find(|v| counts(v, search)).cloned() {
            return (sim, Some(v));
        }
    }
    (sim, None)
}

/// The most threads an exhaustive search may use (`--threads`).
pub const MAX_THREADS: usize = 256;

impl Search {
    /// The explorer searches manual mode: timed mode's in-flight messages and
    /// fetcher clocks are not part of its state hash. The prefix must be a
    /// valid scenario with room for `depth` more steps, so that what the
    /// search returns is one too.
    pub fn validate(&self) -> Result<(), String> {
        self.config.validate()?;
        if self.config.auto_fetch {
            return Err("config.auto_fetch: the explorer searches manual mode (fetch steps); turn auto_fetch off".into());
        }
        if self.depth == 0 || self.depth > 64 {
            return Err(format!("depth: {} is out of range 1..=64", self.depth));
        }
        if self.threads == 0 || self.threads > MAX_THREADS {
            return Err(format!("threads: {} is out of range 1..={MAX_THREADS}", self.threads));
        }
        if self.max_states == 0 || self.max_states > limits::MAX_EXPLORER_STATES {
            return Err(format!("max_states: {} is out of range 1..={}", self.max_states, limits::MAX_EXPLORER_STATES));
        }
        let prefix = Scenario { steps: self.prefix.clone(), ..Scenario::new(self.config.clone()) };
        prefix.validate().map_err(|e| format!("prefix: {e}"))?;
        if self.prefix.len() + self.depth > limits::MAX_STEPS {
            return Err(format!(
                "depth: {} steps after the prefix's {} would pass the limit of {} steps",
                self.depth,
                self.prefix.len(),
                limits::MAX_STEPS
            ));
        }
        Ok(())
    }
}

/// Runs the search (`search.validate()` first).
pub fn explore(search: &Search, progress: Progress) -> Outcome {
    let found = match search.strategy {
        Strategy::Bfs => breadth_first::search(search, progress),
        Strategy::Random => random_walks(search, progress),
    };
    outcome(search, found)
}

/// What a search found, as its outcome: a run found is minimised and made a
/// scenario.
pub(crate) fn outcome(search: &Search, found: Found) -> Outcome {
    let (path, states, generated, depth, stopped) = found;
    let complete = stopped.is_none();
    match path {
        Some(steps) => {
            let steps = minimise(search, steps);
            let (_, violation) = replay(search, &steps);
            let mut scenario = Scenario::new(search.config.clone());
            scenario.name = "Found by the explorer".into();
            // How it was found; what it breaks is the run's own to say (the
            // page's banner, `run`'s verdict), not repeated here.
            scenario.description = match search.strategy {
                Strategy::Bfs => format!("The shortest run of at most {} steps the explorer found, minimised.", search.depth),
                Strategy::Random => format!("A run found by random walks of {} steps, minimised.", search.depth),
            };
            scenario.steps = steps;
            // What the explorer prints, `highwater run` and the share link must accept.
            if let Err(e) = scenario.validate() {
                panic!("the explorer built a scenario that does not validate: {e}");
            }
            Outcome { found: violation.is_some(), violation, scenario: Some(scenario), states, generated, depth, complete, stopped }
        }
        None => Outcome { found: false, violation: None, scenario: None, states, generated, depth, complete, stopped },
    }
}

/// (path to a violation, distinct states, states generated, depth, why it stopped early).
pub(crate) type Found = (Option<Vec<Step>>, u64, u64, usize, Option<Stop>);

#[cfg(test)]
mod tests {
    use crate::model::event::Traced;
    use crate::model::invariants::Checker;
    use crate::base::rng::Rng;
    use crate::model::config::{Config, Protocol};
    use crate::model::simulation::Simulation;
    use crate::model::step::{Acks, Step};
    use crate::run::scenario::Scenario;
    use super::{actions, Search};

    /// Applies `step` in both modes: the explorer's keeps exactly the events
    /// the checks read, with the same repeats, and the state is the same.
    fn same_but_the_trace(full: &mut Simulation, checked: &mut Simulation, step: &Step) {
        let all = full.apply(step);
        let kept = checked.apply(step);
        let expected: Vec<Traced> = all.iter().filter(|e| Checker::reads(&e.event)).cloned().collect();
        assert_eq!(kept, expected, "{step:?}: {all:#?}");
        // Apart from the mode, and where the current action starts in `out`.
        let mut state = checked.clone();
        (state.accounting.trace, state.accounting.dropped_last, state.accounting.action_start) = (true, false, full.accounting.action_start);
        assert!(state == *full, "{step:?}");
    }

    #[test]
    fn keeping_only_checked_events_changes_nothing_else() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
        let mut scenarios: Vec<Scenario> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| Scenario::from_json(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap())
            .collect();
        assert!(scenarios.len() >= 12);
        // And random walks through the explorer's moves.
        let mut rng = Rng::new(7);
        for p in Protocol::ALL {
            for (brokers, min_isr, unclean) in [(2, 1, false), (3, 2, false), (3, 1, true)] {
                let config = Config { brokers, min_insync_replicas: min_isr, unclean_leader_election: unclean, ..Config::for_protocol(p) };
                let search = Search { power_loss: true, network_faults: true, shutdowns: true, consume: true, max_produces: 3, acks: if brokers == 2 { Acks::One } else { Acks::All }, ..Search::new(config.clone()) };
                for _ in 0..30 {
                    let mut sim = Simulation::new(config.clone());
                    let mut steps = vec![];
                    let mut moves = vec![];
                    for _ in 0..12 {
                        actions(&sim, &search, &mut moves);
                        let step = rng.pick(&moves).unwrap().clone();
                        sim.apply(&step);
                        steps.push(step);
                    }
                    scenarios.push(Scenario { steps, ..Scenario::new(config.clone()) });
                }
            }
        }
        for scenario in &scenarios {
            for p in Protocol::ALL {
                let mut full = Simulation::new(scenario.config.with_protocol(p));
                let mut checked = full.clone();
                checked.keep_checked_events_only();
                for step in &scenario.steps {
                    same_but_the_trace(&mut full, &mut checked, step);
                }
            }
        }
    }

    /// With network faults the explorer cuts any live broker from the
    /// controller (KIP-841's fenced broker that still fetches), and heals it.
    #[test]
    fn network_faults_include_a_cut_to_the_controller() {
        let config = Config { brokers: 3, ..Config::for_protocol(Protocol::V3_7) };
        let search = Search { network_faults: true, ..Search::new(config.clone()) };
        let mut sim = Simulation::new(config.clone());
        let mut moves = vec![];
        actions(&sim, &search, &mut moves);
        let cuts: Vec<&Step> = moves.iter().filter(|m| matches!(m, Step::CutController(_))).collect();
        assert_eq!(cuts, [&Step::CutController(1), &Step::CutController(2), &Step::CutController(3)]);
        assert!(!moves.contains(&Step::Heal(crate::model::step::Heal::All)), "nothing to heal yet");
        sim.apply(&Step::CutController(2));
        actions(&sim, &search, &mut moves);
        assert!(!moves.contains(&Step::CutController(2)) && moves.contains(&Step::Heal(crate::model::step::Heal::All)));
        // Without network faults, none.
        actions(&sim, &Search::new(config), &mut moves);
        assert!(!moves.iter().any(|m| matches!(m, Step::CutController(_) | Step::Heal(_))));
    }
}

/// Seeded random walks of `search.depth` steps until a violation or
/// `max_states` steps in all.
fn random_walks(search: &Search, progress: Progress) -> Found {
    let (mut root, violation) = replay(search, &search.prefix);
    if violation.is_some() {
        return (Some(search.prefix.clone()), 1, 0, 0, None);
    }
    root.keep_checked_events_only();
    let moves = Moves::new(&search.config, search, root.producer.requests.len() + search.depth);
    let mut rng = Rng::new(search.seed);
    let mut taken = 0u64;
    let mut list = MoveList::new();
    while taken < search.max_states {
        let mut sim = root.clone();
        let mut path = search.prefix.clone();
        for _ in 0..search.depth {
            moves.list(&sim, search, &mut list);
            let step = moves.step(*rng.pick(&list).expect("a crash or a restart is always possible"));
            let seen = sim.violations.len();
            sim.apply(step);
            path.push(step.clone());
            taken += 1;
            if sim.violations[seen..].iter().any(|v| counts(v, search)) {
                return (Some(path), taken, taken, search.depth, None);
            }
            if !progress(taken, search.depth) {
                return (None, taken, taken, search.depth, Some(Stop::Interrupted));
            }
        }
    }
    (None, taken, taken, search.depth, Some(Stop::MaxStates))
}

/// Drops every step that is not needed for a violation of the same kind
/// (one at a time, until no single step can go).
pub fn minimise(search: &Search, mut steps: Vec<Step>) -> Vec<Step> {
    let Some(kind) = replay(search, &steps).1.map(|v| v.kind) else { return steps };
    let keep = search.prefix.len().min(steps.len());
    loop {
        let mut shrunk = false;
        let mut i = steps.len();
        while i > keep {
            i -= 1;
            let mut shorter = steps.clone();
            shorter.remove(i);
            if replay(search, &shorter).1.is_some_and(|v| v.kind == kind) {
                steps = shorter;
                shrunk = true;
            }
        }
        if !shrunk {
            return steps;
        }
    }
}
