//! One partition, the unit every rule of replication is about: each
//! replica's `log` (records and the leader-epoch cache) and its LEO, HW and
//! checkpoint (`replica`), and the leader's side of the protocol (`leader`:
//! appending, the high watermark, ISR shrink and expand, answering a
//! follower's Fetch and OffsetsForLeaderEpoch), as `Partition.scala` and
//! `ReplicaManager` do it.

pub mod log;
pub mod replica;
pub mod leader;
