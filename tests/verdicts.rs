//! Which losses Kafka's contract allows, and by which setting
//! (`Violation::allowed_by`): acks=1 promises only the leader's append, and
//! `unclean.leader.election.enable` lets a replica outside the ISR lead
//! without the records it lacks (Kafka's design docs, "Unclean leader
//! election"). Every other broken check is a protocol violation.

mod common;

use common::{load, run, with_protocol};
use highwater::base::rng::Rng;
use highwater::model::event::ElectionKind;
use highwater::model::violation::Allowance;
use highwater::run::scenario::Produce;
use highwater::search::explore::{actions, Search};
use highwater::{Acks, Config, Event, Protocol, Scenario, Simulation, Step, ViolationKind};

/// The unclean election's leader never had m2, which broker 1 alone
/// acknowledged with acks=all: the setting allowed the loss.
#[test]
fn an_acks_all_loss_after_an_enabled_unclean_election_is_allowed_by_it() {
    let r = run(&load("unclean-election-loss"));
    assert!(r.events.iter().any(|e| matches!(e.event, Event::LeaderElected { kind: ElectionKind::Unclean, leader: 2, .. })));
    let [v] = &r.sim.violations[..] else { panic!("{:?}", r.sim.violations) };
    assert_eq!((v.kind, v.acks, v.value.as_deref(), v.step), (ViolationKind::AckedWriteLost, Some(Acks::All), Some("m2"), 9));
    assert_eq!((v.allowed_by, v.protocol_violation), (Some(Allowance::UncleanLeaderElection), false));
    assert!(v.detail.contains("through an unclean election") && v.detail.ends_with("allowed by Kafka's contract."), "{}", v.detail);
    assert!(!v.detail.contains("acks=all promised"), "{}", v.detail);
}

/// The same steps with unclean election off: the controller elects no one,
/// and nothing acknowledged is lost.
#[test]
fn the_same_run_without_unclean_election_loses_nothing() {
    let mut s = load("unclean-election-loss");
    s.config.unclean_leader_election = false;
    let r = run(&s);
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
    assert_eq!(r.sim.controller.partition(0).leader, None, "offline");
    assert!(!r.events.iter().any(|e| matches!(e.event, Event::LeaderElected { kind: ElectionKind::Unclean, .. })));
}

/// 0.10 has unclean election on by default: the setting allowed it all the same.
#[test]
fn the_0_10_default_counts_as_the_setting() {
    let mut s = load("unclean-election-loss");
    s.config = Config { unclean_leader_election: false, ..s.config };
    let s = with_protocol(Scenario { config: Config { protocol: Protocol::V3_7, ..s.config }, ..s }, Protocol::V0_10);
    assert!(s.config.unclean_leader_election, "0.10's default");
    let r = run(&s);
    // 0.10 also loses m1: broker 2 restarts truncated to its checkpointed
    // HW 0 (pre-KIP-101), so the replica elected lacks it too.
    let lost: Vec<_> = r.violations(ViolationKind::AckedWriteLost).iter().map(|v| (v.value.as_deref().unwrap(), v.allowed_by)).collect();
    let unclean = Some(Allowance::UncleanLeaderElection);
    assert_eq!(lost, [("m1", unclean), ("m2", unclean)]);
}

/// An acks=1 record lost through the unclean election: the election
/// explains it (acks=all would have lost it too), so the setting named is
/// unclean election's.
#[test]
fn an_acks_one_record_lost_to_an_unclean_election_names_the_election() {
    let mut s = load("unclean-election-loss");
    for step in &mut s.steps {
        if let Step::Produce(p) = step {
            if p.value == "m2" {
                p.acks = Acks::One;
            }
        }
    }
    let r = run(&s);
    let v = &r.violations(ViolationKind::AckedWriteLost)[0];
    assert_eq!((v.acks, v.allowed_by), (Some(Acks::One), Some(Allowance::UncleanLeaderElection)));
}

/// acks=1 lost on a clean failover: allowed by acks=1.
#[test]
fn an_acks_one_loss_is_allowed_by_acks_one() {
    let r = run(&load("acks1-loss-after-failover"));
    let [v] = &r.sim.violations[..] else { panic!("{:?}", r.sim.violations) };
    assert_eq!((v.kind, v.acks), (ViolationKind::AckedWriteLost, Some(Acks::One)));
    assert_eq!((v.allowed_by, v.protocol_violation), (Some(Allowance::AcksOne), false));
    assert!(v.detail.contains("acks=1 waits only for the leader's own append"), "{}", v.detail);
}

