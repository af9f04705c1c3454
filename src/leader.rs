//! The leader's side of the partition: appending produced records, the high
//! watermark, the ISR and its changes through the controller (AlterPartition),
//! and answering followers' requests (`cluster/Partition.scala`,
//! `server/ReplicaManager.scala`).
use crate::config::{limits, BrokerId, BrokerList};
use crate::event::{Event, HighWatermarkCause, ProduceResult};
use crate::log::Record;
use crate::producer::{ProduceRequest, Status};
use crate::protocol::{DivergingEpoch, Errors, Fetch, FetchResponse, OffsetsForLeaderEpoch, OffsetsForLeaderEpochResponse};
use crate::rules::Rule;
use crate::scenario::{Acks, Produce};
use crate::simulation::Simulation;
use std::sync::Arc;

impl Simulation {
    /// `ReplicaManager.appendRecords` -> `Partition.appendRecordsToLeader`.
    pub(crate) fn produce(&mut self, p: &Produce) {
        let to = p.to.or(self.controller.leader);
        let value: Arc<str> = p.value.as_str().into();
        let request = self.producer.requests.len() as u64;
        self.emit(Event::ProduceRequest { request, to, value: value.clone(), acks: p.acks });
        let mut r = ProduceRequest {
            value: value.clone(),
            acks: p.acks,
            broker: to,
            offset: None,
            epoch: None,
            status: Status::Pending,
            step: self.step,
            deadline_ms: self.now_ms + self.config.request_timeout_ms,
        };
        let refused = match to.map(|b| self.broker(b)) {
            None => Some(Errors::NotLeaderOrFollower),
            Some(b) if !b.alive => Some(Errors::NetworkException),
            Some(b) if !b.is_leader() => Some(Errors::NotLeaderOrFollower),
            // The record is not appended (Partition.appendRecordsToLeader).
            Some(b) if p.acks == Acks::All && (b.isr.len() as u32) < self.config.min_insync_replicas => {
                Some(Errors::NotEnoughReplicas)
            }
            Some(_) => None,
        };
        if let Some(error) = refused {
            r.status = Status::Done(ProduceResult::Error(error));
            self.producer.add(r);
            self.emit(Event::ProduceResponse { request, value, acks: p.acks, offset: None, result: ProduceResult::Error(error) });
            return;
        }
        let b = to.expect("checked above");
        let broker = self.broker_mut(b);
        let (offset, epoch) = (broker.log_end_offset(), broker.leader_epoch);
        broker.log.append(Record { id: request, epoch, value: value.clone() });
        r.offset = Some(offset);
        r.epoch = Some(epoch);
        let immediate = match p.acks {
            Acks::Zero => Some(ProduceResult::Sent),
            Acks::One => Some(ProduceResult::Acked),
            Acks::All => None,
        };
        if let Some(result) = immediate {
            r.status = Status::Done(result);
        }
        self.producer.add(r);
        self.emit(Event::Appended { broker: b, offset, epoch, value: value.clone() });
        if let Some(result) = immediate {
            self.emit(Event::ProduceResponse { request, value, acks: p.acks, offset: Some(offset), result });
        }
        self.maybe_increment_high_watermark(b);
    }

    /// Completes acks=all requests the leader's HW has passed
    /// (`DelayedProduce` / `Partition.checkEnoughReplicasReachOffset`).
    pub(crate) fn complete_produces(&mut self, b: BrokerId) {
        let broker = self.broker(b);
        let enough = broker.isr.len() as u32 >= self.config.min_insync_replicas;
        for id in self.producer.take_reached(b, broker.high_watermark) {
            let result = if enough { ProduceResult::Acked } else { ProduceResult::Error(Errors::NotEnoughReplicasAfterAppend) };
            self.finish_produce(id, result);
        }
    }

    pub(crate) fn fail_pending_produces(&mut self, b: BrokerId, error: Errors) {
        for id in self.producer.take_all_pending(b) {
            self.finish_produce(id, ProduceResult::Error(error));
        }
    }

    pub(crate) fn finish_produce(&mut self, id: u64, result: ProduceResult) {
        let r = self.producer.finish(id, result);
        let event = Event::ProduceResponse { request: id, value: r.value.clone(), acks: r.acks, offset: r.offset, result };
        self.emit(event);
    }

