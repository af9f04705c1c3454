//! What each golden scenario must show, asserted on the model's state rather
//! than on trace text: the golden files pin the exact events, these pin the
//! meaning (and fail if a re-blessed trace lost it).

mod common;

use highwater::run::scenario::Elect;
use common::{load, run, with_protocol};
use highwater::run::scenario::{Acks, Produce};
use highwater::{Config, Protocol, Simulation, Step, ViolationKind};
use ViolationKind::*;

fn acked_losses(r: &common::Run, acks: Acks) -> Vec<String> {
    r.violations(AckedWriteLost).iter().filter(|v| v.acks == Some(acks)).map(|v| v.value.as_deref().unwrap_or("").to_string()).collect()
}

/// Worked example: one follower needs two fetch rounds before its HW moves.
#[test]
fn follower_hw_moves_only_in_the_second_round() {
    let s = load("two-fetch-rounds");
    let mut sim = Simulation::new(s.config.clone());
    sim.apply(&s.steps[0]);
    sim.apply(&s.steps[1]);
    assert_eq!(sim.replica(0, 2).log_end_offset(), 1, "round 1 copies the record");
    assert_eq!(sim.replica(0, 2).high_watermark, 0, "but the follower's HW has not moved");
    assert_eq!(sim.replica(0, 1).high_watermark, 0, "nor the leader's: it does not yet know the follower has it");
    sim.apply(&s.steps[2]);
    assert_eq!(sim.replica(0, 1).high_watermark, 1);
    assert_eq!(sim.replica(0, 2).high_watermark, 1, "round 2 carries HW 1 back");
    assert_eq!(sim.producer.requests[0].status, highwater::model::clients::accumulator::Status::Done(highwater::model::event::ProduceResult::Acked));
}

/// Worked example: leader LEO 5, follower LEOs (as the leader knows them) 5 and 4: HW 4.
#[test]
fn high_watermark_is_the_smallest_isr_leo() {
    let r = run(&load("hw-is-min-isr-leo"));
    let leader = r.sim.replica(0, 1);
    assert_eq!(leader.log_end_offset(), 5);
    assert_eq!(leader.remote(2).log_end_offset, Some(5));
    assert_eq!(leader.remote(3).log_end_offset, Some(4));
    assert_eq!(leader.high_watermark, 4);
    assert!(r.sim.violations.is_empty());
}

/// KIP-101 failure 1: 0.10 loses an acks=all write to truncation at the
/// follower's own HW; leader epochs (0.11 on) do not. No fast restart is
/// involved: every broker returns only after its session expired.
#[test]
fn loss_after_truncation_to_high_watermark_only_in_0_10() {
    let s = load("kip101-loss-after-restart");
    let legacy = run(&with_protocol(s.clone(), Protocol::V0_10));
    assert_eq!(acked_losses(&legacy, Acks::All), vec!["m2"]);
    let v = legacy.violations(AckedWriteLost)[0];
    assert!(v.protocol_violation && v.offset == Some(1) && v.step == 17, "{v:?}");
    assert!(v.detail.contains("pre-KIP-101 rule"), "the explanation names the rule: {}", v.detail);
    assert!([1, 3].iter().all(|&b| legacy.sim.replica(0, b).log.get(1).is_none()), "m2 is gone from both live brokers");
    assert!(!legacy.events.iter().any(|e| matches!(e.event, highwater::Event::RegistrationRefused { .. })), "no fast restart");
    for p in Protocol::ALL.into_iter().filter(|&p| p > Protocol::V0_10) {
        let r = run(&with_protocol(s.clone(), p));
        assert!(r.sim.violations.is_empty(), "{p}: {:?}", r.sim.violations);
        assert_eq!(r.sim.replica(0, 3).log.get(1).map(|r| &*r.value), Some("m2"), "{p}: the new leader kept m2");
    }
}

/// KIP-101 failure 2: divergence after a power loss under legacy only.
#[test]
fn divergence_after_power_loss_only_in_legacy() {
    let s = load("kip101-divergence-after-power-loss");
    let legacy = run(&with_protocol(s.clone(), Protocol::V0_10));
    let d = legacy.violations(CommittedDivergence);
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].offset, d[0].brokers.clone()), (Some(1), vec![1, 2]));
    for p in [Protocol::V0_11, Protocol::V3_7] {
        let r = run(&with_protocol(s.clone(), p));
        assert!(r.violations(CommittedDivergence).is_empty(), "{p}");
        assert_eq!(r.sim.replica(0, 1).log.get(1).map(|r| &*r.value), Some("m3"), "{p}: broker 1 replaced m2 by m3");
    }
    // m2 was acks=1 and died with the power: an allowed loss, under every generation.
    assert_eq!(acked_losses(&legacy, Acks::One), vec!["m2"]);
    assert!(!legacy.violations(AckedWriteLost)[0].protocol_violation);
}

