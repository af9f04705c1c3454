//! Where a new topic's replicas go: Kafka's two replica placers, as pure
//! functions of the brokers (ids, racks, fencing) and a random source the
//! caller hands in.
//!
//! - ZooKeeper era: `AdminUtils.assignReplicasToBrokers` (2.0 to 3.x), the
//!   rack-unaware round robin with an increasing follower shift, and the
//!   rack-aware round robin over a rack-alternated broker list.
//! - KRaft: `StripedReplicaPlacer` (3.0 on; unchanged in substance through
//!   3.8, 3.9 and trunk), which stripes partitions across racks, prefers
//!   unfenced brokers and never makes a fenced broker the leader.
//!
//! Kafka draws from a `java.util.Random`; here every draw goes through
//! [`Draw`], which the project's [`Rng`] implements, so a scenario's seed
//! decides the placement, and a test can implement Kafka's `MockRandom` and
//! get Kafka's own expected lists. Each result is one replica list per
//! partition, the preferred leader first.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use crate::base::rng::Rng;
use crate::model::config::BrokerId;

/// A source of random numbers, as Kafka's placers use `java.util.Random`:
/// only `nextInt(bound)` is ever called.
pub trait Draw {
    /// A number in `0..bound` (`bound > 0`), as `Random.nextInt(bound)`.
    fn next_int(&mut self, bound: u32) -> u32;
}

impl Draw for Rng {
    fn next_int(&mut self, bound: u32) -> u32 {
        // `below(bound) < bound <= u32::MAX`, so the cast keeps the value.
        self.below(u64::from(bound)) as u32
    }
}

/// A placer that owns its source can also be lent one (`&mut rng`).
impl<D: Draw + ?Sized> Draw for &mut D {
    fn next_int(&mut self, bound: u32) -> u32 {
        (**self).next_int(bound)
    }
}

/// Why replicas cannot be placed, with Kafka's exception and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlacementError {
    /// `AdminUtils.assignReplicasToBrokers`: `InvalidPartitionsException`.
    PartitionsNotPositive { n_partitions: i32 },
    /// `AdminUtils.assignReplicasToBrokers`: `InvalidReplicationFactorException`.
    ReplicationFactorNotPositive { replication_factor: i32 },
    /// `AdminUtils.assignReplicasToBrokers`: `InvalidReplicationFactorException`.
    ReplicationFactorLargerThanBrokers { replication_factor: i32, brokers: usize },
    /// `AdminUtils.assignReplicasToBrokers`: `AdminOperationException`, some
    /// brokers with a rack and some without.
    NotAllBrokersHaveRack,
    /// `StripedReplicaPlacer.throwInvalidReplicationFactorIfNonPositive`.
    InvalidReplicationFactor { replication_factor: i32 },
    /// `StripedReplicaPlacer.throwInvalidReplicationFactorIfTooFewBrokers`.
    TooFewBrokers { replication_factor: i32, num_total_brokers: usize },
    /// `StripedReplicaPlacer.throwInvalidReplicationFactorIfZero`.
    AllBrokersFenced,
}

impl PlacementError {
    /// The Java class Kafka throws, for traces and for tests that assert it.
    pub fn kafka_exception(&self) -> &'static str {
        match self {
            PlacementError::PartitionsNotPositive { .. } => "InvalidPartitionsException",
            PlacementError::NotAllBrokersHaveRack => "AdminOperationException",
            PlacementError::ReplicationFactorNotPositive { .. }
            | PlacementError::ReplicationFactorLargerThanBrokers { .. }
            | PlacementError::InvalidReplicationFactor { .. }
            | PlacementError::TooFewBrokers { .. }
            | PlacementError::AllBrokersFenced => "InvalidReplicationFactorException",
        }
    }
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementError::PartitionsNotPositive { .. } => f.write_str("Number of partitions must be larger than 0."),
            PlacementError::ReplicationFactorNotPositive { .. } => f.write_str("Replication factor must be larger than 0."),
            PlacementError::ReplicationFactorLargerThanBrokers { replication_factor, brokers } => {
                write!(f, "Replication factor: {replication_factor} larger than available brokers: {brokers}.")
            }
            PlacementError::NotAllBrokersHaveRack => f.write_str("Not all brokers have rack information for replica rack aware assignment."),
            PlacementError::InvalidReplicationFactor { replication_factor } => {
                write!(f, "Invalid replication factor {replication_factor}: the replication factor must be positive.")
            }
            PlacementError::TooFewBrokers { replication_factor, num_total_brokers } => write!(
                f,
                "The target replication factor of {replication_factor} cannot be reached because only {num_total_brokers} broker(s) are registered."
            ),
            PlacementError::AllBrokersFenced => f.write_str("All brokers are currently fenced."),
        }
    }
}

