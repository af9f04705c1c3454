//! The producer client's records waiting to be retried (`retry.backoff.ms`),
//! by time and per acks, in ordered queues: thousands may wait at once.

use crate::model::step::Acks;
use std::hash::{Hash, Hasher};

/// `(retry time, request id)` of every record waiting to be retried.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Retries {
    by_time: Queue,
    /// The same, per acks (index `Acks::index`): whether an attempt is refused
    /// depends only on the acks, so the first retry that would succeed is
    /// found without looking at the others.
    by_acks: [Queue; 3],
}

/// An ordered set of `(retry time, request id)` kept as a sorted vector
/// whose front moves: retries are scheduled at a later time than those
/// waiting (almost always: at the end) and leave from the front, so both
/// are constant time (the spent front is dropped once it is half the
/// vector). A copy is one copy of the entries into the copy's allocation,
/// where an ordered tree allocates its nodes anew (the explorer copies the
/// state for every state it generates).
#[derive(Debug, Default)]
struct Queue {
    items: Vec<(u64, u64)>,
    /// Where the entries start: `items[..head]` have left.
    head: usize,
}

impl Queue {
    fn entries(&self) -> &[(u64, u64)] {
        &self.items[self.head..]
    }

    #[inline]
    fn insert(&mut self, x: (u64, u64)) {
        match self.entries().last() {
            None => {
                self.items.clear();
                self.head = 0;
                self.items.push(x);
            }
            Some(&last) if last < x => self.items.push(x),
            Some(_) => {
                if let Err(i) = self.entries().binary_search(&x) {
                    self.items.insert(self.head + i, x);
                }
            }
        }
    }

    #[inline]
    fn pop_first(&mut self) -> Option<(u64, u64)> {
        let first = *self.items.get(self.head)?;
        self.head += 1;
        if self.head == self.items.len() {
            self.items.clear();
            self.head = 0;
        } else if self.head >= 32 && self.head * 2 >= self.items.len() {
            self.items.drain(..self.head);
            self.head = 0;
        }
        Some(first)
    }

    #[inline]
    fn first(&self) -> Option<(u64, u64)> {
        self.items.get(self.head).copied()
    }

    /// `clone_from`: the entries only, into this queue's allocation.
    #[inline]
    fn copy_from(&mut self, source: &Queue) {
        self.items.clear();
        self.head = 0;
        match source.entries() {
            [] => {}
            [a] => self.items.push(*a),
            more => self.items.extend_from_slice(more),
        }
    }
}

impl Clone for Queue {
    fn clone(&self) -> Self {
        Queue { items: self.entries().to_vec(), head: 0 }
    }
    fn clone_from(&mut self, source: &Self) {
        self.copy_from(source);
    }
}

impl PartialEq for Queue {
    fn eq(&self, other: &Self) -> bool {
        self.entries() == other.entries()
    }
}

impl Eq for Queue {}

impl Hash for Queue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.entries().hash(state);
    }
}

impl Retries {
    /// `clone_from` for the retries of a producer whose requests are the
    /// same as those of `source`'s: the retries per acks then follow from
    /// the retries by time (a request's acks decide its queue), so only
    /// those are compared (the explorer copies a state into one that
    /// differs from it by a step at most).
    pub fn clone_from_same_requests(&mut self, source: &Retries) {
        if self.by_time == source.by_time {
            debug_assert!(self.by_acks == source.by_acks, "the requests differ");
            return;
        }
        self.by_time.copy_from(&source.by_time);
        for (queue, source) in self.by_acks.iter_mut().zip(&source.by_acks) {
            queue.copy_from(source);
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
        self.by_time.first()
    }

    /// The retries of records with these acks, in time order.
    pub fn with_acks(&self, acks: Acks) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.by_acks[acks.index()].entries().iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The same answers as an ordered tree under inserts (mostly at the
    /// end, some before), removals from the front and copies.
    #[test]
    fn behaves_as_an_ordered_set() {
        let mut ours = Queue::default();
        let mut copy = Queue::default();
        let mut model = BTreeSet::new();
        let mut x = 3u64;
        let mut now = 0u64;
        for i in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            match x >> 61 {
                0..=3 => {
                    now += (x >> 40) % 3;
                    let at = if x >> 59 & 1 == 0 { now + 100 } else { now + (x >> 20) % 100 };
                    let entry = (at, (x >> 10) % 5);
                    ours.insert(entry);
                    model.insert(entry);
                }
                4..=6 => assert_eq!(ours.pop_first(), model.pop_first(), "step {i}"),
                _ => {
                    copy.clone_from(&ours);
                    assert!(copy == ours);
                    std::mem::swap(&mut copy, &mut ours);
                }
            }
            assert_eq!(ours.first(), model.first().copied());
            assert_eq!(ours.entries(), model.iter().copied().collect::<Vec<_>>(), "step {i}");
        }
    }
}
