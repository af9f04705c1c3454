//! The exhaustive search's visited set: the key of every canonical state
//! reached, with the most steps left it was reached with.

/// One slot: a state key, and the steps left plus one (0: an empty slot).
/// Packed, 9 bytes.
#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
struct Slot {
    key: u64,
    left: u8,
}

/// An open-addressing hash table of keys that are already hashes (the
/// search's state keys), with linear probing in one array of 9-byte slots:
/// a lookup usually reads one cache line (a general hash map reads its
/// control bytes and then its entries, two misses in a set this size). It
/// grows to keep at most 3/4 of its slots full.
pub(crate) struct Visited {
    slots: Vec<Slot>,
    len: usize,
}

/// What `Visited::visit` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Visit {
    /// The first time the state is reached.
    New,
    /// Reached again with more steps left than ever before.
    MoreLeft,
    /// Reached again with no more steps left than before.
    Seen,
}

impl Visited {
    /// A set with room for `states` keys before it grows.
    pub fn with_capacity(states: usize) -> Visited {
        let slots = (states.saturating_mul(4) / 3 + 1).next_power_of_two().max(1 << 10);
        Visited { slots: vec![Slot::default(); slots], len: 0 }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Reads the slot where a lookup of `key` starts, so that a `visit` of
    /// it soon after finds it in the cache: reading the slots of several
    /// keys one after the other lets their cache misses overlap.
    pub fn touch(&self, key: u64) {
        std::hint::black_box(self.slots[key as usize & (self.slots.len() - 1)].left);
    }

    /// Records that the state `key` was reached with `left` steps left
    /// (at most 254), keeping the most for each state.
    #[inline]
    pub fn visit(&mut self, key: u64, left: u8) -> Visit {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = key as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot.left == 0 {
                self.slots[i] = Slot { key, left: left + 1 };
                self.len += 1;
                return Visit::New;
            }
            if slot.key == key {
                if slot.left > left {
                    return Visit::Seen;
                }
                self.slots[i].left = left + 1;
                return Visit::MoreLeft;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let bigger = vec![Slot::default(); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|s| s.left != 0) {
            let mut i = slot.key as usize & mask;
            while self.slots[i].left != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The same answers as a map from key to the most steps left, across
    /// growth, with keys that collide in their low bits.
    #[test]
    fn keeps_the_most_steps_left_per_key() {
        let mut ours = Visited::with_capacity(0);
        let mut model: HashMap<u64, u8> = HashMap::new();
        let mut x = 1u64;
        for i in 0..50_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let key = if i % 3 == 0 { (x >> 40) << 20 } else { x >> 44 };
            let left = (x >> 7) as u8 % 9;
            let expected = match model.get(&key) {
                None => Visit::New,
                Some(&l) if l < left => Visit::MoreLeft,
                Some(_) => Visit::Seen,
            };
            if expected != Visit::Seen {
                model.insert(key, left);
            }
            assert_eq!(ours.visit(key, left), expected, "step {i}");
            assert_eq!(ours.len(), model.len());
        }
    }
}
