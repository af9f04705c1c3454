//! Symmetry reduction: the renamings of brokers and partitions that map the
//! topic onto itself, under which two states are one.
//!
//! Kafka's controller elects by the assignment's order
//! (`PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection`), so
//! a broker's id is its rank in each replica list it is in, and renaming two
//! followers of one partition changes the future. What does not change it
//! is a renaming of brokers `s` with one of partitions `t` that maps every
//! replica list onto a replica list, in order: partition `t(p)`'s replicas
//! are `s` of partition `p`'s, and each broker keeps its rack. A topic
//! whose partitions' lists are rotations of each other has them (three
//! partitions on three brokers: 1,2,3 / 2,3,1 / 3,1,2), and so does a
//! cluster with brokers that hold no replica. One partition on every broker
//! has none but the identity.
//!
//! The search keeps the states it reaches as they are; only the visited
//! set's key is taken over the renamings (the smallest hash of the state's
//! words renamed by each), so a state whose renaming was searched is not
//! searched again, and a run found is made of the steps that reached it:
//! it replays as it is. As Stateright's `Representative` and TLC's symmetry
//! sets, this is sound when the engine decides by the topic's shape and
//! never by the ids themselves; `tests/symmetry.rs` checks that, for the
//! explorer's every move, the renamed steps of a run reach the renamed
//! state, word for word.
//!
//! A rack's crash or isolation acts on its brokers one after the other in
//! id order, and the order decides (the last of an ISR to go is the one
//! kept; sessions expire in the order brokers fell silent), while a
//! renaming that keeps racks reorders the brokers of a rack. So with a
//! rack's faults only the renamings of partitions alone are kept.

use crate::model::cluster::topology::replica_assignment;
use crate::model::config::{BrokerId, BrokerList, Config, PartitionId};
use crate::model::limits::{MAX_BROKERS, MAX_PARTITIONS};

/// Past this many renamings (the identity included) the key would cost more
/// than the states it saves: the search then keeps ids as they are.
pub const MOST_RENAMINGS: usize = 8;

/// How the key reads a state: which broker and partition of the state stand
/// at each place of the renamed state, and each id's new name.
pub(crate) trait Rename {
    /// The new id of broker `b`.
    fn broker(&self, b: BrokerId) -> BrokerId;
    /// The broker of the state that the renamed state's broker `b` is.
    fn old_broker(&self, b: BrokerId) -> BrokerId;
    fn partition(&self, p: PartitionId) -> PartitionId;
    fn old_partition(&self, p: PartitionId) -> PartitionId;
    /// A list of broker ids renamed, in the order the engine keeps it:
    /// sorted when it is kept sorted (an ISR, an ELR).
    fn sorted_list(&self, ids: &BrokerList) -> BrokerList {
        let mut out: BrokerList = ids.iter().map(|&b| self.broker(b)).collect();
        out.sort_unstable();
        out
    }
}

/// The names as they are.
pub(crate) struct Identity;

impl Rename for Identity {
    #[inline(always)]
    fn broker(&self, b: BrokerId) -> BrokerId {
        b
    }
    #[inline(always)]
    fn old_broker(&self, b: BrokerId) -> BrokerId {
        b
    }
    #[inline(always)]
    fn partition(&self, p: PartitionId) -> PartitionId {
        p
    }
    #[inline(always)]
    fn old_partition(&self, p: PartitionId) -> PartitionId {
        p
    }
    #[inline(always)]
    fn sorted_list(&self, ids: &BrokerList) -> BrokerList {
        *ids
    }
}

/// One renaming of brokers and partitions (index `id - 1` for brokers, the
/// id for partitions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renaming {
    to_broker: [BrokerId; MAX_BROKERS as usize],
    from_broker: [BrokerId; MAX_BROKERS as usize],
    to_partition: [PartitionId; MAX_PARTITIONS as usize],
    from_partition: [PartitionId; MAX_PARTITIONS as usize],
}

