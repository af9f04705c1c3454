//! A short list stored inline: one value per broker, or a list of broker ids.

use crate::model::limits::MAX_BROKERS;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

const N: usize = MAX_BROKERS as usize;

/// One value per broker (index `id - 1`), or a list of broker ids (an ISR),
/// stored inline: at most `MAX_BROKERS` values. It is `Copy` when its values
/// are, so copying a state (a timeline snapshot, an explorer branch) copies
/// it as plain memory, without allocating or looping. It reads as a slice;
/// the slots past its length are not part of its value.
#[derive(Copy)]
pub struct PerBroker<T> {
    len: u8,
    items: [T; N],
}

// `clone_from` is the point: the state structs copy their fields with it.
#[allow(clippy::non_canonical_clone_impl)]
impl<T: Copy> Clone for PerBroker<T> {
    fn clone(&self) -> Self {
        *self
    }

    /// Most lists are short (the brokers of a small cluster): when the values
    /// fit in a prefix of at most 128 bytes, only that prefix is copied, a
    /// copy of fixed size that the compiler writes inline, where copying all
    /// `MAX_BROKERS` slots of a large value is a call to `memcpy`.
    fn clone_from(&mut self, source: &Self) {
        let prefix = (128 / std::mem::size_of::<T>().max(1)).min(N);
        if source.len() <= prefix {
            self.items[..prefix].copy_from_slice(&source.items[..prefix]);
        } else {
            self.items = source.items;
        }
        self.len = source.len;
    }
}

impl<T: Copy + Default> PerBroker<T> {
    pub fn new() -> Self {
        PerBroker { len: 0, items: [T::default(); N] }
    }

    /// Panics past `MAX_BROKERS` values.
    pub fn push(&mut self, value: T) {
        assert!(self.len() < N, "more than {N} values for at most {N} brokers");
        self.items[self.len()] = value;
        self.len += 1;
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the values `keep` accepts, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let mut kept = 0;
        for i in 0..self.len() {
            if keep(&self.items[i]) {
                self.items[kept] = self.items[i];
                kept += 1;
            }
        }
        self.len = kept as u8;
    }
}

impl<T> PerBroker<T> {
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len as usize]
    }
}

impl<T: Copy + Default> Default for PerBroker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Deref for PerBroker<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> DerefMut for PerBroker<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.items[..self.len as usize]
    }
}

impl<T: Copy + Default> FromIterator<T> for PerBroker<T> {
    fn from_iter<I: IntoIterator<Item = T>>(values: I) -> Self {
        let mut list = Self::new();
        for value in values {
            list.push(value);
        }
        list
    }
}

impl<T> IntoIterator for PerBroker<T> {
    type Item = T;
    type IntoIter = std::iter::Take<std::array::IntoIter<T, N>>;
    fn into_iter(self) -> Self::IntoIter {
        let len = self.len as usize;
        self.items.into_iter().take(len)
    }
}

impl<'a, T> IntoIterator for &'a PerBroker<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a, T> IntoIterator for &'a mut PerBroker<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T: PartialEq> PartialEq for PerBroker<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for PerBroker<T> {}

impl<T: Hash> Hash for PerBroker<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl<T: serde::Serialize> serde::Serialize for PerBroker<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl<T: fmt::Debug> fmt::Debug for PerBroker<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_the_slice_of_its_values() {
        let mut a: PerBroker<u32> = [3, 1, 2].into_iter().collect();
        a.retain(|&b| b != 1);
        assert_eq!(a.as_slice(), &[3, 2]);
        a.push(5);
        a.sort_unstable();
        assert_eq!(a[..], [2, 3, 5]);
        assert_eq!(format!("{a:?}"), "[2, 3, 5]");
        let b: PerBroker<u32> = [2, 3, 5, 9].into_iter().collect();
        let mut c = b;
        c.retain(|&x| x != 9);
        assert_eq!(a, c, "slots past the length do not count");
        assert_ne!(a, b);
        assert_eq!(c.into_iter().collect::<Vec<_>>(), vec![2, 3, 5]);
        c.clear();
        assert!(c.is_empty() && c == PerBroker::new());
    }
}
