//! The controller riding the quorum (`config.controllers` > 0), by the
//! rules of `QuorumController` and `ClusterControlManager`: decisions are
//! metadata records the brokers act on once committed; only an active
//! controller decides; a controller that becomes active replays the log
//! and starts every broker's session again (`ClusterControlManager.activate`
//! registers each broker with a new `BrokerHeartbeatManager`, touched now).

use crate::common::{run, Run};
use highwater::model::event::{Event, ProduceResult};
use highwater::model::quorum::metadata_log::MetadataRecord;
use highwater::{LogWindow, Scenario, StateView};

fn scenario(protocol: &str, steps: &str) -> Scenario {
    let text = format!(r#"{{"version": 1, "config": {{"protocol": "{protocol}", "controllers": 3, "auto_fetch": true}}, "steps": [{steps}]}}"#);
    Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn first_time(r: &Run, pred: impl Fn(&Event) -> bool) -> Option<u64> {
    r.events.iter().find(|e| pred(&e.event)).map(|e| e.time_ms)
}

fn times(r: &Run, pred: impl Fn(&Event) -> bool) -> Vec<u64> {
    r.events.iter().filter(|e| pred(&e.event)).map(|e| e.time_ms).collect()
}

fn activations(r: &Run) -> Vec<(u64, u32)> {
    r.events.iter().filter_map(|e| if let Event::ControllerActivated { controller, .. } = e.event { Some((e.time_ms, controller)) } else { None }).collect()
}

/// The committed records of the quorum leader, in order.
fn committed(r: &Run) -> Vec<MetadataRecord> {
    let q = r.sim.quorum.as_deref().unwrap();
    let v = q.leader().expect("a quorum leader");
    v.log.entries()[..v.high_watermark.unwrap() as usize].iter().map(|e| e.record).collect()
}

/// Reference §4: a broker that died before a controller failover is fenced
/// a session timeout (9 s) after the new controller activates, not after
/// its last heartbeat. The same crash without a quorum is fenced at 1 s + 9 s.
#[test]
fn a_new_active_controller_restarts_every_broker_session() {
    let steps = r#"{"advance_ms": 1000}, {"crash": {"broker": 2}}, {"advance_ms": 2000}, {"crash": {"controller": 1}}, {"advance_ms": 20000}"#;
    let r = run(&scenario("4.1", steps));
    let [(activated, c)] = activations(&r)[..] else { panic!("one activation: {:?}\n{}", activations(&r), r.trace()) };
    assert!(c != 1 && activated > 3000, "{}", r.trace());
    let fenced = first_time(&r, |e| matches!(e, Event::BrokerFenced { broker: 2, .. })).expect("broker 2 fenced");
    assert_eq!(fenced, activated + 9000, "fenced 9 s after the activation\n{}", r.trace());
    assert!(committed(&r).contains(&MetadataRecord::FenceBroker { broker: 2 }), "the fencing is a committed record");
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);

    let mut instant = scenario("4.1", steps);
    instant.config.controllers = 0;
    let r = run(&instant);
    assert_eq!(first_time(&r, |e| matches!(e, Event::BrokerFenced { broker: 2, .. })), Some(10_000), "without a quorum: 9 s after the crash");
}

/// A partition's new leader leads only once the election's record has
/// committed and reached it: the election, the commit, and the broker's
/// applying it come in that order, each later than the one before.
#[test]
fn a_broker_leads_only_once_the_election_record_has_committed() {
    let r = run(&scenario("4.1", r#"{"advance_ms": 1000}, {"crash": {"broker": 1}}, {"advance_ms": 12000}"#));
    let elected = first_time(&r, |e| matches!(e, Event::LeaderElected { .. })).expect("an election");
    assert_eq!(elected, 10_000, "the session expires 9 s after the crash");
    let leader = r.sim.controller.partition(0).leader.unwrap();
    let epoch = r.sim.controller.partition(0).leader_epoch;
    let appended = r.events.iter().find_map(|e| match e.event {
        Event::MetadataAppended { entry, .. } if matches!(entry.record, MetadataRecord::PartitionChange { leader: Some(l), leader_epoch, .. } if l == leader && leader_epoch == epoch) => {
            Some((e.time_ms, entry.offset))
        }
        _ => None,
    });
    let (appended_at, offset) = appended.expect("the election appended");
    assert_eq!(appended_at, elected, "the election is appended as it is decided");
    let committed_at = first_time(&r, |e| matches!(e, Event::MetadataCommitted { to, .. } if *to > offset)).expect("the record commits");
    let applied_at = first_time(&r, |e| matches!(e, Event::MetadataApplied { broker, from, to } if *broker == leader && (*from..*to).contains(&offset)));
    let became = times(&r, |e| matches!(e, Event::BecameLeader { broker, leader_epoch, .. } if *broker == leader && *leader_epoch == epoch));
    assert!(committed_at > elected, "the record commits after a round trip to the followers");
    assert_eq!(became, vec![applied_at.expect("applied by the new leader")], "it leads when it applies the record\n{}", r.trace());
    assert!(became[0] > committed_at, "one link later than the commit");
    assert_eq!(r.sim.broker(leader).metadata_offset, r.sim.quorum.as_deref().unwrap().leader().unwrap().high_watermark.unwrap());
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
}

/// Two of three controllers down under 3.7: the leader resigns by
/// check-quorum, no controller is active, and a broker that dies is never
/// fenced, its partitions never moved: metadata is frozen. The partition
/// still serves: an acks=1 write is acknowledged. Once a majority is back,
/// the new active controller fences it 9 s after it activates.
#[test]
fn with_no_active_controller_nothing_is_decided_and_partitions_keep_serving() {
    let steps = r#"{"advance_ms": 500}, {"crash": {"controller": 2}}, {"crash": {"controller": 3}}, {"advance_ms": 4000},
        {"crash": {"broker": 3}}, {"advance_ms": 30000}, {"produce": {"value": "a", "acks": 1}}, {"advance_ms": 1000},
        {"restart": {"controller": 2}}, {"advance_ms": 20000}"#;
    let r = run(&scenario("3.7", steps));
    let resigned = first_time(&r, |e| matches!(e, Event::Resigned { controller: 1, .. })).expect("controller 1 resigns by check-quorum");
    assert!(resigned < 4500, "within 1.5 x the fetch timeout: {resigned}");
    let restart = 35_500;
    assert!(times(&r, |e| matches!(e, Event::BrokerFenced { .. } | Event::LeaderElected { .. } | Event::IsrShrunk { .. })).iter().all(|&t| t > restart), "nothing decided before\n{}", r.trace());
    let acked = r.events.iter().any(|e| matches!(&e.event, Event::ProduceResponse { value, result: ProduceResult::Acked, .. } if &**value == "a"));
    assert!(acked, "the partition still serves\n{}", r.trace());
    let (activated, _) = *activations(&r).last().expect("an activation after the restart");
    assert!(activated > restart);
    assert_eq!(first_time(&r, |e| matches!(e, Event::BrokerFenced { broker: 3, .. })), Some(activated + 9000));
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
}

/// Two of three controllers down under 3.5 (no check-quorum): controller 1
/// stays the active controller and fences the dead partition leader, but
/// its records cannot commit, so no broker hears of it: the partition has
/// no leader the brokers know. Once a second controller returns, the
/// records commit and the new leader takes over.
#[test]
fn a_controller_without_a_majority_decides_but_no_broker_acts() {
    let steps = r#"{"advance_ms": 500}, {"crash": {"controller": 2}}, {"crash": {"controller": 3}}, {"advance_ms": 500},
        {"crash": {"broker": 1}}, {"advance_ms": 15000}, {"restart": {"controller": 2}}, {"advance_ms": 5000}"#;
    let r = run(&scenario("3.5", steps));
    let elected = first_time(&r, |e| matches!(e, Event::LeaderElected { .. })).expect("controller 1 elects a new leader");
    assert_eq!(elected, 10_000);
    let restart = 16_000;
    let became = times(&r, |e| matches!(e, Event::BecameLeader { .. }));
    assert!(!became.is_empty() && became.iter().all(|&t| t > restart), "no broker leads before a majority commits it\n{}", r.trace());
    let leader = r.sim.controller.partition(0).leader.unwrap();
    assert!(r.sim.is_leader(0, leader), "the elected broker leads in the end");
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
}

/// Controller 1, alone under 3.5, fences a dead broker in records that never
/// commit; it then crashes and the other two elect a leader whose log lacks
/// them. The new active controller rebuilds its state from its own log:
/// the broker is not fenced there, and is fenced again 9 s after the
/// activation; what controller 1 decided alone is gone.
#[test]
fn a_new_controller_keeps_only_what_committed() {
    let steps = r#"{"advance_ms": 500}, {"crash": {"controller": 2}}, {"crash": {"controller": 3}}, {"advance_ms": 500},
        {"crash": {"broker": 2}}, {"advance_ms": 10000}, {"crash": {"controller": 1}}, {"restart": {"controller": 2}},
        {"restart": {"controller": 3}}, {"advance_ms": 20000}"#;
    let r = run(&scenario("3.5", steps));
    let fenced = times(&r, |e| matches!(e, Event::BrokerFenced { broker: 2, .. }));
    let (activated, c) = *activations(&r).last().expect("a new active controller");
    assert!(c != 1);
    assert_eq!(fenced, vec![10_000, activated + 9000], "fenced twice: alone, then by the new controller\n{}", r.trace());
    let fences = committed(&r).iter().filter(|&&rec| rec == MetadataRecord::FenceBroker { broker: 2 }).count();
    assert_eq!(fences, 1, "one FenceBroker committed: the second");
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
}

/// `highwater run --json` gives each broker its metadata offset and broker
/// epoch with a quorum (the offset of its RegisterBroker record, after the
/// LeaderChange), and neither without one.
#[test]
fn brokers_show_their_metadata_offset_and_broker_epoch() {
    let r = run(&scenario("4.1", r#"{"advance_ms": 100}"#));
    let view = StateView::of(&r.sim, LogWindow::ALL);
    let json = serde_json::to_value(&view).unwrap();
    let end = r.sim.quorum.as_deref().unwrap().voter(1).log.end_offset();
    for (i, b) in json["brokers"].as_array().unwrap().iter().enumerate() {
        assert_eq!(b["metadata_offset"], end);
        assert_eq!(b["broker_epoch"], i as u64 + 1);
    }
    let mut none = scenario("4.1", r#"{"advance_ms": 100}"#);
    none.config.controllers = 0;
    let r = run(&none);
    let json = serde_json::to_value(StateView::of(&r.sim, LogWindow::ALL)).unwrap();
    assert!(json["brokers"][0].get("metadata_offset").is_none() && json["brokers"][0].get("broker_epoch").is_none());
}

/// A restarted broker registers fenced and is unfenced only once it has
/// applied the metadata past its registration record
/// (`BrokerHeartbeatManager.calculateNextBrokerState`, KAFKA-13959): the
/// RegisterBroker record (fenced) commits, reaches the broker, and only then
/// is an UnfenceBroker record appended.
#[test]
fn a_restarted_broker_is_unfenced_once_caught_up_with_its_registration() {
    let r = run(&scenario("4.1", r#"{"advance_ms": 1000}, {"crash": {"broker": 3}}, {"advance_ms": 10000}, {"restart": 3}, {"advance_ms": 2000}"#));
    let registered = first_time(&r, |e| matches!(e, Event::BrokerRegistered { broker: 3 })).expect("registered");
    let unfenced = first_time(&r, |e| matches!(e, Event::BrokerUnfenced { broker: 3 })).expect("unfenced");
    let register_offset = r.events.iter().find_map(|e| match e.event {
        Event::MetadataAppended { entry, .. } if entry.record == (MetadataRecord::RegisterBroker { broker: 3, fenced: true }) => Some(entry.offset),
        _ => None,
    });
    let register_offset = register_offset.expect("a RegisterBroker record, fenced");
    let applied = first_time(&r, |e| matches!(e, Event::MetadataApplied { broker: 3, from, to } if (*from..*to).contains(&register_offset))).expect("applied");
    assert!(registered < applied && applied == unfenced, "registered {registered}, applied {applied}, unfenced {unfenced}\n{}", r.trace());
    assert_eq!(r.sim.broker(3).broker_epoch, register_offset);
    let log = committed(&r);
    let at = |rec: MetadataRecord| log.iter().position(|&x| x == rec);
    assert!(at(MetadataRecord::RegisterBroker { broker: 3, fenced: true }) < at(MetadataRecord::UnfenceBroker { broker: 3 }));
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
}

/// A broker restarted while no controller is active cannot register; it
/// keeps asking (`BrokerLifecycleManager` resends its BrokerRegistration
/// until answered), so the next active controller takes it: it registers
/// fenced, catches up and is unfenced, and rejoins the ISR.
#[test]
fn a_broker_restarted_while_no_controller_is_active_registers_with_the_next() {
    let r = run(&scenario(
        "4.1",
        r#"{"advance_ms": 1000}, {"crash": {"broker": 2}}, {"advance_ms": 10000}, {"crash": {"controller": 2}}, {"crash": {"controller": 3}}, {"advance_ms": 5000}, {"restart": 2}, {"advance_ms": 5000}, {"restart": {"controller": 2}}, {"advance_ms": 10000}"#,
    ));
    let refused = first_time(&r, |e| matches!(e, Event::RegistrationRefused { broker: 2, session_expires_ms: None })).expect("no controller to register with");
    assert_eq!(refused, 16_000, "{}", r.trace());
    let [(activated, _)] = activations(&r)[..] else { panic!("one activation: {:?}\n{}", activations(&r), r.trace()) };
    assert!(activated > 21_000, "the activation follows the restart of controller 2");
    let registered = first_time(&r, |e| matches!(e, Event::BrokerRegistered { broker: 2 })).expect("broker 2 registers");
    assert_eq!(registered, activated, "it registers as the controller activates\n{}", r.trace());
    assert!(committed(&r).contains(&MetadataRecord::RegisterBroker { broker: 2, fenced: true }));
    assert!(first_time(&r, |e| matches!(e, Event::BrokerUnfenced { broker: 2 })).is_some_and(|t| t > registered), "unfenced after it caught up");
    assert!(r.sim.controller.partition(0).isr.contains(&2), "back in the ISR: {:?}", r.sim.controller.partition(0).isr);
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
}
