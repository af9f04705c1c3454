//! The state as one plain, serialisable value: what `highwater run --json`
//! prints and what the page draws each frame. Derived from the simulation,
//! never fed back into it.

use crate::model::config::{BrokerId, PartitionId, Protocol};
use crate::model::event::{ProduceResult, Traced};
use crate::model::violation::Violation;
use crate::model::partition::log::EpochEntry;
use crate::model::clients::accumulator::Status;
use crate::model::protocol::Message;
use crate::model::simulation::Simulation;
use serde::Serialize;
use std::sync::Arc;

#[derive(Clone, Debug, Serialize)]
pub struct StateView {
    pub time_ms: u64,
    pub step: u64,
    pub protocol: Protocol,
    /// A KRaft preset (3.5 on): a controlled shutdown can be asked for and
    /// waited out (`begin_controlled_shutdown`).
    pub kraft: bool,
    /// ISR changes are AlterPartition requests to the controller (KIP-497,
    /// from the 2.8 preset); before, the leader wrote ZooKeeper itself.
    pub alter_partition: bool,
    pub partition: PartitionView,
    /// Every partition of the topic, as `kafka-topics.sh --describe` and the
    /// replicas' state show it (`with_partitions`: the command line's
    /// `run --json` always, the page when the topic has several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<Vec<PartitionSummary>>,
    pub brokers: Vec<BrokerView>,
    pub links: LinksView,
    pub in_flight: Vec<InFlightView>,
    pub producer: Vec<ProduceView>,
    pub consumer: ConsumerView,
    pub violations: Vec<Violation>,
    /// The KRaft controller quorum, when the scenario has one (`config.controllers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quorum: Option<crate::view::quorum::QuorumView>,
    /// Why the run stopped here, if it went past a budget (the
    /// `budget_exceeded` event's words); null otherwise.
    pub stopped: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PartitionView {
    pub leader: Option<BrokerId>,
    pub leader_epoch: u32,
    /// The controller's ISR.
    pub isr: Vec<BrokerId>,
    /// The leader's HW (what consumers can read up to); null when offline.
    pub high_watermark: Option<u64>,
    /// Eligible Leader Replicas (KIP-966, 4.1); empty in other versions.
    pub elr: Vec<BrokerId>,
    /// KIP-966's last known leader, kept while the ISR is empty.
    pub last_known_leader: Option<BrokerId>,
}

/// One partition of the topic: the controller's registration, the
/// describe tool's flags, and each replica's state.
#[derive(Clone, Debug, Serialize)]
pub struct PartitionSummary {
    pub id: PartitionId,
    pub leader: Option<BrokerId>,
    pub leader_epoch: u32,
    pub isr: Vec<BrokerId>,
    pub elr: Vec<BrokerId>,
    pub last_known_leader: Option<BrokerId>,
    /// The leader's HW; null when offline.
    pub high_watermark: Option<u64>,
    /// The assignment, the preferred leader first.
    pub replicas: Vec<BrokerId>,
    pub preferred_leader: BrokerId,
    /// `TopicCommand`'s `isUnderReplicated`: fewer in the ISR than the replicas.
    pub under_replicated: bool,
    /// `isUnderMinIsr`: no leader, or fewer in the ISR than `min.insync.replicas`.
    pub under_min_isr: bool,
    /// `hasUnavailablePartitions`: no leader, or a leader that is not live
    /// (fenced, to the controller).
    pub offline: bool,
    /// One per replica, in assignment order.
    pub brokers: Vec<ReplicaSummary>,
}

/// A broker's replica of a partition.
#[derive(Clone, Debug, Serialize)]
pub struct ReplicaSummary {
    pub id: BrokerId,
    /// As `brokers[].role`.
    pub role: &'static str,
    pub log_end_offset: u64,
    pub high_watermark: u64,
    pub checkpointed_high_watermark: u64,
    pub log: Vec<RecordView>,
    pub leader_epoch_cache: Option<Vec<EpochEntry>>,
    pub in_isr: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct RecordView {
    pub offset: u64,
    pub epoch: u32,
    pub value: Arc<str>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RemoteView {
    pub id: BrokerId,
    /// Where the leader believes the follower's LEO is (null: unknown).
    pub log_end_offset: Option<u64>,
    pub last_caught_up_ms: u64,
    /// The leader holds this follower's fetch (nothing new yet) until this
    /// time, or until a record arrives (timed mode).
    pub fetch_held_until_ms: Option<u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BrokerView {
    pub id: BrokerId,
    /// It holds a replica of the partition shown; written only when it does
    /// not (a topic with fewer replicas than brokers).
    #[serde(skip_serializing_if = "is_true")]
    pub replica: bool,
    /// Its rack (`broker.rack`), if the brokers have racks.
    pub rack: Option<Arc<str>>,
    /// Partitions it leads, in its own belief (`ReplicaManager`'s `LeaderCount`).
    pub leader_count: u32,
    pub alive: bool,
    pub isolated: bool,
    /// Cut from the controller only (`cut_controller`): it still reaches the
    /// other brokers.
    pub controller_cut: bool,
    /// In controlled shutdown and still up (`begin_controlled_shutdown`):
    /// it stops at `shutdown_at_ms`, its next heartbeat.
    pub shutdown_at_ms: Option<u64>,
    /// It stopped fetching: shutting down and out of the ISR.
    pub fetcher_stopped_for_shutdown: bool,
    /// The controller's session for this broker expired.
    pub fenced: bool,
    /// With a controller quorum: the end of the committed metadata it has
    /// applied, and its broker epoch (the offset of its registration record).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broker_epoch: Option<u64>,
    /// "leader", "follower", "none" (knows no leader), "starting" (restarted,
    /// waiting to register) or "down".
    pub role: &'static str,
    /// Believes it leads but the controller has moved on.
    pub stale_leader: bool,
    /// The leader this broker believes in.
    pub leader: Option<BrokerId>,
    pub leader_epoch: u32,
    pub log_end_offset: u64,
    pub high_watermark: u64,
    pub checkpointed_high_watermark: u64,
    pub in_isr: bool,
    /// In the Eligible Leader Replicas (KIP-966, 4.1).
    pub in_elr: bool,
    pub latency_ms: u64,
    pub fetcher_paused: bool,
    /// The first offset in `log` (the page may ask for a window).
    pub log_window_start: u64,
    pub log: Vec<RecordView>,
    /// The leader-epoch cache (epoch, start offset); null under 0.10, which
    /// has no leader epochs (KIP-101 is 0.11).
    pub leader_epoch_cache: Option<Vec<EpochEntry>>,
    /// On a leader: its ISR and what it knows of each follower.
    pub isr: Option<Vec<BrokerId>>,
    /// On a leader: the replicas its HW and acks=all wait for. From 2.7 the
    /// maximal ISR (KIP-497): the ISR with the member an expansion waiting
    /// for the controller adds; before, the ISR.
    pub maximal_isr: Option<Vec<BrokerId>>,
    pub remote: Option<Vec<RemoteView>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinksView {
    /// Directed cuts `[from, to]`.
    pub cut: Vec<[BrokerId; 2]>,
}

#[derive(Clone, Debug, Serialize)]
pub struct InFlightView {
    pub from: BrokerId,
    pub to: BrokerId,
    pub arrives_ms: u64,
    #[serde(flatten)]
    pub message: Message,
    pub line: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProduceView {
    pub value: Arc<str>,
    /// The partition the client chose.
    pub partition: PartitionId,
    pub acks: crate::run::scenario::Acks,
    /// The broker the request went to.
    pub to: Option<BrokerId>,
    pub offset: Option<u64>,
    pub epoch: Option<u32>,
    /// The outcome as the application sees it, after the client's retries:
    /// "acked", "sent" (acks=0) or a Kafka error name; "queued" (waiting in
    /// the client to be sent), "pending" (waiting for the HW) or "retrying"
    /// while it is not decided yet.
    pub result: &'static str,
    /// Attempts that reached a broker.
    pub attempts: u32,
    /// The error of the latest failed attempt, if any.
    pub last_error: Option<&'static str>,
    pub step: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConsumedView {
    pub offset: u64,
    pub value: Arc<str>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConsumerView {
    /// Where it reads the partition shown next.
    pub position: u64,
    /// Where it reads each partition next.
    pub positions: Vec<u64>,
    pub read: Vec<ConsumedView>,
}

/// Which records of each log to include.
#[derive(Clone, Copy, Debug)]
pub struct LogWindow {
    pub start: u64,
    pub max_records: usize,
}

impl LogWindow {
    pub const ALL: LogWindow = LogWindow { start: 0, max_records: usize::MAX };
}

/// A traced event with its trace line.
#[derive(Clone, Debug, Serialize)]
pub struct EventView<'a> {
    #[serde(flatten)]
    pub traced: &'a Traced,
    pub line: String,
}

impl<'a> EventView<'a> {
    pub fn of(traced: &'a Traced) -> Self {
        EventView { traced, line: traced.to_string() }
    }
}

pub fn result_name(status: Status) -> &'static str {
    match status {
        Status::Queued => "queued",
        Status::Pending => "pending",
        Status::Retrying { .. } => "retrying",
        Status::Done(ProduceResult::Acked) => "acked",
        Status::Done(ProduceResult::Sent) => "sent",
        Status::Done(ProduceResult::Error(e)) => e.name(),
    }
}

/// The end of the board's log for partition `p`: the furthest log end offset
/// among the brokers' replicas of it (`brokers[].log_end_offset`), without
/// the state. A window that follows the log asks for its state from here.
pub fn log_end(sim: &Simulation, p: PartitionId) -> u64 {
    sim.brokers.iter().map(|node| sim.replica(p, node.id).log_end_offset()).max().unwrap_or(0)
}

impl StateView {
    /// The state with partition 0 on the board (`partition`, `brokers[]`).
    pub fn of(sim: &Simulation, window: LogWindow) -> StateView {
        StateView::of_partition(sim, 0, window)
    }

    /// The state with partition `p` on the board: `partition` is its
    /// registration, and each of `brokers[]` shows its replica of `p` (a
    /// broker that holds none says so with `replica: false`).
    pub fn of_partition(sim: &Simulation, p: PartitionId, window: LogWindow) -> StateView {
        let c = sim.controller.partition(p);
        let leader_hw = c.leader.map(|l| sim.replica(p, l).high_watermark);
        let brokers = sim
            .brokers
            .iter()
            .map(|node| {
                let b = sim.replica(p, node.id);
                let is_leader = sim.is_leader(p, b.id);
                let role = role(sim, p, node.id);
                let leo = b.log_end_offset();
                let (start, log) = window_of(b, window);
                let remote = is_leader.then(|| {
                    c.replicas
                        .iter()
                        .copied()
                        .filter(|&f| f != b.id)
                        .map(|f| RemoteView {
                            id: f,
                            log_end_offset: b.remote(f).log_end_offset,
                            last_caught_up_ms: b.remote(f).last_caught_up_ms,
                            fetch_held_until_ms: node.delayed_fetches.iter().find(|d| d.request.follower == f).map(|d| d.until_ms),
                        })
                        .collect()
                });
                BrokerView {
                    id: b.id,
                    replica: c.replicas.contains(&b.id),
                    rack: sim.config.rack(b.id).map(Arc::from),
                    leader_count: sim.config.partition_ids().filter(|&q| sim.is_leader(q, b.id)).count() as u32,
                    alive: node.alive,
                    isolated: sim.network.is_isolated(b.id),
                    controller_cut: sim.network.controller_cut[(b.id - 1) as usize],
                    shutdown_at_ms: node.shutdown_at_ms.filter(|_| node.alive),
                    fetcher_stopped_for_shutdown: node.alive && b.stopped_for_shutdown,
                    fenced: sim.controller.is_fenced(b.id),
                    metadata_offset: sim.quorum.is_some().then_some(sim.broker(b.id).metadata_offset),
                    broker_epoch: sim.quorum.is_some().then_some(sim.broker(b.id).broker_epoch),
                    role,
                    stale_leader: is_leader && (c.leader != Some(b.id) || c.leader_epoch != b.leader_epoch),
                    leader: b.leader,
                    leader_epoch: b.leader_epoch,
                    log_end_offset: leo,
                    high_watermark: b.high_watermark,
                    checkpointed_high_watermark: b.checkpointed_high_watermark,
                    in_isr: c.isr.contains(&b.id),
                    in_elr: c.elr.contains(&b.id),
                    latency_ms: sim.network.latency_ms[(b.id - 1) as usize],
                    fetcher_paused: node.fetchers_paused,
                    log_window_start: start,
                    log,
                    leader_epoch_cache: sim.protocol().has_leader_epoch_cache().then(|| b.log.epochs().entries().to_vec()),
                    isr: is_leader.then(|| b.isr.to_vec()),
                    maximal_isr: is_leader.then(|| sim.high_watermark_members(p, b.id).to_vec()),
                    remote,
                }
            })
            .collect();
        StateView {
            time_ms: sim.now_ms,
            step: sim.step,
            protocol: sim.protocol(),
            kraft: sim.rules.has(crate::model::rules::Rule::KraftController),
            alter_partition: sim.rules.has(crate::model::rules::Rule::MaximalIsr),
            partition: PartitionView {
                leader: c.leader,
                leader_epoch: c.leader_epoch,
                isr: c.isr.to_vec(),
                high_watermark: leader_hw,
                elr: c.elr.to_vec(),
                last_known_leader: c.last_known_leader,
            },
            brokers,
            links: LinksView { cut: sim.network.cuts.iter().map(|&(a, b)| [a, b]).collect() },
            in_flight: sim
                .network
                .in_flight
                .iter()
                .map(|((arrives_ms, _), m)| {
                    let message = match m {
                        Message::FetchResponse(r) => Message::FetchResponse(r.summary()),
                        other => other.clone(),
                    };
                    InFlightView { from: m.from(), to: m.to(), arrives_ms, line: message.to_string(), message }
                })
                .collect(),
            producer: sim
                .producer
                .requests
                .iter()
                .map(|r| ProduceView {
                    value: r.value.clone(),
                    partition: r.partition,
                    acks: r.acks,
                    to: r.broker,
                    offset: r.offset,
                    epoch: r.epoch,
                    result: result_name(r.status),
                    attempts: r.attempts,
                    last_error: r.last_error.map(|e| e.name()),
                    step: r.step,
                })
                .collect(),
            consumer: ConsumerView {
                position: sim.consumer.position(p),
                positions: sim.consumer.positions.iter().map(|at| at.position).collect(),
                read: sim.consumer.read.iter().map(|c| ConsumedView { offset: c.offset, value: c.value.clone() }).collect(),
            },
            violations: sim.violations.clone(),
            quorum: sim.quorum.as_deref().map(crate::view::quorum::QuorumView::of),
            stopped: sim.stopped().map(|b| crate::model::event::budget_message(b, sim.budgets().limit(b))),
            partitions: None,
        }
    }

    /// The view with every partition of the topic (`partitions`), each
    /// replica's log within `window`.
    pub fn with_partitions(mut self, sim: &Simulation, window: LogWindow) -> StateView {
        let cache = sim.protocol().has_leader_epoch_cache();
        let summaries = sim
            .config
            .partition_ids()
            .map(|p| {
                let c = sim.controller.partition(p);
                let flags = crate::view::operator::describe_flags(sim, p);
                let brokers = c
                    .replicas
                    .iter()
                    .map(|&b| {
                        let r = sim.replica(p, b);
                        ReplicaSummary {
                            id: b,
                            role: role(sim, p, b),
                            log_end_offset: r.log_end_offset(),
                            high_watermark: r.high_watermark,
                            checkpointed_high_watermark: r.checkpointed_high_watermark,
                            log: window_of(r, window).1,
                            leader_epoch_cache: cache.then(|| r.log.epochs().entries().to_vec()),
                            in_isr: c.isr.contains(&b),
                        }
                    })
                    .collect();
                PartitionSummary {
                    id: p,
                    leader: c.leader,
                    leader_epoch: c.leader_epoch,
                    isr: c.isr.to_vec(),
                    elr: c.elr.to_vec(),
                    last_known_leader: c.last_known_leader,
                    high_watermark: c.leader.map(|l| sim.replica(p, l).high_watermark),
                    replicas: c.replicas.to_vec(),
                    preferred_leader: c.preferred_leader(),
                    under_replicated: flags.under_replicated,
                    under_min_isr: flags.under_min_isr,
                    offline: flags.unavailable,
                    brokers,
                }
            })
            .collect();
        self.partitions = Some(summaries);
        self
    }
}

fn is_true(flag: &bool) -> bool {
    *flag
}

/// A broker's role in partition `p`: "starting", "down", "leader",
/// "follower" or "none" (it knows no leader).
fn role(sim: &Simulation, p: PartitionId, b: BrokerId) -> &'static str {
    let node = sim.broker(b);
    if node.starting {
        "starting"
    } else if !node.alive {
        "down"
    } else if sim.is_leader(p, b) {
        "leader"
    } else if sim.replica(p, b).leader.is_some() {
        "follower"
    } else {
        "none"
    }
}

/// A replica's records within `window`: the first offset and the records.
fn window_of(r: &crate::model::partition::replica::Replica, window: LogWindow) -> (u64, Vec<RecordView>) {
    let start = window.start.min(r.log_end_offset());
    let log = r.log.iter_from(start).take(window.max_records).zip(start..).map(|(r, offset)| RecordView { offset, epoch: r.epoch, value: r.value.clone() }).collect();
    (start, log)
}
