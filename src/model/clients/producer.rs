//! The producer client: one record per `produce` step, sent to the leader,
//! retried on retriable errors until `delivery.timeout.ms`, with or without
//! idempotence (`clients/.../producer/internals/Sender.java`,
//! `RecordAccumulator`; KIP-91, KIP-98, KIP-679). What an application sees is
//! the final result, after the retries.
//!
//! `acks` is a producer setting, so records with different acks come from
//! different clients: one queue per acks value. Each queue is the client's
//! deque for the partition (`RecordAccumulator`), sent from its front: a
//! record waits behind an earlier one that waits to be sent again, and
//! while `max.in.flight.requests.per.connection` requests are unanswered.

use crate::model::clients::accumulator::{Held, ProduceRequest, Retry, Status};
use crate::model::cluster::partitioner::partition_for_string_key;
use crate::model::config::{BrokerId, PartitionId};
use crate::model::event::{Event, Expiry, ProduceResult};
use crate::model::invariants::Touch;
use crate::model::protocol::Errors;
use crate::model::rules::Rule;
use crate::model::step::{Acks, Produce};
use crate::model::simulation::Simulation;

impl Simulation {
    /// A `produce` step: the application hands one record to the client,
    /// which sends it to the broker the step names or to the leader its
    /// metadata knows.
    pub(crate) fn produce(&mut self, p: &Produce) {
        let partition = match (p.partition, &p.key) {
            (Some(partition), _) => partition,
            // `BuiltInPartitioner.partitionForKey`: murmur2 of the key's bytes.
            (None, Some(key)) => partition_for_string_key(key, self.config.partitions),
            (None, None) if self.config.partitions == 1 => 0,
            (None, None) => self.producer.round_robin(self.config.partitions),
        };
        let id = self.producer.add(ProduceRequest {
            value: p.value.as_str().into(),
            acks: p.acks,
            partition,
            to: p.to,
            broker: None,
            offset: None,
            epoch: None,
            status: Status::Queued,
            step: self.step,
            deadline_ms: 0,
            attempts: 0,
            created_ms: self.now_ms,
            last_error: None,
            sent_in_epoch: None,
        });
        let ahead = self.producer.front(p.acks, partition);
        self.producer.enqueue(id);
        let retry_ahead = ahead.filter(|&a| matches!(self.producer.requests[a as usize].status, Status::Retrying { .. }));
        if ahead.is_some() || self.held(id).is_some() {
            let in_flight = self.producer.in_flight(p.acks, self.send_target(id));
            self.emit_traced_in(partition, Touch::Nothing, |s| {
                let value = s.producer.requests[id as usize].value.clone();
                Event::ProduceQueued { request: id, value, acks: p.acks, behind: retry_ahead, in_flight }
            });
        }
        self.send_produces();
    }

    /// Why `id`, at the front of its client's queue, is not sent now: its
    /// retry is not due (`RecordAccumulator.shouldBackoff`), or the
    /// connection has `max.in.flight.requests.per.connection` requests
    /// unanswered (`InFlightRequests.canSendMore`), or, with idempotence, it
    /// is a retry and a request of the partition is in flight: a retried
    /// batch goes only when it is the first in flight
    /// (`shouldStopDrainBatchesForPartition`).
    pub(crate) fn held(&self, id: u64) -> Option<Held> {
        let r = &self.producer.requests[id as usize];
        if let Status::Retrying { at_ms } = r.status {
            if at_ms > self.now_ms && !self.leader_changed_since_sent(r) {
                return Some(Held::Until(at_ms));
            }
        }
        let on_connection = self.producer.in_flight(r.acks, self.send_target(id));
        let retry_waits = self.config.enable_idempotence && r.attempts > 0 && self.producer.in_flight_for(r.acks, r.partition) > 0;
        (on_connection >= self.config.max_in_flight_requests_per_connection || retry_waits).then_some(Held::InFlight)
    }

    /// From 3.7 (KIP-951) a retry waits out its backoff only while the
    /// leader is the one it was sent to: once the client's metadata names a
    /// leader of a newer epoch it goes at once (`RecordAccumulator
    /// .shouldBackoff`: `!hasLeaderChanged && shouldWaitMore`;
    /// `ProducerBatch.maybeUpdateLeaderEpoch`).
    fn leader_changed_since_sent(&self, r: &ProduceRequest) -> bool {
        let registration = self.controller.partition(r.partition);
        self.rules.has(Rule::RetryAtOnceToNewLeader) && registration.leader.is_some() && r.sent_in_epoch.is_some_and(|e| e < registration.leader_epoch)
    }

