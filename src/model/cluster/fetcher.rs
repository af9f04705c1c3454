//! The follower's fetchers: one per leader broker it follows partitions on,
//! each sending one request at a time that carries every partition it
//! fetches from that leader; what it does with each partition's answer, and
//! how it truncates a log that diverged (`server/AbstractFetcherThread.scala`,
//! `server/ReplicaFetcherThread.scala`, `AbstractFetcherManager`).

use crate::model::config::{BrokerId, BrokerList, PartitionId};
use crate::model::event::{Event, HighWatermarkCause, Truncation};
use crate::model::protocol::{
    DivergingEpoch, EpochEndOffset, Errors, Fetch, FetchPartition, FetchResponse, FetchResponsePartition, Message, OffsetsForLeaderEpoch,
    OffsetsForLeaderEpochPartition, OffsetsForLeaderEpochResponse, PartitionBatch,
};
use crate::model::rules::{Rule, TruncationRule};
use crate::model::simulation::Simulation;
use smallvec::SmallVec;

impl Simulation {
    /// The partitions broker `f` fetches from `leader`, in partition order:
    /// it follows `leader` for them and has not stopped fetching them for a
    /// controlled shutdown (the fetcher thread's partition states).
    pub(crate) fn fetched_from(&self, f: BrokerId, leader: BrokerId) -> PartitionBatch<PartitionId> {
        self.config.partition_ids().filter(|&p| self.following(p, f) == Some(leader) && !self.replica(p, f).stopped_for_shutdown).collect()
    }

    /// The leaders broker `f` has a fetcher to, in id order, each with the
    /// time its partitions' backoff (after an error) is first over.
    pub(crate) fn fetchers_of(&self, f: BrokerId) -> SmallVec<[(BrokerId, u64); 2]> {
        let mut out: SmallVec<[(BrokerId, u64); 2]> = SmallVec::new();
        if !self.broker(f).alive {
            return out;
        }
        for partition in &self.partitions {
            let r = &partition.replicas[(f - 1) as usize];
            let Some(l) = r.followed_leader().filter(|_| !r.stopped_for_shutdown) else { continue };
            match out.iter_mut().find(|(x, _)| *x == l) {
                Some((_, backoff)) => *backoff = (*backoff).min(r.fetch_backoff_until_ms),
                None => out.push((l, r.fetch_backoff_until_ms)),
            }
        }
        if out.len() > 1 {
            out.sort_unstable();
        }
        out
    }

    /// The leaders broker `f` has a fetcher to, in id order.
    pub(crate) fn fetch_sources(&self, f: BrokerId) -> BrokerList {
        self.fetchers_of(f).iter().map(|&(l, _)| l).collect()
    }

    /// The fetcher's next request to `leader`: an OffsetsForLeaderEpoch
    /// round first for the partitions that just became followers (0.11 to
    /// 2.1, KIP-101; `AbstractFetcherThread.maybeTruncate`), a Fetch of every
    /// partition otherwise. Since 2.1 requests carry the current leader
    /// epoch (KIP-320); since 2.8 a fetch carries the last fetched epoch
    /// (Fetch v12, with inter.broker.protocol >= 2.7). The partitions that
    /// still truncate are fetched in the round after.
    pub(crate) fn next_request(&mut self, f: BrokerId, leader: BrokerId, max_wait_ms: u64) -> Message {
        let rules = self.rules;
        let fencing = rules.has(Rule::LeaderEpochFencing);
        // The timed fetcher leaves out a partition that backs off after an
        // error; a manual round (no wait) fetches every partition.
        let now = self.now_ms;
        let mut partitions = self.fetched_from(f, leader);
        partitions.retain(|p| max_wait_ms == 0 || self.replica(*p, f).fetch_backoff_until_ms <= now);
        if rules.truncation() == TruncationRule::OffsetsForLeaderEpoch {
            let mut asks = PartitionBatch::new();
            for &p in &partitions {
                let r = self.replica_mut(p, f);
                if !r.needs_epoch_truncation {
                    continue;
                }
                match r.log.last_epoch() {
                    Some(leader_epoch) => asks.push(OffsetsForLeaderEpochPartition {
                        partition: p,
                        leader_epoch,
                        current_leader_epoch: fencing.then_some(r.leader_epoch),
                        sent_in_epoch: r.leader_epoch,
                    }),
                    None => r.needs_epoch_truncation = false, // an empty log has nothing to truncate
                }
            }
            if !asks.is_empty() {
                return Message::OffsetsForLeaderEpoch(OffsetsForLeaderEpoch { follower: f, leader, partitions: asks });
            }
        }
        let in_fetch = rules.truncation() == TruncationRule::DivergingEpochInFetch;
        let partitions = partitions
            .iter()
            .map(|&p| {
                let r = self.replica(p, f);
                FetchPartition {
                    partition: p,
                    fetch_offset: r.log_end_offset(),
                    current_leader_epoch: fencing.then_some(r.leader_epoch),
                    last_fetched_epoch: if in_fetch { r.log.last_epoch() } else { None },
                    sent_in_epoch: r.leader_epoch,
                }
            })
            .collect();
        Message::Fetch(Fetch { follower: f, leader, max_wait_ms, partitions })
    }

