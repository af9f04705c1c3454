//! Kafka's behaviour by version, one test per rule that changed, and the
//! regression cases of a review of the model against Kafka's code (the
//! numbers in the comments are that review's findings).

mod common;

use common::{load, run, with_protocol};
use highwater::model::event::Event;
use highwater::run::scenario::{Nodes, Crash, Produce};
use highwater::{Acks, Config, Protocol, Scenario, Simulation, Step, ViolationKind};

fn produce(value: &str, acks: Acks) -> Step {
    Step::Produce(Produce { value: value.into(), acks, to: None, partition: None, key: None })
}

fn scenario(config: Config, steps: Vec<Step>) -> Scenario {
    let mut s = Scenario::new(config);
    s.steps = steps;
    s
}

fn count(r: &common::Run, pred: impl Fn(&Event) -> bool) -> usize {
    r.events.iter().filter(|e| pred(&e.event)).count()
}

/// Finding 1: A broker that restarts inside its session cannot register: it serves
/// nothing until the old session expires, is fenced and replaced, then
/// registers as a new incarnation. The review's false counterexample (2
/// brokers, min ISR 2, acks=all, one leader power loss and a fast restart)
/// loses nothing under any version.
#[test]
fn a_fast_restart_waits_for_the_old_session_to_expire() {
    for p in Protocol::ALL {
        let config = Config { brokers: 2, min_insync_replicas: 2, ..Config::for_protocol(p) };
        let session = config.broker_session_timeout_ms;
        let steps = vec![
            produce("m1", Acks::All),
            Step::fetch(2),
            Step::fetch(2),
            Step::Crash(Crash::broker(1, 1)),
            Step::restart(1),
        ];
        let mut r = run(&scenario(config, steps));
        assert!(r.sim.broker(1).starting && !r.sim.broker(1).alive, "{p}: restarted, not registered");
        let refused = r.events.iter().find_map(|e| match e.event {
            Event::RegistrationRefused { broker: 1, session_expires_ms } => Some(session_expires_ms),
            _ => None,
        });
        assert_eq!(refused, Some(Some(session)), "{p}: refused until the session expires");
        assert_eq!(r.sim.controller.partition(0).leader, Some(1), "{p}: nothing noticed yet");
        let events = r.sim.apply(&Step::AdvanceMs(session));
        r.events.extend(events);
        assert_eq!(r.sim.controller.partition(0).leader, Some(2), "{p}: broker 2 replaced the dead leader");
        assert!(r.sim.controller.partition(0).leader_epoch >= 1);
        let b1 = r.sim.broker(1);
        assert!(b1.alive && !b1.starting && r.sim.replica(0, 1).leader == Some(2), "{p}: registered and following broker 2");
        assert!(r.sim.violations.is_empty(), "{p}: {:?}\n{}", r.sim.violations, r.trace());
        assert_eq!(r.sim.replica(0, 2).log.get(0).map(|r| &*r.value), Some("m1"), "{p}: the acknowledged m1 survives");
    }
}

/// Finding 3: The producer retries a retriable error, and with idempotence (3.0+)
/// a retry never writes twice: in `timed-failover` the application is told
/// m2 succeeded. Without retries (before 2.1) it gets the first error.
#[test]
fn producer_results_are_what_the_application_sees() {
    let s = load("timed-failover");
    let r = run(&s);
    let m2 = &r.sim.producer.requests[1];
    assert_eq!(highwater::view::state::result_name(m2.status), "acked");
    assert_eq!(m2.attempts, 2);
    assert_eq!(count(&r, |e| matches!(e, Event::DuplicateProduce { .. })), 1);
    let old = run(&with_protocol(s, Protocol::V2_0));
    assert_eq!(highwater::view::state::result_name(old.sim.producer.requests[1].status), "NETWORK_EXCEPTION");
}

/// Finding 3: Without idempotence a retry after a lost answer writes the record a
/// second time; with it, the leader recognises the retry (KIP-98).
#[test]
fn a_retry_duplicates_only_without_idempotence() {
    let steps = vec![
        produce("m1", Acks::All),
        Step::fetch(2),
        Step::Crash(Crash::broker(1, 0)),
        Step::AdvanceMs(20_000),
        Step::fetch(3),
        Step::fetch(3),
    ];
    let values = |p: Protocol, idempotent: bool| {
        let config = Config { enable_idempotence: idempotent, ..Config::for_protocol(p) };
        let r = run(&scenario(config, steps.clone()));
        let leader = r.sim.replica(0, r.sim.controller.partition(0).leader.unwrap());
        let log: Vec<String> = leader.log.iter_from(0).map(|r| r.value.to_string()).collect();
        (log, highwater::view::state::result_name(r.sim.producer.requests[0].status))
    };
    assert_eq!(values(Protocol::V2_8, false), (vec!["m1".to_string(), "m1".to_string()], "acked"), "2.8: duplicated");
    assert_eq!(values(Protocol::V3_7, true), (vec!["m1".to_string()], "acked"), "3.7: written once");
    assert!(!Config::for_protocol(Protocol::V2_8).enable_idempotence);
    assert!(Config::for_protocol(Protocol::V3_5).enable_idempotence);
}

