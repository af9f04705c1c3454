//! Kafka's tests of its Raft (the `raft` module: `KafkaRaftClientTest`,
//! `KafkaRaftClientPreVoteTest`, `LeaderStateTest`, `CandidateStateTest`,
//! `QuorumStateTest`, `FollowerStateTest`) and the invariants of
//! `RaftEventSimulationTest`, against the model's quorum
//! (`highwater::model::quorum`). Each test sets a voter up as Kafka's test
//! does (its persisted epoch, vote and leader, its log, its role), hands it
//! the request or response the test hands `KafkaRaftClient`, and asserts
//! what Kafka's test asserts: the answer on the wire and the state after.
//!
//! Ported to this model's shape: voters are 1..=n (Kafka's tests pick a
//! random local id and use id+1, id+2); a Kafka test with two voters runs
//! here with a third that never answers, which keeps its outcome (a
//! majority of three is two) except where a test says otherwise; Kafka's
//! test timeouts (T_e 10000, T_f 50000, backoff max 100) are the model's
//! defaults (1000, 2000, 1000), so times are scaled. The 4.0 tests run
//! under the 4.1 preset (pre-vote, KIP-996: Kafka 4.0.0 has it; the tags
//! read were 3.5.0, 3.7.0, 3.9.0-rc3 and 4.0.0); the 3.x tests under 3.7.

use highwater::model::config::{Config, ControllerId};
use highwater::model::event::QuorumCause;
use highwater::model::quorum::message::{QuorumError, QuorumMessage, Rpc};
use highwater::model::quorum::metadata_log::{MetadataLog, MetadataRecord};
use highwater::model::quorum::voter::Role;
use highwater::model::quorum::Quorum;
use highwater::{Protocol, Scenario, Simulation, ViolationKind};

const T_E: u64 = 1000;
const T_F: u64 = 2000;

fn quorum(protocol: Protocol, n: u32) -> Quorum {
    let mut c = Config::for_protocol(protocol);
    c.controllers = n;
    Quorum::new(&c, &[])
}

/// A log of `(offset, epoch)` pairs by their epochs, one record each.
fn log(epochs: &[u32]) -> MetadataLog {
    let mut l = MetadataLog::default();
    for &e in epochs {
        l.append(e, MetadataRecord::LeaderChange { leader: 1 });
    }
    l
}

/// Voter `c` restarted from a quorum-state file of (epoch, leader, vote)
/// over `log` (`QuorumState.initialize`).
fn restarted(q: &mut Quorum, c: ControllerId, epoch: u32, leader: Option<ControllerId>, voted: Option<ControllerId>, l: MetadataLog, now: u64) {
    q.crash(c);
    let v = &mut q.voters[(c - 1) as usize];
    v.epoch = epoch;
    v.leader = leader;
    v.voted_for = voted;
    v.log = l;
    q.restart(c, now);
    wire(q);
    q.take_events();
}

/// What is on the wire, taken off it in send order.
fn wire(q: &mut Quorum) -> Vec<QuorumMessage> {
    let mut out = vec![];
    while let Some((_, m)) = q.in_flight.pop_first_if(|_| true) {
        out.push(m);
    }
    out
}

/// Runs every timer due up to `now` (nothing is delivered).
fn poll(q: &mut Quorum, now: u64) {
    while q.run_next_due_timers_only(now) {}
}

fn vote(epoch: u32, last_epoch: u32, last_offset: u64) -> Rpc {
    Rpc::Vote { epoch, last_epoch, last_offset, pre_vote: false }
}

fn pre_vote(epoch: u32, last_epoch: u32, last_offset: u64) -> Rpc {
    Rpc::Vote { epoch, last_epoch, last_offset, pre_vote: true }
}

fn to(c: ControllerId, from: ControllerId, rpc: Rpc) -> QuorumMessage {
    QuorumMessage { from, to: c, rpc }
}

/// The one answer voter `c` sent back, as (granted, error, epoch, leader).
fn vote_answer(q: &mut Quorum) -> (bool, Option<QuorumError>, u32, Option<ControllerId>) {
    let sent = wire(q);
    let answers: Vec<_> = sent.iter().filter_map(|m| if let Rpc::VoteResponse { epoch, leader, granted, error, .. } = m.rpc { Some((granted, error, epoch, leader)) } else { None }).collect();
    assert_eq!(answers.len(), 1, "{sent:?}");
    answers[0]
}

fn state(q: &Quorum, c: ControllerId) -> (Role, u32, Option<ControllerId>, Option<ControllerId>) {
    let v = q.voter(c);
    (v.role, v.epoch, v.leader, v.voted_for)
}

// ----- votes ------------------------------------------------------------------------

/// `KafkaRaftClientTest.testHandleValidVoteRequestAsFollower`: an
/// unattached voter grants an up-to-date candidate and persists the vote;
/// 3.7 calls that state Voted, 4.0 Unattached with a vote.
#[test]
fn kafka_raft_client_test_handle_valid_vote_request_as_follower() {
    for (p, role) in [(Protocol::V3_7, "voted"), (Protocol::V4_1, "unattached")] {
        let mut q = quorum(p, 3);
        restarted(&mut q, 1, 2, None, None, log(&[]), 0);
        q.deliver(to(1, 2, vote(2, 1, 1)), 0);
        assert_eq!(vote_answer(&mut q), (true, None, 2, None));
        assert_eq!(state(&q, 1), (Role::Unattached, 2, None, Some(2)));
        assert_eq!(q.voter(1).role_name(q.rules.voted_state), role, "{p}");
    }
}

/// `testHandleVoteRequestAsFollowerWithElectedLeader`: a follower never grants a vote in its epoch.
#[test]
fn kafka_raft_client_test_handle_vote_request_as_follower_with_elected_leader() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, Some(3), None, log(&[]), 0);
    q.deliver(to(1, 2, vote(2, 1, 1)), 0);
    assert_eq!(vote_answer(&mut q), (false, None, 2, Some(3)));
    assert_eq!(state(&q, 1), (Role::Follower, 2, Some(3), None));
}

/// `testHandleVoteRequestAsFollowerWithVotedCandidate`: a vote already cast goes to no one else.
#[test]
fn kafka_raft_client_test_handle_vote_request_as_follower_with_voted_candidate() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, None, Some(3), log(&[]), 0);
    q.deliver(to(1, 2, vote(2, 1, 1)), 0);
    assert_eq!(vote_answer(&mut q), (false, None, 2, None));
    assert_eq!(state(&q, 1), (Role::Unattached, 2, None, Some(3)));
}

/// `testHandleInvalidVoteRequestWithOlderEpoch`: FENCED_LEADER_EPOCH, no vote.
#[test]
fn kafka_raft_client_test_handle_invalid_vote_request_with_older_epoch() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, None, None, log(&[]), 0);
    q.deliver(to(1, 2, vote(1, 0, 1)), 0);
    assert_eq!(vote_answer(&mut q), (false, Some(QuorumError::FencedLeaderEpoch), 2, None));
    assert_eq!(state(&q, 1), (Role::Unattached, 2, None, None));
}

/// `testLeaderIgnoreVoteRequestOnSameEpoch`.
#[test]
fn kafka_raft_client_test_leader_ignore_vote_request_on_same_epoch() {
    let mut q = quorum(Protocol::V4_1, 3);
    assert_eq!(state(&q, 1).0, Role::Leader);
    q.deliver(to(1, 2, vote(1, 1, 9)), 0);
    assert_eq!(vote_answer(&mut q), (false, None, 1, Some(1)));
    assert_eq!(state(&q, 1), (Role::Leader, 1, Some(1), None));
}

