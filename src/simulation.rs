//! The engine: one partition on N brokers, driven one step at a time.
//!
//! `Simulation` is a plain value (clone it to snapshot it). It never reads a
//! clock or draws a random number it was not handed: time moves only through
//! `advance_ms`, randomness comes from the scenario's seed. Every step comes
//! back as typed events; the safety checks run after every action.

use crate::config::{limits, BrokerId, BrokerList, Config, Protocol};
use crate::consumer::{ConsumedRecord, Consumer};
use crate::controller::Controller;
use crate::event::{DropReason, ElectionKind, Event, HighWatermarkCause, ProduceResult, Traced, Truncation};
use crate::invariants::{Checker, View, Violation};
use crate::log::Record;
use crate::network::Network;
use crate::producer::{ProduceRequest, Producer, Status};
use crate::protocol::{DivergingEpoch, Errors, Fetch, FetchResponse, Message, OffsetsForLeaderEpoch, OffsetsForLeaderEpochResponse};
use crate::replica::Broker;
use crate::rng::Rng;
use crate::scenario::{Acks, Crash, Heal, Produce, Step};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Simulation {
    pub config: Config,
    pub now_ms: u64,
    /// Steps applied so far.
    pub step: u64,
    rng: Rng,
    pub brokers: Vec<Broker>,
    pub controller: Controller,
    pub network: Network,
    pub producer: Producer,
    pub consumer: Consumer,
    checker: Checker,
    pub violations: Vec<Violation>,
    /// When the leader's periodic ISR expiration check and the HW checkpoint next run.
    pub next_isr_check_ms: u64,
    pub next_checkpoint_ms: u64,
    /// Events of the step being applied; `action_start` marks the current action.
    out: Vec<Traced>,
    action_start: usize,
}

/// Why an election is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Election {
    /// The leader was fenced, or the partition is offline and a broker returned.
    Failover,
    /// An `elect` step: move leadership, to this broker or to the controller's choice.
    Requested(Option<BrokerId>),
}

impl Simulation {
    /// Broker 1 leads epoch 0, every broker in the ISR. The configuration must
    /// be valid (`Config::validate`).
    pub fn new(config: Config) -> Simulation {
        debug_assert!(config.validate().is_ok());
        let n = config.brokers;
        let mut rng = Rng::new(config.seed);
        let mut brokers: Vec<Broker> = config.broker_ids().map(|id| Broker::new(id, n)).collect();
        let controller = Controller::new(n);
        brokers[0].make_leader(0, controller.isr.clone(), 0, config.protocol == Protocol::Modern);
        for b in brokers.iter_mut().skip(1) {
            b.leader = Some(1);
            // Timed mode: each fetcher starts at a seeded phase of its interval.
            b.fetcher.next_fetch_ms = rng.below(config.fetch_interval_ms);
        }
        Simulation {
            now_ms: 0,
            step: 0,
            rng,
            brokers,
            controller,
            network: Network::new(n, config.link_latency_ms),
            producer: Producer::new(),
            consumer: Consumer::default(),
            checker: Checker::new(n),
            violations: vec![],
            next_isr_check_ms: config.replica_lag_time_max_ms / 2,
            next_checkpoint_ms: config.hw_checkpoint_interval_ms,
            out: vec![],
            action_start: 0,
            config,
        }
    }

    pub fn protocol(&self) -> Protocol {
        self.config.protocol
    }

    pub fn broker(&self, b: BrokerId) -> &Broker {
        &self.brokers[(b - 1) as usize]
    }

    fn broker_mut(&mut self, b: BrokerId) -> &mut Broker {
        &mut self.brokers[(b - 1) as usize]
    }

    /// Applies one step and returns the events it caused, in order.
    pub fn apply(&mut self, step: &Step) -> Vec<Traced> {
        self.step += 1;
        self.out.clear();
        self.action_start = 0;
        match self.run_step(step) {
            Ok(()) => {}
            Err(reason) => self.emit(Event::StepRejected { action: step.clone(), reason }),
        }
        self.end_action();
        std::mem::take(&mut self.out)
    }