/// KIP-279: kip101 still diverges after fast leader changes; modern does not.
#[test]
fn fast_leader_change_diverges_under_kip101_not_modern() {
    let s = load("kip279-fast-leader-change");
    let kip101 = run(&with_protocol(s.clone(), Protocol::V0_11));
    let d = kip101.violations(CommittedDivergence);
    assert_eq!(d.len(), 1, "{:?}", kip101.sim.violations);
    assert_eq!(d[0].offset, Some(1));
    let modern = run(&with_protocol(s.clone(), Protocol::V3_7));
    assert!(modern.violations(CommittedDivergence).is_empty());
    let (b1, b2) = (modern.sim.replica(0, 1), modern.sim.replica(0, 2));
    assert_eq!(b2.log_end_offset(), b1.log_end_offset());
    for o in 0..b1.log_end_offset() {
        assert_eq!(b1.log.get(o), b2.log.get(o), "modern: logs agree at {o}");
    }
}

/// Unclean election loses an acks=all write; without it the partition stays offline.
#[test]
fn unclean_election_loses_data_and_clean_stays_offline() {
    let unclean = run(&load("unclean-election-loss"));
    assert_eq!(acked_losses(&unclean, Acks::All), vec!["m2"]);
    assert!(unclean.violations(AckedWriteLost)[0].detail.contains("unclean election"));
    assert_eq!(unclean.sim.controller.partition(0).leader, Some(2));
    assert_eq!(unclean.sim.controller.partition(0).isr[..], [2]);

    let offline = run(&load("offline-without-unclean"));
    assert!(offline.sim.violations.is_empty());
    assert_eq!(offline.sim.controller.partition(0).leader, None, "the partition is offline");
    assert_eq!(offline.sim.controller.partition(0).isr[..], [1], "the ISR is never emptied");
    let last = offline.sim.producer.requests.last().unwrap();
    assert_eq!(highwater::view::state::result_name(last.status), "retrying", "the client waits for a leader");
    assert_eq!(last.last_error, Some(highwater::model::protocol::Errors::LeaderNotAvailable), "the metadata's, not a broker's answer");
    assert_eq!(last.attempts, 0, "no broker was reached");
}

/// NOT_ENOUGH_REPLICAS: refused before the append, retried until
/// delivery.timeout.ms; the application then sees REQUEST_TIMED_OUT. Under
/// 3.7 the backoff doubles from 100 ms up to retry.backoff.max.ms (1000),
/// with ±20% jitter (KIP-580): 4 attempts in the first 1.5 s, then one every
/// 0.8 to 1 s; under 3.5 one every 100 ms.
#[test]
fn not_enough_replicas_refuses_before_append() {
    let r = run(&load("not-enough-replicas"));
    let reqs = &r.sim.producer.requests;
    assert_eq!(highwater::view::state::result_name(reqs[0].status), "REQUEST_TIMED_OUT");
    assert_eq!(reqs[0].last_error, Some(highwater::model::protocol::Errors::NotEnoughReplicas));
    assert!((120..=150).contains(&reqs[0].attempts), "{}: one attempt every 0.8 to 1 s for 120 s", reqs[0].attempts);
    let constant = run(&with_protocol(load("not-enough-replicas"), Protocol::V3_5));
    assert_eq!(constant.sim.producer.requests[0].attempts, 1200, "3.5: one attempt every 100 ms for 120 s");
    assert_eq!(reqs[0].offset, None);
    // Under 2.0 (retries = 0) the first refusal is final.
    let old = run(&with_protocol(load("not-enough-replicas"), Protocol::V2_0));
    let first = &old.sim.producer.requests[0];
    assert_eq!((highwater::view::state::result_name(first.status), first.attempts), ("NOT_ENOUGH_REPLICAS", 1));
    assert_eq!(highwater::view::state::result_name(reqs[1].status), "acked");
    assert_eq!(r.sim.replica(0, 1).log_end_offset(), 1, "only the acks=1 record was appended");
}

