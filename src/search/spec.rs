//! What a search is asked: the cluster and its faults, the bounds, what
//! counts as found, and how it reports; shared by the explorer's strategies
//! (`explore`, `breadth_first`) and its moves and keys.

use crate::model::config::{limits, Config};
use crate::model::simulation::Simulation;
use crate::model::violation::{Allowance, Violation};
use crate::run::scenario::{Acks, Scenario, Step};
use serde::Serialize;

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
    /// Allow a rack's faults, where the brokers have racks (`broker.rack`):
    /// every broker of a rack crashing at once (losing power too with
    /// `power_loss`), a rack cut off from the others and the controller
    /// (`isolate`), and `heal`.
    pub rack_faults: bool,
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
    /// Symmetry reduction (`symmetry`): a state whose renaming of brokers
    /// and partitions, one that maps the topic onto itself, was searched is
    /// not searched again. The answer is the same; the states fewer.
    pub symmetry: bool,
    /// The quorum's Raft commit rule (the leader's HW only past its epoch's
    /// start). Always on in Kafka; a test turns it off to show the search
    /// finds what its absence allows.
    #[doc(hidden)]
    pub quorum_commit_rule: bool,
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
            rack_faults: false,
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
            symmetry: true,
            quorum_commit_rule: true,
        }
    }
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
    if let Some(q) = sim.quorum.as_deref_mut() {
        q.rules.commit_only_past_epoch_start = search.quorum_commit_rule;
    }
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
        if self.rack_faults && self.config.racks.is_none() {
            return Err("rack_faults: the brokers have no racks (config.racks)".into());
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


/// (path to a violation, distinct states, states generated, depth, why it stopped early).
pub(crate) type Found = (Option<Vec<Step>>, u64, u64, usize, Option<Stop>);
