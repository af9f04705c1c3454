//! Kafka's tests of preferred leader elections and of the controllers'
//! automatic leader rebalance, as calls to the pure decisions in
//! `highwater::model::cluster::leader_balance`. Where Kafka's test drives a
//! whole controller (registrations, heartbeats, fencing, AlterPartition,
//! broker restarts), the test here starts from the partition state those
//! steps leave, worked out from Kafka's code and stated in the doc comment,
//! and checks the decision Kafka's test checks.
//!
//! Not ported, and why:
//! - The `bar` partitions of `ReplicationControlManagerTest.testElectPreferredLeaders`
//!   (`UNKNOWN_TOPIC_OR_PARTITION`): the decisions take partitions the
//!   controller knows; looking a topic up by name is not theirs.
//! - `PartitionChangeBuilderTest.testElectLeader`'s ONLINE and UNCLEAN cases:
//!   not preferred elections (only its PREFERRED cases are ported).
//! - `PartitionChangeBuilderTest.testEligibleLeaderReplicas_*` with
//!   `Election.PREFERRED` (`IsrShrinkBelowMinISR`, `IsrExpandAboveMinISR`,
//!   `IsrAddNewMemberNotInELR`, `RemoveUncleanShutdownReplicasFromElr`,
//!   `ElrCanBeElected`, `IsrCanShrinkToZero`, `ElectLastKnownLeader`,
//!   `ElectLastKnownLeaderShouldFail`): they test the eligible leader
//!   replicas of KIP-966 (off by default in 3.8, metadata 3.9+), which the
//!   leader-balance decisions do not model.
//! - `ControllerIntegrationTest.testControllerMoveOnPreferredReplicaElection`:
//!   about the ZooKeeper controller moving mid-event, not the election.
//! - `PreferredReplicaLeaderElectionCommandTest` and the admin-client
//!   `LeaderElectionTest`s: the command line and the request path around
//!   the same decision; what they add is ZooKeeper paths and request errors.

use highwater::model::cluster::leader_balance::{
    are_partition_leaders_imbalanced, check_and_trigger_auto_leader_rebalance, elect_preferred_leader, maybe_balance_partition_leaders,
    maybe_schedule_next_balance_partition_leaders, preferred_election, preferred_leader, preferred_replica_partition_leader_election,
    BalancePartitionLeaders, ControllerMode, ImbalanceSchedule, PartitionLeadership, PreferredElection, LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_DEFAULT,
};
use highwater::model::config::{BrokerId, PartitionId};

fn partition(id: PartitionId, replicas: &[BrokerId], leader: Option<BrokerId>, isr: &[BrokerId]) -> PartitionLeadership {
    PartitionLeadership { id, replicas: replicas.to_vec(), leader, isr: isr.to_vec() }
}

/// The brokers that are live (ZooKeeper) or active (KRaft).
fn among(brokers: &[BrokerId]) -> impl Fn(BrokerId) -> bool + '_ {
    move |b| brokers.contains(&b)
}

// ----- ZooKeeper: PartitionLeaderElectionAlgorithmsTest (2.8.0) -------------

/// `PartitionLeaderElectionAlgorithmsTest.testPreferredReplicaPartitionLeaderElection`:
/// assignment [2, 4], ISR [2, 4], both live: broker 2 is elected.
#[test]
fn partition_leader_election_algorithms_test_preferred_replica_partition_leader_election() {
    assert_eq!(preferred_replica_partition_leader_election(&[2, 4], &[2, 4], among(&[2, 4])), Some(2));
}

/// `PartitionLeaderElectionAlgorithmsTest.testPreferredReplicaPartitionLeaderElectionPreferredReplicaInIsrNotLive`:
/// the preferred replica is in the ISR but not live: none.
#[test]
fn partition_leader_election_algorithms_test_preferred_replica_partition_leader_election_preferred_replica_in_isr_not_live() {
    assert_eq!(preferred_replica_partition_leader_election(&[2, 4], &[2], among(&[])), None);
}

/// `PartitionLeaderElectionAlgorithmsTest.testPreferredReplicaPartitionLeaderElectionPreferredReplicaNotInIsrLive`:
/// the preferred replica is live but not in the ISR: none, although broker 4
/// is live and in the ISR (a preferred election elects no one else).
#[test]
fn partition_leader_election_algorithms_test_preferred_replica_partition_leader_election_preferred_replica_not_in_isr_live() {
    assert_eq!(preferred_replica_partition_leader_election(&[2, 4], &[4], among(&[2, 4])), None);
}

