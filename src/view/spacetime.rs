//! A space-time diagram of a run, derived from its typed events: a lane per
//! broker (and for the controller, the producer and the consumer), an arrow
//! per message with when it left and when it arrived (or was dropped or
//! discarded), and marks for crashes, restarts, truncations, elections and
//! HW moves. Plain data for the page to draw; derived, never fed back.
//!
//! Messages between brokers carry no id in the events, so they are paired
//! here by replaying the wire's own rules (`link.rs`): a message sent at
//! `t` with latency `l` arrives at `t + l`; arrivals are handled in order
//! of (arrival time, send order) while the clock runs (`advance_ms`); a
//! message that cannot arrive is dropped at its arrival with a `dropped`
//! event; a fetch that times out, or a fetcher removed when its follower
//! stops following that leader, closes its connection and discards what is
//! still on it (`fetch_timed_out`, `fetcher_removed`, with the count). A `fetch` step is one
//! whole round: its request and response arrive at once. The tests check
//! this replay against the network's own messages in flight after every
//! step of every scenario and of random timed runs with faults.
//!
//! One limit: a trace line that stands for the same message sent three or
//! more times in a row at different times (`repeated`) names only the first
//! and the last time; the copies between are counted on the last arrow but
//! not paired (their times are not in the events).
//!
//! The controller, the producer and the consumer reach the brokers at once
//! (reference §10): their arrows (LeaderAndIsr, or under KRaft the
//! PartitionChangeRecord brokers read from the metadata log; AlterPartition,
//! Produce and the consumer's Fetch) are drawn from the events that say they
//! happened.

use crate::model::config::{BrokerId, ControllerId, PartitionId};
use crate::model::quorum::message::Rpc;
use crate::model::rules::Rule;
use crate::model::event::{DropReason, ElectionKind, Event, ProduceResult, Truncation};
use crate::model::violation::ViolationKind;
use crate::model::protocol::{Errors, Message};
use crate::run::scenario::Step;
use crate::run::timeline::Timeline;
use crate::base::arrivals::Arrivals;
use serde::Serialize;

/// The most arrows (and the most marks) one diagram holds unless asked for
/// fewer: a long timed run has hundreds of thousands of messages, and 500
/// arrows already draw some 18,000 px tall (about 150 ms in Chromium).
pub const MAX_ARROWS: usize = 500;

/// The most arrows one may ask for.
pub const MAX_ARROWS_LIMIT: usize = 5_000;

/// A lane: a broker by its id, or the controller, the producer or the consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(untagged)]
pub enum Lane {
    Broker(BrokerId),
    /// "controller", "producer" or "consumer".
    Named(&'static str),
}

pub const CONTROLLER: Lane = Lane::Named("controller");
/// The voters of a KRaft controller quorum, "c1" to "c5".
const VOTER_LANES: [&str; 5] = ["c1", "c2", "c3", "c4", "c5"];

/// A controller of the quorum's lane.
pub fn voter_lane(c: ControllerId) -> Lane {
    Lane::Named(VOTER_LANES[(c as usize - 1).min(VOTER_LANES.len() - 1)])
}
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
    /// The same message was also sent this many times between the arrow
    /// before this one and this one, with no other event between (one trace
    /// line for them all, which names only the first and last times); those
    /// copies are not drawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeated: Option<u64>,
    /// The partition it is about, in a topic of several, when it is not a
    /// message (whose partitions it carries itself): a LeaderAndIsr, an
    /// AlterPartition, a produce request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionId>,
}

