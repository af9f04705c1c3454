//! What the safety checks report: a broken guarantee, named after it, with
//! the step, the brokers and the record involved. Plain data: the events and
//! the state view carry it; the checks that find it are `invariants`.

use crate::model::config::{BrokerId, ControllerId, PartitionId};
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
    /// The metadata quorum (`RaftEventSimulationTest`'s invariants): two
    /// leaders of one epoch.
    SingleLeader,
    /// A controller's quorum epoch went down.
    MonotonicEpoch,
    /// A quorum leader's HW below one a leader had before.
    MonotonicHighWatermark,
    /// A quorum leader's HW that no majority of voters reached.
    MajorityReachedHighWatermark,
    /// Two controllers hold different records below their HW.
    ConsistentCommittedData,
}

impl ViolationKind {
    pub fn name(self) -> &'static str {
        match self {
            ViolationKind::AckedWriteLost => "acked_write_lost",
            ViolationKind::CommittedDivergence => "committed_divergence",
            ViolationKind::ConsumerSawVanishedRecord => "consumer_saw_vanished_record",
            ViolationKind::HwExceedsLeo => "hw_exceeds_leo",
            ViolationKind::SingleLeader => "single_leader",
            ViolationKind::MonotonicEpoch => "monotonic_epoch",
            ViolationKind::MonotonicHighWatermark => "monotonic_high_watermark",
            ViolationKind::MajorityReachedHighWatermark => "majority_reached_high_watermark",
            ViolationKind::ConsistentCommittedData => "consistent_committed_data",
        }
    }

    /// A check of the metadata quorum (`quorum::checks`), not of a partition.
    pub fn of_quorum(self) -> bool {
        matches!(
            self,
            ViolationKind::SingleLeader
                | ViolationKind::MonotonicEpoch
                | ViolationKind::MonotonicHighWatermark
                | ViolationKind::MajorityReachedHighWatermark
                | ViolationKind::ConsistentCommittedData
        )
    }

    /// Is a record gone: an acknowledged write missing from the leader's log,
    /// or one a consumer read that the log no longer holds? (A diverged
    /// committed log, or an HW above the LEO, breaks a guarantee before
    /// anything is lost.)
    pub fn loses_data(self) -> bool {
        matches!(self, ViolationKind::AckedWriteLost | ViolationKind::ConsumerSawVanishedRecord)
    }
}

/// What in Kafka's contract allows a lost record: the setting under which
/// Kafka promises less. A violation with none broke a guarantee Kafka makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Allowance {
    /// The producer asked only for the leader's own append (`acks=1`).
    #[serde(rename = "acks=1")]
    AcksOne,
    /// `unclean.leader.election.enable`: a replica outside the ISR was
    /// elected and its log became the partition's, without records it
    /// never had (Kafka's design docs, "Unclean leader election: What if
    /// they all die?").
    #[serde(rename = "unclean.leader.election.enable")]
    UncleanLeaderElection,
}

impl Allowance {
    /// The setting as Kafka writes it.
    pub fn name(self) -> &'static str {
        match self {
            Allowance::AcksOne => "acks=1",
            Allowance::UncleanLeaderElection => "unclean.leader.election.enable",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Violation {
    pub kind: ViolationKind,
    /// The step (1-based count of applied steps) during which it happened.
    pub step: u64,
    pub time_ms: u64,
    /// The partition it happened in (0 for one of the metadata quorum,
    /// which names `controllers` instead of brokers).
    pub partition: PartitionId,
    pub brokers: Vec<BrokerId>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<ControllerId>,
    pub offset: Option<u64>,
    pub value: Option<Arc<str>>,
    pub acks: Option<Acks>,
    /// False when Kafka's contract allows it (`allowed_by` says by what).
    pub protocol_violation: bool,
    /// The setting that allows it; none for a broken guarantee.
    pub allowed_by: Option<Allowance>,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.detail)
    }
}

