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
    let counts = ["LeaderCount", "PartitionCount"];
    assert!(v.metrics.iter().all(|m| m.value == 0 || counts.contains(&m.name)), "{:?}", values(&v));
    assert_eq!(v.metric("LeaderCount").unwrap().per_broker, vec![Some(1), Some(0), Some(0)]);
    assert_eq!(v.metric("PartitionCount").unwrap().per_broker, vec![Some(1), Some(1), Some(1)]);
    assert!(v.lists.iter().all(|l| l.output.is_empty()));
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
        for p in common::protocols_for(&load(&name)) {
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

/// `kafka-topics.sh --describe` with `--under-replicated-partitions`,
/// `--under-min-isr-partitions` and `--unavailable-partitions`
/// (`TopicCommand.shouldPrint...Partitions`): the lines of the partitions
/// each option lists, and none when no partition is.
#[test]
fn the_describe_lists_filter_the_partition_lines() {
    let name = "cluster/broker-dies-and-returns";
    let healthy = view_at(name, None, 7);
    assert!(healthy.lists.iter().all(|l| l.partitions.is_empty() && l.output.is_empty()), "{:?}", healthy.lists);
    // Broker 2 fenced: every partition it held a replica of is under-replicated.
    let v = view_at(name, None, 9);
    let options: Vec<&str> = v.lists.iter().map(|l| l.option).collect();
    assert_eq!(options, ["--under-replicated-partitions", "--under-min-isr-partitions", "--unavailable-partitions"]);
    let urp = &v.lists[0];
    let lines: Vec<&str> = v.describe.lines().collect();
    assert_eq!(urp.partitions.len(), 4);
    assert_eq!(urp.output, urp.partitions.iter().map(|&p| lines[p as usize]).collect::<Vec<_>>().join("\n"));
    for line in urp.output.lines() {
        let field = |name: &str| line.split('\t').find_map(|f| f.strip_prefix(name)).unwrap().split(',').map(String::from).collect::<Vec<_>>();
        assert!(field("Replicas: ").contains(&"2".to_string()) && !field("Isr: ").contains(&"2".to_string()), "{line}");
    }
    // Two of three in the ISR, min.insync.replicas 2: none under min ISR, none unavailable.
    assert!(v.lists[1].partitions.is_empty() && v.lists[2].partitions.is_empty());
    // The restarted broker back in every ISR, then the preferred election.
    let end = view_at(name, None, end(name));
    assert!(end.lists.iter().all(|l| l.partitions.is_empty()));
}

#[test]
fn an_offline_partition_is_unavailable_and_under_min_isr() {
    let name = "offline-without-unclean";
    let v = view_at(name, None, end(name));
    assert_eq!(v.lists[2].partitions, vec![0]);
    assert_eq!(v.lists[2].output, v.describe);
    assert_eq!(v.lists[1].partitions, vec![0], "TopicCommand.isUnderMinIsr: no leader");
    assert_eq!(v.lists[0].partitions, vec![0], "ISR 1 of replicas 1,2: {}", v.describe);
}

/// `LeaderCount` and `PartitionCount` per broker: broker 2 leads nothing
/// after it returns until the preferred election gives its partitions back.
#[test]
fn leader_count_shows_the_imbalance_and_its_repair() {
    let name = "cluster/broker-dies-and-returns";
    let per_broker = |v: &OperatorView, m: &str| v.metric(m).unwrap().per_broker.clone();
    let s = load(name);
    let mut t = Timeline::new(&s).unwrap();
    let sim = t.current();
    // PartitionCount: the partitions whose assignment names the broker.
    let assigned: Vec<Option<u64>> = (1..=4).map(|b| Some((0..6).filter(|&p| sim.controller.partition(p).replicas.contains(&b)).count() as u64)).collect();
    let start = view_at(name, None, 0);
    assert_eq!(per_broker(&start, "PartitionCount"), assigned);
    assert_eq!(start.value("PartitionCount"), 18, "six partitions, three replicas each");
    // LeaderCount: each partition's preferred leader leads it.
    let preferred: Vec<Option<u64>> = (1..=4).map(|b| Some((0..6).filter(|&p| sim.controller.partition(p).preferred_leader() == b).count() as u64)).collect();
    assert_eq!(per_broker(&start, "LeaderCount"), preferred);
    assert_eq!(start.value("LeaderCount"), preferred.iter().flatten().copied().max().unwrap(), "the busiest broker's");
    assert!(preferred[1] > Some(0), "broker 2 leads some partition");
    // Crashed: no JMX to read; its partitions are led elsewhere.
    let fenced = view_at(name, None, 9);
    assert_eq!(per_broker(&fenced, "LeaderCount")[1], None);
    assert_eq!(per_broker(&fenced, "PartitionCount")[1], None);
    assert_eq!(per_broker(&fenced, "LeaderCount").iter().flatten().sum::<u64>(), 6);
    // Returned and caught up, before the preferred election (step 19).
    t.seek(18).unwrap();
    let back = OperatorView::of_timeline(&t);
    assert_eq!(per_broker(&back, "LeaderCount")[1], Some(0), "it leads nothing");
    assert_eq!(per_broker(&back, "PartitionCount"), assigned);
    let end = view_at(name, None, end(name));
    assert_eq!(per_broker(&end, "LeaderCount"), preferred, "the preferred election restores balance");
}

/// The chart along the timeline: each sample is the view's value at that
/// position, for every gallery scenario.
#[test]
fn the_series_is_the_view_at_each_position() {
    for name in common::scenario_names() {
        let s = load(&name);
        let mut t = Timeline::new(&s).unwrap();
        let series = highwater::view::operator::OperatorSeries::of(&t, 2000);
        assert_eq!(series.positions, (0..=t.len() as u32).collect::<Vec<_>>(), "{name}: every position");
        for (k, &position) in series.positions.iter().enumerate() {
            t.seek(position as usize).unwrap();
            let v = OperatorView::of_timeline(&t);
            assert_eq!(series.time_ms[k], t.current().now_ms, "{name} at {position}");
            for m in &series.metrics {
                assert_eq!(m.values[k], v.value(m.name), "{name}: {} at {position}", m.name);
            }
        }
    }
}

/// Sampled when the run has more steps than the chart has points: the
/// first and the last position always, at most `max_points`.
#[test]
fn a_long_series_is_sampled() {
    let name = "cluster/broker-dies-and-returns";
    let t = Timeline::new(&load(name)).unwrap();
    let series = highwater::view::operator::OperatorSeries::of(&t, 5);
    assert!(series.positions.len() <= 5, "{:?}", series.positions);
    assert_eq!(series.positions.first(), Some(&0));
    assert_eq!(series.positions.last(), Some(&(t.len() as u32)));
    let full = highwater::view::operator::OperatorSeries::of(&t, 2000);
    for (k, &p) in series.positions.iter().enumerate() {
        for (m, f) in series.metrics.iter().zip(&full.metrics) {
            assert_eq!(m.values[k], f.values[p as usize], "{} at {p}", m.name);
        }
    }
    // The under-replicated count rises when broker 2 is fenced and falls back to 0.
    let urp = &full.metrics.iter().find(|m| m.name == "UnderReplicatedPartitions").unwrap().values;
    assert_eq!(urp[0], 0);
    assert_eq!(*urp.iter().max().unwrap(), 4);
    assert_eq!(*urp.last().unwrap(), 0);
}

/// The series kept as the run grows (the page asks after every step):
/// steps added at the end, or an earlier step replaced, give the series a
/// fresh replay of the whole run gives.
#[test]
fn the_series_kept_as_the_run_grows_is_the_whole_replays() {
    use highwater::view::operator::{OperatorSeries, SeriesReplay};
    let s = load("cluster/broker-dies-and-returns");
    let mut short = s.clone();
    short.steps.truncate(5);
    let mut t = Timeline::new(&short).unwrap();
    let mut replay = SeriesReplay::new(&t);
    replay.update(&t);
    assert_eq!(replay.series(2000), OperatorSeries::of(&t, 2000));
    for step in &s.steps[5..] {
        t.apply(step.clone()).unwrap();
        replay.update(&t);
        assert_eq!(replay.series(2000), OperatorSeries::of(&t, 2000), "after {} steps", t.len());
        assert_eq!(replay.series(7), OperatorSeries::of(&t, 7));
    }
    // Back to step 8, and another step there: the future is gone, the series follows.
    t.seek(8).unwrap();
    t.apply(highwater::Step::AdvanceMs(60_000)).unwrap();
    assert_eq!(t.len(), 9);
    replay.update(&t);
    let fresh = OperatorSeries::of(&t, 2000);
    assert_eq!(replay.series(2000), fresh);
    assert_eq!(fresh.positions.len(), 10);
}