impl std::error::Error for PlacementError {}

// ---------------------------------------------------------------------------
// ZooKeeper era: AdminUtils.assignReplicasToBrokers
// ---------------------------------------------------------------------------

/// A broker as `AdminUtils` sees it (`kafka.admin.BrokerMetadata`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BrokerMetadata<'a> {
    pub id: BrokerId,
    pub rack: Option<&'a str>,
}

impl<'a> BrokerMetadata<'a> {
    pub fn new(id: BrokerId, rack: Option<&'a str>) -> Self {
        BrokerMetadata { id, rack }
    }
}

/// The numbers `AdminUtils` draws at random unless its caller fixes them:
/// where the first leader falls, the follower shift, and the first partition
/// id (`fixedStartIndex` sets the first two, `startPartitionId` the third).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StartIndex {
    pub start_index: u32,
    pub next_replica_shift: u32,
    /// A new topic starts at 0; adding partitions starts at the count so far.
    pub start_partition_id: u32,
}

impl StartIndex {
    /// Kafka's `fixedStartIndex`: the same number for the start index and
    /// the shift, from partition 0, as Kafka's tests pass it.
    pub fn fixed(fixed_start_index: u32) -> StartIndex {
        StartIndex { start_index: fixed_start_index, next_replica_shift: fixed_start_index, start_partition_id: 0 }
    }
}