impl Arrow {
    /// A message (not a broker's: no `Message`) that leaves at `sent` and is
    /// due at `arrives_ms`, its fate still open.
    fn leaving(kind: &'static str, (from, to): (Lane, Lane), sent: At, arrives_ms: u64, order: u64) -> Arrow {
        Arrow {
            kind,
            from,
            to,
            sent,
            arrives_ms: Some(arrives_ms),
            received: None,
            fate: Fate::InFlight,
            drop_reason: None,
            ignored: false,
            order,
            message: None,
            error: None,
            repeated: None,
            partition: None,
        }
    }
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
    /// Cut from the controller only (KIP-841's case), and back.
    ControllerCut,
    ControllerLinkHealed,
    /// Stopped after a controlled shutdown (leadership moved first).
    ControlledShutdown,
    LinkCut { to: BrokerId },
    LinkHealed { to: BrokerId },
    Consumed { from: u64, to: u64 },
    /// The application is told the record failed (the client's last word).
    ProduceFailed { error: Option<Errors> },
    /// A retriable error the client noticed itself (a broken connection, a
    /// timeout): it retries, so this is not the record's result.
    ProduceRetried { error: Option<Errors> },
    /// A safety check failed (`invariants.rs`); `protocol_violation` is
    /// false for what Kafka's contract allows (an acks=1 loss).
    Violation { violation: ViolationKind, protocol_violation: bool },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    pub lane: Lane,
    pub at: At,
    pub order: u64,
    #[serde(flatten)]
    pub mark: MarkKind,
    /// The partition it is about, in a topic of several; none for what is
    /// the broker's (a crash, a fence, a cut).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionId>,
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

/// The arrows and marks of a window of steps, the wire replayed from the
/// run's first event.
#[derive(Debug, Default)]
pub struct Replay {
    /// In sending order.
    pub arrows: Vec<Arrow>,
    pub arrows_left_out: u64,
    pub marks: Vec<Mark>,
    pub marks_left_out: u64,
}

/// A message on the wire, as the replay keeps it; its arrow if it is drawn.
/// `quorum`: between controllers (their ids are not brokers').
struct Wire {
    from: BrokerId,
    to: BrokerId,
    kind: &'static str,
    quorum: bool,
    arrow: Option<Arrow>,
}

/// The replay's state: the wire, the window and what it keeps.
struct Replayer {
    from_step: u64,
    to_step: u64,
    max_arrows: usize,
    /// Arrows kept that were sent in the window (the cap counts these; the
    /// ones sent before it and arriving in it are cut at the end).
    kept_in_window: usize,
    /// Messages on the wire by (arrival, send order).
    wire: Arrivals<Wire>,
    /// A `fetch` step's round: its messages arrive at once, not through the wire.
    at_once: Vec<Wire>,
    /// AlterPartition requests out to the controller (timed mode), by
    /// leader: each ends with the leader's next ISR change or failure.
    alter_partitions: Vec<(BrokerId, Option<PartitionId>, Option<Arrow>)>,
    /// Draw only what concerns this partition (and what is the brokers' or
    /// the cluster's: a crash, a fence, a cut).
    partition: Option<PartitionId>,
    /// The partition the event being replayed is about (`Traced.partition`).
    event_partition: Option<PartitionId>,
    /// How a broker learns that it leads or follows: the controller's
    /// LeaderAndIsr request in the ZooKeeper era; under KRaft the controller
    /// writes a PartitionChangeRecord to the metadata log, which each broker
    /// replays (`ReplicationControlManager`; `BrokerMetadataPublisher` then
    /// `ReplicaManager.applyDelta`, at 3.7.0), and no
    /// LeaderAndIsr is sent.
    role_change: &'static str,
    /// Kept arrows still on the wire.
    tracked: usize,
    /// BeginQuorumEpoch requests and answers drawn, by (from, to, epoch,
    /// response): a leader sends its epoch's again every second, drawn once.
    begun: std::collections::HashSet<(ControllerId, ControllerId, u32, bool)>,
    /// Every link between controllers takes this long (the quorum's latency).
    quorum_latency_ms: u64,
    seq: u64,
    out: Replay,
}

impl Replayer {
    fn in_window(&self, step: u64) -> bool {
        step >= self.from_step && step <= self.to_step
    }

    /// The event being replayed (or `message`, which may carry several
    /// partitions: a batched Fetch) concerns the partition drawn.
    fn concerns(&self, message: Option<&Message>) -> bool {
        match (self.partition, message) {
            (None, _) => true,
            (Some(p), Some(m)) => m.carries(p),
            (Some(p), None) => self.event_partition.is_none_or(|q| q == p),
        }
    }