    /// Where the client sends `id` next: a new record to the broker its step
    /// names or to the leader; a retry to the leader its refreshed metadata
    /// names (`Sender` after a metadata update).
    fn send_target(&self, id: u64) -> Option<BrokerId> {
        let r = &self.producer.requests[id as usize];
        let leader = self.controller.partition(r.partition).leader;
        match r.status {
            Status::Queued => r.to.or(leader),
            _ => leader,
        }
    }

    /// The clients send what their queues let go now, each from its front
    /// (`Sender` draining `RecordAccumulator`), the one due first first, to
    /// its `send_target`. A record whose time in the client ran out fails
    /// first (`Sender.sendProducerData` expires it).
    pub(crate) fn send_produces(&mut self) {
        while self.producer.holds_records() {
            let expiry_ms = self.client_expiry_ms();
            let ran_out = self.producer.fronts().find(|&id| self.now_ms >= self.producer.requests[id as usize].created_ms + expiry_ms);
            if let Some(id) = ran_out {
                self.producer.pop_front(id);
                self.expire_in_client(id);
                self.end_action();
                continue;
            }
            let due = |s: &Simulation, id: u64| match s.producer.requests[id as usize].status {
                Status::Retrying { at_ms } => (at_ms, id),
                _ => (s.producer.requests[id as usize].created_ms, id),
            };
            let next = self.producer.fronts().filter(|&id| self.held(id).is_none()).min_by_key(|&id| due(self, id));
            let Some(id) = next else { break };
            let r = &self.producer.requests[id as usize];
            let (retry, to) = (r.status != Status::Queued, self.send_target(id));
            self.producer.pop_front(id);
            if retry {
                self.accounting.work += 1;
            }
            self.send_produce(id, to);
            self.end_action();
        }
    }

    /// When a client next sends or expires a record on its own: a front's
    /// retry time, or the time in the client of a front waiting for a free
    /// in-flight request.
    pub(crate) fn next_send_ms(&self) -> Option<u64> {
        if !self.producer.holds_records() {
            return None;
        }
        self.producer
            .fronts()
            .map(|id| match self.held(id) {
                Some(Held::Until(at_ms)) => at_ms,
                Some(Held::InFlight) => self.producer.requests[id as usize].created_ms + self.client_expiry_ms(),
                None => self.now_ms,
            })
            .min()
    }

    /// A record's time in the client ran out before it could be sent (again).
    fn expire_in_client(&mut self, id: u64) {
        let timeout = if self.rules.has(Rule::DeliveryTimeout) { "delivery.timeout.ms" } else { "request.timeout.ms" };
        let last_error = self.producer.requests[id as usize].last_error;
        self.finish_produce(id, ProduceResult::Error(Errors::RequestTimedOut), Some(Expiry { timeout, last_error, in_flight: false }));
    }

    /// One attempt. A leader that is unknown or down is not reached: the
    /// record waits in the client and is tried again after
    /// `retry.backoff.ms`, without counting an attempt. An attempt that
    /// fails in the same way as the one before is not traced again (its
    /// count is in the state).
    fn send_produce(&mut self, id: u64, to: Option<BrokerId>) {
        let (acks, p) = (self.producer.requests[id as usize].acks, self.producer.requests[id as usize].partition);
        let unreachable = self.unreachable(to);
        let refusal = self.attempt_refusal(p, to, acks);
        let leader_epoch = self.controller.partition(p).leader_epoch;
        let r = &mut self.producer.requests[id as usize];
        if unreachable.is_none() {
            r.attempts += 1;
        }
        r.sent_in_epoch = Some(leader_epoch);
        let (attempt, repeat) = (r.attempts, r.last_error.is_some() && r.last_error == refusal);
        if !repeat {
            self.emit_traced_in(p, Touch::Nothing, |s| Event::ProduceRequest { request: id, to, value: s.producer.requests[id as usize].value.clone(), acks, attempt });
        }
        match refusal {
            Some(error) => {
                let counted = unreachable.is_none();
                let retry = if repeat { Retry::SkipIdentical { counted } } else { Retry::Refused { counted } };
                self.produce_failed(id, error, retry);
            }
            None => self.append_produced(id, p, to.expect("reachable")),
        }
    }