/// `AdminUtils.assignReplicasToBrokers` for a new topic (partitions from 0):
/// draws `startIndex`, then `nextReplicaShift`, each `nextInt(brokers)`, as
/// Kafka does when no `fixedStartIndex` is given.
///
/// `broker_metadatas` in id order, as Kafka's callers give them
/// (`AdminZkClient.getBrokerMetadatas` sorts by id); the rack-unaware path
/// walks them in the order given.
pub fn assign_replicas_to_brokers(broker_metadatas: &[BrokerMetadata<'_>], n_partitions: i32, replication_factor: i32, random: &mut impl Draw) -> Result<Vec<Vec<BrokerId>>, PlacementError> {
    check_assignment(broker_metadatas, n_partitions, replication_factor)?;
    // Both the rack-aware list and the plain broker array have one entry per broker.
    let n = broker_metadatas.len() as u32;
    let start_index = random.next_int(n);
    let next_replica_shift = random.next_int(n);
    assign_replicas_to_brokers_from(broker_metadatas, n_partitions, replication_factor, StartIndex { start_index, next_replica_shift, start_partition_id: 0 })
}

/// `AdminUtils.assignReplicasToBrokers` with the start fixed, as Kafka's
/// tests and partition expansion call it. One replica list per partition
/// from `start.start_partition_id` on.
pub fn assign_replicas_to_brokers_from(broker_metadatas: &[BrokerMetadata<'_>], n_partitions: i32, replication_factor: i32, start: StartIndex) -> Result<Vec<Vec<BrokerId>>, PlacementError> {
    check_assignment(broker_metadatas, n_partitions, replication_factor)?;
    // Both checked positive above.
    let (n_partitions, replication_factor) = (n_partitions as usize, replication_factor as usize);
    if broker_metadatas.iter().all(|b| b.rack.is_none()) {
        let broker_array: Vec<BrokerId> = broker_metadatas.iter().map(|b| b.id).collect();
        Ok(assign_replicas_to_brokers_rack_unaware(n_partitions, replication_factor, &broker_array, start))
    } else {
        let broker_rack_map: BTreeMap<BrokerId, &str> = broker_metadatas.iter().filter_map(|b| Some((b.id, b.rack?))).collect();
        Ok(assign_replicas_to_brokers_rack_aware(n_partitions, replication_factor, &broker_rack_map, start))
    }
}

/// The checks at the top of `AdminUtils.assignReplicasToBrokers`, in Kafka's order.
fn check_assignment(broker_metadatas: &[BrokerMetadata<'_>], n_partitions: i32, replication_factor: i32) -> Result<(), PlacementError> {
    if n_partitions <= 0 {
        return Err(PlacementError::PartitionsNotPositive { n_partitions });
    }
    if replication_factor <= 0 {
        return Err(PlacementError::ReplicationFactorNotPositive { replication_factor });
    }
    if replication_factor as usize > broker_metadatas.len() {
        return Err(PlacementError::ReplicationFactorLargerThanBrokers { replication_factor, brokers: broker_metadatas.len() });
    }
    let with_rack = broker_metadatas.iter().filter(|b| b.rack.is_some()).count();
    if with_rack != 0 && with_rack != broker_metadatas.len() {
        return Err(PlacementError::NotAllBrokersHaveRack);
    }
    Ok(())
}

/// `AdminUtils.assignReplicasToBrokersRackUnaware`: leaders round robin from
/// `startIndex`; followers at an increasing shift from the leader, the shift
/// growing by one each time the partitions wrap round the brokers, so the
/// same follower sets do not repeat.
fn assign_replicas_to_brokers_rack_unaware(n_partitions: usize, replication_factor: usize, broker_array: &[BrokerId], start: StartIndex) -> Vec<Vec<BrokerId>> {
    let n_brokers = broker_array.len();
    let start_index = start.start_index as usize;
    let mut next_replica_shift = start.next_replica_shift as usize;
    let start_partition_id = start.start_partition_id as usize;
    let mut ret = Vec::with_capacity(n_partitions);
    for current_partition_id in start_partition_id..start_partition_id + n_partitions {
        if current_partition_id > 0 && current_partition_id % n_brokers == 0 {
            next_replica_shift += 1;
        }
        let first_replica_index = (current_partition_id + start_index) % n_brokers;
        let mut replica_buffer = vec![broker_array[first_replica_index]];
        for j in 0..replication_factor - 1 {
            replica_buffer.push(broker_array[replica_index(first_replica_index, next_replica_shift, j, n_brokers)]);
        }
        ret.push(replica_buffer);
    }
    ret
}

/// `AdminUtils.assignReplicasToBrokersRackAware`: leaders round robin over
/// the rack-alternated list; each follower is the next broker at the shift
/// (scaled by the rack count) that is on a rack without a replica yet (while
/// there is one) and is not a replica yet (while there is one).
fn assign_replicas_to_brokers_rack_aware(n_partitions: usize, replication_factor: usize, broker_rack_map: &BTreeMap<BrokerId, &str>, start: StartIndex) -> Vec<Vec<BrokerId>> {
    let num_racks = {
        let mut racks: Vec<&str> = broker_rack_map.values().copied().collect();
        racks.sort_unstable();
        racks.dedup();
        racks.len()
    };
    let arranged_broker_list = get_rack_alternated_broker_list(broker_rack_map);
    let num_brokers = arranged_broker_list.len();
    let start_index = start.start_index as usize;
    let mut next_replica_shift = start.next_replica_shift as usize;
    let start_partition_id = start.start_partition_id as usize;
    let mut ret = Vec::with_capacity(n_partitions);
    for current_partition_id in start_partition_id..start_partition_id + n_partitions {
        if current_partition_id > 0 && current_partition_id % num_brokers == 0 {
            next_replica_shift += 1;
        }
        let first_replica_index = (current_partition_id + start_index) % num_brokers;
        let leader = arranged_broker_list[first_replica_index];
        let mut replica_buffer = vec![leader];
        let mut racks_with_replicas = vec![broker_rack_map[&leader]];
        let mut k = 0;
        for _ in 0..replication_factor - 1 {
            // Kafka's `while (!done)` ends within `num_brokers - 1` tries: the
            // shifts from the leader visit every other broker, and while the
            // replication factor is not reached one of them is acceptable.
            for tries in 0.. {
                assert!(tries < num_brokers, "assignReplicasToBrokersRackAware found no broker for partition {current_partition_id}");
                let broker = arranged_broker_list[replica_index(first_replica_index, next_replica_shift * num_racks, k, num_brokers)];
                let rack = broker_rack_map[&broker];
                k += 1;
                // Skip a broker on a rack that has a replica while some rack
                // has none, and a broker that has a replica while some broker
                // has none.
                if (!racks_with_replicas.contains(&rack) || racks_with_replicas.len() == num_racks) && (!replica_buffer.contains(&broker) || replica_buffer.len() == num_brokers) {
                    replica_buffer.push(broker);
                    if !racks_with_replicas.contains(&rack) {
                        racks_with_replicas.push(rack);
                    }
                    break;
                }
            }
        }
        ret.push(replica_buffer);
    }
    ret
}

/// `AdminUtils.getRackAlternatedBrokerList`: one broker from each rack in
/// turn (racks in name order, brokers in id order within a rack), so a round
/// robin over the list also goes round the racks. Racks 1: 0, 1, 2;
/// 2: 3, 4, 5; 3: 6, 7, 8 give 0, 3, 6, 1, 4, 7, 2, 5, 8.
pub fn get_rack_alternated_broker_list(broker_rack_map: &BTreeMap<BrokerId, &str>) -> Vec<BrokerId> {
    // `getInverseMap`: each rack's brokers, in id order (the map's order).
    let mut brokers_by_rack: Vec<(&str, Vec<BrokerId>)> = Vec::new();
    for (&id, &rack) in broker_rack_map {
        match brokers_by_rack.iter_mut().find(|(name, _)| *name == rack) {
            Some((_, brokers)) => brokers.push(id),
            None => brokers_by_rack.push((rack, vec![id])),
        }
    }
    brokers_by_rack.sort_by(|a, b| java_string_cmp(a.0, b.0));
    let mut result = Vec::with_capacity(broker_rack_map.len());
    for round in 0.. {
        if result.len() == broker_rack_map.len() {
            break;
        }
        result.extend(brokers_by_rack.iter().filter_map(|(_, brokers)| brokers.get(round)));
    }
    result
}

/// `AdminUtils.replicaIndex`: the follower `replica_index` positions on from
/// the leader, never the leader itself (the shift is in `1..n_brokers`).
fn replica_index(first_replica_index: usize, second_replica_shift: usize, replica_index: usize, n_brokers: usize) -> usize {
    let shift = 1 + (second_replica_shift + replica_index) % (n_brokers - 1);
    (first_replica_index + shift) % n_brokers
}

// ---------------------------------------------------------------------------
// KRaft: StripedReplicaPlacer
// ---------------------------------------------------------------------------

/// A broker the controller may place replicas on (`UsableBroker`): fenced
/// brokers may hold followers but never the leader of a new partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UsableBroker<'a> {
    pub id: BrokerId,
    pub rack: Option<&'a str>,
    pub fenced: bool,
}

impl<'a> UsableBroker<'a> {
    pub fn new(id: BrokerId, rack: Option<&'a str>, fenced: bool) -> Self {
        UsableBroker { id, rack, fenced }
    }
}

/// `StripedReplicaPlacer.BrokerList`: brokers handed out round robin from a
/// random offset, each at most once per iteration epoch; a new epoch moves
/// the offset on by one so the next pass starts one further along.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrokerList {
    brokers: Vec<BrokerId>,
    /// How many brokers this epoch has taken.
    index: usize,
    /// Added to `index`, modulo the size, to pick the entry.
    offset: usize,
    /// The epoch last seen; another one resets `index` and moves `offset`.
    epoch: u32,
}

impl BrokerList {
    /// `BrokerList.add`.
    pub fn add(&mut self, broker: BrokerId) -> &mut Self {
        self.brokers.push(broker);
        self
    }

    /// `BrokerList.initialize`: sort, then draw the start offset.
    fn initialize(&mut self, random: &mut impl Draw) {
        if !self.brokers.is_empty() {
            self.brokers.sort_unstable();
            self.offset = random.next_int(self.brokers.len() as u32) as usize;
        }
    }

    /// `BrokerList.shuffle`; `index` and `offset` are kept, as in Kafka.
    fn shuffle(&mut self, random: &mut impl Draw) {
        collections_shuffle(&mut self.brokers, random);
    }

    /// `BrokerList.size`.
    pub fn size(&self) -> usize {
        self.brokers.len()
    }

    /// `BrokerList.next`: the next broker in `epoch`, or `None` (Kafka's -1)
    /// once every broker has been handed out in it.
    pub fn next(&mut self, epoch: u32) -> Option<BrokerId> {
        if self.brokers.is_empty() {
            return None;
        }
        if self.epoch != epoch {
            self.epoch = epoch;
            self.index = 0;
            self.offset = (self.offset + 1) % self.brokers.len();
        }
        if self.index >= self.brokers.len() {
            return None;
        }
        let broker = self.brokers[(self.index + self.offset) % self.brokers.len()];
        self.index += 1;
        Some(broker)
    }
}

/// `StripedReplicaPlacer.Rack`: its unfenced brokers, and its fenced ones
/// to fall back on.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rack<'a> {
    name: Option<&'a str>,
    fenced: BrokerList,
    unfenced: BrokerList,
}

