//! A topic of several partitions on a cluster: where a keyed record goes,
//! what a broker outside a partition's replicas holds of it, the preferred
//! leader election that gives leadership back after a restart, the `elect`
//! step's partition form, and what `highwater run --json` says of each
//! partition and broker.

mod common;

use common::run;
use highwater::model::cluster::partitioner::partition_for_string_key;
use highwater::model::event::{ElectionKind, Event, ProduceResult};
use highwater::model::quorum::metadata_log::MetadataRecord;
use highwater::model::step::Nodes;
use highwater::view::state::{LogWindow, StateView};
use highwater::Scenario;

fn scenario(config: &str, steps: &str) -> Scenario {
    let text = format!(r#"{{"version": 1, "config": {{{config}}}, "steps": [{steps}]}}"#);
    Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A keyed record goes to `toPositive(murmur2(key)) % partitions`, every
/// time; a record without a key or a partition goes to the next partition
/// in turn; one with a partition, to it.
#[test]
fn a_record_goes_to_its_keys_partition_or_the_next_in_turn() {
    let s = scenario(
        r#""brokers": 3, "partitions": 5"#,
        r#"{"produce": {"value": "a", "key": "user-17"}}, {"produce": {"value": "b", "key": "user-17"}},
           {"produce": {"value": "c"}}, {"produce": {"value": "d"}}, {"produce": {"value": "e", "partition": 4}}"#,
    );
    let r = run(&s);
    let partitions: Vec<u32> = r.sim.producer.requests.iter().map(|q| q.partition).collect();
    let keyed = partition_for_string_key("user-17", 5);
    assert_eq!(partitions, vec![keyed, keyed, 0, 1, 4]);
    // Each landed in its partition's leader's log, and nowhere else.
    let leader = |p: u32| r.sim.controller.partition(p).leader.unwrap();
    assert_eq!(r.sim.replica(keyed, leader(keyed)).log.records().map(|x| x.value.to_string()).collect::<Vec<_>>()[..2], ["a", "b"]);
    assert_eq!(r.sim.replica(4, leader(4)).log.records().last().map(|x| x.value.to_string()), Some("e".into()));
    let total: u64 = (0..5).map(|p| r.sim.replica(p, leader(p)).log_end_offset()).sum();
    assert_eq!(total, 5);
}

/// With an assignment of two replicas on four brokers, a broker that is not
/// a replica of a partition holds nothing of it, is never told of it, and
/// fetches nothing of it; the partition's leader is its first replica.
#[test]
fn a_broker_outside_a_partitions_replicas_holds_and_fetches_nothing_of_it() {
    let s = scenario(
        r#""brokers": 4, "partitions": 2, "assignment": [[3, 4], [2, 1]]"#,
        r#"{"produce": {"value": "x", "partition": 0}}, {"produce": {"value": "y", "partition": 1}}, {"fetch": 4}, {"fetch": 1}"#,
    );
    let r = run(&s);
    assert_eq!(r.sim.controller.partition(0).leader, Some(3));
    assert_eq!(r.sim.controller.partition(1).leader, Some(2));
    for b in [1, 2] {
        assert_eq!(r.sim.replica(0, b).log_end_offset(), 0, "broker {b} is no replica of partition 0");
        assert_eq!(r.sim.replica(0, b).leader, None, "broker {b} was never told of partition 0");
    }
    assert_eq!(r.sim.replica(0, 4).log_end_offset(), 1, "broker 4 fetched partition 0 from broker 3");
    assert_eq!(r.sim.replica(1, 1).log_end_offset(), 1, "broker 1 fetched partition 1 from broker 2");
    assert_eq!(r.sim.replica(1, 4).log_end_offset(), 0);
    let fetches: Vec<(u32, u32, Vec<u32>)> = r
        .events
        .iter()
        .filter_map(|e| match &e.event {
            Event::Sent { message: highwater::model::protocol::Message::Fetch(f), .. } => {
                Some((f.follower, f.leader, f.partitions.iter().map(|p| p.partition).collect()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(fetches, vec![(4, 3, vec![0]), (1, 2, vec![1])]);
    // Broker 3 follows nothing: it leads partition 0 and holds no replica of partition 1.
    let refused = run(&scenario(r#""brokers": 4, "partitions": 2, "assignment": [[3, 4], [2, 1]]"#, r#"{"fetch": 3}"#));
    assert!(refused.trace().contains("broker 3 follows no leader it fetches from"), "{}", refused.trace());
}

/// After a broker dies, the partitions it led move to the other replica; when
/// it is back and caught up, a preferred election gives back those whose
/// preferred replica it is, each in a new epoch with its ISR, and an election
/// with nothing to move is refused with the reason.
#[test]
fn a_preferred_election_gives_leadership_back_after_a_restart() {
    let s = scenario(
        r#""brokers": 2, "partitions": 4, "replication_factor": 2, "assignment": [[2, 1], [1, 2], [2, 1], [1, 2]]"#,
        r#"{"crash": {"broker": 1}}, {"advance_ms": 9000}, {"restart": 1}, {"fetch": 1},
           {"elect_preferred": 0}, {"elect_preferred": null}, {"elect_preferred": null}"#,
    );
    let r = run(&s);
    let leaders: Vec<Option<u32>> = (0..4).map(|p| r.sim.controller.partition(p).leader).collect();
    assert_eq!(leaders, vec![Some(2), Some(1), Some(2), Some(1)], "every partition led by its preferred replica");
    let epochs: Vec<u32> = (0..4).map(|p| r.sim.controller.partition(p).leader_epoch).collect();
    assert_eq!(epochs, vec![0, 2, 0, 2], "the partitions broker 1 led moved twice: to broker 2, and back");
    let preferred: Vec<(Option<u32>, u32)> = r
        .events
        .iter()
        .filter_map(|e| match e.event {
            Event::LeaderElected { leader, kind: ElectionKind::Preferred, .. } => Some((e.partition, leader)),
            _ => None,
        })
        .collect();
    assert_eq!(preferred, vec![(Some(1), 1), (Some(3), 1)]);
    let rejected: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match &e.event {
            Event::StepRejected { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        rejected,
        vec![
            "partition 0: ELECTION_NOT_NEEDED: its preferred replica leads it".to_string(),
            "no partition moved: each is led by its preferred replica, or that replica is fenced, shutting down or not in the ISR".to_string(),
        ]
    );
}

/// A preferred replica that is not in the ISR is not elected: the election
/// never makes an unclean leader (`ReplicationControlManagerTest
/// .testPreferredElectionDoesNotTriggerUncleanElection`, here in the engine).
#[test]
fn a_preferred_replica_outside_the_isr_is_not_elected() {
    let s = scenario(
        r#""brokers": 2, "partitions": 1, "assignment": [[1, 2]], "protocol": "3.7""#,
        r#"{"crash": {"broker": 1}}, {"advance_ms": 9000}, {"restart": 1}, {"elect_preferred": 0}"#,
    );
    let r = run(&s);
    // Broker 1 registered but has not fetched: the ISR is [2].
    assert_eq!(r.sim.controller.partition(0).isr.to_vec(), vec![2]);
    assert_eq!(r.sim.controller.partition(0).leader, Some(2));
    assert!(r.trace().contains("PREFERRED_LEADER_NOT_AVAILABLE"), "{}", r.trace());
}

/// `{"elect": {"partition": p, "broker": b}}` moves partition p only; the
/// bare form acts on partition 0.
#[test]
fn the_elect_steps_partition_form_moves_that_partition_only() {
    let s = scenario(r#""brokers": 3, "partitions": 2, "assignment": [[1, 2, 3], [1, 2, 3]]"#, r#"{"elect": {"partition": 1, "broker": 3}}, {"elect": 2}"#);
    let r = run(&s);
    assert_eq!(r.sim.controller.partition(1).leader, Some(3));
    assert_eq!(r.sim.controller.partition(0).leader, Some(2));
    assert_eq!(s.steps[0].to_json(), r#"{"elect":{"partition":1,"broker":3}}"#);
    assert_eq!(s.steps[1].to_json(), r#"{"elect":2}"#);
}

/// `run --json`'s `partitions`: per partition its registration, the
/// describe tool's flags (`TopicCommand.PartitionDescription`) and its
/// replicas; every broker its rack and the partitions it leads.
#[test]
fn the_json_describes_every_partition_and_each_brokers_rack_and_leaders() {
    let s = scenario(
        r#""brokers": 3, "partitions": 2, "racks": ["a", "a", "b"], "assignment": [[1, 3], [3, 2]], "min_insync_replicas": 2"#,
        r#"{"crash": {"broker": 3}}, {"advance_ms": 9000}"#,
    );
    let r = run(&s);
    let view = StateView::of(&r.sim, LogWindow::ALL).with_partitions(&r.sim, LogWindow::ALL);
    let json = serde_json::to_value(&view).unwrap();
    let p = &json["partitions"];
    assert_eq!(p[0]["replicas"], serde_json::json!([1, 3]));
    assert_eq!(p[0]["isr"], serde_json::json!([1]));
    assert_eq!((p[0]["under_replicated"].as_bool(), p[0]["under_min_isr"].as_bool(), p[0]["offline"].as_bool()), (Some(true), Some(true), Some(false)));
    assert_eq!(p[1]["leader"], serde_json::json!(2), "broker 3's partition moved to broker 2");
    assert_eq!(p[1]["preferred_leader"], serde_json::json!(3));
    assert_eq!(p[1]["brokers"].as_array().unwrap().iter().map(|b| b["id"].as_u64().unwrap()).collect::<Vec<_>>(), vec![3, 2], "assignment order");
    assert_eq!(p[1]["brokers"][0]["role"], serde_json::json!("down"));
    let brokers = json["brokers"].as_array().unwrap();
    assert_eq!(brokers.iter().map(|b| b["rack"].as_str().unwrap()).collect::<Vec<_>>(), vec!["a", "a", "b"]);
    assert_eq!(brokers.iter().map(|b| b["leader_count"].as_u64().unwrap()).collect::<Vec<_>>(), vec![1, 1, 0]);
    // One partition: `partitions` holds it, and the rest reads as before.
    let one = run(&scenario(r#""brokers": 3"#, r#"{"produce": {"value": "m"}}"#));
    let json = serde_json::to_value(StateView::of(&one.sim, LogWindow::ALL).with_partitions(&one.sim, LogWindow::ALL)).unwrap();
    assert_eq!(json["partitions"].as_array().unwrap().len(), 1);
    assert_eq!(json["partitions"][0]["replicas"], serde_json::json!([1, 2, 3]));
    assert_eq!(json["brokers"][0]["rack"], serde_json::Value::Null);
    assert!(serde_json::to_value(StateView::of(&one.sim, LogWindow::ALL)).unwrap().get("partitions").is_none(), "the page's view of one partition is as it was");
}

/// A leader holding a follower's fetch of two partitions loses one of them:
/// the fetch is answered at once, the lost partition with
/// NOT_LEADER_OR_FOLLOWER and the other with a fresh read
/// (`DelayedFetch.tryComplete`, case B), so the follower's other partition
/// does not wait for the fetch to time out.
#[test]
fn a_held_fetch_is_answered_when_the_leader_loses_one_of_its_partitions() {
    let s = scenario(
        r#""brokers": 2, "partitions": 2, "assignment": [[1, 2], [1, 2]], "auto_fetch": true, "protocol": "3.7""#,
        r#"{"advance_ms": 600}, {"elect": {"partition": 0, "broker": 2}}, {"advance_ms": 20}"#,
    );
    let r = run(&s);
    let answered: Vec<(u64, Vec<(u32, Option<highwater::model::protocol::Errors>)>)> = r
        .events
        .iter()
        .filter_map(|e| match &e.event {
            Event::Sent { message: highwater::model::protocol::Message::FetchResponse(resp), .. } if resp.leader == 1 => {
                Some((e.time_ms, resp.partitions.iter().map(|p| (p.partition, p.error)).collect()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(answered, vec![(600, vec![(0, Some(highwater::model::protocol::Errors::NotLeaderOrFollower)), (1, None)])]);
    assert!(r.sim.broker(1).delayed_fetches.iter().all(|d| d.request.follower != 2 || d.request.partitions.iter().all(|p| p.partition == 1)));
}

/// A broker that holds no replica of a partition cannot be elected its
/// leader, even by an unclean election.
#[test]
fn a_broker_outside_the_replicas_is_never_elected() {
    let s = scenario(
        r#""brokers": 3, "partitions": 2, "assignment": [[1, 2], [2, 1]], "unclean_leader_election": true"#,
        r#"{"crash": {"broker": 1}}, {"crash": {"broker": 2}}, {"advance_ms": 9000}, {"elect": {"partition": 0, "broker": 3}}"#,
    );
    let r = run(&s);
    assert!(r.trace().contains("broker 3 holds no replica of partition 0"), "{}", r.trace());
    assert_eq!(r.sim.controller.partition(0).leader, None);
}

const SIX_IN_THREE_RACKS: &str = r#""brokers": 6, "partitions": 6, "racks": ["a", "b", "c", "a", "b", "c"], "min_insync_replicas": 2, "auto_fetch": true"#;

/// Replication factor 3 placed rack-aware on three racks: losing a whole
/// rack (`{"crash": {"rack": "a"}}`, both its brokers) leaves every
/// partition with a leader and two replicas in its ISR, and acks=all
/// writes to every partition succeed.
#[test]
fn losing_a_rack_keeps_every_partition_led_and_in_min_isr_when_placement_is_rack_aware() {
    let writes: Vec<String> = (0..6).map(|p| format!(r#"{{"produce": {{"value": "after{p}", "partition": {p}}}}}"#)).collect();
    let s = scenario(SIX_IN_THREE_RACKS, &format!(r#"{{"produce": {{"value": "m"}}}}, {{"advance_ms": 1000}}, {{"crash": {{"rack": "a"}}}}, {{"advance_ms": 20000}}, {}, {{"advance_ms": 1000}}"#, writes.join(", ")));
    let r = run(&s);
    let crashed: Vec<u32> = r.events.iter().filter_map(|e| match e.event { Event::Crashed { broker, .. } => Some(broker), _ => None }).collect();
    assert_eq!(crashed, vec![1, 4], "both brokers of rack a, in id order");
    for p in 0..6 {
        let reg = r.sim.controller.partition(p);
        let racks: std::collections::BTreeSet<&str> = reg.replicas.iter().map(|&b| s.config.rack(b).unwrap()).collect();
        assert_eq!(racks.len(), 3, "partition {p}: one replica per rack, {:?}", reg.replicas);
        assert!(reg.leader.is_some_and(|l| ![1, 4].contains(&l)), "partition {p}: {reg:?}");
        assert_eq!(reg.isr.len(), 2, "partition {p}: {reg:?}");
    }
    let after: Vec<_> = r.sim.producer.requests.iter().filter(|q| q.value.starts_with("after")).map(|q| q.status.clone()).collect();
    assert_eq!(after.len(), 6);
    assert!(after.iter().all(|x| format!("{x:?}") == "Done(Acked)"), "{after:?}");
}

/// The same loss when two of a partition's three replicas sit in rack a:
/// that partition is left with one replica in its ISR, under
/// `min.insync.replicas` 2, and an acks=all write to it is refused with
/// NOT_ENOUGH_REPLICAS; the partition placed across racks takes writes.
#[test]
fn losing_a_rack_that_holds_two_replicas_leaves_the_partition_under_min_isr() {
    let s = scenario(
        r#""brokers": 6, "partitions": 2, "racks": ["a", "b", "c", "a", "b", "c"], "min_insync_replicas": 2, "auto_fetch": true, "assignment": [[2, 1, 4], [2, 1, 3]]"#,
        r#"{"advance_ms": 1000}, {"crash": {"rack": "a"}}, {"advance_ms": 20000}, {"produce": {"value": "x", "partition": 0}}, {"produce": {"value": "y", "partition": 1}}, {"advance_ms": 1000}"#,
    );
    let r = run(&s);
    assert_eq!(r.sim.controller.partition(0).isr.to_vec(), vec![2]);
    assert_eq!(r.sim.controller.partition(1).isr.len(), 2);
    let view = serde_json::to_value(StateView::of(&r.sim, LogWindow::ALL).with_partitions(&r.sim, LogWindow::ALL)).unwrap();
    assert_eq!(view["partitions"][0]["under_min_isr"], serde_json::json!(true));
    assert_eq!(view["partitions"][1]["under_min_isr"], serde_json::json!(false));
    let results: Vec<String> = r.sim.producer.requests.iter().map(|q| format!("{:?} {:?}", q.status, q.last_error)).collect();
    assert!(results[0].starts_with("Retrying") && results[0].ends_with("Some(NotEnoughReplicas)"), "{results:?}");
    assert_eq!(results[1], "Done(Acked) None");
}

/// A rack cut off (`{"isolate": {"rack": "a"}}`): its brokers lose the
/// brokers outside it and the controller, and still reach each other; a
/// follower in the rack keeps fetching from a leader in the rack until the
/// controller, which no longer hears them, moves the leadership out.
/// `heal` with "all" restores every link.
#[test]
fn a_rack_cut_off_keeps_its_own_links() {
    let s = scenario(
        r#""brokers": 4, "partitions": 1, "replication_factor": 3, "racks": ["a", "b", "b", "a"], "assignment": [[1, 4, 2]], "protocol": "3.7""#,
        r#"{"produce": {"value": "m1", "acks": "1"}}, {"isolate": {"rack": "a"}}, {"produce": {"value": "m2", "acks": "1"}}, {"fetch": 4}, {"fetch": 2}"#,
    );
    let r = run(&s);
    assert!(r.trace().contains(r#"rack "a" cut off: brokers [1, 4] reach neither the brokers outside it nor the controller"#), "{}", r.trace());
    assert_eq!(r.sim.network.blocked(1, 4), None);
    assert!(r.sim.network.blocked(1, 2).is_some() && r.sim.network.blocked(3, 4).is_some());
    assert!(!r.sim.network.reaches_controller(1) && !r.sim.network.reaches_controller(4) && r.sim.network.reaches_controller(2));
    assert_eq!(r.sim.replica(0, 4).log_end_offset(), 2, "broker 4 fetched m2 from broker 1 inside the rack");
    assert_eq!(r.sim.replica(0, 2).log_end_offset(), 0, "broker 2's fetch was lost");
    assert!(r.trace().contains("dropped (link cut)") || r.trace().contains("dropped"), "{}", r.trace());
    let mut healed = s.clone();
    healed.steps.push(serde_json::from_str(r#"{"heal": "all"}"#).unwrap());
    let h = run(&healed);
    assert!(h.sim.network.cuts.is_empty() && h.sim.network.reaches_controller(1));
}

/// `{"fetch": {"broker": b, "from": l}}` runs one of broker b's fetchers:
/// it fetches the partitions it follows on l, and no other.
#[test]
fn a_fetch_from_one_leader_fetches_only_its_partitions() {
    let s = scenario(
        r#""brokers": 3, "partitions": 2, "assignment": [[1, 3], [2, 3]]"#,
        r#"{"produce": {"value": "x", "partition": 0}}, {"produce": {"value": "y", "partition": 1}}, {"fetch": {"broker": 3, "from": 2}}"#,
    );
    let r = run(&s);
    assert_eq!((r.sim.replica(0, 3).log_end_offset(), r.sim.replica(1, 3).log_end_offset()), (0, 1));
    let refused = run(&scenario(r#""brokers": 3, "partitions": 2, "assignment": [[1, 3], [2, 3]]"#, r#"{"fetch": {"broker": 1, "from": 2}}"#));
    assert!(refused.trace().contains("broker 1 fetches no partition from broker 2"), "{}", refused.trace());
}

/// Rack steps name a rack the brokers have; a rack already down is refused.
#[test]
fn rack_steps_are_checked() {
    let no_racks = Scenario::from_json(r#"{"version": 1, "config": {"brokers": 3}, "steps": [{"crash": {"rack": "a"}}]}"#).unwrap_err();
    assert!(no_racks.to_string().contains("crash.rack: the brokers have no racks (config.racks is not set)"), "{no_racks}");
    let unknown = Scenario::from_json(r#"{"version": 1, "config": {"brokers": 3, "racks": ["b", "a", "b"]}, "steps": [{"isolate": {"rack": "z"}}]}"#).unwrap_err();
    assert!(unknown.to_string().contains(r#"isolate.rack: no broker is in rack "z" (the racks are "a", "b")"#), "{unknown}");
    let both = Scenario::from_json(r#"{"version": 1, "config": {"brokers": 3}, "steps": [{"crash": {"rack": "a", "broker": 1}}]}"#).unwrap_err();
    assert!(both.to_string().contains("a crash names one of a broker, a rack or a controller"), "{both}");
    let twice = run(&scenario(r#""brokers": 3, "racks": ["a", "a", "b"]"#, r#"{"crash": {"rack": "a"}}, {"crash": {"rack": "a"}}"#));
    assert!(twice.trace().contains(r#"every broker of rack "a" is already down"#), "{}", twice.trace());
    // Written back as read.
    for step in [r#"{"crash":{"rack":"a","lose_unflushed":0}}"#, r#"{"isolate":{"rack":"a"}}"#, r#"{"fetch":{"broker":2,"from":1}}"#, r#"{"fetch":2}"#, r#"{"crash":{"broker":1,"lose_unflushed":0}}"#] {
        let read: highwater::Step = serde_json::from_str(step).unwrap();
        assert_eq!(read.to_json(), step);
    }
}

fn rebalances(r: &common::Run) -> Vec<(u64, Vec<u32>)> {
    r.events.iter().filter_map(|e| match &e.event { Event::AutoLeaderRebalance { partitions } => Some((e.time_ms, partitions.clone())), _ => None }).collect()
}

const RESTART_OF_BROKER_1: &str = r#"{"advance_ms": 1000}, {"crash": {"broker": 1}}, {"advance_ms": 20000}, {"restart": 1}, {"advance_ms": 60000}"#;

/// ZooKeeper's controller checks 5 s after it starts and then every
/// `leader.imbalance.check.interval.seconds`
/// (`KafkaController.onControllerFailover`, `checkAndTriggerAutoLeaderRebalance`):
/// broker 1, back after a crash, leads its partition again at the first
/// check after it rejoined, 5 000 + 30 000 ms, in a preferred election.
#[test]
fn zookeeper_rebalances_at_its_fixed_checks() {
    let config = r#""brokers": 3, "partitions": 3, "assignment": [[1, 2, 3], [2, 3, 1], [3, 1, 2]], "auto_fetch": true, "protocol": "2.8", "leader_imbalance_check_interval_ms": 30000"#;
    let r = run(&scenario(config, RESTART_OF_BROKER_1));
    assert_eq!(rebalances(&r), vec![(35_000, vec![0])]);
    let elected = r.events.iter().find(|e| e.time_ms == 35_000 && matches!(e.event, Event::LeaderElected { .. })).map(|e| e.event.clone());
    assert!(matches!(elected, Some(Event::LeaderElected { leader: 1, leader_epoch: 2, kind: ElectionKind::Preferred, .. })), "{elected:?}");
    assert_eq!(r.sim.controller.partition(0).leader, Some(1));
    // At 100 % the ratio can never be above it: no rebalance.
    let r = run(&scenario(&format!(r#"{config}, "leader_imbalance_per_broker_percentage": 100"#), RESTART_OF_BROKER_1));
    assert_eq!(rebalances(&r), vec![]);
    assert_eq!(r.sim.controller.partition(0).leader, Some(2));
}

/// The ZooKeeper ratio is per preferred broker: broker 1 is preferred for
/// four partitions, one led elsewhere is 25 %, above 20 % and not above 30 %.
#[test]
fn zookeeper_compares_each_brokers_share_with_the_percentage() {
    let steps = r#"{"elect": {"partition": 0, "broker": 2}}, {"advance_ms": 6000}"#;
    let config = r#""brokers": 2, "partitions": 4, "assignment": [[1, 2], [1, 2], [1, 2], [1, 2]], "auto_fetch": true, "protocol": "2.8", "leader_imbalance_check_interval_ms": 30000"#;
    let over = run(&scenario(&format!(r#"{config}, "leader_imbalance_per_broker_percentage": 20"#), steps));
    let under = run(&scenario(&format!(r#"{config}, "leader_imbalance_per_broker_percentage": 30"#), steps));
    assert_eq!((rebalances(&over), rebalances(&under)), (vec![(5_000, vec![0])], vec![]));
}

/// KRaft's controller has no fixed phase and no percentage: the write that
/// left a partition off its preferred leader (broker 1's fencing at
/// 10 000 ms) schedules one balance run an interval later
/// (`QuorumController.maybeScheduleNextBalancePartitionLeaders`).
#[test]
fn kraft_balances_one_interval_after_the_imbalance() {
    let config = r#""brokers": 3, "partitions": 3, "assignment": [[1, 2, 3], [2, 3, 1], [3, 1, 2]], "auto_fetch": true, "protocol": "3.7", "leader_imbalance_check_interval_ms": 30000, "leader_imbalance_per_broker_percentage": 100"#;
    let r = run(&scenario(config, RESTART_OF_BROKER_1));
    assert_eq!(rebalances(&r), vec![(40_000, vec![0])]);
    assert_eq!(r.sim.controller.partition(0).leader, Some(1));
}

/// Off with `auto_leader_rebalance: false`, and in step mode (the clock
/// runs no controller task there that a step did not ask for).
#[test]
fn no_rebalance_when_disabled_or_in_step_mode() {
    for config in [
        r#""brokers": 3, "partitions": 3, "assignment": [[1, 2, 3], [2, 3, 1], [3, 1, 2]], "auto_fetch": true, "auto_leader_rebalance": false, "leader_imbalance_check_interval_ms": 30000"#,
        r#""brokers": 3, "partitions": 3, "assignment": [[1, 2, 3], [2, 3, 1], [3, 1, 2]], "leader_imbalance_check_interval_ms": 30000"#,
    ] {
        let r = run(&scenario(config, RESTART_OF_BROKER_1));
        assert_eq!(rebalances(&r), vec![], "{config}");
        assert_eq!(r.sim.controller.partition(0).leader, Some(2), "{config}");
    }
}

// ----- the cluster scenarios (tests/scenarios/cluster): what each description says

fn describe(r: &common::Run) -> serde_json::Value {
    serde_json::to_value(StateView::of(&r.sim, LogWindow::ALL).with_partitions(&r.sim, LogWindow::ALL)).unwrap()["partitions"].clone()
}

fn results(r: &common::Run, prefix: char) -> Vec<String> {
    r.sim.producer.requests.iter().filter(|q| q.value.starts_with(prefix)).map(|q| format!("{:?}", q.status)).collect()
}

/// "A broker dies": the partitions broker 2 led get a new leader each, in
/// their own election and epoch, none goes offline, the ones it held are
/// under-replicated while it is away, every write is acknowledged; back and
/// after the preferred election, every partition is led by its first
/// replica and none is under-replicated.
#[test]
fn a_broker_dies_scenario_says_what_happens() {
    let s = common::load("cluster/broker-dies-and-returns");
    let mut at_crash = s.clone();
    at_crash.steps.truncate(9); // through the 10 s after the crash
    let away = run(&at_crash);
    let parts = describe(&away);
    let held_by_2: Vec<u64> = (0..6).filter(|&p| parts[p]["replicas"].as_array().unwrap().contains(&serde_json::json!(2))).map(|p| p as u64).collect();
    let urp: Vec<u64> = (0..6).filter(|&p| parts[p]["under_replicated"] == serde_json::json!(true)).map(|p| p as u64).collect();
    assert_eq!(urp, held_by_2, "under-replicated: exactly the partitions broker 2 holds");
    assert!((0..6).all(|p| parts[p]["offline"] == serde_json::json!(false) && parts[p]["leader"] != serde_json::json!(2)));
    let first = run(&{
        let mut t = s.clone();
        t.steps.truncate(7);
        t
    });
    let led_by_2: Vec<u32> = (0..6).filter(|&p| first.sim.controller.partition(p).leader == Some(2)).collect();
    assert!(!led_by_2.is_empty());
    let elections: Vec<(u32, u32)> = away
        .events
        .iter()
        .filter_map(|e| match e.event { Event::LeaderElected { leader_epoch, kind: ElectionKind::Clean, .. } => Some((e.partition.unwrap(), leader_epoch)), _ => None })
        .collect();
    assert_eq!(elections, led_by_2.iter().map(|&p| (p, 1)).collect::<Vec<_>>(), "one clean election per partition broker 2 led, each epoch 1");
    let r = run(&s);
    assert!(results(&r, 'a').iter().chain(&results(&r, 'g')).all(|x| x == "Done(Acked)"));
    let writes_after: Vec<String> = r.sim.producer.requests[6..].iter().map(|q| format!("{:?}", q.status)).collect();
    assert!(writes_after.iter().all(|x| x == "Done(Acked)"), "{writes_after:?}");
    let parts = describe(&r);
    for p in 0..6 {
        assert_eq!(parts[p]["leader"], parts[p]["preferred_leader"], "partition {p}");
        assert_eq!(parts[p]["under_replicated"], serde_json::json!(false), "partition {p}");
    }
    assert!(r.violations(highwater::ViolationKind::AckedWriteLost).is_empty());
}

/// "Lose a rack", placed rack-aware: one replica per rack, two left in every
/// ISR, min ISR held, every acks=all write after the loss acknowledged.
#[test]
fn lose_a_rack_rack_aware_scenario_says_what_happens() {
    let s = common::load("cluster/lose-a-rack-rack-aware");
    let r = run(&s);
    let parts = describe(&r);
    for p in 0..6 {
        let replicas: Vec<u32> = serde_json::from_value(parts[p]["replicas"].clone()).unwrap();
        let racks: std::collections::BTreeSet<&str> = replicas.iter().map(|&b| s.config.rack(b).unwrap()).collect();
        assert_eq!(racks.len(), 3, "partition {p}");
        assert_eq!(parts[p]["isr"].as_array().unwrap().len(), 2, "partition {p}");
        assert_eq!((parts[p]["under_min_isr"].as_bool(), parts[p]["offline"].as_bool()), (Some(false), Some(false)), "partition {p}");
    }
    assert_eq!(results(&r, 'b'), vec!["Done(Acked)"; 6]);
}

/// "Lose a rack" with two replicas of partitions 0, 2 and 4 in rack a:
/// those are under min ISR and refuse acks=all with NOT_ENOUGH_REPLICAS;
/// 1, 3 and 5 take the writes.
#[test]
fn lose_a_rack_two_in_one_rack_scenario_says_what_happens() {
    let s = common::load("cluster/lose-a-rack-two-replicas-in-one-rack");
    let r = run(&s);
    let parts = describe(&r);
    for p in 0..6u32 {
        let replicas = &r.sim.controller.partition(p).replicas;
        let in_a = replicas.iter().filter(|&&b| s.config.rack(b) == Some("a")).count();
        let bad = [0, 2, 4].contains(&p);
        assert_eq!(in_a, if bad { 2 } else { 1 }, "partition {p}");
        assert_eq!(parts[p as usize]["under_min_isr"].as_bool(), Some(bad), "partition {p}");
        let q = r.sim.producer.requests.iter().find(|q| &*q.value == format!("b{p}")).unwrap();
        if bad {
            assert!(matches!(q.status, highwater::model::clients::accumulator::Status::Retrying { .. }) && q.last_error == Some(highwater::model::protocol::Errors::NotEnoughReplicas), "{q:?}");
        } else {
            assert_eq!(format!("{:?}", q.status), "Done(Acked)");
        }
    }
}

/// "An unclean election on one partition": partition 0's loss of the acks=1
/// write through an unclean election, allowed by the setting; partition 2
/// only shrinks its ISR and keeps its records; partition 1 stays in epoch 0.
#[test]
fn unclean_on_one_partition_scenario_says_what_happens() {
    let r = run(&common::load("cluster/unclean-election-on-one-partition"));
    let lost = r.violations(highwater::ViolationKind::AckedWriteLost);
    assert_eq!(lost.len(), 1);
    assert_eq!((lost[0].partition, lost[0].value.as_deref()), (0, Some("only-on-1")));
    let kinds: Vec<(u32, ElectionKind)> = r.events.iter().filter_map(|e| match e.event { Event::LeaderElected { kind, .. } => Some((e.partition.unwrap(), kind)), _ => None }).collect();
    assert_eq!(kinds, vec![(0, ElectionKind::Unclean)]);
    assert_eq!(r.sim.controller.partition(2).leader, Some(3));
    assert_eq!(r.sim.controller.partition(2).isr.to_vec(), vec![3]);
    assert_eq!(r.sim.replica(2, 3).log.records().map(|x| x.value.to_string()).collect::<Vec<_>>(), ["x2", "y2", "z2"]);
    assert_eq!(r.sim.controller.partition(1).leader_epoch, 0);
}

/// The operator's view of a topic: `kafka-topics.sh --describe` prints a
/// line per partition, and the brokers' gauges count every partition each
/// leads (`ReplicaManager`'s UnderReplicatedPartitions sums
/// `Partition.isUnderReplicated` over the leader's partitions): at the
/// moment broker 2 is fenced, brokers 1, 3 and 4 lead one, one and two of
/// the four partitions it held a replica of.
#[test]
fn the_operators_view_counts_every_partition() {
    let mut s = common::load("cluster/broker-dies-and-returns");
    s.steps.truncate(9);
    let r = run(&s);
    let view = highwater::view::operator::OperatorView::of(&r.sim, &r.events);
    let lines: Vec<&str> = view.describe.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[3], "\tTopic: highwater\tPartition: 3\tLeader: 3\tReplicas: 2,3,4\tIsr: 3,4");
    let urp = view.metric("UnderReplicatedPartitions").unwrap();
    assert_eq!(urp.per_broker, vec![Some(1), None, Some(1), Some(2)], "broker 2 is down: no JMX");
    assert_eq!(urp.value, 4);
    assert_eq!(view.value("OfflinePartitionsCount"), 0);
    assert_eq!(view.value("UnderMinIsrPartitionCount"), 0);
}

/// "A rolling restart": every acks=all write is acknowledged; no partition
/// ever has fewer than two replicas in its ISR (min.insync.replicas); the
/// broker restarted last leads nothing before the preferred election, and
/// every partition is back on its first replica after it.
#[test]
fn rolling_restart_scenario_says_what_happens() {
    let s = common::load("cluster/rolling-restart");
    let mut t = highwater::Timeline::new(&s).unwrap();
    let election = s.steps.iter().position(|step| matches!(step, highwater::Step::ElectPreferred(_))).unwrap();
    for position in 0..=t.len() {
        t.seek(position).unwrap();
        let sim = t.current();
        for p in 0..3 {
            assert!(sim.controller.partition(p).isr.len() >= 2, "step {position}, partition {p}: {:?}", sim.controller.partition(p).isr);
        }
        if position == election {
            let leads = |b: u32| (0..3).filter(|&p| sim.controller.partition(p).leader == Some(b)).count();
            assert_eq!((leads(1) + leads(2), leads(3)), (3, 0), "before the election: broker 3 leads nothing");
            assert!((0..3).all(|p| sim.controller.partition(p).isr.len() == 3), "every broker back in every ISR before the election");
        }
    }
    let r = run(&s);
    assert!(r.sim.producer.requests.iter().all(|q| format!("{:?}", q.status) == "Done(Acked)"));
    assert_eq!(r.sim.producer.requests.len(), 12);
    for p in 0..3 {
        let c = r.sim.controller.partition(p);
        assert_eq!(c.leader, Some(c.preferred_leader()), "partition {p}");
        assert_eq!(c.isr.len(), 3);
    }
    let shutdowns = r.events.iter().filter(|e| matches!(e.event, Event::ControlledShutdownCompleted { .. })).count();
    assert_eq!(shutdowns, 3);
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
}

/// "A controller fails over while a broker is down": broker 2 crashes at
/// 1 s, controller 1 (active) at 3 s, before broker 2's session ran out; a
/// new active controller replays the log and starts every session anew, and
/// fences broker 2 9 s after its activation, not 9 s after the crash; the
/// acks=all write of 4 s waits, broker 2 in the ISR, until the leader has
/// applied the committed fencing and smaller ISR.
#[test]
fn a_controller_failover_scenario_says_what_happens() {
    let s = common::load("controller-failover-during-broker-failure");
    let r = run(&s);
    let at = |pred: &dyn Fn(&Event) -> bool| r.events.iter().filter(|e| pred(&e.event)).map(|e| e.time_ms).collect::<Vec<u64>>();
    assert_eq!(at(&|e| matches!(e, Event::Crashed { broker: 2, .. })), vec![1000]);
    assert_eq!(at(&|e| matches!(e, Event::ControllerCrashed { controller: 1 })), vec![3000]);
    assert!(at(&|e| matches!(e, Event::BrokerFenced { .. })).iter().all(|&t| t > 10_000), "not fenced when its session would have run out");
    let activated: Vec<(u64, u32)> = r.events.iter().filter_map(|e| if let Event::ControllerActivated { controller, .. } = e.event { Some((e.time_ms, controller)) } else { None }).collect();
    let [(activated_at, controller)] = activated[..] else { panic!("one activation: {activated:?}") };
    assert!(controller != 1 && activated_at > 3000);
    let fenced = at(&|e| matches!(e, Event::BrokerFenced { broker: 2, .. }));
    assert_eq!(fenced, vec![activated_at + 9000], "9 s after the activation");
    // The write of 4 s waits while broker 2 is in the ISR.
    let b = r.sim.producer.requests.iter().position(|q| &*q.value == "b").unwrap() as u64;
    let acked = r.events.iter().find_map(|e| match &e.event {
        Event::ProduceResponse { request, result: ProduceResult::Acked, .. } if *request == b => Some(e.time_ms),
        _ => None,
    });
    let acked = acked.expect("b acknowledged");
    let isr_record = r.events.iter().find_map(|e| match e.event {
        Event::MetadataAppended { entry, .. } if matches!(entry.record, MetadataRecord::PartitionChange { isr, .. } if !isr.contains(&2)) => Some(entry.offset),
        _ => None,
    });
    let isr_record = isr_record.expect("a record of the ISR without broker 2");
    let leader_applied = r.events.iter().find_map(|e| match e.event {
        Event::MetadataApplied { broker: 1, from, to } if (from..to).contains(&isr_record) => Some(e.time_ms),
        _ => None,
    });
    assert_eq!(Some(acked), leader_applied, "acknowledged when the leader applies the committed ISR");
    assert!(acked > fenced[0]);
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
    // Without the failover, the session expires 9 s after the crash.
    let mut no_failover = s.clone();
    no_failover.steps.retain(|step| !matches!(step, highwater::Step::Crash(c) if c.nodes == Nodes::Controller(1)));
    let r = run(&no_failover);
    assert_eq!(r.events.iter().find(|e| matches!(e.event, Event::BrokerFenced { broker: 2, .. })).map(|e| e.time_ms), Some(10_000));
}
