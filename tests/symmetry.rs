//! Symmetry reduction is sound: for a renaming of brokers and partitions
//! that maps the topic onto itself, the renamed steps of a run reach the
//! renamed state, word for word of the state key, with the same violations,
//! and the renamed state offers the renamed moves. So two states one
//! renaming apart have one future, and searching one of them is enough.
//! And a search with symmetry finds what one without finds, at the same
//! depth, in fewer states.

use highwater::model::step::{Nodes, Crash, Elect, Fetch, Heal, Produce};
use highwater::search::explore::{actions, explore, renamed_words, state_words, Renaming, Search, Symmetries};
use highwater::{Config, Protocol, Simulation, Step};

/// A step with its brokers and partitions renamed.
fn rename(step: &Step, r: &Renaming) -> Step {
    let b = |b| r.broker_id(b);
    match step {
        Step::Produce(p) => Step::Produce(Produce { partition: p.partition.map(|p| r.partition_id(p)), to: p.to.map(b), ..p.clone() }),
        Step::Fetch(f) => Step::Fetch(Fetch { broker: b(f.broker), from: f.from.map(b) }),
        Step::Crash(c) => match &c.nodes {
            Nodes::Broker(x) => Step::Crash(Crash { nodes: Nodes::Broker(b(*x)), lose_unflushed: c.lose_unflushed }),
            Nodes::Rack(_) | Nodes::Controller(_) => step.clone(),
        },
        Step::Restart(Nodes::Broker(x)) => Step::restart(b(*x)),
        Step::Elect(e) => Step::Elect(Elect { partition: r.partition_id(e.partition), broker: e.broker.map(b) }),
        Step::ElectPreferred(p) => Step::ElectPreferred(p.map(|p| r.partition_id(p))),
        Step::Cut([x, y]) => Step::Cut([b(*x), b(*y)]),
        Step::CutController(x) => Step::CutController(b(*x)),
        Step::ControlledShutdown(x) => Step::ControlledShutdown(b(*x)),
        Step::BeginControlledShutdown(x) => Step::BeginControlledShutdown(b(*x)),
        Step::Heal(Heal::All) | Step::AdvanceMs(_) | Step::Consume(None) => step.clone(),
        other => panic!("not one of the explorer's moves: {other:?}"),
    }
}

/// The topics with symmetries the tests walk, under each version preset's rules.
fn topics() -> Vec<(&'static str, Config)> {
    let mut out = vec![];
    for protocol in [Protocol::V0_10, Protocol::V2_1, Protocol::V3_7, Protocol::V4_1] {
        let rotated = Config {
            brokers: 3,
            partitions: 3,
            min_insync_replicas: 2,
            assignment: Some(vec![vec![1, 2, 3], vec![2, 3, 1], vec![3, 1, 2]].into()),
            ..Config::for_protocol(protocol)
        };
        out.push(("three partitions rotated over three brokers", rotated));
        let idle = Config { brokers: 5, replication_factor: Some(3), assignment: Some(vec![vec![1, 2, 3]].into()), ..Config::for_protocol(protocol) };
        out.push(("one partition on three of five brokers", idle));
        let pairs = Config { brokers: 4, partitions: 2, replication_factor: Some(2), assignment: Some(vec![vec![1, 2], vec![3, 4]].into()), ..Config::for_protocol(protocol) };
        out.push(("two partitions on two brokers each", pairs));
        let zones = Config {
            brokers: 4,
            partitions: 2,
            replication_factor: Some(2),
            racks: Some(["a", "a", "b", "b"].map(Into::into).into()),
            assignment: Some(vec![vec![1, 3], vec![2, 4]].into()),
            ..Config::for_protocol(protocol)
        };
        out.push(("two partitions across two racks", zones));
    }
    out
}