    /// The fetcher to `leader` has its answer: it may send the next request.
    fn fetch_answered(&mut self, follower: BrokerId, leader: BrokerId) {
        let now = self.now_ms;
        let fetcher = self.broker_mut(follower).fetcher_mut(leader);
        fetcher.in_flight_since_ms = None;
        fetcher.next_fetch_ms = now;
    }

    /// True if a partition's answer still matches the follower's state;
    /// otherwise the follower drops it (`AbstractFetcherThread` checks the
    /// partition's fetch state).
    fn answer_is_current(&mut self, p: PartitionId, follower: BrokerId, leader: BrokerId, epoch: u32, kind: &'static str) -> bool {
        let r = self.replica(p, follower);
        if r.leader == Some(leader) && r.leader_epoch == epoch {
            true
        } else {
            self.emit_in(p, Event::ResponseIgnored { follower, kind, reason: "the follower has moved to another leader or epoch since" });
            false
        }
    }

    /// `AbstractFetcherThread.processFetchRequest` on the follower: each
    /// partition's data is handled on its own.
    pub(crate) fn handle_fetch_response(&mut self, resp: FetchResponse) {
        self.fetch_answered(resp.follower, resp.leader);
        for part in resp.partitions {
            self.handle_fetch_response_partition(resp.follower, resp.leader, part);
        }
    }

    fn handle_fetch_response_partition(&mut self, f: BrokerId, leader: BrokerId, resp: FetchResponsePartition) {
        let p = resp.partition;
        if !self.answer_is_current(p, f, leader, resp.sent_in_epoch, "FetchResponse") {
            return;
        }
        if self.replica(p, f).log_end_offset() != resp.fetch_offset {
            self.emit_in(p, Event::ResponseIgnored { follower: f, kind: "FetchResponse", reason: "its log end moved since the request" });
            return;
        }
        match resp.error {
            Some(Errors::OffsetOutOfRange) => {
                // Pre-epoch handling: truncate to the leader's log end.
                let to = resp.leader_log_end_offset;
                self.truncate(p, f, to, Truncation::OffsetOutOfRange { leader_log_end_offset: to });
                return;
            }
            Some(_) => {
                // Fenced or not the leader: this partition backs off and waits
                // for the controller's news (`delayPartitions`, `replica.fetch.backoff.ms`).
                self.back_off(p, f);
                return;
            }
            None => {}
        }
        // AbstractFetcherThread.processFetchRequest: before 3.5 the partition
        // data (HW included) is processed first and the DivergingEpoch
        // truncation after; since 3.5 (KAFKA-14704) a diverging response's
        // partition data is skipped until the truncation is done.
        if let Some(d) = resp.diverging_epoch {
            if self.rules.has(Rule::NoHighWatermarkFromDivergingResponse) {
                self.truncate_to_diverging_epoch(p, f, d);
                return;
            }
        }
        let broker = self.replica_mut(p, f);
        let count = resp.records.len() as u64;
        for r in resp.records.iter() {
            broker.log.append(r.clone());
        }
        let leo = broker.log_end_offset();
        if count > 0 {
            self.emit_in(p, Event::FollowerAppended { follower: f, leader, first_offset: resp.fetch_offset, count, log_end_offset: leo });
        }
        // ReplicaFetcherThread.processPartitionData: HW = min(leader HW, own LEO).
        let hw = resp.high_watermark.min(leo);
        let broker = self.replica_mut(p, f);
        if hw != broker.high_watermark {
            let from = std::mem::replace(&mut broker.high_watermark, hw);
            let cause = HighWatermarkCause::FetchResponse { leader_high_watermark: resp.high_watermark };
            self.emit_in(p, Event::HighWatermarkChanged { broker: f, from, to: hw, cause });
        }
        if let Some(d) = resp.diverging_epoch {
            self.truncate_to_diverging_epoch(p, f, d);
        }
    }

