//! The producer client's records waiting to be retried (`retry.backoff.ms`),
//! by time and per acks, in ordered trees: thousands may wait at once.

use crate::scenario::Acks;
use std::collections::BTreeSet;

/// `(retry time, request id)` of every record waiting to be retried.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Retries {
    by_time: BTreeSet<(u64, u64)>,
    /// The same, per acks (index `Acks::index`): whether an attempt is refused
    /// depends only on the acks, so the first retry that would succeed is
    /// found without looking at the others.
    by_acks: [BTreeSet<(u64, u64)>; 3],
}

/// Makes `set` equal to `source`: by removing and inserting what differs
/// while both hold a few entries, else by a clone.
fn copy_into(set: &mut BTreeSet<(u64, u64)>, source: &BTreeSet<(u64, u64)>) {
    const FEW: usize = 8;
    if set.len() + source.len() > FEW {
        set.clone_from(source);
        return;
    }
    set.retain(|x| source.contains(x));
    set.extend(source.iter().copied());
}

impl Retries {
    /// `clone_from` for the retries of a producer whose requests are the
    /// same as those of `source`'s: the retries per acks then follow from
    /// the retries by time (a request's acks decide its tree), so only those
    /// are compared. While both are small, what differs is edited in place,
    /// which keeps the trees' nodes where a clone allocates new ones (the
    /// explorer copies a state into one that differs from it by a step at
    /// most).
    pub fn clone_from_same_requests(&mut self, source: &Retries) {
        if self.by_time == source.by_time {
            debug_assert!(self.by_acks == source.by_acks, "the requests differ");
            return;
        }
        copy_into(&mut self.by_time, &source.by_time);
        for (set, source) in self.by_acks.iter_mut().zip(&source.by_acks) {
            copy_into(set, source);
        }
    }

    pub fn insert(&mut self, at_ms: u64, id: u64, acks: Acks) {
        self.by_time.insert((at_ms, id));
        self.by_acks[acks.index()].insert((at_ms, id));
    }

    /// Removes the first retry in time order, of a record with these acks
    /// (it is the first of that record's acks too).
    pub fn pop_first(&mut self, acks: Acks) -> Option<(u64, u64)> {
        let first = self.by_time.pop_first();
        let first_with_acks = self.by_acks[acks.index()].pop_first();
        debug_assert_eq!(first, first_with_acks);
        first
    }

    /// The first retry in time order.
    pub fn first(&self) -> Option<(u64, u64)> {
        self.by_time.first().copied()
    }

    /// The retries of records with these acks, in time order.
    pub fn with_acks(&self, acks: Acks) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.by_acks[acks.index()].iter().copied()
    }
}
