//! The leader's side of the partition: appending produced records, the high
//! watermark, the ISR and its changes through the controller (AlterPartition),
//! and answering followers' requests (`cluster/Partition.scala`,
//! `server/ReplicaManager.scala`).

use crate::model::config::{limits, BrokerId, BrokerList, PartitionId};
use crate::model::event::{Event, HighWatermarkCause, ProduceResult};
use crate::model::partition::log::Record;
use crate::model::clients::accumulator::Retry;
use crate::model::protocol::{
    DivergingEpoch, EpochEndOffset, Errors, Fetch, FetchPartition, FetchResponse, FetchResponsePartition, Message, OffsetsForLeaderEpoch,
    OffsetsForLeaderEpochPartition, OffsetsForLeaderEpochResponse, PartitionBatch,
};
use crate::model::cluster::broker::DelayedFetch;
use crate::model::partition::replica::{AlterPartitionInFlight, Replica};
use crate::model::rules::Rule;
use crate::model::step::Acks;
use crate::model::invariants::Touch;
use crate::model::simulation::Simulation;

impl Simulation {
    /// Why broker `b` refuses a produce request now, if it does
    /// (`ReplicaManager.appendRecords` -> `Partition.appendRecordsToLeader`):
    /// not the leader, or acks=all with the ISR below `min.insync.replicas`
    /// (the record is then not appended).
    pub(crate) fn produce_refusal(&self, p: PartitionId, b: BrokerId, acks: Acks) -> Option<Errors> {
        let broker = self.replica(p, b);
        if !self.is_leader(p, b) {
            Some(Errors::NotLeaderOrFollower)
        } else if acks == Acks::All && (broker.isr.len() as u32) < self.config.min_insync_replicas {
            Some(Errors::NotEnoughReplicas)
        } else {
            None
        }
    }

    /// The leader appends an attempt's record, unless it is a retry the
    /// leader already holds and the producer is idempotent: the leader keeps
    /// the producer's last five batches (`ProducerStateManager`) and answers
    /// a duplicate with its first offset instead of writing it again
    /// (KIP-98). acks=1 is answered at once, acks=all once the HW passes the
    /// record (`DelayedProduce`).
    pub(crate) fn append_produced(&mut self, id: u64, p: PartitionId, b: BrokerId) {
        let (acks, idempotent) = (self.producer.requests[id as usize].acks, self.config.enable_idempotence);
        let broker = self.replica(p, b);
        let duplicate = idempotent.then(|| broker.log.find_recent(id, 5)).flatten();
        let (offset, epoch) = match duplicate {
            Some(offset) => {
                self.emit_in(p, Event::DuplicateProduce { broker: b, request: id, offset });
                (offset, None)
            }
            None => {
                let value = self.producer.requests[id as usize].value.clone();
                let broker = self.replica_mut(p, b);
                let (offset, epoch) = (broker.log_end_offset(), broker.leader_epoch);
                broker.log.append(Record { id, epoch, value });
                self.emit_traced_in(p, Touch::Checked, |s| Event::Appended { broker: b, offset, epoch, value: s.producer.requests[id as usize].value.clone() });
                self.complete_delayed_fetches(b);
                (offset, Some(epoch))
            }
        };
        let r = &mut self.producer.requests[id as usize];
        r.broker = Some(b);
        r.offset = Some(offset);
        r.epoch = epoch.or(r.epoch);
        let result = match acks {
            Acks::Zero => Some(ProduceResult::Sent),
            Acks::One => Some(ProduceResult::Acked),
            Acks::All if offset < self.replica(p, b).high_watermark => Some(ProduceResult::Acked),
            Acks::All => None,
        };
        match result {
            Some(result) => self.finish_produce(id, result, None),
            None => {
                let deadline = (self.now_ms + self.config.request_timeout_ms).min(self.delivery_deadline_ms(id));
                self.producer.wait_at(id, b, offset, epoch, deadline);
            }
        }
        self.maybe_increment_high_watermark(p, b);
    }