    /// Why the client cannot reach `to`: no leader known (the metadata's
    /// LEADER_NOT_AVAILABLE: nothing is sent, and the record fails only when
    /// its time in the client runs out, a TimeoutException in Kafka), or the
    /// broker is down.
    fn unreachable(&self, to: Option<BrokerId>) -> Option<Errors> {
        match to.map(|b| self.broker(b)) {
            None => Some(Errors::LeaderNotAvailable),
            Some(b) if !b.alive => Some(Errors::NetworkException),
            Some(_) => None,
        }
    }

    /// How an attempt sent to `to` now would fail, if it would.
    fn attempt_refusal(&self, p: PartitionId, to: Option<BrokerId>, acks: Acks) -> Option<Errors> {
        self.unreachable(to).or_else(|| self.produce_refusal(p, to.expect("reachable"), acks))
    }

    /// A refused attempt changes nothing in the cluster, so until something
    /// else happens (any other due work, a retry that would succeed, or the
    /// end of the current `advance_ms`) every retry of this request would be
    /// refused the same way. Those retries are counted, not run one by one:
    /// the request's next retry, due at `at_ms`, moves to the first retry
    /// time at or after that moment (or its last one before
    /// `delivery.timeout.ms`); this returns that time. The outcome is the
    /// same as retrying every `retry.backoff.ms`; the work is not.
    fn skip_identical_retries(&mut self, id: u64, at_ms: u64, error: Errors, counted: bool) -> u64 {
        #[cfg(test)]
        if tests::ONE_BY_ONE.get() {
            return at_ms;
        }
        let backoff = self.config.retry_backoff_ms;
        let others = self
            .producer
            .fronts()
            .filter(|&other| {
                let r = &self.producer.requests[other as usize];
                self.attempt_refusal(r.partition, self.controller.partition(r.partition).leader, r.acks).is_none()
            })
            .filter_map(|other| match self.producer.requests[other as usize].status {
                Status::Retrying { at_ms } if other != id => Some(at_ms),
                _ => None,
            })
            .min();
        let due = self.next_change_ms().min(self.advance_until_ms);
        let horizon = others.map_or(due, |t| t.min(due));
        if horizon <= at_ms {
            return at_ms;
        }
        let r = &self.producer.requests[id as usize];
        let deadline = r.created_ms + self.client_expiry_ms();
        // No leader known: each wait is `retry.backoff.ms`, as in `produce_failed`.
        if error != Errors::LeaderNotAvailable && self.rules.has(Rule::ExponentialRetryBackoff) && self.config.retry_backoff_max_ms > backoff {
            return self.skip_identical_retries_exponential(id, at_ms, counted, horizon, deadline);
        }
        // Retry times are at_ms + k * backoff; the last one allowed is before the deadline.
        let mut k = (horizon - at_ms).div_ceil(backoff);
        if deadline > at_ms {
            k = k.min((deadline - 1 - at_ms) / backoff);
        }
        if counted {
            k = k.min(self.config.retries.saturating_sub(r.attempts) as u64);
            self.producer.requests[id as usize].attempts += k as u32;
        }
        at_ms + k * backoff
    }

    /// The wait before the client sends `id` again after its `failed`-th
    /// failed attempt: `retry.backoff.ms`; from 3.7 (KIP-580)
    /// `ExponentialBackoff.backoff(failed - 1)` as `RecordAccumulator
    /// .shouldBackoff` asks it: `retry.backoff.ms` doubled per earlier
    /// failure up to `retry.backoff.max.ms`, times a jitter in [0.8, 1.2),
    /// and at most `retry.backoff.max.ms` (`RecordAccumulatorTest
    /// .testExponentialRetryBackoff`). Kafka draws the jitter at random; here
    /// it comes from the scenario's seed, the request and the failure count,
    /// so the same run retries at the same times everywhere. At least 1 ms.
    pub fn retry_backoff_ms(&self, id: u64, failed: u32) -> u64 {
        let (initial, max) = (self.config.retry_backoff_ms, self.config.retry_backoff_max_ms);
        // `ExponentialBackoff`: no growth (and no jitter) unless the maximum is above the start.
        if !self.rules.has(Rule::ExponentialRetryBackoff) || max <= initial {
            return initial;
        }
        jittered_backoff_ms(self.config.seed, initial, max, id, failed)
    }

