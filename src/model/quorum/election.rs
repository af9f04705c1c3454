//! The quorum's roles and elections (`QuorumState`'s transitions,
//! `handleVoteRequest`, `handleVoteResponse`, `handleBeginQuorumEpochRequest`,
//! `handleEndQuorumEpochRequest`): who leads which epoch, and how a voter
//! comes to follow, run, win or resign.

use crate::model::config::ControllerId;
use crate::model::event::{Event, QuorumCause, VoteRefusal};
use crate::model::quorum::message::{QuorumError, Rpc};
use crate::model::quorum::metadata_log::MetadataRecord;
use crate::model::quorum::voter::Role;
use crate::model::quorum::{Quorum, ELECTION_BACKOFF_MAX_MS, REQUEST_TIMEOUT_MS};

impl Quorum {
    // ----- roles ---------------------------------------------------------------

    /// Unattached in `epoch` with no leader, and no vote if the epoch is
    /// new; HW kept (`QuorumState.transitionToUnattached`). Its election
    /// timer is `timer_ms` if given; else what was left of the last one
    /// when it leaves Unattached, Prospective, Candidate or Resigned, and a
    /// new draw when it leaves Follower or Leader.
    pub(crate) fn become_unattached(&mut self, c: ControllerId, epoch: u32, now_ms: u64, reason: QuorumCause, timer_ms: Option<u64>) {
        let v = self.voter(c);
        let left = v.timer_ms.filter(|_| matches!(v.role, Role::Unattached | Role::Prospective | Role::Candidate | Role::Resigned));
        let timer = match timer_ms.or(left) {
            Some(t) => t.max(now_ms),
            None => now_ms + self.election_timeout(),
        };
        self.leave_role(c, now_ms);
        let v = self.voter_mut(c);
        if epoch > v.epoch {
            v.voted_for = None;
        }
        v.epoch = epoch;
        v.leader = None;
        v.role = Role::Unattached;
        v.timer_ms = Some(timer);
        self.outbox.push(Event::BecameUnattached { controller: c, epoch, reason });
    }

    /// Follower of `leader` in `epoch`: fetches at once; the fetch timer
    /// starts (`QuorumState.transitionToFollower`).
    pub(crate) fn become_follower(&mut self, c: ControllerId, epoch: u32, leader: ControllerId, now_ms: u64) {
        self.leave_role(c, now_ms);
        let fetch_timeout_ms = self.timings.fetch_timeout_ms;
        // 4.0 keeps a vote of the same epoch in the quorum-state file; before,
        // a follower's state had no vote (`FollowerState`, `VotedState`).
        let keeps_vote = self.rules.pre_vote;
        let v = self.voter_mut(c);
        if epoch > v.epoch || !keeps_vote {
            v.voted_for = None;
        }
        v.epoch = epoch;
        v.leader = Some(leader);
        v.role = Role::Follower;
        v.timer_ms = Some(now_ms + fetch_timeout_ms);
        v.fetch_due_ms = Some(now_ms);
        self.outbox.push(Event::ControllerBecameFollower { controller: c, epoch, leader });
    }

    /// A voter whose election timer (or fetch timer) ran out: with pre-vote
    /// it first asks in its own epoch (Prospective); without, it runs at once.
    pub(super) fn start_election(&mut self, c: ControllerId, now_ms: u64, reason: QuorumCause) {
        if self.voters.len() > 1 && self.rules.pre_vote {
            self.become_prospective(c, now_ms, reason);
        } else {
            self.become_candidate(c, now_ms, reason);
        }
    }

    /// KIP-996: asks every other voter whether it would vote, without
    /// raising the epoch or casting a vote (`transitionToProspective`).
    pub(super) fn become_prospective(&mut self, c: ControllerId, now_ms: u64, reason: QuorumCause) {
        let timeout = self.election_timeout();
        let v = self.voter_mut(c);
        // Elections in a row, for the backoff after a rejection.
        v.retries = if v.role == Role::Candidate { v.retries + 1 } else { 1 };
        self.leave_role(c, now_ms);
        let v = self.voter_mut(c);
        v.role = Role::Prospective;
        v.granted = vec![c];
        v.timer_ms = Some(now_ms + timeout);
        let (epoch, (last_epoch, last_offset)) = (v.epoch, v.log.last_offset_and_epoch());
        self.outbox.push(Event::BecameProspective { controller: c, epoch, reason });
        if self.majority() == 1 {
            self.become_candidate(c, now_ms, QuorumCause::MajorityWouldVote);
            return;
        }
        for to in self.ids().filter(|&o| o != c) {
            self.send(c, to, Rpc::Vote { epoch, last_epoch, last_offset, pre_vote: true }, now_ms);
        }
        self.voter_mut(c).retry_ms = Some(now_ms + REQUEST_TIMEOUT_MS);
    }

