//! The exhaustive search's visited set: the key of every state reached.

/// An open-addressing hash set of keys that are already hashes (the
/// search's state keys), with linear probing in one array of 8-byte slots:
/// a lookup usually reads one cache line (a general hash set reads its
/// control bytes and then its entries, two misses in a set this size). It
/// grows to keep at most 3/4 of its slots full. Key 0 marks an empty slot,
/// so a key of 0 is kept as 1.
pub(crate) struct Visited {
    slots: Vec<u64>,
    len: usize,
}

impl Visited {
    /// A set with room for `states` keys before it grows.
    pub fn with_capacity(states: usize) -> Visited {
        let slots = (states.saturating_mul(4) / 3 + 1).next_power_of_two().max(1 << 10);
        Visited { slots: vec![0; slots], len: 0 }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Reads the slot where a lookup of `key` starts, so that a lookup of
    /// it soon after finds it in the cache: reading the slots of several
    /// keys one after the other lets their cache misses overlap.
    #[inline]
    pub fn touch(&self, key: u64) {
        std::hint::black_box(self.slots[key as usize & (self.slots.len() - 1)]);
    }

    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        let key = key.max(1);
        let mask = self.slots.len() - 1;
        let mut i = key as usize & mask;
        loop {
            match self.slots[i] {
                0 => return false,
                k if k == key => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds `key`: true if it was not there.
    #[inline]
    pub fn insert(&mut self, key: u64) -> bool {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let key = key.max(1);
        let mask = self.slots.len() - 1;
        let mut i = key as usize & mask;
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = key;
                    self.len += 1;
                    return true;
                }
                k if k == key => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let bigger = vec![0; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        let mask = self.slots.len() - 1;
        for key in old.into_iter().filter(|&k| k != 0) {
            let mut i = key as usize & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The same answers as a hash set, across growth, with keys that
    /// collide in their low bits, and key 0.
    #[test]
    fn answers_as_a_set_does() {
        let mut ours = Visited::with_capacity(0);
        let mut model: HashSet<u64> = HashSet::new();
        let mut x = 1u64;
        for i in 0..50_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let key = match i % 5 {
                0 => (x >> 40) << 20,
                1 => 0,
                _ => x >> 44,
            };
            let key = key.max(1);
            assert_eq!(ours.contains(key), model.contains(&key), "step {i}");
            assert_eq!(ours.insert(key), model.insert(key), "step {i}");
            assert!(ours.contains(key));
            assert_eq!(ours.len(), model.len());
        }
    }
}
