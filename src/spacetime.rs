//! A space-time diagram of a run, derived from its typed events: a lane per
//! broker (and for the controller, the producer and the consumer), an arrow
//! per message with when it left and when it arrived (or was dropped or
//! discarded), and marks for crashes, restarts, truncations, elections and
//! HW moves. Plain data for the page to draw; derived, never fed back.
//!
//! Messages between brokers carry no id in the events, so they are paired
//! here by replaying the wire's own rules (`network.rs`): a message sent at
//! `t` with latency `l` arrives at `t + l`; arrivals are handled in order
//! of (arrival time, send order) while the clock runs (`advance_ms`); a
//! message that cannot arrive is dropped at its arrival with a `dropped`
//! event; a fetch that times out closes its connection and discards what is
//! still on it (`fetch_timed_out`, with the count). A `fetch` step is one
//! whole round: its request and response arrive at once. The tests check
//! this replay against the network's own messages in flight after every
//! step of every scenario.
//!
//! The controller, the producer and the consumer reach the brokers at once
//! (reference §10): their arrows (LeaderAndIsr, AlterPartition, Produce and
//! the consumer's Fetch) are drawn from the events that say they happened.

use crate::config::BrokerId;
use crate::event::{DropReason, ElectionKind, Event, ProduceResult, Truncation};
use crate::protocol::{Errors, Message};
use crate::scenario::Step;
use crate::timeline::Timeline;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The most arrows (and the most marks) one diagram holds unless asked for
/// fewer: a long timed run has hundreds of thousands of messages.
pub const MAX_ARROWS: usize = 2_000;

/// A lane: a broker by its id, or the controller, the producer or the consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(untagged)]
pub enum Lane {
    Broker(BrokerId),
    /// "controller", "producer" or "consumer".
    Named(&'static str),
}

pub const CONTROLLER: Lane = Lane::Named("controller");
pub const PRODUCER: Lane = Lane::Named("producer");
pub const CONSUMER: Lane = Lane::Named("consumer");

/// A moment of the run: the step (1-based) and the simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct At {
    pub step: u64,
    pub time_ms: u64,
}

/// What became of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// It arrived and was handled (or ignored as stale, `ignored`).
    Delivered,
    /// Lost on arrival: the link was cut, a broker isolated or down.
    Dropped,
    /// Still on the wire when its fetcher timed out and closed the connection.
    Discarded,
    /// An AlterPartition the controller did not accept (or could not get).
    Failed,
    /// Still on the wire at the end of the timeline.
    InFlight,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Arrow {
    /// Kafka's API name: Fetch, FetchResponse, OffsetsForLeaderEpoch,
    /// OffsetsForLeaderEpochResponse, AlterPartition, LeaderAndIsr, Produce,
    /// ProduceResponse.
    pub kind: &'static str,
    pub from: Lane,
    pub to: Lane,
    pub sent: At,
    /// When a broker's message arrives (or would have): its send time plus
    /// the latency of its link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrives_ms: Option<u64>,
    /// When it arrived, was dropped or discarded; null while in flight.
    pub received: Option<At>,
    pub fate: Fate,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_reason: Option<DropReason>,
    /// The receiver ignored it as stale (`response_ignored`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
    /// The index of the event that sent it (orders arrows within a moment).
    pub order: u64,
    /// The message as the trace shows it (records left out), for brokers'
    /// messages; the error for a produce response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Errors>,
    /// The same message was sent this many more times right after, up to
    /// `repeated_until_ms` (one trace line for them all); those copies are
    /// not drawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeated: Option<u64>,
}

/// Something that happened on one lane.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MarkKind {
    Crashed { lose_unflushed: u64 },
    Restarted,
    Truncated { from: u64, to: u64, truncation: Truncation },
    LeaderElected { leader: BrokerId, leader_epoch: u32, election: ElectionKind },
    BecameLeader { leader_epoch: u32 },
    HighWatermark { from: u64, to: u64 },
    Appended { offset: u64, epoch: u32 },
    IsrShrunk { isr: Vec<BrokerId> },
    IsrExpanded { isr: Vec<BrokerId> },
    Fenced,
    Unfenced,
    PartitionOffline,
    Isolated,
    IsolationHealed,
    LinkCut { to: BrokerId },
    LinkHealed { to: BrokerId },
    Consumed { from: u64, to: u64 },
    ProduceFailed { error: Option<Errors> },
    Violation,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    pub lane: Lane,
    pub at: At,
    pub order: u64,
    #[serde(flatten)]
    pub mark: MarkKind,
}

