//! A replica's log: records, the log end offset, and the leader-epoch cache
//! (`storage/.../epoch/LeaderEpochFileCache.java`, KIP-101).

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One record. `id` is the index of the produce request that wrote it: two
/// records with the same value are still told apart by the safety checks.
#[derive(Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Record {
    pub id: u64,
    pub epoch: u32,
    pub value: Arc<str>,
}

impl Clone for Record {
    fn clone(&self) -> Self {
        Record { id: self.id, epoch: self.epoch, value: self.value.clone() }
    }
    fn clone_from(&mut self, source: &Self) {
        (self.id, self.epoch) = (source.id, source.epoch);
        crate::base::shared::share_from(&mut self.value, &source.value);
    }
}

/// `(epoch, start offset)`: the first offset written in that leader epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EpochEntry {
    pub epoch: u32,
    pub start_offset: u64,
}

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct LeaderEpochCache {
    entries: Vec<EpochEntry>,
}

crate::clone_in_place!(LeaderEpochCache {} short { entries });

impl LeaderEpochCache {
    pub fn entries(&self) -> &[EpochEntry] {
        &self.entries
    }

    pub fn latest_epoch(&self) -> Option<u32> {
        self.entries.last().map(|e| e.epoch)
    }

    /// Adds `(epoch, start_offset)`, first dropping entries it makes
    /// non-monotonic (`LeaderEpochFileCache.assign`).
    pub fn assign(&mut self, epoch: u32, start_offset: u64) {
        if let Some(last) = self.entries.last() {
            if last.epoch == epoch {
                return;
            }
        }
        self.entries.retain(|e| e.epoch < epoch && e.start_offset < start_offset);
        self.entries.push(EpochEntry { epoch, start_offset });
    }

    /// Forgets epochs that start at or after `offset` (`truncateFromEnd`).
    pub fn truncate_from_end(&mut self, offset: u64) {
        while self.entries.last().is_some_and(|e| e.start_offset >= offset) {
            self.entries.pop();
        }
    }

    /// `LeaderEpochFileCache.endOffsetFor`: for the largest epoch `<= requested`,
    /// that epoch and its end offset (the start of the next epoch, or the log
    /// end offset for the latest). `None` when `requested` is newer than every
    /// epoch known here (Kafka's UNDEFINED_EPOCH_OFFSET). When `requested` is
    /// older than every epoch, Kafka answers `(requested, first start offset)`.
    pub fn end_offset_for(&self, requested: u32, log_end_offset: u64) -> Option<(u32, u64)> {
        if self.latest_epoch() == Some(requested) {
            return Some((requested, log_end_offset));
        }
        let higher = self.entries.iter().position(|e| e.epoch > requested)?;
        let end = self.entries[higher].start_offset;
        match higher.checked_sub(1) {
            Some(floor) => Some((self.entries[floor].epoch, end)),
            None => Some((requested, end)),
        }
    }
}

const CHUNK: usize = 256;

/// The records of one replica. Full chunks are shared (`Arc`), so cloning a
/// log for a snapshot costs one pointer per 256 records.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Log {
    sealed: Vec<Arc<[Record]>>,
    tail: Vec<Record>,
    epochs: LeaderEpochCache,
}

crate::clone_in_place!(Log { sealed, tail, epochs });

impl Log {
    /// LEO: the offset the next record will get.
    pub fn log_end_offset(&self) -> u64 {
        (self.sealed.len() * CHUNK + self.tail.len()) as u64
    }

    pub fn get(&self, offset: u64) -> Option<&Record> {
        let o = usize::try_from(offset).ok()?;
        let (c, i) = (o / CHUNK, o % CHUNK);
        match c.cmp(&self.sealed.len()) {
            std::cmp::Ordering::Less => self.sealed[c].get(i),
            std::cmp::Ordering::Equal => self.tail.get(i),
            std::cmp::Ordering::Greater => None,
        }
    }

    pub fn epochs(&self) -> &LeaderEpochCache {
        &self.epochs
    }

    /// Appends a record at the log end, assigning its epoch in the cache when
    /// it is the first record of a newer epoch (`UnifiedLog.append`).
    pub fn append(&mut self, record: Record) {
        if self.epochs.latest_epoch().is_none_or(|e| record.epoch > e) {
            self.epochs.assign(record.epoch, self.log_end_offset());
        }
        self.tail.push(record);
        if self.tail.len() == CHUNK {
            let full = std::mem::replace(&mut self.tail, Vec::with_capacity(CHUNK));
            self.sealed.push(full.into());
        }
    }

    /// Records a new leader epoch starting at the log end (`Partition.makeLeader`).
    pub fn assign_epoch(&mut self, epoch: u32) {
        let leo = self.log_end_offset();
        self.epochs.assign(epoch, leo);
    }

    /// Drops the epoch entry that starts at the log end, if any: a leader
    /// that recorded its epoch and wrote nothing in it leaves one
    /// (`UnifiedLog.truncateTo` trims the cache even when the target is at or
    /// past the log end, KAFKA-10706). `assign` keeps start offsets strictly
    /// increasing, so at most one entry starts there. Returns it.
    pub fn trim_epochs_at_end(&mut self) -> Option<EpochEntry> {
        let leo = self.log_end_offset();
        let last = *self.epochs.entries.last()?;
        (last.start_offset >= leo).then(|| {
            self.epochs.truncate_from_end(leo);
            last
        })
    }