    /// Candidate in the next epoch, voting for itself (persisted first),
    /// asking every other voter (`transitionToCandidate`).
    pub(super) fn become_candidate(&mut self, c: ControllerId, now_ms: u64, reason: QuorumCause) {
        let timeout = self.election_timeout();
        let v = self.voter_mut(c);
        // A candidate takes a prospective's count of elections (4.0); in
        // 3.x one more after a lost election, else the first.
        v.retries = match v.role {
            Role::Prospective => v.retries,
            Role::Candidate => v.retries + 1,
            _ => 1,
        };
        self.leave_role(c, now_ms);
        let v = self.voter_mut(c);
        v.epoch += 1;
        v.voted_for = Some(c);
        v.leader = None;
        v.role = Role::Candidate;
        v.granted = vec![c];
        v.timer_ms = Some(now_ms + timeout);
        let (epoch, (last_epoch, last_offset)) = (v.epoch, v.log.last_offset_and_epoch());
        self.outbox.push(Event::BecameCandidate { controller: c, epoch, reason });
        if self.majority() == 1 {
            self.become_leader(c, now_ms);
            return;
        }
        for to in self.ids().filter(|&o| o != c) {
            self.send(c, to, Rpc::Vote { epoch, last_epoch, last_offset, pre_vote: false }, now_ms);
        }
        self.voter_mut(c).retry_ms = Some(now_ms + REQUEST_TIMEOUT_MS);
    }

    /// A Vote (or a pre-vote) again to the voters that have not answered, a
    /// request timeout after the last (`maybeSendVoteRequests`), while the
    /// election can still be won.
    pub(super) fn ask_again(&mut self, c: ControllerId, now_ms: u64) {
        let v = self.voter(c);
        let pre_vote = v.role == Role::Prospective;
        let (epoch, (last_epoch, last_offset)) = (v.epoch, v.log.last_offset_and_epoch());
        let unrecorded: Vec<ControllerId> = self.ids().filter(|o| !v.granted.contains(o) && !v.rejected.contains(o)).collect();
        for to in unrecorded {
            self.send(c, to, Rpc::Vote { epoch, last_epoch, last_offset, pre_vote }, now_ms);
        }
        self.voter_mut(c).retry_ms = Some(now_ms + REQUEST_TIMEOUT_MS);
    }

    /// The election is won (`onBecomeLeader`): the epoch starts at the log
    /// end with a LeaderChange record; the HW is unknown until that record
    /// commits; BeginQuorumEpoch goes to every other voter.
    pub(super) fn become_leader(&mut self, c: ControllerId, now_ms: u64) {
        self.leave_role(c, now_ms);
        let n = self.voters.len();
        let v = self.voter_mut(c);
        v.role = Role::Leader;
        v.leader = Some(c);
        // The file holds (epoch, itself, no vote).
        v.voted_for = None;
        v.retries = 0;
        // The HW is dropped on becoming leader (`QuorumStateTest.testHighWatermarkRetained`).
        v.high_watermark = None;
        v.epoch_start_offset = v.log.end_offset();
        let (epoch, start) = (v.epoch, v.epoch_start_offset);
        v.end_offsets = vec![None; n];
        v.acknowledged = vec![c];
        self.outbox.push(Event::ControllerBecameLeader { controller: c, epoch, epoch_start_offset: start });
        self.start_leader_timers(c, now_ms);
        self.append(c, MetadataRecord::LeaderChange { leader: c }, now_ms);
        for to in self.ids().filter(|&o| o != c) {
            self.send(c, to, Rpc::BeginQuorumEpoch { epoch }, now_ms);
        }
    }

