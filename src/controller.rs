//! The controller: broker liveness through sessions, leader election, the
//! authoritative ISR (`controller/PartitionStateMachine.scala`, KRaft's
//! `ReplicationControlManager`).

use crate::config::{BrokerId, BrokerList, PerBroker};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Controller {
    pub leader: Option<BrokerId>,
    pub leader_epoch: u32,
    pub isr: BrokerList,
    /// Brokers whose session expired (index `id - 1`).
    pub fenced: PerBroker<bool>,
    /// Since when the controller has heard no heartbeat from a broker.
    pub silent_since_ms: PerBroker<Option<u64>>,
}

impl Controller {
    /// Broker 1 leads epoch 0 with every broker in the ISR.
    pub fn new(brokers: u32) -> Controller {
        Controller {
            leader: Some(1),
            leader_epoch: 0,
            isr: (1..=brokers).collect(),
            fenced: (0..brokers).map(|_| false).collect(),
            silent_since_ms: (0..brokers).map(|_| None).collect(),
        }
    }

    pub fn is_fenced(&self, b: BrokerId) -> bool {
        self.fenced[(b - 1) as usize]
    }

    /// Brokers whose session has expired by `now_ms`, in id order.
    pub fn expired_sessions(&self, now_ms: u64, session_timeout_ms: u64) -> Vec<BrokerId> {
        (1..=self.fenced.len() as u32)
            .filter(|&b| !self.is_fenced(b))
            .filter(|&b| self.silent_since_ms[(b - 1) as usize].is_some_and(|t| now_ms >= t + session_timeout_ms))
            .collect()
    }

    /// The next time a session can expire.
    pub fn next_expiry_ms(&self, session_timeout_ms: u64) -> Option<u64> {
        (1..=self.fenced.len() as u32)
            .filter(|&b| !self.is_fenced(b))
            .filter_map(|b| self.silent_since_ms[(b - 1) as usize].map(|t| t + session_timeout_ms))
            .min()
    }

    /// Removes a broker from the ISR, never emptying it: the last member stays
    /// so that it can be elected cleanly when it returns (reference §3).
    pub fn remove_from_isr(&mut self, b: BrokerId) -> bool {
        if self.isr.len() > 1 && self.isr.contains(&b) {
            self.isr.retain(|x| *x != b);
            true
        } else {
            false
        }
    }
}
