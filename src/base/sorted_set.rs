//! An ordered set kept as a sorted vector.

/// An ordered set kept as a sorted vector. The engine's sets are small (a
/// few records or brokers) or grow at their end (writes are acknowledged in
/// offset order, retries are scheduled in time order), and a vector copies
/// into another one's allocation (`clone_from`): the explorer copies the
/// whole state for every state it generates, and a `BTreeSet` would allocate
/// its nodes anew on each copy.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SortedSet<T> {
    items: Vec<T>,
}

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        SortedSet { items: Vec::new() }
    }
}

impl<T: Clone> Clone for SortedSet<T> {
    fn clone(&self) -> Self {
        SortedSet { items: self.items.clone() }
    }
    fn clone_from(&mut self, source: &Self) {
        self.items.clone_from(&source.items);
    }
}

impl<T: Copy> crate::CopyShort for SortedSet<T> {
    fn copy_short(&mut self, source: &Self) {
        self.items.copy_short(&source.items);
    }
}

impl<T: Ord + Copy> SortedSet<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// False if `x` was already in the set.
    pub fn insert(&mut self, x: T) -> bool {
        if self.items.last().is_none_or(|last| *last < x) {
            self.items.push(x);
            return true;
        }
        match self.items.binary_search(&x) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, x);
                true
            }
        }
    }

    /// False if `x` was not in the set.
    pub fn remove(&mut self, x: &T) -> bool {
        match self.items.binary_search(x) {
            Ok(i) => {
                self.items.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    pub fn contains(&self, x: &T) -> bool {
        self.items.binary_search(x).is_ok()
    }

    pub fn first(&self) -> Option<&T> {
        self.items.first()
    }

    /// The elements from `from` on, in order.
    pub fn range_from(&self, from: T) -> &[T] {
        &self.items[self.items.partition_point(|x| *x < from)..]
    }

    /// Removes the first elements, as long as `pred` holds (it must hold
    /// for a prefix of the set), and returns them in order.
    pub fn take_first_while(&mut self, pred: impl Fn(&T) -> bool) -> std::vec::Drain<'_, T> {
        let n = self.items.partition_point(pred);
        self.items.drain(..n)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<T: Ord + Copy> Extend<T> for SortedSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for x in items {
            self.insert(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The same answers as a `BTreeSet` under a mixed sequence of operations.
    #[test]
    fn behaves_as_an_ordered_set() {
        let mut ours = SortedSet::new();
        let mut model = BTreeSet::new();
        let mut x = 7u64;
        for i in 0..2000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = (x >> 58, i % 3);
            match x >> 62 {
                0 | 1 => assert_eq!(ours.insert(v), model.insert(v)),
                2 => assert_eq!(ours.remove(&v), model.remove(&v)),
                _ => {
                    let bound = (x >> 59, 0);
                    let taken: Vec<_> = ours.take_first_while(|y| *y < bound).collect();
                    let expected: Vec<_> = model.iter().copied().filter(|y| *y < bound).collect();
                    model.retain(|y| *y >= bound);
                    assert_eq!(taken, expected);
                }
            }
            assert_eq!(ours.iter().copied().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            assert_eq!(ours.range_from(v).to_vec(), model.range(v..).copied().collect::<Vec<_>>());
            assert_eq!(ours.contains(&v), model.contains(&v));
        }
    }
}
