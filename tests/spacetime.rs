//! The space-time diagram (`spacetime.rs`): its pairing of sends and
//! arrivals is checked against the network's own messages in flight after
//! every step of every scenario under every version, its counts against the
//! events, and its window and cap against what they leave out.

mod common;

use highwater::model::event::{DropReason, Event};
use highwater::view::spacetime::{on_the_wire_after, Fate, Lane, MarkKind, Replay, SpaceTime, CONTROLLER};
use highwater::{LogWindow, Protocol, Scenario, StateView, Timeline};

fn scenarios() -> Vec<(String, Scenario)> {
    let names = common::scenario_names();
    assert!(names.len() >= 12);
    let mut out = vec![];
    for name in names {
        let s = common::load(&name);
        for p in common::protocols_for(&s) {
            out.push((format!("{name} under {p}"), common::with_protocol(s.clone(), p)));
        }
    }
    out
}

#[test]
fn the_replayed_wire_matches_the_network_after_every_step() {
    let mut timed = 0;
    for (name, scenario) in scenarios() {
        let mut timeline = Timeline::new(&scenario).unwrap();
        let replay = Replay::of(&timeline);
        for p in 0..=timeline.len() {
            timeline.seek(p).unwrap();
            let view = StateView::of(timeline.current(), LogWindow::ALL);
            let actual: Vec<_> = view.in_flight.iter().map(|m| (m.from, m.to, m.message.name(), m.arrives_ms)).collect();
            timed += !actual.is_empty() as u32;
            assert_eq!(on_the_wire_after(&replay, p as u64), actual, "{name}: on the wire after step {p}");
        }
    }
    assert!(timed > 20, "some steps leave messages on the wire ({timed})");
}

#[test]
fn arrows_and_marks_agree_with_the_events() {
    for (name, scenario) in scenarios() {
        let timeline = Timeline::new(&scenario).unwrap();
        let replay = Replay::of(&timeline);
        let events = timeline.all_events();
        let count = |f: &dyn Fn(&Event) -> bool| -> u64 {
            events.iter().filter(|e| f(&e.event)).map(|e| 1 + e.repeated.map_or(0, |r| r.more)).sum()
        };
        let sent = count(&|e| matches!(e, Event::Sent { .. }));
        let dropped = count(&|e| matches!(e, Event::Dropped { .. }));
        // A fetcher timed out, or removed (its broker shut down, or it
        // leaves that leader): what was on the wire between the two is discarded.
        let discarded: u64 = events
            .iter()
            .map(|e| match e.event {
                Event::FetchTimedOut { discarded, .. } | Event::FetcherRemoved { discarded, .. } => discarded,
                _ => 0,
            })
            .sum();
        let broker_arrows: Vec<_> = replay.arrows.iter().filter(|a| a.message.is_some()).collect();
        let drawn = |fate: Fate| broker_arrows.iter().filter(|a| a.fate == fate).count() as u64;
        // A repeated send is one arrow that counts its copies.
        assert_eq!(broker_arrows.iter().map(|a| 1 + a.repeated.unwrap_or(0)).sum::<u64>(), sent, "{name}: sent");
        assert_eq!(drawn(Fate::Dropped), dropped, "{name}: dropped");
        assert_eq!(drawn(Fate::Discarded), discarded, "{name}: discarded");
        for a in &replay.arrows {
            match a.received {
                Some(r) => {
                    assert!(a.sent.step <= r.step && a.sent.time_ms <= r.time_ms, "{name}: {a:?} arrives before it leaves");
                    if a.fate == Fate::Delivered || a.fate == Fate::Dropped {
                        if let Some(arrives) = a.arrives_ms {
                            assert_eq!(r.time_ms, arrives, "{name}: {a:?} arrives when its latency says");
                        }
                    }
                }
                None => assert_eq!(a.fate, Fate::InFlight, "{name}: {a:?}"),
            }
            assert_ne!(a.from, a.to, "{name}: {a:?}");
        }
        let produce_requests = count(&|e| matches!(e, Event::ProduceRequest { to: Some(_), .. }));
        assert_eq!(replay.arrows.iter().filter(|a| a.kind == "Produce").count() as u64, produce_requests, "{name}");
        // Every crash is marked on the broker's lane at its step and time.
        for e in events {
            if let Event::Crashed { broker, .. } = e.event {
                assert!(
                    replay.marks.iter().any(|m| m.lane == Lane::Broker(broker)
                        && m.at.step == e.step
                        && m.at.time_ms == e.time_ms
                        && matches!(m.mark, MarkKind::Crashed { .. })),
                    "{name}: crash of broker {broker} at step {}",
                    e.step
                );
            }
            if let Event::LeaderElected { leader, .. } = e.event {
                assert!(replay.marks.iter().any(|m| m.lane == CONTROLLER && m.at.step == e.step && matches!(m.mark, MarkKind::LeaderElected { leader: l, .. } if l == leader)));
            }
        }
        let truncations = count(&|e| matches!(e, Event::Truncated { .. }));
        assert_eq!(replay.marks.iter().filter(|m| matches!(m.mark, MarkKind::Truncated { .. })).count() as u64, truncations, "{name}");
    }
}

