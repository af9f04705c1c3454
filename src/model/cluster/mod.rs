//! The cluster around the partitions: each broker apart from its replicas
//! (`broker`: liveness, its fetchers per source broker, delayed fetches),
//! the `network` between them, a broker's fetchers at work (`fetcher`: one
//! Fetch per leader broker carrying every partition it follows there,
//! `ReplicaFetcherThread`), what a broker does when told a partition's
//! leader and ISR (`leader_and_isr`), the metadata it applies from the
//! controller quorum (`metadata_image`), what befalls a broker (`faults`: crash,
//! restart, isolation, controlled shutdown), and the cluster's shape: where
//! each partition's replicas go (`placement`, and `topology` for a
//! scenario's topic), which partition a keyed record goes to
//! (`partitioner`), and when leadership goes back to the preferred replicas
//! (`leader_balance`). The shape's files are pure functions the engine calls.

pub mod broker;
pub mod network;
pub mod fetcher;
pub mod leader_and_isr;
pub mod metadata_image;
pub mod faults;
pub mod placement;
pub mod partitioner;
pub mod leader_balance;
pub mod topology;