    fn run_step(&mut self, step: &Step) -> Result<(), String> {
        step.validate(&self.config, 0)?;
        match step {
            Step::Produce(p) => self.produce(p),
            Step::Fetch(f) => self.fetch_now(*f)?,
            Step::AdvanceMs(ms) => self.advance(*ms),
            Step::Crash(c) => self.crash(c)?,
            Step::Restart(b) => self.restart(*b)?,
            Step::Elect(b) => self.elect(Election::Requested(*b))?,
            Step::Delay(d) => {
                self.network.latency_ms[(d.broker - 1) as usize] = d.ms;
                self.emit(Event::LatencyChanged { broker: d.broker, latency_ms: d.ms });
            }
            Step::Cut([a, b]) => {
                if !self.network.cuts.insert((*a, *b)) {
                    return Err(format!("the link from broker {a} to broker {b} is already cut"));
                }
                self.emit(Event::LinkCut { from: *a, to: *b, both_ways: false });
            }
            Step::Partition([a, b]) => {
                let new_ab = self.network.cuts.insert((*a, *b));
                let new_ba = self.network.cuts.insert((*b, *a));
                if !new_ab && !new_ba {
                    return Err(format!("brokers {a} and {b} are already partitioned"));
                }
                self.emit(Event::LinkCut { from: *a, to: *b, both_ways: true });
            }
            Step::Isolate(b) => self.isolate(*b)?,
            Step::Heal(h) => self.heal(*h)?,
            Step::Consume(()) => self.consume(),
            Step::Pause(b) | Step::Resume(b) => {
                let pause = matches!(step, Step::Pause(_));
                let broker = self.broker_mut(*b);
                if broker.fetcher.paused == pause {
                    return Err(format!("broker {b}'s fetcher is already {}", if pause { "paused" } else { "running" }));
                }
                broker.fetcher.paused = pause;
                self.emit(if pause { Event::FetcherPaused { broker: *b } } else { Event::FetcherResumed { broker: *b } });
            }
        }
        Ok(())
    }

    // ----- events and checks -------------------------------------------

    fn emit(&mut self, event: Event) {
        self.out.push(Traced { step: self.step, time_ms: self.now_ms, event });
    }

    /// Runs the safety checks over the action just finished.
    fn end_action(&mut self) {
        let view = View {
            brokers: &self.brokers,
            controller: &self.controller,
            producer: &self.producer,
            consumer: &self.consumer,
            step: self.step,
            time_ms: self.now_ms,
        };
        let found = self.checker.check(&view, &self.out[self.action_start..]);
        for v in found {
            self.violations.push(v.clone());
            self.emit(Event::Violation(v));
        }
        self.action_start = self.out.len();
    }

    // ----- producer ----------------------------------------------------