/// `testCandidateIgnoreVoteRequestOnSameEpoch`: a candidate voted for itself.
#[test]
fn kafka_raft_client_test_candidate_ignore_vote_request_on_same_epoch() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, None, Some(1), log(&[]), 0);
    assert_eq!(state(&q, 1), (Role::Candidate, 2, None, Some(1)));
    q.deliver(to(1, 2, vote(2, 1, 1)), 0);
    assert_eq!(vote_answer(&mut q), (false, None, 2, None));
    assert_eq!(state(&q, 1).3, Some(1));
}

/// `testRejectVotesFromSameEpochAfterResigningLeadership`: a leader
/// restarts Resigned and may not vote in its epoch again.
#[test]
fn kafka_raft_client_test_reject_votes_from_same_epoch_after_resigning_leadership() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, Some(1), None, log(&[]), 0);
    assert_eq!(state(&q, 1).0, Role::Resigned);
    q.deliver(to(1, 2, vote(2, 0, 0)), 0);
    assert_eq!(vote_answer(&mut q), (false, None, 2, Some(1)));
}

/// `testGrantVotesFromHigherEpochAfterResigningLeadership`: a Vote of a
/// newer epoch moves it to Unattached(3) first, then it grants.
#[test]
fn kafka_raft_client_test_grant_votes_from_higher_epoch_after_resigning_leadership() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, Some(1), None, log(&[]), 0);
    q.deliver(to(1, 2, vote(3, 0, 0)), 0);
    assert_eq!(vote_answer(&mut q), (true, None, 3, None));
    assert_eq!(state(&q, 1), (Role::Unattached, 3, None, Some(2)));
}

/// `testHandleCommitCallbackFiresInCandidateState`: a leader of epoch 7
/// with log end 10 gets Vote(8, last epoch 7, log end 9): it rejects the
/// stale candidate but is deposed all the same (Unattached in 8, no vote),
/// and keeps its HW 10.
#[test]
fn kafka_raft_client_test_handle_commit_callback_fires_in_candidate_state() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 6, None, None, log(&[2, 2, 2, 4, 4, 4, 4, 4, 4]), 0);
    // Unattached(6) -> Prospective -> pre-votes granted -> Candidate(7) -> Leader(7).
    poll(&mut q, 2 * T_E);
    let asked = wire(&mut q);
    assert_eq!(q.voter(1).role, Role::Prospective, "{asked:?}");
    q.deliver(to(1, 2, Rpc::VoteResponse { epoch: 6, leader: None, granted: true, pre_vote: true, error: None }), 2 * T_E);
    assert_eq!(state(&q, 1), (Role::Candidate, 7, None, Some(1)));
    q.deliver(to(1, 2, Rpc::VoteResponse { epoch: 7, leader: None, granted: true, pre_vote: false, error: None }), 2 * T_E);
    assert_eq!((q.voter(1).role, q.voter(1).log.end_offset(), q.voter(1).epoch_start_offset), (Role::Leader, 10, 9));
    wire(&mut q);
    q.deliver(to(1, 2, Rpc::Fetch { epoch: 7, fetch_offset: 10, last_fetched_epoch: 7 }), 2 * T_E);
    assert_eq!(q.voter(1).high_watermark, Some(10));
    q.deliver(to(1, 2, vote(8, 7, 9)), 2 * T_E);
    assert_eq!(vote_answer(&mut q).0, false);
    assert_eq!(state(&q, 1), (Role::Unattached, 8, None, None));
    assert_eq!(q.voter(1).high_watermark, Some(10), "the HW survives Unattached");
}

/// `testHandleVoteRequestAsProspective` (4.0): a prospective that knows a
/// leader grants a Vote of a newer epoch and forgets the leader.
#[test]
fn kafka_raft_client_test_handle_vote_request_as_prospective() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, Some(3), None, log(&[]), 0);
    poll(&mut q, T_F);
    wire(&mut q);
    assert_eq!(state(&q, 1), (Role::Prospective, 2, Some(3), None));
    q.deliver(to(1, 2, vote(3, 2, 1)), T_F);
    assert_eq!(vote_answer(&mut q), (true, None, 3, None));
    assert_eq!(state(&q, 1), (Role::Unattached, 3, None, Some(2)));
}

// ----- elections ----------------------------------------------------------------------

/// `testInitializeAsCandidateAndBecomeLeaderQuorumOfThree`: a voter whose
/// file holds its own vote comes back a candidate in that epoch, with no
/// pre-vote even in 4.0; one vote more makes it leader, its LeaderChange at
/// (0, 2), and BeginQuorumEpoch goes to both others.
#[test]
fn kafka_raft_client_test_initialize_as_candidate_and_become_leader_quorum_of_three() {
    for p in [Protocol::V3_7, Protocol::V4_1] {
        let mut q = quorum(p, 3);
        q.crash(1);
        let v = &mut q.voters[0];
        (v.epoch, v.leader, v.voted_for, v.log) = (2, None, Some(1), log(&[]));
        q.restart(1, 0);
        let asked = wire(&mut q);
        assert_eq!(asked.iter().map(|m| (m.to, m.rpc.clone())).collect::<Vec<_>>(), vec![(2, vote(2, 0, 0)), (3, vote(2, 0, 0))], "{p}");
        q.deliver(to(1, 2, Rpc::VoteResponse { epoch: 2, leader: None, granted: true, pre_vote: false, error: None }), 0);
        assert_eq!(state(&q, 1), (Role::Leader, 2, Some(1), None));
        let e = q.voter(1).log.entries()[0];
        assert_eq!((e.offset, e.epoch, e.record), (0, 2, MetadataRecord::LeaderChange { leader: 1 }));
        let begun: Vec<_> = wire(&mut q).into_iter().filter(|m| m.rpc == Rpc::BeginQuorumEpoch { epoch: 2 }).map(|m| m.to).collect();
        assert_eq!(begun, vec![2, 3]);
    }
}

/// `testCandidateBackoffElection` (4.0) and `testRetryElection` (3.x):
/// rejected by both others, the candidate backs off; then 4.0 asks for
/// pre-votes again in its epoch, 3.x runs in the next epoch.
#[test]
fn kafka_raft_client_test_candidate_backoff_election() {
    for (p, after) in [(Protocol::V4_1, (Role::Prospective, 2)), (Protocol::V3_7, (Role::Candidate, 3))] {
        let mut q = quorum(p, 3);
        restarted(&mut q, 1, 2, None, Some(1), log(&[]), 0);
        let rejected = |from| to(1, from, Rpc::VoteResponse { epoch: 2, leader: None, granted: false, pre_vote: false, error: None });
        q.deliver(rejected(2), 0);
        assert!(!q.voter(1).backing_off, "{p}: one rejection of three is no loss yet");
        q.deliver(rejected(3), 0);
        assert!(q.voter(1).backing_off && q.voter(1).timer_ms.is_some_and(|t| t <= 200), "{p}: backoff 100 x rand[0, 2)");
        poll(&mut q, 200);
        assert_eq!((q.voter(1).role, q.voter(1).epoch), after, "{p}");
        assert_eq!(q.voter(1).retries, 2, "{p}");
    }
}

