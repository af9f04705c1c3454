//! Links between brokers: latency, one-way cuts, isolation, and the messages
//! in flight (timed mode).

use crate::model::config::{BrokerId, PerBroker};
use crate::model::event::DropReason;
use crate::model::protocol::Message;
use crate::base::arrivals::Arrivals;
use crate::base::sorted_set::SortedSet;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Network {
    /// Latency of each broker's links (index `id - 1`). A message between two
    /// brokers takes the larger of their latencies.
    pub latency_ms: PerBroker<u64>,
    /// Directed cuts `(from, to)`.
    pub cuts: SortedSet<(BrokerId, BrokerId)>,
    /// Cut from every broker and from the controller (index `id - 1`).
    pub isolated: PerBroker<bool>,
    /// Cut from the controller only (index `id - 1`): no heartbeats, but
    /// the broker's links to other brokers stay up.
    pub controller_cut: PerBroker<bool>,
    /// Messages in flight, by arrival time and send order.
    pub in_flight: Arrivals<Message>,
    next_seq: u64,
}

crate::clone_in_place!(Network { latency_ms, cuts, isolated, controller_cut, in_flight, next_seq });

impl Network {
    pub fn new(brokers: u32, latency_ms: u64) -> Network {
        Network {
            latency_ms: (0..brokers).map(|_| latency_ms).collect(),
            cuts: SortedSet::new(),
            isolated: (0..brokers).map(|_| false).collect(),
            controller_cut: (0..brokers).map(|_| false).collect(),
            in_flight: Arrivals::new(),
            next_seq: 0,
        }
    }

    pub fn is_isolated(&self, b: BrokerId) -> bool {
        self.isolated[(b - 1) as usize]
    }

    /// The broker and the controller hear each other.
    pub fn reaches_controller(&self, b: BrokerId) -> bool {
        !self.is_isolated(b) && !self.controller_cut[(b - 1) as usize]
    }

    /// Why a message from `from` to `to` would be lost now, if it would.
    pub fn blocked(&self, from: BrokerId, to: BrokerId) -> Option<DropReason> {
        if self.is_isolated(from) || self.is_isolated(to) {
            Some(DropReason::Isolated)
        } else if self.cuts.contains(&(from, to)) {
            Some(DropReason::LinkCut)
        } else {
            None
        }
    }

    pub fn latency(&self, a: BrokerId, b: BrokerId) -> u64 {
        self.latency_ms[(a - 1) as usize].max(self.latency_ms[(b - 1) as usize])
    }

    /// Puts a message on the wire; returns its arrival time.
    pub fn send(&mut self, message: Message, now_ms: u64) -> u64 {
        let arrives = now_ms + self.latency(message.from(), message.to());
        self.in_flight.insert((arrives, self.next_seq), message);
        self.next_seq += 1;
        arrives
    }

    pub fn next_arrival_ms(&self) -> Option<u64> {
        self.in_flight.first_key().map(|(t, _)| t)
    }

    /// Closes the connection between two brokers: what is in flight on it,
    /// either way, is gone. Returns how many messages were discarded.
    pub fn close_connection(&mut self, a: BrokerId, b: BrokerId) -> usize {
        let before = self.in_flight.len();
        self.in_flight.retain(|m| !((m.from() == a && m.to() == b) || (m.from() == b && m.to() == a)));
        before - self.in_flight.len()
    }

    /// The first message arriving at or before `now_ms`.
    pub fn pop_arrived(&mut self, now_ms: u64) -> Option<Message> {
        self.in_flight.pop_first_if(|(t, _)| t <= now_ms).map(|(_, m)| m)
    }
}
