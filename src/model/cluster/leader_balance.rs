//! When the controller moves leadership back to a partition's preferred
//! replica (the first replica of its assignment), so that leaders spread over
//! the brokers as placement meant them to after a broker came back.
//!
//! Three decisions, each a pure function of the controller's view:
//! - a preferred leader election for one partition, as ZooKeeper's controller
//!   (`PartitionLeaderElectionAlgorithms.preferredReplicaPartitionLeaderElection`)
//!   and KRaft's (`PartitionChangeBuilder` with `Election.PREFERRED`) make it;
//! - ZooKeeper's automatic rebalance, by imbalance ratio per preferred broker
//!   (`KafkaController.checkAndTriggerAutoLeaderRebalance`);
//! - KRaft's automatic rebalance, a bounded batch over every imbalanced
//!   partition (`ReplicationControlManager.maybeBalancePartitionLeaders`,
//!   KAFKA-13682, first in 3.2).
//!
//! When the checks run differs too, and is the engine's to drive (time is an
//! input here):
//! - ZooKeeper: the first check runs 5 s after a broker becomes controller
//!   (`onControllerFailover`: `scheduleAutoLeaderRebalanceTask(delay = 5,
//!   unit = TimeUnit.SECONDS)`), then each check schedules the next
//!   `leader.imbalance.check.interval.seconds` (default 300) after it ran
//!   (`processAutoPreferredReplicaLeaderElection`, in its `finally`), whether
//!   or not anything was imbalanced. Same in 2.0.0 through 3.8.0.
//! - KRaft: nothing runs while every partition has its preferred leader.
//!   After each controller write event (and on becoming active), if no
//!   balance event is pending and some partition is imbalanced, one is
//!   scheduled `leader.imbalance.check.interval.seconds` later, or 10 ms later
//!   when the previous run stopped at its batch limit
//!   (`QuorumController.maybeScheduleNextBalancePartitionLeaders`); see
//!   [`maybe_schedule_next_balance_partition_leaders`].
//!
//! Both run only with `auto.leader.rebalance.enable` (default true).

use crate::model::config::{BrokerId, PartitionId};
use std::collections::BTreeMap;

/// `auto.leader.rebalance.enable`'s default (`Defaults.AutoLeaderRebalanceEnable`
/// in 2.x, `ReplicationConfigs.AUTO_LEADER_REBALANCE_ENABLE_DEFAULT` in 3.8).
pub const AUTO_LEADER_REBALANCE_ENABLE_DEFAULT: bool = true;

/// `leader.imbalance.per.broker.percentage`'s default: ZooKeeper's controller
/// rebalances a broker's partitions when more than this percentage of those
/// it is preferred for are led elsewhere. KRaft's controller ignores it.
pub const LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_DEFAULT: u32 = 10;

/// `leader.imbalance.check.interval.seconds`'s default (both controllers).
pub const LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS_DEFAULT: u64 = 300;

/// ZooKeeper: the first automatic check runs this long after the broker
/// became controller (`KafkaController.onControllerFailover`, 2.0.0 to 3.8.0).
pub const AUTO_LEADER_REBALANCE_FIRST_CHECK_DELAY_MS: u64 = 5_000;

/// KRaft: at most this many elections per balance run
/// (`ReplicationControlManager.MAX_ELECTIONS_PER_IMBALANCE`; not a config).
pub const MAX_ELECTIONS_PER_IMBALANCE: usize = 1_000;

/// KRaft: when a balance run stopped at its batch limit, the next runs this
/// soon rather than at once, so that events already queued are not starved
/// (`QuorumController.maybeScheduleNextBalancePartitionLeaders`).
pub const BALANCE_RESCHEDULE_IMMEDIATELY_DELAY_MS: u64 = 10;

/// One partition as the controller sees it when it balances leaders.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PartitionLeadership {
    pub id: PartitionId,
    /// The assignment, in order: the first is the preferred replica. During a
    /// ZooKeeper-era reassignment, Kafka's full assignment (target replicas
    /// first, `ReplicaAssignment.fromOldAndNewReplicas`).
    pub replicas: Vec<BrokerId>,
    /// None: the partition has no leader (`NO_LEADER`, -1).
    pub leader: Option<BrokerId>,
    pub isr: Vec<BrokerId>,
}

