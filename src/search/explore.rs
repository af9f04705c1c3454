//! The counterexample explorer: searches the scenario format's own steps for
//! a run that breaks a safety check, like a model checker, and hands back the
//! shortest one it finds as a replayable scenario, minimised.
//!
//! Two strategies: seeded random walks (fast, reproducible from the seed) and
//! an exhaustive search in breadth-first order (iterative deepening, so memory
//! stays at one path plus the visited set) with canonical state hashing, which
//! either proves there is no violation up to the depth or returns a shortest one.

use crate::model::config::{limits, BrokerId, Config};
use crate::model::event::ProduceResult;
use crate::model::violation::{Allowance, Violation};
use crate::model::producer::Status;
use crate::base::rng::Rng;
use crate::run::scenario::{Acks, Crash, Heal, Produce, Scenario, Step};
use crate::model::simulation::Simulation;
use crate::search::visited::{Visit, Visited};
use arrayvec::ArrayVec;
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
    /// States generated: every step applied, duplicates included, over every
    /// iteration of the deepening (TLC's "states generated").
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

/// Every step a search may take, built once, so that listing a state's
/// moves allocates nothing: a move is an index into `steps`.
struct Moves {
    steps: Vec<Step>,
    brokers: usize,
    /// Where each kind of step starts in `steps` (one per broker, or per
    /// ordered pair of brokers for cuts; produce steps are last, one per record).
    fetch: usize,
    crash: usize,
    power_loss: usize,
    restart: usize,
    elect: usize,
    advance: usize,
    cut: usize,
    cut_controller: usize,
    heal: usize,
    produce: usize,
}

type Move = u16;

/// At most 5 moves per broker and 4 more (see `Moves::list`).
const MOST_MOVES: usize = 5 * limits::MAX_BROKERS as usize + 4;

type MoveList = ArrayVec<Move, MOST_MOVES>;

impl Moves {
    /// `records`: produce steps for records 1 to `records` (as far as
    /// `max_produces` allows): a state reached by the search has produced
    /// at most what its prefix did plus one per step.
    fn new(config: &Config, search: &Search, records: usize) -> Moves {
        let ids: Vec<BrokerId> = config.broker_ids().collect();
        let per_broker = |f: &dyn Fn(BrokerId) -> Step| ids.iter().map(|&b| f(b)).collect::<Vec<Step>>();
        let records = records.min(search.max_produces as usize);
        let kinds: [Vec<Step>; 10] = [
            per_broker(&Step::Fetch),
            per_broker(&|b| Step::Crash(Crash { broker: b, lose_unflushed: 0 })),
            per_broker(&|b| Step::Crash(Crash { broker: b, lose_unflushed: 1 })),
            per_broker(&Step::Restart),
            vec![Step::Elect(None)],
            advances(config).into_iter().map(Step::AdvanceMs).collect(),
            ids.iter().flat_map(|&a| ids.iter().map(move |&b| Step::Cut([a, b]))).collect(),
            per_broker(&Step::CutController),
            vec![Step::Heal(Heal::All)],
            (1..=records).map(|k| Step::Produce(Produce { value: format!("m{k}"), acks: search.acks, to: None })).collect(),
        ];
        let mut starts = [0; 10];
        let mut steps = vec![];
        for (start, kind) in starts.iter_mut().zip(kinds) {
            *start = steps.len();
            steps.extend(kind);
        }
        let [fetch, crash, power_loss, restart, elect, advance, cut, cut_controller, heal, produce] = starts;
        assert!(steps.len() <= Move::MAX as usize, "too many produce steps for a move index");
        Moves { steps, brokers: ids.len(), fetch, crash, power_loss, restart, elect, advance, cut, cut_controller, heal, produce }
    }

    fn step(&self, m: Move) -> &Step {
        &self.steps[m as usize]
    }