/// `testVoteRequestTimeout`: a candidate asks again, after the request
/// timeout, the voters that have not answered (Kafka's test harness sets
/// T_e 10000 and a request timeout of 5000; the model's request timeout is
/// Kafka's default, 2000, so the election timeout here is 10000).
#[test]
fn kafka_raft_client_test_vote_request_timeout() {
    for p in [Protocol::V3_7, Protocol::V4_1] {
        let mut c = Config::for_protocol(p);
        (c.controllers, c.controller_quorum_election_timeout_ms) = (3, 10_000);
        let mut q = Quorum::new(&c, &[]);
        restarted(&mut q, 1, 2, None, Some(1), log(&[]), 0);
        q.deliver(to(1, 2, Rpc::VoteResponse { epoch: 2, leader: None, granted: false, pre_vote: false, error: None }), 0);
        poll(&mut q, 1_999);
        assert!(wire(&mut q).iter().all(|m| m.from != 1), "{p}: nothing before the request timeout");
        poll(&mut q, 2_000);
        let again: Vec<_> = wire(&mut q).into_iter().filter(|m| m.from == 1).map(|m| (m.to, m.rpc)).collect();
        assert_eq!(again, vec![(3, vote(2, 0, 0))], "{p}: only the voter that has not answered");
        q.deliver(to(1, 3, Rpc::VoteResponse { epoch: 2, leader: None, granted: true, pre_vote: false, error: None }), 2_000);
        assert_eq!(state(&q, 1), (Role::Leader, 2, Some(1), None), "{p}");
    }
}

/// `testEndQuorumEpochRetriesWhileResigned`: a leader restarted resigned
/// sends EndQuorumEpoch to both others; once one acknowledges, only the
/// other gets it again, after the request timeout.
#[test]
fn kafka_raft_client_test_end_quorum_epoch_retries_while_resigned() {
    let mut c = Config::for_protocol(Protocol::V4_1);
    (c.controllers, c.controller_quorum_election_timeout_ms) = (3, 10_000);
    let mut q = Quorum::new(&c, &[]);
    q.crash(1);
    let v = &mut q.voters[0];
    (v.epoch, v.leader, v.voted_for, v.log) = (19, Some(1), None, log(&[]));
    q.restart(1, 0);
    let sent: Vec<_> = wire(&mut q).into_iter().map(|m| (m.to, m.rpc)).collect();
    assert_eq!(sent, vec![(2, Rpc::EndQuorumEpoch { epoch: 19, successors: vec![] }), (3, Rpc::EndQuorumEpoch { epoch: 19, successors: vec![] })]);
    q.deliver(to(1, 2, Rpc::EndQuorumEpochResponse { epoch: 19, leader: Some(1), error: None }), 10);
    poll(&mut q, 1_999);
    assert!(wire(&mut q).iter().all(|m| m.from != 1));
    poll(&mut q, 2_000);
    let again: Vec<_> = wire(&mut q).into_iter().filter(|m| m.from == 1).map(|m| m.to).collect();
    assert_eq!(again, vec![3]);
    assert_eq!(q.voter(1).role, Role::Resigned);
}

/// `testCandidateElectionTimeout` (4.0): a candidate's election timeout
/// leads back to Prospective at once, without a backoff.
#[test]
fn kafka_raft_client_test_candidate_election_timeout() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, None, Some(1), log(&[]), 0);
    let timer = q.voter(1).timer_ms.unwrap();
    assert!((T_E..2 * T_E).contains(&timer));
    poll(&mut q, timer);
    assert_eq!((q.voter(1).role, q.voter(1).epoch, q.voter(1).backing_off), (Role::Prospective, 2, false));
    let asked: Vec<_> = wire(&mut q).into_iter().filter(|m| m.from == 1).map(|m| m.rpc).collect();
    assert_eq!(asked, vec![pre_vote(2, 0, 0), pre_vote(2, 0, 0)]);
}

/// `testVoteResponseIgnoredAfterBecomingFollower`: a candidate that learns
/// the leader of its epoch follows it; the grants that come after change nothing.
#[test]
fn kafka_raft_client_test_vote_response_ignored_after_becoming_follower() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 6, None, Some(1), log(&[]), 0);
    q.deliver(to(1, 3, Rpc::BeginQuorumEpoch { epoch: 6 }), 0);
    assert_eq!(state(&q, 1), (Role::Follower, 6, Some(3), Some(1)), "4.0 keeps the vote");
    q.deliver(to(1, 2, Rpc::VoteResponse { epoch: 6, leader: None, granted: true, pre_vote: false, error: None }), 0);
    q.deliver(to(1, 3, Rpc::VoteResponse { epoch: 6, leader: Some(3), granted: true, pre_vote: false, error: None }), 0);
    assert_eq!(state(&q, 1), (Role::Follower, 6, Some(3), Some(1)));
}

/// `testVoterBecomeProspectiveAfterFetchTimeout` (4.0) and
/// `testVoterBecomeCandidateAfterFetchTimeout` (3.x).
#[test]
fn kafka_raft_client_test_voter_become_prospective_after_fetch_timeout() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 5, Some(2), None, log(&[3]), 0);
    poll(&mut q, T_F);
    assert_eq!(state(&q, 1), (Role::Prospective, 5, Some(2), None));
    assert!(wire(&mut q).iter().any(|m| m.rpc == pre_vote(5, 3, 1)));
    let mut q = quorum(Protocol::V3_7, 3);
    restarted(&mut q, 1, 5, Some(2), None, log(&[3]), 0);
    poll(&mut q, T_F);
    assert_eq!(state(&q, 1), (Role::Candidate, 6, None, Some(1)));
    assert!(wire(&mut q).iter().any(|m| m.rpc == vote(6, 3, 1)));
}

// ----- a candidate's count of votes (CandidateStateTest) ---------------------------------

/// A candidate of epoch 2 in a quorum of `n` (restarted with its own vote,
/// as `testInitializeAsCandidateAndBecomeLeader` sets it up), its Vote
/// requests taken off the wire.
fn candidate(p: Protocol, n: u32) -> Quorum {
    let mut q = quorum(p, n);
    restarted(&mut q, 1, 2, None, Some(1), log(&[]), 0);
    assert_eq!(state(&q, 1), (Role::Candidate, 2, None, Some(1)), "{p}");
    q
}

fn answer(granted: bool) -> Rpc {
    Rpc::VoteResponse { epoch: 2, leader: None, granted, pre_vote: false, error: None }
}

/// `CandidateStateTest.testSingleNodeQuorum`: a sole voter's own vote is a
/// majority: its election needs nobody, and no Vote goes on the wire.
#[test]
fn candidate_state_test_single_node_quorum() {
    for p in [Protocol::V3_7, Protocol::V4_1] {
        let mut q = quorum(p, 1);
        restarted(&mut q, 1, 2, None, Some(1), log(&[]), 0);
        poll(&mut q, 0);
        assert_eq!(q.voter(1).role, Role::Leader, "{p}");
        assert!(wire(&mut q).iter().all(|m| !matches!(m.rpc, Rpc::Vote { .. })), "{p}: no Vote asked of anyone");
    }
}

/// `testThreeNodeQuorumVoteGranted`: one grant of two is a majority with
/// its own; the other's rejection, after, changes nothing.
#[test]
fn candidate_state_test_three_node_quorum_vote_granted() {
    for p in [Protocol::V3_7, Protocol::V4_1] {
        let mut q = candidate(p, 3);
        q.deliver(to(1, 2, answer(true)), 0);
        assert_eq!(state(&q, 1), (Role::Leader, 2, Some(1), None), "{p}");
        q.deliver(to(1, 3, answer(false)), 0);
        assert_eq!(state(&q, 1), (Role::Leader, 2, Some(1), None), "{p}");
    }
}