impl Rack<'_> {
    /// `Rack.initialize`: fenced first, as Kafka draws.
    fn initialize(&mut self, random: &mut impl Draw) {
        self.fenced.initialize(random);
        self.unfenced.initialize(random);
    }

    /// `Rack.shuffle`.
    fn shuffle(&mut self, random: &mut impl Draw) {
        self.fenced.shuffle(random);
        self.unfenced.shuffle(random);
    }

    /// `Rack.next`: an unfenced broker if one is left in `epoch`, else a fenced one.
    fn next(&mut self, epoch: u32) -> Option<BrokerId> {
        self.unfenced.next(epoch).or_else(|| self.fenced.next(epoch))
    }
}

/// `StripedReplicaPlacer.RackList`: the racks, visited round robin from a
/// random offset that moves on by one per partition, which gives the
/// "striped" pattern; after as many partitions as there are unfenced
/// brokers, racks and brokers are shuffled so the pattern does not repeat.
#[derive(Clone, Debug)]
pub struct RackList<'a, D: Draw> {
    random: D,
    /// In the order the brokers first named them.
    racks: Vec<Rack<'a>>,
    /// Kafka keeps the racks in a `HashMap` and draws for each rack (at
    /// `initialize` and `shuffle`) in that map's iteration order; this is
    /// that order, as indices into `racks`, so the same draws reach the
    /// same racks.
    hash_map_order: Vec<usize>,
    /// `rackNames`: indices into `racks`, sorted by name (no rack first),
    /// then reshuffled. Kafka's comment says racks with an unfenced broker
    /// come first, but its code sorts them all by name; this follows the code.
    rack_names: Vec<usize>,
    num_total_brokers: usize,
    num_unfenced_brokers: usize,
    /// The iteration epoch: one per partition placed.
    epoch: u32,
    /// Where in `rack_names` the next partition starts.
    offset: usize,
}