impl PartitionLeadership {
    /// `PartitionRegistration.preferredReplica`: the first replica.
    pub fn preferred_replica(&self) -> Option<BrokerId> {
        self.replicas.first().copied()
    }

    /// `PartitionRegistration.hasPreferredLeader` (KRaft), and the test
    /// `leader != leaderBroker` of ZooKeeper's rebalance: a leaderless
    /// partition does not have its preferred leader.
    pub fn has_preferred_leader(&self) -> bool {
        self.leader == self.preferred_replica()
    }
}

/// Which controller decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ControllerMode {
    ZooKeeper,
    KRaft,
}

/// The outcome of a preferred leader election for one partition, in the words
/// of the `ElectLeaders` answer (`Errors`) where there is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PreferredElection {
    /// Leadership moves to this broker: the preferred replica, or (KRaft only,
    /// for a partition whose leader is gone) another ISR replica.
    Elected(BrokerId),
    /// KRaft only: the current leader is not a valid leader and no replica
    /// is, so the change record sets `NO_LEADER`. The controller never leaves
    /// such a leader standing (fencing and controlled shutdown move
    /// leadership in the same write), so this answers inputs the controller's
    /// own state does not produce.
    NoLeader,
    /// `ELECTION_NOT_NEEDED`: the preferred replica already leads.
    ElectionNotNeeded,
    /// `PREFERRED_LEADER_NOT_AVAILABLE`: the preferred replica is not live
    /// (ZooKeeper) or not active (KRaft), or not in the ISR, and nothing
    /// changes.
    PreferredLeaderNotAvailable,
}

/// `PartitionLeaderElectionAlgorithms.preferredReplicaPartitionLeaderElection`
/// (ZooKeeper, `PartitionStateMachine.scala`, unchanged 2.0.0 to 3.8.0): the
/// first assigned
/// replica, if it is live and in the ISR; else no leader is elected.
/// `is_live` is `ControllerContext.isReplicaOnline`: a live broker that is not
/// shutting down, whose log directory for the partition is online.
pub fn preferred_replica_partition_leader_election(assignment: &[BrokerId], isr: &[BrokerId], is_live: impl Fn(BrokerId) -> bool) -> Option<BrokerId> {
    assignment.first().copied().filter(|&id| is_live(id) && isr.contains(&id))
}

/// `PartitionChangeBuilder.electPreferredLeader` (KRaft, 3.3 to 3.8 without
/// the eligible leader replicas of KIP-966, which are off by default): the
/// leader after a preferred election, `None` for `NO_LEADER`. The preferred
/// replica if it is a valid leader; else the current leader if it is valid
/// (nothing moves); else the first other valid replica; else none. Valid:
/// in the ISR and `is_acceptable_leader` (`isValidNewLeader`; the
/// controller's `LeaderAcceptor`: `ClusterControlManager.isActive`, i.e.
/// registered, unfenced and not in controlled shutdown, with its log
/// directory online). The ISR is the partition's: a preferred election does
/// not change it.
pub fn elect_preferred_leader(partition: &PartitionLeadership, is_acceptable_leader: impl Fn(BrokerId) -> bool) -> Option<BrokerId> {
    let is_valid_new_leader = |replica: BrokerId| partition.isr.contains(&replica) && is_acceptable_leader(replica);
    if let Some(preferred) = partition.preferred_replica().filter(|&r| is_valid_new_leader(r)) {
        return Some(preferred);
    }
    // "Don't consider a new leader since the current leader meets all the
    // constraints."
    if let Some(leader) = partition.leader.filter(|&l| is_valid_new_leader(l)) {
        return Some(leader);
    }
    partition.replicas.iter().skip(1).copied().find(|&r| is_valid_new_leader(r))
}