    /// The leader's check-quorum and BeginQuorumEpoch timers.
    pub(crate) fn start_leader_timers(&mut self, c: ControllerId, now_ms: u64) {
        let (check, heartbeat, f) = (self.rules.check_quorum, self.rules.begin_epoch_heartbeat, self.timings.fetch_timeout_ms);
        let alone = self.voters.len() == 1;
        let v = self.voter_mut(c);
        // 1.5 x the fetch timeout (`LeaderState.CHECK_QUORUM_TIMEOUT_FACTOR`);
        // a single voter never resigns for it (KAFKA-16144).
        v.check_quorum_ms = (check && !alone).then_some(now_ms + f * 3 / 2);
        v.begin_epoch_ms = if alone {
            None
        } else if heartbeat {
            Some(now_ms + f / 2)
        } else {
            // Before 3.9, sent again to a voter that has not acknowledged it.
            Some(now_ms + REQUEST_TIMEOUT_MS)
        };
    }

    /// The quorum leader gives up its epoch (`transitionToResigned`): no
    /// more writes or votes in it; EndQuorumEpoch names the other voters as
    /// successors, the furthest fetched first
    /// (`nonLeaderVotersByDescendingFetchOffset`). Not persisted.
    pub fn resign(&mut self, c: ControllerId, now_ms: u64, reason: QuorumCause) {
        let v = self.voter(c);
        let mut successors: Vec<(u64, ControllerId)> = self.ids().filter(|&o| o != c).map(|o| (v.end_offsets.get((o - 1) as usize).copied().flatten().unwrap_or(0), o)).collect();
        // Descending fetch offset; ties by id, as Kafka's sort of its map keeps them.
        successors.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let successors: Vec<ControllerId> = successors.into_iter().map(|(_, o)| o).collect();
        let epoch = v.epoch;
        let timeout = self.election_timeout();
        self.leave_role(c, now_ms);
        let v = self.voter_mut(c);
        v.role = Role::Resigned;
        v.timer_ms = Some(now_ms + timeout);
        v.successors = successors.clone();
        v.unacknowledged = successors.clone();
        v.retry_ms = Some(now_ms + REQUEST_TIMEOUT_MS);
        self.outbox.push(Event::Resigned { controller: c, epoch, reason });
        for &to in &successors {
            self.send(c, to, Rpc::EndQuorumEpoch { epoch, successors: successors.clone() }, now_ms);
        }
    }

    /// What a role kept in memory goes with it; a leader's held fetches are
    /// answered NOT_LEADER_OR_FOLLOWER.
    pub(super) fn leave_role(&mut self, c: ControllerId, now_ms: u64) {
        let parked = std::mem::take(&mut self.voter_mut(c).parked);
        for p in parked {
            let v = self.voter(c);
            let rpc = Rpc::FetchResponse {
                epoch: v.epoch,
                leader: v.leader,
                error: Some(QuorumError::NotLeaderOrFollower),
                records: vec![],
                diverging: None,
                high_watermark: v.high_watermark,
            };
            self.send(c, p.from, rpc, now_ms);
        }
        self.voter_mut(c).clear_role_state();
    }

    // ----- votes ---------------------------------------------------------------