    /// Completes acks=all requests the leader's HW has passed
    /// (`DelayedProduce` / `Partition.checkEnoughReplicasReachOffset`).
    pub(crate) fn complete_produces(&mut self, p: PartitionId, b: BrokerId) {
        let broker = self.replica(p, b);
        let enough = self.high_watermark_members(p, b).len() as u32 >= self.config.min_insync_replicas;
        for id in self.producer.take_reached(p, b, broker.high_watermark) {
            if enough {
                self.finish_produce(id, ProduceResult::Acked, None);
            } else {
                self.produce_failed(id, Errors::NotEnoughReplicasAfterAppend, Retry::Next);
            }
        }
    }

    // ----- leader side -----------------------------------------------------

    /// The replicas whose LEO the leader's HW and acks=all wait for: the ISR,
    /// with the member an expansion still waiting to be written adds. From
    /// 2.7 that is KIP-497's maximal ISR (`maybeIncrementLeaderHW` and
    /// `checkEnoughReplicasReachOffset` read `maximalIsr`). Before 2.7 an
    /// expansion waits only while the leader cannot reach ZooKeeper (the
    /// controller here), and Kafka then appends nothing at all: the leader
    /// writes the ISR holding the partition's ISR lock, and the ZooKeeper
    /// client retries until it is connected again (`Partition.maybeExpandIsr`
    /// → `updateIsr`, `KafkaZkClient.retryRequestsUntilConnected`), so no
    /// record commits before the write lands with the replica it adds. The
    /// model appends, but commits nothing without that replica either.
    pub fn high_watermark_members(&self, p: PartitionId, b: BrokerId) -> BrokerList {
        self.replica(p, b).maximal_isr()
    }

    /// `Partition.maybeIncrementLeaderHW`: HW = min LEO over the ISR; never
    /// down; since 3.7 not at all while the ISR is below
    /// `min.insync.replicas` (KAFKA-15583, `isUnderMinIsr`).
    pub(crate) fn maybe_increment_high_watermark(&mut self, p: PartitionId, b: BrokerId) {
        let min_isr = self.config.min_insync_replicas;
        let frozen_under_min_isr = self.rules.has(Rule::HighWatermarkFrozenUnderMinIsr);
        if !self.is_leader(p, b) {
            return;
        }
        let members = self.high_watermark_members(p, b);
        let broker = self.replica(p, b);
        let Some(hw) = broker.isr_high_watermark(&members) else { return };
        if hw <= broker.high_watermark {
            return;
        }
        if frozen_under_min_isr && (broker.isr.len() as u32) < min_isr {
            let event = Event::HighWatermarkHeld {
                broker: b,
                high_watermark: broker.high_watermark,
                isr_size: broker.isr.len() as u32,
                min_insync_replicas: min_isr,
            };
            self.emit_in(p, event);
            return;
        }
        let broker = self.replica_mut(p, b);
        let from = std::mem::replace(&mut broker.high_watermark, hw);
        let isr = broker.isr_log_end_offsets(&members);
        self.emit_traced_in(p, Touch::Checked, |_| Event::HighWatermarkChanged { broker: b, from, to: hw, cause: HighWatermarkCause::IsrLogEndOffsets { isr: isr.to_vec() } });
        self.complete_produces(p, b);
    }

    /// AlterPartition (KIP-497; a ZooKeeper conditional write before it): an
    /// ISR change takes effect only if the controller accepts it, which needs
    /// the leader to reach the controller in the current epoch. A leader that
    /// cannot reach the controller keeps the request pending and retries it
    /// until it is answered (`DefaultAlterPartitionManager`: "we will not
    /// timeout AlterPartition request"), proposing nothing else meanwhile.
    ///
    /// From 2.7 (KIP-497, `AlterPartitionManager`) the request is sent and
    /// answered later: in timed mode it takes the leader's link latency to
    /// the controller and as long back, and the change stays pending (the
    /// HW counting the maximal ISR) until the answer arrives
    /// (`answer_alter_partitions`). Before 2.7 the leader wrote the ISR to
    /// ZooKeeper itself, holding its ISR lock: one step. True if the change
    /// took effect now.
    pub(crate) fn alter_partition(&mut self, p: PartitionId, l: BrokerId, proposed: BrokerList) -> bool {
        let latency = self.network.latency_ms[(l - 1) as usize];
        if self.config.auto_fetch && self.rules.has(Rule::MaximalIsr) && latency > 0 && self.reaches_controller(l) {
            let answer_in_ms = 2 * latency;
            let answer_ms = self.now_ms + answer_in_ms;
            let broker = self.replica_mut(p, l);
            let added = proposed.iter().copied().find(|b| !broker.isr.contains(b));
            broker.pending_isr = Some(proposed);
            broker.alter_partition = Some(AlterPartitionInFlight { isr: proposed, leader_epoch: broker.leader_epoch, answer_ms });
            self.emit_traced_in(p, Touch::Nothing, |_| Event::AlterPartitionSent { leader: l, proposed: proposed.to_vec(), added, answer_in_ms });
            return false;
        }
        self.decide_alter_partition(p, l, proposed)
    }

