//! Kafka's own unit and integration tests, as Highwater scenarios: one test
//! per Kafka test method modelled, named after it, under the version preset
//! whose rules that test checks, asserting what Kafka's test asserts; and,
//! where a neighbouring preset lacks the rule, that it differs there (so the
//! scenario tests something). Each names the Kafka class and method it
//! follows; the scenarios are this model's, not Kafka's fixtures.

mod common;

use common::{run, Run};
use highwater::model::event::{ElectionKind, Event, ProduceResult, Truncation};
use highwater::model::protocol::{Errors, Message};
use highwater::{Protocol, Scenario};

/// A scenario from its config fields and steps, as JSON text.
fn scenario(protocol: Protocol, config: &str, steps: &str) -> Scenario {
    let comma = if config.is_empty() { "" } else { ", " };
    let text = format!(r#"{{"version": 1, "config": {{"protocol": "{protocol}"{comma}{config}}}, "steps": [{steps}]}}"#);
    Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn count(r: &Run, pred: impl Fn(&Event) -> bool) -> usize {
    r.events.iter().filter(|e| pred(&e.event)).count()
}

fn epochs(r: &Run, broker: u32) -> Vec<u32> {
    r.sim.replica(0, broker).log.epochs().entries().iter().map(|e| e.epoch).collect()
}

fn values(r: &Run, broker: u32) -> Vec<String> {
    r.sim.replica(0, broker).log.records().map(|rec| rec.value.to_string()).collect()
}

fn diverging_answers(r: &Run) -> usize {
    count(r, |e| matches!(e, Event::Sent { message: Message::FetchResponse(resp), .. } if resp.partitions[0].diverging_epoch.is_some()))
}

// ----- log ------------------------------------------------------------------

/// `UnifiedLogTest.testTruncateToEndOffsetClearsEpochCache` (KAFKA-10706):
/// a broker that became leader assigned its epoch at the log end without a
/// record; truncating to the log end (the follower's DivergingEpoch
/// truncation lands exactly there) removes that entry and keeps the older
/// one, with the log end unchanged. Under 2.1 (before the fix) the empty
/// epoch stays after the truncation round.
#[test]
fn unified_log_test_truncate_to_end_offset_clears_epoch_cache() {
    // m0 replicated; broker 2 leads epoch 1 and writes nothing; broker 1
    // leads epoch 2 and writes m1; then broker 2's first fetch round.
    let steps = r#"{"produce": {"value": "m0", "acks": "all"}}, {"fetch": 2}, {"fetch": 2},
                   {"elect": 2}, {"elect": 1}, {"produce": {"value": "m1", "acks": "all"}}, {"fetch": 2}"#;
    for p in [Protocol::V2_8, Protocol::V3_5, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, r#""brokers": 2"#, steps));
        assert_eq!(epochs(&r, 2), vec![0], "{p}: the empty epoch 1 is gone, epoch 0 stays");
        assert_eq!(r.sim.replica(0, 2).log_end_offset(), 1, "{p}: the log end is unchanged");
        assert_eq!(count(&r, |e| matches!(e, Event::EpochCacheTrimmed { broker: 2, epoch: 1, start_offset: 1 })), 1, "{p}");
        // And the follower then catches up instead of looping.
        let more = r#"{"fetch": 2}, {"fetch": 2}"#;
        let r = run(&scenario(p, r#""brokers": 2"#, &format!("{steps}, {more}")));
        assert_eq!(values(&r, 2), ["m0", "m1"], "{p}");
        assert_eq!(diverging_answers(&r), 1, "{p}: one DivergingEpoch, not one per fetch");
        assert_eq!(r.sim.replica(0, 1).high_watermark, 2, "{p}: broker 2 counts towards the HW again");
    }
    let old = run(&scenario(Protocol::V2_1, r#""brokers": 2"#, steps));
    assert_eq!(epochs(&old, 2), vec![0, 1], "2.1: the truncation at the log end left the empty epoch");
    assert_eq!(count(&old, |e| matches!(e, Event::EpochCacheTrimmed { .. })), 0);
}

// ----- partition: HW and ISR ---------------------------------------------------

/// `PartitionTest.testHighWatermarkAdvanceShouldNotAdvanceWhenUnderMinISR`
/// (KAFKA-15583, 3.7): min.insync.replicas 3, ISR of two; a follower fetching
/// to the log end does not move the HW while the ISR is below the minimum,
/// and it moves to the log end once the third replica is back in the ISR.
/// Under 3.5 the HW advances at once.
#[test]
fn partition_test_high_watermark_advance_should_not_advance_when_under_min_isr() {
    let config = r#""brokers": 3, "min_insync_replicas": 3"#;
    // Broker 3 dies and leaves the ISR; m1 is written with acks=1; broker 2 fetches to the log end.
    let steps = r#"{"crash": {"broker": 3}}, {"advance_ms": 9000}, {"produce": {"value": "m1", "acks": "1"}},
                   {"fetch": 2}, {"fetch": 2}"#;
    let r = run(&scenario(Protocol::V3_7, config, steps));
    assert_eq!(r.sim.replica(0, 1).isr.len(), 2);
    assert_eq!(r.sim.replica(0, 1).high_watermark, 0, "3.7: under min ISR the HW stays");
    assert!(count(&r, |e| matches!(e, Event::HighWatermarkHeld { broker: 1, .. })) >= 1);
    // The third replica returns, catches up and rejoins: the HW reaches the log end.
    let back = r#"{"restart": 3}, {"advance_ms": 9000}, {"fetch": 3}, {"fetch": 3}"#;
    let r = run(&scenario(Protocol::V3_7, config, &format!("{steps}, {back}")));
    assert_eq!(r.sim.replica(0, 1).isr.len(), 3);
    assert_eq!(r.sim.replica(0, 1).high_watermark, 1, "3.7: with the ISR at min ISR the HW is the log end");
    let old = run(&scenario(Protocol::V3_5, config, steps));
    assert_eq!(old.sim.replica(0, 1).high_watermark, 1, "3.5: the HW advances under min ISR");
}

// ----- ISR expiration --------------------------------------------------------------

/// `IsrExpirationTest.testIsrExpirationForStuckFollowers`: a follower that
/// stops fetching is removed once it has not caught up for
/// replica.lag.time.max.ms (the leader checks every lag/2).
/// `IsrExpirationTest.testIsrExpirationForCaughtUpFollowers` (KAFKA-7152,
/// 2.1): a follower at the leader's log end is never removed, however long
/// since its last fetch; under 2.0 it is.
#[test]
fn isr_expiration_test_stuck_and_caught_up_followers() {
    let config = r#""brokers": 3, "replica_lag_time_max_ms": 10000"#;
    // Both followers fetch m1 to the log end; then only broker 2 keeps fetching
    // while m2 is written: broker 3 is stuck behind.
    let stuck = r#"{"produce": {"value": "m1", "acks": "1"}}, {"fetch": 2}, {"fetch": 3},
                   {"produce": {"value": "m2", "acks": "1"}}, {"fetch": 2},
                   {"advance_ms": 16000}, {"fetch": 2}"#;
    for p in [Protocol::V2_0, Protocol::V2_1, Protocol::V3_7] {
        let r = run(&scenario(p, config, stuck));
        assert!(!r.sim.replica(0, 1).isr.contains(&3), "{p}: the stuck follower is removed");
        assert!(r.sim.replica(0, 1).isr.contains(&2), "{p}: the fetching follower stays");
    }
    // Nothing more is written: both followers sit at the log end and never fetch again.
    let caught_up = r#"{"produce": {"value": "m1", "acks": "1"}}, {"fetch": 2}, {"fetch": 3}, {"fetch": 2}, {"fetch": 3},
                       {"advance_ms": 60000}"#;
    for p in [Protocol::V2_1, Protocol::V3_7] {
        let r = run(&scenario(p, config, caught_up));
        assert_eq!(r.sim.replica(0, 1).isr.len(), 3, "{p}: followers at the log end are never out of sync");
    }
    let old = run(&scenario(Protocol::V2_0, config, caught_up));
    assert_eq!(old.sim.replica(0, 1).isr.len(), 1, "2.0: only the time counts");
}

// ----- fetcher: truncation ------------------------------------------------------------

/// `AbstractFetcherThreadTest.testDivergingEpochs` (truncate-on-fetch, 2.8,
/// KAFKA-10554): the follower sends its last fetched epoch; the leader, whose
/// log diverges after an older epoch, answers DivergingEpoch with that
/// epoch's end; the follower truncates there, fetches the leader's records,
/// and ends with the leader's log and last epoch. Under 2.1 the same logs
/// are reconciled by an OffsetsForLeaderEpoch round, never by DivergingEpoch.
#[test]
fn abstract_fetcher_thread_test_diverging_epochs() {
    // Broker 1 writes "a" (replicated) and "b" (not); broker 2 takes over and
    // writes "d" in epoch 1; broker 1 follows.
    let steps = r#"{"produce": {"value": "a", "acks": "all"}}, {"fetch": 2}, {"fetch": 2},
                   {"produce": {"value": "b", "acks": "1"}},
                   {"elect": 2}, {"produce": {"value": "d", "acks": "1"}},
                   {"fetch": 1}, {"fetch": 1}"#;
    for p in [Protocol::V2_8, Protocol::V3_5, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, r#""brokers": 2"#, steps));
        let first = r.events.iter().find_map(|e| match &e.event {
            Event::Sent { message: Message::Fetch(f), .. } if f.follower == 1 => Some((f.partitions[0].fetch_offset, f.partitions[0].last_fetched_epoch)),
            _ => None,
        });
        assert_eq!(first, Some((2, Some(0))), "{p}: the fetch carries the last fetched epoch");
        assert_eq!(diverging_answers(&r), 1, "{p}");
        assert!(r.events.iter().any(|e| matches!(e.event, Event::Truncated { broker: 1, from: 2, to: 1, truncation: Truncation::DivergingEpoch { epoch: 0, end_offset: 1, .. } })), "{p}");
        assert_eq!(values(&r, 1), values(&r, 2), "{p}: the logs are reconciled");
        assert_eq!(r.sim.replica(0, 1).log.last_epoch(), Some(1), "{p}: last fetched epoch is the leader's");
    }
    let old = run(&scenario(Protocol::V2_1, r#""brokers": 2"#, steps));
    assert_eq!(diverging_answers(&old), 0, "2.1: no DivergingEpoch");
    assert!(old.events.iter().any(|e| matches!(e.event, Event::Sent { message: Message::OffsetsForLeaderEpoch(_), .. })));
    assert_eq!(values(&old, 1), values(&old, 2));
}

/// `AbstractFetcherThreadTest.testTruncateOnFetchDoesNotProcessPartitionData`
/// (KAFKA-14704, 3.5): a DivergingEpoch answer's partition data, the HW
/// with it, is not processed before the truncation. Under 2.8 the follower
/// first takes the leader's HW, above the point where its log diverges, and
/// lowers it again when it truncates.
#[test]
fn abstract_fetcher_thread_test_truncate_on_fetch_does_not_process_partition_data() {
    // "a" committed on all three; "b" on broker 1 only; broker 1 dies, broker 2
    // leads and commits "c" with broker 3; broker 1 returns and fetches.
    let steps = r#"{"produce": {"value": "a", "acks": "all"}}, {"fetch": 2}, {"fetch": 3}, {"fetch": 2}, {"fetch": 3},
                   {"produce": {"value": "b", "acks": "1"}}, {"crash": {"broker": 1}}, {"advance_ms": 20000},
                   {"produce": {"value": "c", "acks": "all"}}, {"fetch": 3}, {"fetch": 3},
                   {"restart": 1}, {"fetch": 1}"#;
    let hw_moves = |r: &Run| -> Vec<(u64, u64)> {
        r.events
            .iter()
            .filter(|e| e.step == 13)
            .filter_map(|e| match e.event {
                Event::HighWatermarkChanged { broker: 1, from, to, .. } => Some((from, to)),
                _ => None,
            })
            .collect()
    };
    let r = run(&scenario(Protocol::V3_5, r#""brokers": 3"#, steps));
    assert_eq!(diverging_answers(&r), 1);
    assert_eq!(r.sim.replica(0, 2).high_watermark, 2);
    assert_eq!(hw_moves(&r), [], "3.5: truncation first; the response's HW 2 is not taken");
    let old = run(&scenario(Protocol::V2_8, r#""brokers": 3"#, steps));
    assert_eq!(diverging_answers(&old), 1);
    // Broker 1 restarted with the HW of its checkpoint, 0.
    assert_eq!(hw_moves(&old), [(0, 2), (2, 1)], "2.8: HW 2 from the response, over the diverging b, then 1 by the truncation");
}

/// `ReplicaFetcherThreadTest.shouldTruncateToOffsetSpecifiedInEpochOffsetResponse`
/// (KIP-101, 0.11 to 2.7 before truncate-on-fetch): a new follower asks
/// OffsetsForLeaderEpoch for its latest epoch and truncates to the end
/// offset the leader answers (no lower), then fetches. Under 0.10 it
/// truncates to its own HW instead; under 2.8 no OffsetsForLeaderEpoch is
/// sent (DivergingEpoch in the fetch).
#[test]
fn replica_fetcher_thread_test_should_truncate_to_offset_specified_in_epoch_offset_response() {
    // "a" committed on both; "b" on broker 1 only; broker 1 dies, broker 2
    // leads epoch 1 and writes "c"; broker 1 returns as a follower.
    let steps = r#"{"produce": {"value": "a", "acks": "all"}}, {"fetch": 2}, {"fetch": 2},
                   {"produce": {"value": "b", "acks": "1"}}, {"crash": {"broker": 1}}, {"advance_ms": 20000},
                   {"produce": {"value": "c", "acks": "1"}}, {"restart": 1}, {"fetch": 1}, {"fetch": 1}"#;
    for p in [Protocol::V0_11, Protocol::V2_0, Protocol::V2_1] {
        let r = run(&scenario(p, r#""brokers": 2"#, steps));
        let asked = r.events.iter().find_map(|e| match &e.event {
            Event::Sent { message: Message::OffsetsForLeaderEpoch(o), .. } if o.follower == 1 => Some(o.partitions[0].leader_epoch),
            _ => None,
        });
        assert_eq!(asked, Some(0), "{p}: the follower asks for its latest epoch");
        let truncated = r.events.iter().find_map(|e| match e.event {
            Event::Truncated { broker: 1, from, to, truncation: Truncation::LeaderEpoch { end_offset, .. } | Truncation::EpochEndOffset { end_offset, .. } } => {
                Some((from, to, end_offset))
            }
            _ => None,
        });
        assert_eq!(truncated, Some((2, 1, 1)), "{p}: to the leader's end offset of epoch 0");
        assert_eq!(values(&r, 1), ["a", "c"], "{p}");
    }
    let old = run(&scenario(Protocol::V0_10, r#""brokers": 2"#, steps));
    assert!(
        old.events.iter().any(|e| matches!(e.event, Event::Truncated { broker: 1, from: 2, to: 0, truncation: Truncation::HighWatermark { high_watermark: 0 } })),
        "0.10: to its own (checkpointed) HW, below the committed a"
    );
    let new = run(&scenario(Protocol::V2_8, r#""brokers": 2"#, steps));
    assert!(!new.events.iter().any(|e| matches!(e.event, Event::Sent { message: Message::OffsetsForLeaderEpoch(_), .. })), "2.8: none sent");
    assert_eq!(values(&new, 1), ["a", "c"]);
}

// ----- controller ---------------------------------------------------------------------

/// `PartitionChangeBuilderTest.testTriggerLeaderEpochBumpIfNeeded` (KRaft,
/// 3.0; before metadata.version 3.6): a target ISR that drops a member bumps
/// the leader epoch with the leader unchanged; one that only adds does not.
/// From 3.6 (the 3.7 preset) a shrink keeps the epoch
/// (`testIsrChangeDoesntBumpLeaderEpoch`).
#[test]
fn partition_change_builder_test_trigger_leader_epoch_bump_if_needed() {
    let config = r#""brokers": 3"#;
    // Follower 3 never fetches: the leader shrinks the ISR at 45 s; then it
    // fetches twice and rejoins (an expansion).
    let steps = r#"{"produce": {"value": "m1", "acks": "1"}}, {"fetch": 2}, {"advance_ms": 20000}, {"fetch": 2},
                   {"advance_ms": 10000}, {"fetch": 2}, {"advance_ms": 15000}, {"fetch": 3}, {"fetch": 3}"#;
    let r = run(&scenario(Protocol::V3_5, config, steps));
    assert!(count(&r, |e| matches!(e, Event::IsrShrunk { removed, .. } if removed.as_slice() == [3])) == 1);
    assert!(count(&r, |e| matches!(e, Event::IsrExpanded { added: 3, .. })) == 1);
    assert_eq!(count(&r, |e| matches!(e, Event::LeaderEpochBumped { leader: 1, leader_epoch: 1 })), 1, "3.5: the shrink bumps, the expansion does not");
    assert_eq!(r.sim.controller.partition(0).leader_epoch, 1);
    assert_eq!(r.sim.controller.partition(0).leader, Some(1), "the leader is unchanged");
    let new = run(&scenario(Protocol::V3_7, config, steps));
    assert_eq!(new.sim.controller.partition(0).leader_epoch, 0, "3.7 (metadata.version 3.6+): no bump");
}

/// `UncleanLeaderElectionTest.testUncleanLeaderElectionEnabled` /
/// `testUncleanLeaderElectionDisabled`: with the only ISR member down, a
/// replica outside the ISR is elected only when
/// unclean.leader.election.enable is true, and the record only the old
/// leader had is lost; otherwise the partition stays offline. The default
/// was true until 0.11 (KIP-106).
#[test]
fn unclean_leader_election_test_enabled_and_disabled() {
    // Follower 2 dies and leaves the ISR; leader 1 alone acknowledges m2; then
    // leader 1 dies and broker 2 returns.
    let steps = r#"{"produce": {"value": "m1", "acks": "all"}}, {"fetch": 2}, {"fetch": 2},
                   {"crash": {"broker": 2}}, {"advance_ms": 20000}, {"produce": {"value": "m2", "acks": "all"}},
                   {"crash": {"broker": 1}}, {"restart": 2}, {"advance_ms": 20000}"#;
    for p in Protocol::ALL {
        let enabled = run(&scenario(p, r#""brokers": 2, "unclean_leader_election": true"#, steps));
        assert_eq!(enabled.sim.controller.partition(0).leader, Some(2), "{p}: broker 2 elected");
        assert_eq!(count(&enabled, |e| matches!(e, Event::LeaderElected { kind: ElectionKind::Unclean, .. })), 1, "{p}");
        assert!(!values(&enabled, 2).contains(&"m2".to_string()), "{p}: m2 is lost");
        let disabled = run(&scenario(p, r#""brokers": 2, "unclean_leader_election": false"#, steps));
        assert_eq!(disabled.sim.controller.partition(0).leader, None, "{p}: offline");
        assert!(count(&disabled, |e| matches!(e, Event::PartitionOffline { .. })) >= 1);
    }
    let default = |p: Protocol| scenario(p, r#""brokers": 2"#, "").config.unclean_leader_election;
    assert!(default(Protocol::V0_10) && !default(Protocol::V0_11), "KIP-106: the default turned off in 0.11");
}

// ----- producer ----------------------------------------------------------------------

/// `ProducerFailureHandlingTest.testNotEnoughReplicasAfterBrokerShutdown`:
/// min.insync.replicas 2 of 2; once a follower is shut down and out of the
/// ISR, an acks=all send fails with NotEnoughReplicas (retriable: the client
/// retries, and the application sees it fail), the record is not appended,
/// while acks=1 still succeeds. The exception is the last error after the
/// retries from 2.1 (KIP-91); before, the first answer.
#[test]
fn producer_failure_handling_test_not_enough_replicas_after_broker_shutdown() {
    let config = r#""brokers": 2, "min_insync_replicas": 2"#;
    let steps = r#"{"produce": {"value": "m1", "acks": "all"}}, {"fetch": 2}, {"fetch": 2},
                   {"crash": {"broker": 2}}, {"advance_ms": 30000},
                   {"produce": {"value": "refused", "acks": "all"}}, {"produce": {"value": "accepted", "acks": "1"}},
                   {"advance_ms": 130000}"#;
    for p in Protocol::ALL {
        let r = run(&scenario(p, config, steps));
        let requests = &r.sim.producer.requests;
        assert_eq!(highwater::view::state::result_name(requests[0].status), "acked", "{p}");
        assert_eq!(highwater::view::state::result_name(requests[2].status), "acked", "{p}: acks=1 still succeeds");
        let refused = count(&r, |e| matches!(e, Event::ProduceResponse { request: 1, result: ProduceResult::Error(Errors::NotEnoughReplicas), .. }));
        assert!(refused >= 1, "{p}: NOT_ENOUGH_REPLICAS");
        assert!(!values(&r, 1).contains(&"refused".to_string()), "{p}: not appended");
        let last_error = requests[1].last_error.map(|e| e.name());
        assert_eq!(last_error, Some("NOT_ENOUGH_REPLICAS"), "{p}");
        let final_result = highwater::view::state::result_name(requests[1].status);
        let expected = if p >= Protocol::V2_1 { "REQUEST_TIMED_OUT" } else { "NOT_ENOUGH_REPLICAS" };
        assert_eq!(final_result, expected, "{p}: after retries until delivery.timeout.ms (2.1+), else the first answer");
    }
}

// ----- fencing and controlled shutdown --------------------------------------

/// `PartitionTest.testIsrNotExpandedIfReplicaIsFencedOrShutdown` (KIP-841,
/// 3.3), the fenced half: broker 2 fell out of the ISR (the leader's lag
/// check), then lost the controller only, so its session expired and it is
/// fenced; it still fetches from the leader up to the log end. The leader
/// does not add it back (`Partition.isReplicaIsrEligible`) until it reaches
/// the controller again and is unfenced. Under 2.8, before KIP-841, the
/// caught-up fenced replica is added back at once. The shutting-down half
/// sets the controller's flag directly (no step leaves a broker up in
/// controlled shutdown yet).
#[test]
fn partition_test_isr_not_expanded_if_replica_is_fenced_or_shutdown() {
    let config = r#""brokers": 2, "replica_lag_time_max_ms": 1000"#;
    let steps = r#"{"produce": {"value": "m1", "acks": "1"}}, {"advance_ms": 2000},
                   {"cut_controller": 2}, {"advance_ms": 20000}, {"fetch": 2}, {"fetch": 2}"#;
    for p in [Protocol::V3_5, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, config, steps));
        assert!(r.sim.controller.is_fenced(2), "{p}: broker 2's session expired");
        assert_eq!(r.sim.replica(0, 2).log_end_offset(), 1, "{p}: broker 2 fetched to the log end");
        assert_eq!(r.sim.replica(0, 1).isr.to_vec(), vec![1], "{p}: a fenced replica is not added to the ISR");
        let r = run(&scenario(p, config, &format!(r#"{steps}, {{"heal": 2}}, {{"fetch": 2}}"#)));
        assert!(!r.sim.controller.is_fenced(2), "{p}");
        assert_eq!(r.sim.replica(0, 1).isr.to_vec(), vec![1, 2], "{p}: unfenced, it rejoins the ISR");
    }
    let old = run(&scenario(Protocol::V2_8, config, steps));
    assert!(old.sim.controller.is_fenced(2));
    assert_eq!(old.sim.replica(0, 1).isr.to_vec(), vec![1, 2], "2.8: the fenced replica is added back");

    // The shutting-down half. No step leaves a broker up in controlled
    // shutdown (`controlled_shutdown` stops it in the same step), so, as
    // Kafka's test stubs `MetadataCache.isBrokerShuttingDown`, the
    // controller's flag is set directly on a running simulation.
    let shutting_down = |p: Protocol| {
        let steps = r#"{"produce": {"value": "m1", "acks": "1"}}, {"advance_ms": 2000}"#;
        let mut r = run(&scenario(p, config, steps));
        assert_eq!(r.sim.replica(0, 1).isr.to_vec(), vec![1], "{p}: broker 2 fell behind and left the ISR");
        r.sim.controller.shutting_down[1] = true;
        r.sim.apply(&highwater::model::step::Step::fetch(2));
        r.sim.apply(&highwater::model::step::Step::fetch(2));
        assert_eq!(r.sim.replica(0, 2).log_end_offset(), 1, "{p}: broker 2 fetched to the log end");
        r.sim.replica(0, 1).isr.to_vec()
    };
    for p in [Protocol::V3_5, Protocol::V3_7, Protocol::V4_1] {
        assert_eq!(shutting_down(p), vec![1], "{p}: a shutting-down replica is not added to the ISR");
    }
    assert_eq!(shutting_down(Protocol::V2_8), vec![1, 2], "2.8: the shutting-down replica is added back");
}

/// Controlled shutdown (`KafkaController.doControlledShutdown`; KRaft
/// `ReplicationControlManager.handleBrokerInControlledShutdown`): the leader
/// asks to stop; leadership moves to another ISR member in a new epoch, the
/// broker leaves the ISR, then stops. No acknowledged acks=all write is
/// lost, the new leader takes writes at once (no session timeout to wait
/// for), and a restart registers at once. A crash, by contrast, leaves the
/// partition on the dead leader until its session expires.
#[test]
fn controlled_shutdown_moves_leadership_before_the_broker_stops() {
    let steps = r#"{"produce": {"value": "m1", "acks": "all"}}, {"fetch": 2}, {"fetch": 3}, {"fetch": 2}, {"fetch": 3},
                   {"controlled_shutdown": 1}, {"produce": {"value": "m2", "acks": "all"}},
                   {"fetch": 3}, {"fetch": 3}, {"fetch": 3}"#;
    for p in Protocol::ALL {
        let r = run(&scenario(p, r#""brokers": 3"#, steps));
        assert_eq!(r.sim.controller.partition(0).leader, Some(2), "{p}: leadership moved to the first ISR member left");
        assert_eq!(r.sim.controller.partition(0).isr.to_vec(), vec![2, 3], "{p}");
        assert!(!r.sim.broker(1).alive, "{p}: broker 1 stopped");
        assert_eq!(values(&r, 2), ["m1", "m2"], "{p}");
        assert_eq!(r.violations(highwater::ViolationKind::AckedWriteLost).len(), 0, "{p}");
        assert_eq!(count(&r, |e| matches!(e, Event::LeaderElected { kind: ElectionKind::Clean, .. })), 1, "{p}");
        let acked = count(&r, |e| matches!(e, Event::ProduceResponse { result: ProduceResult::Acked, acks: highwater::model::step::Acks::All, .. }));
        assert_eq!(acked, 2, "{p}: both writes acknowledged");
        let r = run(&scenario(p, r#""brokers": 3"#, &format!(r#"{steps}, {{"restart": 1}}"#)));
        assert!(r.sim.broker(1).alive, "{p}: a cleanly stopped broker registers at once");
        assert_eq!(r.sim.replica(0, 1).high_watermark, 1, "{p}: its HW was checkpointed on the way down");
    }
    let crash = run(&scenario(Protocol::V3_7, r#""brokers": 3"#, &steps.replace(r#"{"controlled_shutdown": 1}"#, r#"{"crash": {"broker": 1}}"#)));
    assert_eq!(crash.sim.controller.partition(0).leader, Some(1), "a crashed leader stays leader until its session expires");
}

// ----- the producer's send order ---------------------------------------------

/// The offsets the leader gave each value, in log order.
fn log_order(r: &Run, broker: u32) -> Vec<String> {
    values(r, broker)
}

/// `SenderTest.testIdempotenceWithMultipleInflightsRetriedInOrder`: several
/// requests in flight fail; an idempotent client sends them again one at a
/// time, in sequence order, and a record handed to it meanwhile waits until
/// they complete. Here m1 and m2 wait (acks=all) at leader 1 when broker 2
/// takes over; m3 is produced while they are being retried. Without
/// idempotence the failed batches go back to the front of the deque one
/// after the other (`RecordAccumulator.reenqueue`: `addFirst`), so m2 is
/// sent again before m1: the reordering `max.in.flight.requests.per.connection`
/// above 1 allows (its documentation in `ProducerConfig`); with at most one
/// in flight the order holds.
#[test]
fn sender_test_idempotence_with_multiple_inflights_retried_in_order() {
    let steps = r#"{"produce": {"value": "m1", "acks": "all"}}, {"produce": {"value": "m2", "acks": "all"}},
                   {"elect": 2}, {"produce": {"value": "m3", "acks": "all"}},
                   {"advance_ms": 100}, {"fetch": 3}, {"fetch": 1}, {"fetch": 3}, {"fetch": 1}, {"fetch": 3}, {"fetch": 1},
                   {"fetch": 3}, {"fetch": 1}, {"fetch": 3}, {"fetch": 1}, {"fetch": 3}, {"fetch": 1}"#;
    for p in [Protocol::V2_1, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, r#""enable_idempotence": true"#, steps));
        assert_eq!(log_order(&r, 2), ["m1", "m2", "m3"], "{p}: idempotent, sent again in order");
        let acked = r.sim.producer.requests.iter().filter(|q| q.status == highwater::model::clients::accumulator::Status::Done(ProduceResult::Acked)).count();
        assert_eq!(acked, 3, "{p}: every record acknowledged");
        assert!(r.sim.violations.is_empty(), "{p}: {:?}", r.sim.violations);
        // Without idempotence, five in flight: reordered on retry.
        let r = run(&scenario(p, r#""enable_idempotence": false"#, steps));
        assert_eq!(log_order(&r, 2), ["m2", "m1", "m3"], "{p}: not idempotent, the retries go back to the front in turn");
        // One in flight: m2 is not sent before m1 is answered, and the order holds.
        let r = run(&scenario(p, r#""enable_idempotence": false, "max_in_flight_requests_per_connection": 1"#, steps));
        assert_eq!(log_order(&r, 2), ["m1", "m2", "m3"], "{p}: one in flight keeps the order");
    }
}

/// `KafkaProducerTest.testInflightRequestsAndIdempotenceForIdempotentProducers`
/// (3.7.0): six in flight with `enable.idempotence` unset turns idempotence
/// off and keeps six; six with it set to true is refused. And 0.11's client
/// (`KafkaProducer.configureInflightRequests` at 0.11.0.0): idempotence
/// lowers the default to one in flight and refuses any other number; from
/// 1.0 (KAFKA-5494) up to five are allowed. 0.10 has no idempotent producer.
#[test]
fn kafka_producer_test_inflight_requests_and_idempotence_for_idempotent_producers() {
    let read = |p: Protocol, config: &str| {
        let text = format!(r#"{{"version": 1, "config": {{"protocol": "{p}", {config}}}, "steps": []}}"#);
        Scenario::from_json(&text).map(|s| (s.config.enable_idempotence, s.config.max_in_flight_requests_per_connection))
    };
    for p in [Protocol::V3_5, Protocol::V3_7, Protocol::V4_1] {
        assert_eq!(read(p, r#""max_in_flight_requests_per_connection": 6"#).unwrap(), (false, 6), "{p}");
        let refused = read(p, r#""max_in_flight_requests_per_connection": 6, "enable_idempotence": true"#).unwrap_err();
        assert!(refused.0.contains("6 is more than 5, the most enable_idempotence allows"), "{p}: {}", refused.0);
        assert_eq!(read(p, r#""max_in_flight_requests_per_connection": 5"#).unwrap(), (true, 5), "{p}");
    }
    // 0.11: one in flight when idempotent, five otherwise; two are refused.
    assert_eq!(read(Protocol::V0_11, r#""enable_idempotence": true"#).unwrap(), (true, 1));
    assert_eq!(read(Protocol::V0_11, r#""enable_idempotence": false"#).unwrap(), (false, 5));
    let refused = read(Protocol::V0_11, r#""enable_idempotence": true, "max_in_flight_requests_per_connection": 2"#).unwrap_err();
    assert!(refused.0.contains("2 is more than 1, the most enable_idempotence allows in 0.11"), "{}", refused.0);
    // 2.0 (standing for 1.0 - 2.0): up to five.
    assert_eq!(read(Protocol::V2_0, r#""enable_idempotence": true"#).unwrap(), (true, 5));
    let refused = read(Protocol::V0_10, r#""enable_idempotence": true"#).unwrap_err();
    assert!(refused.0.contains("the idempotent producer came in 0.11 (KIP-98)"), "{}", refused.0);
    // Switching versions moves the defaults with it, as it does every other.
    let c = highwater::Config::for_protocol(Protocol::V2_0);
    let c = highwater::Config { enable_idempotence: true, ..c };
    let eleven = c.with_protocol(Protocol::V0_11);
    assert_eq!((eleven.enable_idempotence, eleven.max_in_flight_requests_per_connection), (true, 1));
    assert!(eleven.validate().is_ok());
    let back = eleven.with_protocol(Protocol::V2_0);
    assert_eq!(back.max_in_flight_requests_per_connection, 5);
    assert!(!c.with_protocol(Protocol::V0_10).enable_idempotence, "0.10's client has none");
    // Under 0.11, one in flight: m2 is sent only once m1 is answered.
    let steps = r#"{"produce": {"value": "m1", "acks": "all"}}, {"produce": {"value": "m2", "acks": "all"}}"#;
    let r = run(&scenario(Protocol::V0_11, r#""enable_idempotence": true"#, steps));
    assert_eq!(count(&r, |e| matches!(e, Event::ProduceQueued { .. })), 1, "m2 waits in the client");
    let r = run(&scenario(Protocol::V2_0, r#""enable_idempotence": true"#, steps));
    assert_eq!(count(&r, |e| matches!(e, Event::ProduceQueued { .. })), 0, "1.0 - 2.0: both in flight");
}

/// The issue's reproducer of the overtaking retry, and
/// `RecordAccumulatorTest.testRetryBackoff`: a batch waiting out
/// `retry.backoff.ms` at the front of the deque holds back the batches
/// behind it. m1 is refused (NOT_ENOUGH_REPLICAS); m2, produced while m1
/// waits to be sent again, waits behind it, and is written after it once
/// the ISR is back.
#[test]
fn record_accumulator_test_retry_backoff_holds_later_batches() {
    let steps = r#"{"crash": {"broker": 2}}, {"advance_ms": 20000},
                   {"produce": {"value": "m1", "acks": "all"}}, {"produce": {"value": "m2", "acks": "all"}},
                   {"restart": 2}, {"fetch": 2}, {"advance_ms": 200}, {"fetch": 2}, {"fetch": 2}"#;
    // From 2.1 (KIP-91): before, `retries` was 0 and m1 failed at once.
    for p in [Protocol::V2_1, Protocol::V2_8, Protocol::V3_7] {
        let r = run(&scenario(p, r#""brokers": 2, "min_insync_replicas": 2"#, steps));
        let queued = count(&r, |e| matches!(e, Event::ProduceQueued { request: 1, behind: Some(0), .. }));
        assert_eq!(queued, 1, "{p}: m2 waits behind m1");
        assert_eq!(log_order(&r, 1), ["m1", "m2"], "{p}: written in send order");
    }
}

/// `SenderTest.testWhenFirstBatchExpireNoSendSecondBatchIfGuaranteeOrder`:
/// with one request in flight (the partition muted while it is out), a
/// second record waits in the client; when the first expires, the second is
/// sent. m1 waits at the leader (acks=all) for broker 2, which never fetches;
/// its `request.timeout.ms` runs out with its `delivery.timeout.ms` too.
#[test]
fn sender_test_when_first_batch_expire_no_send_second_batch_if_guarantee_order() {
    let steps = r#"{"produce": {"value": "m1", "acks": "all"}}, {"produce": {"value": "m2", "acks": "all"}}"#;
    let config = r#""brokers": 2, "max_in_flight_requests_per_connection": 1, "request_timeout_ms": 5000, "delivery_timeout_ms": 5050"#;
    let r = run(&scenario(Protocol::V3_7, config, steps));
    assert_eq!(log_order(&r, 1), ["m1"], "m2 is not sent while m1 is in flight");
    assert_eq!(count(&r, |e| matches!(e, Event::ProduceQueued { request: 1, behind: None, in_flight: 1, .. })), 1);
    let r = run(&scenario(Protocol::V3_7, config, &format!("{steps}, {{\"advance_ms\": 5000}}")));
    let expired = |id: u64| count(&r, |e| matches!(e, Event::ProduceResponse { request, expired: Some(_), .. } if *request == id));
    assert_eq!(expired(0), 1, "m1 expires");
    assert_eq!(log_order(&r, 1), ["m1", "m2"], "then m2 is sent");
    // Acknowledged instead: m2 goes once m1 is answered.
    let r = run(&scenario(Protocol::V3_7, config, &format!("{steps}, {{\"fetch\": 2}}, {{\"fetch\": 2}}")));
    assert_eq!(log_order(&r, 1), ["m1", "m2"]);
    // Five in flight (the default): both are sent at once.
    let r = run(&scenario(Protocol::V3_7, r#""brokers": 2"#, steps));
    assert_eq!(log_order(&r, 1), ["m1", "m2"]);
    assert_eq!(count(&r, |e| matches!(e, Event::ProduceQueued { .. })), 0);
}

/// `RecordAccumulatorTest.testExpiredBatches`: a batch that waits in the
/// accumulator past `delivery.timeout.ms` expires there, never sent. m2
/// waits behind m1, which holds the one in-flight request; m1 is sent again
/// after its request times out, and m2's time runs out in the queue.
#[test]
fn record_accumulator_test_expired_batches() {
    let steps = r#"{"produce": {"value": "m1", "acks": "all"}}, {"produce": {"value": "m2", "acks": "all"}}, {"advance_ms": 9000}"#;
    let config = r#""brokers": 2, "max_in_flight_requests_per_connection": 1, "request_timeout_ms": 5000, "delivery_timeout_ms": 8000"#;
    let r = run(&scenario(Protocol::V3_7, config, steps));
    let unsent = count(&r, |e| {
        matches!(e, Event::ProduceResponse { request: 1, expired: Some(highwater::model::event::Expiry { last_error: None, .. }), .. })
    });
    assert_eq!(unsent, 1, "m2 expires in the client, never sent");
    let m2 = &r.sim.producer.requests[1];
    assert_eq!((m2.attempts, m2.offset), (0, None));
    assert_eq!(r.sim.producer.requests[1].status, highwater::model::clients::accumulator::Status::Done(ProduceResult::Error(Errors::RequestTimedOut)));
    // Before 2.1 (no delivery.timeout.ms, KIP-91) a record in the client
    // expired after request.timeout.ms: the same, sooner.
    let r = run(&scenario(Protocol::V2_0, &format!("{config}, \"retries\": 5"), steps));
    assert_eq!(count(&r, |e| matches!(e, Event::ProduceResponse { request: 1, expired: Some(_), .. })), 1);
    // `expiredBatches` has no acks check: an acks=0 record that cannot be
    // sent (the partition has no leader) waits and expires too; it is not
    // reported sent, nor failed at once.
    let steps = r#"{"crash": {"broker": 1}}, {"advance_ms": 10000}, {"produce": {"value": "m1", "acks": "0"}}, {"advance_ms": 120000}"#;
    for p in [Protocol::V2_1, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, r#""brokers": 1"#, steps));
        let expired: Vec<u64> = r
            .events
            .iter()
            .filter(|e| matches!(&e.event, Event::ProduceResponse { request: 0, expired: Some(x), .. } if x.last_error == Some(Errors::LeaderNotAvailable)))
            .map(|e| e.time_ms)
            .collect();
        // A record waiting in the client fails at its last look at the
        // metadata before the timeout, up to retry.backoff.ms early (docs/model.md).
        assert!(expired.len() == 1 && (129_900..=130_000).contains(&expired[0]), "{p}: acks=0 expires at its delivery timeout\n{}", r.trace());
        assert_eq!(r.sim.producer.requests[0].status, highwater::model::clients::accumulator::Status::Done(ProduceResult::Error(Errors::RequestTimedOut)));
    }
}

/// `AbstractFetcherThreadTest.testTruncateToHighWatermarkIfLeaderEpochInfoNotAvailable`
/// and the `leader-epoch` tour's modern stop: a follower whose log holds no
/// epoch (an empty log) sends no OffsetsForLeaderEpoch (`fetchTruncatingPartitions`
/// puts it with the partitions without epochs, which truncate to their HW),
/// and fetches without a last fetched epoch.
#[test]
fn abstract_fetcher_thread_test_truncate_to_high_watermark_if_leader_epoch_info_not_available() {
    let steps = r#"{"crash": {"broker": 1}}, {"advance_ms": 20000}, {"fetch": 3}, {"produce": {"value": "m1", "acks": "1"}}, {"fetch": 3}"#;
    for p in [Protocol::V0_11, Protocol::V2_1, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, "", steps));
        assert_eq!(r.sim.controller.partition(0).leader, Some(2), "{p}");
        let asked = count(&r, |e| matches!(e, Event::Sent { message: Message::OffsetsForLeaderEpoch(_), .. }));
        assert_eq!(asked, 0, "{p}: an empty log asks nothing\n{}", r.trace());
        assert_eq!(values(&r, 3), ["m1"], "{p}");
    }
}

/// `SenderTest.testInflightBatchesExpireOnDeliveryTimeout`
/// (`Sender.getExpiredInflightBatches`, 2.1, KIP-91): a batch whose
/// `delivery.timeout.ms` passes while its request is in flight fails then,
/// with a TimeoutException, and the answer that comes later does not turn it
/// into an ack. m1 waits at the leader for broker 2, which does not fetch
/// (and stays in the ISR: a long `replica.lag.time.max.ms`):
/// its request times out at 30 s and it is sent again three times; the last
/// attempt goes at 90.3 s, and its request timeout (120.3 s) comes after
/// the delivery timeout (120 s). Broker 2 then fetches and the HW passes m1:
/// the record is committed, and the application was told it failed.
#[test]
fn sender_test_inflight_batches_expire_on_delivery_timeout() {
    let steps = r#"{"produce": {"value": "m1", "acks": "all"}}, {"advance_ms": 119950}, {"advance_ms": 100},
                   {"fetch": 2}, {"fetch": 2}"#;
    for p in [Protocol::V2_1, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, r#""brokers": 2, "replica_lag_time_max_ms": 300000"#, steps));
        let expired: Vec<u64> = r
            .events
            .iter()
            .filter(|e| matches!(&e.event, Event::ProduceResponse { request: 0, expired: Some(x), .. } if x.in_flight && x.timeout == "delivery.timeout.ms"))
            .map(|e| e.time_ms)
            .collect();
        assert_eq!(expired, [120_000], "{p}: m1 fails at its delivery timeout, in flight");
        let m1 = &r.sim.producer.requests[0];
        assert_eq!(m1.status, highwater::model::clients::accumulator::Status::Done(ProduceResult::Error(Errors::RequestTimedOut)), "{p}: not acked later");
        assert_eq!(count(&r, |e| matches!(e, Event::ProduceResponse { result: ProduceResult::Acked, .. })), 0, "{p}");
        assert!(r.sim.replica(0, 1).high_watermark >= 1, "{p}: the record is committed all the same");
        assert!(r.trace().contains("ran out while its request was in flight"), "{p}");
    }
    // Before 2.1 there is no delivery.timeout.ms: the attempt in flight ends
    // with its request.timeout.ms, and a retry is another attempt.
    let r = run(&scenario(Protocol::V2_0, r#""brokers": 2, "replica_lag_time_max_ms": 300000, "retries": 5"#, steps));
    assert_eq!(count(&r, |e| matches!(e, Event::ProduceResponse { expired: Some(x), .. } if x.in_flight)), 0);
}

// ----- AlterPartition and the maximal ISR --------------------------------------

/// `PartitionTest.testIsrExpansion` and `testIsrNotExpandedIfUpdateFails`
/// (KIP-497): a follower that catches up is proposed to the controller; until
/// the answer the ISR stays as committed and the maximal ISR holds the new
/// member, which the HW and acks=all then wait for (`maybeIncrementLeaderHW`,
/// `checkEnoughReplicasReachOffset`). Here the leader cannot reach the
/// controller (`cut_controller`), so its AlterPartition stays pending: m2
/// (acks=1) is not committed until broker 2 has it, and m3 (acks=all) waits
/// for broker 2 too; under 2.1 too (below). Healing the link answers the
/// request: the ISR becomes the maximal ISR.
#[test]
fn partition_test_isr_expansion_counts_the_maximal_isr() {
    let steps = r#"{"crash": {"broker": 2}}, {"advance_ms": 20000}, {"produce": {"value": "m1", "acks": "1"}},
                   {"cut_controller": 1}, {"restart": 2}, {"fetch": 2}, {"fetch": 2},
                   {"produce": {"value": "m2", "acks": "1"}}, {"produce": {"value": "m3", "acks": "all"}}"#;
    let acked = |r: &Run, id: usize| r.sim.producer.requests[id].status == highwater::model::clients::accumulator::Status::Done(ProduceResult::Acked);
    for p in [Protocol::V2_8, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, r#""brokers": 2"#, steps));
        let leader = r.sim.replica(0, 1);
        assert_eq!((leader.isr.to_vec(), leader.maximal_isr().to_vec()), (vec![1], vec![1, 2]), "{p}: pending expansion");
        assert_eq!(r.sim.high_watermark_members(0, 1).to_vec(), vec![1, 2], "{p}");
        assert_eq!(leader.high_watermark, 1, "{p}: m2 waits for broker 2, in the maximal ISR");
        assert!(!acked(&r, 2), "{p}: m3 (acks=all) waits for broker 2");
        // Broker 2 fetches m2 and m3: both committed, the ISR still as committed.
        let r = run(&scenario(p, r#""brokers": 2"#, &format!(r#"{steps}, {{"fetch": 2}}, {{"fetch": 2}}"#)));
        assert_eq!(r.sim.replica(0, 1).high_watermark, 3, "{p}");
        assert!(acked(&r, 2), "{p}");
        assert_eq!(r.sim.replica(0, 1).isr.to_vec(), vec![1], "{p}: not committed while the controller is unreachable");
        // The controller answers once the leader reaches it again.
        let r = run(&scenario(p, r#""brokers": 2"#, &format!(r#"{steps}, {{"heal": 1}}"#)));
        assert_eq!(r.sim.replica(0, 1).isr.to_vec(), vec![1, 2], "{p}: the expansion is committed");
    }
    // Before 2.7 the leader writes the ISR to ZooKeeper itself, holding the
    // partition's ISR lock until the write lands (`Partition.maybeExpandIsr`
    // → `updateIsr`, `KafkaZkClient.retryRequestsUntilConnected` at 2.1.0):
    // Kafka appends nothing meanwhile. The model appends, but commits
    // nothing without the replica being added either.
    let r = run(&scenario(Protocol::V2_1, r#""brokers": 2"#, steps));
    assert_eq!(r.sim.high_watermark_members(0, 1).to_vec(), vec![1, 2], "2.1: the ISR with the replica its write adds");
    assert_eq!(r.sim.replica(0, 1).high_watermark, 1, "2.1: m2 waits for broker 2");
    assert!(!acked(&r, 2), "2.1: m3 waits for broker 2");
    assert!(!highwater::StateView::of(&r.sim, highwater::LogWindow::ALL).alter_partition, "2.1: no AlterPartition");
}

/// What the explorer found under 2.1 with a cut to the controller, before
/// the model held the commit for a pending ISR write: the leader, cut from
/// ZooKeeper while writing broker 2 into the ISR, committed m1 without it,
/// and the write then landed and put broker 2, which lacked m1, in the ISR.
/// Kafka 2.1 cannot do that (it appends nothing until the write lands); the
/// model now keeps m1 uncommitted until broker 2 has it, under every preset.
#[test]
fn a_leader_cut_from_zookeeper_commits_nothing_without_the_replica_it_is_adding() {
    let steps = r#"{"advance_ms": 15000}, {"cut_controller": 1}, {"fetch": 2},
                   {"produce": {"value": "m1", "acks": "all"}}, {"heal": "all"}"#;
    for p in Protocol::ALL {
        let r = run(&scenario(p, r#""brokers": 2, "min_insync_replicas": 1"#, steps));
        assert!(r.sim.violations.is_empty(), "{p}: {:?}\n{}", r.sim.violations, r.trace());
        assert_eq!(r.sim.replica(0, 1).high_watermark, 0, "{p}: m1 waits for broker 2");
        let r = run(&scenario(p, r#""brokers": 2, "min_insync_replicas": 1"#, &format!(r#"{steps}, {{"fetch": 2}}, {{"fetch": 2}}"#)));
        assert!(r.sim.violations.is_empty(), "{p}: {:?}", r.sim.violations);
        assert_eq!(r.sim.replica(0, 1).high_watermark, 1, "{p}: committed once broker 2 has it");
    }
}

/// The AlterPartition requests a run sent: (time, proposed ISR, added, answer time).
fn alter_partitions_sent(r: &Run) -> Vec<(u64, Vec<u32>, Option<u32>, u64)> {
    r.events
        .iter()
        .filter_map(|e| match &e.event {
            Event::AlterPartitionSent { proposed, added, answer_in_ms, .. } => Some((e.time_ms, proposed.clone(), *added, e.time_ms + answer_in_ms)),
            _ => None,
        })
        .collect()
}

/// `PartitionTest.testSingleInFlightAlterIsr` (KIP-497, 2.7.0): while an
/// ISR expansion waits for the controller's answer, the leader counts the
/// maximal ISR and sends nothing else, though a follower is out of sync by
/// then; the shrink goes out with the first check after the answer. Timed
/// mode, broker 1's links at 10 s, so the AlterPartition takes 20 s. Under
/// 2.1 (a ZooKeeper write in one step) the expansion is at once.
#[test]
fn partition_test_single_in_flight_alter_isr() {
    let config = r#""brokers": 3, "auto_fetch": true, "replica_lag_time_max_ms": 10000"#;
    // Broker 3 leaves the ISR, then catches up over slow links; broker 2
    // stops fetching as m2 is written.
    let steps = r#"{"pause": 3}, {"produce": {"value": "m1", "acks": "1"}}, {"advance_ms": 20000},
                   {"delay": {"broker": 1, "ms": 10000}}, {"resume": 3}, {"advance_ms": 30500},
                   {"pause": 2}, {"produce": {"value": "m2", "acks": "1"}}"#;
    for p in [Protocol::V2_8, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, config, &format!(r#"{steps}, {{"advance_ms": 15000}}"#)));
        let sent = alter_partitions_sent(&r);
        let (at, proposed, added, answer) = sent.last().cloned().expect("an expansion was sent");
        assert_eq!((proposed, added), (vec![1, 2, 3], Some(3)), "{p}: {sent:?}");
        assert!(r.sim.now_ms < answer, "{p}: still in flight");
        let leader = r.sim.replica(0, 1);
        assert_eq!((leader.isr.to_vec(), leader.maximal_isr().to_vec()), (vec![1, 2], vec![1, 2, 3]), "{p}");
        assert_eq!(r.sim.high_watermark_members(0, 1).to_vec(), vec![1, 2, 3], "{p}");
        // m2 was written more than replica.lag.time.max.ms ago: broker 2 is
        // out of sync, yet no shrink was proposed.
        let m2_at = r.events.iter().rev().find(|e| matches!(e.event, Event::Appended { offset: 1, .. })).expect("m2").time_ms;
        assert!(m2_at + 10_000 < r.sim.now_ms, "{p}");
        assert!(sent.iter().all(|s| s.0 <= at), "{p}: {sent:?}");
        // After the answer, the next check proposes the shrink.
        let r = run(&scenario(p, config, &format!(r#"{steps}, {{"advance_ms": 30000}}"#)));
        let sent = alter_partitions_sent(&r);
        let expanded = r.events.iter().find(|e| matches!(e.event, Event::IsrExpanded { added: 3, .. })).expect("expanded");
        assert_eq!(expanded.time_ms, answer, "{p}");
        let next = sent.iter().find(|s| s.0 > at).expect("a shrink after the answer");
        assert!(next.0 >= answer && next.0 <= answer + 5_000 && next.2.is_none() && !next.1.contains(&2), "{p}: {sent:?}");
    }
    let r = run(&scenario(Protocol::V2_1, config, &format!(r#"{steps}, {{"advance_ms": 15000}}"#)));
    assert!(alter_partitions_sent(&r).is_empty(), "2.1: no request in flight");
    let expanded = r.events.iter().find(|e| matches!(e.event, Event::IsrExpanded { added: 3, .. })).expect("2.1: expanded");
    let fetched = r.events.iter().find(|e| matches!(e.event, Event::RemoteLogEndOffsetUpdated { follower: 3, to: 1, .. }));
    assert_eq!(Some(expanded.time_ms), fetched.map(|e| e.time_ms), "2.1: expanded as broker 3's fetch arrives");
}

/// `PartitionTest.testAlterIsrLeaderAndIsrRace`: a shrink is in flight when
/// the leader learns a new partition state from the controller (here: the
/// controller fences broker 3). The leader drops its pending change, but
/// the request is still out, so it sends no other until the answer arrives;
/// that answer is ignored, and the next check sends the shrink again.
#[test]
fn partition_test_alter_isr_leader_and_isr_race() {
    let config = r#""brokers": 3, "auto_fetch": true, "replica_lag_time_max_ms": 10000"#;
    let steps = r#"{"delay": {"broker": 1, "ms": 10000}}, {"pause": 2}, {"produce": {"value": "m1", "acks": "1"}},
                   {"advance_ms": 15001}, {"cut_controller": 3}, {"advance_ms": 45000}"#;
    for p in [Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, config, steps));
        let sent = alter_partitions_sent(&r);
        assert_eq!(sent.len(), 2, "{p}: {sent:?}\n{}", r.trace());
        let (first, second) = (&sent[0], &sent[1]);
        let fenced = r.events.iter().find(|e| matches!(e.event, Event::IsrShrunk { by_controller: true, .. })).expect("fenced").time_ms;
        assert!(first.0 < fenced && fenced < first.3, "{p}: the controller's change comes while the shrink is out");
        let ignored = r.events.iter().find(|e| matches!(e.event, Event::IsrChangeFailed { leader: 1, .. })).expect("ignored answer");
        assert_eq!(ignored.time_ms, first.3, "{p}");
        assert!(second.0 >= first.3, "{p}: nothing sent while the first was out");
        assert_eq!(r.sim.replica(0, 1).isr.to_vec(), vec![1], "{p}: the second shrink is committed");
        assert_eq!(count(&r, |e| matches!(e, Event::IsrShrunk { leader: Some(1), by_controller: false, .. })), 1, "{p}");
    }
    let r = run(&scenario(Protocol::V2_1, config, steps));
    assert!(alter_partitions_sent(&r).is_empty(), "2.1: the shrink is one step");
}

// ----- consumer ---------------------------------------------------------------

/// The consumer that read m2, which an unclean election then removed; m3 is
/// written at its offset (tests/scenarios/consumer-saw-vanished-record.json).
const VANISHED: &str = r#"{"produce": {"value": "m1", "acks": "all"}}, {"fetch": 2}, {"fetch": 2}, {"crash": {"broker": 2}},
    {"advance_ms": 9000}, {"produce": {"value": "m2", "acks": "1"}}, {"consume": null}, {"crash": {"broker": 1}},
    {"restart": 2}, {"advance_ms": 9000}, {"produce": {"value": "m3", "acks": "1"}}, {"consume": null}"#;

fn read_values(r: &Run) -> Vec<String> {
    r.sim.consumer.read.iter().map(|c| c.value.to_string()).collect()
}

/// `SubscriptionStateTest.testTruncationDetectionWithResetPolicy` and
/// `testTruncationDetectionWithoutResetPolicy` (KIP-320, 2.3.0): after the
/// leader change the consumer validates its position against the leader's
/// end offset for its epoch; finding the log truncated below it, with a
/// reset policy it moves to that end offset (and reads m3 there), without
/// one (`none`) the application gets a LogTruncationException and the
/// position waits, still awaiting validation. Under 2.1 the consumer never
/// validates: it stays past offset 1 and never sees m3.
#[test]
fn subscription_state_test_truncation_detection_with_and_without_reset_policy() {
    let config = |reset: &str| format!(r#""brokers": 2, "unclean_leader_election": true, "broker_session_timeout_ms": 9000, "auto_offset_reset": "{reset}""#);
    for p in [Protocol::V2_8, Protocol::V3_7, Protocol::V4_1] {
        for reset in ["latest", "earliest"] {
            let r = run(&scenario(p, &config(reset), VANISHED));
            assert_eq!(count(&r, |e| matches!(e, Event::ConsumerTruncationDetected { position: 2, end_offset: 1, seek: true, .. })), 1, "{p} {reset}\n{}", r.trace());
            assert_eq!(read_values(&r), ["m1", "m2", "m3"], "{p} {reset}: back to offset 1, where m3 is");
            assert_eq!(r.sim.consumer.position(0), 2, "{p} {reset}");
        }
        let r = run(&scenario(p, &config("none"), VANISHED));
        assert_eq!(count(&r, |e| matches!(e, Event::ConsumerTruncationDetected { position: 2, end_offset: 1, seek: false, .. })), 1, "{p} none\n{}", r.trace());
        assert_eq!(read_values(&r), ["m1", "m2"], "{p} none: nothing read after the exception");
        assert_eq!(r.sim.consumer.position(0), 2, "{p} none: the position is left as it was");
    }
    let r = run(&scenario(Protocol::V2_1, &config("latest"), VANISHED));
    assert_eq!(count(&r, |e| matches!(e, Event::ConsumerTruncationDetected { .. })), 0, "2.1: no validation");
    assert_eq!(read_values(&r), ["m1", "m2"], "2.1: m3 is never read");
}

// ----- replication under bounces ----------------------------------------------

/// `EpochDrivenReplicationProtocolAcceptanceTest.shouldSurviveFastLeaderChange`:
/// two brokers, acks=all; five times: write a record, bounce the follower
/// (it rejoins the ISR), then bounce the leader; no record is lost, every
/// log ends at the number written. Kafka's test notes that it passes before
/// the leader-epoch change too; here it holds under every preset.
#[test]
fn epoch_driven_replication_protocol_acceptance_test_should_survive_fast_leader_change() {
    let mut steps = vec![r#"{"produce": {"value": "m0", "acks": "all"}}, {"fetch": 2}, {"fetch": 2}"#.to_string()];
    let (mut leader, mut follower) = (1, 2);
    for i in 1..=5 {
        steps.push(format!(
            r#"{{"produce": {{"value": "m{i}", "acks": "all"}}}}, {{"fetch": {follower}}}, {{"fetch": {follower}}},
               {{"crash": {{"broker": {follower}}}}}, {{"restart": {follower}}}, {{"advance_ms": 20000}}, {{"fetch": {follower}}}, {{"fetch": {follower}}},
               {{"crash": {{"broker": {leader}}}}}, {{"advance_ms": 20000}}, {{"restart": {leader}}}, {{"advance_ms": 20000}},
               {{"fetch": {leader}}}, {{"fetch": {leader}}}"#
        ));
        (leader, follower) = (follower, leader);
    }
    let steps = steps.join(", ");
    for p in Protocol::ALL {
        let r = run(&scenario(p, r#""brokers": 2"#, &steps));
        assert_eq!(count(&r, |e| matches!(e, Event::StepRejected { .. })), 0, "{p}: every step as planned\n{}", r.trace());
        assert_eq!(r.sim.controller.partition(0).leader, Some(leader), "{p}");
        for b in [1, 2] {
            assert_eq!(r.sim.replica(0, b).log_end_offset(), 6, "{p}: broker {b}'s log holds the six records");
            assert_eq!(values(&r, b), ["m0", "m1", "m2", "m3", "m4", "m5"], "{p}: broker {b}");
        }
        assert!(r.sim.violations.is_empty(), "{p}: {:?}", r.sim.violations);
    }
}

// ----- controller -------------------------------------------------------------

/// `ReplicationControlManagerTest.testEligibleLeaderReplicas_BrokerFence`
/// (KIP-966, the 4.1 preset): four replicas, min.insync.replicas 3. Fencing
/// brokers 3 and 4 shrinks the ISR below the minimum as 4 leaves: 4 joins the
/// ELR. Fencing 2 as well puts it there too. Unfencing them (their
/// controller link healed: no unclean shutdown) leaves the ELR as it is.
/// (Kafka's brokers 0..3 are 1..4 here.) Without ELR (3.7) the ELR stays empty.
#[test]
fn replication_control_manager_test_eligible_leader_replicas_broker_fence() {
    let config = r#""brokers": 4, "min_insync_replicas": 3"#;
    let fence_3_4 = r#"{"cut_controller": 3}, {"cut_controller": 4}, {"advance_ms": 20000}"#;
    let fence_2 = r#"{"cut_controller": 2}, {"advance_ms": 20000}"#;
    let elr = |r: &Run| r.sim.controller.partition(0).elr.to_vec();
    let r = run(&scenario(Protocol::V4_1, config, fence_3_4));
    assert_eq!((elr(&r), r.sim.controller.partition(0).isr.to_vec()), (vec![4], vec![1, 2]), "{}", r.trace());
    let r = run(&scenario(Protocol::V4_1, config, &format!("{fence_3_4}, {fence_2}")));
    assert_eq!((elr(&r), r.sim.controller.partition(0).isr.to_vec()), (vec![2, 4], vec![1]));
    let r = run(&scenario(Protocol::V4_1, config, &format!(r#"{fence_3_4}, {fence_2}, {{"heal": "all"}}, {{"advance_ms": 1000}}"#)));
    assert!([2, 3, 4].iter().all(|&b| !r.sim.controller.is_fenced(b)), "unfenced");
    assert_eq!(elr(&r), vec![2, 4], "unfencing leaves the ELR");
    assert_eq!(r.sim.controller.partition(0).leader, Some(1));
    let r = run(&scenario(Protocol::V3_7, config, &format!("{fence_3_4}, {fence_2}")));
    assert!(elr(&r).is_empty(), "3.7: no ELR");
}

/// `PartitionChangeBuilderTest.testEligibleLeaderReplicas_IsrCanShrinkToZero`
/// through a controlled shutdown (`ReplicationControlManager
/// .handleBrokerInControlledShutdown` takes the same partition-change path as
/// fencing): RF 3, min.insync.replicas 2, ELR on (4.1). Brokers 3, 2 and 1
/// stop cleanly one after the other: ISR [1, 2] then [1] with ELR [2], then
/// [] with no leader, ELR [1, 2] and last known leader 1. Broker 1 comes back
/// after its clean stop (`previousBrokerEpoch` matches,
/// `ClusterControlManagerTest.testReRegistrationWithCleanShutdownDetection`):
/// it stays in the ELR and is elected from it
/// (`testEligibleLeaderReplicas_ElrCanBeElected`): leader 1, ISR [1], ELR [2].
/// After a crash instead (`testEligibleLeaderReplicas_UncleanShutdown`) it
/// leaves the ELR as it registers, the last known leader cannot be elected
/// while the ELR holds broker 2 (`canElectLastKnownLeader`), and the
/// partition stays offline until broker 2 returns. Under 3.7 (no ELR) the
/// last member stays in the ISR and is elected when it returns.
#[test]
fn partition_change_builder_test_eligible_leader_replicas_isr_can_shrink_to_zero() {
    let config = r#""brokers": 3, "min_insync_replicas": 2"#;
    let stop = r#"{"controlled_shutdown": 3}, {"controlled_shutdown": 2}"#;
    let c = |r: &Run| (r.sim.controller.partition(0).isr.to_vec(), r.sim.controller.partition(0).leader, r.sim.controller.partition(0).elr.to_vec());
    let r = run(&scenario(Protocol::V4_1, config, r#"{"controlled_shutdown": 3}"#));
    assert_eq!(c(&r), (vec![1, 2], Some(1), vec![]));
    let r = run(&scenario(Protocol::V4_1, config, stop));
    assert_eq!(c(&r), (vec![1], Some(1), vec![2]));
    let all = format!(r#"{stop}, {{"controlled_shutdown": 1}}"#);
    let r = run(&scenario(Protocol::V4_1, config, &all));
    assert_eq!(c(&r), (vec![], None, vec![1, 2]), "{}", r.trace());
    assert_eq!(r.sim.controller.partition(0).last_known_leader, Some(1));
    // Broker 1 returns after its clean stop: elected from the ELR.
    let r = run(&scenario(Protocol::V4_1, config, &format!(r#"{all}, {{"restart": 1}}"#)));
    assert_eq!(c(&r), (vec![1], Some(1), vec![2]), "{}", r.trace());
    assert_eq!(count(&r, |e| matches!(e, Event::LeaderElected { leader: 1, kind: ElectionKind::EligibleLeaderReplica, .. })), 1);
    // Broker 1 crashed instead of stopping cleanly: it leaves the ELR as it registers.
    let crash = format!(r#"{stop}, {{"crash": {{"broker": 1}}}}, {{"advance_ms": 10000}}, {{"restart": 1}}"#);
    let r = run(&scenario(Protocol::V4_1, config, &crash));
    assert_eq!(c(&r), (vec![], None, vec![2]), "{}", r.trace());
    assert_eq!(count(&r, |e| matches!(e, Event::LeaderElected { .. })), 0, "the last known leader waits while the ELR is not empty");
    let r = run(&scenario(Protocol::V4_1, config, &format!(r#"{crash}, {{"restart": 2}}"#)));
    assert_eq!(c(&r), (vec![2], Some(2), vec![]), "{}", r.trace());
    // 3.7: the ISR keeps its last member, which is elected when it returns.
    let r = run(&scenario(Protocol::V3_7, config, &all));
    assert_eq!(c(&r), (vec![1], None, vec![]));
    let r = run(&scenario(Protocol::V3_7, config, &format!(r#"{all}, {{"restart": 1}}"#)));
    assert_eq!(c(&r), (vec![1], Some(1), vec![]));
}

// ----- producer retry backoff ---------------------------------------------------

/// `RecordAccumulatorTest.testExponentialRetryBackoff` (KIP-580, 3.7): the
/// n-th retry waits `retry.backoff.ms` * 2^(n-1) times a jitter in [0.8,
/// 1.2), never more than `retry.backoff.max.ms` (1000). Then the run: m1 is
/// refused (NOT_ENOUGH_REPLICAS: broker 2 is fenced, min ISR 2) and retried
/// for a second. Kafka's client makes 4 attempts in that second (at 0, then
/// about 100, 300 and 700 ms); under 3.5, with a constant 100 ms, 11.
#[test]
fn record_accumulator_test_exponential_retry_backoff() {
    use highwater::model::simulation::Simulation;
    let sim = Simulation::new(scenario(Protocol::V3_7, "", "").config);
    for id in 0..200 {
        for failed in 1..=8u32 {
            let term = (100u64 << (failed - 1)).min(1000);
            let wait = sim.retry_backoff_ms(id, failed);
            assert!(wait * 10 >= term * 8 && (wait * 10 < term * 12 || wait == 1000) && wait <= 1000, "retry {failed}: {wait} ms against {term}");
        }
    }
    let waits: std::collections::BTreeSet<u64> = (0..200).map(|id| sim.retry_backoff_ms(id, 1)).collect();
    assert!(waits.len() > 20, "the jitter varies from record to record: {waits:?}");
    // Before 3.7: constant.
    let sim = Simulation::new(scenario(Protocol::V3_5, "", "").config);
    assert!((1..=8).all(|n| sim.retry_backoff_ms(0, n) == 100));

    let steps = r#"{"crash": {"broker": 2}}, {"advance_ms": 20000}, {"produce": {"value": "m1", "acks": "all"}}, {"advance_ms": 1000}"#;
    let config = r#""brokers": 2, "min_insync_replicas": 2"#;
    let attempts = |p| run(&scenario(p, config, steps)).sim.producer.requests[0].attempts;
    assert_eq!(attempts(Protocol::V3_7), 4);
    assert_eq!(attempts(Protocol::V4_1), 4);
    assert_eq!(attempts(Protocol::V3_5), 11);
    // The next retry waits by four failures: 800 ms, jittered.
    let next = |r: &Run| match r.sim.producer.requests[0].status {
        highwater::model::clients::accumulator::Status::Retrying { at_ms } => at_ms,
        s => panic!("{s:?}"),
    };
    let r = run(&scenario(Protocol::V3_7, config, steps));
    assert!((21_200..21_800).contains(&next(&r)), "{}", next(&r));
    // Refused retries are counted, not run one by one, up to the next moment
    // anything can change; advancing a millisecond at a time runs each one:
    // the same attempts at the same times.
    let one_by_one = format!(r#"{{"crash": {{"broker": 2}}}}, {{"advance_ms": 20000}}, {{"produce": {{"value": "m1", "acks": "all"}}}}{}"#, r#", {"advance_ms": 1}"#.repeat(1000));
    let s = run(&scenario(Protocol::V3_7, config, &one_by_one));
    assert_eq!((s.sim.producer.requests[0].attempts, next(&s)), (4, next(&r)));
}

/// `PartitionTest.testIsrNotExpandedIfReplicaIsInControlledShutdown` (KIP-841,
/// 3.3): a broker that asked for a controlled shutdown
/// (`begin_controlled_shutdown`) and follows from outside the ISR gets no
/// change from the controller, so it keeps fetching; it catches up, and the
/// leader does not add it back (`Partition.isReplicaIsrEligible`). It stops
/// by itself at its next heartbeat, `broker.heartbeat.interval.ms` (2 s)
/// later (`BrokerLifecycleManager`, `shouldShutDown`). A broker that was in
/// the ISR leaves it and stops fetching at once
/// (`ReplicaManagerTest.testReplicasAreStoppedWhileInControlledShutdown`).
/// Without the shutdown, the same fetches bring broker 3 back into the ISR.
#[test]
fn partition_test_isr_not_expanded_if_replica_is_in_controlled_shutdown() {
    // Broker 3 never fetches m1 and leaves the ISR at the lag check; broker 2 keeps up.
    let lagging = r#"{"produce": {"value": "m1", "acks": "1"}}, {"fetch": 2}, {"fetch": 2}, {"advance_ms": 46000}"#;
    let catch_up = r#"{"fetch": 3}, {"fetch": 3}, {"fetch": 3}"#;
    for p in [Protocol::V3_5, Protocol::V3_7, Protocol::V4_1] {
        let r = run(&scenario(p, "", lagging));
        assert_eq!(r.sim.controller.partition(0).isr.to_vec(), vec![1, 2], "{p}");
        let r = run(&scenario(p, "", &format!(r#"{lagging}, {{"begin_controlled_shutdown": 3}}, {catch_up}"#)));
        assert_eq!(count(&r, |e| matches!(e, Event::StepRejected { .. })), 0, "{p}: it still fetches\n{}", r.trace());
        assert_eq!(r.sim.replica(0, 3).log_end_offset(), 1, "{p}: caught up");
        assert_eq!(r.sim.controller.partition(0).isr.to_vec(), vec![1, 2], "{p}: not added back");
        assert!(r.sim.broker(3).alive, "{p}: still up until its next heartbeat");
        let r = run(&scenario(p, "", &format!(r#"{lagging}, {{"begin_controlled_shutdown": 3}}, {catch_up}, {{"advance_ms": 2000}}"#)));
        let stopped: Vec<u64> = r.events.iter().filter(|e| matches!(e.event, Event::ControlledShutdownCompleted { broker: 3 })).map(|e| e.time_ms).collect();
        assert_eq!(stopped, [48_000], "{p}: stopped 2 s after asking");
        assert!(!r.sim.broker(3).alive && r.sim.broker(3).clean_shutdown, "{p}");
        // Without the shutdown it rejoins.
        let r = run(&scenario(p, "", &format!("{lagging}, {catch_up}")));
        assert_eq!(r.sim.controller.partition(0).isr.to_vec(), vec![1, 2, 3], "{p}");
        // A broker in the ISR leaves it and stops fetching at once.
        let r = run(&scenario(p, "", &format!(r#"{lagging}, {{"begin_controlled_shutdown": 2}}, {{"fetch": 2}}"#)));
        assert_eq!(r.sim.controller.partition(0).isr.to_vec(), vec![1], "{p}");
        assert_eq!(count(&r, |e| matches!(e, Event::ShutdownFetcherStopped { broker: 2 })), 1, "{p}");
        assert_eq!(count(&r, |e| matches!(e, Event::StepRejected { .. })), 1, "{p}: the fetch is refused");
    }
    // ZooKeeper era: the controller stops the broker's replicas and the
    // broker stops at once (StopReplica; the ControlledShutdownResponse
    // leaves nothing to move), so there is no moment in between.
    let r = run(&scenario(Protocol::V2_8, "", &format!(r#"{lagging}, {{"begin_controlled_shutdown": 3}}"#)));
    assert!(!r.sim.broker(3).alive, "2.8: stopped in the same step");
}

// The cluster around the partition: placement, the partitioner, leader balance.
#[path = "kafka_tests/placement.rs"]
mod placement;
#[path = "kafka_tests/partitioner.rs"]
mod partitioner;
#[path = "kafka_tests/leader_balance.rs"]
mod leader_balance;
#[path = "kafka_tests/cluster.rs"]
mod cluster;

/// `BrokerHeartbeatManagerTest.testFindOneStaleBroker`: the controller keeps
/// its unfenced brokers by last contact, oldest first (ties in the order of
/// contact: `BrokerHeartbeatStateList.add`), and fences the first stale one,
/// then the next. The model's brokers fall silent at a step: brokers silent
/// since one moment are fenced in the order they fell silent, whatever their
/// ids; a broker silent since earlier is fenced first.
#[test]
fn broker_heartbeat_manager_test_find_one_stale_broker() {
    let fenced = |r: &Run| -> Vec<u32> { r.events.iter().filter_map(|e| if let Event::BrokerFenced { broker, .. } = e.event { Some(broker) } else { None }).collect() };
    let config = r#""brokers": 4"#;
    // Three cut from the controller at one moment, in the order 3, 1, 2.
    let r = run(&scenario(Protocol::V3_7, config, r#"{"cut_controller": 3}, {"cut_controller": 1}, {"cut_controller": 2}, {"advance_ms": 20000}"#));
    assert_eq!(fenced(&r), vec![3, 1, 2], "{}", r.trace());
    // Broker 4 fell silent a second before broker 2: it is the stalest.
    let r = run(&scenario(Protocol::V3_7, config, r#"{"cut_controller": 4}, {"advance_ms": 1000}, {"cut_controller": 2}, {"advance_ms": 20000}"#));
    assert_eq!(fenced(&r), vec![4, 2], "{}", r.trace());
}
// The KRaft controller quorum: Kafka's Raft tests.
#[path = "kafka_tests/quorum.rs"]
mod quorum;
#[path = "kafka_tests/controller_on_quorum.rs"]
mod controller_on_quorum;