/// `testThreeNodeQuorumVoteRejected`: one rejection is not yet a loss (the
/// other may still grant); two are.
#[test]
fn candidate_state_test_three_node_quorum_vote_rejected() {
    for p in [Protocol::V3_7, Protocol::V4_1] {
        let mut q = candidate(p, 3);
        q.deliver(to(1, 2, answer(false)), 0);
        assert!(!q.voter(1).backing_off, "{p}: one rejection");
        assert_eq!(q.voter(1).role, Role::Candidate, "{p}");
        q.deliver(to(1, 3, answer(false)), 0);
        assert!(q.voter(1).backing_off, "{p}: rejected by both, it backs off");
        // And one rejection, then a grant, wins.
        let mut q = candidate(p, 3);
        q.deliver(to(1, 2, answer(false)), 0);
        q.deliver(to(1, 3, answer(true)), 0);
        assert_eq!(q.voter(1).role, Role::Leader, "{p}");
    }
}

/// `testIdempotentGrant`: a voter's grant counts once, however often it
/// comes: in a quorum of five, the candidate and voter 2 granting twice are
/// two votes of the three it needs.
#[test]
fn candidate_state_test_idempotent_grant() {
    for p in [Protocol::V3_7, Protocol::V4_1] {
        let mut q = candidate(p, 5);
        q.deliver(to(1, 2, answer(true)), 0);
        q.deliver(to(1, 2, answer(true)), 0);
        assert_eq!(q.voter(1).role, Role::Candidate, "{p}: a repeated grant is no second vote");
        q.deliver(to(1, 3, answer(true)), 0);
        assert_eq!(q.voter(1).role, Role::Leader, "{p}");
    }
}

/// `testIdempotentReject`: a voter's rejection counts once: in a quorum of
/// five, voter 2 rejecting twice is not the three rejections that lose.
#[test]
fn candidate_state_test_idempotent_reject() {
    for p in [Protocol::V3_7, Protocol::V4_1] {
        let mut q = candidate(p, 5);
        for _ in 0..3 {
            q.deliver(to(1, 2, answer(false)), 0);
        }
        assert!(!q.voter(1).backing_off, "{p}: one voter's rejections are one");
        q.deliver(to(1, 3, answer(false)), 0);
        assert!(!q.voter(1).backing_off, "{p}: two of five");
        q.deliver(to(1, 4, answer(false)), 0);
        assert!(q.voter(1).backing_off, "{p}: three of five reject: lost");
    }
}

/// `testCannotChangeVoteGrantedToRejected` and `…RejectedToGranted`: Kafka
/// refuses to record a voter's second, different answer; the model ignores
/// it, so a grant then a rejection from voter 2 is still a grant.
#[test]
fn candidate_state_test_cannot_change_vote() {
    for p in [Protocol::V3_7, Protocol::V4_1] {
        let mut q = candidate(p, 5);
        q.deliver(to(1, 2, answer(true)), 0);
        q.deliver(to(1, 2, answer(false)), 0);
        q.deliver(to(1, 3, answer(true)), 0);
        assert_eq!(q.voter(1).role, Role::Leader, "{p}: granted by 2 and 3");
        let mut q = candidate(p, 5);
        q.deliver(to(1, 2, answer(false)), 0);
        q.deliver(to(1, 2, answer(true)), 0);
        q.deliver(to(1, 3, answer(true)), 0);
        assert_eq!(q.voter(1).role, Role::Candidate, "{p}: 2's rejection stands: one grant of the two it needs");
    }
}

/// `testGrantVote`: a candidate grants no other candidate a vote in its
/// epoch, whether that one's log is up to date or not.
#[test]
fn candidate_state_test_grant_vote() {
    for p in [Protocol::V3_7, Protocol::V4_1] {
        for (last_epoch, last_offset) in [(0, 0), (1, 99)] {
            let mut q = candidate(p, 3);
            q.deliver(to(1, 3, vote(2, last_epoch, last_offset)), 0);
            let (granted, _, epoch, _) = vote_answer(&mut q);
            assert_eq!((granted, epoch), (false, 2), "{p}");
            assert_eq!(state(&q, 1), (Role::Candidate, 2, None, Some(1)), "{p}");
        }
    }
}

// ----- a follower (FollowerStateTest) ------------------------------------------------------------

/// `FollowerStateTest.testFetchTimeoutExpiration`: a follower that hears
/// nothing from its leader keeps following until the fetch timeout, and no
/// longer (4.1: it turns prospective; 3.7: candidate in the next epoch).
#[test]
fn follower_state_test_fetch_timeout_expiration() {
    for (p, after) in [(Protocol::V4_1, (Role::Prospective, 5)), (Protocol::V3_7, (Role::Candidate, 6))] {
        let mut q = quorum(p, 3);
        restarted(&mut q, 1, 5, Some(2), None, log(&[]), 0);
        assert_eq!(q.voter(1).timer_ms, Some(T_F), "{p}: the fetch timer runs from the start of following");
        poll(&mut q, T_F / 4);
        poll(&mut q, T_F - 1);
        assert_eq!(state(&q, 1), (Role::Follower, 5, Some(2), None), "{p}");
        poll(&mut q, T_F);
        assert_eq!((q.voter(1).role, q.voter(1).epoch), after, "{p}");
    }
}

/// `testMonotonicHighWatermark`: a follower's HW never goes back. Kafka's
/// `FollowerState` refuses a lower one; the model's follower keeps the
/// higher (a leader of the same epoch never sends a lower one).
#[test]
fn follower_state_test_monotonic_high_watermark() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, Some(3), None, log(&[1, 1, 1]), 0);
    let answer = |hw| to(1, 3, Rpc::FetchResponse { epoch: 2, leader: Some(3), error: None, records: vec![], diverging: None, high_watermark: Some(hw) });
    // Each answer is taken (1, then 3), and a lower one after is not.
    for (hw, kept) in [(1, 1), (3, 3), (2, 3)] {
        poll(&mut q, 0);
        wire(&mut q);
        q.deliver(answer(hw), 0);
        assert_eq!(q.voter(1).high_watermark, Some(kept), "HW {hw} answered");
    }
}

/// `FollowerStateTest.testGrantVote`: a follower with a leader grants no
/// vote in its epoch, to any voter, up to date or not.
#[test]
fn follower_state_test_grant_vote() {
    for (from, last_epoch, last_offset) in [(2, 0, 0), (2, 2, 99), (3, 0, 0), (3, 2, 99)] {
        let mut q = quorum(Protocol::V4_1, 3);
        restarted(&mut q, 1, 2, Some(3), None, log(&[]), 0);
        q.deliver(to(1, from, vote(2, last_epoch, last_offset)), 0);
        let (granted, _, epoch, leader) = vote_answer(&mut q);
        assert_eq!((granted, epoch, leader), (false, 2, Some(3)), "from {from}");
        assert_eq!(state(&q, 1), (Role::Follower, 2, Some(3), None));
    }
}

// ----- pre-vote (KafkaRaftClientPreVoteTest, 4.0) ----------------------------------------