/// One step's span of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StepSpan {
    pub step: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub events: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpaceTime {
    /// Left to right: the producer, the brokers, the consumer, the controller.
    pub lanes: Vec<Lane>,
    /// The window of steps (1-based, inclusive) the diagram covers.
    pub from_step: u64,
    pub to_step: u64,
    /// Steps applied up to the timeline's position (the current step).
    pub position: u64,
    pub steps: Vec<StepSpan>,
    /// Arrows sent or received in the window, in sending order, at most
    /// `max_arrows`; `arrows_left_out` more were not included.
    pub arrows: Vec<Arrow>,
    pub arrows_left_out: u64,
    pub marks: Vec<Mark>,
    pub marks_left_out: u64,
    pub max_arrows: u64,
}

/// Every arrow and mark of a run, the wire replayed from its events.
#[derive(Debug, Default)]
pub struct Replay {
    pub arrows: Vec<Arrow>,
    pub marks: Vec<Mark>,
    pub has_producer: bool,
    pub has_consumer: bool,
}

/// A message on the wire, as the replay keeps it.
#[derive(Clone, Copy)]
struct Wire {
    arrow: usize,
    from: BrokerId,
    to: BrokerId,
    kind: &'static str,
    /// A `fetch` step's round: it arrives at once, not through the wire.
    at_once: bool,
}

