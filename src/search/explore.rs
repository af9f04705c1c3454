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
use crate::model::simulation::Simulation;
use crate::model::violation::Violation;
use crate::run::scenario::{Scenario, Step};
use crate::search::breadth_first;
use crate::search::moves::{self, MoveList, Moves};
use crate::search::spec::{counts, replay, Found};
use serde::Serialize;

pub use crate::search::spec::{Goal, Progress, Search, Stop, Strategy, MAX_THREADS};
pub use crate::search::state_key::{canonical_hash, renamed_words, state_words};
pub use crate::search::symmetry::{Renaming, Symmetries};

/// What a search found, and how far it went.
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
    /// The renamings of brokers and partitions the state key took, the
    /// identity included (1: symmetry off, or none but the identity).
    pub symmetries: usize,
}


/// The steps the explorer may choose from in a state (bounded: values are
/// numbered, at most `max_produces` records, one lost record per power loss).
pub fn actions(sim: &Simulation, search: &Search, out: &mut Vec<Step>) {
    let moves = Moves::new(&sim.config, search, sim.producer.requests.len() + search.depth);
    let mut list = MoveList::new();
    moves.list(sim, search, &mut list);
    out.clear();
    out.extend(list.iter().map(|&m| moves.step(m).clone()));
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
    let symmetries = if search.strategy == Strategy::Bfs { moves::symmetries(&search.config, search).count() } else { 1 };
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
            Outcome { found: violation.is_some(), violation, scenario: Some(scenario), states, generated, depth, complete, stopped, symmetries }
        }
        None => Outcome { found: false, violation: None, scenario: None, states, generated, depth, complete, stopped, symmetries },
    }
}