/// `testHandlePreVoteRequestAsFollower`: a follower grants a pre-vote only
/// before its first successful fetch from its leader; a pre-vote of a newer
/// epoch moves it to that epoch, unattached, with no vote persisted.
#[test]
fn kafka_raft_client_pre_vote_test_handle_pre_vote_request_as_follower() {
    for fetched in [false, true] {
        let mut q = quorum(Protocol::V4_1, 3);
        restarted(&mut q, 1, 2, Some(3), None, log(&[]), 0);
        if fetched {
            poll(&mut q, 0);
            wire(&mut q);
            let hw = Some(0);
            q.deliver(to(1, 3, Rpc::FetchResponse { epoch: 2, leader: Some(3), error: None, records: vec![], diverging: None, high_watermark: hw }), 0);
        }
        q.deliver(to(1, 2, pre_vote(2, 2, 1)), 0);
        assert_eq!(vote_answer(&mut q), (!fetched, None, 2, Some(3)), "fetched: {fetched}");
        assert_eq!(state(&q, 1), (Role::Follower, 2, Some(3), None));
        q.deliver(to(1, 2, pre_vote(3, 3, 1)), 0);
        assert_eq!(vote_answer(&mut q), (true, None, 3, None));
        assert_eq!(state(&q, 1), (Role::Unattached, 3, None, None));
    }
}

/// `testRejectPreVoteIfRemoteLogIsNotUpToDate`.
#[test]
fn kafka_raft_client_pre_vote_test_reject_pre_vote_if_remote_log_is_not_up_to_date() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, None, None, log(&[2, 2, 2]), 0);
    q.deliver(to(1, 2, pre_vote(1, 1, 0)), 0);
    assert_eq!(vote_answer(&mut q), (false, Some(QuorumError::FencedLeaderEpoch), 2, None));
    q.deliver(to(1, 2, pre_vote(2, 1, 2)), 0);
    assert_eq!(vote_answer(&mut q), (false, None, 2, None));
    assert_eq!(state(&q, 1), (Role::Unattached, 2, None, None));
}

/// `testHandlePreVoteRequestAsCandidate`: a candidate grants pre-votes it
/// finds up to date, keeping its own vote.
#[test]
fn kafka_raft_client_pre_vote_test_handle_pre_vote_request_as_candidate() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, None, Some(1), log(&[]), 0);
    q.deliver(to(1, 2, pre_vote(2, 2, 1)), 0);
    assert_eq!(vote_answer(&mut q), (true, None, 2, None));
    assert_eq!(state(&q, 1), (Role::Candidate, 2, None, Some(1)));
    q.deliver(to(1, 2, pre_vote(3, 3, 2)), 0);
    assert_eq!(vote_answer(&mut q), (true, None, 3, None));
    assert_eq!(state(&q, 1), (Role::Unattached, 3, None, None));
}

/// `testProspectiveWithLeaderTransitionsToFollower`: a prospective that
/// knows a leader goes back to following it when its pre-vote times out or
/// is rejected by both; an answer of a newer epoch naming a leader makes it
/// follow that one.
#[test]
fn kafka_raft_client_pre_vote_test_prospective_with_leader_transitions_to_follower() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 5, Some(2), None, log(&[]), 0);
    poll(&mut q, T_F);
    assert_eq!(q.voter(1).role, Role::Prospective);
    let timer = q.voter(1).timer_ms.unwrap();
    poll(&mut q, timer);
    assert_eq!(state(&q, 1), (Role::Follower, 5, Some(2), None));
    assert!(wire(&mut q).iter().any(|m| matches!(m.rpc, Rpc::Fetch { epoch: 5, .. })));
    let now = timer + T_F;
    poll(&mut q, now);
    assert_eq!(q.voter(1).role, Role::Prospective);
    wire(&mut q);
    let rejected = |from| to(1, from, Rpc::VoteResponse { epoch: 5, leader: None, granted: false, pre_vote: true, error: None });
    q.deliver(rejected(2), now);
    assert_eq!(q.voter(1).role, Role::Prospective, "one rejection of three is no loss yet");
    q.deliver(rejected(3), now);
    assert_eq!(state(&q, 1), (Role::Follower, 5, Some(2), None));
    poll(&mut q, now + T_F);
    assert_eq!(q.voter(1).role, Role::Prospective);
    q.deliver(to(1, 3, Rpc::VoteResponse { epoch: 6, leader: Some(3), granted: false, pre_vote: true, error: Some(QuorumError::FencedLeaderEpoch) }), now + T_F);
    assert_eq!(state(&q, 1), (Role::Follower, 6, Some(3), None));
}

// ----- restart, BeginQuorumEpoch, EndQuorumEpoch --------------------------------------------

/// `testInitializeAsResignedLeaderFromStateStore`: EndQuorumEpoch to both
/// others; after its election timeout, 4.0 is Unattached in the next epoch
/// with no time left (and asks for pre-votes at once), 3.x a candidate there.
#[test]
fn kafka_raft_client_test_initialize_as_resigned_leader_from_state_store() {
    for p in [Protocol::V4_1, Protocol::V3_7] {
        let mut q = quorum(p, 3);
        q.crash(1);
        let v = &mut q.voters[0];
        (v.epoch, v.leader, v.voted_for, v.log) = (2, Some(1), None, log(&[]));
        q.restart(1, 0);
        let ended: Vec<_> = wire(&mut q).into_iter().filter(|m| matches!(m.rpc, Rpc::EndQuorumEpoch { epoch: 2, .. })).map(|m| m.to).collect();
        assert_eq!(ended, vec![2, 3], "{p}");
        let timer = q.voter(1).timer_ms.unwrap();
        assert!(q.run_next_due_timers_only(timer));
        if p == Protocol::V4_1 {
            assert_eq!((state(&q, 1), q.voter(1).timer_ms), ((Role::Unattached, 3, None, None), Some(timer)));
            assert!(q.run_next_due_timers_only(timer));
            assert_eq!(q.voter(1).role, Role::Prospective);
        } else {
            assert_eq!(state(&q, 1), (Role::Candidate, 3, None, Some(1)));
        }
    }
}

/// `testHandleBeginQuorumRequest`: the voter follows the new leader; 4.0
/// keeps its vote in the file, 3.x drops it.
#[test]
fn kafka_raft_client_test_handle_begin_quorum_request() {
    for (p, vote) in [(Protocol::V4_1, Some(2)), (Protocol::V3_7, None)] {
        let mut q = quorum(p, 3);
        restarted(&mut q, 1, 2, None, Some(2), log(&[]), 0);
        q.deliver(to(1, 2, Rpc::BeginQuorumEpoch { epoch: 2 }), 0);
        assert!(wire(&mut q).iter().any(|m| m.rpc == Rpc::BeginQuorumEpochResponse { epoch: 2, leader: Some(2), error: None }));
        assert_eq!(state(&q, 1), (Role::Follower, 2, Some(2), vote), "{p}");
    }
}

/// `testHandleEndQuorumRequest`: the first successor runs at once.
#[test]
fn kafka_raft_client_test_handle_end_quorum_request() {
    for (p, after) in [(Protocol::V4_1, (Role::Prospective, 2)), (Protocol::V3_7, (Role::Candidate, 3))] {
        let mut q = quorum(p, 3);
        restarted(&mut q, 1, 2, Some(2), None, log(&[]), 0);
        q.deliver(to(1, 2, Rpc::EndQuorumEpoch { epoch: 2, successors: vec![1] }), 10);
        assert!(wire(&mut q).iter().any(|m| m.rpc == Rpc::EndQuorumEpochResponse { epoch: 2, leader: Some(2), error: None }));
        poll(&mut q, 10);
        assert_eq!((q.voter(1).role, q.voter(1).epoch), after, "{p}");
    }
}