impl Rename for Renaming {
    #[inline]
    fn broker(&self, b: BrokerId) -> BrokerId {
        self.to_broker[(b - 1) as usize]
    }
    #[inline]
    fn old_broker(&self, b: BrokerId) -> BrokerId {
        self.from_broker[(b - 1) as usize]
    }
    #[inline]
    fn partition(&self, p: PartitionId) -> PartitionId {
        self.to_partition[p as usize]
    }
    #[inline]
    fn old_partition(&self, p: PartitionId) -> PartitionId {
        self.from_partition[p as usize]
    }
}

impl Renaming {
    /// `brokers[i]` is broker `i + 1`'s new id, `partitions[p]` partition `p`'s.
    pub fn new(brokers: &[BrokerId], partitions: &[PartitionId]) -> Renaming {
        let mut r = Renaming {
            to_broker: [0; MAX_BROKERS as usize],
            from_broker: [0; MAX_BROKERS as usize],
            to_partition: [0; MAX_PARTITIONS as usize],
            from_partition: [0; MAX_PARTITIONS as usize],
        };
        for (i, &b) in brokers.iter().enumerate() {
            r.to_broker[i] = b;
            r.from_broker[(b - 1) as usize] = i as BrokerId + 1;
        }
        for (p, &q) in partitions.iter().enumerate() {
            r.to_partition[p] = q;
            r.from_partition[q as usize] = p as PartitionId;
        }
        r
    }

    /// The new id of broker `b` (public for tests).
    pub fn broker_id(&self, b: BrokerId) -> BrokerId {
        self.broker(b)
    }

    /// The new id of partition `p`.
    pub fn partition_id(&self, p: PartitionId) -> PartitionId {
        self.partition(p)
    }
}

/// The renamings that map a configuration's topic onto itself, the
/// identity left out: a group with it, as the key needs (a state's renamed
/// words by every renaming are then the same set for every state of its orbit).
#[derive(Clone, Debug, Default)]
pub struct Symmetries {
    pub renamings: Vec<Renaming>,
    /// How many the topic has, the identity included, when that is more
    /// than `MOST_RENAMINGS` (and none are used).
    pub too_many: Option<usize>,
}

impl Symmetries {
    /// None but the identity.
    pub fn none() -> Symmetries {
        Symmetries::default()
    }

    /// Every renaming of brokers, with each renaming of partitions that
    /// maps the replica lists (`replica_assignment`, the preferred leader
    /// first) onto the replica lists, that keeps each broker's rack.
    pub fn of(config: &Config) -> Symmetries {
        let assignment = replica_assignment(config);
        let n = config.brokers as usize;
        let mut found: Vec<Renaming> = vec![];
        let mut count = 0usize;
        let mut brokers: Vec<BrokerId> = (1..=n as BrokerId).collect();
        loop {
            let keeps_racks = (1..=n as BrokerId).all(|b| config.rack(b) == config.rack(brokers[(b - 1) as usize]));
            if keeps_racks {
                let renamed: Vec<BrokerList> = assignment.iter().map(|r| r.iter().map(|&b| brokers[(b - 1) as usize]).collect()).collect();
                for partitions in partition_renamings(&assignment, &renamed) {
                    count += 1;
                    let identity = partitions.iter().enumerate().all(|(p, &q)| p as PartitionId == q) && brokers.iter().enumerate().all(|(i, &b)| b as usize == i + 1);
                    if !identity && found.len() < MOST_RENAMINGS {
                        found.push(Renaming::new(&brokers, &partitions));
                    }
                }
            }
            if !next_permutation(&mut brokers) {
                break;
            }
        }
        if count > MOST_RENAMINGS {
            return Symmetries { renamings: vec![], too_many: Some(count) };
        }
        Symmetries { renamings: found, too_many: None }
    }

    /// Only the renamings that leave every broker's id as it is (those of
    /// partitions alone): the search's when it has a rack's faults.
    pub fn keeping_brokers(mut self) -> Symmetries {
        self.renamings.retain(|r| (1..=MAX_BROKERS as BrokerId).all(|b| r.to_broker[(b - 1) as usize] == 0 || r.broker(b) == b));
        self
    }