    /// The moves of a state, in a fixed order (the random walks pick by
    /// position). Only a clock step can be invalid (past the scenario's
    /// hour); the others are valid by construction.
    fn list(&self, sim: &Simulation, search: &Search, out: &mut MoveList) {
        out.clear();
        let mut add = |at: usize, i: usize| out.push((at + i) as Move);
        let produced = sim.producer.requests.len();
        if produced < search.max_produces as usize && sim.controller.leader.is_some() {
            add(self.produce, produced);
        }
        for (i, b) in sim.brokers.iter().enumerate() {
            if b.following().is_some() {
                add(self.fetch, i);
            }
        }
        for (i, b) in sim.brokers.iter().enumerate() {
            if b.alive {
                add(self.crash, i);
                if search.power_loss && b.log_end_offset() > 0 {
                    add(self.power_loss, i);
                }
            } else {
                add(self.restart, i);
            }
        }
        if sim.controller.leader.is_some() {
            add(self.elect, 0);
        }
        // Only what `highwater run` accepts after the time already spent: an
        // advance past the scenario's hour is no move (`Step::validate`'s
        // check of a clock step, without building the step).
        for (i, ms) in advances(&sim.config).into_iter().enumerate() {
            if sim.now_ms.saturating_add(ms) <= limits::MAX_SIMULATED_MS {
                add(self.advance, i);
            }
        }
        if search.network_faults {
            if let Some(l) = sim.controller.leader {
                for f in sim.config.broker_ids().filter(|&f| f != l && !sim.network.cuts.contains(&(l, f))) {
                    add(self.cut, (l as usize - 1) * self.brokers + f as usize - 1);
                }
            }
            // KIP-841's cases: a broker that still fetches but has lost the
            // controller (its session expires, it is fenced).
            for (i, b) in sim.brokers.iter().enumerate() {
                if b.alive && sim.network.reaches_controller(b.id) {
                    add(self.cut_controller, i);
                }
            }
            if !sim.network.cuts.is_empty() || sim.network.controller_cut.iter().any(|&c| c) {
                add(self.heal, 0);
            }
        }
    }
}

/// The clock steps: past the session timeout, and past the lag time whatever
/// the phase of the lag/2 check.
fn advances(config: &Config) -> [u64; 2] {
    [config.broker_session_timeout_ms, config.replica_lag_time_max_ms * 3 / 2]
}

/// The simulated time left before the scenario's hour, as far as the search
/// can spend it. Near the hour a state with less time left has fewer moves
/// (no advance past the hour), so it is another state; with more than `depth`
/// of the longest advance left, time never runs out within the search.
fn time_left(sim: &Simulation, search: &Search) -> u64 {
    let most = advances(&sim.config).into_iter().max().unwrap_or(0).saturating_mul(search.depth as u64);
    limits::MAX_SIMULATED_MS.saturating_sub(sim.now_ms).min(most)
}

/// The visited set's key: the canonical state and the time it has left.
#[inline]
fn state_key(sim: &Simulation, search: &Search) -> u64 {
    let mut h = WordHasher::default();
    canonical_words(sim, &mut h);
    h.push(time_left(sim, search));
    h.finish()
}

/// A hash of everything that decides the future of a run in manual mode,
/// with times made relative to now and capped where only "past the timeout"
/// matters, so that equivalent states are visited once. (Timed mode is not
/// searched: its messages in flight and fetcher clocks are not hashed.)
pub fn canonical_hash(sim: &Simulation) -> u64 {
    let mut h = WordHasher::default();
    canonical_words(sim, &mut h);
    h.finish()
}

