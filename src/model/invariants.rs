//! Safety checks, each named after the guarantee it protects, run after every
//! action of the engine (reference §9; the TLA+ specification's WeakIsr and
//! StrongIsr). They are incremental: each remembers up to where it has
//! verified a log and re-checks only what a truncation or a leader change
//! touched, so a step's cost does not grow with the log.

use crate::model::config::{BrokerId, PartitionId, PerBroker};
use crate::model::clients::subscription::Consumer;
use crate::model::controller::registrations::PartitionRegistration;
use crate::model::event::{ElectionKind, Event, ProduceResult, Traced, Truncation};
use crate::model::clients::accumulator::Producer;
use crate::model::cluster::broker::Broker;
use crate::model::partition::replica::Replica;
use crate::model::step::Acks;

use crate::base::shared::Shared;
use crate::base::sorted_set::SortedSet;

use std::sync::Arc;

pub use crate::model::violation::{Allowance, Violation, ViolationKind};

/// What the checks read: the state after an action and the events it caused.
pub struct View<'a> {
    pub brokers: &'a [Broker],
    /// The partition's replicas, one per broker, and what the controller holds of it.
    pub replicas: &'a [Replica],
    pub registration: &'a PartitionRegistration,
    pub producer: &'a Producer,
    pub consumer: &'a Consumer,
    pub step: u64,
    pub time_ms: u64,
    /// The partition the view is of.
    pub partition: PartitionId,
}

impl View<'_> {
    fn broker(&self, b: BrokerId) -> &Broker {
        &self.brokers[(b - 1) as usize]
    }

    fn replica(&self, b: BrokerId) -> &Replica {
        &self.replicas[(b - 1) as usize]
    }
}

