//! The follower's fetcher: what it asks the leader, what it does with the
//! answers, and how it truncates a log that diverged
//! (`server/AbstractFetcherThread.scala`, `server/ReplicaFetcherThread.scala`).

use crate::model::config::{BrokerId, PartitionId};
use crate::model::event::{Event, HighWatermarkCause, Truncation};
use crate::model::protocol::{DivergingEpoch, Errors, Fetch, FetchResponse, Message, OffsetsForLeaderEpoch, OffsetsForLeaderEpochResponse};
use crate::model::rules::{Rule, TruncationRule};
use crate::model::simulation::Simulation;

impl Simulation {
    /// The follower's next request: after becoming a follower, an
    /// OffsetsForLeaderEpoch round first (0.11 to 2.1, KIP-101); a Fetch
    /// otherwise. Since 2.1 requests carry the current leader epoch
    /// (KIP-320); since 2.8 a fetch carries the last fetched epoch (Fetch v12, with
    /// inter.broker.protocol >= 2.7).
    pub(crate) fn next_request(&mut self, f: BrokerId, max_wait_ms: u64) -> Message {
        let rules = self.rules;
        let fencing = rules.has(Rule::LeaderEpochFencing);
        let b = self.replica_mut(0, f);
        let leader = b.leader.expect("a follower has a leader");
        if rules.truncation() == TruncationRule::OffsetsForLeaderEpoch && b.needs_epoch_truncation {
            match b.log.last_epoch() {
                Some(leader_epoch) => {
                    return Message::OffsetsForLeaderEpoch(OffsetsForLeaderEpoch {
                        follower: f,
                        leader,
                        leader_epoch,
                        current_leader_epoch: fencing.then_some(b.leader_epoch),
                        sent_in_epoch: b.leader_epoch,
                    })
                }
                None => b.needs_epoch_truncation = false, // an empty log has nothing to truncate
            }
        }
        let in_fetch = rules.truncation() == TruncationRule::DivergingEpochInFetch;
        Message::Fetch(Fetch {
            follower: f,
            leader,
            fetch_offset: b.log_end_offset(),
            current_leader_epoch: fencing.then_some(b.leader_epoch),
            last_fetched_epoch: if in_fetch { b.log.last_epoch() } else { None },
            max_wait_ms,
            sent_in_epoch: b.leader_epoch,
        })
    }

    /// True if a response still matches the follower's state; otherwise the
    /// follower drops it (`AbstractFetcherThread` checks the fetch state).
    pub(crate) fn response_is_current(&mut self, follower: BrokerId, leader: BrokerId, epoch: u32, kind: &'static str) -> bool {
        let now = self.now_ms;
        let b = self.broker_mut(follower);
        b.fetcher.in_flight_since_ms = None;
        b.fetcher.next_fetch_ms = now;
        let r = self.replica(0, follower);
        if r.leader == Some(leader) && r.leader_epoch == epoch {
            true
        } else {
            self.emit(Event::ResponseIgnored { follower, kind, reason: "the follower has moved to another leader or epoch since" });
            false
        }
    }