    /// `ReplicaManager.appendRecords` -> `Partition.appendRecordsToLeader`.
    fn produce(&mut self, p: &Produce) {
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
    fn complete_produces(&mut self, b: BrokerId) {
        let broker = self.broker(b);
        let enough = broker.isr.len() as u32 >= self.config.min_insync_replicas;
        for id in self.producer.take_reached(b, broker.high_watermark) {
            let result = if enough { ProduceResult::Acked } else { ProduceResult::Error(Errors::NotEnoughReplicasAfterAppend) };
            self.finish_produce(id, result);
        }
    }

    fn fail_pending_produces(&mut self, b: BrokerId, error: Errors) {
        for id in self.producer.take_all_pending(b) {
            self.finish_produce(id, ProduceResult::Error(error));
        }
    }

    fn finish_produce(&mut self, id: u64, result: ProduceResult) {
        let r = self.producer.finish(id, result);
        let event = Event::ProduceResponse { request: id, value: r.value.clone(), acks: r.acks, offset: r.offset, result };
        self.emit(event);
    }

    // ----- leader side -----------------------------------------------------

    /// `Partition.maybeIncrementLeaderHW`: HW = min LEO over the ISR; never
    /// down; in `modern`, not at all while the ISR is below
    /// `min.insync.replicas` (KAFKA-15583).
    fn maybe_increment_high_watermark(&mut self, b: BrokerId) {
        let min_isr = self.config.min_insync_replicas;
        let modern = self.protocol() == Protocol::Modern;
        let broker = self.broker_mut(b);
        if !broker.is_leader() {
            return;
        }
        let Some(hw) = broker.isr_high_watermark() else { return };
        if hw <= broker.high_watermark {
            return;
        }
        if modern && (broker.isr.len() as u32) < min_isr {
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
    fn alter_partition(&mut self, l: BrokerId, proposed: BrokerList) -> bool {
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
        self.controller.isr = proposed.clone();
        let removed: Vec<BrokerId> = old.iter().copied().filter(|b| !proposed.contains(b)).collect();
        let isr = proposed.to_vec();
        match proposed.iter().find(|b| !old.contains(b)) {
            Some(&added) => self.emit(Event::IsrExpanded { leader: l, added, isr }),
            None => self.emit(Event::IsrShrunk { leader: Some(l), removed, isr, by_controller: false }),
        }
        true
    }

    /// `Partition.maybeExpandIsr` / `isFollowerInSync`: LEO >= HW and, in
    /// `modern`, >= the start offset of the leader's epoch.
    fn maybe_expand_isr(&mut self, l: BrokerId, f: BrokerId) {
        let leader = self.broker(l);
        if leader.isr.contains(&f) {
            return;
        }
        let Some(leo) = leader.remote(f).log_end_offset else { return };
        let in_sync = leo >= leader.high_watermark && (self.protocol() != Protocol::Modern || leo >= leader.epoch_start_offset);
        if in_sync {
            let mut proposed = leader.isr.clone();
            proposed.push(f);
            proposed.sort_unstable();
            self.alter_partition(l, proposed);
        }
    }

    /// `Partition.fetchRecords` on the leader.
    fn handle_fetch(&mut self, req: &Fetch) -> FetchResponse {
        let l = req.leader;
        let modern = self.protocol() == Protocol::Modern;
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
            // KIP-320 fencing (modern).
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
        // Divergence check inside the fetch (modern; Fetch v12, KIP-595's
        // DivergingEpoch with KIP-279 semantics): no state changes.
        if let (true, Some(last)) = (modern, req.last_fetched_epoch) {
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
        // Partition.updateFollowerFetchState.
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
        resp.high_watermark = leader.high_watermark;
        resp.leader_log_end_offset = leader.log_end_offset();
        resp.records = leader.log.read(req.fetch_offset, limits::MAX_FETCH_RECORDS);
        resp.record_count = resp.records.len() as u64;
        resp
    }

    /// KIP-101 OffsetsForLeaderEpoch on the leader: the end offset of the
    /// asked epoch (the start of the next one, or the LEO for the current).
    fn handle_offsets_for_leader_epoch(&mut self, req: &OffsetsForLeaderEpoch) -> OffsetsForLeaderEpochResponse {
        let leader = self.broker(req.leader);
        let (error, end_offset) = if leader.is_leader() {
            // Kafka 0.11 `LeaderEpochFileCache.endOffsetFor`: UNDEFINED for an
            // epoch older than every epoch the leader knows, too.
            let older = leader.log.epochs().entries().first().is_none_or(|e| req.leader_epoch < e.epoch);
            let end = if older { None } else { leader.log.end_offset_for_epoch(req.leader_epoch).map(|(_, end)| end) };
            (None, end)
        } else {
            (Some(Errors::NotLeaderOrFollower), None)
        };
        OffsetsForLeaderEpochResponse {
            leader: req.leader,
            follower: req.follower,
            requested_epoch: req.leader_epoch,
            sent_in_epoch: req.sent_in_epoch,
            error,
            end_offset,
        }
    }

    // ----- follower side -----------------------------------------------------

    /// The follower's next request: OffsetsForLeaderEpoch first after becoming
    /// a follower in `kip101`, Fetch otherwise.
    fn next_request(&mut self, f: BrokerId) -> Message {
        let protocol = self.protocol();
        let b = self.broker_mut(f);
        let leader = b.leader.expect("a follower has a leader");
        if protocol == Protocol::Kip101 && b.fetcher.needs_epoch_truncation {
            match b.log.last_epoch() {
                Some(leader_epoch) => {
                    return Message::OffsetsForLeaderEpoch(OffsetsForLeaderEpoch {
                        follower: f,
                        leader,
                        leader_epoch,
                        sent_in_epoch: b.leader_epoch,
                    })
                }
                None => b.fetcher.needs_epoch_truncation = false, // an empty log has nothing to truncate
            }
        }
        let modern = protocol == Protocol::Modern;
        Message::Fetch(Fetch {
            follower: f,
            leader,
            fetch_offset: b.log_end_offset(),
            current_leader_epoch: modern.then_some(b.leader_epoch),
            last_fetched_epoch: if modern { b.log.last_epoch() } else { None },
            sent_in_epoch: b.leader_epoch,
        })
    }

    /// True if a response still matches the follower's state; otherwise the
    /// follower drops it (`AbstractFetcherThread` checks the fetch state).
    fn response_is_current(&mut self, follower: BrokerId, leader: BrokerId, epoch: u32, kind: &'static str) -> bool {
        let b = self.broker_mut(follower);
        b.fetcher.in_flight_since_ms = None;
        if b.leader == Some(leader) && b.leader_epoch == epoch {
            true
        } else {
            self.emit(Event::ResponseIgnored { follower, kind, reason: "the follower has moved to another leader or epoch since" });
            false
        }
    }

    /// `AbstractFetcherThread.processFetchRequest` on the follower.
    fn handle_fetch_response(&mut self, resp: FetchResponse) {
        let f = resp.follower;
        if !self.response_is_current(f, resp.leader, resp.sent_in_epoch, "FetchResponse") {
            return;
        }
        if self.broker(f).log_end_offset() != resp.fetch_offset {
            self.emit(Event::ResponseIgnored { follower: f, kind: "FetchResponse", reason: "its log end moved since the request" });
            return;
        }
        match resp.error {
            Some(Errors::OffsetOutOfRange) => {
                // Pre-epoch handling: truncate to the leader's log end.
                let to = resp.leader_log_end_offset;
                self.truncate(f, to, Truncation::OffsetOutOfRange { leader_log_end_offset: to });
                return;
            }
            Some(_) => return, // fenced or not leader: wait for the controller's news
            None => {}
        }
        // AbstractFetcherThread.processFetchRequest: the partition data (HW
        // included) is processed first, the DivergingEpoch truncation after.
        let broker = self.broker_mut(f);
        let count = resp.records.len() as u64;
        for r in resp.records {
            broker.log.append(r);
        }
        let leo = broker.log_end_offset();
        if count > 0 {
            self.emit(Event::FollowerAppended { follower: f, leader: resp.leader, first_offset: resp.fetch_offset, count, log_end_offset: leo });
        }
        // ReplicaFetcherThread.processPartitionData: HW = min(leader HW, own LEO).
        let hw = resp.high_watermark.min(leo);
        let broker = self.broker_mut(f);
        if hw != broker.high_watermark {
            let from = std::mem::replace(&mut broker.high_watermark, hw);
            let cause = HighWatermarkCause::FetchResponse { leader_high_watermark: resp.high_watermark };
            self.emit(Event::HighWatermarkChanged { broker: f, from, to: hw, cause });
        }
        if let Some(d) = resp.diverging_epoch {
            self.truncate_to_diverging_epoch(f, d);
        }
    }

    /// `AbstractFetcherThread.getOffsetTruncationState` (KIP-279): if the
    /// follower has the leader's epoch, truncate to the smaller of both ends
    /// of it; if not, to the end of its own largest epoch below it (the next
    /// fetch asks again with that epoch).
    fn truncate_to_diverging_epoch(&mut self, f: BrokerId, d: DivergingEpoch) {
        let b = self.broker(f);
        let leo = b.log_end_offset();
        let (to, follower_end_offset) = match b.log.end_offset_for_epoch(d.epoch) {
            Some((epoch, end)) if epoch == d.epoch => (d.end_offset.min(end).min(leo), end),
            Some((_, end)) => (end.min(leo), end),
            None => (d.end_offset.min(leo), leo),
        };
        self.truncate(f, to, Truncation::DivergingEpoch { epoch: d.epoch, end_offset: d.end_offset, follower_end_offset });
    }

    /// KIP-101 on the follower: truncate to min(answer, LEO); with no answer,
    /// fall back to the own HW.
    fn handle_offsets_for_leader_epoch_response(&mut self, resp: OffsetsForLeaderEpochResponse) {
        let f = resp.follower;
        if !self.response_is_current(f, resp.leader, resp.sent_in_epoch, "OffsetsForLeaderEpochResponse") || resp.error.is_some() {
            return;
        }
        let b = self.broker_mut(f);
        b.fetcher.needs_epoch_truncation = false;
        let (to, truncation) = match resp.end_offset {
            Some(end_offset) => (end_offset, Truncation::LeaderEpoch { requested_epoch: resp.requested_epoch, end_offset }),
            None => (b.high_watermark, Truncation::UndefinedEpochOffset { high_watermark: b.high_watermark }),
        };
        self.truncate(f, to, truncation);
    }

    /// Truncates a log (if `to` is below its end) and keeps HW <= LEO.
    fn truncate(&mut self, b: BrokerId, to: u64, truncation: Truncation) {
        let broker = self.broker_mut(b);
        let from = broker.log_end_offset();
        if to >= from {
            return;
        }
        broker.log.truncate_to(to);
        let hw_from = broker.high_watermark;
        broker.high_watermark = hw_from.min(to);
        self.emit(Event::Truncated { broker: b, from, to, truncation });
        if hw_from > to {
            self.emit(Event::HighWatermarkChanged { broker: b, from: hw_from, to, cause: HighWatermarkCause::Truncation });
        }
    }

    // ----- the wire --------------------------------------------------------------

    /// Why a message from `from` to `to` cannot arrive now.
    fn drop_reason(&self, from: BrokerId, to: BrokerId) -> Option<DropReason> {
        self.network.blocked(from, to).or((!self.broker(to).alive).then_some(DropReason::BrokerDown))
    }

    /// A broker handles a request; the response to send back.
    fn handle_request(&mut self, m: &Message) -> Option<Message> {
        match m {
            Message::Fetch(req) => Some(Message::FetchResponse(self.handle_fetch(req))),
            Message::OffsetsForLeaderEpoch(req) => Some(Message::OffsetsForLeaderEpochResponse(self.handle_offsets_for_leader_epoch(req))),
            Message::FetchResponse(resp) => {
                self.handle_fetch_response(resp.clone());
                None
            }
            Message::OffsetsForLeaderEpochResponse(resp) => {
                self.handle_offsets_for_leader_epoch_response(resp.clone());
                None
            }
        }
    }

    /// Delivers a message now, or drops it; returns the reply, if any.
    fn deliver(&mut self, m: Message) -> Option<Message> {
        if let Some(reason) = self.drop_reason(m.from(), m.to()) {
            self.emit(Event::Dropped { from: m.from(), to: m.to(), kind: m.name(), reason });
            return None;
        }
        match m {
            Message::FetchResponse(resp) => {
                self.handle_fetch_response(resp);
                None
            }
            other => self.handle_request(&other),
        }
    }

    /// A `fetch` step: one whole round, request and response, atomically
    /// (reference §10). In `kip101` the round after becoming a follower is an
    /// OffsetsForLeaderEpoch round.
    fn fetch_now(&mut self, f: BrokerId) -> Result<(), String> {
        let b = self.broker(f);
        if !b.alive {
            return Err(format!("broker {f} is down"));
        }
        match b.leader {
            None => return Err(format!("broker {f} knows no leader to fetch from (the partition is offline)")),
            Some(l) if l == f => return Err(format!("broker {f} is the leader; only followers fetch")),
            Some(_) => {}
        }
        let request = self.next_request(f);
        self.emit(Event::sent(&request, 0));
        if let Some(response) = self.deliver(request) {
            self.emit(Event::sent(&response, 0));
            self.deliver(response);
        }
        Ok(())
    }

    // ----- time ------------------------------------------------------------------

    /// Runs the clock for `ms`: message arrivals, fetchers (timed mode),
    /// sessions, ISR expiration, HW checkpoints and produce timeouts, in time
    /// order; the checks run after each.
    fn advance(&mut self, ms: u64) {
        let (from_ms, to_ms) = (self.now_ms, self.now_ms + ms);
        self.emit(Event::ClockAdvanced { from_ms, to_ms });
        self.end_action();
        while let Some(t) = self.next_due_ms().filter(|&t| t <= to_ms) {
            self.now_ms = t;
            self.run_due();
        }
        self.now_ms = to_ms;
    }

    fn next_due_ms(&self) -> Option<u64> {
        let session = self.controller.next_expiry_ms(self.config.broker_session_timeout_ms);
        [
            self.network.next_arrival_ms(),
            self.next_fetcher_due_ms(),
            session,
            Some(self.next_isr_check_ms),
            Some(self.next_checkpoint_ms),
            self.producer.next_deadline_ms(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn fetcher_active(&self, b: &Broker) -> bool {
        self.config.auto_fetch && b.following().is_some() && !b.fetcher.paused
    }

    fn next_fetcher_due_ms(&self) -> Option<u64> {
        self.brokers
            .iter()
            .filter(|b| self.fetcher_active(b))
            .map(|b| match b.fetcher.in_flight_since_ms {
                Some(sent) => sent + self.config.request_timeout_ms,
                None => b.fetcher.next_fetch_ms.max(self.now_ms),
            })
            .min()
    }

    /// Everything due at `now_ms`, in a fixed order.
    fn run_due(&mut self) {
        let now = self.now_ms;
        while let Some(m) = self.network.pop_arrived(now) {
            if let Some(reply) = self.deliver(m) {
                self.send(reply);
            }
            self.end_action();
        }
        self.run_fetchers();
        for b in self.controller.expired_sessions(now, self.config.broker_session_timeout_ms) {
            self.fence(b);
            self.end_action();
        }
        if self.next_isr_check_ms <= now {
            // ReplicaManager schedules "isr-expiration" every replica.lag.time.max.ms / 2.
            self.next_isr_check_ms += (self.config.replica_lag_time_max_ms / 2).max(1);
            self.expire_isr();
            self.end_action();
        }
        if self.next_checkpoint_ms <= now {
            self.next_checkpoint_ms += self.config.hw_checkpoint_interval_ms;
            self.checkpoint_high_watermarks();
            self.end_action();
        }
        for id in self.producer.take_expired(now) {
            self.finish_produce(id, ProduceResult::Error(Errors::RequestTimedOut));
            self.end_action();
        }
    }

    fn send(&mut self, m: Message) {
        let arrives = self.network.send(m.clone(), self.now_ms);
        self.emit(Event::sent(&m, arrives - self.now_ms));
    }

    /// Timed mode: each follower's fetcher sends its next request when due,
    /// and gives up on one unanswered for `request.timeout.ms`.
    fn run_fetchers(&mut self) {
        let now = self.now_ms;
        for i in 0..self.brokers.len() {
            let b = &self.brokers[i];
            if !self.fetcher_active(b) {
                continue;
            }
            let (f, leader) = (b.id, b.leader.expect("active fetcher"));
            if let Some(sent) = b.fetcher.in_flight_since_ms {
                if sent + self.config.request_timeout_ms > now {
                    continue;
                }
                self.brokers[i].fetcher.in_flight_since_ms = None;
                self.emit(Event::FetchTimedOut { follower: f, leader });
            }
            if self.brokers[i].fetcher.next_fetch_ms > now {
                continue;
            }
            let request = self.next_request(f);
            let fetcher = &mut self.brokers[i].fetcher;
            fetcher.in_flight_since_ms = Some(now);
            fetcher.next_fetch_ms = now + self.config.fetch_interval_ms;
            self.send(request);
            self.end_action();
        }
    }

    /// The leader's periodic check (`Partition.maybeShrinkIsr`).
    fn expire_isr(&mut self) {
        let lag = self.config.replica_lag_time_max_ms;
        for i in 0..self.brokers.len() {
            let b = &self.brokers[i];
            if !b.is_leader() {
                continue;
            }
            let out = b.out_of_sync_replicas(self.now_ms, lag, self.config.protocol == Protocol::Modern);
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

    /// Every `replica.high.watermark.checkpoint.interval.ms` each live broker
    /// writes its HW to disk (`ReplicaManager.checkpointHighWatermarks`).
    fn checkpoint_high_watermarks(&mut self) {
        for i in 0..self.brokers.len() {
            let b = &mut self.brokers[i];
            if b.alive && b.checkpointed_high_watermark != b.high_watermark {
                b.checkpointed_high_watermark = b.high_watermark;
                let event = Event::HighWatermarkCheckpointed { broker: b.id, high_watermark: b.high_watermark };
                self.emit(event);
            }
        }
    }

    // ----- controller ------------------------------------------------------

    /// Alive, reachable and not fenced: a broker the controller can use.
    fn live(&self, b: BrokerId) -> bool {
        self.broker(b).alive && !self.network.is_isolated(b) && !self.controller.is_fenced(b)
    }

    /// Session expired: fence the broker, take it out of the ISR (never
    /// emptying it), and elect a new leader if it led.
    fn fence(&mut self, b: BrokerId) {
        self.controller.fenced[(b - 1) as usize] = true;
        self.emit(Event::BrokerFenced { broker: b, session_timeout_ms: self.config.broker_session_timeout_ms });
        let was_leader = self.controller.leader == Some(b);
        if self.controller.remove_from_isr(b) {
            let isr = self.controller.isr.clone();
            let leader = self.controller.leader.filter(|&l| l != b);
            self.emit(Event::IsrShrunk { leader, removed: vec![b], isr: isr.to_vec(), by_controller: true });
            // The leader learns the new ISR (LeaderAndIsr / partition change record).
            if let Some(l) = leader.filter(|&l| self.broker(l).is_leader() && !self.network.is_isolated(l)) {
                self.broker_mut(l).isr = isr;
                self.maybe_increment_high_watermark(l);
            }
        }
        if was_leader {
            let _ = self.elect(Election::Failover);
        }
    }

    /// Leader election (`PartitionStateMachine.offlinePartitionLeaderElection`):
    /// the first live ISR member in assignment order; failing that, with
    /// unclean election enabled, the first live replica; else offline.
    fn elect(&mut self, why: Election) -> Result<(), String> {
        let current = self.controller.leader;
        let ids: Vec<BrokerId> = self.config.broker_ids().collect();
        let unclean_ok = self.config.unclean_leader_election;
        let in_isr = |b: BrokerId| self.controller.isr.contains(&b);
        let choice = match why {
            Election::Requested(Some(b)) => {
                if current == Some(b) {
                    return Err(format!("broker {b} is already the leader"));
                }
                if !self.live(b) {
                    return Err(format!("broker {b} is down, isolated or fenced"));
                }
                let live_isr = self.controller.isr.iter().any(|&m| self.live(m));
                if in_isr(b) {
                    Some((b, ElectionKind::Clean))
                } else if !unclean_ok {
                    return Err(format!("broker {b} is not in the ISR and unclean.leader.election.enable is false"));
                } else if live_isr {
                    // An unclean election only happens when no ISR member is live.
                    return Err(format!("broker {b} is not in the ISR, and a live ISR member can be elected cleanly"));
                } else {
                    Some((b, ElectionKind::Unclean))
                }
            }
            Election::Requested(None) | Election::Failover => {
                let skip = if why == Election::Failover { None } else { current };
                let eligible = |b: &BrokerId| Some(*b) != skip && self.live(*b);
                let clean = ids.iter().copied().filter(|&b| in_isr(b)).find(eligible);
                let unclean = ids.iter().copied().find(eligible).filter(|_| unclean_ok);
                clean.map(|b| (b, ElectionKind::Clean)).or(unclean.map(|b| (b, ElectionKind::Unclean)))
            }
        };
        let Some((leader, kind)) = choice else {
            let reason = if unclean_ok {
                "no live replica to elect".to_string()
            } else {
                format!("no live replica in the ISR {:?} and unclean.leader.election.enable is false", self.controller.isr)
            };
            if let Election::Requested(_) = why {
                return Err(reason);
            }
            if current.is_some() || why == Election::Failover {
                self.controller.leader = None;
                self.emit(Event::PartitionOffline { reason });
                // KRaft publishes the leaderless partition; the ZooKeeper-era
                // controller of legacy and kip101 sends no LeaderAndIsr.
                if self.protocol() == Protocol::Modern {
                    self.notify_brokers();
                }
            }
            return Ok(());
        };
        self.controller.leader = Some(leader);
        self.controller.leader_epoch += 1;
        let isr: BrokerList = match kind {
            ElectionKind::Clean => {
                let fenced = |b: &BrokerId| self.controller.is_fenced(*b);
                self.controller.isr.iter().copied().filter(|b| !fenced(b)).collect()
            }
            ElectionKind::Unclean => [leader].into_iter().collect(),
        };
        self.controller.isr = isr.clone();
        self.emit(Event::LeaderElected { leader, leader_epoch: self.controller.leader_epoch, isr: isr.to_vec(), kind });
        self.notify_brokers();
        Ok(())
    }

    /// LeaderAndIsr to every broker the controller reaches.
    fn notify_brokers(&mut self) {
        for b in self.config.broker_ids() {
            if self.broker(b).alive && !self.network.is_isolated(b) {
                self.send_leader_and_isr(b);
            }
        }
    }

    /// The controller tells one broker the current leader, epoch and ISR;
    /// restart and heal deliver it at once (reference §10).
    fn send_leader_and_isr(&mut self, b: BrokerId) {
        let (leader, epoch) = (self.controller.leader, self.controller.leader_epoch);
        let broker = self.broker(b);
        if leader == Some(b) {
            if broker.is_leader() && broker.leader_epoch == epoch {
                let isr = self.controller.isr.clone();
                self.broker_mut(b).isr = isr;
                self.maybe_increment_high_watermark(b);
            } else {
                self.become_leader(b);
            }
        } else {
            self.become_follower(b, leader, epoch);
        }
    }

    /// `Partition.makeLeader`.
    fn become_leader(&mut self, b: BrokerId) {
        if self.broker(b).is_leader() {
            self.fail_pending_produces(b, Errors::NotLeaderOrFollower);
        }
        let (epoch, isr, now) = (self.controller.leader_epoch, self.controller.isr.clone(), self.now_ms);
        let record_epoch_now = self.protocol() == Protocol::Modern;
        let broker = self.broker_mut(b);
        broker.make_leader(epoch, isr, now, record_epoch_now);
        let start_offset = broker.log_end_offset();
        self.emit(Event::BecameLeader { broker: b, leader_epoch: epoch, start_offset });
        self.maybe_increment_high_watermark(b);
    }

    /// `ReplicaManager.makeFollowers`: `legacy` truncates to the own HW here;
    /// `kip101` must first ask OffsetsForLeaderEpoch; `modern` learns of any
    /// divergence from its next fetch. Before 2.x, `Partition.makeFollower`
    /// does nothing more when the leader id is unchanged (only the epoch).
    fn become_follower(&mut self, b: BrokerId, leader: Option<BrokerId>, epoch: u32) {
        let broker = self.broker(b);
        let leader_changed = broker.leader != leader;
        if !leader_changed && broker.leader_epoch == epoch {
            return;
        }
        if broker.is_leader() {
            // DelayedProduce completes with NOT_LEADER_OR_FOLLOWER when leadership is lost.
            self.fail_pending_produces(b, Errors::NotLeaderOrFollower);
        }
        let protocol = self.protocol();
        let now = self.now_ms;
        let broker = self.broker_mut(b);
        broker.leader = leader;
        broker.leader_epoch = epoch;
        broker.isr.clear();
        broker.fetcher.in_flight_since_ms = None;
        broker.fetcher.next_fetch_ms = now;
        let truncate = leader.is_some() && leader_changed;
        if protocol == Protocol::Kip101 && truncate {
            broker.fetcher.needs_epoch_truncation = true;
        }
        let hw = broker.high_watermark;
        self.emit(Event::BecameFollower { broker: b, leader, leader_epoch: epoch });
        if protocol == Protocol::Legacy && truncate {
            self.truncate(b, hw, Truncation::HighWatermark { high_watermark: hw });
        }
    }

    /// A broker is back in touch with the controller (restart or heal).
    fn rejoin(&mut self, b: BrokerId) {
        self.controller.silent_since_ms[(b - 1) as usize] = None;
        if self.controller.is_fenced(b) {
            self.controller.fenced[(b - 1) as usize] = false;
            self.emit(Event::BrokerUnfenced { broker: b });
        }
        if self.controller.leader.is_none() {
            let _ = self.elect(Election::Failover);
            if self.controller.leader.is_some() {
                return; // the election told every broker
            }
        }
        self.send_leader_and_isr(b);
    }

    /// The controller stops hearing from `b` (unless it already had).
    fn go_silent(&mut self, b: BrokerId) {
        let since = &mut self.controller.silent_since_ms[(b - 1) as usize];
        if since.is_none() {
            *since = Some(self.now_ms);
        }
    }

    // ----- faults --------------------------------------------------------------

    fn crash(&mut self, c: &Crash) -> Result<(), String> {
        let b = c.broker;
        if !self.broker(b).alive {
            return Err(format!("broker {b} is already down"));
        }
        self.emit(Event::Crashed { broker: b, lose_unflushed: c.lose_unflushed });
        // The client's connection breaks: pending acks=all requests fail.
        self.fail_pending_produces(b, Errors::NetworkException);
        let broker = self.broker_mut(b);
        broker.alive = false;
        broker.fetcher.in_flight_since_ms = None;
        let leo = broker.log_end_offset();
        let lost = c.lose_unflushed.min(leo);
        if lost > 0 {
            self.truncate(b, leo - lost, Truncation::PowerLoss { lost });
        }
        self.go_silent(b);
        Ok(())
    }

    fn restart(&mut self, b: BrokerId) -> Result<(), String> {
        let broker = self.broker_mut(b);
        if broker.alive {
            return Err(format!("broker {b} is already running"));
        }
        broker.alive = true;
        broker.leader = None;
        broker.isr.clear();
        broker.fetcher = crate::replica::Fetcher { paused: broker.fetcher.paused, ..Default::default() };
        // The in-memory HW is gone: HW = min(checkpointed HW, LEO).
        let (hw_from, checkpointed) = (broker.high_watermark, broker.checkpointed_high_watermark);
        let hw = checkpointed.min(broker.log_end_offset());
        broker.high_watermark = hw;
        self.emit(Event::Restarted { broker: b });
        if hw != hw_from {
            self.emit(Event::HighWatermarkChanged { broker: b, from: hw_from, to: hw, cause: HighWatermarkCause::Checkpoint { checkpointed } });
        }
        if !self.network.is_isolated(b) {
            self.rejoin(b);
        }
        Ok(())
    }

    fn isolate(&mut self, b: BrokerId) -> Result<(), String> {
        if self.network.is_isolated(b) {
            return Err(format!("broker {b} is already isolated"));
        }
        self.network.isolated[(b - 1) as usize] = true;
        self.emit(Event::Isolated { broker: b });
        self.go_silent(b);
        Ok(())
    }

    fn heal(&mut self, h: Heal) -> Result<(), String> {
        let touches = |b: BrokerId| match h {
            Heal::All => true,
            Heal::Link(x, y) => b == x || b == y,
            Heal::Broker(x) => b == x,
        };
        let cuts: Vec<(BrokerId, BrokerId)> = self
            .network
            .cuts
            .iter()
            .copied()
            .filter(|&(x, y)| match h {
                Heal::All => true,
                Heal::Link(a, b) => (x, y) == (a, b) || (x, y) == (b, a),
                Heal::Broker(a) => x == a || y == a,
            })
            .collect();
        let isolated: Vec<BrokerId> = match h {
            Heal::Link(..) => vec![],
            _ => self.config.broker_ids().filter(|&b| touches(b) && self.network.is_isolated(b)).collect(),
        };
        if cuts.is_empty() && isolated.is_empty() {
            return Err("nothing to heal: no such cut or isolation".into());
        }
        for (x, y) in cuts {
            self.network.cuts.remove(&(x, y));
            if x < y || !self.network.cuts.contains(&(y, x)) {
                self.emit(Event::LinkHealed { from: x, to: y });
            }
        }
        // Reconnected fetchers stop waiting for answers that were lost.
        for b in self.brokers.iter_mut().filter(|b| touches(b.id) || b.leader.is_some_and(touches)) {
            b.fetcher.in_flight_since_ms = None;
        }
        for b in isolated {
            self.network.isolated[(b - 1) as usize] = false;
            self.emit(Event::IsolationHealed { broker: b });
            if self.broker(b).alive {
                self.rejoin(b);
            }
        }
        Ok(())
    }

    // ----- consumer --------------------------------------------------------------

    /// Reads from the leader up to its HW (read_uncommitted, reference §7).
    fn consume(&mut self) {
        let Some(l) = self.controller.leader else {
            self.emit(Event::ConsumeFailed { error: "NOT_LEADER_OR_FOLLOWER: the partition has no leader".into() });
            return;
        };
        let leader = self.broker(l);
        if !leader.alive {
            self.emit(Event::ConsumeFailed { error: format!("NETWORK_EXCEPTION: leader broker {l} is down") });
            return;
        }
        let (hw, leo) = (leader.high_watermark, leader.log_end_offset());
        if self.consumer.position > leo {
            let error = format!("OFFSET_OUT_OF_RANGE: position {} is past the leader's log end {leo}; reset to HW {hw}", self.consumer.position);
            self.consumer.position = hw;
            self.emit(Event::ConsumeFailed { error });
            return;
        }
        let from = self.consumer.position;
        let records: Vec<ConsumedRecord> = leader
            .log
            .iter_from(from)
            .take(hw.saturating_sub(from).min(limits::MAX_FETCH_RECORDS as u64) as usize)
            .zip(from..)
            .map(|(r, offset)| ConsumedRecord { offset, id: r.id, value: r.value.clone() })
            .collect();
        let to = from + records.len() as u64;
        let values = records.iter().map(|r| r.value.clone()).collect();
        self.consumer.position = to;
        self.consumer.read.extend(records);
        self.emit(Event::Consumed { broker: l, from, to, high_watermark: hw, values });
    }
}