/// `PartitionLeaderElectionAlgorithmsTest.testPreferredReplicaPartitionLeaderElectionPreferredReplicaNotInIsrNotLive`:
/// empty ISR, nothing live: none.
#[test]
fn partition_leader_election_algorithms_test_preferred_replica_partition_leader_election_preferred_replica_not_in_isr_not_live() {
    assert_eq!(preferred_replica_partition_leader_election(&[2, 4], &[], among(&[])), None);
}

// ----- ZooKeeper: ControllerIntegrationTest (3.8.0) -------------------------

/// `ControllerIntegrationTest.testPreferredReplicaLeaderElection`: two
/// brokers, the controller 0 and broker 1, partition t-0 assigned [1, 0].
/// Broker 1 shuts down, so 0 leads with ISR [0]; broker 1 restarts and the
/// test waits until it is back in the ISR; then the preferred replica
/// election (through `/admin/preferred_replica_election`) makes 1 the leader.
/// Reduced to the election on that state.
#[test]
fn controller_integration_test_preferred_replica_leader_election() {
    let tp = partition(0, &[1, 0], Some(0), &[0, 1]);
    assert_eq!(preferred_election(&tp, ControllerMode::ZooKeeper, among(&[0, 1])), PreferredElection::Elected(1));
    assert_eq!(preferred_leader(&tp, ControllerMode::ZooKeeper, among(&[0, 1])), Some(1));
}

/// `ControllerIntegrationTest.testBackToBackPreferredReplicaLeaderElections`:
/// the same shutdown, restart and election twice in a row; each ends with
/// broker 1 leading. Reduced to the two elections, the leadership each
/// shutdown leaves (0 alone) in between.
#[test]
fn controller_integration_test_back_to_back_preferred_replica_leader_elections() {
    let live = [0, 1];
    let mut tp = partition(0, &[1, 0], Some(0), &[0, 1]);
    for round in 1..=2 {
        let leader = preferred_leader(&tp, ControllerMode::ZooKeeper, among(&live));
        assert_eq!(leader, Some(1), "round {round}");
        tp.leader = leader;
        assert_eq!(preferred_election(&tp, ControllerMode::ZooKeeper, among(&live)), PreferredElection::ElectionNotNeeded, "round {round}");
        // Broker 1 shuts down and comes back into the ISR.
        tp.leader = Some(0);
    }
}

/// `ControllerIntegrationTest.testPreferredReplicaLeaderElectionWithOfflinePreferredReplica`:
/// broker 1, preferred for t-0 [1, 0], is shut down; the controller 0 leads
/// with ISR [0]. The requested preferred election gives up and 0 stays
/// leader (the test sees the election path removed and 0 leading still).
#[test]
fn controller_integration_test_preferred_replica_leader_election_with_offline_preferred_replica() {
    let tp = partition(0, &[1, 0], Some(0), &[0]);
    assert_eq!(preferred_election(&tp, ControllerMode::ZooKeeper, among(&[0])), PreferredElection::PreferredLeaderNotAvailable);
    assert_eq!(preferred_leader(&tp, ControllerMode::ZooKeeper, among(&[0])), None);
}

/// `ControllerIntegrationTest.testAutoPreferredReplicaLeaderElection`: with
/// `auto.leader.rebalance.enable`, t-0 assigned [1, 0]; broker 1 shuts down
/// (0 leads), then starts up, and the automatic check makes it leader again.
/// Reduced to the checks along the way: while 1 is down, and while it is back
/// but not yet in the ISR, nothing is elected (KAFKA-9866); once it is in
/// the ISR, t-0 is elected and 1 leads.
#[test]
fn controller_integration_test_auto_preferred_replica_leader_election() {
    let pct = LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_DEFAULT;
    let down = [partition(0, &[1, 0], Some(0), &[0])];
    assert_eq!(check_and_trigger_auto_leader_rebalance(&down, pct, false, among(&[0])), Vec::<PartitionId>::new(), "broker 1 is down");
    assert_eq!(check_and_trigger_auto_leader_rebalance(&down, pct, false, among(&[0, 1])), Vec::<PartitionId>::new(), "broker 1 is not in the ISR yet");
    let caught_up = [partition(0, &[1, 0], Some(0), &[0, 1])];
    assert_eq!(check_and_trigger_auto_leader_rebalance(&caught_up, pct, false, among(&[0, 1])), vec![0]);
    assert_eq!(preferred_leader(&caught_up[0], ControllerMode::ZooKeeper, among(&[0, 1])), Some(1));
}