    /// `skip_identical_retries` under KIP-580: each retry's wait depends on
    /// the failures before it (and its jitter), so the retries are walked one
    /// by one, as cheaply as arithmetic: the times and counts are those the
    /// retries one by one would give. Each is a unit of work for the budgets.
    fn skip_identical_retries_exponential(&mut self, id: u64, at_ms: u64, counted: bool, horizon: u64, deadline: u64) -> u64 {
        let (retries, seed, initial, max) = (self.config.retries, self.config.seed, self.config.retry_backoff_ms, self.config.retry_backoff_max_ms);
        let (mut t, mut attempts) = (at_ms, self.producer.requests[id as usize].attempts);
        let mut walked = 0;
        if !counted {
            // Refusals that do not count leave the failures as they are:
            // every wait is the same, and the walk is a division.
            let wait = jittered_backoff_ms(seed, initial, max, id, attempts);
            walked = (horizon - at_ms).div_ceil(wait);
            if deadline > at_ms {
                walked = walked.min((deadline - 1 - at_ms) / wait);
            }
            t += walked * wait;
        }
        while counted && t < horizon {
            // The retry at `t` is refused like the one before; the next one
            // waits by the failures so far, this one counted.
            if attempts >= retries {
                break;
            }
            let failed = attempts.saturating_add(1);
            let next = t + jittered_backoff_ms(seed, initial, max, id, failed);
            if deadline > at_ms && next >= deadline {
                break;
            }
            (t, attempts) = (next, failed);
            walked += 1;
        }
        self.accounting.work += walked;
        self.producer.requests[id as usize].attempts = attempts;
        t
    }

    /// A retriable error reached the client: retry after `retry.backoff.ms`
    /// while `retries` and `delivery.timeout.ms` allow (since 2.1, KIP-91);
    /// otherwise the application gets the error (REQUEST_TIMED_OUT once the
    /// delivery timeout has run out). acks=0 hears nothing and never retries
    /// an answer; a record it could not send waits and expires.
    pub(crate) fn produce_failed(&mut self, id: u64, error: Errors, retry: Retry) {
        let r = &self.producer.requests[id as usize];
        // No leader: nothing was sent; the client looks at its metadata again.
        // From 3.7 a retry to a leader newer than the one the record was sent
        // to goes at once (KIP-951: `RecordAccumulator.shouldBackoff` is
        // false when `hasLeaderChanged`; `RecordAccumulatorTest
        // .testReadyAndDrainWhenABatchIsBeingRetried`).
        let backoff_ms = match error {
            Errors::LeaderNotAvailable => self.config.retry_backoff_ms,
            _ if self.leader_changed_since_sent(r) => 0,
            _ => self.retry_backoff_ms(id, r.attempts),
        };
        let next_ms = self.now_ms + backoff_ms;
        // acks=0 hears no answer, so it never retries one; but a record it
        // could not send (no leader, or the leader is down) waits in the
        // client like any other and expires there (`RecordAccumulator
        // .expiredBatches` has no acks check).
        let unsent = matches!(error, Errors::LeaderNotAvailable | Errors::NetworkException);
        let retries_left = r.attempts <= self.config.retries && (r.acks != Acks::Zero || unsent);
        // Before 2.1 (KIP-91) a record waiting in the client expired after
        // `request.timeout.ms` (`RecordAccumulator.expiredBatches`).
        let in_time = next_ms < r.created_ms + self.client_expiry_ms();
        let (acks, attempts, idempotent, r_partition) = (r.acks, r.attempts, self.config.enable_idempotence, r.partition);
        if retries_left && in_time {
            let (traced, at_ms) = match retry {
                Retry::Next => (true, next_ms),
                Retry::Refused { counted } => (true, self.skip_identical_retries(id, next_ms, error, counted)),
                Retry::SkipIdentical { counted } => (false, self.skip_identical_retries(id, next_ms, error, counted)),
            };
            self.producer.retry_at(id, at_ms, error, idempotent);
            // No leader: no request went out, so no answer is traced.
            if traced && error != Errors::LeaderNotAvailable {
                let (retry_in_ms, result) = (Some(backoff_ms), ProduceResult::Error(error));
                self.emit_traced_in(r_partition, Touch::Nothing, |s| {
                    let value = s.producer.requests[id as usize].value.clone();
                    Event::ProduceResponse { request: id, value, acks, offset: None, result, attempts, retry_in_ms, expired: None }
                });
            }
            return;
        }
        let timeout = if self.rules.has(Rule::DeliveryTimeout) { "delivery.timeout.ms" } else { "request.timeout.ms" };
        let expired = (retries_left && !in_time).then_some(Expiry { timeout, last_error: Some(error), in_flight: false });
        let result = ProduceResult::Error(if expired.is_some() { Errors::RequestTimedOut } else { error });
        self.producer.requests[id as usize].last_error = Some(error);
        self.finish_produce(id, result, expired);
    }