    /// `handleVoteRequest`: a higher epoch first moves the voter to it,
    /// whatever the answer; then it grants only if its role allows and the
    /// candidate's log is at least as up to date as its own.
    pub(super) fn handle_vote(&mut self, c: ControllerId, candidate: ControllerId, epoch: u32, last: (u32, u64), pre_vote: bool, now_ms: u64) {
        if epoch < self.voter(c).epoch {
            self.answer_vote(c, candidate, epoch, pre_vote, Err(VoteRefusal::OlderEpoch), Some(QuorumError::FencedLeaderEpoch), now_ms);
            return;
        }
        // A pre-vote of a newer epoch moves the epoch too (4.0 `handleVoteRequest`).
        if epoch > self.voter(c).epoch {
            self.become_unattached(c, epoch, now_ms, QuorumCause::NewerEpochVote, None);
        }
        let v = self.voter(c);
        // (epoch, offset) pairs compare epoch first (`OffsetAndEpoch.compareTo`).
        let up_to_date = last >= v.log.last_offset_and_epoch();
        let outcome: Result<(), VoteRefusal> = if pre_vote {
            // `canGrantVote(..., isPreVote)`: only a leader, and a follower that
            // has heard from its leader in this epoch, refuse a candidate as
            // up to date as themselves (KIP-996).
            match v.role {
                Role::Leader => Err(VoteRefusal::LeadsEpoch),
                Role::Follower if v.has_fetched && epoch <= v.epoch => Err(VoteRefusal::FetchedFromLeader),
                _ if !up_to_date => Err(VoteRefusal::LogBehind),
                _ => Ok(()),
            }
        } else {
            // `unattachedOrProspectiveCanGrantVote`: the same candidate again
            // without the log check; else only with no vote and no leader.
            match v.role {
                Role::Unattached | Role::Prospective => match v.voted_for {
                    Some(voted) if voted == candidate => Ok(()),
                    Some(_) => Err(VoteRefusal::AlreadyVoted),
                    None if v.leader.is_some() => Err(VoteRefusal::KnowsLeader),
                    None if !up_to_date => Err(VoteRefusal::LogBehind),
                    None => Ok(()),
                },
                Role::Candidate => Err(VoteRefusal::RunsItself),
                Role::Leader => Err(VoteRefusal::LeadsEpoch),
                Role::Follower => Err(VoteRefusal::FollowsLeader),
                Role::Resigned => Err(VoteRefusal::ResignedInEpoch),
            }
        };
        if outcome.is_ok() && !pre_vote && v.voted_for.is_none() {
            // Persisted before the answer; the election timer starts again
            // (`unattachedAddVotedState`, `prospectiveAddVotedState`). A vote
            // granted again to the same candidate changes nothing.
            let timeout = self.election_timeout();
            let v = self.voter_mut(c);
            v.voted_for = Some(candidate);
            v.timer_ms = Some(now_ms + timeout);
        }
        self.answer_vote(c, candidate, epoch, pre_vote, outcome, None, now_ms);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn answer_vote(&mut self, c: ControllerId, candidate: ControllerId, asked_epoch: u32, pre_vote: bool, outcome: Result<(), VoteRefusal>, error: Option<QuorumError>, now_ms: u64) {
        let v = self.voter(c);
        let (epoch, leader, granted) = (v.epoch, v.leader, outcome.is_ok());
        self.outbox.push(match outcome {
            Ok(()) => Event::VoteGranted { controller: c, candidate, epoch: asked_epoch, pre_vote },
            Err(reason) => Event::VoteRejected { controller: c, candidate, epoch: asked_epoch, pre_vote, reason },
        });
        self.send(c, candidate, Rpc::VoteResponse { epoch, leader, granted, pre_vote, error }, now_ms);
    }

    /// `handleVoteResponse`: a candidate wins with a majority of voters
    /// (itself included) and backs off once it can no longer win; a
    /// prospective runs once a majority would vote for it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn handle_vote_response(&mut self, c: ControllerId, voter: ControllerId, epoch: u32, leader: Option<ControllerId>, granted: bool, pre_vote: bool, now_ms: u64) {
        if self.handle_common_response(c, epoch, leader, now_ms) {
            return;
        }
        let (n, majority) = (self.voters.len(), self.majority());
        let v = self.voter_mut(c);
        let expected = if pre_vote { Role::Prospective } else { Role::Candidate };
        if v.role != expected || v.granted.contains(&voter) || v.rejected.contains(&voter) {
            return;
        }
        if granted {
            v.granted.push(voter);
        } else {
            v.rejected.push(voter);
        }
        let (won, lost) = (v.granted.len() >= majority, v.rejected.len() > n - majority);
        if pre_vote {
            if won {
                self.become_candidate(c, now_ms, QuorumCause::MajorityWouldVote);
            } else if lost {
                self.prospective_lost(c, now_ms, true);
            }
        } else if won {
            self.become_leader(c, now_ms);
        } else if lost && !v.backing_off {
            // It cannot win: back off now rather than wait out the timer.
            let retries = v.retries;
            let backoff = self.election_backoff(retries);
            let v = self.voter_mut(c);
            v.backing_off = true;
            v.retry_ms = None;
            v.timer_ms = Some(now_ms + backoff);
        }
    }