    /// An arrow for something sent at `at`, if it is drawn: sent in the
    /// window under the cap, or before it (it may arrive in it), about the
    /// partition drawn.
    fn admit(&mut self, mut arrow: Arrow) -> Option<Arrow> {
        if arrow.sent.step > self.to_step || !self.concerns(arrow.message.as_ref()) {
            return None;
        }
        if arrow.message.is_none() {
            arrow.partition = self.event_partition;
        }
        if arrow.sent.step >= self.from_step {
            if self.kept_in_window >= self.max_arrows {
                self.out.arrows_left_out += 1;
                return None;
            }
            self.kept_in_window += 1;
        }
        Some(arrow)
    }

    /// A message's journey is over (or the run is): its arrow is drawn if
    /// it touches the window.
    fn finish(&mut self, w: Wire, received: Option<At>, fate: Fate, drop_reason: Option<DropReason>) {
        self.finish_arrow(w.arrow, received, fate, drop_reason);
    }

    fn finish_arrow(&mut self, arrow: Option<Arrow>, received: Option<At>, fate: Fate, drop_reason: Option<DropReason>) {
        if let Some(mut a) = arrow {
            self.tracked -= 1;
            a.received = received;
            a.fate = fate;
            a.drop_reason = drop_reason;
            if received.is_none_or(|r| r.step >= self.from_step) {
                self.out.arrows.push(a);
            }
        }
    }

    /// A leader's AlterPartition is answered now (`fate`): the arrow of the
    /// request it sent, or one that arrives as it leaves.
    fn alter_partition_answered(&mut self, leader: BrokerId, at: At, order: u64, fate: Fate) {
        let partition = self.event_partition;
        match self.alter_partitions.iter().position(|(l, p, _)| *l == leader && *p == partition) {
            Some(i) => {
                let (_, _, arrow) = self.alter_partitions.swap_remove(i);
                self.finish_arrow(arrow, Some(at), fate, None);
            }
            None => self.instant(("AlterPartition", Lane::Broker(leader), CONTROLLER), at, order, fate, None),
        }
    }

    /// The leader stopped: its AlterPartitions' answers find no one.
    fn alter_partition_lost(&mut self, leader: BrokerId, at: At) {
        while let Some(i) = self.alter_partitions.iter().position(|(l, _, _)| *l == leader) {
            let (_, _, arrow) = self.alter_partitions.swap_remove(i);
            self.finish_arrow(arrow, Some(at), Fate::Dropped, Some(DropReason::BrokerDown));
        }
    }

