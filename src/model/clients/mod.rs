//! The clients: the producer's records (`accumulator`) and how it sends,
//! retries and expires them (`producer`); the consumer's positions
//! (`subscription`) and its fetches (`consumer`).

pub mod accumulator;
pub mod producer;
pub mod subscription;
pub mod consumer;