/// A preferred leader election for one partition, as the `ElectLeaders`
/// request with `ElectionType.PREFERRED` answers it: ZooKeeper's
/// `KafkaController.processReplicaLeaderElection` (2.4+; the skip of a
/// partition already led by its preferred replica is KAFKA-5692, 2.2), KRaft's
/// `ReplicationControlManager.electLeader`. Both skip a partition whose
/// preferred replica leads and elect the preferred replica when it is
/// `is_live` and in the ISR; they differ when it is not: ZooKeeper gives up,
/// while KRaft's `PartitionChangeBuilder` keeps a valid leader and otherwise
/// falls back to any valid replica ([`elect_preferred_leader`]). Neither
/// ever elects an unclean leader (`testPreferredElectionDoesNotTriggerUncleanElection`).
///
/// `is_live`: ZooKeeper's `isReplicaOnline` (live, not shutting down), KRaft's
/// `isActive` (unfenced, not in controlled shutdown).
pub fn preferred_election(partition: &PartitionLeadership, mode: ControllerMode, is_live: impl Fn(BrokerId) -> bool) -> PreferredElection {
    if partition.has_preferred_leader() {
        return PreferredElection::ElectionNotNeeded;
    }
    match mode {
        ControllerMode::ZooKeeper => match preferred_replica_partition_leader_election(&partition.replicas, &partition.isr, is_live) {
            Some(leader) => PreferredElection::Elected(leader),
            // `StateChangeFailedException`, answered as this error.
            None => PreferredElection::PreferredLeaderNotAvailable,
        },
        ControllerMode::KRaft => {
            let target = elect_preferred_leader(partition, is_live);
            if target == partition.leader {
                // `build()` returns no record: nothing changes.
                PreferredElection::PreferredLeaderNotAvailable
            } else {
                target.map_or(PreferredElection::NoLeader, PreferredElection::Elected)
            }
        }
    }
}

/// The broker that leads after a preferred election, when leadership moves
/// to one; `None` when nothing changes (see [`preferred_election`] for why,
/// and for KRaft's `NoLeader` corner, which also gives `None` here).
pub fn preferred_leader(partition: &PartitionLeadership, mode: ControllerMode, is_live: impl Fn(BrokerId) -> bool) -> Option<BrokerId> {
    match preferred_election(partition, mode, is_live) {
        PreferredElection::Elected(leader) => Some(leader),
        _ => None,
    }
}

/// `KafkaController.checkAndTriggerAutoLeaderRebalance` (ZooKeeper): the
/// partitions one automatic check elects their preferred replica for.
///
/// Every partition is grouped by its preferred replica, live or not (topics
/// queued for deletion aside; the model deletes none). For each broker, the
/// partitions it is preferred for but does not lead, a leaderless one
/// included, are imbalanced; if `imbalanced / preferred-for` exceeds
/// `leader_imbalance_per_broker_percentage / 100`, the candidates among them
/// are those whose preferred replica can lead (`canPreferredReplicaBeLeader`:
/// live and in the ISR, KAFKA-9866 in 2.6; before, only live was checked and
/// the election then failed for one not in the ISR, to the same outcome), and
/// `onReplicaElection(candidates, PREFERRED, AutoTriggered)` elects them.
/// Kafka compares doubles; this compares `imbalanced * 100 > percentage *
/// total`, the same test without floats.
///
/// `held_by_reassignment`: a reassignment is in progress and the version is
/// before 3.4, where any reassignment (`partitionsBeingReassigned` not empty)
/// held back every automatic election; KAFKA-10149 (3.4) dropped the check.
///
/// Returned by preferred replica id, then partition id: Kafka elects one
/// batch per broker in hash-map order, which this fixes as id order.
pub fn check_and_trigger_auto_leader_rebalance(
    partitions: &[PartitionLeadership],
    leader_imbalance_per_broker_percentage: u32,
    held_by_reassignment: bool,
    is_live: impl Fn(BrokerId) -> bool,
) -> Vec<PartitionId> {
    let mut by_preferred: BTreeMap<BrokerId, Vec<&PartitionLeadership>> = BTreeMap::new();
    for partition in partitions {
        // Kafka's `assignedReplicas.head` would throw on an empty assignment;
        // a partition always has replicas.
        if let Some(preferred) = partition.preferred_replica() {
            by_preferred.entry(preferred).or_default().push(partition);
        }
    }

    let mut elect = Vec::new();
    for group in by_preferred.values_mut() {
        group.sort_by_key(|p| p.id);
        let imbalanced: Vec<&PartitionLeadership> = group.iter().copied().filter(|p| !p.has_preferred_leader()).collect();
        let over_threshold = imbalanced.len() as u64 * 100 > u64::from(leader_imbalance_per_broker_percentage) * group.len() as u64;
        if !over_threshold || held_by_reassignment {
            continue;
        }
        elect.extend(
            imbalanced
                .iter()
                .filter(|p| preferred_replica_partition_leader_election(&p.replicas, &p.isr, &is_live).is_some())
                .map(|p| p.id),
        );
    }
    elect
}