    /// A message between controllers put on the wire, drawn as its arrow
    /// (`Rpc` names it; a Vote is a `vote_request` event), arriving after
    /// `latency_ms` unless a `quorum_dropped` says it was lost.
    fn quorum_sent(&mut self, (kind, from, to): (&'static str, ControllerId, ControllerId), at: At, order: u64, latency_ms: u64) {
        let arrow = self.admit(Arrow::leaving(kind, (voter_lane(from), voter_lane(to)), at, at.time_ms + latency_ms, order));
        self.tracked += arrow.is_some() as usize;
        self.wire.insert((at.time_ms + latency_ms, self.seq), Wire { from, to, kind, quorum: true, arrow });
        self.seq += 1;
    }

    /// Which messages between controllers the diagram draws: the election
    /// (Vote and its answer, BeginQuorumEpoch and its answer once per epoch,
    /// EndQuorumEpoch) and the metadata fetches that move records or find a
    /// divergence; not the empty fetches a follower sends every few hundred
    /// milliseconds, which would fill the diagram.
    fn draws(&mut self, from: ControllerId, to: ControllerId, rpc: &Rpc) -> bool {
        match rpc {
            Rpc::Fetch { .. } => false,
            Rpc::FetchResponse { records, diverging, .. } => !records.is_empty() || diverging.is_some(),
            Rpc::BeginQuorumEpoch { epoch } => self.begun.insert((from, to, *epoch, false)),
            Rpc::BeginQuorumEpochResponse { epoch, .. } => self.begun.insert((from, to, *epoch, true)),
            _ => true,
        }
    }

    /// An arrow (kind, from, to) that arrives as it leaves.
    fn instant(&mut self, (kind, from, to): (&'static str, Lane, Lane), at: At, order: u64, fate: Fate, error: Option<Errors>) {
        if !self.in_window(at.step) {
            return;
        }
        let arrow = Arrow {
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
            partition: None,
        };
        if let Some(a) = self.admit(arrow) {
            self.out.arrows.push(a);
        }
    }

    fn mark(&mut self, lane: Lane, at: At, order: u64, mark: MarkKind) {
        if !self.in_window(at.step) || !self.concerns(None) {
            return;
        }
        if self.out.marks.len() >= self.max_arrows {
            self.out.marks_left_out += 1;
        } else {
            let partition = self.event_partition;
            self.out.marks.push(Mark { lane, at, order, mark, partition });
        }
    }

    /// What arrived on the wire before `time_ms` was delivered (the clock
    /// runs in this step).
    fn deliver_before(&mut self, step: u64, time_ms: u64) {
        while let Some(((arrives, _), w)) = self.wire.pop_first_if(|(arrives, _)| arrives < time_ms) {
            self.finish(w, Some(At { step, time_ms: arrives }), Fate::Delivered, None);
        }
    }

    /// The end of a step: a round's messages arrived at once; what arrived
    /// on the wire while the clock ran was delivered (up to where a budget
    /// stopped it).
    fn finish_step(&mut self, step: u64, advanced_to: Option<u64>, stopped_at: Option<u64>) {
        for w in std::mem::take(&mut self.at_once) {
            let sent = w.arrow.as_ref().map_or(0, |a| a.sent.time_ms);
            self.finish(w, Some(At { step, time_ms: sent }), Fate::Delivered, None);
        }
        let arrived = |arrives: u64| match (stopped_at, advanced_to) {
            (Some(stop), _) => arrives < stop,
            (None, Some(to)) => arrives <= to,
            (None, None) => false,
        };
        while let Some(((arrives, _), w)) = self.wire.pop_first_if(|(arrives, _)| arrived(arrives)) {
            self.finish(w, Some(At { step, time_ms: arrives }), Fate::Delivered, None);
        }
    }
}

impl Replay {
    /// Every arrow and mark of the whole timeline (whatever its position).
    pub fn of(timeline: &Timeline) -> Replay {
        Replay::window(timeline, 1, u64::MAX, usize::MAX, None)
    }

    /// The arrows sent, received or on the wire in steps
    /// `from_step..=to_step`, at most `max_arrows` of them (the first
    /// sent), and at most as many marks made in those steps; with
    /// `partition`, only what concerns it (and the brokers' own marks).
    pub fn window(timeline: &Timeline, from_step: u64, to_step: u64, max_arrows: usize, partition: Option<PartitionId>) -> Replay {
        let steps = &timeline.scenario().steps;
        let mut r = Replayer {
            from_step,
            to_step,
            max_arrows,
            kept_in_window: 0,
            wire: Arrivals::new(),
            at_once: vec![],
            alter_partitions: vec![],
            partition,
            event_partition: None,
            role_change: if timeline.scenario().config.rules().has(Rule::KraftController) { "PartitionChangeRecord" } else { "LeaderAndIsr" },
            tracked: 0,
            begun: Default::default(),
            quorum_latency_ms: timeline.scenario().config.link_latency_ms,
            seq: 0,
            out: Replay::default(),
        };
        // The last broker each produce request went to, by request id (ids count up from 0).
        let mut produce_to: Vec<Option<BrokerId>> = vec![];
        // A `fetch` step: the follower, and how many of its round's messages were sent.
        let mut round: Option<(BrokerId, u32)> = None;
        let mut step = 0u64;
        // The clock ran to this time in the current step (`advance_ms`).
        let mut advanced_to: Option<u64> = None;
        let mut stopped_at: Option<u64> = None;

        for (index, e) in timeline.all_events().iter().enumerate() {
            r.event_partition = e.partition;
            if e.step != step {
                if step > 0 {
                    r.finish_step(step, advanced_to, stopped_at);
                }
                if e.step > to_step && r.tracked == 0 {
                    break; // nothing drawn is still on the wire
                }
                step = e.step;
                advanced_to = None;
                stopped_at = None;
                round = match steps.get(step as usize - 1) {
                    Some(Step::Fetch(f)) => Some((f.broker, 0)),
                    _ => None,
                };
            }
            let at = At { step, time_ms: e.time_ms };
            let order = index as u64;
            if advanced_to.is_some() {
                r.deliver_before(step, e.time_ms);
            }
            match &e.event {
                Event::ClockAdvanced { to_ms, .. } => advanced_to = Some(*to_ms),
                Event::BudgetExceeded { .. } => stopped_at = Some(e.time_ms),
                Event::Sent { from, to, message, latency_ms } => {
                    let now = match &mut round {
                        Some((f, n)) if *n < 2 && (if *n == 0 { from == f } else { to == f }) => {
                            *n += 1;
                            true
                        }
                        _ => false,
                    };
                    // A repeated line: the same message sent again right
                    // after, the last copy at `until_ms`. Copies all sent at
                    // once are all drawn; otherwise the first and the last
                    // are, and the ones between are counted on the last,
                    // their times unknown.
                    let copies = match e.repeated {
                        None => vec![(e.time_ms, None)],
                        Some(rep) if rep.until_ms == e.time_ms => vec![(e.time_ms, None); 1 + rep.more as usize],
                        Some(rep) => vec![(e.time_ms, None), (rep.until_ms, (rep.more > 1).then_some(rep.more - 1))],
                    };
                    for (time_ms, between) in copies {
                        let arrow = r.admit(Arrow {
                            kind: message.name(),
                            from: Lane::Broker(*from),
                            to: Lane::Broker(*to),
                            sent: At { step, time_ms },
                            arrives_ms: Some(time_ms + latency_ms),
                            received: None,
                            fate: Fate::InFlight,
                            drop_reason: None,
                            ignored: false,
                            order,
                            message: Some(message.clone()),
                            error: None,
                            repeated: between,
                            partition: None,
                        });
                        r.tracked += arrow.is_some() as usize;
                        let w = Wire { from: *from, to: *to, kind: message.name(), quorum: false, arrow };
                        if now {
                            r.at_once.push(w);
                        } else {
                            r.wire.insert((time_ms + latency_ms, r.seq), w);
                            r.seq += 1;
                        }
                    }
                }
                Event::VoteRequest { candidate, to, latency_ms, .. } => r.quorum_sent(("Vote", *candidate, *to), at, order, *latency_ms),
                // A vote's answer leaves as the voter decides (the model tells it so, with no `quorum_sent`).
                Event::VoteGranted { controller, candidate, .. } | Event::VoteRejected { controller, candidate, .. } => {
                    let latency_ms = r.quorum_latency_ms;
                    r.quorum_sent(("VoteResponse", *controller, *candidate), at, order, latency_ms);
                }
                Event::QuorumSent { from, to, rpc, latency_ms } => {
                    if r.draws(*from, *to, rpc) {
                        r.quorum_sent((rpc.name(), *from, *to), at, order, *latency_ms);
                    }
                }
                Event::QuorumDropped { from, to, kind, reason } => {
                    // What arrives now (what arrived before was delivered); an undrawn message matches none.
                    let key = r.wire.iter().take_while(|(k, _)| k.0 <= e.time_ms).find(|(_, w)| w.quorum && w.from == *from && w.to == *to && w.kind == *kind).map(|(k, _)| k);
                    if let Some(k) = key {
                        let w = r.wire.remove(k).expect("listed");
                        r.finish(w, Some(At { step, time_ms: k.0 }), Fate::Dropped, Some(*reason));
                    }
                }
                Event::ControllerCrashed { controller } => r.mark(voter_lane(*controller), at, order, MarkKind::Crashed { lose_unflushed: 0 }),
                Event::ControllerRestarted { controller, .. } => r.mark(voter_lane(*controller), at, order, MarkKind::Restarted),
                Event::ControllerIsolated { controller } => r.mark(voter_lane(*controller), at, order, MarkKind::Isolated),
                Event::ControllerHealed { controller } => r.mark(voter_lane(*controller), at, order, MarkKind::IsolationHealed),
                Event::ControllerBecameLeader { controller, epoch, .. } => r.mark(voter_lane(*controller), at, order, MarkKind::BecameLeader { leader_epoch: *epoch }),
                Event::Dropped { from, to, kind, reason } => {
                    let until = e.repeated.map_or(e.time_ms, |r| r.until_ms);
                    let mut count = 1 + e.repeated.map_or(0, |r| r.more);
                    let matches = |w: &Wire| !w.quorum && w.from == *from && w.to == *to && w.kind == *kind;
                    if let Some((f, n)) = &mut round {
                        if *n == 1 && from == f {
                            *n = 2; // the round's request is lost: no response follows
                        }
                    }
                    // A round's message first: it never waits on the wire.
                    while count > 0 {
                        let Some(i) = r.at_once.iter().position(matches) else { break };
                        let w = r.at_once.remove(i);
                        r.finish(w, Some(at), Fate::Dropped, Some(*reason));
                        count -= 1;
                    }
                    // Then what arrives now (what arrived before was delivered).
                    let keys: Vec<(u64, u64)> =
                        r.wire.iter().take_while(|(k, _)| k.0 <= until).filter(|(_, w)| matches(w)).map(|(k, _)| k).take(count as usize).collect();
                    for k in keys {
                        let w = r.wire.remove(k).expect("listed");
                        r.finish(w, Some(At { step, time_ms: k.0 }), Fate::Dropped, Some(*reason));
                    }
                }
                Event::FetchTimedOut { follower, leader, discarded } | Event::FetcherRemoved { follower, leader, discarded } => {
                    // `close_connection`: what is still on the wire between
                    // the two, either way; the last sent are the ones left.
                    let between = |w: &Wire| (w.from == *follower && w.to == *leader) || (w.from == *leader && w.to == *follower);
                    let keys: Vec<(u64, u64)> = r.wire.iter().filter(|(_, w)| between(w)).map(|(k, _)| k).collect();
                    let keep = keys.len().saturating_sub(*discarded as usize);
                    for (i, k) in keys.into_iter().enumerate() {
                        let w = r.wire.remove(k).expect("listed");
                        if i < keep {
                            r.finish(w, Some(At { step, time_ms: k.0 }), Fate::Delivered, None);
                        } else {
                            r.finish(w, Some(at), Fate::Discarded, None);
                        }
                    }
                }
                Event::ResponseIgnored { follower, kind, .. } => {
                    // The response arriving now (or the round's).
                    let matches = |w: &Wire| w.kind == *kind && w.to == *follower;
                    let now = e.time_ms;
                    let w = r.at_once.iter_mut().rev().find(|w| matches(w));
                    let w = match w {
                        Some(w) => Some(w),
                        None => r.wire.arriving_at_mut(now).find(|w| matches(w)),
                    };
                    if let Some(a) = w.and_then(|w| w.arrow.as_mut()) {
                        a.ignored = true;
                    }
                }
                Event::BecameLeader { broker, leader_epoch, .. } => {
                    r.instant((r.role_change, CONTROLLER, Lane::Broker(*broker)), at, order, Fate::Delivered, None);
                    r.mark(Lane::Broker(*broker), at, order, MarkKind::BecameLeader { leader_epoch: *leader_epoch });
                }
                Event::BecameFollower { broker, .. } => {
                    r.instant((r.role_change, CONTROLLER, Lane::Broker(*broker)), at, order, Fate::Delivered, None)
                }
                Event::AlterPartitionSent { leader, answer_in_ms, .. } => {
                    let arrow = r.admit(Arrow::leaving("AlterPartition", (Lane::Broker(*leader), CONTROLLER), at, e.time_ms + answer_in_ms, order));
                    r.tracked += arrow.is_some() as usize;
                    r.alter_partitions.push((*leader, e.partition, arrow));
                }
                Event::IsrExpanded { leader, isr, .. } => {
                    r.alter_partition_answered(*leader, at, order, Fate::Delivered);
                    r.mark(CONTROLLER, at, order, MarkKind::IsrExpanded { isr: isr.clone() });
                }
                Event::IsrShrunk { leader, isr, by_controller, .. } => {
                    if let (Some(l), false) = (leader, by_controller) {
                        r.alter_partition_answered(*l, at, order, Fate::Delivered);
                    }
                    r.mark(CONTROLLER, at, order, MarkKind::IsrShrunk { isr: isr.clone() });
                }
                Event::IsrChangeFailed { leader, .. } => r.alter_partition_answered(*leader, at, order, Fate::Failed),
                Event::ProduceRequest { request, to: Some(b), .. } => {
                    let i = *request as usize;
                    if produce_to.len() <= i {
                        produce_to.resize(i + 1, None);
                    }
                    produce_to[i] = Some(*b);
                    r.instant(("Produce", PRODUCER, Lane::Broker(*b)), at, order, Fate::Delivered, None);
                }
                Event::ProduceResponse { request, result, expired, retry_in_ms, .. } => {
                    let error = match result {
                        ProduceResult::Error(e) => Some(*e),
                        _ => None,
                    };
                    // A broken connection or a timeout is the client's own
                    // finding; acks=0 hears nothing.
                    let from_client = expired.is_some() || matches!(error, Some(Errors::NetworkException | Errors::RequestTimedOut));
                    match (produce_to.get(*request as usize).copied().flatten(), result) {
                        (_, ProduceResult::Sent) => {}
                        (Some(b), _) if !from_client => {
                            r.instant(("ProduceResponse", Lane::Broker(b), PRODUCER), at, order, Fate::Delivered, error)
                        }
                        _ if retry_in_ms.is_some() => r.mark(PRODUCER, at, order, MarkKind::ProduceRetried { error }),
                        _ => r.mark(PRODUCER, at, order, MarkKind::ProduceFailed { error }),
                    }
                }
                Event::Consumed { broker, from, to, .. } => {
                    r.instant(("Fetch", CONSUMER, Lane::Broker(*broker)), at, order, Fate::Delivered, None);
                    r.instant(("FetchResponse", Lane::Broker(*broker), CONSUMER), at, order, Fate::Delivered, None);
                    r.mark(CONSUMER, at, order, MarkKind::Consumed { from: *from, to: *to });
                }
                Event::Crashed { broker, lose_unflushed } => {
                    r.alter_partition_lost(*broker, at);
                    r.mark(Lane::Broker(*broker), at, order, MarkKind::Crashed { lose_unflushed: *lose_unflushed })
                }
                Event::Restarted { broker } => r.mark(Lane::Broker(*broker), at, order, MarkKind::Restarted),
                Event::Truncated { broker, from, to, truncation } => {
                    r.mark(Lane::Broker(*broker), at, order, MarkKind::Truncated { from: *from, to: *to, truncation: *truncation })
                }
                Event::LeaderElected { leader, leader_epoch, kind, .. } => {
                    r.mark(CONTROLLER, at, order, MarkKind::LeaderElected { leader: *leader, leader_epoch: *leader_epoch, election: *kind })
                }
                Event::HighWatermarkChanged { broker, from, to, .. } => {
                    r.mark(Lane::Broker(*broker), at, order, MarkKind::HighWatermark { from: *from, to: *to })
                }
                Event::Appended { broker, offset, epoch, .. } => {
                    r.mark(Lane::Broker(*broker), at, order, MarkKind::Appended { offset: *offset, epoch: *epoch })
                }
                Event::BrokerFenced { broker, .. } => r.mark(Lane::Broker(*broker), at, order, MarkKind::Fenced),
                Event::BrokerUnfenced { broker } => r.mark(Lane::Broker(*broker), at, order, MarkKind::Unfenced),
                Event::PartitionOffline { .. } => r.mark(CONTROLLER, at, order, MarkKind::PartitionOffline),
                Event::Isolated { broker } => r.mark(Lane::Broker(*broker), at, order, MarkKind::Isolated),
                Event::IsolationHealed { broker } => r.mark(Lane::Broker(*broker), at, order, MarkKind::IsolationHealed),
                Event::ControllerCut { broker } => r.mark(Lane::Broker(*broker), at, order, MarkKind::ControllerCut),
                Event::ControllerLinkHealed { broker } => r.mark(Lane::Broker(*broker), at, order, MarkKind::ControllerLinkHealed),
                Event::ControlledShutdownCompleted { broker } => {
                    r.alter_partition_lost(*broker, at);
                    r.mark(Lane::Broker(*broker), at, order, MarkKind::ControlledShutdown)
                }
                Event::LinkCut { from, to, .. } => r.mark(Lane::Broker(*from), at, order, MarkKind::LinkCut { to: *to }),
                Event::LinkHealed { from, to } => r.mark(Lane::Broker(*from), at, order, MarkKind::LinkHealed { to: *to }),
                Event::Violation(v) => {
                    // On the first broker it names (the checks run on the whole cluster).
                    let lane = v.brokers.first().map_or(CONTROLLER, |b| Lane::Broker(*b));
                    r.mark(lane, at, order, MarkKind::Violation { violation: v.kind, protocol_violation: v.protocol_violation })
                }
                _ => {}
            }
        }
        if step > 0 && r.tracked + r.at_once.len() > 0 {
            r.finish_step(step, advanced_to, stopped_at);
        }
        // What is still on the wire at the end stays in flight.
        for w in std::mem::take(&mut r.wire).into_values() {
            r.finish(w, None, Fate::InFlight, None);
        }
        for (_, _, arrow) in std::mem::take(&mut r.alter_partitions) {
            r.finish_arrow(arrow, None, Fate::InFlight, None);
        }
        let mut out = r.out;
        out.arrows.sort_by_key(|a| a.order);
        // Arrows sent before the window and arriving in it count under the cap too.
        if out.arrows.len() > max_arrows {
            out.arrows_left_out += (out.arrows.len() - max_arrows) as u64;
            out.arrows.truncate(max_arrows);
        }
        out
    }
}

impl SpaceTime {
    /// The diagram of steps `from_step..=to_step` (1-based; clamped to the
    /// timeline) with at most `max_arrows` arrows and as many marks; with
    /// `partition`, the messages and marks that concern it.
    pub fn of(timeline: &Timeline, from_step: u64, to_step: u64, max_arrows: usize, partition: Option<PartitionId>) -> SpaceTime {
        let len = timeline.len() as u64;
        let to_step = to_step.min(len);
        let from_step = from_step.clamp(1.min(len), to_step.max(1.min(len)));
        let replay = Replay::window(timeline, from_step, to_step, max_arrows, partition);
        // Lanes by what the scenario does, the same for every window.
        let scenario = timeline.scenario();
        let mut lanes = vec![];
        if scenario.steps.iter().any(|s| matches!(s, Step::Produce(_))) {
            lanes.push(PRODUCER);
        }
        lanes.extend((1..=scenario.config.brokers).map(Lane::Broker));
        if scenario.steps.iter().any(|s| matches!(s, Step::Consume(_))) {
            lanes.push(CONSUMER);
        }
        lanes.push(CONTROLLER);
        // The KRaft quorum's voters, right of the controller they elect.
        lanes.extend((1..=scenario.config.controllers).map(voter_lane));

        let ends = timeline.step_ends();
        let events = timeline.all_events();
        let mut steps = vec![];
        let mut last_ms = 0;
        for s in 1..=to_step {
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
            if s >= from_step {
                steps.push(StepSpan { step: s, start_ms, end_ms, events: (end - start) as u64 });
            }
        }
        SpaceTime {
            lanes,
            from_step,
            to_step,
            position: timeline.position() as u64,
            steps,
            arrows: replay.arrows,
            arrows_left_out: replay.arrows_left_out,
            marks: replay.marks,
            marks_left_out: replay.marks_left_out,
            max_arrows: max_arrows as u64,
        }
    }
}

/// A message on the wire: from, to, kind, arrival time.
pub type OnTheWire = (BrokerId, BrokerId, &'static str, u64);

/// The messages the replay says are on the wire after `step` steps: (from,
/// to, kind, arrival), in the network's order (arrival, then sending).
/// Tests compare it with the network's own.
pub fn on_the_wire_after(replay: &Replay, step: u64) -> Vec<OnTheWire> {
    let mut out: Vec<(u64, u64, OnTheWire)> = replay
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