    /// A pre-vote that failed, rejected by a majority or timed out: back to
    /// following the leader it knew, or unattached: after a rejection with a
    /// new election timer, after a timeout with none left, so that it asks
    /// again at once (`prospectiveTransitionAfterElectionLoss`).
    pub(super) fn prospective_lost(&mut self, c: ControllerId, now_ms: u64, rejected: bool) {
        let v = self.voter(c);
        let (epoch, leader) = (v.epoch, v.leader.filter(|&l| l != c));
        match leader {
            Some(l) => self.become_follower(c, epoch, l, now_ms),
            None if rejected => {
                let timer = now_ms + self.election_timeout();
                self.become_unattached(c, epoch, now_ms, QuorumCause::MajorityWouldNotVote, Some(timer))
            }
            None => self.become_unattached(c, epoch, now_ms, QuorumCause::PreVoteTimedOut, Some(now_ms)),
        }
    }

    // ----- epochs announced and ended ----------------------------------------

    /// `handleBeginQuorumEpochRequest`: the receiver follows the new leader.
    pub(super) fn handle_begin_quorum_epoch(&mut self, c: ControllerId, leader: ControllerId, epoch: u32, now_ms: u64) {
        let v = self.voter(c);
        if epoch < v.epoch {
            let rpc = Rpc::BeginQuorumEpochResponse { epoch: v.epoch, leader: v.leader, error: Some(QuorumError::FencedLeaderEpoch) };
            self.send(c, leader, rpc, now_ms);
            return;
        }
        if !(v.role == Role::Follower && v.epoch == epoch && v.leader == Some(leader)) {
            self.become_follower(c, epoch, leader, now_ms);
        }
        self.send(c, leader, Rpc::BeginQuorumEpochResponse { epoch, leader: Some(leader), error: None }, now_ms);
    }

    /// BeginQuorumEpoch from the leader: to every other voter each T_f / 2
    /// (3.9), or again to those that have not acknowledged it (before).
    pub(super) fn send_begin_quorum_epoch(&mut self, c: ControllerId, now_ms: u64) {
        let v = self.voter(c);
        let epoch = v.epoch;
        let to: Vec<ControllerId> = if self.rules.begin_epoch_heartbeat {
            self.ids().filter(|&o| o != c).collect()
        } else {
            self.ids().filter(|o| !v.acknowledged.contains(o)).collect()
        };
        for o in to {
            self.send(c, o, Rpc::BeginQuorumEpoch { epoch }, now_ms);
        }
        let next = if self.rules.begin_epoch_heartbeat { self.timings.fetch_timeout_ms / 2 } else { REQUEST_TIMEOUT_MS };
        let all_acknowledged = self.voter(c).acknowledged.len() == self.voters.len();
        self.voter_mut(c).begin_epoch_ms = (self.rules.begin_epoch_heartbeat || !all_acknowledged).then_some(now_ms + next);
    }

    /// `handleEndQuorumEpochRequest`: a follower of the resigning leader
    /// shortens its fetch timer by its place among the successors, so that
    /// the best placed runs first (`endEpochElectionBackoff`).
    pub(super) fn handle_end_quorum_epoch(&mut self, c: ControllerId, leader: ControllerId, epoch: u32, successors: &[ControllerId], now_ms: u64) {
        let v = self.voter(c);
        if epoch < v.epoch {
            let rpc = Rpc::EndQuorumEpochResponse { epoch: v.epoch, leader: v.leader, error: Some(QuorumError::FencedLeaderEpoch) };
            self.send(c, leader, rpc, now_ms);
            return;
        }
        if epoch > v.epoch || (v.role != Role::Follower && v.leader.is_none()) {
            self.become_follower(c, epoch, leader, now_ms);
        }
        let v = self.voter(c);
        if v.role == Role::Follower && v.leader == Some(leader) {
            let n = successors.len() as u64;
            let backoff = match successors.iter().position(|&s| s == c) {
                Some(0) => 0,
                Some(pos) => ELECTION_BACKOFF_MAX_MS.min((ELECTION_BACKOFF_MAX_MS >> (n - 1)) << (pos - 1)),
                // Unlisted (a leader restarted Resigned names none): the most
                // from 3.9, none before (3.7 `endEpochElectionBackoff`).
                None if self.rules.voted_state => 0,
                None => ELECTION_BACKOFF_MAX_MS,
            };
            // It keeps refusing pre-votes until its own timer runs out: a
            // fetch from this leader did succeed in this epoch.
            self.voter_mut(c).timer_ms = Some(now_ms + backoff);
        }
        let v = self.voter(c);
        self.send(c, leader, Rpc::EndQuorumEpochResponse { epoch: v.epoch, leader: v.leader, error: None }, now_ms);
    }

}
