//! Highwater: a deterministic model of Apache Kafka's partition replication.
//!
//! The core (everything but `wasm`) is pure Rust with no clock, no I/O and no
//! hidden randomness; it builds and tests natively.

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
pub mod producer;
pub mod protocol;
pub mod replica;
pub mod rng;
pub mod rules;
pub mod scenario;
pub mod simulation;

pub use config::{BrokerId, Config, Protocol};
pub use event::{Event, Traced};
pub use invariants::{Violation, ViolationKind};
pub use scenario::{Acks, Scenario, ScenarioError, Step};
pub use simulation::Simulation;
pub mod link;
pub mod timeline;
pub mod view;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use timeline::Timeline;
pub use view::{LogWindow, StateView};