    /// Removes every record at or above `offset` and the epochs that start
    /// there. A target at or past the log end changes nothing here; the
    /// engine decides, by version, whether that still trims the epoch cache
    /// (`trim_epochs_at_end`).
    pub fn truncate_to(&mut self, offset: u64) {
        if offset >= self.log_end_offset() {
            return;
        }
        let o = offset as usize;
        let (c, i) = (o / CHUNK, o % CHUNK);
        if c < self.sealed.len() {
            self.tail = self.sealed[c][..i].to_vec();
            self.sealed.truncate(c);
        } else {
            self.tail.truncate(i);
        }
        self.epochs.truncate_from_end(offset);
    }

    /// Up to `max` records starting at `from`.
    pub fn read(&self, from: u64, max: usize) -> Vec<Record> {
        self.iter_from(from).take(max).cloned().collect()
    }

    /// Every record, in offset order.
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.sealed.iter().flat_map(|chunk| chunk.iter()).chain(&self.tail)
    }

    pub fn iter_from(&self, from: u64) -> impl Iterator<Item = &Record> {
        (from..self.log_end_offset()).map(move |o| self.get(o).expect("offset below the log end"))
    }

    /// The offset of the record written by produce request `id` among the
    /// last `window` records, if there (an idempotent duplicate).
    pub fn find_recent(&self, id: u64, window: u64) -> Option<u64> {
        let leo = self.log_end_offset();
        (leo.saturating_sub(window)..leo).rev().find(|&o| self.get(o).is_some_and(|r| r.id == id))
    }

    /// Roughly the memory a copy of this log holds of its own: the tail, and
    /// a pointer per sealed chunk (the chunks are shared between copies).
    pub fn approx_copy_bytes(&self) -> usize {
        use std::mem::size_of;
        self.tail.len() * size_of::<Record>() + self.sealed.len() * size_of::<Arc<[Record]>>() + self.epochs.entries.len() * size_of::<EpochEntry>()
    }

    /// The epoch of the last record (Fetch's `LastFetchedEpoch`).
    pub fn last_epoch(&self) -> Option<u32> {
        self.epochs.latest_epoch()
    }

    /// The end offset of the largest epoch `<= epoch` in this log.
    pub fn end_offset_for_epoch(&self, epoch: u32) -> Option<(u32, u64)> {
        self.epochs.end_offset_for(epoch, self.log_end_offset())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: u64, epoch: u32) -> Record {
        Record { id, epoch, value: format!("m{id}").into() }
    }

    #[test]
    fn append_read_truncate_across_chunks() {
        let mut log = Log::default();
        for i in 0..1000 {
            log.append(rec(i, (i / 300) as u32));
        }
        assert_eq!(log.log_end_offset(), 1000);
        assert_eq!(log.get(999).unwrap().id, 999);
        assert_eq!(log.epochs().entries().len(), 4);
        let snapshot = log.clone();
        log.truncate_to(600);
        assert_eq!(log.log_end_offset(), 600);
        assert_eq!(log.epochs().latest_epoch(), Some(1), "epoch 2 started at 600: no record of it is left");
        log.truncate_to(257);
        assert_eq!(log.get(256).unwrap().id, 256);
        assert!(log.get(257).is_none());
        log.append(rec(5000, 9));
        assert_eq!(log.get(257).unwrap().id, 5000);
        assert_eq!(snapshot.get(257).unwrap().id, 257, "snapshots are not changed by later writes");
        assert_eq!(log.read(255, 10).iter().map(|r| r.id).collect::<Vec<_>>(), vec![255, 256, 5000]);
        log.truncate_to(0);
        assert_eq!(log.log_end_offset(), 0);
        assert_eq!(log.trim_epochs_at_end(), None, "an empty cache has nothing to trim");
        assert_eq!(log.last_epoch(), None);
    }

    /// `UnifiedLogTest.testTruncateToEndOffsetClearsEpochCache`: an epoch
    /// assigned at the log end with no record of it goes, and the entries
    /// with records stay.
    #[test]
    fn trimming_at_the_log_end_drops_only_an_empty_epoch() {
        let mut log = Log::default();
        log.append(rec(0, 19));
        log.append(rec(1, 19));
        assert_eq!(log.trim_epochs_at_end(), None, "epoch 19 holds records");
        log.assign_epoch(20);
        assert_eq!(log.last_epoch(), Some(20));
        assert_eq!(log.trim_epochs_at_end(), Some(EpochEntry { epoch: 20, start_offset: 2 }));
        assert_eq!(log.epochs().entries(), &[EpochEntry { epoch: 19, start_offset: 0 }]);
        assert_eq!(log.log_end_offset(), 2);
    }

    #[test]
    fn end_offset_for_follows_kafka() {
        let mut c = LeaderEpochCache::default();
        c.assign(0, 0);
        c.assign(2, 5);
        c.assign(4, 9);
        assert_eq!(c.end_offset_for(4, 12), Some((4, 12)), "latest epoch ends at the LEO");
        assert_eq!(c.end_offset_for(2, 12), Some((2, 9)));
        assert_eq!(c.end_offset_for(3, 12), Some((2, 9)), "largest epoch <= 3 is 2");
        assert_eq!(c.end_offset_for(1, 12), Some((0, 5)));
        assert_eq!(c.end_offset_for(7, 12), None, "newer than every known epoch");
        // assign drops entries that would no longer be monotonic
        c.assign(5, 7);
        assert_eq!(c.entries().iter().map(|e| e.epoch).collect::<Vec<_>>(), vec![0, 2, 5]);
    }
}
