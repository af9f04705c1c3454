//! Kafka's partitions on a cluster, as a pure state machine.
//!
//! - The vocabulary, which imports nothing else of the model: `config`
//!   (with `limits` and the brokers' ids), `rules` (what each Kafka version
//!   does, as data), `per_broker`, `protocol` (the messages on the wire),
//!   `step` (the closed enum of actions), `event` (what happened, typed) and
//!   `violation` (a broken guarantee).
//! - `partition/`: one partition, the unit of every replication rule: a
//!   replica's log and offsets, and the leader's side of the protocol.
//! - `cluster/`: the brokers around the partitions, their fetchers per
//!   source broker, the network, faults, and the cluster's shape
//!   (placement, the keyed partitioner, leader balance).
//! - `controller/`: what the controller holds of every partition and broker,
//!   and its decisions over them.
//! - `quorum/`: the KRaft controller quorum: the controllers' metadata
//!   log, replicated by Kafka's Raft (elections by vote, commit by majority).
//! - `clients/`: the producer and the consumer.
//! - `invariants`: the safety checks, over a view of the state.
//! - The engine: `simulation` (`Simulation::apply`; its fields are the
//!   state above) beside `accounting` (the run's events and budgets).
//!
//! The state (each folder's state files) never imports the engine; each
//! part of the protocol implements its share of `Simulation` in its own
//! folder, so no two files of the model import each other in a circle
//! (`tests/layers.rs`). The model uses `base` only: never a run, a view, a
//! search or a boundary.

pub mod limits;
pub mod config;
pub mod rules;
pub mod per_broker;
pub mod protocol;
pub mod step;
pub mod event;
pub mod violation;
pub mod partition;
pub mod cluster;
pub mod controller;
pub mod quorum;
pub mod clients;
pub mod invariants;
pub mod accounting;
pub mod simulation;