/// `testHandleEndQuorumRequestWithLowerPriorityToBecomeLeader`: second of
/// two successors, it waits (max >> 1) << 0 = 500 ms before it runs.
#[test]
fn kafka_raft_client_test_handle_end_quorum_request_with_lower_priority_to_become_leader() {
    let mut q = quorum(Protocol::V3_7, 3);
    restarted(&mut q, 1, 2, Some(2), None, log(&[]), 0);
    q.deliver(to(1, 2, Rpc::EndQuorumEpoch { epoch: 2, successors: vec![3, 1] }), 0);
    poll(&mut q, 499);
    assert_eq!(q.voter(1).role, Role::Follower);
    poll(&mut q, 500);
    assert_eq!(state(&q, 1), (Role::Candidate, 3, None, Some(1)));
}

/// `testEndQuorumEpochSentBasedOnFetchOffset`: the successors, the
/// furthest fetched first.
#[test]
fn kafka_raft_client_test_end_quorum_epoch_sent_based_on_fetch_offset() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 0, None, Some(1), log(&[]), 0);
    q.deliver(to(1, 2, Rpc::VoteResponse { epoch: 0, leader: None, granted: true, pre_vote: false, error: None }), 0);
    assert_eq!((q.voter(1).role, q.voter(1).log.end_offset()), (Role::Leader, 1));
    q.deliver(to(1, 2, Rpc::Fetch { epoch: 0, fetch_offset: 1, last_fetched_epoch: 0 }), 0);
    assert_eq!(q.voter(1).high_watermark, Some(1));
    q.append(1, MetadataRecord::RegisterBroker { broker: 1, fenced: false }, 0);
    q.append(1, MetadataRecord::RegisterBroker { broker: 2, fenced: false }, 0);
    q.deliver(to(1, 3, Rpc::Fetch { epoch: 0, fetch_offset: 3, last_fetched_epoch: 0 }), 0);
    assert_eq!(q.voter(1).high_watermark, Some(3));
    wire(&mut q);
    q.resign(1, 0, QuorumCause::AskedToResign);
    let successors: Vec<_> = wire(&mut q).into_iter().filter_map(|m| if let Rpc::EndQuorumEpoch { successors, .. } = m.rpc { Some(successors) } else { None }).collect();
    assert_eq!(successors, vec![vec![3, 2], vec![3, 2]]);
}

/// `testBeginQuorumEpochHeartbeat` (3.9, 4.0): every T_f / 2 to every
/// voter, acknowledged or not; 3.7 sends none once both acknowledged.
/// Within check-quorum's 1.5 x T_f, as Kafka's test (no fetch arrives).
#[test]
fn kafka_raft_client_test_begin_quorum_epoch_heartbeat() {
    let sent = |p| {
        let mut q = quorum(p, 3);
        let mut times = vec![];
        for now in (0..T_F * 3 / 2).step_by(100) {
            while q.run_next_due_timers_only(now) {}
            for m in wire(&mut q) {
                if matches!(m.rpc, Rpc::BeginQuorumEpoch { .. }) {
                    times.push((now, m.to));
                }
            }
        }
        times
    };
    assert_eq!(sent(Protocol::V4_1), vec![(1000, 2), (1000, 3), (2000, 2), (2000, 3)]);
    assert_eq!(sent(Protocol::V3_7), vec![]);
}

// ----- replication and the HW ---------------------------------------------------------------

/// `testLeaderImmediatelySendsDivergingEpoch`: epochs 1@0-2, 3@3-5, 5@6-8;
/// a fetch (offset 6, last epoch 2) is told at once that epoch 1 ends at 3.
#[test]
fn kafka_raft_client_test_leader_immediately_sends_diverging_epoch() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 5, None, Some(1), log(&[1, 1, 1, 3, 3, 3, 5, 5, 5]), 0);
    q.deliver(to(1, 2, Rpc::VoteResponse { epoch: 5, leader: None, granted: true, pre_vote: false, error: None }), 0);
    wire(&mut q);
    q.deliver(to(1, 2, Rpc::Fetch { epoch: 5, fetch_offset: 6, last_fetched_epoch: 2 }), 0);
    let answer = wire(&mut q).pop().unwrap();
    assert!(matches!(answer.rpc, Rpc::FetchResponse { diverging: Some((1, 3)), error: None, .. }), "{answer:?}");
}

/// `testFollowerLogReconciliation`: log end 3 in epoch 3, told epoch 3 ends
/// at 2: it truncates to 2, ignores the answer's HW, and fetches (2, 3).
#[test]
fn kafka_raft_client_test_follower_log_reconciliation() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 5, Some(2), None, log(&[3, 3, 3]), 0);
    poll(&mut q, 0);
    assert!(wire(&mut q).iter().any(|m| m.rpc == Rpc::Fetch { epoch: 5, fetch_offset: 3, last_fetched_epoch: 3 }));
    q.deliver(to(1, 2, Rpc::FetchResponse { epoch: 5, leader: Some(2), error: None, records: vec![], diverging: Some((3, 2)), high_watermark: Some(1) }), 0);
    assert_eq!((q.voter(1).log.end_offset(), q.voter(1).high_watermark), (2, None));
    poll(&mut q, 0);
    assert!(wire(&mut q).iter().any(|m| m.rpc == Rpc::Fetch { epoch: 5, fetch_offset: 2, last_fetched_epoch: 3 }));
}

/// `testHandleCommitCallbackFiresAfterFollowerHighWatermarkAdvances` and
/// `testEmptyRecordSetInFetchResponse`: a follower's HW is the leader's
/// capped at its own log end, so it learns a commit one round trip late.
#[test]
fn kafka_raft_client_test_handle_commit_callback_fires_after_follower_high_watermark_advances() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 5, Some(2), None, log(&[]), 0);
    let source = log(&[3, 3, 3, 3, 3, 3]);
    let records = |from: usize, to_: usize| source.entries()[from..to_].to_vec();
    poll(&mut q, 0);
    wire(&mut q);
    q.deliver(to(1, 2, Rpc::FetchResponse { epoch: 5, leader: Some(2), error: None, records: records(0, 3), diverging: None, high_watermark: Some(0) }), 0);
    assert_eq!((q.voter(1).log.end_offset(), q.voter(1).high_watermark), (3, Some(0)));
    poll(&mut q, 0);
    assert!(wire(&mut q).iter().any(|m| m.rpc == Rpc::Fetch { epoch: 5, fetch_offset: 3, last_fetched_epoch: 3 }));
    q.deliver(to(1, 2, Rpc::FetchResponse { epoch: 5, leader: Some(2), error: None, records: records(3, 6), diverging: None, high_watermark: Some(3) }), 0);
    assert_eq!((q.voter(1).log.end_offset(), q.voter(1).high_watermark), (6, Some(3)));
}