/// KIP-101's story: the FetchResponse that would carry the new HW to
/// broker 3 is lost on the cut link; broker 1 crashes; a new leader is
/// elected; the old leader restarts and truncates (under 0.10).
#[test]
fn kip101_story_in_the_diagram() {
    let timeline = Timeline::new(&common::load("kip101-loss-after-restart")).unwrap();
    let d = SpaceTime::of(&timeline, 1, u64::MAX, 1000, None);
    assert_eq!((d.from_step, d.to_step, d.position as usize), (1, timeline.len() as u64, timeline.len()));
    assert_eq!(d.lanes.first(), Some(&highwater::view::spacetime::PRODUCER));
    assert_eq!(d.lanes.last(), Some(&CONTROLLER));
    let at13: Vec<_> = d.arrows.iter().filter(|a| a.sent.step == 13 && a.message.is_some()).map(|a| (a.kind, a.from, a.to, a.fate)).collect();
    assert_eq!(
        at13,
        vec![("Fetch", Lane::Broker(3), Lane::Broker(1), Fate::Delivered), ("FetchResponse", Lane::Broker(1), Lane::Broker(3), Fate::Dropped)]
    );
    let lost = d.arrows.iter().find(|a| a.fate == Fate::Dropped).unwrap();
    assert_eq!(lost.drop_reason, Some(DropReason::LinkCut));
    assert!(d.marks.iter().any(|m| m.at.step == 14 && m.lane == Lane::Broker(1) && m.mark == MarkKind::Crashed { lose_unflushed: 0 }));
    assert!(d.marks.iter().any(|m| m.at.step == 18 && m.lane == Lane::Broker(1) && m.mark == MarkKind::Restarted));
    assert!(d.marks.iter().any(|m| m.lane == Lane::Broker(1) && matches!(m.mark, MarkKind::Truncated { from: 2, .. })), "{:?}", d.marks);
    assert!(d.arrows.iter().any(|a| a.kind == "LeaderAndIsr" && a.from == CONTROLLER && a.to == Lane::Broker(2)));
    assert_eq!(d.steps.len(), timeline.len());
    assert!(d.steps.iter().all(|s| s.start_ms <= s.end_ms));
    // The page reads lanes as numbers (brokers) or names.
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["lanes"][1], 1);
    assert_eq!(json["lanes"].as_array().unwrap().last().unwrap(), "controller");
    assert_eq!(json["arrows"][0]["kind"], "Produce");
}