#[cfg(test)]
mod tests {
    use crate::model::event::Traced;
    use crate::model::invariants::Checker;
    use crate::base::rng::Rng;
    use crate::model::config::{Config, Protocol};
    use crate::model::simulation::Simulation;
    use crate::model::step::{Acks, Crash, Nodes, Step};
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
        let mut scenarios: Vec<Scenario> =
            crate::run::scenario::example_files().iter().map(|path| Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()).collect();
        assert!(scenarios.len() >= 12);
        // And random walks through the explorer's moves.
        let mut rng = Rng::new(7);
        for p in Protocol::ALL {
            for (brokers, min_isr, unclean) in [(2, 1, false), (3, 2, false), (3, 1, true)] {
                let config = Config { brokers, min_insync_replicas: min_isr, unclean_leader_election: unclean, ..Config::for_protocol(p) };
                let search = Search { power_loss: true, network_faults: true, shutdowns: true, consume: true, max_produces: 3, acks: if brokers == 2 { Acks::One } else { Acks::All }, ..Search::new(config.clone()) };
                for _ in 0..30 {
                    scenarios.push(Scenario { steps: random_walk(&config, &search, &mut rng, 12), ..Scenario::new(config.clone()) });
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

    /// Refused retries are counted, not run one by one, up to the next
    /// moment something may change (`skip_identical_retries`): the states
    /// are those of running every retry, over random walks of the
    /// explorer's moves under every version, with and without faults.
    #[test]
    fn skipped_retries_reach_the_states_of_retries_one_by_one() {
        use crate::model::clients::producer::tests::ONE_BY_ONE;
        fn state(s: &Simulation) -> impl PartialEq + '_ {
            (s.now_ms, &s.producer, &s.partitions, &s.controller, &s.violations)
        }
        let mut rng = Rng::new(11);
        for p in Protocol::ALL {
            for (brokers, min_isr, faults) in [(3, 2, false), (3, 2, true), (2, 1, true)] {
                let config = Config { brokers, min_insync_replicas: min_isr, ..Config::for_protocol(p) };
                let search = Search { power_loss: faults, network_faults: faults, shutdowns: faults, max_produces: 3, ..Search::new(config.clone()) };
                for _ in 0..300 {
                    let steps = random_walk(&config, &search, &mut rng, 16);
                    let (mut skipped, mut one_by_one) = (Simulation::new(config.clone()), Simulation::new(config.clone()));
                    for (i, step) in steps.iter().enumerate() {
                        skipped.apply(step);
                        ONE_BY_ONE.set(true);
                        one_by_one.apply(step);
                        ONE_BY_ONE.set(false);
                        assert!(state(&skipped) == state(&one_by_one), "{p:?}: {:?}\n{:?}\n{:?}", &steps[..=i], skipped.producer.requests, one_by_one.producer.requests);
                    }
                }
            }
        }
    }

    /// `len` steps picked at random from the explorer's moves, each from the
    /// state the steps before reach.
    fn random_walk(config: &Config, search: &Search, rng: &mut Rng, len: usize) -> Vec<Step> {
        let mut sim = Simulation::new(config.clone());
        let mut moves = vec![];
        (0..len)
            .map(|_| {
                actions(&sim, search, &mut moves);
                let step = rng.pick(&moves).unwrap().clone();
                sim.apply(&step);
                step
            })
            .collect()
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

    /// A zone that loses power takes every replica in it at once. With racks
    /// a, b, b the ISR shrinks to [2, 3], all of it in rack b, and an
    /// acknowledged record neither broker flushed is gone: in 7 steps with a
    /// rack's faults (one move takes the rack down), in 8 without (a broker
    /// at a time).
    #[test]
    fn a_racks_power_loss_is_one_move() {
        let config = Config { brokers: 3, min_insync_replicas: 2, racks: Some(["a", "b", "b"].map(Into::into).into()), ..Config::for_protocol(Protocol::V3_7) };
        let case = |depth, rack_faults| Search { depth, rack_faults, power_loss: true, max_produces: 2, max_states: 5_000_000, ..Search::new(config.clone()) };
        let with = super::explore(&case(7, true), &mut |_, _| true);
        assert!(with.found, "found with a rack's faults");
        let steps = &with.scenario.as_ref().expect("a run").steps;
        assert!(steps.contains(&Step::Crash(Crash { nodes: Nodes::Rack("b".into()), lose_unflushed: 1 })), "{steps:?}");
        let without = super::explore(&case(7, false), &mut |_, _| true);
        assert!(!without.found && without.complete, "nothing in 7 steps a broker at a time");
        assert!(super::explore(&case(8, false), &mut |_, _| true).found, "and the same loss in 8");
        assert_eq!(super::explore(&case(7, true), &mut |_, _| true).states, with.states, "the same count again");
    }

    /// A rack's faults: a crash and (with power loss, once a broker of it
    /// holds a record) a power loss of each rack while a broker of it runs,
    /// an isolation of each rack until it is cut off, then a heal; none
    /// without racks or without the flag.
    #[test]
    fn rack_faults_crash_and_cut_off_each_rack() {
        let config = Config { brokers: 3, racks: Some(["a", "b", "b"].map(Into::into).into()), ..Config::for_protocol(Protocol::V3_7) };
        let search = Search { rack_faults: true, power_loss: true, ..Search::new(config.clone()) };
        let rack = |r: &str| Nodes::Rack(r.into());
        let rack_moves = |sim: &Simulation, search: &Search| {
            let mut moves = vec![];
            actions(sim, search, &mut moves);
            moves.retain(|m| matches!(m, Step::Crash(Crash { nodes: Nodes::Rack(_), .. }) | Step::Isolate(_) | Step::Heal(_)));
            moves
        };
        let crash = |r: &str, lose_unflushed| Step::Crash(Crash { nodes: rack(r), lose_unflushed });
        let mut sim = Simulation::new(config.clone());
        assert_eq!(rack_moves(&sim, &search), [crash("a", 0), Step::Isolate(rack("a")), crash("b", 0), Step::Isolate(rack("b"))]);
        sim.apply(&Step::Produce(crate::model::step::Produce { value: "m1".into(), acks: Acks::All, to: None, partition: None, key: None }));
        sim.apply(&Step::Isolate(rack("b")));
        sim.apply(&Step::Crash(Crash::broker(1, 0)));
        // Rack a's one broker is down, and rack b is cut off; isolating a
        // cuts it from the controller still.
        assert_eq!(rack_moves(&sim, &search), [Step::Isolate(rack("a")), crash("b", 0), crash("b", 1), Step::Heal(crate::model::step::Heal::All)]);
        sim.apply(&Step::Isolate(rack("a")));
        assert!(!rack_moves(&sim, &search).contains(&Step::Isolate(rack("a"))), "rack a is cut off");
        assert!(rack_moves(&sim, &Search { rack_faults: false, ..search.clone() }).iter().all(|m| !matches!(m, Step::Crash(_) | Step::Isolate(_))));
        let no_racks = Search { rack_faults: true, ..Search::new(Config { racks: None, ..config }) };
        assert_eq!(no_racks.validate(), Err("rack_faults: the brokers have no racks (config.racks)".into()));
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
