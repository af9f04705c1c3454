//! What is on the wire, in the order it arrives: by arrival time, then by
//! send order (`Network::in_flight`, and the space-time diagram's replay of
//! it).

use std::collections::VecDeque;

/// (arrival time, send order): unique per message, as the send order is.
pub type ArrivalKey = (u64, u64);

/// A queue kept sorted by `ArrivalKey`. A message is mostly sent to arrive
/// after those already on the wire (or close to them: links differ in
/// latency), and arrivals leave from the front, so a sorted deque inserts
/// near one of its ends and pops at the other; a copy of it (`clone_from`)
/// reuses the copy's allocation.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Arrivals<T> {
    items: VecDeque<(ArrivalKey, T)>,
}

impl<T> Default for Arrivals<T> {
    fn default() -> Self {
        Arrivals { items: VecDeque::new() }
    }
}

impl<T: Clone> Clone for Arrivals<T> {
    fn clone(&self) -> Self {
        Arrivals { items: self.items.clone() }
    }
    fn clone_from(&mut self, source: &Self) {
        self.items.clone_from(&source.items);
    }
}

impl<T> Arrivals<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Puts `value` in its place; `key` is not in the queue yet.
    pub fn insert(&mut self, key: ArrivalKey, value: T) {
        let i = self.items.partition_point(|(k, _)| *k < key);
        debug_assert!(self.items.get(i).is_none_or(|(k, _)| *k != key), "{key:?} is already on the wire");
        self.items.insert(i, (key, value));
    }

    /// The first to arrive, if `arrives(its key)` holds.
    pub fn pop_first_if(&mut self, arrives: impl FnOnce(ArrivalKey) -> bool) -> Option<(ArrivalKey, T)> {
        if arrives(self.items.front()?.0) {
            self.items.pop_front()
        } else {
            None
        }
    }

    pub fn first_key(&self) -> Option<ArrivalKey> {
        self.items.front().map(|(k, _)| *k)
    }

    pub fn remove(&mut self, key: ArrivalKey) -> Option<T> {
        let i = self.items.binary_search_by(|(k, _)| k.cmp(&key)).ok()?;
        self.items.remove(i).map(|(_, v)| v)
    }

    /// Keeps what `keep` holds for, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.items.retain(|(_, v)| keep(v));
    }

    /// In arrival order.
    pub fn iter(&self) -> impl Iterator<Item = (ArrivalKey, &T)> {
        self.items.iter().map(|(k, v)| (*k, v))
    }

    /// Those arriving at `time_ms`, in send order.
    pub fn arriving_at_mut(&mut self, time_ms: u64) -> impl Iterator<Item = &mut T> {
        let from = self.items.partition_point(|(k, _)| k.0 < time_ms);
        self.items.range_mut(from..).take_while(move |(k, _)| k.0 == time_ms).map(|(_, v)| v)
    }

    pub fn into_values(self) -> impl Iterator<Item = T> {
        self.items.into_iter().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The same answers as a `BTreeMap` by key, under sends at mixed
    /// latencies, arrivals, removals and connections closed.
    #[test]
    fn behaves_as_an_ordered_map() {
        let mut ours = Arrivals::new();
        let mut model = BTreeMap::new();
        let mut x = 7u64;
        let mut seq = 0;
        for now in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            match (x >> 60) % 8 {
                0..=3 => {
                    let key = (now + (x >> 20) % 400, seq);
                    seq += 1;
                    ours.insert(key, x % 5);
                    model.insert(key, x % 5);
                }
                4 => {
                    let due = |k: ArrivalKey| k.0 <= now;
                    let first = model.first_key_value().map(|(k, _)| *k).filter(|&k| due(k));
                    assert_eq!(ours.pop_first_if(due).map(|(k, _)| k), first);
                    if let Some(k) = first {
                        model.remove(&k);
                    }
                }
                5 => {
                    let Some(&k) = model.keys().nth(((x >> 8) % 7) as usize) else { continue };
                    assert_eq!(ours.remove(k), model.remove(&k));
                }
                6 => {
                    ours.retain(|v| *v != x % 5);
                    model.retain(|_, v| *v != x % 5);
                }
                _ => {
                    let t = model.keys().next().map_or(now, |k| k.0);
                    let ours_at: Vec<u64> = ours.arriving_at_mut(t).map(|v| *v).collect();
                    let model_at: Vec<u64> = model.iter().filter(|(k, _)| k.0 == t).map(|(_, v)| *v).collect();
                    assert_eq!(ours_at, model_at);
                }
            }
            assert_eq!(ours.len(), model.len());
            assert_eq!(ours.first_key(), model.keys().next().copied());
        }
        assert!(ours.iter().map(|(k, v)| (k, *v)).eq(model.into_iter()));
    }
}
