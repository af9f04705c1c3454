//! The operator's view (`operator.rs`): the describe line and the metrics at
//! known points of the gallery's scenarios.

mod common;

use common::{load, with_protocol};
use highwater::view::operator::{describe_line, OperatorView};
use highwater::{Protocol, Timeline};

/// The view after `position` steps of a scenario.
fn view_at(name: &str, protocol: Option<Protocol>, position: usize) -> OperatorView {
    let mut s = load(name);
    if let Some(p) = protocol {
        s = with_protocol(s, p);
    }
    let mut t = Timeline::new(&s).unwrap();
    t.seek(position).unwrap();
    OperatorView::of_timeline(&t)
}

fn end(name: &str) -> usize {
    load(name).steps.len()
}

fn values(v: &OperatorView) -> Vec<(&'static str, u64)> {
    v.metrics.iter().map(|m| (m.name, m.value)).collect()
}

#[test]
fn describe_line_is_kafka_topics_format() {
    assert_eq!(describe_line(0, Some(1), &[1, 2, 3], &[1, 3], None), "\tTopic: highwater\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,3");
    assert_eq!(
        describe_line(0, None, &[1, 2], &[], Some((&[2], &[]))),
        "\tTopic: highwater\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: \tElr: 2\tLastKnownElr: "
    );
}

#[test]
fn a_fresh_cluster_is_healthy() {
    let v = view_at("isr-shrink-and-expand", None, 0);
    assert_eq!(v.describe, "\tTopic: highwater\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3");
    assert!(v.metrics.iter().all(|m| m.value == 0), "{:?}", values(&v));
    assert_eq!(v.metric("UnderReplicatedPartitions").unwrap().per_broker, vec![Some(0), Some(0), Some(0)]);
    assert!(v.metric("OfflinePartitionsCount").unwrap().per_broker.is_empty());
}

#[test]
fn isr_shrink_and_expand_counts_one_each() {
    let name = "isr-shrink-and-expand";
    // Step 7 runs the clock to 45 s: the leader drops broker 3.
    let before = view_at(name, None, 6);
    assert_eq!((before.value("IsrShrinksPerSec"), before.value("UnderReplicatedPartitions")), (0, 0));
    let shrunk = view_at(name, None, 7);
    assert_eq!(shrunk.describe, "\tTopic: highwater\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2");
    assert_eq!(shrunk.value("IsrShrinksPerSec"), 1);
    assert_eq!(shrunk.metric("IsrShrinksPerSec").unwrap().per_broker, vec![Some(1), Some(0), Some(0)], "counted on the leader");
    assert_eq!(shrunk.value("UnderReplicatedPartitions"), 1);
    assert_eq!(shrunk.metric("UnderReplicatedPartitions").unwrap().per_broker, vec![Some(1), Some(0), Some(0)]);
    assert_eq!(shrunk.value("UnderMinIsrPartitionCount"), 0, "min.insync.replicas=1");
    let v = view_at(name, None, end(name));
    assert_eq!(v.describe, "\tTopic: highwater\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3");
    assert_eq!((v.value("IsrShrinksPerSec"), v.value("IsrExpandsPerSec")), (1, 1));
    assert_eq!(v.value("UnderReplicatedPartitions"), 0);
    assert_eq!(v.value("OfflinePartitionsCount"), 0);
}

#[test]
fn offline_without_unclean_has_no_leader() {
    let name = "offline-without-unclean";
    let v = view_at(name, None, end(name));
    assert_eq!(v.leader, None);
    assert_eq!(v.describe, "\tTopic: highwater\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: 1");
    assert_eq!(v.value("OfflinePartitionsCount"), 1);
    assert_eq!(v.value("UnderReplicatedPartitions"), 0, "no broker leads it, so none reports it");
    // Broker 1 crashed: its JMX is gone.
    assert_eq!(v.metric("UnderReplicatedPartitions").unwrap().per_broker[0], None);
}

