//! The simulation's quorum, if its scenario has controllers.
//!
//! Built without the `quorum` feature (the page's first core, `www/pkg`), a
//! slot is always empty and says so as a constant: every path into the
//! quorum behind `as_deref`, `is_some` and the like is dead code, which the
//! compiler drops, so that core carries none of the quorum's engine. Such a
//! core refuses a scenario with controllers (`Config::validate`), and the
//! page loads the core built with it (`www/pkg-quorum`) first.

use crate::model::config::QUORUM_BUILT;
use crate::model::quorum::Quorum;

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct QuorumSlot(Option<Box<Quorum>>);

impl QuorumSlot {
    /// The quorum `make` builds, in a build that has it; else empty, and
    /// `make` is not called.
    pub fn new(make: impl FnOnce() -> Option<Quorum>) -> QuorumSlot {
        QuorumSlot(if QUORUM_BUILT { make().map(Box::new) } else { None })
    }

    #[inline(always)]
    pub fn as_deref(&self) -> Option<&Quorum> {
        if QUORUM_BUILT { self.0.as_deref() } else { None }
    }

    #[inline(always)]
    pub fn as_deref_mut(&mut self) -> Option<&mut Quorum> {
        if QUORUM_BUILT { self.0.as_deref_mut() } else { None }
    }

    #[inline(always)]
    pub fn is_some(&self) -> bool {
        QUORUM_BUILT && self.0.is_some()
    }

    #[inline(always)]
    pub fn is_none(&self) -> bool {
        !self.is_some()
    }
}

impl Clone for QuorumSlot {
    fn clone(&self) -> Self {
        QuorumSlot(if QUORUM_BUILT { self.0.clone() } else { None })
    }

    /// In place, as `Option<Box<_>>` does: the boxed quorum's own
    /// `clone_from` reuses its allocations.
    #[inline]
    fn clone_from(&mut self, source: &Self) {
        if QUORUM_BUILT {
            self.0.clone_from(&source.0);
        }
    }
}