#[test]
fn window_and_cap_say_what_they_leave_out() {
    let timeline = Timeline::new(&common::load("timed-failover")).unwrap();
    let replay = Replay::of(&timeline);
    let all = SpaceTime::of(&timeline, 1, u64::MAX, usize::MAX, None);
    assert_eq!(all.arrows.len(), replay.arrows.len());
    assert!(all.arrows.len() > 30, "{}", all.arrows.len());
    let capped = SpaceTime::of(&timeline, 1, u64::MAX, 20, None);
    assert_eq!(capped.arrows.len(), 20);
    assert_eq!(capped.arrows_left_out as usize, replay.arrows.len() - 20);
    assert_eq!(capped.arrows[..], all.arrows[..20]);
    // Steps 4..=5: arrows sent, received or on the wire in them only.
    let w = SpaceTime::of(&timeline, 4, 5, usize::MAX, None);
    assert_eq!((w.from_step, w.to_step), (4, 5));
    assert_eq!(w.steps.iter().map(|s| s.step).collect::<Vec<_>>(), vec![4, 5]);
    assert!(!w.arrows.is_empty());
    for a in &w.arrows {
        assert!(a.sent.step <= 5 && a.received.is_none_or(|r| r.step >= 4), "{a:?}");
    }
    let inside = replay.arrows.iter().filter(|a| a.sent.step <= 5 && a.received.is_none_or(|r| r.step >= 4)).count();
    assert_eq!(w.arrows.len(), inside);
    assert!(w.marks.iter().all(|m| (4..=5).contains(&m.at.step)));
    // Out of range: clamped to the timeline.
    let far = SpaceTime::of(&timeline, 50, 90, 10, None);
    assert_eq!((far.from_step, far.to_step), (timeline.len() as u64, timeline.len() as u64));
    // A window's replay is the whole run's, cut to the window.
    for (name, scenario) in scenarios() {
        let timeline = Timeline::new(&scenario).unwrap();
        let full = Replay::of(&timeline);
        let len = timeline.len() as u64;
        for (from, to) in [(1, len), (1, 1), (2, 4), (len / 2, len / 2 + 1), (len, len)] {
            let (from, to) = (from.max(1), to.min(len));
            let d = SpaceTime::of(&timeline, from, to, usize::MAX, None);
            let expected: Vec<_> = full.arrows.iter().filter(|a| a.sent.step <= to && a.received.is_none_or(|r| r.step >= from)).cloned().collect();
            assert_eq!(d.arrows, expected, "{name}: steps {from}..={to}");
            let marks: Vec<_> = full.marks.iter().filter(|m| (from..=to).contains(&m.at.step)).cloned().collect();
            assert_eq!(d.marks, marks, "{name}: steps {from}..={to}");
            assert_eq!(d.steps.len() as u64, to + 1 - from);
        }
    }
    let empty = Timeline::new(&Scenario::new(Default::default())).unwrap();
    let d = SpaceTime::of(&empty, 1, 10, 10, None);
    assert!(d.arrows.is_empty() && d.steps.is_empty());
}