impl<'a, D: Draw> RackList<'a, D> {
    /// `RackList(random, usableBrokers)`: group the brokers by rack, draw
    /// each rack's broker offsets, then the rack offset.
    pub fn new(mut random: D, brokers: &[UsableBroker<'a>]) -> Self {
        let mut racks: Vec<Rack<'a>> = Vec::new();
        let mut num_unfenced_brokers = 0;
        for broker in brokers {
            let at = match racks.iter().position(|r| r.name == broker.rack) {
                Some(at) => at,
                None => {
                    racks.push(Rack { name: broker.rack, fenced: BrokerList::default(), unfenced: BrokerList::default() });
                    racks.len() - 1
                }
            };
            if broker.fenced {
                racks[at].fenced.add(broker.id);
            } else {
                num_unfenced_brokers += 1;
                racks[at].unfenced.add(broker.id);
            }
        }
        let names: Vec<Option<&str>> = racks.iter().map(|r| r.name).collect();
        let hash_map_order = java_hash_map_order(&names);
        for &at in &hash_map_order {
            racks[at].initialize(&mut random);
        }
        let mut rack_names: Vec<usize> = (0..racks.len()).collect();
        rack_names.sort_by(|&a, &b| optional_string_cmp(racks[a].name, racks[b].name));
        let offset = if rack_names.is_empty() { 0 } else { random.next_int(rack_names.len() as u32) as usize };
        RackList { random, racks, hash_map_order, rack_names, num_total_brokers: brokers.len(), num_unfenced_brokers, epoch: 0, offset }
    }

    /// `RackList.numTotalBrokers`.
    pub fn num_total_brokers(&self) -> usize {
        self.num_total_brokers
    }

    /// `RackList.numUnfencedBrokers`.
    pub fn num_unfenced_brokers(&self) -> usize {
        self.num_unfenced_brokers
    }

    /// `RackList.rackNames`, in their current order.
    pub fn rack_names(&self) -> Vec<Option<&'a str>> {
        self.rack_names.iter().map(|&at| self.racks[at].name).collect()
    }