/// `ControllerIntegrationTest.testAutoPreferredReplicaLeaderElectionWithOtherReassigningPartitions`
/// (KAFKA-10149, 3.4): brokers 0 (controller), 1 and 2; t-0 assigned [1, 0]
/// and led by 0 after 1's restart (ISR [0, 1]); `reassigning-0` is being
/// moved from [0] to the shut-down broker 2, so its full assignment is
/// [2, 0], led by 0 with ISR [0]. From 3.4 the other reassignment does not
/// hold t-0 back: the check elects it, and not the stuck partition, whose
/// preferred replica is down. Before 3.4 it held every election back.
#[test]
fn controller_integration_test_auto_preferred_replica_leader_election_with_other_reassigning_partitions() {
    let pct = LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_DEFAULT;
    let partitions = [partition(0, &[1, 0], Some(0), &[0, 1]), partition(1, &[2, 0], Some(0), &[0])];
    assert_eq!(check_and_trigger_auto_leader_rebalance(&partitions, pct, false, among(&[0, 1])), vec![0], "3.4+");
    assert_eq!(check_and_trigger_auto_leader_rebalance(&partitions, pct, true, among(&[0, 1])), Vec::<PartitionId>::new(), "before 3.4");
}

/// `ControllerIntegrationTest.testAutoPreferredReplicaLeaderElectionWithSamePartitionBeingReassigned`
/// (KAFKA-10149, 3.4): t-0 assigned [0, 1] with 0 (the controller) leading,
/// reassigned to [1, 0, 2] while broker 2 is down, so the reassignment is
/// stuck. Its full assignment is then [1, 0, 2]: broker 1, live and in the
/// ISR, is preferred, and the automatic check elects it during the
/// reassignment.
#[test]
fn controller_integration_test_auto_preferred_replica_leader_election_with_same_partition_being_reassigned() {
    let pct = LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_DEFAULT;
    let tp = [partition(0, &[1, 0, 2], Some(0), &[0, 1])];
    assert_eq!(check_and_trigger_auto_leader_rebalance(&tp, pct, false, among(&[0, 1])), vec![0]);
    assert_eq!(preferred_leader(&tp[0], ControllerMode::ZooKeeper, among(&[0, 1])), Some(1));
}

// ----- KRaft: PartitionChangeBuilderTest (3.8.0) ----------------------------

/// `PartitionChangeBuilderTest.testElectLeader`, its PREFERRED cases. FOO:
/// replicas [2, 1, 3], ISR [2, 1, 3], leader 1, broker 3 not acceptable:
/// the preferred replica 2 is elected. BAZ: replicas [2, 1, 3], ISR [1, 3],
/// leader 3, all acceptable: 2 is not in the ISR, so the valid leader 3
/// stays. (Neither is unclean; these functions never are.)
#[test]
fn partition_change_builder_test_elect_leader() {
    let foo = partition(0, &[2, 1, 3], Some(1), &[2, 1, 3]);
    assert_eq!(elect_preferred_leader(&foo, |r| r != 3), Some(2));
    let baz = partition(0, &[2, 1, 3], Some(3), &[1, 3]);
    assert_eq!(elect_preferred_leader(&baz, |_| true), Some(3));
}

/// `PartitionChangeBuilderTest.testNoChange`, its PREFERRED case: BAZ with a
/// preferred election builds no record. A balance run over it elects
/// nothing, and the election answers `PREFERRED_LEADER_NOT_AVAILABLE`.
#[test]
fn partition_change_builder_test_no_change() {
    let baz = partition(0, &[2, 1, 3], Some(3), &[1, 3]);
    assert_eq!(maybe_balance_partition_leaders(std::slice::from_ref(&baz), usize::MAX, |_| true), BalancePartitionLeaders::default());
    assert_eq!(preferred_election(&baz, ControllerMode::KRaft, |_| true), PreferredElection::PreferredLeaderNotAvailable);
}