/// `ReplicationControlManager.arePartitionLeadersImbalanced` (KRaft): some
/// partition is in `imbalancedPartitions`, i.e. lacks its preferred leader
/// (`hasPreferredLeader`, updated on every partition record's replay).
pub fn are_partition_leaders_imbalanced(partitions: &[PartitionLeadership]) -> bool {
    partitions.iter().any(|p| !p.has_preferred_leader())
}

/// What one KRaft balance run decided.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BalancePartitionLeaders {
    /// One `PartitionChangeRecord` per entry: the partition and its new
    /// leader (`None`: `NO_LEADER`, see [`PreferredElection::NoLeader`]).
    pub elections: Vec<(PartitionId, Option<BrokerId>)>,
    /// The run stopped at its batch limit with imbalanced partitions left
    /// unvisited: the next run comes 10 ms later instead of an interval later.
    pub reschedule_immediately: bool,
}

/// `ReplicationControlManager.maybeBalancePartitionLeaders` (KRaft, 3.2 to
/// 3.8): a preferred election ([`elect_preferred_leader`]) for each
/// imbalanced partition, keeping those that change the leader, at most
/// `max_elections_per_imbalance` ([`MAX_ELECTIONS_PER_IMBALANCE`]) of them.
/// No percentage: one imbalanced partition is enough. An election only
/// happens where the preferred replica is in the ISR and `is_active`
/// (`LeaderAcceptor`), and a partition whose preferred replica cannot lead
/// stays imbalanced, to be tried on the next run.
///
/// `reschedule_immediately` follows 3.8: set when the limit is reached and
/// another imbalanced partition is still to be visited. (3.9 sets it whenever
/// the run made `max_elections_per_imbalance` records.)
///
/// Kafka walks `imbalancedPartitions`, a hash set; this walks partition ids
/// in order, which only matters when the limit cuts the run short.
pub fn maybe_balance_partition_leaders(partitions: &[PartitionLeadership], max_elections_per_imbalance: usize, is_active: impl Fn(BrokerId) -> bool) -> BalancePartitionLeaders {
    let mut imbalanced: Vec<&PartitionLeadership> = partitions.iter().filter(|p| !p.has_preferred_leader()).collect();
    imbalanced.sort_by_key(|p| p.id);

    let mut result = BalancePartitionLeaders::default();
    for partition in imbalanced {
        if result.elections.len() >= max_elections_per_imbalance {
            result.reschedule_immediately = true;
            break;
        }
        let leader = elect_preferred_leader(partition, &is_active);
        if leader != partition.leader {
            result.elections.push((partition.id, leader));
        }
    }
    result
}

/// `QuorumController.ImbalanceSchedule`: where KRaft's balance task stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ImbalanceSchedule {
    /// A balance event is pending.
    Scheduled,
    /// If one is needed, schedule it an interval from now. The state at
    /// start, after a run that finished its work, and after the controller
    /// renounces (`cancelMaybeBalancePartitionLeaders`).
    #[default]
    Deferred,
    /// If one is needed, schedule it 10 ms from now: the last run stopped at
    /// its batch limit.
    Immediately,
}

impl ImbalanceSchedule {
    /// The state a balance run leaves (the event's body in
    /// `maybeScheduleNextBalancePartitionLeaders`).
    pub fn after_run(result: &BalancePartitionLeaders) -> ImbalanceSchedule {
        if result.reschedule_immediately {
            ImbalanceSchedule::Immediately
        } else {
            ImbalanceSchedule::Deferred
        }
    }
}

