//! The cluster around the partition: brokers in racks, where each
//! partition's replicas go (`placement`, and `topology` for a scenario's
//! topic), which partition a keyed record goes to (`partitioner`), and when
//! the controller moves leadership back to the preferred replicas
//! (`leader_balance`). Pure functions of the cluster's shape; the engine
//! calls them.

pub mod placement;
pub mod partitioner;
pub mod leader_balance;
pub mod topology;