/// Random timed runs with every kind of fault (latencies, cuts, isolation,
/// crashes with power loss, paused fetchers, manual rounds in between): the
/// replayed wire matches the network after every step, and every drop and
/// discard the events report is drawn.
#[test]
fn random_timed_runs_pair_every_message() {
    let mut rng = highwater::base::rng::Rng::new(11);
    let mut timeouts = 0;
    let mut drops = 0;
    let (mut compared, mut unpaired, mut runs_with_unknown_copies) = (0, 0, 0);
    let runs = 300;
    for run in 0..runs {
        let p = Protocol::ALL[run as usize % Protocol::ALL.len()];
        let brokers = 2 + rng.below(3);
        let b = |rng: &mut highwater::base::rng::Rng| 1 + rng.below(brokers);
        let mut steps = vec![];
        for i in 0..40 {
            let x = b(&mut rng);
            let y = 1 + (x + rng.below(brokers - 1)) % brokers;
            steps.push(match rng.below(16) {
                0..=2 => format!(r#"{{"produce": {{"value": "m{i}", "acks": "{}"}}}}"#, ["all", "1"][rng.below(2) as usize]),
                3..=6 => format!(r#"{{"advance_ms": {}}}"#, 1 + rng.below(3000)),
                7 => format!(r#"{{"crash": {{"broker": {x}, "lose_unflushed": {}}}}}"#, rng.below(2)),
                8 => format!(r#"{{"restart": {x}}}"#),
                9 => format!(r#"{{"cut": [{x}, {y}]}}"#),
                10 => format!(r#"{{"delay": {{"broker": {x}, "ms": {}}}}}"#, rng.below(800)),
                11 => format!(r#"{{"isolate": {x}}}"#),
                12 => r#"{"heal": "all"}"#.to_string(),
                13 => format!(r#"{{"pause": {x}}}"#),
                14 => format!(r#"{{"resume": {x}}}"#),
                _ => format!(r#"{{"fetch": {x}}}"#),
            });
        }
        let text = format!(
            r#"{{"version": 1, "config": {{"brokers": {brokers}, "protocol": "{p}", "auto_fetch": true, "link_latency_ms": {}, "request_timeout_ms": {}, "seed": {run}}}, "steps": [{}]}}"#,
            rng.below(50),
            200 + rng.below(3000),
            steps.join(", ")
        );
        let scenario = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let mut timeline = Timeline::new(&scenario).unwrap();
        let replay = Replay::of(&timeline);
        for e in timeline.all_events() {
            timeouts += matches!(e.event, Event::FetchTimedOut { discarded: 1.., .. }) as u32;
            drops += matches!(e.event, Event::Dropped { .. }) as u32;
        }
        // A line that stands for three or more sends at different times
        // names only the first and the last: the ones between are not
        // paired, and may be on the wire unseen by the replay.
        let unknown_copies = timeline.all_events().iter().any(|e| matches!((&e.event, e.repeated), (Event::Sent { .. }, Some(r)) if r.more > 1 && r.until_ms > e.time_ms));
        runs_with_unknown_copies += unknown_copies as u32;
        let discarded: u64 = timeline
            .all_events()
            .iter()
            .map(|e| match e.event {
                Event::FetchTimedOut { discarded, .. } | Event::FetcherRemoved { discarded, .. } => discarded,
                _ => 0,
            })
            .sum();
        let replay_discarded = replay.arrows.iter().filter(|a| a.fate == Fate::Discarded).count() as u64;
        if unknown_copies {
            assert!(replay_discarded <= discarded, "run {run}: {text}");
        } else {
            assert_eq!(replay_discarded, discarded, "run {run}: {text}");
        }
        for a in &replay.arrows {
            assert!(a.received.is_none_or(|r| (a.sent.step, a.sent.time_ms) <= (r.step, r.time_ms)), "run {run}: {a:?}");
        }
        let events = timeline.all_events().to_vec();
        let unseen = |m: &(u32, u32, &str, u64)| {
            events.iter().any(|e| match (&e.event, e.repeated) {
                (Event::Sent { from, to, message, latency_ms }, Some(r)) => {
                    r.more > 1 && (*from, *to, message.name()) == (m.0, m.1, m.2) && m.3 > e.time_ms + latency_ms && m.3 < r.until_ms + latency_ms
                }
                _ => false,
            })
        };
        for pos in 0..=timeline.len() {
            timeline.seek(pos).unwrap();
            let view = StateView::of(timeline.current(), LogWindow::ALL);
            let actual: Vec<_> = view.in_flight.iter().map(|m| (m.from, m.to, m.message.name(), m.arrives_ms)).collect();
            let replayed = on_the_wire_after(&replay, pos as u64);
            if replayed != actual {
                let mut rest = actual.clone();
                for m in &replayed {
                    let i = rest.iter().position(|a| a == m).unwrap_or_else(|| panic!("run {run}, after step {pos}: {m:?} is not on the wire: {text}"));
                    rest.remove(i);
                }
                assert!(unknown_copies && rest.iter().all(unseen), "run {run}, after step {pos}: {replayed:?} != {actual:?}: {text}");
                unpaired += rest.len();
            }
            compared += 1;
        }
    }
    assert!(timeouts > 0 && drops > 20, "the runs reach timeouts ({timeouts}) and drops ({drops})");
    assert!(unpaired * 100 < compared, "{unpaired} unpaired copies in {compared} steps");
    assert!(runs_with_unknown_copies * 10 < runs, "{runs_with_unknown_copies} of {runs} runs have copies at unknown times");
}

/// A produce the client retries is not marked as given up: in
/// `timed-failover` the leader's crash breaks m2's connection
/// (NETWORK_EXCEPTION), the client retries on the new leader and m2 is
/// acknowledged; the mark says it retries, and no "gives up" mark appears.
#[test]
fn a_retried_produce_is_marked_as_retried_not_as_given_up() {
    use highwater::model::protocol::Errors;
    let timeline = Timeline::new(&common::load("timed-failover")).unwrap();
    let d = SpaceTime::of(&timeline, 1, u64::MAX, 1000, None);
    assert!(d.marks.iter().any(|m| m.mark == MarkKind::ProduceRetried { error: Some(Errors::NetworkException) }), "{:?}", d.marks);
    assert!(!d.marks.iter().any(|m| matches!(m.mark, MarkKind::ProduceFailed { .. })), "{:?}", d.marks);
}

/// KIP-841's two steps leave marks on the broker's lane: a cut to the
/// controller only and its healing, and a controlled shutdown.
#[test]
fn controller_cut_and_controlled_shutdown_are_marked() {
    let text = r#"{"version": 1, "config": {"protocol": "3.7"}, "steps": [
        {"cut_controller": 3}, {"heal": 3}, {"controlled_shutdown": 1}]}"#;
    let timeline = Timeline::new(&Scenario::from_json(text).unwrap()).unwrap();
    let d = SpaceTime::of(&timeline, 1, u64::MAX, 1000, None);
    let marks: Vec<(u64, Lane, MarkKind)> = d
        .marks
        .iter()
        .filter(|m| matches!(m.mark, MarkKind::ControllerCut | MarkKind::ControllerLinkHealed | MarkKind::ControlledShutdown))
        .map(|m| (m.at.step, m.lane, m.mark.clone()))
        .collect();
    assert_eq!(
        marks,
        vec![
            (1, Lane::Broker(3), MarkKind::ControllerCut),
            (2, Lane::Broker(3), MarkKind::ControllerLinkHealed),
            (3, Lane::Broker(1), MarkKind::ControlledShutdown)
        ]
    );
}

/// Timed mode from the 2.8 preset: an AlterPartition is an arrow from the
/// leader to the controller that ends when its answer arrives (ignored when
/// the partition's state changed meanwhile; lost when the leader crashes).
#[test]
fn an_alter_partition_in_flight_is_an_arrow_to_its_answer() {
    let text = r#"{"version": 1, "config": {"protocol": "3.7", "brokers": 3, "auto_fetch": true, "replica_lag_time_max_ms": 10000},
        "steps": [{"delay": {"broker": 1, "ms": 10000}}, {"pause": 2}, {"produce": {"value": "m1", "acks": "1"}},
                  {"advance_ms": 15001}, {"cut_controller": 3}, {"advance_ms": 45000}, {"resume": 2}, {"advance_ms": 35000}, {"crash": {"broker": 1}}]}"#;
    let timeline = Timeline::new(&Scenario::from_json(text).unwrap()).unwrap();
    let d = SpaceTime::of(&timeline, 1, u64::MAX, 1000, None);
    let arrows: Vec<(u64, Option<u64>, Fate)> = d
        .arrows
        .iter()
        .filter(|a| a.kind == "AlterPartition" && a.from == Lane::Broker(1) && a.to == CONTROLLER)
        .map(|a| (a.sent.time_ms, a.received.map(|r| r.time_ms), a.fate))
        .collect();
    // Sent at the ISR check at 15 s, answered (and ignored: the controller
    // fenced broker 3 meanwhile) at 35 s; sent again, accepted at 55 s;
    // broker 2's return is proposed at 90 s, and lost with the leader at 95 s.
    let lost = arrows.get(2).copied();
    assert_eq!(arrows[..2], [(15_000, Some(35_000), Fate::Failed), (35_000, Some(55_000), Fate::Delivered)], "{arrows:?}");
    assert_eq!(lost.map(|a| (a.1, a.2)), Some((Some(95_001), Fate::Dropped)), "{arrows:?}");
    assert_eq!(arrows.len(), 3, "{arrows:?}");
}

/// How a broker learns that it leads or follows, drawn as Kafka does it: a
/// LeaderAndIsr request from the controller in the ZooKeeper era (0.10 to
/// 2.8 here); under KRaft (3.5 on) no LeaderAndIsr is sent, the controller
/// writes a PartitionChangeRecord to the metadata log and each broker
/// replays it (`ReplicationControlManager`, `ReplicaManager.applyDelta`).
#[test]
fn role_changes_are_leader_and_isr_under_zookeeper_and_partition_change_records_under_kraft() {
    let base = common::load("kip101-loss-after-restart");
    for protocol in highwater::Protocol::ALL {
        let scenario = highwater::Scenario { config: base.config.with_protocol(protocol), ..base.clone() };
        let timeline = Timeline::new(&scenario).unwrap();
        let d = SpaceTime::of(&timeline, 1, u64::MAX, 1000, None);
        let kinds: std::collections::BTreeSet<&str> = d.arrows.iter().filter(|a| a.from == CONTROLLER).map(|a| a.kind).collect();
        let kraft = protocol >= highwater::Protocol::V3_5;
        let (drawn, never) = if kraft { ("PartitionChangeRecord", "LeaderAndIsr") } else { ("LeaderAndIsr", "PartitionChangeRecord") };
        assert!(kinds.contains(drawn), "{protocol}: {kinds:?}");
        assert!(!kinds.contains(never), "{protocol}: {kinds:?}");
    }
}

/// A topic's diagram for one partition: the messages that carry it (a
/// batched Fetch carries every partition the follower follows on that
/// leader), what is about it, and the brokers' own marks; the partitions'
/// diagrams together draw everything the whole diagram does.
#[test]
fn a_partitions_diagram_draws_what_concerns_it() {
    let mut checked = 0;
    for name in common::scenario_names().into_iter().filter(|n| n.starts_with("cluster/")) {
        let timeline = Timeline::new(&common::load(&name)).unwrap();
        let partitions = timeline.scenario().config.partitions;
        assert!(partitions > 1, "{name}");
        let all = SpaceTime::of(&timeline, 1, u64::MAX, usize::MAX, None);
        let mut drawn_arrows = std::collections::BTreeSet::new();
        let mut drawn_marks = std::collections::BTreeSet::new();
        for p in 0..partitions {
            let d = SpaceTime::of(&timeline, 1, u64::MAX, usize::MAX, Some(p));
            assert!(d.arrows.len() < all.arrows.len(), "{name} p{p}: fewer arrows than the topic's");
            for a in &d.arrows {
                match &a.message {
                    Some(m) => assert!(m.carries(p), "{name} p{p}: {a:?}"),
                    None => assert!(a.partition.is_none_or(|q| q == p), "{name} p{p}: {a:?}"),
                }
                assert!(all.arrows.contains(a), "{name} p{p}: an arrow of the whole diagram");
                drawn_arrows.insert(a.order);
            }
            for m in &d.marks {
                assert!(m.partition.is_none_or(|q| q == p), "{name} p{p}: {m:?}");
                assert!(all.marks.contains(m));
                drawn_marks.insert((m.order, format!("{:?}", m.mark)));
            }
            // A crash is the broker's: every partition's diagram shows it.
            let crashes = |d: &SpaceTime| d.marks.iter().filter(|m| matches!(m.mark, MarkKind::Crashed { .. })).count();
            assert_eq!(crashes(&d), crashes(&all), "{name} p{p}");
            // Elections of this partition only.
            assert!(d.marks.iter().filter(|m| matches!(m.mark, MarkKind::LeaderElected { .. })).all(|m| m.partition == Some(p)));
            checked += 1;
        }
        let orders: std::collections::BTreeSet<u64> = all.arrows.iter().map(|a| a.order).collect();
        assert_eq!(drawn_arrows, orders, "{name}: every arrow is some partition's");
        assert_eq!(drawn_marks.len(), all.marks.iter().map(|m| (m.order, format!("{:?}", m.mark))).collect::<std::collections::BTreeSet<_>>().len(), "{name}: every mark is some partition's");
    }
    assert!(checked >= 12);
    // One partition: the same diagram whether asked for partition 0 or not.
    let t = Timeline::new(&common::load("kip101-loss-after-restart")).unwrap();
    assert_eq!(SpaceTime::of(&t, 1, u64::MAX, 1000, Some(0)), SpaceTime::of(&t, 1, u64::MAX, 1000, None));
}

/// The KRaft quorum in the diagram: a lane per controller right of the
/// controller's; every Vote an arrow (those to a crashed controller
/// dropped), each epoch's BeginQuorumEpoch once per voter, the metadata
/// fetches that move records, not the empty fetches; crashes marked on the
/// controller's lane.
#[test]
fn the_quorum_is_drawn_on_its_controllers_lanes() {
    use highwater::model::quorum::message::Rpc;
    use highwater::view::spacetime::voter_lane;
    let scenario = common::load("controller-failover-during-broker-failure");
    let timeline = Timeline::new(&scenario).unwrap();
    let diagram = SpaceTime::of(&timeline, 1, timeline.len() as u64, usize::MAX, None);
    let at = diagram.lanes.iter().position(|l| *l == CONTROLLER).expect("the controller's lane");
    assert_eq!(diagram.lanes[at + 1..], [voter_lane(1), voter_lane(2), voter_lane(3)]);
    let events = timeline.all_events();
    let quorum: Vec<_> = diagram.arrows.iter().filter(|a| a.from != a.to && [a.from, a.to].iter().all(|l| (1..=3).any(|c| *l == voter_lane(c)))).collect();
    let kinds = |k: &str| quorum.iter().filter(|a| a.kind == k).count();
    let votes = events.iter().filter(|e| matches!(e.event, Event::VoteRequest { .. })).count();
    assert!(votes >= 2, "an election: {votes} votes");
    assert_eq!(kinds("Vote"), votes);
    let lost_votes = events.iter().filter(|e| matches!(e.event, Event::QuorumDropped { kind: "Vote", .. })).count();
    assert!(lost_votes > 0, "votes to the crashed controller are lost");
    assert_eq!(quorum.iter().filter(|a| a.kind == "Vote" && a.fate == Fate::Dropped).count(), lost_votes);
    let answers = events.iter().filter(|e| matches!(e.event, Event::VoteGranted { .. } | Event::VoteRejected { .. })).count();
    assert!(answers > 0);
    assert_eq!(kinds("VoteResponse"), answers, "every vote answered is an arrow back");
    assert_eq!(kinds("Fetch"), 0, "the empty fetches are not drawn");
    let moving = events.iter().filter(|e| matches!(&e.event, Event::QuorumSent { rpc: Rpc::FetchResponse { records, diverging, .. }, .. } if !records.is_empty() || diverging.is_some())).count();
    assert!(moving > 0);
    assert_eq!(kinds("FetchResponse"), moving, "the fetches that move records");
    // Each new epoch's BeginQuorumEpoch once per voter, though sent every second.
    let begun: std::collections::BTreeSet<_> = events.iter().filter_map(|e| match &e.event {
        Event::QuorumSent { from, to, rpc: Rpc::BeginQuorumEpoch { epoch }, .. } => Some((*from, *to, *epoch)),
        _ => None,
    }).collect();
    let sent = events.iter().filter(|e| matches!(e.event, Event::QuorumSent { rpc: Rpc::BeginQuorumEpoch { .. }, .. })).count();
    assert!(sent > begun.len(), "sent again and again: {sent}");
    assert_eq!(kinds("BeginQuorumEpoch"), begun.len());
    for a in &quorum {
        assert_eq!(a.received.map(|r| r.time_ms), a.arrives_ms.filter(|_| a.fate != Fate::InFlight), "{a:?}");
    }
    let crash = events.iter().find(|e| matches!(e.event, Event::ControllerCrashed { controller: 1 })).expect("controller 1 crashes");
    assert!(diagram.marks.iter().any(|m| m.lane == voter_lane(1) && m.at.time_ms == crash.time_ms && matches!(m.mark, MarkKind::Crashed { .. })));
}