    // ----- leader side -----------------------------------------------------

    /// `Partition.maybeIncrementLeaderHW`: HW = min LEO over the ISR; never
    /// down; since 3.7 not at all while the ISR is below
    /// `min.insync.replicas` (KAFKA-15583, `isUnderMinIsr`).
    pub(crate) fn maybe_increment_high_watermark(&mut self, b: BrokerId) {
        let min_isr = self.config.min_insync_replicas;
        let frozen_under_min_isr = self.rules.has(Rule::HighWatermarkFrozenUnderMinIsr);
        let broker = self.broker_mut(b);
        if !broker.is_leader() {
            return;
        }
        let Some(hw) = broker.isr_high_watermark() else { return };
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
            self.emit(event);
            return;
        }
        let from = std::mem::replace(&mut broker.high_watermark, hw);
        let isr = broker.isr_log_end_offsets();
        self.emit(Event::HighWatermarkChanged { broker: b, from, to: hw, cause: HighWatermarkCause::IsrLogEndOffsets { isr } });
        self.complete_produces(b);
    }

    /// AlterPartition (KIP-497; a ZooKeeper conditional write before it): an
    /// ISR change takes effect only if the controller accepts it, which needs
    /// the leader to reach the controller in the current epoch.
    pub(crate) fn alter_partition(&mut self, l: BrokerId, proposed: BrokerList) -> bool {
        let epoch = self.broker(l).leader_epoch;
        let reason = if self.network.is_isolated(l) {
            Some("the controller is unreachable")
        } else if self.controller.leader != Some(l) || self.controller.leader_epoch != epoch {
            Some("the controller rejected it (FENCED_LEADER_EPOCH: no longer the leader)")
        } else {
            None
        };
        if let Some(reason) = reason {
            self.emit(Event::IsrChangeFailed { leader: l, proposed: proposed.to_vec(), reason });
            return false;
        }
        let old = std::mem::replace(&mut self.broker_mut(l).isr, proposed.clone());
        let removed: Vec<BrokerId> = old.iter().copied().filter(|b| !proposed.contains(b)).collect();
        let isr = proposed.to_vec();
        match proposed.iter().find(|b| !old.contains(b)) {
            Some(&added) => self.emit(Event::IsrExpanded { leader: l, added, isr }),
            None => self.emit(Event::IsrShrunk { leader: Some(l), removed, isr, by_controller: false }),
        }
        if self.change_isr(proposed, false, true) {
            self.notify_brokers();
        }
        true
    }

    /// `Partition.maybeExpandIsr` / `isFollowerInSync`: LEO >= HW and, since
    /// 2.1 (KAFKA-7128), >= the start offset of the leader's epoch.
    pub(crate) fn maybe_expand_isr(&mut self, l: BrokerId, f: BrokerId) {
        let leader = self.broker(l);
        if leader.isr.contains(&f) {
            return;
        }
        let Some(leo) = leader.remote(f).log_end_offset else { return };
        let needs_epoch_start = self.rules.has(Rule::IsrExpansionNeedsEpochStart);
        let in_sync = leo >= leader.high_watermark && (!needs_epoch_start || leo >= leader.epoch_start_offset);
        if in_sync {
            let mut proposed = leader.isr.clone();
            proposed.push(f);
            proposed.sort_unstable();
            self.alter_partition(l, proposed);
        }
    }

    /// `Partition.fetchRecords` on the leader.
    pub(crate) fn handle_fetch(&mut self, req: &Fetch) -> FetchResponse {
        let l = req.leader;
        let diverging_in_fetch = self.rules.has(Rule::DivergingEpochInFetch);
        let leader = self.broker(l);
        let mut resp = FetchResponse {
            leader: l,
            follower: req.follower,
            fetch_offset: req.fetch_offset,
            sent_in_epoch: req.sent_in_epoch,
            error: None,
            leader_log_end_offset: leader.log_end_offset(),
            high_watermark: leader.high_watermark,
            diverging_epoch: None,
            record_count: 0,
            records: vec![],
        };
        let error = if !leader.is_leader() {
            Some(Errors::NotLeaderOrFollower)
        } else {
            // KIP-320 fencing (2.1+: the request carries the epoch).
            match req.current_leader_epoch {
                Some(e) if e < leader.leader_epoch => Some(Errors::FencedLeaderEpoch),
                Some(e) if e > leader.leader_epoch => Some(Errors::UnknownLeaderEpoch),
                _ => None,
            }
        };
        if error.is_some() {
            resp.error = error;
            return resp;
        }
        // Divergence check inside the fetch (2.7+; Fetch v12, KIP-595's
        // DivergingEpoch with KIP-279 semantics): no state changes.
        if let (true, Some(last)) = (diverging_in_fetch, req.last_fetched_epoch) {
            match leader.log.end_offset_for_epoch(last) {
                Some((epoch, end_offset)) if epoch < last || end_offset < req.fetch_offset => {
                    resp.diverging_epoch = Some(DivergingEpoch { epoch, end_offset });
                    return resp;
                }
                Some(_) => {}
                None => {
                    resp.error = Some(Errors::OffsetOutOfRange);
                    return resp;
                }
            }
        }
        if req.fetch_offset > leader.log_end_offset() {
            resp.error = Some(Errors::OffsetOutOfRange);
            return resp;
        }
        // `Partition.fetchRecords` reads the log, and the HW with it, before
        // `updateFollowerFetchState`: a response that carries records holds
        // the HW from before this fetch moved it. A fetch with nothing to
        // read waits in `DelayedFetch` and is answered with a fresh read.
        let records = leader.log.read(req.fetch_offset, limits::MAX_FETCH_RECORDS);
        let read_high_watermark = leader.high_watermark;
        let (now, leo) = (self.now_ms, leader.log_end_offset());
        let remote = self.broker_mut(l).remote_mut(req.follower);
        let from = remote.log_end_offset;
        remote.update_fetch_state(req.fetch_offset, leo, now);
        if from != Some(req.fetch_offset) {
            self.emit(Event::RemoteLogEndOffsetUpdated { leader: l, follower: req.follower, from, to: req.fetch_offset });
        }
        self.maybe_expand_isr(l, req.follower);
        self.maybe_increment_high_watermark(l);
        let leader = self.broker(l);
        resp.high_watermark = if records.is_empty() { leader.high_watermark } else { read_high_watermark };
        resp.leader_log_end_offset = leader.log_end_offset();
        resp.record_count = records.len() as u64;
        resp.records = records;
        resp
    }

    /// OffsetsForLeaderEpoch on the leader (KIP-101): where the asked epoch
    /// ends (the start of the next one, or the LEO for the current). Since
    /// 2.0 the answer also names the largest epoch <= the asked one (KIP-279);
    /// since 2.1 a request from another leader epoch is fenced (KIP-320).
    pub(crate) fn handle_offsets_for_leader_epoch(&mut self, req: &OffsetsForLeaderEpoch) -> OffsetsForLeaderEpochResponse {
        let leader = self.broker(req.leader);
        let mut resp = OffsetsForLeaderEpochResponse {
            leader: req.leader,
            follower: req.follower,
            requested_epoch: req.leader_epoch,
            sent_in_epoch: req.sent_in_epoch,
            error: None,
            leader_epoch: None,
            end_offset: None,
        };
        resp.error = if !leader.is_leader() {
            Some(Errors::NotLeaderOrFollower)
        } else {
            match req.current_leader_epoch {
                Some(e) if e < leader.leader_epoch => Some(Errors::FencedLeaderEpoch),
                Some(e) if e > leader.leader_epoch => Some(Errors::UnknownLeaderEpoch),
                _ => None,
            }
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
        for i in 0..self.brokers.len() {
            let b = &self.brokers[i];
            if !b.is_leader() {
                continue;
            }
            let out = b.out_of_sync_replicas(self.now_ms, lag, self.rules.has(Rule::CaughtUpAtLogEnd));
            if out.is_empty() {
                continue;
            }
            let l = b.id;
            let proposed: BrokerList = b.isr.iter().copied().filter(|x| !out.contains(x)).collect();
            if self.alter_partition(l, proposed) {
                self.maybe_increment_high_watermark(l);
            }
        }
    }

}