    /// `RackList.place`: one partition's replicas. The leader is the first
    /// unfenced broker found from the current rack on; the followers take one
    /// broker per rack round from the current rack, skipping the leader's
    /// rack once, unfenced before fenced.
    pub fn place(&mut self, replication_factor: i32) -> Result<Vec<BrokerId>, PlacementError> {
        throw_invalid_replication_factor_if_non_positive(replication_factor)?;
        throw_invalid_replication_factor_if_too_few_brokers(replication_factor, self.num_total_brokers)?;
        throw_invalid_replication_factor_if_zero(self.num_unfenced_brokers)?;
        // After as many partitions as unfenced brokers, shuffle to avoid
        // repeating the same assignments; not for a single unfenced broker,
        // where Kafka would otherwise loop forever.
        if self.epoch as usize == self.num_unfenced_brokers && self.num_unfenced_brokers > 1 {
            self.shuffle();
            self.epoch = 0;
        }
        if self.offset == self.rack_names.len() {
            self.offset = 0;
        }
        let racks_len = self.rack_names.len();
        let mut brokers = Vec::with_capacity(replication_factor as usize);
        let mut first_rack_index = self.offset;
        // Kafka's `while (true)`; some rack has an unfenced broker (checked
        // above) and each epoch starts every list afresh, so a round finds one.
        for tries in 0.. {
            assert!(tries <= racks_len, "StripedReplicaPlacer: no unfenced broker left in epoch {} (Kafka would loop forever)", self.epoch);
            if let Some(result) = self.racks[self.rack_names[first_rack_index]].unfenced.next(self.epoch) {
                brokers.push(result);
                break;
            }
            first_rack_index = (first_rack_index + 1) % racks_len;
        }
        // Kafka sets `firstRackIndex` to -1 once the leader's rack is skipped.
        let mut leader_rack_index = Some(first_rack_index);
        let mut rack_index = self.offset;
        for _ in 1..replication_factor {
            // Kafka's do-while: one round of the racks (and the skip) finds
            // a broker while any is left in this epoch, and there are at
            // least as many brokers as replicas.
            for tries in 0.. {
                assert!(tries <= 2 * racks_len, "StripedReplicaPlacer: no broker left in epoch {} (Kafka would loop forever)", self.epoch);
                let result = if leader_rack_index == Some(rack_index) {
                    leader_rack_index = None;
                    None
                } else {
                    self.racks[self.rack_names[rack_index]].next(self.epoch)
                };
                rack_index = (rack_index + 1) % racks_len;
                if let Some(result) = result {
                    brokers.push(result);
                    break;
                }
            }
        }
        self.epoch += 1;
        self.offset += 1;
        Ok(brokers)
    }

