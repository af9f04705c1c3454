//! A topic of several partitions on a cluster: where a keyed record goes,
//! what a broker outside a partition's replicas holds of it, the preferred
//! leader election that gives leadership back after a restart, the `elect`
//! step's partition form, and what `highwater run --json` says of each
//! partition and broker.

mod common;

use common::run;
use highwater::model::cluster::partitioner::partition_for_string_key;
use highwater::model::event::{ElectionKind, Event};
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