/// What an event says about the state the checks look at: the logs, the
/// HWs, the brokers' liveness and leadership, the controller's leader, epoch
/// and ISR, the acknowledgements and what the consumer read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// It may come with a change to that state: the checks run after the action.
    Checked,
    /// It comes with no change to it.
    Nothing,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct LastTruncation {
    step: u64,
    from: u64,
    to: u64,
    truncation: Option<Truncation>,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Checker {
    /// `(offset, request)` of acknowledged writes (acks 1 and all) not yet lost.
    acked: Shared<SortedSet<(u64, u64)>>,
    acked_verified_below: u64,
    consumed_seen: usize,
    consumed: Shared<SortedSet<(u64, u64)>>,
    consumed_verified_below: u64,
    /// Per broker: offsets below this agree with the leader's log.
    isr_verified_below: PerBroker<u64>,
    diverged: Shared<SortedSet<(BrokerId, u64)>>,
    /// The leader and epoch the watermarks above refer to.
    leader_seen: Option<(BrokerId, u32)>,
    leader_hw_seen: PerBroker<Option<(u32, u64)>>,
    hw_over_leo: PerBroker<bool>,
    last_truncation: Shared<PerBroker<LastTruncation>>,
    last_election: Option<(BrokerId, u32, ElectionKind, u64)>,
    /// `(offset, request, leader, epoch, step)`: an acknowledged or consumed
    /// record that the leader of an unclean election (`leader` in `epoch`,
    /// at `step`) lacked when it was elected, until a leader holds it again.
    lost_to_unclean: Shared<SortedSet<(u64, u64, BrokerId, u32, u64)>>,
}

crate::clone_in_place!(Checker { acked, acked_verified_below, consumed_seen, consumed, consumed_verified_below, isr_verified_below, diverged, leader_seen, leader_hw_seen, hw_over_leo, last_truncation, last_election, lost_to_unclean });

impl Checker {
    pub fn new(brokers: u32) -> Checker {
        let n = brokers as usize;
        Checker {
            acked: Shared::default(),
            acked_verified_below: 0,
            consumed_seen: 0,
            consumed: Shared::default(),
            consumed_verified_below: 0,
            isr_verified_below: (0..n).map(|_| 0).collect(),
            diverged: Shared::default(),
            leader_seen: None,
            leader_hw_seen: (0..n).map(|_| None).collect(),
            hw_over_leo: (0..n).map(|_| false).collect(),
            last_truncation: Shared::new((0..n).map(|_| LastTruncation::default()).collect()),
            last_election: None,
            lost_to_unclean: Shared::default(),
        }
    }

    /// The events `check` reads (it learns everything else from the state).
    /// It must name every event `check` matches: in the explorer's mode
    /// (`Simulation::keep_checked_events_only`) the others are not kept.
    pub fn reads(event: &Event) -> bool {
        match event {
            Event::Truncated { .. } | Event::Restarted { .. } | Event::LeaderElected { .. } => true,
            Event::ProduceResponse { acks, result, .. } => *result == ProduceResult::Acked && *acks != Acks::Zero,
            _ => false,
        }
    }

    /// Whether `event` may come with a change to the state the checks look
    /// at. The events that cannot are listed; any other, a new kind too,
    /// counts as a change.
    pub fn touches(event: &Event) -> Touch {
        match event {
            Event::ProduceResponse { .. } if !Checker::reads(event) => Touch::Nothing,
            Event::ProduceRequest { .. }
            | Event::ProduceQueued { .. }
            | Event::DuplicateProduce { .. }
            | Event::Sent { .. }
            | Event::Dropped { .. }
            | Event::ResponseIgnored { .. }
            | Event::FetchTimedOut { .. }
            | Event::FetcherRemoved { .. }
            | Event::FetchHeld { .. }
            | Event::RemoteLogEndOffsetUpdated { .. }
            | Event::HighWatermarkHeld { .. }
            | Event::HighWatermarkCheckpointed { .. }
            | Event::IsrChangeFailed { .. }
            | Event::AlterPartitionSent { .. }
            | Event::BrokerFenced { .. }
            | Event::BrokerUnfenced { .. }
            | Event::RegistrationRefused { .. }
            | Event::EligibleLeaderReplicasChanged { .. }
            | Event::LatencyChanged { .. }
            | Event::LinkCut { .. }
            | Event::Isolated { .. }
            | Event::LinkHealed { .. }
            | Event::IsolationHealed { .. }
            | Event::ControllerCut { .. }
            | Event::ControllerLinkHealed { .. }
            | Event::ControlledShutdownStarted { .. }
            | Event::ControlledShutdownCompleted { .. }
            | Event::ShutdownFetcherStopped { .. }
            | Event::FetcherPaused { .. }
            | Event::FetcherResumed { .. }
            | Event::ClockAdvanced { .. }
            | Event::ConsumeFailed { .. }
            | Event::StepRejected { .. }
            | Event::BudgetExceeded { .. }
            | Event::Violation(_) => Touch::Nothing,
            // The metadata quorum has checks of its own (`quorum::checks`).
            Event::VoteRequest { .. }
            | Event::VoteGranted { .. }
            | Event::VoteRejected { .. }
            | Event::QuorumSent { .. }
            | Event::QuorumDropped { .. }
            | Event::ControllerBecameLeader { .. }
            | Event::BecameCandidate { .. }
            | Event::BecameProspective { .. }
            | Event::ControllerBecameFollower { .. }
            | Event::BecameUnattached { .. }
            | Event::Resigned { .. }
            | Event::MetadataAppended { .. }
            | Event::MetadataFetched { .. }
            | Event::MetadataTruncated { .. }
            | Event::MetadataCommitted { .. }
            | Event::MetadataHighWatermark { .. }
            | Event::ControllerCrashed { .. }
            | Event::ControllerRestarted { .. }
            | Event::ControllerIsolated { .. }
            | Event::ControllerHealed { .. }
            | Event::ControllerActivated { .. }
            | Event::MetadataApplied { .. } => Touch::Nothing,
            _ => Touch::Checked,
        }
    }

    /// Runs every check; returns the violations found now.
    pub fn check(&mut self, v: &View, events: &[Traced]) -> Vec<Violation> {
        let mut found = vec![];
        let leader = v.registration.leader;
        // Judged only against a leader that is up: a dead one serves nothing,
        // and the replicas that still hold a record may yet take over.
        let judge = leader.filter(|&l| v.broker(l).alive);
        let mut new_acks = vec![];
        for e in events {
            match &e.event {
                Event::Truncated { broker, from, to, truncation } => {
                    let i = (*broker - 1) as usize;
                    self.last_truncation.make_mut()[i] =
                        LastTruncation { step: v.step, from: *from, to: *to, truncation: Some(*truncation) };
                    self.isr_verified_below[i] = self.isr_verified_below[i].min(*to);
                    if Some(*broker) == leader {
                        self.acked_verified_below = self.acked_verified_below.min(*to);
                        self.consumed_verified_below = self.consumed_verified_below.min(*to);
                        for w in &mut self.isr_verified_below {
                            *w = (*w).min(*to);
                        }
                    }
                }
                Event::Restarted { broker } => self.leader_hw_seen[(*broker - 1) as usize] = None,
                Event::LeaderElected { leader, leader_epoch, kind, .. } => {
                    self.last_election = Some((*leader, *leader_epoch, *kind, v.step));
                    self.note_election(v, *leader, *leader_epoch, *kind, &new_acks);
                }
                Event::ProduceResponse { request, acks, result: ProduceResult::Acked, .. } if *acks != Acks::Zero => {
                    new_acks.push(*request)
                }
                _ => {}
            }
        }
        let current = leader.map(|l| (l, v.registration.leader_epoch));
        if current != self.leader_seen {
            self.leader_seen = current;
            self.acked_verified_below = 0;
            self.consumed_verified_below = 0;
            self.isr_verified_below.iter_mut().for_each(|w| *w = 0);
        }
        let consumed = &v.consumer.read[self.consumed_seen..];
        if consumed.iter().any(|c| c.partition == v.partition) {
            self.consumed.make_mut().extend(consumed.iter().filter(|c| c.partition == v.partition).map(|c| (c.offset, c.id)));
        }
        self.consumed_seen = v.consumer.read.len();

        if let Some(l) = judge {
            self.check_acked(v, l, new_acks, &mut found);
            self.check_consumed(v, l, &mut found);
            self.check_committed(v, l, &mut found);
        } else {
            // Offline or leader down: nothing to judge against yet. The next
            // live leader's log is checked from the watermarks, which a leader
            // change resets and a truncation lowers.
            for id in new_acks {
                let offset = v.producer.requests[id as usize].offset.expect("an acknowledged write has an offset");
                self.acked.make_mut().insert((offset, id));
            }
        }
        self.check_high_watermarks(v, &mut found);
        found
    }

    /// Notes what an election means for the records already acknowledged
    /// or consumed. An unclean election hands the partition to a replica
    /// outside the ISR, and Kafka's contract allows what that replica lacks
    /// to be lost: "its log becomes the source of truth even though it is
    /// not guaranteed to have every committed message" (Kafka's design
    /// docs, "Unclean leader election"; `unclean.leader.election.enable`).
    /// The election is ZooKeeper-era
    /// `PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection`,
    /// whose last resort, with `uncleanLeaderElectionEnabled`, is any live
    /// replica; KRaft's `PartitionChangeBuilder.electAnyLeader`, whose
    /// last resort under `Election.UNCLEAN` does the same. So the records noted here are the
    /// ones acknowledged (or read) before the election that its leader did
    /// not hold; a record acknowledged later, or one the leader held and
    /// lost afterwards, is lost for another reason. A leader elected later
    /// that holds a noted record has it back: it is no longer noted.
    fn note_election(&mut self, v: &View, leader: BrokerId, epoch: u32, kind: ElectionKind, new_acks: &[u64]) {
        let log = &v.replica(leader).log;
        let holds = |offset: u64, id: u64| log.get(offset).is_some_and(|r| r.id == id);
        let back: Vec<_> = self.lost_to_unclean.iter().filter(|e| holds(e.0, e.1)).copied().collect();
        for e in &back {
            self.lost_to_unclean.make_mut().remove(e);
        }
        if kind != ElectionKind::Unclean {
            return;
        }
        let offset_of = |id: u64| v.producer.requests[id as usize].offset.expect("an acknowledged write has an offset");
        let acked = self.acked.iter().copied().chain(new_acks.iter().map(|&id| (offset_of(id), id)));
        let lacked: Vec<(u64, u64)> = acked.chain(self.consumed.iter().copied()).filter(|&(o, id)| !holds(o, id)).collect();
        for (offset, id) in lacked {
            self.lost_to_unclean.make_mut().insert((offset, id, leader, epoch, v.step));
        }
    }

    /// The unclean election whose leader lacked `(offset, id)`: (leader, epoch, step).
    fn unclean_loss(&self, offset: u64, id: u64) -> Option<(BrokerId, u32, u64)> {
        let e = self.lost_to_unclean.range_from((offset, id, 0, 0, 0)).first()?;
        (e.0 == offset && e.1 == id).then_some((e.2, e.3, e.4))
    }

    /// `acked_write_lost`.
    fn check_acked(&mut self, v: &View, l: BrokerId, new_acks: Vec<u64>, found: &mut Vec<Violation>) {
        let log = &v.replica(l).log;
        let holds = |offset: u64, id: u64| log.get(offset).is_some_and(|r| r.id == id);
        let mut lost = vec![];
        for id in new_acks {
            let r = &v.producer.requests[id as usize];
            let offset = r.offset.expect("an acknowledged write has an offset");
            if holds(offset, id) {
                self.acked.make_mut().insert((offset, id));
            } else {
                let by = r.broker.expect("an acknowledged write has a broker");
                let epoch = r.epoch.unwrap_or(0);
                let stale = (by != l && epoch < v.registration.leader_epoch).then_some((by, epoch));
                lost.push((offset, id, stale));
            }
        }
        for &(offset, id) in self.acked.range_from((self.acked_verified_below, 0)) {
            if !holds(offset, id) {
                lost.push((offset, id, None));
            }
        }
        self.acked_verified_below = log.log_end_offset();
        for (offset, id, stale) in lost {
            self.acked.make_mut().remove(&(offset, id));
            found.push(self.lost_write(v, l, offset, id, stale));
        }
    }

    fn lost_write(&self, v: &View, l: BrokerId, offset: u64, id: u64, stale: Option<(BrokerId, u32)>) -> Violation {
        let r = &v.producer.requests[id as usize];
        let leader = v.replica(l);
        let by = r.broker.unwrap_or(l);
        let mut detail = format!(
            "{:?} ({}) was acknowledged at offset {offset} by broker {by} in epoch {}, but the leader, broker {l} (epoch {}), ",
            &*r.value,
            r.acks,
            r.epoch.unwrap_or(0),
            v.registration.leader_epoch
        );
        match leader.log.get(offset) {
            Some(other) => detail += &format!("holds {:?} there.", &*other.value),
            None => detail += &format!("has no record there (its log ends at {}).", leader.log_end_offset()),
        }
        detail += " ";
        let unclean = self.unclean_loss(offset, id);
        // An unclean election explains the loss whatever the acks: acks=all
        // would have lost the record too.
        let allowed_by = if unclean.is_some() {
            Some(Allowance::UncleanLeaderElection)
        } else if r.acks == Acks::One {
            Some(Allowance::AcksOne)
        } else {
            None
        };
        match unclean {
            Some(election) => detail += &unclean_cause(election),
            None => detail += &self.cause(v, l, offset, stale),
        }
        match allowed_by {
            Some(Allowance::UncleanLeaderElection) => detail += UNCLEAN_ALLOWS,
            Some(Allowance::AcksOne) => {
                detail += " acks=1 waits only for the leader's own append, so this loss is allowed by Kafka's contract."
            }
            None => detail += " acks=all promised the write would survive any failure the ISR could absorb: this is data loss.",
        }
        Violation {
            kind: ViolationKind::AckedWriteLost,
            step: v.step,
            time_ms: v.time_ms,
            partition: v.partition,
            brokers: vec![l],
            controllers: vec![],
            offset: Some(offset),
            value: Some(r.value.clone()),
            acks: Some(r.acks),
            protocol_violation: allowed_by.is_none(),
            allowed_by,
            detail,
        }
    }

    /// One sentence on how broker `l` came to miss or overwrite `offset`.
    /// `stale_leader` is set when the ack came from a broker that the
    /// controller had already replaced.
    fn cause(&self, v: &View, l: BrokerId, offset: u64, stale_leader: Option<(BrokerId, u32)>) -> String {
        if let Some((by, epoch)) = stale_leader {
            return format!(
                "Broker {by} acknowledged it as leader of epoch {epoch}, but the controller had already moved leadership to broker {l} in epoch {}: broker {by} was a stale leader that had not heard of the election.",
                v.registration.leader_epoch
            );
        }
        let t = &self.last_truncation[(l - 1) as usize];
        if let Some(truncation) = &t.truncation {
            if t.to <= offset && offset < t.from {
                return format!("Broker {l} removed it at step {}: {truncation}.", t.step);
            }
        }
        match self.last_election {
            Some((b, e, ElectionKind::Unclean, step)) if b == l => unclean_cause((b, e, step)),
            Some((b, e, ElectionKind::Clean, step)) if b == l => {
                format!("Broker {l} was elected leader of epoch {e} at step {step} from the ISR without holding the record.")
            }
            _ => format!("Broker {l} does not hold it."),
        }
    }

    /// `consumer_saw_vanished_record`.
    fn check_consumed(&mut self, v: &View, l: BrokerId, found: &mut Vec<Violation>) {
        let log = &v.replica(l).log;
        let vanished: Vec<(u64, u64)> = self
            .consumed
            .range_from((self.consumed_verified_below, 0))
            .iter()
            .filter(|&&(o, id)| log.get(o).is_none_or(|r| r.id != id))
            .copied()
            .collect();
        self.consumed_verified_below = log.log_end_offset();
        for (offset, id) in vanished {
            self.consumed.make_mut().remove(&(offset, id));
            let value = v.producer.requests[id as usize].value.clone();
            let now = match log.get(offset) {
                Some(r) => format!("holds {:?} there", &*r.value),
                None => format!("ends at {}", log.log_end_offset()),
            };
            // What the consumer read was committed: an unclean election may
            // lose it as it may lose an acknowledged write (see `note_election`).
            let unclean = self.unclean_loss(offset, id);
            let mut detail = format!(
                "the consumer read {value:?} at offset {offset}, but the leader's log (broker {l}) now {now}: a record below the HW vanished."
            );
            if let Some(election) = unclean {
                detail += " ";
                detail += &unclean_cause(election);
                detail += UNCLEAN_ALLOWS;
            }
            found.push(Violation {
                kind: ViolationKind::ConsumerSawVanishedRecord,
                step: v.step,
                time_ms: v.time_ms,
                partition: v.partition,
                brokers: vec![l],
                controllers: vec![],
                offset: Some(offset),
                value: Some(value.clone()),
                acks: None,
                protocol_violation: unclean.is_none(),
                allowed_by: unclean.map(|_| Allowance::UncleanLeaderElection),
                detail,
            });
        }
    }

    /// `committed_divergence` (the TLA+ specification's StrongIsr): every
    /// live ISR member holds, below the leader's HW, the leader's records:
    /// none different, and none missing. The missing half catches KIP-101's
    /// loss at its cause (a follower truncating below the HW).
    fn check_committed(&mut self, v: &View, l: BrokerId, found: &mut Vec<Violation>) {
        let leader = v.replica(l);
        let hw = leader.high_watermark.min(leader.log_end_offset());
        for &f in v.registration.isr.iter().filter(|&&f| f != l) {
            let follower = v.replica(f);
            if !v.broker(f).alive {
                continue; // a dead replica serves nothing; it is judged when it returns
            }
            let i = (f - 1) as usize;
            let bound = hw.min(follower.log_end_offset());
            for o in self.isr_verified_below[i]..bound {
                let (ours, theirs) = (follower.log.get(o).unwrap(), leader.log.get(o).unwrap());
                if ours.id != theirs.id && self.newly_diverged(f, o) {
                    let detail = format!(
                        "broker {f} is in the ISR and holds {:?} (epoch {}) at offset {o}, but leader broker {l} holds {:?} (epoch {}) there, below its HW {}.{}",
                        &*ours.value,
                        ours.epoch,
                        &*theirs.value,
                        theirs.epoch,
                        leader.high_watermark,
                        self.last_truncation_of(f)
                    );
                    found.push(divergence(v, [f, l], o, &ours.value, detail));
                }
            }
            self.isr_verified_below[i] = self.isr_verified_below[i].max(bound);
            let leo = follower.log_end_offset();
            if leo < hw && self.newly_diverged(f, leo) {
                let theirs = leader.log.get(leo).unwrap();
                let detail = format!(
                    "broker {f} is in the ISR but its log ends at {leo}, below leader broker {l}'s HW {}: it lacks the committed record {:?} at offset {leo}, and could be elected without it.{}",
                    leader.high_watermark,
                    &*theirs.value,
                    self.last_truncation_of(f)
                );
                found.push(divergence(v, [f, l], leo, &theirs.value, detail));
            }
        }
    }

    /// Notes a divergence of broker `f` at `offset`; false if already noted.
    fn newly_diverged(&mut self, f: BrokerId, offset: u64) -> bool {
        !self.diverged.contains(&(f, offset)) && self.diverged.make_mut().insert((f, offset))
    }

    /// Broker `f`'s latest truncation, as a sentence to append to a detail.
    fn last_truncation_of(&self, f: BrokerId) -> String {
        let t = &self.last_truncation[(f - 1) as usize];
        match &t.truncation {
            Some(tr) => format!(" Broker {f} last truncated at step {} ({} -> {}): {tr}.", t.step, t.from, t.to),
            None => String::new(),
        }
    }

    /// `hw_exceeds_leo`, and a leader HW that went down within one epoch.
    fn check_high_watermarks(&mut self, v: &View, found: &mut Vec<Violation>) {
        for b in v.replicas {
            let i = (b.id - 1) as usize;
            let over = b.high_watermark > b.log_end_offset();
            if over && !self.hw_over_leo[i] {
                found.push(self.hw_violation(v, b, format!("broker {} has HW {} above its LEO {}.", b.id, b.high_watermark, b.log_end_offset())));
            }
            self.hw_over_leo[i] = over;
            if v.broker(b.id).alive && b.believes_leader() {
                if let Some((epoch, hw)) = self.leader_hw_seen[i] {
                    if epoch == b.leader_epoch && b.high_watermark < hw {
                        found.push(self.hw_violation(
                            v,
                            b,
                            format!("leader broker {} lowered its HW from {hw} to {} within epoch {epoch}.", b.id, b.high_watermark),
                        ));
                    }
                }
                self.leader_hw_seen[i] = Some((b.leader_epoch, b.high_watermark));
            } else {
                self.leader_hw_seen[i] = None;
            }
        }
    }

    fn hw_violation(&self, v: &View, b: &Replica, detail: String) -> Violation {
        Violation {
            kind: ViolationKind::HwExceedsLeo,
            step: v.step,
            time_ms: v.time_ms,
            partition: v.partition,
            brokers: vec![b.id],
            controllers: vec![],
            offset: Some(b.high_watermark),
            value: None,
            acks: None,
            protocol_violation: true,
            allowed_by: None,
            detail,
        }
    }
}

/// A `committed_divergence` at `offset` between follower and leader
/// (`brokers`); `value` is the follower's record, or the leader's one the
/// follower lacks.
fn divergence(v: &View, brokers: [BrokerId; 2], offset: u64, value: &Arc<str>, detail: String) -> Violation {
    Violation {
        kind: ViolationKind::CommittedDivergence,
        step: v.step,
        time_ms: v.time_ms,
        partition: v.partition,
        brokers: brokers.to_vec(),
        controllers: vec![],
        offset: Some(offset),
        value: Some(value.clone()),
        acks: None,
        protocol_violation: true,
        allowed_by: None,
        detail,
    }
}

/// The last sentence of a loss an unclean election explains.
const UNCLEAN_ALLOWS: &str =
    " unclean.leader.election.enable lets a replica outside the ISR become leader without the records it lacks, so this loss is allowed by Kafka's contract.";

/// How the leader of an unclean election, `(leader, epoch, step)`, came to miss a record.
fn unclean_cause((b, e, step): (BrokerId, u32, u64)) -> String {
    format!("Broker {b} became leader of epoch {e} at step {step} through an unclean election: it was not in the ISR and lacked the record.")
}