/// Finding 4: On DivergingEpoch, 2.8 takes the response's HW before truncating;
/// since 3.5 (KAFKA-14704) the follower truncates first and leaves the HW.
#[test]
fn diverging_response_high_watermark_by_version() {
    let s = load("isolated-old-leader");
    let step = |p: Protocol| {
        let r = run(&with_protocol(s.clone(), p));
        let diverging = r.events.iter().find(|e| matches!(e.event, Event::Truncated { truncation: highwater::model::event::Truncation::DivergingEpoch { .. }, .. })).unwrap().step;
        r.events.iter().filter(|e| e.step == diverging).map(|e| e.event.clone()).collect::<Vec<_>>()
    };
    let hw_from_response = |events: &[Event]| {
        events.iter().any(|e| matches!(e, Event::HighWatermarkChanged { cause: highwater::model::event::HighWatermarkCause::FetchResponse { .. }, .. }))
    };
    assert!(hw_from_response(&step(Protocol::V2_8)), "2.8 applies the HW of a diverging response");
    assert!(!hw_from_response(&step(Protocol::V3_5)), "3.5 does not");
    assert!(!hw_from_response(&step(Protocol::V3_7)));
}

/// Finding 6: A response that carries records holds the HW from before the fetch
/// that carried them (`Partition.fetchRecords` reads first); an empty fetch
/// is answered with the HW as it is then.
#[test]
fn a_response_with_records_carries_the_high_watermark_read_before_the_fetch() {
    for p in Protocol::ALL {
        let config = Config { brokers: 2, ..Config::for_protocol(p) };
        let mut sim = Simulation::new(config);
        for step in [produce("m1", Acks::One), Step::fetch(2), produce("m2", Acks::One)] {
            sim.apply(&step);
        }
        sim.apply(&Step::fetch(2));
        assert_eq!(sim.replica(0, 1).high_watermark, 1, "{p}: the fetch at offset 1 moved the leader's HW");
        assert_eq!(sim.replica(0, 2).high_watermark, 0, "{p}: but its response, carrying m2, held HW 0");
        sim.apply(&Step::fetch(2));
        assert_eq!(sim.replica(0, 2).high_watermark, 2, "{p}: the empty fetch brings HW 2");
    }
}