/// `LeaderStateTest.testUpdateHighWatermarkQuorumSizeThree`: the second
/// highest of three end offsets, adopted only past the epoch's start (10).
#[test]
fn leader_state_test_update_high_watermark_quorum_size_three() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 2, None, Some(1), log(&[1; 10]), 0);
    q.deliver(to(1, 2, Rpc::VoteResponse { epoch: 2, leader: None, granted: true, pre_vote: false, error: None }), 0);
    assert_eq!(q.voter(1).epoch_start_offset, 10);
    for b in 0..4 {
        q.append(1, MetadataRecord::RegisterBroker { broker: b, fenced: false }, 0);
    }
    assert_eq!(q.voter(1).log.end_offset(), 15);
    let fetch = |q: &mut Quorum, from, offset, last| {
        q.deliver(to(1, from, Rpc::Fetch { epoch: 2, fetch_offset: offset, last_fetched_epoch: last }), 0);
        q.voter(1).high_watermark
    };
    assert_eq!(fetch(&mut q, 2, 10, 1), None);
    assert_eq!(fetch(&mut q, 3, 10, 1), None, "10 is the epoch's start: nothing of epoch 2 is on a majority");
    assert_eq!(fetch(&mut q, 3, 15, 2), Some(15));
    for b in 0..5 {
        q.append(1, MetadataRecord::RegisterBroker { broker: b, fenced: false }, 0);
    }
    assert_eq!(q.voter(1).high_watermark, Some(15));
    assert_eq!(fetch(&mut q, 2, 20, 2), Some(20));
    assert_eq!(fetch(&mut q, 3, 20, 2), Some(20));
}

/// `LeaderStateTest.testNonMonotonicHighWatermarkUpdate`: a follower that
/// fetches from further back (it lost its disk) does not lower the HW.
#[test]
fn leader_state_test_non_monotonic_high_watermark_update() {
    let mut q = quorum(Protocol::V4_1, 3);
    let end = q.voter(1).log.end_offset();
    q.deliver(to(1, 2, Rpc::Fetch { epoch: 1, fetch_offset: end, last_fetched_epoch: 1 }), 0);
    assert_eq!(q.voter(1).high_watermark, Some(end));
    q.deliver(to(1, 2, Rpc::Fetch { epoch: 1, fetch_offset: 0, last_fetched_epoch: 0 }), 0);
    q.deliver(to(1, 3, Rpc::Fetch { epoch: 1, fetch_offset: 0, last_fetched_epoch: 0 }), 0);
    assert_eq!(q.voter(1).high_watermark, Some(end));
}

/// `QuorumStateTest.testHighWatermarkRetained`: the HW survives Unattached,
/// a vote, Prospective and Candidate; a new leader has none.
#[test]
fn quorum_state_test_high_watermark_retained() {
    let mut q = quorum(Protocol::V4_1, 3);
    let hw = q.voter(2).high_watermark;
    assert!(hw.is_some());
    q.deliver(to(2, 3, vote(2, 1, 99)), 0);
    assert_eq!((state(&q, 2), q.voter(2).high_watermark), ((Role::Unattached, 2, None, Some(3)), hw));
    let timer = q.voter(2).timer_ms.unwrap();
    poll(&mut q, timer);
    assert_eq!((q.voter(2).role, q.voter(2).high_watermark), (Role::Prospective, hw));
    q.deliver(to(2, 1, Rpc::VoteResponse { epoch: 2, leader: None, granted: true, pre_vote: true, error: None }), timer);
    assert_eq!((q.voter(2).role, q.voter(2).high_watermark), (Role::Candidate, hw));
    q.deliver(to(2, 1, Rpc::VoteResponse { epoch: 3, leader: None, granted: true, pre_vote: false, error: None }), timer);
    assert_eq!((q.voter(2).role, q.voter(2).high_watermark), (Role::Leader, None));
}

/// `testFetchResponseIgnoredAfterBecomingFollowerOfDifferentLeader`.
#[test]
fn kafka_raft_client_test_fetch_response_ignored_after_becoming_follower_of_different_leader() {
    let mut q = quorum(Protocol::V4_1, 3);
    restarted(&mut q, 1, 5, Some(2), None, log(&[]), 0);
    poll(&mut q, 0);
    wire(&mut q);
    q.deliver(to(1, 3, Rpc::BeginQuorumEpoch { epoch: 6 }), 0);
    assert_eq!(state(&q, 1), (Role::Follower, 6, Some(3), None));
    let late = log(&[3, 3]).entries().to_vec();
    q.deliver(to(1, 2, Rpc::FetchResponse { epoch: 5, leader: Some(2), error: None, records: late, diverging: None, high_watermark: Some(0) }), 0);
    assert_eq!((q.voter(1).log.end_offset(), state(&q, 1)), (0, (Role::Follower, 6, Some(3), None)));
}

// ----- check-quorum (3.7 on) ------------------------------------------------------------------

/// `testLeaderShouldResignLeadershipIfNotGetFetchRequestFromMajorityVoters`:
/// each fetch from a voter (one, with the leader, is a majority of three)
/// restarts the 1.5 x T_f check; without one the leader resigns.
#[test]
fn kafka_raft_client_test_leader_should_resign_leadership_if_not_get_fetch_request_from_majority_voters() {
    let mut q = quorum(Protocol::V4_1, 3);
    let end = q.voter(1).log.end_offset();
    let check = T_F * 3 / 2;
    assert_eq!(q.voter(1).check_quorum_ms, Some(check));
    q.deliver(to(1, 2, Rpc::Fetch { epoch: 1, fetch_offset: end, last_fetched_epoch: 1 }), check / 2);
    assert_eq!(q.voter(1).check_quorum_ms, Some(check / 2 + check));
    poll(&mut q, check);
    assert_eq!(q.voter(1).role, Role::Leader);
    poll(&mut q, check / 2 + check);
    assert_eq!(q.voter(1).role, Role::Resigned);
    // 3.5 has no check-quorum (KAFKA-15489 is 3.7).
    let q = quorum(Protocol::V3_5, 3);
    assert_eq!(q.voter(1).check_quorum_ms, None);
}

/// `testLeaderShouldNotResignLeadershipIfOnlyOneVoters`.
#[test]
fn kafka_raft_client_test_leader_should_not_resign_leadership_if_only_one_voters() {
    let mut q = quorum(Protocol::V4_1, 1);
    poll(&mut q, 10 * T_F);
    assert_eq!(q.voter(1).role, Role::Leader);
    assert_eq!(q.next_due_ms(), None);
}

// ----- RaftEventSimulationTest's invariants ------------------------------------------------------

fn run_scenario(text: &str, commit_rule: bool) -> Simulation {
    let s = Scenario::from_json(text).unwrap();
    let mut sim = Simulation::new(s.config.clone());
    if let Some(q) = sim.quorum.as_deref_mut() {
        q.rules.commit_only_past_epoch_start = commit_rule;
    }
    for step in &s.steps {
        sim.apply(step);
    }
    sim
}