/// Under min ISR, modern freezes the HW (timeout); legacy advances (after-append error).
#[test]
fn high_watermark_frozen_under_min_isr_in_modern() {
    let s = load("hw-frozen-under-min-isr");
    let modern = run(&with_protocol(s.clone(), Protocol::V3_7));
    assert_eq!(modern.sim.replica(0, 1).high_watermark, 0);
    assert_eq!(highwater::view::state::result_name(modern.sim.producer.requests[0].status), "REQUEST_TIMED_OUT");
    assert!(modern.sim.consumer.read.is_empty());
    let legacy = run(&with_protocol(s, Protocol::V0_10));
    assert_eq!(legacy.sim.replica(0, 1).high_watermark, 1);
    assert_eq!(highwater::view::state::result_name(legacy.sim.producer.requests[0].status), "NOT_ENOUGH_REPLICAS_AFTER_APPEND");
}

/// ISR shrink after the lag time (checked every lag/2), expand on catch-up.
#[test]
fn isr_shrinks_after_lag_and_expands_after_catch_up() {
    let s = load("isr-shrink-and-expand");
    let mut sim = Simulation::new(s.config.clone());
    let mut shrunk_at = None;
    for (i, step) in s.steps.iter().enumerate() {
        for e in sim.apply(step) {
            if let highwater::Event::IsrShrunk { removed, .. } = &e.event {
                assert_eq!(removed, &vec![3]);
                shrunk_at = Some((i, e.time_ms));
            }
        }
        if i == 4 {
            assert_eq!(sim.controller.partition(0).isr[..], [1, 2, 3], "at 30 s follower 3 is exactly at the lag limit: still in");
        }
    }
    assert_eq!(shrunk_at, Some((6, 45_000)), "removed at the 45 s check");
    assert_eq!(sim.controller.partition(0).isr[..], [1, 2, 3], "and back after catching up");
}

/// acks=1 is lost on failover, and reported as an allowed loss.
#[test]
fn acks_one_loss_after_failover() {
    let r = run(&load("acks1-loss-after-failover"));
    assert_eq!(acked_losses(&r, Acks::One), vec!["m2"]);
    assert!(acked_losses(&r, Acks::All).is_empty());
    assert!(!r.violations(AckedWriteLost)[0].protocol_violation);
}

/// An isolated old leader: acks=1 writes to it are lost, acks=all writes time out.
#[test]
fn isolated_old_leader() {
    let r = run(&load("isolated-old-leader"));
    assert_eq!(acked_losses(&r, Acks::One), vec!["z1"]);
    assert!(r.violations(AckedWriteLost)[0].detail.contains("stale leader"));
    let result = |v: &str| {
        let q = r.sim.producer.requests.iter().find(|q| &*q.value == v).unwrap();
        highwater::view::state::result_name(q.status)
    };
    assert_eq!(result("z2"), "acked", "the client retried z2 on the new leader");
    assert_eq!(result("m2"), "acked");
    let z2 = r.sim.producer.requests.iter().find(|q| &*q.value == "z2").unwrap();
    assert_eq!((z2.attempts, z2.broker), (2, Some(2)));
    let b1 = r.sim.replica(0, 1);
    assert_eq!(b1.leader, Some(2), "after healing, broker 1 follows the new leader");
    assert_eq!(b1.log.get(1).map(|r| &*r.value), Some("m2"), "z1 and z2 were truncated away");
    assert_eq!(b1.log.get(2).map(|r| &*r.value), Some("z2"), "z2 came back from the new leader");
}

/// Timed mode: fetchers, latency and the session timeout drive a failover alone.
#[test]
fn timed_failover_elects_after_session_timeout() {
    let r = run(&load("timed-failover"));
    let elected = r
        .events
        .iter()
        .find_map(|e| match &e.event {
            highwater::Event::LeaderElected { leader, leader_epoch, .. } => Some((*leader, *leader_epoch, e.time_ms)),
            _ => None,
        })
        .unwrap();
    assert_eq!(elected, (2, 1, 1_500 + 9_000));
    assert!(r.sim.violations.is_empty());
    // Long polling: m2, written at 1200 ms, reaches broker 2 one 5 ms link
    // trip later (its fetch was waiting at the leader), not a poll later.
    let m2_at_2 = r.events.iter().find_map(|e| match e.event {
        highwater::Event::FollowerAppended { follower: 2, first_offset: 1, .. } => Some(e.time_ms),
        _ => None,
    });
    assert_eq!(m2_at_2, Some(1_205));
    assert_eq!(r.sim.replica(0, 3).high_watermark, 3, "broker 3 caught up with m3 over its slow link");
}

