//! A controller's copy of the metadata log (`__cluster_metadata`): records
//! of (offset, epoch, record), one record per batch. Offsets are the
//! positions in the log; `(offset, epoch)` pairs compare epoch first
//! (`OffsetAndEpoch.compareTo`).

use crate::model::config::{BrokerId, BrokerList, ControllerId, PartitionId};
use serde::Serialize;
use std::fmt;

/// What a metadata record says (`metadata/src/main/resources/common/metadata`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MetadataRecord {
    /// The control record a new quorum leader appends at the start of its
    /// epoch (`LeaderState.appendStartOfEpochControlRecords`).
    LeaderChange { leader: ControllerId },
    /// A broker's registration (`RegisterBrokerRecord`); its broker epoch
    /// is the record's offset (`QuorumController.registerBroker`). A new
    /// incarnation registers fenced (the record's `Fenced` field); the
    /// bootstrap log's brokers are registered and unfenced already.
    RegisterBroker { broker: BrokerId, fenced: bool },
    /// A partition as created (`PartitionRecord`).
    Partition { partition: PartitionId, leader: BrokerId, leader_epoch: u32 },
    /// The controller's decision on a partition: its leader, epoch, ISR and
    /// ELR after the change (`PartitionChangeRecord`, which carries only the
    /// fields that change; here the whole state, so a record reads alone).
    PartitionChange {
        partition: PartitionId,
        leader: Option<BrokerId>,
        leader_epoch: u32,
        isr: BrokerList,
        elr: BrokerList,
        last_known_leader: Option<BrokerId>,
    },
    /// A broker's session expired, or its controlled shutdown ended
    /// (`FenceBrokerRecord`; `BrokerRegistrationChangeRecord` from 3.3).
    FenceBroker { broker: BrokerId },
    /// A registered broker may lead and join ISRs again (`UnfenceBrokerRecord`).
    UnfenceBroker { broker: BrokerId },
}

impl fmt::Display for MetadataRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetadataRecord::LeaderChange { leader } => write!(f, "LeaderChange controller {leader}"),
            MetadataRecord::RegisterBroker { broker, fenced: false } => write!(f, "RegisterBroker {broker}"),
            MetadataRecord::RegisterBroker { broker, fenced: true } => write!(f, "RegisterBroker {broker} (fenced)"),
            MetadataRecord::Partition { partition, leader, leader_epoch } => {
                write!(f, "PartitionRecord p{partition} leader {leader} epoch {leader_epoch}")
            }
            MetadataRecord::PartitionChange { partition, leader, leader_epoch, isr, .. } => match leader {
                Some(l) => write!(f, "PartitionChange p{partition} leader {l} epoch {leader_epoch} isr {isr:?}"),
                None => write!(f, "PartitionChange p{partition} (no leader) epoch {leader_epoch} isr {isr:?}"),
            },
            MetadataRecord::FenceBroker { broker } => write!(f, "FenceBroker {broker}"),
            MetadataRecord::UnfenceBroker { broker } => write!(f, "UnfenceBroker {broker}"),
        }
    }
}

/// One record of the metadata log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct MetadataEntry {
    pub offset: u64,
    /// The quorum epoch of the leader that appended it.
    pub epoch: u32,
    pub record: MetadataRecord,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MetadataLog {
    entries: Vec<MetadataEntry>,
}

impl MetadataLog {
    pub fn entries(&self) -> &[MetadataEntry] {
        &self.entries
    }

    /// The log end offset: one past the last record.
    pub fn end_offset(&self) -> u64 {
        self.entries.len() as u64
    }

    /// The epoch of the last record, 0 for an empty log
    /// (`ReplicatedLog.lastFetchedEpoch`).
    pub fn last_fetched_epoch(&self) -> u32 {
        self.entries.last().map_or(0, |e| e.epoch)
    }

    /// `(last epoch, end offset)`, the pair a Vote compares.
    pub fn last_offset_and_epoch(&self) -> (u32, u64) {
        (self.last_fetched_epoch(), self.end_offset())
    }

    pub fn get(&self, offset: u64) -> Option<&MetadataEntry> {
        self.entries.get(offset as usize)
    }

    pub fn append(&mut self, epoch: u32, record: MetadataRecord) -> MetadataEntry {
        let entry = MetadataEntry { offset: self.end_offset(), epoch, record };
        self.entries.push(entry);
        entry
    }

    /// A follower's append of what its leader sent, at its own log end.
    pub fn append_entry(&mut self, entry: MetadataEntry) {
        debug_assert_eq!(entry.offset, self.end_offset());
        self.entries.push(entry);
    }

    pub fn truncate_to(&mut self, end_offset: u64) {
        self.entries.truncate(end_offset as usize);
    }

    /// The records from `offset` to the end.
    pub fn from_offset(&self, offset: u64) -> &[MetadataEntry] {
        self.entries.get(offset as usize..).unwrap_or(&[])
    }

    /// The largest epoch in the log at or below `epoch`, and where it ends:
    /// the start of the next epoch, or the log end for the last one
    /// (`ReplicatedLog.endOffsetForEpoch`, `LeaderEpochFileCache.endOffsetFor`).
    /// `(0, 0)` when every record is of a later epoch.
    pub fn end_offset_for_epoch(&self, epoch: u32) -> (u32, u64) {
        // Records are in epoch order: the first record past `epoch` ends it.
        let end = self.entries.partition_point(|e| e.epoch <= epoch);
        match end.checked_sub(1).map(|i| self.entries[i].epoch) {
            Some(found) => (found, end as u64),
            None => (0, 0),
        }
    }

    /// Whether the log holds a record of `epoch`.
    pub fn has_epoch(&self, epoch: u32) -> bool {
        self.end_offset_for_epoch(epoch).0 == epoch && epoch > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(epochs: &[u32]) -> MetadataLog {
        let mut l = MetadataLog::default();
        for &e in epochs {
            l.append(e, MetadataRecord::LeaderChange { leader: 1 });
        }
        l
    }

    /// `KafkaRaftClientTest.testLeaderImmediatelySendsDivergingEpoch`: the
    /// leader's epochs 1@0-2, 3@3-5, 5@6-8; epoch 2 is not there, and the
    /// largest at or below it, 1, ends at 3.
    #[test]
    fn end_offset_for_epoch_takes_the_largest_epoch_at_or_below() {
        let l = log(&[1, 1, 1, 3, 3, 3, 5, 5, 5]);
        assert_eq!(l.end_offset_for_epoch(2), (1, 3));
        assert_eq!(l.end_offset_for_epoch(3), (3, 6));
        assert_eq!(l.end_offset_for_epoch(5), (5, 9));
        assert_eq!(l.end_offset_for_epoch(7), (5, 9));
        assert_eq!(l.end_offset_for_epoch(0), (0, 0));
        assert!(l.has_epoch(3) && !l.has_epoch(4));
    }
}
