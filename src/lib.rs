//! Highwater: a deterministic model of Apache Kafka's partition replication.
//!
//! The core (everything but `wasm`) is pure Rust with no clock, no I/O and no
//! hidden randomness; it builds and tests natively.

/// `Clone` for a state struct, field by field, with a `clone_from` that
/// reuses the target's allocations (the explorer copies a state into a
/// scratch one per branch). The struct literal in `clone` makes a missing
/// field a compile error, and `clone_from` copies the same list. Fields
/// listed after `short` are lists of plain values, usually empty or of one
/// or two, copied with `CopyShort`.
#[macro_export]
#[doc(hidden)]
macro_rules! clone_in_place {
    ($t:ident { $($f:ident),* $(,)? } $(short { $($s:ident),* $(,)? })?) => {
        impl Clone for $t {
            fn clone(&self) -> Self {
                $t { $($f: self.$f.clone(),)* $($($s: self.$s.clone(),)*)? }
            }
            #[inline]
            fn clone_from(&mut self, source: &Self) {
                $(self.$f.clone_from(&source.$f);)*
                $($($crate::CopyShort::copy_short(&mut self.$s, &source.$s);)*)?
            }
        }
    };
}

/// `clone_from` for a list of plain values that is usually short: none,
/// one or two values are copied one by one, where the library's slice copy
/// makes a call to memcpy that costs more than the copy itself.
#[doc(hidden)]
pub trait CopyShort {
    fn copy_short(&mut self, source: &Self);
}

macro_rules! copy_short {
    ($list:ty, $($bound:tt)*) => {
        impl<$($bound)*> CopyShort for $list {
            #[inline]
            fn copy_short(&mut self, source: &Self) {
                self.clear();
                match source.as_slice() {
                    [] => {}
                    [a] => self.push(*a),
                    [a, b] => {
                        self.push(*a);
                        self.push(*b);
                    }
                    more => self.extend_from_slice(more),
                }
            }
        }
    };
}

copy_short!(Vec<T>, T: Copy);
copy_short!(smallvec::SmallVec<A>, A: smallvec::Array<Item: Copy>);

pub mod arrivals;
pub mod bench;
pub mod config;
pub mod consumer;
pub mod controller;
pub mod event;
pub mod explore;
pub mod faults;
pub mod fork;
pub mod fetcher;
pub mod invariants;
pub mod leader;
pub mod log;
pub mod network;
pub mod operator;
pub mod per_broker;
pub mod producer;
pub mod protocol;
pub mod replica;
pub mod retries;
pub mod rng;
pub mod rules;
pub mod scenario;
pub mod shared;
pub mod simulation;
pub mod sorted_set;
pub mod spacetime;

pub use config::{BrokerId, Config, Protocol};
pub use event::{Event, Traced};
pub use invariants::{Violation, ViolationKind};
pub use scenario::{Acks, Scenario, ScenarioError, Step};
pub use simulation::Simulation;
pub mod link;
pub mod timeline;
mod visited;
pub mod view;
pub mod whatif;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use timeline::Timeline;
pub use view::{LogWindow, StateView};
