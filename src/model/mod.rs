//! Kafka's partitions on a cluster, as a pure state machine.
//!
//! The vocabulary comes first and imports nothing of the engine: `config`
//! (with `limits` and the brokers' ids), `rules` (what each Kafka version
//! does, as data), `protocol` (the messages on the wire), `step` (the closed
//! enum of actions), `event` (what happened, typed) and `violation` (a broken
//! guarantee). The state: `log` (records and the leader-epoch cache),
//! `broker` (a broker apart from its partitions), `replica` (its replica of a
//! partition), `network`. The engine is `simulation`
//! (`Simulation::apply`; its fields are the brokers, the partitions' replicas
//! and the controller's registrations) beside `accounting`
//! (the run's events and budgets), with each part of the protocol in a file of its own
//! implementing its share of the engine: `leader`, `fetcher`, `controller`,
//! `rebalance` (the controller's automatic leader rebalance), `producer`,
//! `consumer`, `faults`, and the safety checks in `invariants`.
//! The cluster's shape (placement, the keyed partitioner, leader balance) is
//! `cluster/`, pure functions the engine calls. The model uses `base` only:
//! never a run, a view, a search or a boundary.

pub mod config;
pub mod rules;
pub mod per_broker;
pub mod protocol;
pub mod step;
pub mod event;
pub mod violation;
pub mod log;
pub mod broker;
pub mod replica;
pub mod network;
pub mod accounting;
pub mod simulation;
pub mod leader;
pub mod fetcher;
pub mod controller;
pub mod rebalance;
pub mod producer;
pub mod consumer;
pub mod faults;
pub mod invariants;
pub mod cluster;
