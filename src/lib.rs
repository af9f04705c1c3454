//! Highwater: a deterministic model of Apache Kafka's partition replication.
//!
//! The crate is in layers, each a folder; a layer uses only the layers above
//! it in this list (`tests/layers.rs` holds that):
//!
//! - `base`: containers, the seeded PRNG and text helpers; nothing of Kafka.
//! - `model`: Kafka's partitions on a cluster. Its vocabulary (configuration, version
//!   rules, protocol messages, steps, events, violations), the state (logs,
//!   brokers, network, producer, consumer, controller) and the engine
//!   (`Simulation`) that applies one step and checks the guarantees.
//! - `run`: a run as a user holds it: the scenario file, its link, and the
//!   timeline that replays it and seeks.
//! - `view`: what is derived from a run for people to read: the state view
//!   the page draws, the operator's view, the space-time diagram, forks.
//! - `search`: many runs at once: the explorer and the what-if grid.
//! - `boundary`: the WebAssembly API (`wasm`) and the benchmarks' entry
//!   points (`bench`); the command line is the binary, `src/main.rs`.
//!
//! Everything but `boundary::wasm` is pure Rust with no clock, no I/O and no
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

pub mod base;
pub mod boundary;
pub mod model;
pub mod run;
pub mod search;
pub mod view;

pub use model::config::{BrokerId, Config, Protocol};
pub use model::event::{Event, Traced};
pub use model::simulation::Simulation;
pub use model::step::{Acks, Step};
pub use model::violation::{Violation, ViolationKind};
pub use run::scenario::{Scenario, ScenarioError};
pub use run::timeline::Timeline;
pub use run::link;
pub use view::state::{LogWindow, StateView};