/// `QuorumController.maybeScheduleNextBalancePartitionLeaders` (KRaft, 3.2 to
/// 3.8): called after every controller write event, a balance run included,
/// and when the controller becomes active (`CompleteActivationEvent`). If no
/// balance event is pending, automatic rebalance is on
/// (`leader_imbalance_check_interval_ms` is `None` when
/// `auto.leader.rebalance.enable` is false, `ControllerServer`) and some
/// partition is imbalanced, it schedules one and returns when it is due:
/// `leader.imbalance.check.interval.seconds` from now, or
/// [`BALANCE_RESCHEDULE_IMMEDIATELY_DELAY_MS`] from now after a run that hit
/// its batch limit.
///
/// So the first run comes one interval after the write that made leadership
/// imbalanced (a fencing, a controlled shutdown), not at a fixed phase; runs
/// repeat an interval apart while a partition stays imbalanced (its preferred
/// replica cannot lead yet), and stop when none is. A pending run is not
/// cancelled when the imbalance heals on its own: it runs and elects nothing.
pub fn maybe_schedule_next_balance_partition_leaders(schedule: &mut ImbalanceSchedule, leader_imbalance_check_interval_ms: Option<u64>, imbalanced: bool, now_ms: u64) -> Option<u64> {
    let interval_ms = leader_imbalance_check_interval_ms?;
    if *schedule == ImbalanceSchedule::Scheduled || !imbalanced {
        return None;
    }
    let delay_ms = match schedule {
        ImbalanceSchedule::Immediately => BALANCE_RESCHEDULE_IMMEDIATELY_DELAY_MS,
        _ => interval_ms,
    };
    *schedule = ImbalanceSchedule::Scheduled;
    Some(now_ms + delay_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partition(id: PartitionId, replicas: &[BrokerId], leader: Option<BrokerId>, isr: &[BrokerId]) -> PartitionLeadership {
        PartitionLeadership { id, replicas: replicas.to_vec(), leader, isr: isr.to_vec() }
    }

    /// ZooKeeper's threshold is strict: exactly the percentage does not
    /// trigger, one more imbalanced partition does.
    #[test]
    fn zk_ratio_must_exceed_the_percentage() {
        // Broker 1 is preferred for 10 partitions; one is led by broker 2.
        let mut partitions: Vec<PartitionLeadership> = (0..10).map(|id| partition(id, &[1, 2], Some(1), &[1, 2])).collect();
        partitions[3].leader = Some(2);
        assert_eq!(check_and_trigger_auto_leader_rebalance(&partitions, 10, false, |_| true), Vec::<PartitionId>::new(), "1/10 is not above 10%");
        partitions[7].leader = Some(2);
        assert_eq!(check_and_trigger_auto_leader_rebalance(&partitions, 10, false, |_| true), vec![3, 7], "2/10 is");
        assert_eq!(check_and_trigger_auto_leader_rebalance(&partitions, 20, false, |_| true), Vec::<PartitionId>::new(), "2/10 is not above 20%");
    }

    /// The ratio is per preferred broker: one broker over the threshold does
    /// not move another's partitions, and the order is broker, then id.
    #[test]
    fn zk_ratio_is_per_preferred_broker() {
        let mut partitions = Vec::new();
        // Broker 2 preferred for 0..10, 1 of them moved: 10%, not above.
        for id in 0..10 {
            partitions.push(partition(id, &[2, 1], Some(if id == 0 { 1 } else { 2 }), &[1, 2]));
        }
        // Broker 1 preferred for 10 and 11, both led by 2: 100%.
        partitions.push(partition(11, &[1, 2], Some(2), &[1, 2]));
        partitions.push(partition(10, &[1, 2], Some(2), &[1, 2]));
        assert_eq!(check_and_trigger_auto_leader_rebalance(&partitions, 10, false, |_| true), vec![10, 11]);
    }

    /// A dead preferred broker still counts in the grouping, but none of
    /// its partitions is a candidate; a leaderless partition is imbalanced.
    #[test]
    fn zk_dead_or_out_of_isr_preferred_replica_is_not_a_candidate() {
        let partitions = vec![
            partition(0, &[3, 1], None, &[3]),
            partition(1, &[3, 1], Some(1), &[1, 3]),
            partition(2, &[1, 3], Some(3), &[3]),
        ];
        assert_eq!(check_and_trigger_auto_leader_rebalance(&partitions, 10, false, |b| b != 3), Vec::<PartitionId>::new());
        assert_eq!(check_and_trigger_auto_leader_rebalance(&partitions, 10, false, |_| true), vec![0, 1], "partition 2: broker 1 is not in its ISR");
    }

    /// Where the two controllers' preferred elections part: a leaderless
    /// partition whose preferred replica cannot lead. ZooKeeper gives up;
    /// KRaft's `electPreferredLeader` falls back to another valid replica.
    /// And KRaft's corner: an invalid leader with no valid replica anywhere.
    #[test]
    fn modes_differ_when_the_preferred_replica_cannot_lead() {
        let leaderless = partition(0, &[1, 2, 3], None, &[1, 2]);
        let live = |b| b != 1;
        assert_eq!(preferred_election(&leaderless, ControllerMode::ZooKeeper, live), PreferredElection::PreferredLeaderNotAvailable);
        assert_eq!(preferred_election(&leaderless, ControllerMode::KRaft, live), PreferredElection::Elected(2));
        let stale_leader = partition(0, &[1, 2, 3], Some(2), &[1, 2]);
        assert_eq!(preferred_election(&stale_leader, ControllerMode::KRaft, |_| false), PreferredElection::NoLeader);
        assert_eq!(preferred_leader(&stale_leader, ControllerMode::KRaft, |_| false), None);
        assert_eq!(preferred_election(&stale_leader, ControllerMode::ZooKeeper, |_| false), PreferredElection::PreferredLeaderNotAvailable);
    }

    #[test]
    fn kraft_batch_limit_reschedules_only_with_work_left() {
        let partitions: Vec<PartitionLeadership> = (0..3).map(|id| partition(id, &[1, 2], Some(2), &[1, 2])).collect();
        let exact = maybe_balance_partition_leaders(&partitions, 3, |_| true);
        assert_eq!(exact.elections, vec![(0, Some(1)), (1, Some(1)), (2, Some(1))]);
        assert!(!exact.reschedule_immediately, "3.8: nothing was left to visit");
        let cut = maybe_balance_partition_leaders(&partitions, 2, |_| true);
        assert_eq!(cut.elections, vec![(0, Some(1)), (1, Some(1))]);
        assert!(cut.reschedule_immediately);
    }

    #[test]
    fn kraft_schedule_defers_then_hurries_after_a_cut_run() {
        let interval_ms = Some(300_000);
        let mut schedule = ImbalanceSchedule::default();
        assert_eq!(maybe_schedule_next_balance_partition_leaders(&mut schedule, interval_ms, false, 0), None, "balanced: nothing scheduled");
        assert_eq!(maybe_schedule_next_balance_partition_leaders(&mut schedule, interval_ms, true, 1_000), Some(301_000));
        assert_eq!(maybe_schedule_next_balance_partition_leaders(&mut schedule, interval_ms, true, 2_000), None, "one pending run at a time");
        let cut = BalancePartitionLeaders { elections: vec![(0, Some(1))], reschedule_immediately: true };
        schedule = ImbalanceSchedule::after_run(&cut);
        assert_eq!(maybe_schedule_next_balance_partition_leaders(&mut schedule, interval_ms, true, 301_000), Some(301_010));
        schedule = ImbalanceSchedule::after_run(&BalancePartitionLeaders::default());
        assert_eq!(maybe_schedule_next_balance_partition_leaders(&mut schedule, interval_ms, true, 301_010), Some(601_010));
        let mut off = ImbalanceSchedule::default();
        assert_eq!(maybe_schedule_next_balance_partition_leaders(&mut off, None, true, 0), None, "auto.leader.rebalance.enable=false");
    }
}
