//! What the safety checks report: a broken guarantee, named after it, with
//! the step, the brokers and the record involved. Plain data: the events and
//! the state view carry it; the checks that find it are `invariants`.

use crate::model::config::BrokerId;
use crate::model::step::Acks;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    /// An acknowledged record is not at its offset in the current leader's log.
    AckedWriteLost,
    /// A live ISR member holds, below the leader's HW, a record other than the
    /// leader's, or lacks one.
    CommittedDivergence,
    /// The consumer read a record the leader's log no longer holds at that offset.
    ConsumerSawVanishedRecord,
    /// HW above LEO, or a leader HW that went down within one epoch.
    HwExceedsLeo,
}

impl ViolationKind {
    pub fn name(self) -> &'static str {
        match self {
            ViolationKind::AckedWriteLost => "acked_write_lost",
            ViolationKind::CommittedDivergence => "committed_divergence",
            ViolationKind::ConsumerSawVanishedRecord => "consumer_saw_vanished_record",
            ViolationKind::HwExceedsLeo => "hw_exceeds_leo",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Violation {
    pub kind: ViolationKind,
    /// The step (1-based count of applied steps) during which it happened.
    pub step: u64,
    pub time_ms: u64,
    pub brokers: Vec<BrokerId>,
    pub offset: Option<u64>,
    pub value: Option<Arc<str>>,
    pub acks: Option<Acks>,
    /// False only for an acks=1 loss, which Kafka's contract allows.
    pub protocol_violation: bool,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.detail)
    }
}