    /// The controller's answers due now (timed mode). An answer to a state
    /// the partition has left (a new leader epoch, a new leader, a restart)
    /// is ignored; otherwise the controller decides as in one step.
    pub(crate) fn answer_alter_partitions(&mut self) {
        let now = self.now_ms;
        for p in self.config.partition_ids() {
            for l in self.config.broker_ids() {
                let Some(sent) = self.replica(p, l).alter_partition.filter(|a| a.answer_ms <= now) else { continue };
                let leads = self.is_leader(p, l);
                let broker = self.replica_mut(p, l);
                broker.alter_partition = None;
                let current = leads && broker.leader_epoch == sent.leader_epoch && broker.pending_isr == Some(sent.isr);
                if !current {
                    let reason = "the answer came after the partition's state had changed, and is ignored";
                    self.emit_traced_in(p, Touch::Nothing, |_| Event::IsrChangeFailed { leader: l, proposed: sent.isr.to_vec(), reason });
                } else {
                    broker.pending_isr = None;
                    if self.decide_alter_partition(p, l, sent.isr) {
                        self.maybe_increment_high_watermark(p, l);
                    }
                }
                self.end_action();
            }
        }
    }

    /// The controller's answer to a proposed ISR: kept pending while the
    /// controller is unreachable, refused to a leader of an older epoch,
    /// otherwise applied. True if it took effect.
    fn decide_alter_partition(&mut self, p: PartitionId, l: BrokerId, proposed: BrokerList) -> bool {
        let epoch = self.replica(p, l).leader_epoch;
        let reason = if !self.reaches_controller(l) {
            self.replica_mut(p, l).pending_isr = Some(proposed);
            Some("the controller is unreachable; the request stays pending and is retried")
        } else if self.controller.partition(p).leader != Some(l) || self.controller.partition(p).leader_epoch != epoch {
            Some("the controller rejected it (FENCED_LEADER_EPOCH: the request's leader epoch is older than the controller's)")
        } else {
            None
        };
        if let Some(reason) = reason {
            self.emit_traced_in(p, Touch::Nothing, |_| Event::IsrChangeFailed { leader: l, proposed: proposed.to_vec(), reason });
            return false;
        }
        if self.quorum.is_some() {
            return self.accept_alter_partition_in_quorum(p, l, proposed);
        }
        let old = std::mem::replace(&mut self.replica_mut(p, l).isr, proposed);
        self.emit_isr_change(p, l, old, proposed);
        if self.change_isr(p, proposed, false, true) {
            self.notify_brokers(p);
        }
        true
    }

    /// The leader's proposed ISR, accepted: an expansion or a shrink.
    fn emit_isr_change(&mut self, p: PartitionId, l: BrokerId, old: BrokerList, proposed: BrokerList) {
        let isr = || proposed.to_vec();
        match proposed.iter().find(|b| !old.contains(b)) {
            Some(&added) => self.emit_traced_in(p, Touch::Checked, |_| Event::IsrExpanded { leader: l, added, isr: isr() }),
            None => self.emit_traced_in(p, Touch::Checked, |_| {
                let removed = old.iter().copied().filter(|b| !proposed.contains(b)).collect();
                Event::IsrShrunk { leader: Some(l), removed, isr: isr(), by_controller: false }
            }),
        }
    }

    /// With a controller quorum the controller accepts the change as a
    /// partition change record, and answers only once it has committed
    /// (`QuorumController` completes a write when its offset commits): until
    /// the leader applies the record, the change stays pending, the HW
    /// counting the maximal ISR (`cluster::metadata_image`). A change the
    /// controller already holds (sent again after a controller failover) adds
    /// no record.
    fn accept_alter_partition_in_quorum(&mut self, p: PartitionId, l: BrokerId, proposed: BrokerList) -> bool {
        self.replica_mut(p, l).pending_isr = Some(proposed);
        let old = self.controller.partition(p).isr;
        if old == proposed {
            return false;
        }
        self.emit_isr_change(p, l, old, proposed);
        self.change_isr(p, proposed, false, true);
        self.publish_partition(p);
        false
    }