    /// A partition's answer was an error: it is left out of the fetches of
    /// the next `replica.fetch.backoff.ms` (`AbstractFetcherThread.delayPartitions`).
    fn back_off(&mut self, p: PartitionId, f: BrokerId) {
        let until = self.now_ms + self.config.replica_fetch_backoff_ms;
        self.replica_mut(p, f).fetch_backoff_until_ms = until;
    }

    pub(crate) fn truncate_to_diverging_epoch(&mut self, p: PartitionId, f: BrokerId, d: DivergingEpoch) {
        let (to, follower_end_offset, _) = self.epoch_truncation_offset(p, f, d.epoch, d.end_offset);
        self.truncate(p, f, to, Truncation::DivergingEpoch { epoch: d.epoch, end_offset: d.end_offset, follower_end_offset });
    }

    /// `AbstractFetcherThread.getOffsetTruncationState` (KIP-279): if the
    /// follower has the leader's epoch, truncate to the smaller of both ends
    /// of it; if not, to the end of its own largest epoch below it, and the
    /// next round asks again with that epoch (`complete` is false).
    /// Returns (offset, the follower's end offset for the epoch, complete).
    fn epoch_truncation_offset(&self, p: PartitionId, f: BrokerId, leader_epoch: u32, leader_end_offset: u64) -> (u64, u64, bool) {
        let b = self.replica(p, f);
        let leo = b.log_end_offset();
        match b.log.end_offset_for_epoch(leader_epoch) {
            Some((epoch, end)) if epoch == leader_epoch => (leader_end_offset.min(end).min(leo), end, true),
            Some((_, end)) => (end.min(leo), end, false),
            None => (leader_end_offset.min(leo), leo, true),
        }
    }

    /// OffsetsForLeaderEpoch answered (KIP-101), each partition on its own:
    /// truncate to min(answer, LEO); with no answer, fall back to the own
    /// HW. Since 2.0 the answer names the leader's epoch and the follower
    /// compares it with its own (KIP-279), asking again when it lacks that epoch.
    pub(crate) fn handle_offsets_for_leader_epoch_response(&mut self, resp: OffsetsForLeaderEpochResponse) {
        self.fetch_answered(resp.follower, resp.leader);
        for part in resp.partitions {
            self.handle_epoch_end_offset(resp.follower, resp.leader, part);
        }
    }

    fn handle_epoch_end_offset(&mut self, f: BrokerId, leader: BrokerId, resp: EpochEndOffset) {
        let p = resp.partition;
        if !self.answer_is_current(p, f, leader, resp.sent_in_epoch, "OffsetsForLeaderEpochResponse") {
            return;
        }
        if resp.error.is_some() {
            self.back_off(p, f);
            return;
        }
        let (to, truncation, complete) = match (resp.end_offset, resp.leader_epoch) {
            (Some(end_offset), Some(epoch)) => {
                let (to, follower_end_offset, complete) = self.epoch_truncation_offset(p, f, epoch, end_offset);
                (to, Truncation::EpochEndOffset { epoch, end_offset, follower_end_offset }, complete)
            }
            (Some(end_offset), None) => (end_offset, Truncation::LeaderEpoch { requested_epoch: resp.requested_epoch, end_offset }, true),
            (None, _) => {
                let hw = self.replica(p, f).high_watermark;
                (hw, Truncation::UndefinedEpochOffset { requested_epoch: resp.requested_epoch, high_watermark: hw }, true)
            }
        };
        self.replica_mut(p, f).needs_epoch_truncation = !complete;
        self.truncate(p, f, to, truncation);
    }