/// Finding 7: Defaults by version, and aliases.
#[test]
fn each_preset_has_its_versions_defaults() {
    let c = |p| Config::for_protocol(p);
    let d = |p| (c(p).unclean_leader_election, c(p).broker_session_timeout_ms, c(p).replica_lag_time_max_ms, c(p).retries);
    assert_eq!(d(Protocol::V0_10), (true, 6_000, 10_000, 0));
    assert_eq!(d(Protocol::V0_11), (false, 6_000, 10_000, 0));
    assert_eq!(d(Protocol::V2_1), (false, 6_000, 10_000, i32::MAX as u32));
    assert_eq!(d(Protocol::V2_8), (false, 18_000, 30_000, i32::MAX as u32));
    assert_eq!(d(Protocol::V3_5), (false, 9_000, 30_000, i32::MAX as u32));
    for (alias, preset) in Protocol::ALIASES {
        let a = Scenario::from_json(&format!(r#"{{"version":1,"config":{{"protocol":"{alias}"}}}}"#)).unwrap();
        let b = Scenario::from_json(&format!(r#"{{"version":1,"config":{{"protocol":"{}"}}}}"#, preset.name())).unwrap();
        assert_eq!(a, b, "{alias} is exactly {preset}");
        assert_eq!(a.config, Config::for_protocol(preset));
    }
    let e = Scenario::from_json(r#"{"version":1,"config":{"protocol":"3.6"}}"#).unwrap_err().0;
    assert!(e.starts_with("config.protocol:") && e.contains("\"4.1\""), "{e}");
    // A setting written in the file wins over the version's default.
    let s = Scenario::from_json(r#"{"version":1,"config":{"protocol":"0.10","unclean_leader_election":false}}"#).unwrap();
    assert!(!s.config.unclean_leader_election && s.config.broker_session_timeout_ms == 6_000);
    // Switching version: settings at the old default follow, others stay.
    let switched = Config { replica_lag_time_max_ms: 12_345, ..c(Protocol::V3_7) }.with_protocol(Protocol::V0_10);
    assert!(switched.unclean_leader_election && switched.broker_session_timeout_ms == 6_000 && switched.replica_lag_time_max_ms == 12_345);
}

/// Finding 7: The leader epoch moves on an ISR shrink where the version did: the
/// ZooKeeper controller when it drops a dead replica (0.10 - 2.8), KRaft
/// before metadata 3.6 on every shrink (3.5), never since (3.7).
#[test]
fn leader_epoch_bumps_on_isr_shrink_by_version() {
    let s = load("isr-shrink-and-expand"); // a leader-side shrink
    let bumps = |p: Protocol| count(&run(&with_protocol(s.clone(), p)), |e| matches!(e, Event::LeaderEpochBumped { .. }));
    assert_eq!(bumps(Protocol::V2_8), 0, "ZooKeeper era: a leader's own shrink keeps the epoch");
    assert_eq!(bumps(Protocol::V3_5), 1, "KRaft before 3.6: every shrink bumps it");
    assert_eq!(bumps(Protocol::V3_7), 0);
    let dead_follower = |p: Protocol| {
        let config = Config::for_protocol(p);
        let session = config.broker_session_timeout_ms;
        let r = run(&scenario(config, vec![Step::Crash(Crash::broker(3, 0)), Step::AdvanceMs(session)]));
        (r.sim.controller.partition(0).leader_epoch, r.sim.replica(0, 1).leader_epoch, r.sim.replica(0, 2).leader_epoch)
    };
    assert_eq!(dead_follower(Protocol::V0_10), (1, 1, 1), "0.10: the controller's shrink bumps, every live broker learns it");
    assert_eq!(dead_follower(Protocol::V2_8), (1, 1, 1));
    assert_eq!(dead_follower(Protocol::V3_5), (1, 1, 1));
    assert_eq!(dead_follower(Protocol::V3_7), (0, 0, 0));
}

/// KIP-966 (4.1): the scenario's replica that left the ISR below min ISR is
/// elected from the ELR; 3.7 stays offline. Nothing committed is lost.
#[test]
fn eligible_leader_replicas_elect_instead_of_going_offline() {
    let s = load("eligible-leader-replicas");
    let r = run(&s);
    assert_eq!(r.sim.controller.partition(0).leader, Some(2));
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
    assert_eq!(count(&r, |e| matches!(e, Event::LeaderElected { kind: highwater::model::event::ElectionKind::EligibleLeaderReplica, .. })), 1);
    let read: Vec<&str> = r.sim.consumer.read.iter().map(|c| &*c.value).collect();
    assert_eq!(read, vec!["m1", "m2", "m3"], "m2, refused while the ISR was too small, is sent again before m3");
    let old = run(&with_protocol(s, Protocol::V3_7));
    assert_eq!(old.sim.controller.partition(0).leader, None, "3.7: offline");
    assert!(old.sim.controller.partition(0).elr.is_empty());
}

/// KIP-966: with ELR the ISR may become empty; the ELR is cleared once the
/// ISR is back at min ISR; a replica returning from an unclean shutdown
/// leaves the ELR.
#[test]
fn the_elr_follows_the_isr() {
    let r = run(&load("eligible-leader-replicas"));
    let mut elr_changes = r.events.iter().filter_map(|e| match &e.event {
        Event::EligibleLeaderReplicasChanged { elr, isr } => Some((elr.clone(), isr.clone())),
        _ => None,
    });
    assert_eq!(elr_changes.next(), Some((vec![2], vec![1])), "broker 2 left an ISR below min ISR");
    assert_eq!(elr_changes.next(), Some((vec![1, 2], vec![])), "the dead leader too; the ISR is empty");
    assert_eq!(elr_changes.next(), Some((vec![1], vec![2])), "broker 2 leaves the ELR as it is elected from it");
    assert_eq!(elr_changes.next(), Some((vec![], vec![2, 3])), "cleared at min ISR");
    assert_eq!(r.sim.controller.partition(0).last_known_leader, None, "kept only while the ISR is empty");
    let mut sim = r.sim.clone();
    sim.apply(&Step::restart(1));
    assert!(!sim.controller.partition(0).elr.contains(&1));
    // The power-loss scenario under 4.1: both replicas shut down uncleanly
    // and leave the ELR; broker 2, the last known leader (`lastKnownElr`,
    // which an unclean shutdown does not clear), is elected when it registers
    // again: m2 (acks=1) is lost, as Kafka allows, and nothing diverges.
    let p = run(&with_protocol(load("kip101-divergence-after-power-loss"), Protocol::V4_1));
    assert_eq!(p.sim.controller.partition(0).leader, Some(2));
    assert_eq!(count(&p, |e| matches!(e, Event::LeaderElected { kind: highwater::model::event::ElectionKind::LastKnownLeader, leader: 2, .. })), 1);
    assert!(p.sim.violations.iter().all(|v| v.kind != ViolationKind::CommittedDivergence));
    assert!(p.sim.violations.iter().all(|v| !v.protocol_violation), "{:?}", p.sim.violations);
}

/// KAFKA-7128 (2.1): a follower rejoins the ISR only once it reaches the
/// start of the leader's epoch; before, reaching the (lagging) HW sufficed.
/// Here the controller's removal of broker 3 bumped the epoch at LEO 1, and
/// broker 3 comes back with an empty log while the HW is still 0.
#[test]
fn isr_expansion_needs_the_epoch_start_from_2_1() {
    let steps = vec![
        produce("m1", Acks::One),
        Step::Isolate(Nodes::Broker(3)),
        Step::AdvanceMs(10_000),
        Step::Heal(highwater::run::scenario::Heal::Broker(3)),
        Step::fetch(3),
    ];
    let isr_after = |p: Protocol| {
        let r = run(&scenario(Config::for_protocol(p), steps.clone()));
        assert_eq!(r.sim.replica(0, 1).epoch_start_offset, 1, "{p}: the bumped epoch starts at LEO 1");
        assert_eq!(r.sim.replica(0, 1).high_watermark, 0, "{p}");
        r.sim.controller.partition(0).isr.to_vec()
    };
    assert_eq!(isr_after(Protocol::V2_0), vec![1, 2, 3], "2.0: LEO 0 >= HW 0 is enough");
    assert_eq!(isr_after(Protocol::V2_1), vec![1, 2], "2.1: LEO 0 is below the epoch start");
}

/// KIP-91 (2.1): the client keeps a record up to `delivery.timeout.ms`
/// (120 s); before, a record waiting for a leader expired after
/// `request.timeout.ms` (30 s).
#[test]
fn the_client_gives_up_after_request_timeout_before_2_1_and_delivery_timeout_from_2_1() {
    let steps = vec![Step::Crash(Crash::broker(1, 0)), produce("m1", Acks::All), Step::AdvanceMs(200_000)];
    let expired_at = |p: Protocol| {
        let config = Config { brokers: 1, ..Config::for_protocol(p) };
        let r = run(&scenario(config, steps.clone()));
        assert_eq!(highwater::view::state::result_name(r.sim.producer.requests[0].status), "REQUEST_TIMED_OUT", "{p}");
        r.events.iter().find_map(|e| match &e.event {
            Event::ProduceResponse { expired: Some(x), .. } => Some((e.time_ms, x.timeout)),
            _ => None,
        })
    };
    assert_eq!(expired_at(Protocol::V2_0), Some((29_900, "request.timeout.ms")));
    assert_eq!(expired_at(Protocol::V2_1), Some((119_900, "delivery.timeout.ms")));
}

/// The 2.8 preset was named 2.7 (it always had KAFKA-10554's truncation on
/// a DivergingEpoch answer, first in Kafka 2.8.0): a file or a link that
/// says "2.7" loads as 2.8 and is written back as "2.8".
#[test]
fn the_old_name_2_7_reads_as_the_2_8_preset() {
    let text = r#"{"version": 1, "config": {"brokers": 2, "protocol": "2.7"}, "steps": [{"produce": {"value": "m1"}}]}"#;
    let s = Scenario::from_json(text).unwrap();
    assert_eq!(s.config.protocol, Protocol::V2_8);
    assert!(s.to_json_pretty().contains(r#""protocol": "2.8""#));
    let linked = highwater::link::decode(&highwater::link::encode(&s)).unwrap();
    assert_eq!(linked.config.protocol, Protocol::V2_8);
    assert_eq!(Config::for_protocol(Protocol::parse("2.7").unwrap()), Config::for_protocol(Protocol::V2_8));
}

/// 0.10 has no leader epochs (KIP-101 is 0.11): the state view says so with
/// a null leader-epoch cache, and the tour check's `epoch_cache` fact reads
/// null there; from 0.11 every broker has one.
#[test]
fn the_leader_epoch_cache_is_null_before_0_11() {
    use highwater::view::state::{LogWindow, StateView};
    for p in Protocol::ALL {
        let mut sim = Simulation::new(Config::for_protocol(p));
        sim.apply(&Step::Produce(highwater::run::scenario::Produce { value: "m1".into(), acks: highwater::Acks::One, to: None, partition: None, key: None }));
        let view = serde_json::to_value(StateView::of(&sim, LogWindow::ALL)).unwrap();
        let cache = &view["brokers"][0]["leader_epoch_cache"];
        if p == Protocol::V0_10 {
            assert!(cache.is_null(), "{p}: {cache}");
        } else {
            assert_eq!(cache, &serde_json::json!([{"epoch": 0, "start_offset": 0}]), "{p}");
        }
    }
}