// ----- KRaft: ReplicationControlManagerTest (3.8.0) -------------------------

/// `ReplicationControlManagerTest.testPreferredElectionDoesNotTriggerUncleanElection`:
/// brokers 1 to 4 active; foo-0 assigned [1, 2, 3] (ISR [1, 2, 3], leader
/// 1). Fencing 2 and 3 shrinks the ISR to [1]; fencing 1 too leaves it
/// leaderless with ISR [1]; then 2 is unfenced and
/// `unclean.leader.election.enable` set. A PREFERRED election must not
/// elect 2 (out of the ISR): no record, `PREFERRED_LEADER_NOT_AVAILABLE`.
#[test]
fn replication_control_manager_test_preferred_election_does_not_trigger_unclean_election() {
    let foo0 = partition(0, &[1, 2, 3], None, &[1]);
    let active = [2, 4];
    assert_eq!(preferred_election(&foo0, ControllerMode::KRaft, among(&active)), PreferredElection::PreferredLeaderNotAvailable);
    assert_eq!(elect_preferred_leader(&foo0, among(&active)), None, "no leader, as before");
    assert_eq!(maybe_balance_partition_leaders(&[foo0], usize::MAX, among(&active)), BalancePartitionLeaders::default());
}

/// `ReplicationControlManagerTest.testElectPreferredLeaders`: brokers 0 to 4
/// registered, 1 to 4 unfenced, 1 in controlled shutdown, so 2, 3 and 4 are
/// active. Topic foo is created with [1, 2, 3], [2, 3, 4], [0, 2, 1]; the
/// ISR of each is its active replicas and the leader the first of them:
/// ISR [2, 3], [2, 3, 4], [2], all led by 2. The first election answers
/// not available, not needed, not available, with no records. Then 1 is
/// registered again and 0 and 1 unfenced, and AlterPartition from leader 2
/// expands foo-0 to [1, 2, 3] and foo-2 to [0, 2, 1]: the second election
/// makes 1 the leader of foo-0 and 0 of foo-2, foo-1 still not needed.
#[test]
fn replication_control_manager_test_elect_preferred_leaders() {
    let mut foo = [partition(0, &[1, 2, 3], Some(2), &[2, 3]), partition(1, &[2, 3, 4], Some(2), &[2, 3, 4]), partition(2, &[0, 2, 1], Some(2), &[2])];
    let active = [2, 3, 4];
    let answers: Vec<PreferredElection> = foo.iter().map(|p| preferred_election(p, ControllerMode::KRaft, among(&active))).collect();
    assert_eq!(answers, [PreferredElection::PreferredLeaderNotAvailable, PreferredElection::ElectionNotNeeded, PreferredElection::PreferredLeaderNotAvailable]);

    let active = [0, 1, 2, 3, 4];
    foo[0].isr = vec![1, 2, 3];
    foo[2].isr = vec![0, 2, 1];
    let answers: Vec<PreferredElection> = foo.iter().map(|p| preferred_election(p, ControllerMode::KRaft, among(&active))).collect();
    assert_eq!(answers, [PreferredElection::Elected(1), PreferredElection::ElectionNotNeeded, PreferredElection::Elected(0)]);
}

