//! The producer's records as its clients hold them: each record's request
//! and status, one queue per client (acks value) and partition
//! (`RecordAccumulator`'s deques), and what is in flight to which broker
//! (`NetworkClient`'s `InFlightRequests`). Sending, retrying and expiring
//! them is `producer`.

use crate::model::config::{BrokerId, PartitionId};
use crate::model::event::ProduceResult;
use crate::model::protocol::Errors;
use crate::model::step::Acks;
use serde::Serialize;
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Handed to the client and not sent yet: it waits behind an earlier
    /// record of its client, or for a free in-flight request.
    Queued,
    /// acks=all, appended, waiting at the broker for the HW to pass it.
    Pending,
    /// Failed with a retriable error (or found no reachable leader); the
    /// client tries again at `at_ms` (`retry.backoff.ms`).
    Retrying { at_ms: u64 },
    Done(ProduceResult),
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ProduceRequest {
    pub value: Arc<str>,
    pub acks: Acks,
    /// The partition the client chose for it (`partition`, its key's hash,
    /// or round-robin).
    pub partition: PartitionId,
    /// The broker the first attempt was sent to, if the step named one.
    pub to: Option<BrokerId>,
    /// The broker that handled the latest attempt.
    pub broker: Option<BrokerId>,
    /// Where it was appended, if it was (the latest copy).
    pub offset: Option<u64>,
    pub epoch: Option<u32>,
    pub status: Status,
    pub step: u64,
    /// `request.timeout.ms` of the attempt waiting at a broker.
    pub deadline_ms: u64,
    /// Attempts that reached a broker.
    pub attempts: u32,
    /// When the record was handed to the client (`delivery.timeout.ms` counts from here).
    pub created_ms: u64,
    pub last_error: Option<Errors>,
    /// The leader epoch the client's metadata named when it last sent the
    /// record (`ProducerBatch.currentLeaderEpoch`): from 3.7 a retry to a
    /// newer leader does not wait out its backoff (KIP-951).
    pub sent_in_epoch: Option<u32>,
}

impl Clone for ProduceRequest {
    fn clone(&self) -> Self {
        ProduceRequest { value: self.value.clone(), ..*self }
    }
    fn clone_from(&mut self, source: &Self) {
        let ProduceRequest { value, acks, partition, to, broker, offset, epoch, status, step, deadline_ms, attempts, created_ms, last_error, sent_in_epoch } = self;
        crate::base::shared::share_from(value, &source.value);
        (*acks, *partition, *to, *broker, *offset, *epoch, *status) = (source.acks, source.partition, source.to, source.broker, source.offset, source.epoch, source.status);
        (*step, *deadline_ms, *attempts, *created_ms, *last_error) = (source.step, source.deadline_ms, source.attempts, source.created_ms, source.last_error);
        *sent_in_epoch = source.sent_in_epoch;
    }
}

/// Request ids in order: the producer's queues and what a step takes from
/// them, usually a few (inline up to four: no allocation, and a copy of the
/// state copies them as memory).
pub type RequestIds = SmallVec<[u64; 4]>;

/// How a refused attempt is retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Retry {
    /// After `retry.backoff.ms`, traced.
    Next,
    /// Refused by the cluster as it is now (`attempt_refusal`): traced, and
    /// the retries after it, refused the same way until something changes,
    /// are skipped as for `SkipIdentical`.
    Refused { counted: bool },
    /// It was refused as the attempt before it: not traced, and the retries
    /// that would be refused the same way are skipped
    /// (`skip_identical_retries`). `counted`: the attempts reached a broker.
    SkipIdentical { counted: bool },
}

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Producer {
    pub requests: Vec<ProduceRequest>,
    /// Pending acks=all requests in send order (per broker, offset order).
    pending: RequestIds,
    /// Every pending request in deadline order (one timeout for all, so send
    /// order); the ones no longer pending leave from the front.
    deadlines: RequestIds,
    /// Per client (`Acks::index`) and partition (`queue_index`): the records
    /// handed to it and not in flight, `Queued` or `Retrying`, in the order
    /// it sends them (`RecordAccumulator`'s deque per partition).
    queues: Vec<VecDeque<u64>>,
    /// The partition the next record without a partition or a key goes to.
    next_partition: PartitionId,
}

/// The queue of a client's records for a partition.
fn queue_index(acks: Acks, partition: PartitionId) -> usize {
    partition as usize * 3 + acks.index()
}