#[test]
fn not_enough_replicas_is_under_min_isr_once_the_controller_shrinks() {
    let name = "not-enough-replicas";
    // Both followers crashed, but their sessions have not expired yet.
    let v = view_at(name, None, 2);
    assert_eq!(v.value("UnderMinIsrPartitionCount"), 0);
    assert_eq!(v.describe, "\tTopic: highwater\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3");
    let v = view_at(name, None, 3);
    assert_eq!(v.describe, "\tTopic: highwater\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1");
    assert_eq!(v.value("UnderMinIsrPartitionCount"), 1);
    assert_eq!(v.metric("UnderMinIsrPartitionCount").unwrap().per_broker, vec![Some(1), None, None]);
    assert_eq!(v.value("UnderReplicatedPartitions"), 1);
    assert_eq!(v.value("IsrShrinksPerSec"), 0, "the controller removed them, not the leader");
}

#[test]
fn eligible_leader_replicas_are_printed_under_4_1() {
    let name = "eligible-leader-replicas";
    let s = load(name);
    let mut t = Timeline::new(&s).unwrap();
    let mut saw_elr = false;
    for p in 0..=t.len() {
        t.seek(p).unwrap();
        let v = OperatorView::of_timeline(&t);
        let elr = v.elr.clone().expect("4.1 has ELR");
        let last_known = v.last_known_elr.clone().unwrap();
        assert!(v.describe.ends_with(&format!("\tElr: {}\tLastKnownElr: {}", join(&elr), join(&last_known))), "{}", v.describe);
        saw_elr |= !elr.is_empty();
    }
    assert!(saw_elr, "the ELR is not empty at some step");
    // After broker 2 is isolated and the ISR shrinks to the leader alone.
    let v = view_at(name, None, 9);
    assert_eq!(v.describe, "\tTopic: highwater\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1\tElr: 2\tLastKnownElr: ");
    // Under 3.7 there are no such fields.
    let v = view_at(name, Some(Protocol::V3_7), 9);
    assert!(!v.describe.contains("Elr"), "{}", v.describe);
    assert_eq!(v.elr, None);
}

fn join(ids: &[u32]) -> String {
    ids.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(",")
}

#[test]
fn max_lag_is_the_fetcher_lag_from_the_last_response() {
    // Two fetch rounds: round 1 brings the record with the leader's HW 0
    // (lag 0: HW - next offset is negative); every processed response
    // leaves lag 0 as the model's fetches read up to the leader's LEO.
    let name = "two-fetch-rounds";
    for p in 0..=end(name) {
        let v = view_at(name, None, p);
        assert_eq!(v.value("MaxLag"), 0, "step {p}");
    }
}

/// Every gallery scenario under every version: the view holds together.
#[test]
fn the_view_is_consistent_everywhere() {
    for name in common::scenario_names() {
        for &p in Protocol::ALL.iter() {
            let s = with_protocol(load(&name), p);
            let mut t = Timeline::new(&s).unwrap();
            for pos in 0..=t.len() {
                t.seek(pos).unwrap();
                let v = OperatorView::of_timeline(&t);
                let sim = t.current();
                assert_eq!(v.leader, sim.controller.partition(0).leader);
                assert_eq!(v.value("OfflinePartitionsCount"), sim.controller.partition(0).leader.is_none() as u64);
                assert!(v.describe.starts_with("\tTopic: highwater\tPartition: 0\tLeader: "), "{}", v.describe);
                assert!(v.value("UnderMinIsrPartitionCount") <= v.value("UnderReplicatedPartitions") || sim.config.min_insync_replicas > sim.config.brokers);
                for m in &v.metrics {
                    if m.name != "OfflinePartitionsCount" {
                        assert_eq!(m.per_broker.len(), sim.config.brokers as usize);
                    }
                }
                // The counts never exceed the events of their kind.
                let shrinks = t.events().iter().filter(|e| matches!(e.event, highwater::Event::IsrShrunk { by_controller: false, .. })).count() as u64;
                assert!(v.value("IsrShrinksPerSec") <= shrinks, "{name} {p} {pos}");
            }
        }
    }
}