    /// `Partition.maybeExpandIsr` / `isFollowerInSync`: LEO >= HW and, since
    /// 2.1 (KAFKA-7128), >= the start offset of the leader's epoch.
    pub(crate) fn maybe_expand_isr(&mut self, p: PartitionId, l: BrokerId, f: BrokerId) {
        let leader = self.replica(p, l);
        if leader.isr.contains(&f) || !leader.may_propose_isr() {
            return;
        }
        let Some(leo) = leader.remote(f).log_end_offset else { return };
        let needs_epoch_start = self.rules.has(Rule::IsrExpansionNeedsEpochStart);
        let in_sync = leo >= leader.high_watermark && (!needs_epoch_start || leo >= leader.epoch_start_offset);
        // KIP-841 (3.3): `Partition.isReplicaIsrEligible` asks the metadata
        // (`MetadataCache.isBrokerFenced` / `isBrokerShuttingDown`); a fenced
        // or shutting-down broker is not added back, however caught up.
        let eligible = !self.rules.has(Rule::IsrExpansionNeedsEligibleBroker)
            || !(self.controller.is_fenced(f) || self.controller.is_shutting_down(f));
        if in_sync && eligible {
            let mut proposed = leader.isr;
            proposed.push(f);
            proposed.sort_unstable();
            self.alter_partition(p, l, proposed);
        }
    }

    /// `ReplicaManager.fetchMessages` on the leader: each partition read on
    /// its own (`Partition.fetchRecords`); `None` when the fetch is held
    /// (`DelayedFetch`): no partition has anything new, none has an error
    /// or a divergence to report, and it may wait `max_wait_ms`.
    pub(crate) fn handle_fetch(&mut self, req: &Fetch) -> Option<FetchResponse> {
        let mut partitions = PartitionBatch::new();
        let mut respond_now = req.max_wait_ms == 0;
        for part in &req.partitions {
            let (resp, read) = self.fetch_partition(req.leader, req.follower, part);
            respond_now |= resp.error.is_some() || resp.diverging_epoch.is_some() || read;
            partitions.push(resp);
        }
        if !respond_now {
            let (l, until_ms) = (req.leader, self.now_ms + req.max_wait_ms);
            self.broker_mut(l).delayed_fetches.push(DelayedFetch { request: req.clone(), until_ms });
            for part in &req.partitions {
                self.emit_in(part.partition, Event::FetchHeld { leader: l, follower: req.follower, fetch_offset: part.fetch_offset, until_ms });
            }
            return None;
        }
        // `Partition.fetchRecords` reads the log, and the HW with it, before
        // `updateFollowerFetchState`: a partition's data that carries records
        // holds the HW from before this fetch moved it; one without records
        // is answered with a fresh read of the HW (as `DelayedFetch` does).
        for resp in partitions.iter_mut().filter(|r| r.error.is_none() && r.diverging_epoch.is_none()) {
            let leader = self.replica(resp.partition, req.leader);
            if resp.records.is_empty() {
                resp.high_watermark = leader.high_watermark;
            }
            resp.leader_log_end_offset = leader.log_end_offset();
        }
        Some(FetchResponse { leader: req.leader, follower: req.follower, partitions })
    }