/// Impossible steps are rejected with a reason and the run goes on.
#[test]
fn impossible_steps_are_rejected_and_the_run_goes_on() {
    let mut sim = Simulation::new(Config::default());
    let rejected = |events: Vec<highwater::Traced>| match &events[0].event {
        highwater::Event::StepRejected { reason, .. } => reason.clone(),
        other => panic!("not rejected: {other:?}"),
    };
    assert_eq!(rejected(sim.apply(&Step::restart(2))), "broker 2 is already running");
    assert_eq!(rejected(sim.apply(&Step::fetch(1))), "broker 1 is the leader; only followers fetch");
    assert_eq!(rejected(sim.apply(&Step::fetch(9))), "fetch: broker 9 does not exist (brokers are 1..=3)");
    assert!(rejected(sim.apply(&Step::Elect(Elect { partition: 0, broker: Some(1) }))).contains("already the leader"));
    sim.apply(&Step::Crash(highwater::run::scenario::Crash::broker(2, 0)));
    assert_eq!(rejected(sim.apply(&Step::fetch(2))), "broker 2 is down");
    let events = sim.apply(&Step::Produce(Produce { value: "ok".into(), acks: Acks::One, to: None, partition: None, key: None }));
    assert!(events.iter().any(|e| e.to_string().contains("acknowledged at offset 0")));
    assert_eq!(sim.step, 7);
}

/// Produce with no leader is not a crash and not an answer: the client's
/// metadata names no leader (LEADER_NOT_AVAILABLE), it sends nothing, and
/// the record waits; after `delivery.timeout.ms` it fails (Kafka's
/// TimeoutException, REQUEST_TIMED_OUT here) naming that last error.
#[test]
fn produce_without_leader_is_an_error_result() {
    let r = run(&load("offline-without-unclean"));
    assert!(r.trace().contains("waits in the client: no leader in its metadata (LEADER_NOT_AVAILABLE)"));
    assert!(!r.trace().contains("NOT_LEADER_OR_FOLLOWER"), "no broker answered");
    let mut s = load("offline-without-unclean");
    s.steps.push(highwater::Step::AdvanceMs(120_000));
    let r = run(&s);
    assert!(r.trace().contains("REQUEST_TIMED_OUT (delivery.timeout.ms ran out in the client; last error LEADER_NOT_AVAILABLE)"), "{}", r.trace());
}

/// A write acknowledged while the partition is offline (by a stale leader the
/// controller no longer counts) is still checked once a leader is elected.
#[test]
fn acks_during_an_offline_partition_are_checked_when_a_leader_returns() {
    let text = r#"{"version":1,"config":{"brokers":2,"unclean_leader_election":true},"steps":[
        {"crash":{"broker":2}},
        {"isolate":1},
        {"advance_ms":9000},
        {"produce":{"value":"zombie","acks":"1","to":1}},
        {"restart":2},
        {"advance_ms":1}]}"#;
    let r = run(&highwater::Scenario::from_json(text).unwrap());
    assert_eq!(r.sim.controller.partition(0).leader, Some(2), "broker 2, the last ISR member, is elected on its return");
    assert_eq!(acked_losses(&r, Acks::One), vec!["zombie"], "{}", r.trace());
}

fn scenario(text: &str) -> highwater::Scenario {
    highwater::Scenario::from_json(text).unwrap()
}

/// A leader that lost power is not judged while it is down: the replicas that
/// hold the record take over, and nothing acknowledged is lost.
#[test]
fn a_dead_leader_is_not_judged() {
    let r = run(&scenario(
        r#"{"version":1,"config":{"brokers":3,"min_insync_replicas":2},"steps":[
        {"produce":{"value":"m1","acks":"all"}},{"fetch":2},{"fetch":3},{"fetch":2},{"fetch":3},
        {"crash":{"broker":1,"lose_unflushed":1}},{"advance_ms":9000},{"fetch":3},{"consume":null}]}"#,
    ));
    assert_eq!(r.sim.controller.partition(0).leader, Some(2));
    assert_eq!(r.sim.replica(0, 2).log.get(0).map(|r| &*r.value), Some("m1"));
    assert!(r.sim.violations.is_empty(), "{:?}", r.sim.violations);
    assert_eq!(r.sim.consumer.read.len(), 1);
}

