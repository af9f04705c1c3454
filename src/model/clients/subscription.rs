//! The consumer's state: where it reads each partition next and every
//! record it read (`SubscriptionState`). The consumer's fetches are
//! `consumer`.

use crate::model::config::PartitionId;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConsumedRecord {
    pub partition: PartitionId,
    pub offset: u64,
    pub id: u64,
    pub epoch: u32,
    pub value: Arc<str>,
}

/// Where the consumer is in one partition (`SubscriptionState`'s `TopicPartitionState`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ConsumerPosition {
    /// The next offset to read.
    pub position: u64,
    /// The leader epoch of the last record read (`FetchPosition.offsetEpoch`).
    pub position_epoch: Option<u32>,
    /// The partition's leader epoch when the consumer last fetched; a newer
    /// one makes it validate its position (KIP-320, 2.3+).
    pub leader_epoch_seen: Option<u32>,
}

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Consumer {
    /// One per partition of the topic, all assigned to this consumer.
    pub positions: Vec<ConsumerPosition>,
    /// Every record read, in the order read.
    pub read: Vec<ConsumedRecord>,
}

crate::clone_in_place!(Consumer { positions, read });

impl Consumer {
    pub fn new(partitions: u32) -> Consumer {
        Consumer { positions: vec![ConsumerPosition::default(); partitions as usize], read: vec![] }
    }

    /// Where it reads partition `p` next.
    pub fn position(&self, p: PartitionId) -> u64 {
        self.positions[p as usize].position
    }
}