impl Replay {
    /// Replays the events of the whole timeline (whatever its position).
    pub fn of(timeline: &Timeline) -> Replay {
        let steps = &timeline.scenario().steps;
        let mut r = Replay::default();
        // Messages on the wire by (arrival, send order).
        let mut wire: BTreeMap<(u64, u64), Wire> = BTreeMap::new();
        let mut seq = 0u64;
        // The last broker each produce request went to.
        let mut produce_to: HashMap<u64, BrokerId> = HashMap::new();
        // A `fetch` step: the follower, and how many of its round's messages were sent.
        let mut round: Option<(BrokerId, u32)> = None;
        let mut step = 0u64;
        // The clock ran to this time in the current step (`advance_ms`).
        let mut advanced_to: Option<u64> = None;
        let mut stopped_at: Option<u64> = None;
        let events = timeline.all_events();

        // What is left on the wire at the end of a step: what arrived while
        // the clock ran was delivered, a round's messages at once.
        let finish_step = |r: &mut Replay, wire: &mut BTreeMap<(u64, u64), Wire>, step: u64, advanced_to: Option<u64>, stopped_at: Option<u64>| {
            let keys: Vec<(u64, u64)> = wire
                .iter()
                .filter(|(&(arrives, _), w)| {
                    w.at_once
                        || match (stopped_at, advanced_to) {
                            (Some(stop), _) => arrives < stop,
                            (None, Some(to)) => arrives <= to,
                            (None, None) => false,
                        }
                })
                .map(|(k, _)| *k)
                .collect();
            for k in keys {
                let w = wire.remove(&k).expect("listed");
                let a = &mut r.arrows[w.arrow];
                a.received = Some(At { step, time_ms: if w.at_once { a.sent.time_ms } else { k.0 } });
                a.fate = Fate::Delivered;
            }
        };

        for (index, e) in events.iter().enumerate() {
            if e.step != step {
                if step > 0 {
                    finish_step(&mut r, &mut wire, step, advanced_to, stopped_at);
                }
                step = e.step;
                advanced_to = None;
                stopped_at = None;
                round = match steps.get(step as usize - 1) {
                    Some(Step::Fetch(f)) => Some((*f, 0)),
                    _ => None,
                };
            }
            let at = At { step, time_ms: e.time_ms };
            let order = index as u64;
            // While the clock runs, what arrived before now was delivered.
            if advanced_to.is_some() {
                while let Some((&(arrives, s), w)) = wire.iter().find(|(_, w)| !w.at_once) {
                    if arrives >= e.time_ms {
                        break;
                    }
                    let a = &mut r.arrows[w.arrow];
                    a.received = Some(At { step, time_ms: arrives });
                    a.fate = Fate::Delivered;
                    wire.remove(&(arrives, s));
                }
            }
            let mark = |r: &mut Replay, lane: Lane, mark: MarkKind| r.marks.push(Mark { lane, at, order, mark });
            let instant = |r: &mut Replay, kind: &'static str, from: Lane, to: Lane, fate: Fate, error: Option<Errors>| {
                r.arrows.push(Arrow {
                    kind,
                    from,
                    to,
                    sent: at,
                    arrives_ms: None,
                    received: Some(at),
                    fate,
                    drop_reason: None,
                    ignored: false,
                    order,
                    message: None,
                    error,
                    repeated: None,
                })
            };
            match &e.event {
                Event::ClockAdvanced { to_ms, .. } => advanced_to = Some(*to_ms),
                Event::BudgetExceeded { .. } => stopped_at = Some(e.time_ms),
                Event::Sent { from, to, message, latency_ms } => {
                    let at_once = match &mut round {
                        Some((f, n)) if *n < 2 && (if *n == 0 { from == f } else { to == f }) => {
                            *n += 1;
                            true
                        }
                        _ => false,
                    };
                    r.arrows.push(Arrow {
                        kind: message.name(),
                        from: Lane::Broker(*from),
                        to: Lane::Broker(*to),
                        sent: at,
                        arrives_ms: Some(e.time_ms + latency_ms),
                        received: None,
                        fate: Fate::InFlight,
                        drop_reason: None,
                        ignored: false,
                        order,
                        message: Some(message.clone()),
                        error: None,
                        repeated: e.repeated.map(|r| r.more),
                    });
                    let w = Wire { arrow: r.arrows.len() - 1, from: *from, to: *to, kind: message.name(), at_once };
                    wire.insert((e.time_ms + latency_ms, seq), w);
                    seq += 1;
                }
                Event::Dropped { from, to, kind, reason } => {
                    let until = e.repeated.map_or(e.time_ms, |r| r.until_ms);
                    let count = 1 + e.repeated.map_or(0, |r| r.more);
                    let matches = |w: &Wire| w.from == *from && w.to == *to && w.kind == *kind;
                    // A round's message first: it never waits on the wire.
                    let mut keys: Vec<(u64, u64)> = wire.iter().filter(|(_, w)| w.at_once && matches(w)).map(|(k, _)| *k).collect();
                    keys.extend(wire.iter().filter(|(&(arrives, _), w)| !w.at_once && arrives <= until && matches(w)).map(|(k, _)| *k));
                    if let Some((f, n)) = &mut round {
                        if *n == 1 && from == f {
                            *n = 2; // the round's request is lost: no response follows
                        }
                    }
                    for k in keys.into_iter().take(count as usize) {
                        let w = wire.remove(&k).expect("listed");
                        let a = &mut r.arrows[w.arrow];
                        a.received = Some(At { step, time_ms: if w.at_once { e.time_ms } else { k.0 } });
                        a.fate = Fate::Dropped;
                        a.drop_reason = Some(*reason);
                    }
                }
                Event::FetchTimedOut { follower, leader, discarded } => {
                    // `close_connection`: what is still on the wire between
                    // the two, either way; the last sent are the ones left.
                    let between = |w: &Wire| !w.at_once && ((w.from == *follower && w.to == *leader) || (w.from == *leader && w.to == *follower));
                    let mut keys: Vec<(u64, u64)> = wire.iter().filter(|(_, w)| between(w)).map(|(k, _)| *k).collect();
                    let keep = keys.len().saturating_sub(*discarded as usize);
                    for (i, k) in keys.drain(..).enumerate() {
                        let w = wire.remove(&k).expect("listed");
                        let a = &mut r.arrows[w.arrow];
                        if i < keep {
                            a.received = Some(At { step, time_ms: k.0 });
                            a.fate = Fate::Delivered;
                        } else {
                            a.received = Some(at);
                            a.fate = Fate::Discarded;
                        }
                    }
                }
                Event::ResponseIgnored { follower, kind, .. } => {
                    // The last such response that reached the follower.
                    if let Some(a) = r.arrows.iter_mut().rev().find(|a| a.kind == *kind && a.to == Lane::Broker(*follower) && a.message.is_some()) {
                        a.ignored = true;
                    }
                }
                Event::BecameLeader { broker, leader_epoch, .. } => {
                    instant(&mut r, "LeaderAndIsr", CONTROLLER, Lane::Broker(*broker), Fate::Delivered, None);
                    mark(&mut r, Lane::Broker(*broker), MarkKind::BecameLeader { leader_epoch: *leader_epoch });
                }
                Event::BecameFollower { broker, .. } => {
                    instant(&mut r, "LeaderAndIsr", CONTROLLER, Lane::Broker(*broker), Fate::Delivered, None)
                }
                Event::IsrExpanded { leader, isr, .. } => {
                    instant(&mut r, "AlterPartition", Lane::Broker(*leader), CONTROLLER, Fate::Delivered, None);
                    mark(&mut r, CONTROLLER, MarkKind::IsrExpanded { isr: isr.clone() });
                }
                Event::IsrShrunk { leader, isr, by_controller, .. } => {
                    if let (Some(l), false) = (leader, by_controller) {
                        instant(&mut r, "AlterPartition", Lane::Broker(*l), CONTROLLER, Fate::Delivered, None);
                    }
                    mark(&mut r, CONTROLLER, MarkKind::IsrShrunk { isr: isr.clone() });
                }
                Event::IsrChangeFailed { leader, .. } => {
                    instant(&mut r, "AlterPartition", Lane::Broker(*leader), CONTROLLER, Fate::Failed, None)
                }
                Event::ProduceRequest { request, to: Some(b), .. } => {
                    r.has_producer = true;
                    produce_to.insert(*request, *b);
                    instant(&mut r, "Produce", PRODUCER, Lane::Broker(*b), Fate::Delivered, None);
                }
                Event::ProduceRequest { .. } => r.has_producer = true,
                Event::ProduceResponse { request, result, expired, .. } => {
                    r.has_producer = true;
                    let error = match result {
                        ProduceResult::Error(e) => Some(*e),
                        _ => None,
                    };
                    // A broken connection or a timeout is the client's own
                    // finding; acks=0 hears nothing.
                    let from_client = expired.is_some() || matches!(error, Some(Errors::NetworkException | Errors::RequestTimedOut));
                    match (produce_to.get(request), result) {
                        (_, ProduceResult::Sent) => {}
                        (Some(&b), _) if !from_client => instant(&mut r, "ProduceResponse", Lane::Broker(b), PRODUCER, Fate::Delivered, error),
                        _ => mark(&mut r, PRODUCER, MarkKind::ProduceFailed { error }),
                    }
                }
                Event::Consumed { broker, from, to, .. } => {
                    r.has_consumer = true;
                    instant(&mut r, "Fetch", CONSUMER, Lane::Broker(*broker), Fate::Delivered, None);
                    instant(&mut r, "FetchResponse", Lane::Broker(*broker), CONSUMER, Fate::Delivered, None);
                    mark(&mut r, CONSUMER, MarkKind::Consumed { from: *from, to: *to });
                }
                Event::ConsumeFailed { .. } | Event::ConsumerTruncationDetected { .. } | Event::ConsumerPositionReset { .. } => {
                    r.has_consumer = true
                }
                Event::Crashed { broker, lose_unflushed } => {
                    mark(&mut r, Lane::Broker(*broker), MarkKind::Crashed { lose_unflushed: *lose_unflushed })
                }
                Event::Restarted { broker } => mark(&mut r, Lane::Broker(*broker), MarkKind::Restarted),
                Event::Truncated { broker, from, to, truncation } => {
                    mark(&mut r, Lane::Broker(*broker), MarkKind::Truncated { from: *from, to: *to, truncation: *truncation })
                }
                Event::LeaderElected { leader, leader_epoch, kind, .. } => {
                    mark(&mut r, CONTROLLER, MarkKind::LeaderElected { leader: *leader, leader_epoch: *leader_epoch, election: *kind })
                }
                Event::HighWatermarkChanged { broker, from, to, .. } => {
                    mark(&mut r, Lane::Broker(*broker), MarkKind::HighWatermark { from: *from, to: *to })
                }
                Event::Appended { broker, offset, epoch, .. } => {
                    mark(&mut r, Lane::Broker(*broker), MarkKind::Appended { offset: *offset, epoch: *epoch })
                }
                Event::BrokerFenced { broker, .. } => mark(&mut r, Lane::Broker(*broker), MarkKind::Fenced),
                Event::BrokerUnfenced { broker } => mark(&mut r, Lane::Broker(*broker), MarkKind::Unfenced),
                Event::PartitionOffline { .. } => mark(&mut r, CONTROLLER, MarkKind::PartitionOffline),
                Event::Isolated { broker } => mark(&mut r, Lane::Broker(*broker), MarkKind::Isolated),
                Event::IsolationHealed { broker } => mark(&mut r, Lane::Broker(*broker), MarkKind::IsolationHealed),
                Event::LinkCut { from, to, .. } => mark(&mut r, Lane::Broker(*from), MarkKind::LinkCut { to: *to }),
                Event::LinkHealed { from, to } => mark(&mut r, Lane::Broker(*from), MarkKind::LinkHealed { to: *to }),
                Event::Violation(_) => mark(&mut r, CONTROLLER, MarkKind::Violation),
                _ => {}
            }
        }
        if step > 0 {
            finish_step(&mut r, &mut wire, step, advanced_to, stopped_at);
        }
        r
    }
}