    /// `RackList.shuffle`: the rack order, then each rack's lists.
    fn shuffle(&mut self) {
        collections_shuffle(&mut self.rack_names, &mut self.random);
        for &at in &self.hash_map_order {
            self.racks[at].shuffle(&mut self.random);
        }
    }
}

/// `StripedReplicaPlacer.throwInvalidReplicationFactorIfNonPositive`.
fn throw_invalid_replication_factor_if_non_positive(replication_factor: i32) -> Result<(), PlacementError> {
    if replication_factor <= 0 {
        return Err(PlacementError::InvalidReplicationFactor { replication_factor });
    }
    Ok(())
}

/// `StripedReplicaPlacer.throwInvalidReplicationFactorIfZero`: a leader must be unfenced.
fn throw_invalid_replication_factor_if_zero(num_unfenced: usize) -> Result<(), PlacementError> {
    if num_unfenced == 0 {
        return Err(PlacementError::AllBrokersFenced);
    }
    Ok(())
}

/// `StripedReplicaPlacer.throwInvalidReplicationFactorIfTooFewBrokers`:
/// fenced brokers count, since they may hold followers.
fn throw_invalid_replication_factor_if_too_few_brokers(replication_factor: i32, num_total_brokers: usize) -> Result<(), PlacementError> {
    if replication_factor as usize > num_total_brokers {
        return Err(PlacementError::TooFewBrokers { replication_factor, num_total_brokers });
    }
    Ok(())
}

/// `StripedReplicaPlacer`: places a topic's partitions with one `RackList`,
/// so the stripes continue from partition to partition. The source lives
/// as long as the placer, as Kafka's controller keeps one `Random`.
#[derive(Clone, Debug)]
pub struct StripedReplicaPlacer<D: Draw> {
    random: D,
}

impl<D: Draw> StripedReplicaPlacer<D> {
    pub fn new(random: D) -> Self {
        StripedReplicaPlacer { random }
    }

    /// `StripedReplicaPlacer.place`: one replica list per partition, the
    /// preferred leader first. Kafka's `PlacementSpec` is here its
    /// `numPartitions` and `numReplicas` (its `startPartition` is not read
    /// by this placer). Checks come in Kafka's order here, which differs
    /// from `RackList.place`'s, and after the rack list has drawn.
    pub fn place(&mut self, num_partitions: i32, num_replicas: i32, brokers: &[UsableBroker<'_>]) -> Result<Vec<Vec<BrokerId>>, PlacementError> {
        let mut rack_list = RackList::new(&mut self.random, brokers);
        throw_invalid_replication_factor_if_non_positive(num_replicas)?;
        throw_invalid_replication_factor_if_zero(rack_list.num_unfenced_brokers())?;
        throw_invalid_replication_factor_if_too_few_brokers(num_replicas, rack_list.num_total_brokers())?;
        (0..num_partitions.max(0)).map(|_| rack_list.place(num_replicas)).collect()
    }
}

// ---------------------------------------------------------------------------
// Java's behaviour where Kafka's results depend on it
// ---------------------------------------------------------------------------

/// `Collections.shuffle(list, random)` on a random-access list: from the
/// end, swap each position with one drawn at or before it.
fn collections_shuffle<T>(list: &mut [T], random: &mut impl Draw) {
    for i in (2..=list.len()).rev() {
        let j = random.next_int(i as u32) as usize;
        list.swap(i - 1, j);
    }
}

/// `String.compareTo`: by UTF-16 code unit, which differs from Rust's byte
/// order only past U+FFFF.
fn java_string_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// `OptionalStringComparator`: no rack before any rack, then `String.compareTo`.
fn optional_string_cmp(a: Option<&str>, b: Option<&str>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => java_string_cmp(a, b),
    }
}