    /// The renamings the key takes, the identity included.
    pub fn count(&self) -> usize {
        self.renamings.len() + 1
    }
}

/// Every renaming of partitions `t` with `assignment[t(p)] == renamed[p]`
/// for every `p` (several when partitions have the same replica list).
fn partition_renamings(assignment: &[BrokerList], renamed: &[BrokerList]) -> Vec<Vec<PartitionId>> {
    let mut out = vec![];
    let mut chosen: Vec<PartitionId> = vec![];
    let mut used = vec![false; assignment.len()];
    fn go(p: usize, assignment: &[BrokerList], renamed: &[BrokerList], chosen: &mut Vec<PartitionId>, used: &mut [bool], out: &mut Vec<Vec<PartitionId>>) {
        if out.len() > MOST_RENAMINGS {
            return;
        }
        if p == renamed.len() {
            out.push(chosen.clone());
            return;
        }
        for q in 0..assignment.len() {
            if !used[q] && assignment[q] == renamed[p] {
                used[q] = true;
                chosen.push(q as PartitionId);
                go(p + 1, assignment, renamed, chosen, used, out);
                chosen.pop();
                used[q] = false;
            }
        }
    }
    go(0, assignment, renamed, &mut chosen, &mut used, &mut out);
    out
}

/// The next permutation in lexicographic order; false after the last.
fn next_permutation(xs: &mut [BrokerId]) -> bool {
    let Some(i) = (1..xs.len()).rev().find(|&i| xs[i - 1] < xs[i]) else {
        return false;
    };
    let j = (i..xs.len()).rev().find(|&j| xs[j] > xs[i - 1]).expect("xs[i] is larger");
    xs.swap(i - 1, j);
    xs[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::Protocol;

    fn config(brokers: u32, partitions: u32, rf: u32, assignment: Option<Vec<Vec<BrokerId>>>) -> Config {
        Config { brokers, partitions, replication_factor: Some(rf), assignment: assignment.map(|a| a.into()), ..Config::for_protocol(Protocol::V3_7) }
    }

    #[test]
    fn one_partition_on_every_broker_has_only_the_identity() {
        for n in 1..=7 {
            let c = Config { brokers: n, ..Config::for_protocol(Protocol::V3_7) };
            assert_eq!(Symmetries::of(&c).count(), 1, "{n} brokers");
        }
    }

    #[test]
    fn rotated_replica_lists_give_the_rotations() {
        let c = config(3, 3, 3, Some(vec![vec![1, 2, 3], vec![2, 3, 1], vec![3, 1, 2]]));
        let s = Symmetries::of(&c);
        assert_eq!(s.count(), 3);
        // Broker b -> b + 1 (mod 3) takes partition p to p + 1.
        let r = s.renamings.iter().find(|r| r.broker_id(1) == 2).unwrap();
        assert_eq!((r.broker_id(2), r.broker_id(3), r.partition_id(0), r.partition_id(1), r.partition_id(2)), (3, 1, 1, 2, 0));
    }

    #[test]
    fn brokers_without_a_replica_are_interchangeable_within_their_rack() {
        // One partition on 1, 2, 3: brokers 4 and 5 hold nothing.
        let c = config(5, 1, 3, Some(vec![vec![1, 2, 3]]));
        assert_eq!(Symmetries::of(&c).count(), 2);
        let racked = Config { racks: Some(vec!["a".into(), "a".into(), "b".into(), "a".into(), "b".into()].into()), ..c };
        assert_eq!(Symmetries::of(&racked).count(), 1, "4 and 5 are in different racks");
    }

    #[test]
    fn too_many_renamings_are_not_used() {
        // One replica on broker 1 of 7: the other 6 are free, 720 renamings.
        let c = config(7, 1, 1, Some(vec![vec![1]]));
        let s = Symmetries::of(&c);
        assert_eq!((s.count(), s.too_many.is_some()), (1, true));
    }
}