/// Writes the state `canonical_hash` hashes as words: full-width values one
/// to a word, small ones (flags, broker ids, lists of broker ids) packed.
/// The encoding is unambiguous, so different canonical states give
/// different words. An optional offset or time is written as 0 for none and
/// value + 1 for some (they stay far below `u64::MAX`).
#[inline]
fn canonical_words(sim: &Simulation, h: &mut WordHasher) {
    let now = sim.now_ms;
    let cap = sim.config.replica_lag_time_max_ms.max(sim.config.broker_session_timeout_ms).max(sim.config.request_timeout_ms) + 1;
    let age = |t: u64| now.saturating_sub(t).min(cap);
    let some = |o: Option<u64>| o.map_or(0, |x| x + 1);
    let id = |b: Option<BrokerId>| b.map_or(0, |b| b as u64);
    let flags = |bits: &[bool]| bits.iter().rev().fold(0u64, |w, &bit| w << 1 | bit as u64);
    // A list of at most 7 broker ids (1 to 7): its length, then 4 bits per id.
    let list = |ids: &[BrokerId]| ids.iter().fold(ids.len() as u64, |w, &b| w << 4 | b as u64);
    // The phase of the periodic ISR check and HW checkpoint decides what an advance does.
    h.push(sim.next_isr_check_ms - now);
    h.push(sim.next_checkpoint_ms - now);
    for b in &sim.brokers {
        let leads = b.is_leader();
        // The search never asks for a controlled shutdown, so a broker's
        // shutdown time is none in every state it visits: a flag says so.
        let shutting_down = b.shutdown_at_ms.is_some();
        let small = flags(&[b.alive, b.fetcher.needs_epoch_truncation, leads, b.starting, b.clean_shutdown, b.fetcher.stopped_for_shutdown, shutting_down]);
        h.push(small | id(b.leader) << 8 | (b.leader_epoch as u64) << 32);
        h.push(b.high_watermark);
        h.push(b.checkpointed_high_watermark);
        // The log end gives the number of records.
        h.push(b.log.log_end_offset());
        for r in b.log.records() {
            h.push(r.id);
            h.push(r.epoch as u64);
        }
        let epochs = b.log.epochs().entries();
        h.push(epochs.len() as u64);
        for e in epochs {
            h.push(e.epoch as u64);
            h.push(e.start_offset);
        }
        if leads {
            h.push(list(&b.isr));
            h.push(b.pending_isr.as_ref().map_or(0, |p| 1 << 32 | list(p)));
            h.push(b.epoch_start_offset);
            for r in &b.remote {
                let (leader_log_end_offset, fetched_ms) = r.last_fetch();
                h.push(some(r.log_end_offset));
                h.push(age(r.last_caught_up_ms));
                h.push(leader_log_end_offset);
                h.push(age(fetched_ms));
            }
        }
    }
    let c = &sim.controller;
    h.push(id(c.leader) | list(&c.isr) << 4 | flags(&c.fenced) << 36);
    h.push(c.leader_epoch as u64);
    // KIP-966's ELR and last known leader decide who may be elected.
    h.push(list(&c.elr) | id(c.last_known_leader) << 32);
    for &s in &c.silent_since_ms {
        h.push(some(s.map(age)));
    }
    h.push(sim.network.cuts.iter().fold(0u64, |w, &(a, b)| w | 1 << ((a - 1) * 8 + (b - 1))));
    h.push(flags(&sim.network.isolated) | flags(&sim.network.controller_cut) << 8 | flags(&c.shutting_down) << 16);
    h.push(sim.producer.requests.len() as u64);
    for r in &sim.producer.requests {
        let (status, retry_at) = match r.status {
            Status::Queued => (255, 0),
            Status::Pending => (0, 0),
            Status::Retrying { at_ms } => (1, at_ms),
            Status::Done(ProduceResult::Acked) => (2, 0),
            Status::Done(ProduceResult::Sent) => (3, 0),
            Status::Done(ProduceResult::Error(e)) => (4 + e as u64, 0),
        };
        let epoch = r.epoch.map_or(0, |e| e as u64 + 1);
        h.push(status | id(r.broker) << 8 | (r.acks as u64) << 12 | epoch << 16);
        h.push(retry_at);
        h.push(some(r.offset) | some(r.sent_in_epoch.map(u64::from)) << 40);
        h.push(r.deadline_ms.saturating_sub(now).min(cap));
    }
    // The clients' queues: their order is not in the statuses (a retry goes
    // back to the front).
    for id in sim.producer.queued() {
        h.push(id);
    }
    h.push(sim.consumer.position);
}

/// FxHash (rustc's hasher) over words, in four lanes: the words go round
/// robin into four independent multiply chains instead of one in which each
/// word waits for the multiply of the one before. `finish` chains the lanes
/// and applies MurmurHash3's finaliser, so that every bit of the result
/// depends on every lane (the visited set uses a key's low bits as they
/// are). Fast, deterministic, good enough for de-duplication.
#[derive(Default)]
struct WordHasher {
    lanes: [u64; 4],
}

impl WordHasher {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    #[inline]
    fn push(&mut self, w: u64) {
        let [a, b, c, d] = self.lanes;
        self.lanes = [b, c, d, (a.rotate_left(5) ^ w).wrapping_mul(Self::K)];
    }

