//! Highwater: a deterministic model of Apache Kafka's partition replication.
//!
//! The core (everything but `wasm`) is pure Rust with no clock, no I/O and no
//! hidden randomness; it builds and tests natively.

/// `Clone` for a state struct, field by field, with a `clone_from` that
/// reuses the target's allocations (the explorer copies a state into a
/// scratch one per branch). The struct literal in `clone` makes a missing
/// field a compile error, and `clone_from` copies the same list.
#[macro_export]
#[doc(hidden)]
macro_rules! clone_in_place {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl Clone for $t {
            fn clone(&self) -> Self {
                $t { $($f: self.$f.clone()),* }
            }
            fn clone_from(&mut self, source: &Self) {
                $(self.$f.clone_from(&source.$f);)*
            }
        }
    };
}

/// `clone_from` for a shared value: a copy that already shares it is left
/// as it is, without touching the reference counts (the explorer copies a
/// state into one that mostly shares its values already).
pub(crate) fn share_from<T: ?Sized>(target: &mut std::sync::Arc<T>, source: &std::sync::Arc<T>) {
    if !std::sync::Arc::ptr_eq(target, source) {
        *target = source.clone();
    }
}

pub mod bench;
pub mod config;
pub mod consumer;
pub mod controller;
pub mod event;
pub mod explore;
pub mod faults;
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
pub mod rng;
pub mod rules;
pub mod scenario;
pub mod simulation;
pub mod sorted_set;

pub use config::{BrokerId, Config, Protocol};
pub use event::{Event, Traced};
pub use invariants::{Violation, ViolationKind};
pub use scenario::{Acks, Scenario, ScenarioError, Step};
pub use simulation::Simulation;
pub mod link;
pub mod timeline;
pub mod view;
pub mod whatif;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use timeline::Timeline;
pub use view::{LogWindow, StateView};
