//! Where each partition's replicas are: the assignment written in the
//! scenario, or Kafka's placement at topic creation, the ZooKeeper-era
//! `AdminUtils.assignReplicasToBrokers` (rack-aware when the brokers have
//! racks) or KRaft's `StripedReplicaPlacer`, its random choices drawn from
//! the scenario's seed.

use crate::base::rng::Rng;
use crate::model::cluster::placement::{assign_replicas_to_brokers, BrokerMetadata, StripedReplicaPlacer, UsableBroker};
use crate::model::config::{BrokerId, BrokerList, Config};
use crate::model::rules::Rule;

/// Each partition's replicas in assignment order, the preferred leader
/// first. A topic of one partition on every broker, with no racks and no
/// assignment written, has its replicas in id order (broker 1 preferred),
/// as this model always had it; any other topic is placed as Kafka places
/// it, from a random stream of its own seeded with the scenario's seed (the
/// run's other draws are not moved by it). The configuration must be valid.
pub fn replica_assignment(config: &Config) -> Vec<BrokerList> {
    let rf = config.replication_factor();
    if let Some(written) = &config.assignment {
        return written.iter().map(|r| r.iter().copied().collect()).collect();
    }
    if config.partitions == 1 && rf == config.brokers && config.racks.is_none() {
        return vec![config.broker_ids().collect()];
    }
    let mut random = Rng::new(config.seed);
    let placed = if config.rules().has(Rule::KraftController) {
        // `ReplicationControlManager.createTopic` asks the placer for every
        // partition at once, over the registered brokers (none fenced yet).
        let brokers: Vec<UsableBroker> = config.broker_ids().map(|b| UsableBroker::new(b, config.rack(b), false)).collect();
        StripedReplicaPlacer::new(&mut random).place(config.partitions as i32, rf as i32, &brokers)
    } else {
        // `AdminZkClient.createTopic` passes the brokers sorted by id.
        let brokers: Vec<BrokerMetadata> = config.broker_ids().map(|b| BrokerMetadata::new(b, config.rack(b))).collect();
        assign_replicas_to_brokers(&brokers, config.partitions as i32, rf as i32, &mut random)
    };
    let placed: Vec<Vec<BrokerId>> = placed.expect("a valid configuration can be placed: 1 <= replication factor <= brokers, racks on all or none");
    placed.into_iter().map(|r| r.into_iter().collect()).collect()
}