/// Kafka 0.11 records a new leader's epoch at its first append, and answers
/// OffsetsForLeaderEpoch for an unknown epoch with UNDEFINED: a follower that
/// asks before the new leader wrote falls back to its HW, and nothing diverges.
#[test]
fn kip101_epoch_enters_the_cache_at_the_first_append() {
    let r = run(&scenario(
        r#"{"version":1,"config":{"brokers":2,"protocol":"kip101"},"steps":[
        {"produce":{"value":"m0","acks":"1"}},{"fetch":2},{"fetch":2},{"produce":{"value":"m1","acks":"1"}},
        {"elect":2},{"produce":{"value":"m2","acks":"1"}},{"elect":1},{"fetch":2},{"fetch":2},{"fetch":2}]}"#,
    ));
    assert!(r.violations(CommittedDivergence).is_empty(), "{}", r.trace());
    assert!(r.trace().contains("OffsetsForLeaderEpochResponse(UNDEFINED_EPOCH_OFFSET)"));
    assert_eq!(r.sim.replica(0, 2).log.get(1).map(|r| &*r.value), Some("m1"));
}

/// Before Kafka 2.1 only the time since a follower last caught up counted; a
/// follower at the leader's LEO that stops fetching still leaves the ISR.
/// `modern` exempts it (KAFKA-7152).
#[test]
fn isr_lag_rule_depends_on_the_generation() {
    let text = r#"{"version":1,"config":{"brokers":2},"steps":[
        {"produce":{"value":"m1","acks":"1"}},{"fetch":2},{"fetch":2},{"advance_ms":60000}]}"#;
    let s = scenario(text);
    assert_eq!(run(&with_protocol(s.clone(), Protocol::V0_10)).sim.controller.partition(0).isr[..], [1]);
    assert_eq!(run(&with_protocol(s.clone(), Protocol::V0_11)).sim.controller.partition(0).isr[..], [1]);
    assert_eq!(run(&with_protocol(s, Protocol::V3_7)).sim.controller.partition(0).isr[..], [1, 2]);
}

/// What a consumer read below the HW can vanish after an unclean election.
/// Since 2.3 the consumer detects the truncation after the leader change
/// (KIP-320) and goes back to read m3; an older consumer, already past
/// offset 1, skips it.
#[test]
fn consumer_saw_a_record_vanish() {
    let s = load("consumer-saw-vanished-record");
    let r = run(&s);
    let v = r.violations(ConsumerSawVanishedRecord);
    assert_eq!(v.len(), 1);
    assert_eq!((v[0].offset, v[0].value.as_deref()), (Some(1), Some("m2")));
    assert_eq!(r.sim.replica(0, 2).log.get(1).map(|r| &*r.value), Some("m3"));
    let read = |r: &common::Run| r.sim.consumer.read.iter().map(|c| c.value.to_string()).collect::<Vec<_>>();
    assert_eq!(read(&r), vec!["m1", "m2", "m3"]);
    assert!(r.events.iter().any(|e| matches!(e.event, highwater::Event::ConsumerTruncationDetected { seek: true, end_offset: 1, .. })));
    let old = run(&with_protocol(s.clone(), Protocol::V2_1));
    assert_eq!(read(&old), vec!["m1", "m2"]);
    // auto.offset.reset=none: LogTruncationException, the position stays.
    let mut none = s.clone();
    none.config.auto_offset_reset = highwater::model::config::OffsetReset::None;
    let n = run(&none);
    assert_eq!(read(&n), vec!["m1", "m2"]);
    assert_eq!(n.sim.consumer.position(0), 2);
    assert!(n.trace().contains("LogTruncationException"), "{}", n.trace());
}

/// In the JSON of every event, `step` is the index of the step that caused
/// it, whatever the event's own fields (a rejected step names its `action`).
#[test]
fn event_json_keeps_step_as_the_step_index() {
    let r = run(&load("isolated-old-leader"));
    let mut sim = r.sim.clone();
    let mut events = r.events.clone();
    events.extend(sim.apply(&Step::fetch(2)));
    events.extend(sim.apply(&Step::restart(3)));
    assert!(events.iter().any(|e| matches!(e.event, highwater::Event::StepRejected { .. })));
    for e in &events {
        let v = serde_json::to_value(highwater::view::state::EventView::of(e)).unwrap();
        assert_eq!(v["step"], serde_json::json!(e.step), "{v}");
        assert_eq!(v["time_ms"], serde_json::json!(e.time_ms), "{v}");
    }
}