    /// Truncates a log (if `to` is below its end) and keeps HW <= LEO. A
    /// target at or past the log end leaves the records, and from the 2.8
    /// preset (Kafka 2.6.1 / 2.7.0, KAFKA-10706, `UnifiedLog.truncateTo`) still
    /// drops an epoch entry at the log end that holds no record: without
    /// that, a follower that led an epoch without writing in it keeps
    /// sending that epoch as its last fetched epoch and is answered the same
    /// DivergingEpoch for ever.
    pub(crate) fn truncate(&mut self, p: PartitionId, b: BrokerId, to: u64, truncation: Truncation) {
        let trim = self.rules.has(Rule::TruncateToLogEndTrimsEpochCache);
        let broker = self.replica_mut(p, b);
        let from = broker.log_end_offset();
        if to >= from {
            if let Some(entry) = trim.then(|| broker.log.trim_epochs_at_end()).flatten() {
                self.emit_in(p, Event::EpochCacheTrimmed { broker: b, epoch: entry.epoch, start_offset: entry.start_offset });
            }
            return;
        }
        broker.log.truncate_to(to);
        let hw_from = broker.high_watermark;
        broker.high_watermark = hw_from.min(to);
        self.emit_in(p, Event::Truncated { broker: b, from, to, truncation });
        if hw_from > to {
            self.emit_in(p, Event::HighWatermarkChanged { broker: b, from: hw_from, to, cause: HighWatermarkCause::Truncation });
        }
    }

    /// The follower `f` stops fetching partition `p` from `leader` (it
    /// follows another leader, leads, or the partition went offline): the
    /// partition leaves that fetcher thread (`removeFetcherForPartitions`),
    /// and an answer for it still to come is dropped as stale. A thread
    /// with no partition left is idle and is shut down, closing its
    /// connection (`AbstractFetcherManager.shutdownIdleFetcherThreads`,
    /// `ReplicaFetcherThread.initiateShutdown`): a fetch still out, its
    /// answer, or the fetch the leader holds, is gone. So a follower never
    /// has a second fetch out to a leader while the first is on the wire,
    /// and no stale answer can reset the state of the next request.
    pub(crate) fn remove_fetcher(&mut self, p: PartitionId, f: BrokerId, leader: BrokerId) {
        let others = self.fetched_from(f, leader).iter().any(|&q| q != p);
        if others {
            return;
        }
        self.broker_mut(f).fetcher_mut(leader).in_flight_since_ms = None;
        let between = |m: &Message| (m.from() == f && m.to() == leader) || (m.from() == leader && m.to() == f);
        let on_wire = self.network.in_flight.iter().any(|(_, m)| between(m));
        let held = self.broker(leader).delayed_fetches.iter().any(|d| d.request.follower == f);
        if !on_wire && !held {
            return;
        }
        let discarded = if on_wire { self.network.make_mut().close_connection(f, leader) as u64 } else { 0 };
        self.broker_mut(leader).delayed_fetches.retain(|d| d.request.follower != f);
        self.emit(Event::FetcherRemoved { follower: f, leader, discarded });
    }

    /// True while something of `f`'s fetch exchange with `leader` is still
    /// under way: a request or answer on the wire, or a fetch the leader holds.
    pub(crate) fn exchange_under_way(&self, f: BrokerId, leader: BrokerId) -> bool {
        self.network.in_flight.iter().any(|(_, m)| (m.from() == f && m.to() == leader) || (m.from() == leader && m.to() == f))
            || self.broker(leader).delayed_fetches.iter().any(|d| d.request.follower == f)
    }