impl Clone for Producer {
    fn clone(&self) -> Self {
        let Producer { requests, pending, deadlines, queues, next_partition } = self;
        Producer { requests: requests.clone(), pending: pending.clone(), deadlines: deadlines.clone(), queues: queues.clone(), next_partition: *next_partition }
    }

    fn clone_from(&mut self, source: &Self) {
        self.requests.clone_from(&source.requests);
        crate::CopyShort::copy_short(&mut self.pending, &source.pending);
        crate::CopyShort::copy_short(&mut self.deadlines, &source.deadlines);
        // Usually both empty: then nothing to copy, and no comparison (an
        // empty queue's slices point nowhere, and comparing them with the
        // C library's masked loads costs a microcode assist each time).
        self.queues.resize_with(source.queues.len(), VecDeque::new);
        for (queue, source) in self.queues.iter_mut().zip(&source.queues) {
            if !(queue.is_empty() && source.is_empty()) {
                queue.clone_from(source);
            }
        }
        self.next_partition = source.next_partition;
    }
}

/// Why a client's front record is not sent now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// Its retry is due at this time (`retry.backoff.ms`).
    Until(u64),
    /// `max.in.flight.requests.per.connection` requests are unanswered, or
    /// (idempotence) a retry waits for every request in flight.
    InFlight,
}

impl Producer {
    pub fn new() -> Producer {
        Producer::default()
    }

    pub fn add(&mut self, request: ProduceRequest) -> u64 {
        let id = self.requests.len() as u64;
        self.requests.push(request);
        id
    }

    /// The attempt now waits at `broker` for the HW (acks=all), until
    /// `deadline_ms`: its `request.timeout.ms`, or the record's
    /// `delivery.timeout.ms` if that comes first. The deadline queue stays
    /// in deadline order (a retry's delivery timeout may come before the
    /// request timeout of an attempt sent earlier), one entry per request.
    pub fn wait_at(&mut self, id: u64, broker: BrokerId, offset: u64, epoch: Option<u32>, deadline_ms: u64) {
        let r = &mut self.requests[id as usize];
        r.broker = Some(broker);
        r.offset = Some(offset);
        r.epoch = epoch.or(r.epoch);
        r.status = Status::Pending;
        r.deadline_ms = deadline_ms;
        self.pending.push(id);
        self.deadlines.retain(|other| *other != id);
        let requests = &self.requests;
        let at = self.deadlines.partition_point(|&other| requests[other as usize].deadline_ms <= deadline_ms);
        self.deadlines.insert(at, id);
    }

    /// The record goes back into its client's queue, to be sent again at
    /// `at_ms`: at the front (`RecordAccumulator.reenqueue`: `addFirst`), or
    /// with idempotence in sequence order (`insertInSequenceOrder`; sequence
    /// numbers follow send order, which is id order then).
    pub fn retry_at(&mut self, id: u64, at_ms: u64, error: Errors, idempotent: bool) {
        let r = &mut self.requests[id as usize];
        r.status = Status::Retrying { at_ms };
        r.last_error = Some(error);
        let queue = &mut self.queues[queue_index(r.acks, r.partition)];
        if idempotent {
            let at = queue.partition_point(|&other| other < id);
            queue.insert(at, id);
        } else {
            queue.push_front(id);
        }
    }

    /// A new record at the back of its client's queue.
    pub fn enqueue(&mut self, id: u64) {
        let r = &self.requests[id as usize];
        let at = queue_index(r.acks, r.partition);
        if self.queues.len() <= at {
            self.queues.resize_with(at + 1, VecDeque::new);
        }
        self.queues[at].push_back(id);
    }

    /// The partition for a record without a partition or a key: the
    /// partitions in turn (Kafka's keyless default is sticky instead,
    /// KIP-480 and KIP-794: docs/model.md).
    pub fn round_robin(&mut self, partitions: u32) -> PartitionId {
        let p = self.next_partition % partitions;
        self.next_partition = (p + 1) % partitions;
        p
    }

    /// The first record of this client's queue.
    /// Whether a client holds a record (queued, or waiting to retry).
    pub fn holds_records(&self) -> bool {
        self.queues.iter().any(|q| !q.is_empty())
    }

    pub fn front(&self, acks: Acks, partition: PartitionId) -> Option<u64> {
        self.queues.get(queue_index(acks, partition)).and_then(|q| q.front().copied())
    }

