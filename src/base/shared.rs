//! Values shared between copies of a state until one copy changes them.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// `clone_from` for a shared value: a copy that already shares it is left
/// as it is, without touching the reference counts (the explorer copies a
/// state into one that mostly shares its values already).
#[inline]
pub(crate) fn share_from<T: ?Sized>(target: &mut Arc<T>, source: &Arc<T>) {
    if !Arc::ptr_eq(target, source) {
        *target = source.clone();
    }
}

/// A part of the state that copies of it share until one of them changes
/// it (copy on write), for parts a search copies with every state and a
/// step seldom changes. It reads as the value (`Deref`); `make_mut` gives
/// this copy its own value to change.
#[derive(Default)]
pub struct Shared<T>(Arc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Arc::new(value))
    }
}

impl<T: Clone> Shared<T> {
    pub fn make_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
    #[inline]
    fn clone_from(&mut self, source: &Self) {
        share_from(&mut self.0, &source.0);
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        *self.0 == *other.0
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<T: Hash> Hash for Shared<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state)
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