    /// A `fetch` step: one whole round, request and response, atomically,
    /// of each of the broker's fetchers (reference §10); or of the one to
    /// `from`. From 0.11 to 2.1 the round after becoming a follower is an
    /// OffsetsForLeaderEpoch round.
    pub(crate) fn fetch_now(&mut self, f: BrokerId, from: Option<BrokerId>) -> Result<(), String> {
        let b = self.broker(f);
        if b.starting {
            return Err(format!("broker {f} is waiting to register: its old session is still valid"));
        }
        if !b.alive {
            return Err(format!("broker {f} is down"));
        }
        let sources = self.fetch_sources(f);
        if self.config.partitions == 1 {
            let r = self.replica(0, f);
            match r.leader {
                None => return Err(format!("broker {f} knows no leader to fetch from (the partition is offline)")),
                Some(l) if l == f => return Err(format!("broker {f} is the leader; only followers fetch")),
                Some(_) if r.stopped_for_shutdown => {
                    return Err(format!("broker {f} is shutting down and is no longer in the ISR: it stopped fetching"))
                }
                Some(_) => {}
            }
        }
        let leaders: BrokerList = match from {
            Some(l) if sources.contains(&l) => [l].into_iter().collect(),
            Some(l) => return Err(format!("broker {f} fetches no partition from broker {l}")),
            None if sources.is_empty() => return Err(format!("broker {f} follows no leader it fetches from: it leads, or its partitions are offline")),
            None => sources,
        };
        for &l in &leaders {
            // The round is atomic and apart from the timed fetcher's request, if
            // one is out: its answer still ends that request, not this one.
            let in_flight = self.broker(f).fetcher(l).in_flight_since_ms;
            let request = self.next_request(f, l, 0);
            self.emit_sent(&request, 0);
            if let Some(response) = self.deliver(request) {
                self.emit_sent(&response, 0);
                self.deliver(response);
            }
            if in_flight.is_some() && self.fetch_sources(f).contains(&l) {
                self.broker_mut(f).fetcher_mut(l).in_flight_since_ms = in_flight;
            }
        }
        Ok(())
    }

    /// A fetcher runs on its own (timed mode): its broker runs and is not
    /// paused, and it fetches some partition (`fetchers_of` names those).
    fn fetchers_run(&self, f: BrokerId) -> bool {
        self.config.auto_fetch && !self.broker(f).fetchers_paused
    }

    /// When a fetcher can next send: once its backoff and the partitions'
    /// are over (a fetcher whose every partition backs off waits for the first).
    fn fetcher_ready_ms(&self, f: BrokerId, leader: BrokerId, partitions_backoff_ms: u64) -> u64 {
        self.broker(f).fetcher(leader).next_fetch_ms.max(partitions_backoff_ms)
    }

    /// The next time a fetcher sends or gives up on its request.
    pub(crate) fn next_fetcher_due_ms(&self) -> Option<u64> {
        let mut due: Option<u64> = None;
        for f in self.config.broker_ids() {
            if !self.fetchers_run(f) {
                continue;
            }
            for (l, backoff) in self.fetchers_of(f) {
                let t = match self.broker(f).fetcher(l).in_flight_since_ms {
                    Some(sent) => sent + self.config.request_timeout_ms,
                    None => self.fetcher_ready_ms(f, l, backoff).max(self.now_ms),
                };
                due = Some(due.map_or(t, |d| d.min(t)));
            }
        }
        due
    }

    /// Timed mode: each fetcher keeps one request out at a time: the next
    /// goes as soon as an answer is handled (the leader long-polls),
    /// `replica.fetch.backoff.ms` after a failed partition, and it gives up
    /// on one unanswered for `request.timeout.ms` (`AbstractFetcherThread`).
    pub(crate) fn run_fetchers(&mut self) {
        let now = self.now_ms;
        for f in self.config.broker_ids() {
            if !self.fetchers_run(f) {
                continue;
            }
            for (l, backoff) in self.fetchers_of(f) {
                if let Some(sent) = self.broker(f).fetcher(l).in_flight_since_ms {
                    if sent + self.config.request_timeout_ms > now {
                        continue;
                    }
                    let backoff = self.config.replica_fetch_backoff_ms;
                    let fetcher = self.broker_mut(f).fetcher_mut(l);
                    fetcher.in_flight_since_ms = None;
                    fetcher.next_fetch_ms = now + backoff;
                    // `NetworkClient.handleTimedOutRequests` closes the connection:
                    // the request or its answer still on the wire is gone, and a
                    // fetch the leader holds will have no one to answer.
                    let discarded = self.network.make_mut().close_connection(f, l) as u64;
                    self.broker_mut(l).delayed_fetches.retain(|d| d.request.follower != f);
                    self.emit(Event::FetchTimedOut { follower: f, leader: l, discarded });
                }
                if self.fetcher_ready_ms(f, l, backoff) > now {
                    continue;
                }
                let request = self.next_request(f, l, self.config.replica_fetch_wait_max_ms);
                self.broker_mut(f).fetcher_mut(l).in_flight_since_ms = Some(now);
                self.send(request);
                self.end_action();
            }
        }
    }
}