    /// How long the client keeps a record: `delivery.timeout.ms` from 2.1
    /// (KIP-91), `request.timeout.ms` before.
    pub(crate) fn client_expiry_ms(&self) -> u64 {
        if self.rules.has(Rule::DeliveryTimeout) {
            self.config.delivery_timeout_ms
        } else {
            self.config.request_timeout_ms
        }
    }

    /// The pending acks=all requests at broker `b`, of partition `p` (it
    /// lost leadership of it) or of any (None: its connection broke), fail.
    pub(crate) fn fail_pending_produces(&mut self, b: BrokerId, p: Option<PartitionId>, error: Errors) {
        for id in self.producer.take_all_pending(b, p) {
            self.produce_failed(id, error, Retry::Next);
        }
    }

    /// Waiting acks=all attempts whose `request.timeout.ms` ran out, or
    /// whose record's `delivery.timeout.ms` did while the request was in
    /// flight.
    pub(crate) fn expire_produces(&mut self) {
        for id in self.producer.take_expired(self.now_ms) {
            if self.now_ms >= self.delivery_deadline_ms(id) {
                self.expire_in_flight(id);
            } else {
                self.produce_failed(id, Errors::RequestTimedOut, Retry::Next);
            }
            self.end_action();
        }
    }

    /// When the client gives up on a record in flight: its
    /// `delivery.timeout.ms` from 2.1 (KIP-91); before, only a request's own
    /// `request.timeout.ms` ended it (`u64::MAX` here).
    pub(crate) fn delivery_deadline_ms(&self, id: u64) -> u64 {
        if self.rules.has(Rule::DeliveryTimeout) {
            self.producer.requests[id as usize].created_ms.saturating_add(self.config.delivery_timeout_ms)
        } else {
            u64::MAX
        }
    }

    /// `Sender.getExpiredInflightBatches` (2.1, KIP-91): a batch whose
    /// delivery timeout passes while its request is in flight fails with a
    /// TimeoutException (`ProducerBatch.hasReachedDeliveryTimeout`); the
    /// request's answer, if one comes, no longer completes it
    /// (`ProducerBatch.done` on a batch already completed). The record may
    /// still be in the log and be committed: the application was told it
    /// failed. (`SenderTest.testInflightBatchesExpireOnDeliveryTimeout`.)
    fn expire_in_flight(&mut self, id: u64) {
        let last_error = self.producer.requests[id as usize].last_error;
        self.finish_produce(id, ProduceResult::Error(Errors::RequestTimedOut), Some(Expiry { timeout: "delivery.timeout.ms", last_error, in_flight: true }));
    }

    pub(crate) fn finish_produce(&mut self, id: u64, result: ProduceResult, expired: Option<Expiry>) {
        let r = self.producer.finish(id, result);
        let (value, acks, offset, attempts, p) = (r.value.clone(), r.acks, r.offset, r.attempts, r.partition);
        let offset = if result == ProduceResult::Acked || result == ProduceResult::Sent { offset } else { None };
        self.emit_in(p, Event::ProduceResponse { request: id, value, acks, offset, result, attempts, retry_in_ms: None, expired });
    }
}

/// KIP-580's wait before a retry after `failed` failures, growing from
/// `initial` to `max` with a jitter of -20 % to +20 % drawn from the seed,
/// the request and the failure count (`Producer::retry_backoff_ms`).
#[inline]
fn jittered_backoff_ms(seed: u64, initial: u64, max: u64, id: u64, failed: u32) -> u64 {
    let doublings = failed.saturating_sub(1);
    let term = 1u64.checked_shl(doublings).and_then(|f| initial.checked_mul(f)).map_or(max, |t| t.min(max));
    let draw = crate::base::rng::Rng::new(seed ^ (id + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (failed as u64) << 48).below(400);
    // Kafka truncates to whole milliseconds, so a 1 ms backoff can come
    // out 0; the model waits at least 1 ms, so that a retry is a moment
    // of its own.
    // (`term` is at most `limits::MAX_DURATION_MS`: the product fits in 64 bits.)
    (term * (800 + draw) / 1000).clamp(1, max)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    thread_local! {
        /// Every refused retry is run, one by one, instead of skipped
        /// (`skip_identical_retries`): the tests compare the two.
        pub(crate) static ONE_BY_ONE: Cell<bool> = const { Cell::new(false) };
    }
}