/// `RaftEventSimulationTest`: the invariants hold under seeded faults —
/// crashes, restarts, isolations and resignations of the controllers, for
/// 1, 3 and 5 voters under every KRaft preset — and a leader is elected
/// again each time a majority is back (`canElectNewLeaderAfterOldLeaderFailure`,
/// `canRecoverAfterAllNodesKilled`).
#[test]
fn raft_event_simulation_test_invariants_hold_under_faults() {
    use highwater::base::rng::Rng;
    let mut elected = 0;
    for protocol in ["3.5", "3.7", "4.1"] {
        for n in [1u32, 3, 5] {
            for seed in 1..=40u64 {
                let mut rng = Rng::new(seed * 7919 + n as u64);
                let mut steps = vec![];
                for _ in 0..30 {
                    let c = 1 + rng.below(n as u64);
                    steps.push(match rng.below(6) {
                        0 => format!(r#"{{"crash": {{"controller": {c}}}}}"#),
                        1 => format!(r#"{{"restart": {{"controller": {c}}}}}"#),
                        2 => format!(r#"{{"isolate": {{"controller": {c}}}}}"#),
                        3 => format!(r#"{{"heal": {{"controller": {c}}}}}"#),
                        4 => r#"{"resign": null}"#.to_string(),
                        _ => format!(r#"{{"advance_ms": {}}}"#, 1 + rng.below(4000)),
                    });
                }
                // Everything back, then time for an election.
                for c in 1..=n {
                    steps.push(format!(r#"{{"restart": {{"controller": {c}}}}}"#));
                }
                steps.push(r#"{"heal": "all"}"#.into());
                steps.push(r#"{"advance_ms": 20000}"#.into());
                let text = format!(r#"{{"version": 1, "config": {{"protocol": "{protocol}", "controllers": {n}, "seed": {seed}}}, "steps": [{}]}}"#, steps.join(", "));
                let sim = run_scenario(&text, true);
                // A timer the quorum leaves due without acting on it would spin the clock's loop until a budget stops the run.
                assert_eq!(sim.stopped(), None, "{protocol}, {n} voters, seed {seed}\n{text}");
                assert!(sim.violations.is_empty(), "{protocol}, {n} voters, seed {seed}: {:?}\n{text}", sim.violations);
                let q = sim.quorum.as_deref().unwrap();
                assert!(q.active_controller().is_some(), "{protocol}, {n} voters, seed {seed}: no active controller at the end\n{text}");
                elected += 1;
            }
        }
    }
    assert_eq!(elected, 3 * 3 * 40);
}

/// The Raft commit rule is what keeps the leaders' HW from going down: with
/// it switched off, a new leader adopts a majority end offset that is still
/// below the last leader's HW (`MonotonicHighWatermark`). Controller 3 is
/// cut off; 1 resigns; 2 wins epoch 2 and commits its LeaderChange (HW 6)
/// with 1; 2 crashes and 3 comes back, its log ending at 5. 3's Vote (its
/// own epoch ran up while it was cut off) is refused, its log being behind;
/// 1 wins epoch 4 with 3's vote, and 3's first fetch, at offset 5, is the
/// majority's end offset: HW 5 without the rule, none until 7 with it.
#[test]
fn raft_event_simulation_test_monotonic_high_watermark_needs_the_commit_rule() {
    let text = r#"{"version": 1, "config": {"protocol": "3.7", "controllers": 3},
        "steps": [{"advance_ms": 600}, {"isolate": {"controller": 3}}, {"resign": null}, {"advance_ms": 3000},
                  {"crash": {"controller": 2}}, {"heal": {"controller": 3}}, {"advance_ms": 6000}]}"#;
    let kinds = |sim: &Simulation| sim.violations.iter().map(|v| v.kind).collect::<Vec<_>>();
    let kept = run_scenario(text, true);
    assert_eq!(kinds(&kept), vec![]);
    let q = kept.quorum.as_deref().unwrap();
    assert_eq!((q.leader().map(|v| (v.id, v.epoch, v.high_watermark)), q.active_controller()), (Some((1, 4, Some(7))), Some(1)), "the run goes where the comment says");
    let off = run_scenario(text, false);
    assert_eq!(kinds(&off), vec![ViolationKind::MonotonicHighWatermark]);
    assert!(off.violations[0].detail.contains("the metadata HW went down from 6 to 5 on controller 1, leader of epoch 4"), "{}", off.violations[0].detail);
}

/// KIP-996's reason for pre-vote (`RaftEventSimulationTest
/// .leadershipWillNotChangeDuringNetworkPartitionIfMajorityStillReachable`,
/// 4.0): a voter cut off for 10 s runs for election again and again, its
/// epoch climbing; healed, under 3.7 its Vote of a newer epoch deposes the
/// healthy leader (the epoch jumps, a new election); under 4.1 it only asks
/// for pre-votes in its own epoch, which the followers that hear from the
/// leader refuse, and the leader of epoch 1 stays.
#[test]
fn raft_event_simulation_test_a_voter_cut_off_deposes_the_leader_without_pre_vote_only() {
    let text = |protocol: &str| {
        format!(
            r#"{{"version": 1, "config": {{"protocol": "{protocol}", "controllers": 3}},
                "steps": [{{"isolate": {{"controller": 3}}}}, {{"advance_ms": 10000}}, {{"heal": {{"controller": 3}}}}, {{"advance_ms": 5000}}]}}"#
        )
    };
    let with = run_scenario(&text("4.1"), true);
    let q = with.quorum.as_deref().unwrap();
    assert_eq!((q.epoch(), q.leader().map(|v| v.id)), (1, Some(1)), "4.1: the leader of epoch 1 stays");
    assert!(q.voters.iter().all(|v| v.epoch == 1));
    let without = run_scenario(&text("3.7"), true);
    let q = without.quorum.as_deref().unwrap();
    assert!(q.epoch() > 2, "3.7: the cut-off voter's epoch climbed and deposed the leader: epoch {}", q.epoch());
    assert!(q.voters.iter().all(|v| v.epoch == q.epoch()) && q.active_controller().is_some());
    for sim in [&with, &without] {
        assert!(sim.violations.is_empty(), "{:?}", sim.violations);
    }
}

/// A quorum leader's crash (`canElectNewLeaderAfterOldLeaderFailure`): the
/// followers notice after the fetch timeout; under 4.1 they first ask for
/// pre-votes in epoch 1, and a candidate runs for epoch 2 only with a
/// majority's pre-votes; under 3.7 they run for epoch 2 at once. Either way a
/// new leader of epoch 2 or later is active within seconds, and what was
/// committed is still there.
#[test]
fn raft_event_simulation_test_can_elect_new_leader_after_old_leader_failure() {
    use highwater::Event;
    for (protocol, asks_first) in [("4.1", true), ("3.7", false)] {
        let text = format!(
            r#"{{"version": 1, "config": {{"protocol": "{protocol}", "controllers": 3}},
                "steps": [{{"advance_ms": 1000}}, {{"crash": {{"controller": 1}}}}, {{"advance_ms": 8000}}]}}"#
        );
        let s = Scenario::from_json(&text).unwrap();
        let mut sim = Simulation::new(s.config.clone());
        let mut events = vec![];
        for step in &s.steps {
            events.extend(sim.apply(step));
        }
        let first_move = events.iter().find_map(|e| match e.event {
            Event::BecameProspective { epoch, .. } => Some(("prospective", epoch, e.time_ms)),
            Event::BecameCandidate { epoch, .. } => Some(("candidate", epoch, e.time_ms)),
            _ => None,
        });
        let (kind, epoch, at) = first_move.expect("an election");
        assert_eq!((kind, epoch), if asks_first { ("prospective", 1) } else { ("candidate", 2) }, "{protocol}");
        // The fetch timer runs from the last answer, up to a long-poll (500 ms) before the crash.
        assert!((1000 + T_F - 500..1000 + T_F).contains(&at), "{protocol}: after the fetch timeout, at {at} ms");
        let q = sim.quorum.as_deref().unwrap();
        let leader = q.leader().expect("a new leader");
        assert!(leader.id != 1 && leader.epoch >= 2 && q.active_controller() == Some(leader.id), "{protocol}");
        // The bootstrap records (LeaderChange, three RegisterBroker, a PartitionRecord) are still below the HW.
        assert!(leader.high_watermark.is_some_and(|hw| hw > 5) && leader.log.entries()[..5] == q.voter(1).log.entries()[..5], "{protocol}");
        assert!(sim.violations.is_empty(), "{protocol}: {:?}", sim.violations);
    }
}