impl SpaceTime {
    /// The diagram of steps `from_step..=to_step` (1-based; clamped to the
    /// timeline) with at most `max_arrows` arrows and as many marks.
    pub fn of(timeline: &Timeline, from_step: u64, to_step: u64, max_arrows: usize) -> SpaceTime {
        SpaceTime::window(timeline, &Replay::of(timeline), from_step, to_step, max_arrows)
    }

    /// `of` with the replay already made (it covers the whole timeline).
    pub fn window(timeline: &Timeline, replay: &Replay, from_step: u64, to_step: u64, max_arrows: usize) -> SpaceTime {
        let len = timeline.len() as u64;
        let to_step = to_step.min(len);
        let from_step = from_step.clamp(1.min(len), to_step.max(1.min(len)));
        let brokers = timeline.scenario().config.brokers;
        let mut lanes = vec![];
        if replay.has_producer {
            lanes.push(PRODUCER);
        }
        lanes.extend((1..=brokers).map(Lane::Broker));
        if replay.has_consumer {
            lanes.push(CONSUMER);
        }
        lanes.push(CONTROLLER);

        let in_window = |s: u64| s >= from_step && s <= to_step;
        let mut arrows = vec![];
        let mut arrows_left_out = 0;
        for a in &replay.arrows {
            // An arrow belongs if it was sent or arrived in the window, or
            // crosses it (still on the wire through it).
            let end = a.received.map_or(u64::MAX, |r| r.step);
            if a.sent.step <= to_step && end >= from_step {
                if arrows.len() < max_arrows {
                    arrows.push(a.clone());
                } else {
                    arrows_left_out += 1;
                }
            }
        }
        let mut marks = vec![];
        let mut marks_left_out = 0;
        for m in replay.marks.iter().filter(|m| in_window(m.at.step)) {
            if marks.len() < max_arrows {
                marks.push(m.clone());
            } else {
                marks_left_out += 1;
            }
        }
        let ends = timeline.step_ends();
        let events = timeline.all_events();
        let mut steps = vec![];
        let mut last_ms = 0;
        for s in 1..=len {
            let (start, end) = (if s == 1 { 0 } else { ends[s as usize - 2] }, ends[s as usize - 1]);
            let span = &events[start..end];
            let start_ms = span.first().map_or(last_ms, |e| e.time_ms);
            let end_ms = span
                .iter()
                .map(|e| match e.event {
                    Event::ClockAdvanced { to_ms, .. } => to_ms,
                    _ => e.repeated.map_or(e.time_ms, |r| r.until_ms),
                })
                .max()
                .unwrap_or(start_ms);
            // A stopped run's clock stays where the work stopped.
            let end_ms = match span.iter().find(|e| matches!(e.event, Event::BudgetExceeded { .. })) {
                Some(e) => e.time_ms,
                None => end_ms,
            };
            last_ms = end_ms;
            if in_window(s) {
                steps.push(StepSpan { step: s, start_ms, end_ms, events: (end - start) as u64 });
            }
        }
        SpaceTime {
            lanes,
            from_step,
            to_step,
            position: timeline.position() as u64,
            steps,
            arrows,
            arrows_left_out,
            marks,
            marks_left_out,
            max_arrows: max_arrows as u64,
        }
    }
}

/// The messages the replay says are on the wire after `step` steps: (from,
/// to, kind, arrival), in the network's order (arrival, then sending).
/// Tests compare it with the network's own.
pub fn on_the_wire_after(replay: &Replay, step: u64) -> Vec<(BrokerId, BrokerId, &'static str, u64)> {
    let mut out: Vec<(u64, u64, (BrokerId, BrokerId, &'static str, u64))> = replay
        .arrows
        .iter()
        .filter(|a| a.sent.step <= step && a.received.is_none_or(|r| r.step > step))
        .filter_map(|a| {
            let (m, arrives) = (a.message.as_ref()?, a.arrives_ms?);
            Some((arrives, a.order, (m.from(), m.to(), m.name(), arrives)))
        })
        .collect();
    out.sort_by_key(|&(t, order, _)| (t, order));
    out.into_iter().map(|(_, _, m)| m).collect()
}