    /// One partition of a fetch on the leader (`Partition.fetchRecords`):
    /// its answer, and whether it read records. A partition without an
    /// error or a divergence moves the follower's fetch state, the ISR and
    /// the HW.
    fn fetch_partition(&mut self, l: BrokerId, follower: BrokerId, req: &FetchPartition) -> (FetchResponsePartition, bool) {
        let p = req.partition;
        let diverging_in_fetch = self.rules.has(Rule::DivergingEpochInFetch);
        let leader = self.replica(p, l);
        let mut resp = FetchResponsePartition::answer(req, leader.log_end_offset(), leader.high_watermark, vec![]);
        let error = leader_refusal(self.is_leader(p, l), leader, req.current_leader_epoch);
        if error.is_some() {
            resp.error = error;
            return (resp, false);
        }
        // Divergence check inside the fetch (2.8+; Fetch v12, KIP-595's
        // DivergingEpoch with KIP-279 semantics): no state changes.
        if let (true, Some(last)) = (diverging_in_fetch, req.last_fetched_epoch) {
            match leader.log.end_offset_for_epoch(last) {
                Some((epoch, end_offset)) if epoch < last || end_offset < req.fetch_offset => {
                    resp.diverging_epoch = Some(DivergingEpoch { epoch, end_offset });
                    return (resp, false);
                }
                Some(_) => {}
                None => {
                    resp.error = Some(Errors::OffsetOutOfRange);
                    return (resp, false);
                }
            }
        }
        if req.fetch_offset > leader.log_end_offset() {
            resp.error = Some(Errors::OffsetOutOfRange);
            return (resp, false);
        }
        let records = leader.log.read(req.fetch_offset, limits::MAX_FETCH_RECORDS);
        let read_high_watermark = leader.high_watermark;
        let (now, leo) = (self.now_ms, leader.log_end_offset());
        let remote = self.replica_mut(p, l).remote_mut(follower);
        let from = remote.log_end_offset;
        remote.update_fetch_state(req.fetch_offset, leo, now);
        if from != Some(req.fetch_offset) {
            self.emit_in(p, Event::RemoteLogEndOffsetUpdated { leader: l, follower, from, to: req.fetch_offset });
        }
        self.maybe_expand_isr(p, l, follower);
        self.maybe_increment_high_watermark(p, l);
        let read = !records.is_empty();
        resp.high_watermark = read_high_watermark;
        resp.record_count = records.len() as u64;
        resp.records = records.into();
        (resp, read)
    }

    /// `DelayedFetch.onComplete`: a held fetch is answered with a fresh read
    /// of each partition's log and HW once records arrive past one of its
    /// offsets or its wait is over (a rise of a HW alone does not complete a
    /// follower's fetch).
    pub(crate) fn complete_delayed_fetches(&mut self, l: BrokerId) {
        let now = self.now_ms;
        let arrived = |s: &Simulation, part: &FetchPartition| s.replica(part.partition, l).log_end_offset() > part.fetch_offset;
        let mut due = vec![];
        let held = std::mem::take(&mut self.broker_mut(l).delayed_fetches);
        let mut kept = Vec::with_capacity(held.len());
        for d in held {
            if d.until_ms <= now || d.request.partitions.iter().any(|part| arrived(self, part)) {
                due.push(d.request);
            } else {
                kept.push(d);
            }
        }
        self.broker_mut(l).delayed_fetches = kept;
        for req in due {
            let partitions = req
                .partitions
                .iter()
                .map(|part| {
                    let leader = self.replica(part.partition, l);
                    let records = leader.log.read(part.fetch_offset, limits::MAX_FETCH_RECORDS);
                    FetchResponsePartition::answer(part, leader.log_end_offset(), leader.high_watermark, records)
                })
                .collect();
            self.send(Message::FetchResponse(FetchResponse { leader: l, follower: req.follower, partitions }));
        }
    }

    /// Broker `l` no longer leads partition `p` (or leads it anew): the
    /// fetches it holds that ask for `p` go. One that asks for a partition
    /// it still leads is answered now, `p` with NOT_LEADER_OR_FOLLOWER and
    /// the others with a fresh read (`DelayedFetch.tryComplete`, case B:
    /// "this broker is no longer the leader for some partitions it tries to
    /// fetch"). One of `p` alone is dropped, as this model of one partition
    /// always did (Kafka answers it the same way; the follower learns of
    /// the new leader from the controller either way: docs/model.md).
    pub(crate) fn release_held_fetches(&mut self, p: PartitionId, l: BrokerId) {
        let held = std::mem::take(&mut self.broker_mut(l).delayed_fetches);
        let (asks, kept): (Vec<_>, Vec<_>) = held.into_iter().partition(|d| d.request.partitions.iter().any(|part| part.partition == p));
        self.broker_mut(l).delayed_fetches = kept;
        for d in asks {
            let still_led = d.request.partitions.iter().any(|part| part.partition != p && self.is_leader(part.partition, l));
            if !still_led {
                continue;
            }
            let partitions = d
                .request
                .partitions
                .iter()
                .map(|part| {
                    let leader = self.replica(part.partition, l);
                    if part.partition == p || !self.is_leader(part.partition, l) {
                        let mut resp = FetchResponsePartition::answer(part, leader.log_end_offset(), leader.high_watermark, vec![]);
                        resp.error = Some(Errors::NotLeaderOrFollower);
                        resp
                    } else {
                        let records = leader.log.read(part.fetch_offset, limits::MAX_FETCH_RECORDS);
                        FetchResponsePartition::answer(part, leader.log_end_offset(), leader.high_watermark, records)
                    }
                })
                .collect();
            self.send(Message::FetchResponse(FetchResponse { leader: l, follower: d.request.follower, partitions }));
        }
    }

