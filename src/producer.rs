//! The producer's requests and what became of them (`ReplicaManager.appendRecords`,
//! `DelayedProduce`, `Partition.checkEnoughReplicasReachOffset`).

use crate::config::BrokerId;
use crate::event::ProduceResult;
use crate::scenario::Acks;
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// acks=all, appended, waiting for the HW to pass it.
    Pending,
    Done(ProduceResult),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProduceRequest {
    pub value: Arc<str>,
    pub acks: Acks,
    /// The broker that handled it.
    pub broker: Option<BrokerId>,
    /// Where it was appended, if it was.
    pub offset: Option<u64>,
    pub epoch: Option<u32>,
    pub status: Status,
    pub step: u64,
    pub deadline_ms: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Producer {
    pub requests: Vec<ProduceRequest>,
    /// Pending acks=all requests in send order (per broker, offset order).
    pending: VecDeque<u64>,
    /// Every pending request in deadline order (one timeout for all, so send order).
    deadlines: VecDeque<u64>,
}

impl Producer {
    pub fn new() -> Producer {
        Producer { requests: vec![], pending: VecDeque::new(), deadlines: VecDeque::new() }
    }

    pub fn add(&mut self, request: ProduceRequest) -> u64 {
        let id = self.requests.len() as u64;
        if request.status == Status::Pending {
            debug_assert!(request.broker.is_some(), "a pending request was appended by a broker");
            self.pending.push_back(id);
            self.deadlines.push_back(id);
        }
        self.requests.push(request);
        id
    }

    /// Pending requests on `broker` whose offset is below `high_watermark`.
    pub fn take_reached(&mut self, broker: BrokerId, high_watermark: u64) -> Vec<u64> {
        self.take_pending(|r| r.broker == Some(broker) && r.offset.is_some_and(|o| o < high_watermark))
    }

    /// Every request still pending on `broker` (it lost leadership or died).
    pub fn take_all_pending(&mut self, broker: BrokerId) -> Vec<u64> {
        self.take_pending(|r| r.broker == Some(broker))
    }

    /// Removes (and returns, in send order) the pending requests that match;
    /// forgets requests that are no longer pending.
    fn take_pending(&mut self, matches: impl Fn(&ProduceRequest) -> bool) -> Vec<u64> {
        let mut taken = vec![];
        let requests = &self.requests;
        self.pending.retain(|&id| {
            let r = &requests[id as usize];
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

    /// Pending requests whose `request.timeout.ms` has passed by `now_ms`.
    pub fn take_expired(&mut self, now_ms: u64) -> Vec<u64> {
        let mut expired = vec![];
        while let Some(&id) = self.deadlines.front() {
            let r = &self.requests[id as usize];
            if r.status != Status::Pending {
                self.deadlines.pop_front();
            } else if r.deadline_ms <= now_ms {
                self.deadlines.pop_front();
                expired.push(id);
            } else {
                break;
            }
        }
        expired
    }

    pub fn next_deadline_ms(&self) -> Option<u64> {
        self.deadlines
            .iter()
            .map(|&id| &self.requests[id as usize])
            .find(|r| r.status == Status::Pending)
            .map(|r| r.deadline_ms)
    }

    pub fn finish(&mut self, id: u64, result: ProduceResult) -> &ProduceRequest {
        let r = &mut self.requests[id as usize];
        r.status = Status::Done(result);
        r
    }
}