    fn finish(&self) -> u64 {
        let mut x = self.lanes.iter().fold(0, |h: u64, &lane| (h.rotate_left(5) ^ lane).wrapping_mul(Self::K));
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}

fn counts(v: &Violation, search: &Search) -> bool {
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
fn replay(search: &Search, steps: &[Step]) -> (Simulation, Option<Violation>) {
    let mut sim = Simulation::new(search.config.clone());
    for step in steps {
        sim.apply(step);
        if let Some(v) = sim.violations.iter().find(|v| counts(v, search)).cloned() {
            return (sim, Some(v));
        }
    }
    (sim, None)
}

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
        Strategy::Bfs => exhaustive(search, progress),
        Strategy::Random => random_walks(search, progress),
    };
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
type Found = (Option<Vec<Step>>, u64, u64, usize, Option<Stop>);

/// Iterative deepening: depth-first searches bounded at 1, 2, … steps,
/// never expanding a state again unless reached with more steps left. Each
/// bound repeats the work of the ones before it, which only pays when the
/// search may stop early (a bound finished says "nothing up to that depth");
/// so once the bounds finished predict that the whole depth fits in half of
/// `max_states`, the search goes straight to it (`jump_to_depth`). If that
/// pass finds a violation, the bounds between are searched in order, so the
/// one returned is still a shortest one.
fn exhaustive(search: &Search, progress: Progress) -> Found {
    let (mut root, violation) = replay(search, &search.prefix);
    if violation.is_some() {
        return (Some(search.prefix.clone()), 1, 0, 0, None);
    }
    root.keep_checked_events_only();
    let moves = Moves::new(&search.config, search, root.producer.requests.len() + search.depth);
    // One spare state per level, reused branch after branch.
    let mut scratch = vec![root.clone(); search.depth];
    let mut run = |limit: usize, room: u64, progress: &mut dyn FnMut(u64, usize) -> bool| {
        let mut dfs = Dfs {
            search,
            moves: &moves,
            visited: Visited::with_capacity(room.min(search.max_states) as usize),
            path: vec![],
            states: 0,
            generated: 0,
            stopped: None,
            progress,
            limit,
        };
        let found = dfs.go(&mut root.clone(), &mut scratch, limit);
        let path = found.then(|| search.prefix.iter().cloned().chain(dfs.path.iter().map(|&m| moves.step(m).clone())).collect::<Vec<Step>>());
        (path, dfs.states, dfs.generated, dfs.stopped)
    };
    // States of each bound finished (`finished[k - 1]` for bound k).
    let mut finished: Vec<u64> = vec![];
    let (mut most, mut generated) = (0, 0);
    let mut limit = 1;
    while limit <= search.depth {
        let last = finished.last().copied().unwrap_or(0);
        let jump = limit < search.depth && jump_to_depth(&finished, search.depth, search.max_states);
        let bound = if jump { search.depth } else { limit };
        // Room for a few times the states of the bound before; the set grows
        // as it fills (sized for a prediction, it is sparser and slower).
        let (path, states, made, stopped) = run(bound, last * 4, &mut *progress);
        generated += made;
        most = most.max(states);
        if let Some(path) = path {
            // A violation `found` steps after the prefix; every bound below
            // `limit` was finished without one, so look in those between.
            let found = path.len() - search.prefix.len();
            for shorter in limit..found {
                let (p, states, made, stopped) = run(shorter, last * 4, &mut *progress);
                generated += made;
                most = most.max(states);
                if let Some(p) = p {
                    return (Some(p), most, generated, shorter, None);
                }
                if stopped.is_some() {
                    // A violation, but perhaps not a shortest one.
                    return (Some(path), most, generated, found, stopped);
                }
            }
            return (Some(path), most, generated, found, None);
        }
        if stopped.is_some() {
            return (None, most, generated, limit - 1, stopped);
        }
        if jump {
            return (None, most, generated, search.depth, None);
        }
        finished.push(states);
        limit += 1;
    }
    (None, most, generated, search.depth, None)
}

/// Whether the bounds finished so far (their distinct states, bound 1
/// first) predict that a search to `depth` ends within half of
/// `max_states`: the last bound's growth, compounded over the bounds left
/// (the growth falls from bound to bound as states repeat, so this
/// overestimates).
fn jump_to_depth(finished: &[u64], depth: usize, max_states: u64) -> bool {
    let [.., before, last] = *finished else { return false };
    if before == 0 {
        return false;
    }
    let growth = (last as f64 / before as f64).max(1.0);
    let predicted = last as f64 * growth.powi((depth - finished.len()) as i32);
    predicted * 2.0 <= max_states as f64
}

#[cfg(test)]
mod tests {
    use super::jump_to_depth;
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
                let search = Search { power_loss: true, network_faults: true, max_produces: 3, acks: if brokers == 2 { Acks::One } else { Acks::All }, ..Search::new(config.clone()) };
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