    /// `AbstractFetcherThread.processFetchRequest` on the follower.
    pub(crate) fn handle_fetch_response(&mut self, resp: FetchResponse) {
        let (p, f) = (0, resp.follower);
        if !self.response_is_current(f, resp.leader, resp.sent_in_epoch, "FetchResponse") {
            return;
        }
        if self.replica(p, f).log_end_offset() != resp.fetch_offset {
            self.emit(Event::ResponseIgnored { follower: f, kind: "FetchResponse", reason: "its log end moved since the request" });
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
                // Fenced or not the leader: back off and wait for the controller's news.
                let backoff = self.config.replica_fetch_backoff_ms;
                self.broker_mut(f).fetcher.next_fetch_ms = self.now_ms + backoff;
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
            self.emit(Event::FollowerAppended { follower: f, leader: resp.leader, first_offset: resp.fetch_offset, count, log_end_offset: leo });
        }
        // ReplicaFetcherThread.processPartitionData: HW = min(leader HW, own LEO).
        let hw = resp.high_watermark.min(leo);
        let broker = self.replica_mut(p, f);
        if hw != broker.high_watermark {
            let from = std::mem::replace(&mut broker.high_watermark, hw);
            let cause = HighWatermarkCause::FetchResponse { leader_high_watermark: resp.high_watermark };
            self.emit(Event::HighWatermarkChanged { broker: f, from, to: hw, cause });
        }
        if let Some(d) = resp.diverging_epoch {
            self.truncate_to_diverging_epoch(p, f, d);
        }
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

    /// OffsetsForLeaderEpoch answered (KIP-101): truncate to min(answer,
    /// LEO); with no answer, fall back to the own HW. Since 2.0 the answer
    /// names the leader's epoch and the follower compares it with its own
    /// (KIP-279), asking again when it lacks that epoch.
    pub(crate) fn handle_offsets_for_leader_epoch_response(&mut self, resp: OffsetsForLeaderEpochResponse) {
        let (p, f) = (0, resp.follower);
        if !self.response_is_current(f, resp.leader, resp.sent_in_epoch, "OffsetsForLeaderEpochResponse") {
            return;
        }
        if resp.error.is_some() {
            let backoff = self.config.replica_fetch_backoff_ms;
            self.broker_mut(f).fetcher.next_fetch_ms = self.now_ms + backoff;
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
                self.emit(Event::EpochCacheTrimmed { broker: b, epoch: entry.epoch, start_offset: entry.start_offset });
            }
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

    /// The follower `f` stops fetching from `leader` (it follows another
    /// leader, leads, or the partition went offline). Kafka's fetcher thread
    /// for that leader is then idle and is shut down, closing its connection
    /// (`AbstractFetcherManager.shutdownIdleFetcherThreads`,
    /// `ReplicaFetcherThread.initiateShutdown`): a fetch still out, its
    /// answer, or the fetch the leader holds, is gone. So a follower never
    /// has a second fetch out while the first is on the wire, and no stale
    /// answer can reset the state of the next request.
    pub(crate) fn remove_fetcher(&mut self, f: BrokerId, leader: BrokerId) {
        self.broker_mut(f).fetcher.in_flight_since_ms = None;
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

    /// A `fetch` step: one whole round, request and response, atomically
    /// (reference §10). From 0.11 to 2.1 the round after becoming a follower
    /// is an OffsetsForLeaderEpoch round.
    pub(crate) fn fetch_now(&mut self, f: BrokerId) -> Result<(), String> {
        let b = self.broker(f);
        if b.starting {
            return Err(format!("broker {f} is waiting to register: its old session is still valid"));
        }
        if !b.alive {
            return Err(format!("broker {f} is down"));
        }
        let r = self.replica(0, f);
        match r.leader {
            None => return Err(format!("broker {f} knows no leader to fetch from (the partition is offline)")),
            Some(l) if l == f => return Err(format!("broker {f} is the leader; only followers fetch")),
            Some(_) if r.stopped_for_shutdown => {
                return Err(format!("broker {f} is shutting down and is no longer in the ISR: it stopped fetching"))
            }
            Some(_) => {}
        }
        // The round is atomic and apart from the timed fetcher's request, if
        // one is out: its answer still ends that request, not this one.
        let in_flight = self.broker(f).fetcher.in_flight_since_ms;
        let request = self.next_request(f, 0);
        self.emit(Event::sent(&request, 0));
        if let Some(response) = self.deliver(request) {
            self.emit(Event::sent(&response, 0));
            self.deliver(response);
        }
        if in_flight.is_some() && self.following(0, f).is_some() {
            self.broker_mut(f).fetcher.in_flight_since_ms = in_flight;
        }
        Ok(())
    }

    /// Timed mode: each follower's fetcher keeps one request out at a time:
    /// the next goes as soon as an answer is handled (the leader long-polls),
    /// `replica.fetch.backoff.ms` after a failed one, and it gives up on one
    /// unanswered for `request.timeout.ms` (`AbstractFetcherThread`).
    pub(crate) fn run_fetchers(&mut self) {
        let now = self.now_ms;
        for i in 0..self.brokers.len() {
            let b = &self.brokers[i];
            if !self.fetcher_active(b) {
                continue;
            }
            let (f, leader) = (b.id, self.following(0, b.id).expect("active fetcher"));
            if let Some(sent) = b.fetcher.in_flight_since_ms {
                if sent + self.config.request_timeout_ms > now {
                    continue;
                }
                let fetcher = &mut self.brokers[i].fetcher;
                fetcher.in_flight_since_ms = None;
                fetcher.next_fetch_ms = now + self.config.replica_fetch_backoff_ms;
                // `NetworkClient.handleTimedOutRequests` closes the connection:
                // the request or its answer still on the wire is gone, and a
                // fetch the leader holds will have no one to answer.
                let discarded = self.network.make_mut().close_connection(f, leader) as u64;
                self.broker_mut(leader).delayed_fetches.retain(|d| d.request.follower != f);
                self.emit(Event::FetchTimedOut { follower: f, leader, discarded });
            }
            if self.brokers[i].fetcher.next_fetch_ms > now {
                continue;
            }
            let request = self.next_request(f, self.config.replica_fetch_wait_max_ms);
            self.brokers[i].fetcher.in_flight_since_ms = Some(now);
            self.send(request);
            self.end_action();
        }
    }
}