/// `ReplicationControlManagerTest.testBalancePartitionLeaders`: brokers 0 to
/// 4 registered, 2, 3 and 4 unfenced; foo created with [1, 2, 3],
/// [2, 3, 4], [0, 2, 1], all led by 2 (ISR [2, 3], [2, 3, 4], [2]), so
/// leadership is imbalanced. Broker 1 is unfenced and AlterPartition expands
/// foo-0's ISR to [1, 2, 3]: a balance run elects 1 for foo-0 only (foo-2's
/// preferred replica 0 is fenced), still imbalanced, no immediate
/// reschedule. Broker 0 is unfenced and foo-2's ISR expanded to [0, 2, 1]:
/// the next run elects 0 for foo-2, and leadership is balanced. The test
/// context sets `maxElectionsPerImbalance` to `Integer.MAX_VALUE`.
#[test]
fn replication_control_manager_test_balance_partition_leaders() {
    let max = i32::MAX as usize;
    let mut foo = vec![partition(0, &[1, 2, 3], Some(2), &[2, 3]), partition(1, &[2, 3, 4], Some(2), &[2, 3, 4]), partition(2, &[0, 2, 1], Some(2), &[2])];
    assert!(are_partition_leaders_imbalanced(&foo));

    foo[0].isr = vec![1, 2, 3];
    let result = maybe_balance_partition_leaders(&foo, max, among(&[1, 2, 3, 4]));
    assert_eq!(result.elections, vec![(0, Some(1))]);
    foo[0].leader = Some(1);
    assert!(are_partition_leaders_imbalanced(&foo));
    assert!(!result.reschedule_immediately);

    foo[2].isr = vec![0, 2, 1];
    let result = maybe_balance_partition_leaders(&foo, max, among(&[0, 1, 2, 3, 4]));
    assert_eq!(result.elections, vec![(2, Some(0))]);
    foo[2].leader = Some(0);
    assert!(!are_partition_leaders_imbalanced(&foo));
    assert!(!result.reschedule_immediately);
}

// ----- KRaft: QuorumControllerTest (3.8.0) ----------------------------------

/// `QuorumControllerTest.testBalancePartitionLeaders`: three brokers, topic
/// foo with three partitions of three replicas, and
/// `leaderImbalanceCheckIntervalNs` 1 s. Broker 3 is fenced (its session
/// times out): exactly one partition, the one 3 is preferred for, is
/// imbalanced. Broker 3 registers again and is unfenced, AlterPartition puts
/// it back in that partition's ISR, and within ten intervals leadership is
/// balanced. Kafka's placement is random; here the replicas are striped
/// [1, 2, 3], [2, 3, 1], [3, 1, 2]. Reduced to the imbalance, the balance
/// runs and when they are scheduled: the first an interval after the
/// fencing, one that finds 3 not yet in the ISR elects nothing and the next
/// follows an interval later.
#[test]
fn quorum_controller_test_balance_partition_leaders() {
    let interval_ms = 1_000;
    let mut schedule = ImbalanceSchedule::default();
    // Fenced at 5 s: 3 leaves every ISR, and foo-2's leadership moves to 1.
    let fenced_ms = 5_000;
    let mut foo = vec![partition(0, &[1, 2, 3], Some(1), &[1, 2]), partition(1, &[2, 3, 1], Some(2), &[2, 1]), partition(2, &[3, 1, 2], Some(1), &[1, 2])];
    let imbalanced: Vec<PartitionId> = foo.iter().filter(|p| !p.has_preferred_leader()).map(|p| p.id).collect();
    assert_eq!(imbalanced, vec![2]);
    let first_run_ms = maybe_schedule_next_balance_partition_leaders(&mut schedule, Some(interval_ms), are_partition_leaders_imbalanced(&foo), fenced_ms);
    assert_eq!(first_run_ms, Some(fenced_ms + interval_ms), "an interval after the write that made the imbalance");

    // Broker 3 is unfenced before the first run, but not yet back in the ISR.
    let run = maybe_balance_partition_leaders(&foo, usize::MAX, among(&[1, 2, 3]));
    assert!(run.elections.is_empty(), "3 is active but not in the ISR");
    schedule = ImbalanceSchedule::after_run(&run);
    let second_run_ms = maybe_schedule_next_balance_partition_leaders(&mut schedule, Some(interval_ms), are_partition_leaders_imbalanced(&foo), fenced_ms + interval_ms);
    assert_eq!(second_run_ms, Some(fenced_ms + 2 * interval_ms), "still imbalanced: another interval");

    foo[2].isr = vec![1, 2, 3];
    let run = maybe_balance_partition_leaders(&foo, usize::MAX, among(&[1, 2, 3]));
    assert_eq!(run.elections, vec![(2, Some(3))]);
    foo[2].leader = Some(3);
    assert!(!are_partition_leaders_imbalanced(&foo));
    schedule = ImbalanceSchedule::after_run(&run);
    let balanced_ms = fenced_ms + 2 * interval_ms;
    assert_eq!(maybe_schedule_next_balance_partition_leaders(&mut schedule, Some(interval_ms), false, balanced_ms), None, "balanced: no further run");
    assert!(balanced_ms - fenced_ms <= 10 * interval_ms, "within ten intervals, as Kafka waits");
}