/// A tiny seeded generator (the walks are the same on every machine).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn the_renamed_steps_of_a_run_reach_the_renamed_state() {
    let mut checked = 0;
    for (name, config) in topics() {
        let symmetries = Symmetries::of(&config);
        assert!(symmetries.count() > 1, "{name}: a renaming besides the identity");
        // (With a rack's faults there is no renaming of brokers: see below.)
        let search = Search { power_loss: true, network_faults: true, shutdowns: true, consume: true, max_produces: 4, depth: 12, ..Search::new(config.clone()) };
        for (w, r) in symmetries.renamings.iter().enumerate() {
            for walk in 0..12 {
                let mut rng = Lcg(walk * 7919 + w as u64 + 1);
                let (mut sim, mut twin) = (Simulation::new(config.clone()), Simulation::new(config.clone()));
                let mut moves = vec![];
                for step_no in 0..12 {
                    actions(&sim, &search, &mut moves);
                    let mut theirs = vec![];
                    actions(&twin, &search, &mut theirs);
                    let mut renamed: Vec<String> = moves.iter().map(|m| rename(m, r).to_json()).collect();
                    let mut listed: Vec<String> = theirs.iter().map(Step::to_json).collect();
                    renamed.sort();
                    listed.sort();
                    assert_eq!(renamed, listed, "{name}, {:?}, step {step_no}: the renamed state offers the renamed moves", config.protocol);
                    let step = moves[rng.below(moves.len())].clone();
                    sim.apply(&step);
                    twin.apply(&rename(&step, r));
                    assert_eq!(renamed_words(&sim, r), state_words(&twin), "{name}, {:?}, walk {walk}: after {step:?} ({r:?})", config.protocol);
                    let kinds = |s: &Simulation| s.violations.iter().map(|v| (v.kind, r.partition_id(v.partition))).collect::<Vec<_>>();
                    let theirs: Vec<_> = twin.violations.iter().map(|v| (v.kind, v.partition)).collect();
                    assert_eq!(kinds(&sim), theirs, "{name}: the same violations, renamed");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked} steps");
}

/// With symmetry on, the search finds what it finds with it off (a
/// violation of the same kind at the same depth, or none to the same
/// depth), in fewer states, on 1 thread as on 2.
#[test]
fn symmetry_finds_what_it_finds_without_in_fewer_states() {
    for (name, config) in topics() {
        for (depth, faults) in [(6, false), (4, true)] {
            let case = Search { max_produces: 2, depth, max_states: 5_000_000, power_loss: faults, network_faults: faults, shutdowns: faults, ..Search::new(config.clone()) };
            let off = explore(&Search { symmetry: false, ..case.clone() }, &mut |_, _| true);
            let on = explore(&Search { symmetry: true, ..case.clone() }, &mut |_, _| true);
            let what = format!("{name}, {:?}, depth {depth}, faults {faults}: {} states off, {} on", config.protocol, off.states, on.states);
            assert!(off.complete && on.complete, "{what}");
            assert_eq!((on.found, on.depth, on.violation.as_ref().map(|v| v.kind)), (off.found, off.depth, off.violation.as_ref().map(|v| v.kind)), "{what}");
            assert!(on.symmetries > 1 && off.symmetries == 1, "{what}");
            if !on.found {
                assert!(on.states < off.states, "{what}");
            }
            let two = explore(&Search { threads: 2, ..case }, &mut |_, _| true);
            assert_eq!((two.states, two.scenario.as_ref().map(|s| &s.steps)), (on.states, on.scenario.as_ref().map(|s| &s.steps)), "{what}: 2 threads");
        }
    }
}

/// A rack's crash takes its brokers down one after the other in id order,
/// and the order decides: crashing rack b (brokers 3 and 4) and crashing its
/// renaming (4 before 3) leave different states. So a search with a rack's
/// faults renames no broker, and still finds what it finds without symmetry.
#[test]
fn a_racks_faults_rename_no_broker() {
    let zones = topics().into_iter().find(|(name, c)| *name == "two partitions across two racks" && c.protocol == Protocol::V3_7).expect("the topic").1;
    let swap = Symmetries::of(&zones).renamings.into_iter().find(|r| r.broker_id(3) == 4).expect("a renaming within rack b");
    let crash_b = Step::Crash(Crash { nodes: Nodes::Rack("b".into()), lose_unflushed: 0 });
    let (mut sim, mut twin) = (Simulation::new(zones.clone()), Simulation::new(zones.clone()));
    sim.apply(&crash_b);
    twin.apply(&crash_b);
    assert_ne!(renamed_words(&sim, &swap), state_words(&twin), "the rack's crash is not its renaming's");
    assert_eq!(Symmetries::of(&zones).keeping_brokers().count(), 1);
    let case = Search { rack_faults: true, power_loss: true, max_produces: 1, depth: 4, ..Search::new(zones) };
    let on = explore(&case, &mut |_, _| true);
    let off = explore(&Search { symmetry: false, ..case }, &mut |_, _| true);
    assert_eq!((on.symmetries, on.states, on.found), (1, off.states, off.found));
}