/// KIP-101's loss: truncation to the HW, a clean election, no unclean
/// election anywhere: a protocol violation, under 0.10 with its unclean
/// default on too.
#[test]
fn the_kip101_loss_stays_a_protocol_violation() {
    for unclean in [false, true] {
        let mut s = load("kip101-loss-after-restart");
        s.config.unclean_leader_election = unclean;
        let r = run(&s);
        assert!(!r.events.iter().any(|e| matches!(e.event, Event::LeaderElected { kind: ElectionKind::Unclean, .. })));
        let v = &r.violations(ViolationKind::AckedWriteLost)[0];
        assert_eq!((v.value.as_deref(), v.step), (Some("m2"), 17));
        assert_eq!((v.allowed_by, v.protocol_violation), (None, true), "unclean {unclean}");
        assert!(v.detail.ends_with("this is data loss."), "{}", v.detail);
    }
}

/// A record acknowledged after the unclean election, by the new leader, is
/// not the election's loss: when a later failure loses it, that is judged
/// on its own (here acks=1's: the leader dies before the follower, back in
/// the ISR, fetched it, and the follower is elected cleanly).
#[test]
fn a_record_acknowledged_after_the_unclean_election_is_not_its_loss() {
    let mut s = load("unclean-election-loss");
    s.steps.truncate(9);
    s.steps.extend([
        Step::Produce(Produce { value: "m3".into(), acks: Acks::One, to: None, partition: None, key: None }),
        Step::restart(1),
        Step::AdvanceMs(9_000),
        Step::fetch(1),
        Step::fetch(1),
        Step::fetch(1),
        Step::Produce(Produce { value: "m4".into(), acks: Acks::One, to: None, partition: None, key: None }),
        Step::Crash(highwater::run::scenario::Crash::broker(2, 0)),
        Step::AdvanceMs(9_000),
    ]);
    let r = run(&s);
    let lost: Vec<_> = r.sim.violations.iter().map(|v| (v.value.as_deref().unwrap_or(""), v.allowed_by)).collect();
    assert_eq!(lost, [("m2", Some(Allowance::UncleanLeaderElection)), ("m4", Some(Allowance::AcksOne))], "{:#?}", r.sim.violations);
}

/// Random runs under every version with unclean election on: every
/// verdict follows the rule. A loss allowed by the unclean election comes
/// after an unclean election, of a record acknowledged (or read) no later
/// than it; divergence and HW checks are never allowed; an acks=all loss
/// with no unclean election before it is a protocol violation.
#[test]
fn every_verdict_of_random_runs_follows_the_rule() {
    let mut allowed = 0;
    for p in Protocol::ALL {
        for seed in 0..60u64 {
            let config = Config { brokers: 3, unclean_leader_election: true, ..Config::for_protocol(p) };
            let search = Search { acks: if seed % 3 == 0 { Acks::One } else { Acks::All }, power_loss: seed % 2 == 0, ..Search::new(config.clone()) };
            let mut sim = Simulation::new(config);
            let mut rng = Rng::new(seed);
            let mut events = vec![];
            let mut moves = vec![];
            for _ in 0..24 {
                actions(&sim, &search, &mut moves);
                let Some(step) = rng.pick(&moves).cloned() else { break };
                events.extend(sim.apply(&step));
            }
            let unclean_steps: Vec<u64> = events
                .iter()
                .filter(|e| matches!(e.event, Event::LeaderElected { kind: ElectionKind::Unclean, .. }))
                .map(|e| e.step)
                .collect();
            for v in &sim.violations {
                assert_eq!(v.protocol_violation, v.allowed_by.is_none(), "{v:?}");
                match (v.kind, v.allowed_by) {
                    (ViolationKind::CommittedDivergence | ViolationKind::HwExceedsLeo, a) => assert_eq!(a, None, "{p} {seed}: {v:?}"),
                    (_, Some(Allowance::UncleanLeaderElection)) => {
                        allowed += 1;
                        let election = *unclean_steps.iter().filter(|&&s| s <= v.step).max().unwrap_or_else(|| panic!("{p} {seed}: no unclean election before {v:?}"));
                        let value = v.value.as_deref().unwrap();
                        let acked_or_read = events.iter().find(|e| match &e.event {
                            Event::ProduceResponse { value: x, result: highwater::model::event::ProduceResult::Acked, .. } => &**x == value,
                            Event::Consumed { values, .. } => values.iter().any(|x| &**x == value),
                            _ => false,
                        });
                        let at = acked_or_read.unwrap_or_else(|| panic!("{p} {seed}: {value} never acknowledged")).step;
                        assert!(unclean_steps.iter().any(|&s| at <= s && s <= v.step), "{p} {seed}: acked at {at}, elections {unclean_steps:?}, lost at {} (last {election})", v.step);
                    }
                    (ViolationKind::AckedWriteLost, None) => {
                        assert_eq!(v.acks, Some(Acks::All), "{p} {seed}: {v:?}");
                    }
                    (ViolationKind::AckedWriteLost, Some(Allowance::AcksOne)) => assert_eq!(v.acks, Some(Acks::One)),
                    _ => {}
                }
            }
        }
    }
    assert!(allowed > 0, "the walks reached no loss an unclean election allows");
}