    #[test]
    fn jumps_when_the_growth_so_far_fits_the_depth_in_half_the_states() {
        // 69 then 409 states: growth 5.9, bound 8 predicted at 409 x 5.9^5, about 3.0 M.
        assert!(jump_to_depth(&[9, 69, 409], 8, 10_000_000));
        assert!(!jump_to_depth(&[9, 69, 409], 8, 5_000_000));
        // One bound says nothing about growth; a bound with no states neither.
        assert!(!jump_to_depth(&[9], 8, u64::MAX));
        assert!(!jump_to_depth(&[0, 5], 8, u64::MAX));
        // No growth: the depth costs what the last bound did.
        assert!(jump_to_depth(&[50, 50], 60, 100));
        assert!(!jump_to_depth(&[50, 50], 60, 99));
    }
}

struct Dfs<'a, 'p> {
    search: &'a Search,
    moves: &'a Moves,
    visited: Visited,
    path: Vec<Move>,
    states: u64,
    generated: u64,
    stopped: Option<Stop>,
    progress: &'p mut dyn FnMut(u64, usize) -> bool,
    limit: usize,
}

impl Dfs<'_, '_> {
    /// True when a violation was found (`path` leads to it). `sim` is the
    /// state to expand; the caller does not need it afterwards, so the last
    /// move is applied to it in place. Every other move is applied to a copy
    /// in `scratch[0]` (`clone_from` reuses its allocations, so the search
    /// allocates little per state); the deeper levels use the rest.
    fn go(&mut self, sim: &mut Simulation, scratch: &mut [Simulation], left: usize) -> bool {
        if left == 0 || self.stopped.is_some() {
            return false;
        }
        let mut moves = MoveList::new();
        self.moves.list(sim, self.search, &mut moves);
        if left == 1 {
            return self.leaves(sim, &mut scratch[0], &moves);
        }
        let last = moves.len().saturating_sub(1);
        for (i, &m) in moves.iter().enumerate() {
            let (next, deeper) = if i == last {
                (&mut *sim, &mut *scratch)
            } else {
                let (next, deeper) = scratch.split_first_mut().expect("one spare state per depth");
                next.clone_from(sim);
                (next, deeper)
            };
            let (key, violated) = self.child(next, m);
            match self.arrive(m, key, violated, left - 1) {
                Arrival::Violation => return true,
                Arrival::Expand if self.go(next, deeper, left - 1) => return true,
                _ => {}
            }
            self.path.pop();
            if self.stopped.is_some() {
                return false;
            }
        }
        false
    }

    /// The children of a state one step from the search's depth: they are
    /// counted and checked but not expanded, so only their keys are kept
    /// (each is made in the same spare state). The visited set's slots of
    /// all of them are read at once, so that their cache misses overlap
    /// instead of coming one after the other; then each is taken in order.
    fn leaves(&mut self, sim: &mut Simulation, spare: &mut Simulation, moves: &[Move]) -> bool {
        let mut children: ArrayVec<(u64, bool), MOST_MOVES> = ArrayVec::new();
        let last = moves.len().saturating_sub(1);
        for (i, &m) in moves.iter().enumerate() {
            let next = if i == last {
                &mut *sim
            } else {
                spare.clone_from(sim);
                &mut *spare
            };
            children.push(self.child(next, m));
        }
        for &(key, _) in &children {
            self.visited.touch(key);
        }
        for (&m, &(key, violated)) in moves.iter().zip(&children) {
            if self.arrive(m, key, violated, 0) == Arrival::Violation {
                return true;
            }
            self.path.pop();
            if self.stopped.is_some() {
                return false;
            }
        }
        false
    }

    /// Applies move `m` to a copy of the state being expanded: its key, and
    /// whether it broke a check that counts.
    #[inline]
    fn child(&self, next: &mut Simulation, m: Move) -> (u64, bool) {
        let seen = next.violations.len();
        next.apply_in_place(self.moves.step(m));
        next.accounting.out.clear(); // the next copy of this state need not copy its events
        let violated = next.violations[seen..].iter().any(|v| counts(v, self.search));
        (state_key(next, self.search), violated)
    }

    /// The search takes move `m` to a state with this key, reached with
    /// `left` steps left: counts it, and says what to do with it. Unless it
    /// broke a check (the path then leads to it), the caller pops `m` off the
    /// path when done with the state.
    #[inline]
    fn arrive(&mut self, m: Move, key: u64, violated: bool, left: usize) -> Arrival {
        self.generated += 1;
        self.path.push(m);
        if violated {
            return Arrival::Violation;
        }
        let arrival = match self.visited.visit(key, left as u8) {
            Visit::New => {
                self.states += 1;
                if self.states >= self.search.max_states {
                    self.stopped = Some(Stop::MaxStates);
                }
                Arrival::Expand
            }
            Visit::MoreLeft => Arrival::Expand,
            Visit::Seen => Arrival::Known,
        };
        if self.stopped.is_none() && !(self.progress)(self.states, self.limit) {
            self.stopped = Some(Stop::Interrupted);
        }
        arrival
    }
}

/// What the search does with a state it has just arrived at.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arrival {
    /// It broke a check that counts: the search is over.
    Violation,
    /// New, or reached with more steps left than before: expand it.
    Expand,
    /// Already expanded with as many steps left.
    Known,
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