/// The order a `java.util.HashMap<Optional<String>, _>` built by inserting
/// `keys` (distinct, in this order) iterates them in: by bucket
/// (`hash ^ hash >>> 16` masked to the table size, which starts at 16 and
/// doubles past three quarters full), then by insertion within a bucket.
/// Exact unless nine or more keys share a bucket, where Java turns the
/// bucket into a tree.
fn java_hash_map_order(keys: &[Option<&str>]) -> Vec<usize> {
    let mut capacity = 16;
    while keys.len() > capacity / 4 * 3 {
        capacity *= 2;
    }
    let bucket = |key: Option<&str>| {
        // `Optional.hashCode`: the value's `String.hashCode`, or 0 when empty.
        let h = key.map_or(0u32, |s| s.encode_utf16().fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(u32::from(c))));
        (h ^ (h >> 16)) as usize & (capacity - 1)
    };
    let mut order: Vec<usize> = (0..keys.len()).collect();
    // Stable, so keys in one bucket stay in insertion order.
    order.sort_by_key(|&at| bucket(keys[at]));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_map_order_is_by_bucket_then_insertion() {
        // "q" is 113 (bucket 1), "b" 98 (bucket 2), "a" 97 (bucket 1), none 0.
        assert_eq!(java_hash_map_order(&[Some("q"), Some("b"), Some("a"), None]), vec![3, 0, 2, 1]);
        // "rack1".hashCode() is 108269626 = 0x0674_103A; spread, bucket 14 of 16.
        assert_eq!(java_hash_map_order(&[Some("rack1"), Some("b")]), vec![1, 0]);
    }

    #[test]
    fn collections_shuffle_swaps_from_the_end() {
        // A source that always answers 0 moves each element to the front in turn.
        struct Zero;
        impl Draw for Zero {
            fn next_int(&mut self, _bound: u32) -> u32 {
                0
            }
        }
        let mut list = [1, 2, 3, 4];
        collections_shuffle(&mut list, &mut Zero);
        assert_eq!(list, [2, 3, 4, 1]);
    }

    #[test]
    fn java_string_order_is_by_utf16_unit() {
        // U+FF5E is one unit 0xFF5E; U+1F600 starts with the surrogate 0xD83D.
        assert_eq!("\u{1F600}".cmp("\u{FF5E}"), Ordering::Greater);
        assert_eq!(java_string_cmp("\u{1F600}", "\u{FF5E}"), Ordering::Less);
        assert_eq!(optional_string_cmp(None, Some("")), Ordering::Less);
    }

    #[test]
    fn a_seed_decides_both_placements() {
        let zk: Vec<BrokerMetadata> = (1..=5).map(|id| BrokerMetadata::new(id, None)).collect();
        let kraft: Vec<UsableBroker> = (1..=5).map(|id| UsableBroker::new(id, Some(["a", "b"][id as usize % 2]), false)).collect();
        let run = |seed| {
            let mut rng = Rng::new(seed);
            let zk = assign_replicas_to_brokers(&zk, 10, 3, &mut rng).unwrap();
            let kraft = StripedReplicaPlacer::new(&mut rng).place(10, 3, &kraft).unwrap();
            (zk, kraft)
        };
        assert_eq!(run(7), run(7));
        assert!((0..20).any(|seed| run(seed) != run(7)));
    }

    #[test]
    fn the_draws_are_start_index_then_shift() {
        // A source that answers 1 then 3 gives Kafka's start index 1, shift 3.
        struct Script(Vec<u32>);
        impl Draw for Script {
            fn next_int(&mut self, bound: u32) -> u32 {
                let v = self.0.remove(0);
                assert!(v < bound);
                v
            }
        }
        let brokers: Vec<BrokerMetadata> = (1..=5).map(|id| BrokerMetadata::new(id, None)).collect();
        let drawn = assign_replicas_to_brokers(&brokers, 7, 3, &mut Script(vec![1, 3])).unwrap();
        let fixed = assign_replicas_to_brokers_from(&brokers, 7, 3, StartIndex { start_index: 1, next_replica_shift: 3, start_partition_id: 0 }).unwrap();
        assert_eq!(drawn, fixed);
        assert_eq!(drawn[0], vec![2, 1, 3]);
    }
}