    /// The front record of every client's queue for every partition.
    pub fn fronts(&self) -> impl Iterator<Item = u64> + '_ {
        self.queues.iter().filter_map(|q| q.front().copied())
    }

    /// Takes `id`, the front record of its queue, to send it.
    pub fn pop_front(&mut self, id: u64) {
        let r = &self.requests[id as usize];
        let popped = self.queues[queue_index(r.acks, r.partition)].pop_front();
        debug_assert_eq!(popped, Some(id));
    }

    /// Requests of this client sent and not answered, on its connection to
    /// `broker` or (None) on any: acks=all attempts waiting at a broker
    /// (acks=0 and 1 are answered at once).
    pub fn in_flight(&self, acks: Acks, broker: Option<BrokerId>) -> u32 {
        self.in_flight_where(acks, |r| broker.is_none_or(|b| r.broker == Some(b)))
    }

    /// Requests of this client for `partition` sent and not answered.
    pub fn in_flight_for(&self, acks: Acks, partition: PartitionId) -> u32 {
        self.in_flight_where(acks, |r| r.partition == partition)
    }

    fn in_flight_where(&self, acks: Acks, matches: impl Fn(&ProduceRequest) -> bool) -> u32 {
        if acks != Acks::All {
            return 0;
        }
        let waiting = |r: &ProduceRequest| r.status == Status::Pending && matches(r);
        self.pending.iter().filter(|&&id| waiting(&self.requests[id as usize])).count() as u32
    }

    /// Records waiting in the clients' queues.
    pub fn queued(&self) -> impl Iterator<Item = u64> + '_ {
        self.queues.iter().flatten().copied()
    }

    /// The records queued for partition `p`, client by client (acks order):
    /// `queued` is these, partition after partition.
    pub fn queued_for(&self, p: PartitionId) -> impl Iterator<Item = u64> + '_ {
        let start = queue_index(Acks::Zero, p).min(self.queues.len());
        let end = (queue_index(Acks::All, p) + 1).min(self.queues.len());
        self.queues[start..end].iter().flatten().copied()
    }

    /// Pending requests for `partition` on `broker` whose offset is below `high_watermark`.
    pub fn take_reached(&mut self, partition: PartitionId, broker: BrokerId, high_watermark: u64) -> RequestIds {
        self.take_pending(|r| r.partition == partition && r.broker == Some(broker) && r.offset.is_some_and(|o| o < high_watermark))
    }

    /// Every request still pending on `broker`, for `partition` (it lost
    /// leadership of it) or for any (it died).
    pub fn take_all_pending(&mut self, broker: BrokerId, partition: Option<PartitionId>) -> RequestIds {
        self.take_pending(|r| r.broker == Some(broker) && partition.is_none_or(|p| r.partition == p))
    }

    /// Removes (and returns, in send order) the pending requests that match;
    /// forgets requests that are no longer pending.
    fn take_pending(&mut self, matches: impl Fn(&ProduceRequest) -> bool) -> RequestIds {
        let mut taken = RequestIds::new();
        let requests = &self.requests;
        self.pending.retain(|id| {
            let (id, r) = (*id, &requests[*id as usize]);
            if r.status != Status::Pending {
                false
            } else if matches(r) {
                taken.push(id);
                false
            } else {
                true
            }
        });
        taken
    }

    /// Pending requests whose deadline (`request.timeout.ms`, or the
    /// record's `delivery.timeout.ms`) has passed by `now_ms`.
    pub fn take_expired(&mut self, now_ms: u64) -> RequestIds {
        let mut expired = RequestIds::new();
        let mut gone = 0;
        for &id in &self.deadlines {
            let r = &self.requests[id as usize];
            if r.status == Status::Pending {
                if r.deadline_ms > now_ms {
                    break;
                }
                expired.push(id);
            }
            gone += 1;
        }
        self.deadlines.drain(..gone);
        expired
    }

    /// The deadline queue is empty or starts with a pending request (none
    /// for `take_expired` to drop).
    pub fn deadlines_start_pending(&self) -> bool {
        self.deadlines.first().is_none_or(|&id| self.requests[id as usize].status == Status::Pending)
    }

    /// The next `request.timeout.ms` of an attempt waiting at a broker.
    pub fn next_deadline_ms(&self) -> Option<u64> {
        self.deadlines.iter().map(|&id| &self.requests[id as usize]).find(|r| r.status == Status::Pending).map(|r| r.deadline_ms)
    }

    pub fn finish(&mut self, id: u64, result: ProduceResult) -> &ProduceRequest {
        let r = &mut self.requests[id as usize];
        r.status = Status::Done(result);
        r
    }
}