    /// OffsetsForLeaderEpoch on the leader (KIP-101), for each partition:
    /// where the asked epoch ends (the start of the next one, or the LEO for
    /// the current). Since 2.0 the answer also names the largest epoch <=
    /// the asked one (KIP-279); since 2.1 a request from another leader
    /// epoch is fenced (KIP-320).
    pub(crate) fn handle_offsets_for_leader_epoch(&mut self, req: &OffsetsForLeaderEpoch) -> OffsetsForLeaderEpochResponse {
        let partitions = req.partitions.iter().map(|part| self.epoch_end_offset(req.leader, part)).collect();
        OffsetsForLeaderEpochResponse { leader: req.leader, follower: req.follower, partitions }
    }

    fn epoch_end_offset(&self, l: BrokerId, req: &OffsetsForLeaderEpochPartition) -> EpochEndOffset {
        let p = req.partition;
        let leader = self.replica(p, l);
        let mut resp = EpochEndOffset {
            partition: p,
            requested_epoch: req.leader_epoch,
            sent_in_epoch: req.sent_in_epoch,
            error: leader_refusal(self.is_leader(p, l), leader, req.current_leader_epoch),
            leader_epoch: None,
            end_offset: None,
        };
        if resp.error.is_some() {
            return resp;
        }
        if self.rules.has(Rule::EpochInOffsetsForLeaderEpoch) {
            if let Some((epoch, end)) = leader.log.end_offset_for_epoch(req.leader_epoch) {
                resp.leader_epoch = Some(epoch);
                resp.end_offset = Some(end);
            }
        } else {
            // Kafka 0.11 `LeaderEpochFileCache.endOffsetFor`: UNDEFINED for an
            // epoch older than every epoch the leader knows, too.
            let older = leader.log.epochs().entries().first().is_none_or(|e| req.leader_epoch < e.epoch);
            if !older {
                resp.end_offset = leader.log.end_offset_for_epoch(req.leader_epoch).map(|(_, end)| end);
            }
        }
        resp
    }

    /// The leader's periodic check (`Partition.maybeShrinkIsr`).
    pub(crate) fn expire_isr(&mut self) {
        let lag = self.config.replica_lag_time_max_ms;
        for p in self.config.partition_ids() {
            for l in self.config.broker_ids() {
                let b = self.replica(p, l);
                if !self.is_leader(p, l) || !b.may_propose_isr() {
                    continue;
                }
                let out = b.out_of_sync_replicas(self.now_ms, lag, self.rules.has(Rule::CaughtUpAtLogEnd));
                if out.is_empty() {
                    continue;
                }
                let proposed: BrokerList = b.isr.iter().copied().filter(|x| !out.contains(x)).collect();
                if self.alter_partition(p, l, proposed) {
                    self.maybe_increment_high_watermark(p, l);
                }
            }
        }
    }

}

/// Why a broker refuses a follower's request before reading anything: it is
/// not the leader, or (KIP-320, 2.1+: the request carries the epoch) the
/// request comes from another leader epoch (`Partition.checkCurrentLeaderEpoch`).
fn leader_refusal(is_leader: bool, leader: &Replica, current_leader_epoch: Option<u32>) -> Option<Errors> {
    // `Partition.getLocalLog`: the epoch first (`checkCurrentLeaderEpoch`,
    // against the epoch this broker knows, leader or not), then leadership.
    match current_leader_epoch {
        Some(e) if e < leader.leader_epoch => Some(Errors::FencedLeaderEpoch),
        Some(e) if e > leader.leader_epoch => Some(Errors::UnknownLeaderEpoch),
        _ if !is_leader => Some(Errors::NotLeaderOrFollower),
        _ => None,
    }
}
