//! The quorum's protocol (KIP-595, `KafkaRaftClient`), as a pure state
//! machine over `Quorum`: a message arrives (`deliver`), a timer is due
//! (`poll`), or a fault strikes (`crash`, `restart`, `resign`). Each
//! changes the voters, puts messages on the wire and says what it did as
//! events. No clock: the caller says what time it is.

use crate::model::config::ControllerId;
use crate::model::event::{DropReason, Event, QuorumCause, VoteRefusal};
use crate::model::quorum::message::{QuorumError, QuorumMessage, Rpc};
use crate::model::quorum::metadata_log::MetadataRecord;
use crate::model::quorum::voter::{ParkedFetch, Role};
use crate::model::quorum::{Quorum, ELECTION_BACKOFF_MAX_MS, MAX_FETCH_WAIT_MS, REQUEST_TIMEOUT_MS, RETRY_BACKOFF_MS};

impl Quorum {
    // ----- time ---------------------------------------------------------------

    /// The next moment something is due: a message arrives or a timer of a
    /// running voter fires.
    pub fn next_due_ms(&self) -> Option<u64> {
        let mut due = self.in_flight.first_key().map(|(t, _)| t);
        let mut at = |t: Option<u64>| {
            if let Some(t) = t {
                due = Some(due.map_or(t, |d| d.min(t)));
            }
        };
        for v in self.voters.iter().filter(|v| v.alive) {
            at(v.timer_ms);
            at(v.check_quorum_ms);
            at(v.begin_epoch_ms);
            at(v.fetch_due_ms);
            at(v.fetch_expires_ms);
            at(v.parked.iter().map(|p| p.until_ms).min());
            at(v.retry_ms);
        }
        due
    }

    /// One thing due at `now_ms`: the first message to arrive, else the
    /// first voter (in id order) with a timer due. False if nothing is
    /// due: the caller runs this until then, checking after each.
    /// The voters' timers due at `now_ms`, one voter's at a time, with no
    /// message delivered (tests hand messages in themselves). False if none.
    pub fn run_next_due_timers_only(&mut self, now_ms: u64) -> bool {
        self.ids().any(|c| self.voter(c).alive && self.poll(c, now_ms))
    }

    pub fn run_next_due(&mut self, now_ms: u64) -> bool {
        if let Some((_, m)) = self.in_flight.pop_first_if(|(t, _)| t <= now_ms) {
            self.deliver(m, now_ms);
            return true;
        }
        self.ids().any(|c| self.voter(c).alive && self.poll(c, now_ms))
    }

    /// Voter `c`'s timers due at `now_ms` (`KafkaRaftClient.poll*`); true
    /// if one was.
    fn poll(&mut self, c: ControllerId, now_ms: u64) -> bool {
        let due = |t: Option<u64>| t.is_some_and(|t| t <= now_ms);
        let v = self.voter(c);
        match v.role {
            Role::Leader => {
                if due(v.check_quorum_ms) {
                    // `pollLeader`: no majority fetched within 1.5 x the fetch timeout.
                    self.resign(c, now_ms, QuorumCause::CheckQuorum);
                    return true;
                }
                if due(v.begin_epoch_ms) {
                    self.send_begin_quorum_epoch(c, now_ms);
                    return true;
                }
                if v.parked.iter().any(|p| p.until_ms <= now_ms) {
                    let (expired, kept): (Vec<ParkedFetch>, Vec<ParkedFetch>) = v.parked.iter().partition(|p| p.until_ms <= now_ms);
                    self.voter_mut(c).parked = kept;
                    for p in expired {
                        self.answer_fetch(c, p.from, now_ms);
                    }
                    return true;
                }
                false
            }
            Role::Follower => {
                if due(v.timer_ms) {
                    // `pollFollowerAsVoter`: nothing from the leader for the fetch timeout.
                    self.start_election(c, now_ms, QuorumCause::FetchTimeout);
                    return true;
                }
                if due(v.fetch_expires_ms) {
                    let v = self.voter_mut(c);
                    v.fetch_expires_ms = None;
                    v.fetch_due_ms = Some(now_ms);
                    return true;
                }
                if due(v.fetch_due_ms) {
                    self.send_fetch(c, now_ms);
                    return true;
                }
                false
            }
            Role::Unattached => {
                if due(v.timer_ms) {
                    self.start_election(c, now_ms, QuorumCause::ElectionTimeout);
                    return true;
                }
                false
            }
            Role::Prospective => {
                if due(v.timer_ms) {
                    self.prospective_lost(c, now_ms, false);
                    return true;
                }
                if due(v.retry_ms) {
                    self.ask_again(c, now_ms);
                    return true;
                }
                false
            }
            Role::Candidate => {
                if !due(v.timer_ms) {
                    if due(v.retry_ms) {
                        // A candidate that backs off asks no one.
                        if v.backing_off {
                            self.voter_mut(c).retry_ms = None;
                        } else {
                            self.ask_again(c, now_ms);
                        }
                        return true;
                    }
                    return false;
                }
                if self.rules.pre_vote {
                    // 4.0 (`pollCandidate`): back to asking for pre-votes, at once
                    // after a timeout, after the backoff after a rejection.
                    let reason = if v.backing_off { QuorumCause::BackoffOver } else { QuorumCause::ElectionTimeout };
                    self.become_prospective(c, now_ms, reason);
                } else if v.backing_off {
                    self.become_candidate(c, now_ms, QuorumCause::BackoffOver);
                } else {
                    // 3.x: a timed-out election backs off before the next.
                    let backoff = self.election_backoff(v.retries);
                    let v = self.voter_mut(c);
                    v.backing_off = true;
                    v.retry_ms = None;
                    v.timer_ms = Some(now_ms + backoff);
                }
                true
            }
            Role::Resigned => {
                if !due(v.timer_ms) {
                    if due(v.retry_ms) {
                        // EndQuorumEpoch again to the voters that have not
                        // acknowledged it (`ResignedState.unackedVoters`).
                        let (epoch, successors, unacknowledged) = (v.epoch, v.successors.clone(), v.unacknowledged.clone());
                        for to in unacknowledged {
                            self.send(c, to, Rpc::EndQuorumEpoch { epoch, successors: successors.clone() }, now_ms);
                        }
                        let v = self.voter_mut(c);
                        v.retry_ms = (!v.unacknowledged.is_empty()).then_some(now_ms + REQUEST_TIMEOUT_MS);
                        return true;
                    }
                    return false;
                }
                if self.rules.pre_vote {
                    // 4.0 (`pollResigned`): unattached in the next epoch with no
                    // time left, so it asks for pre-votes at the next poll.
                    let epoch = v.epoch + 1;
                    self.become_unattached(c, epoch, now_ms, QuorumCause::ElectionTimeoutAfterResigning, Some(now_ms));
                } else {
                    self.become_candidate(c, now_ms, QuorumCause::ElectionTimeoutAfterResigning);
                }
                true
            }
        }
    }

    /// [T_e, 2 T_e) (`QuorumState.randomElectionTimeoutMs`).
    fn election_timeout(&mut self) -> u64 {
        let t = self.timings.election_timeout_ms;
        t + self.rng.below(t)
    }

    /// After a lost election: 100 ms x rand[0, 2^retries), at most
    /// `controller.quorum.election.backoff.max.ms` (`binaryExponentialElectionBackoffMs`).
    fn election_backoff(&mut self, retries: u32) -> u64 {
        let bound = 2u64 << retries.saturating_sub(1).min(20);
        (100 * self.rng.below(bound)).min(ELECTION_BACKOFF_MAX_MS)
    }

    // ----- the wire ------------------------------------------------------------

    fn send(&mut self, from: ControllerId, to: ControllerId, rpc: Rpc, now_ms: u64) {
        let latency_ms = self.timings.latency_ms;
        let event = match &rpc {
            Rpc::Vote { epoch, last_epoch, last_offset, pre_vote } => Event::VoteRequest {
                candidate: from,
                to,
                epoch: *epoch,
                last_epoch: *last_epoch,
                last_offset: *last_offset,
                pre_vote: *pre_vote,
                latency_ms,
            },
            // A vote's answer is told where the voter decides (`VoteGranted`, `VoteRejected`).
            Rpc::VoteResponse { .. } => Event::QuorumSent { from, to, rpc: rpc.clone(), latency_ms },
            other => Event::QuorumSent { from, to, rpc: other.clone(), latency_ms },
        };
        if !matches!(rpc, Rpc::VoteResponse { .. }) {
            self.outbox.push(event);
        }
        self.put_on_wire(QuorumMessage { from, to, rpc }, now_ms);
    }

    /// Why a message cannot arrive now, if it cannot.
    fn drop_reason(&self, m: &QuorumMessage) -> Option<DropReason> {
        if self.is_isolated(m.from) || self.is_isolated(m.to) {
            Some(DropReason::ControllerIsolated)
        } else if !self.voter(m.to).alive {
            Some(DropReason::ControllerDown)
        } else {
            None
        }
    }

    /// A message arrives at its receiver.
    pub fn deliver(&mut self, m: QuorumMessage, now_ms: u64) {
        if let Some(reason) = self.drop_reason(&m) {
            self.outbox.push(Event::QuorumDropped { from: m.from, to: m.to, kind: m.rpc.name(), reason });
            return;
        }
        let (from, to) = (m.from, m.to);
        match m.rpc {
            Rpc::Vote { epoch, last_epoch, last_offset, pre_vote } => self.handle_vote(to, from, epoch, (last_epoch, last_offset), pre_vote, now_ms),
            Rpc::VoteResponse { epoch, leader, granted, pre_vote, .. } => self.handle_vote_response(to, from, epoch, leader, granted, pre_vote, now_ms),
            Rpc::BeginQuorumEpoch { epoch } => self.handle_begin_quorum_epoch(to, from, epoch, now_ms),
            Rpc::BeginQuorumEpochResponse { epoch, leader, error } => {
                if !self.handle_common_response(to, epoch, leader, now_ms) && error.is_none() {
                    let v = self.voter_mut(to);
                    if v.role == Role::Leader && v.epoch == epoch && !v.acknowledged.contains(&from) {
                        v.acknowledged.push(from);
                    }
                }
            }
            Rpc::EndQuorumEpoch { epoch, successors } => self.handle_end_quorum_epoch(to, from, epoch, &successors, now_ms),
            Rpc::EndQuorumEpochResponse { epoch, leader, error } => {
                if !self.handle_common_response(to, epoch, leader, now_ms) && error.is_none() {
                    // `ResignedState.acknowledgeResignation`.
                    let v = self.voter_mut(to);
                    if v.role == Role::Resigned && v.epoch == epoch {
                        v.unacknowledged.retain(|&o| o != from);
                        if v.unacknowledged.is_empty() {
                            v.retry_ms = None;
                        }
                    }
                }
            }
            Rpc::Fetch { epoch, fetch_offset, last_fetched_epoch } => self.handle_fetch(to, from, epoch, fetch_offset, last_fetched_epoch, now_ms),
            Rpc::FetchResponse { epoch, leader, error, records, diverging, high_watermark } => {
                self.handle_fetch_response(to, from, epoch, leader, error, &records, diverging, high_watermark, now_ms)
            }
        }
    }

    /// The epoch rules every response follows (`maybeHandleCommonResponse`):
    /// a higher epoch moves the receiver to it, following the leader named
    /// or unattached. True if the response is handled by that (or stale).
    fn handle_common_response(&mut self, c: ControllerId, epoch: u32, leader: Option<ControllerId>, now_ms: u64) -> bool {
        let v = self.voter(c);
        if epoch > v.epoch {
            self.transition_to_epoch(c, epoch, leader, now_ms, QuorumCause::NewerEpochResponse);
            return true;
        }
        epoch < v.epoch
    }

    /// Moves to a newer epoch: follower of its leader if one is named, else
    /// unattached (`maybeTransition`).
    fn transition_to_epoch(&mut self, c: ControllerId, epoch: u32, leader: Option<ControllerId>, now_ms: u64, reason: QuorumCause) {
        match leader.filter(|&l| l != c) {
            Some(l) => self.become_follower(c, epoch, l, now_ms),
            None => self.become_unattached(c, epoch, now_ms, reason, None),
        }
    }

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
    fn start_election(&mut self, c: ControllerId, now_ms: u64, reason: QuorumCause) {
        if self.voters.len() > 1 && self.rules.pre_vote {
            self.become_prospective(c, now_ms, reason);
        } else {
            self.become_candidate(c, now_ms, reason);
        }
    }

    /// KIP-996: asks every other voter whether it would vote, without
    /// raising the epoch or casting a vote (`transitionToProspective`).
    fn become_prospective(&mut self, c: ControllerId, now_ms: u64, reason: QuorumCause) {
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
    fn become_candidate(&mut self, c: ControllerId, now_ms: u64, reason: QuorumCause) {
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
    fn ask_again(&mut self, c: ControllerId, now_ms: u64) {
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
    fn become_leader(&mut self, c: ControllerId, now_ms: u64) {
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
    fn leave_role(&mut self, c: ControllerId, now_ms: u64) {
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
    fn handle_vote(&mut self, c: ControllerId, candidate: ControllerId, epoch: u32, last: (u32, u64), pre_vote: bool, now_ms: u64) {
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
    fn answer_vote(&mut self, c: ControllerId, candidate: ControllerId, asked_epoch: u32, pre_vote: bool, outcome: Result<(), VoteRefusal>, error: Option<QuorumError>, now_ms: u64) {
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
    fn handle_vote_response(&mut self, c: ControllerId, voter: ControllerId, epoch: u32, leader: Option<ControllerId>, granted: bool, pre_vote: bool, now_ms: u64) {
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
    fn prospective_lost(&mut self, c: ControllerId, now_ms: u64, rejected: bool) {
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
    fn handle_begin_quorum_epoch(&mut self, c: ControllerId, leader: ControllerId, epoch: u32, now_ms: u64) {
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
    fn send_begin_quorum_epoch(&mut self, c: ControllerId, now_ms: u64) {
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
    fn handle_end_quorum_epoch(&mut self, c: ControllerId, leader: ControllerId, epoch: u32, successors: &[ControllerId], now_ms: u64) {
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

    // ----- replication -----------------------------------------------------------

    /// The leader appends a record in its epoch; held fetches are answered
    /// with it (`fetchPurgatory.maybeComplete`).
    pub fn append(&mut self, c: ControllerId, record: MetadataRecord, now_ms: u64) {
        let v = self.voter_mut(c);
        debug_assert_eq!(v.role, Role::Leader);
        let epoch = v.epoch;
        let entry = v.log.append(epoch, record);
        let end = v.log.end_offset();
        v.end_offsets[(c - 1) as usize] = Some(end);
        self.outbox.push(Event::MetadataAppended { controller: c, entry });
        self.maybe_advance_high_watermark(c);
        let parked = std::mem::take(&mut self.voter_mut(c).parked);
        for p in parked {
            self.answer_fetch(c, p.from, now_ms);
        }
    }

    /// A follower asks its leader for what follows its log end.
    fn send_fetch(&mut self, c: ControllerId, now_ms: u64) {
        let v = self.voter_mut(c);
        let Some(leader) = v.leader else { return };
        v.fetch_due_ms = None;
        v.fetch_expires_ms = Some(now_ms + REQUEST_TIMEOUT_MS);
        let rpc = Rpc::Fetch { epoch: v.epoch, fetch_offset: v.log.end_offset(), last_fetched_epoch: v.log.last_fetched_epoch() };
        self.send(c, leader, rpc, now_ms);
    }

    /// `handleFetchRequest`, `tryCompleteFetchRequest`: a stale or unknown
    /// epoch is refused; a follower whose last epoch ends earlier on the
    /// leader is told where (DivergingEpoch, at once); otherwise its fetch
    /// offset acknowledges what it holds, and it gets the records from there
    /// (uncommitted included), or waits for one.
    fn handle_fetch(&mut self, c: ControllerId, follower: ControllerId, epoch: u32, fetch_offset: u64, last_fetched_epoch: u32, now_ms: u64) {
        let v = self.voter(c);
        let error = if epoch < v.epoch {
            Some(QuorumError::FencedLeaderEpoch)
        } else if epoch > v.epoch {
            // The leader does not adopt the fetcher's epoch.
            Some(QuorumError::UnknownLeaderEpoch)
        } else if v.role != Role::Leader {
            Some(QuorumError::NotLeaderOrFollower)
        } else {
            None
        };
        if let Some(error) = error {
            // An error answer carries no HW (-1).
            let rpc = Rpc::FetchResponse { epoch: v.epoch, leader: v.leader, error: Some(error), records: vec![], diverging: None, high_watermark: None };
            self.send(c, follower, rpc, now_ms);
            return;
        }
        let (found_epoch, end) = v.log.end_offset_for_epoch(last_fetched_epoch);
        if found_epoch != last_fetched_epoch || end < fetch_offset {
            let rpc = Rpc::FetchResponse {
                epoch: v.epoch,
                leader: v.leader,
                error: None,
                records: vec![],
                diverging: Some((found_epoch, end)),
                high_watermark: v.high_watermark,
            };
            self.send(c, follower, rpc, now_ms);
            return;
        }
        let (majority, check_quorum_ms) = (self.majority(), now_ms + self.timings.fetch_timeout_ms * 3 / 2);
        let check_quorum = self.rules.check_quorum;
        let v = self.voter_mut(c);
        v.end_offsets[(follower - 1) as usize] = Some(fetch_offset);
        if !v.acknowledged.contains(&follower) {
            v.acknowledged.push(follower);
        }
        // `updateCheckQuorumForFollowingVoter`: once a majority (the leader
        // counts itself) fetched, the check starts again.
        if check_quorum {
            if !v.fetched_voters.contains(&follower) {
                v.fetched_voters.push(follower);
            }
            if v.fetched_voters.len() + 1 >= majority {
                v.fetched_voters.clear();
                v.check_quorum_ms = Some(check_quorum_ms);
            }
        }
        self.maybe_advance_high_watermark(c);
        let v = self.voter_mut(c);
        if fetch_offset < v.log.end_offset() {
            self.answer_fetch(c, follower, now_ms);
        } else {
            v.parked.retain(|p| p.from != follower);
            v.parked.push(ParkedFetch { from: follower, until_ms: now_ms + MAX_FETCH_WAIT_MS });
        }
    }

    /// The leader answers a fetch from `follower`'s acknowledged offset.
    fn answer_fetch(&mut self, c: ControllerId, follower: ControllerId, now_ms: u64) {
        let v = self.voter(c);
        let from = v.end_offsets[(follower - 1) as usize].unwrap_or(0);
        let rpc = Rpc::FetchResponse {
            epoch: v.epoch,
            leader: Some(c),
            error: None,
            records: v.log.from_offset(from).to_vec(),
            diverging: None,
            high_watermark: v.high_watermark,
        };
        self.send(c, follower, rpc, now_ms);
    }

    /// The leader's HW (`LeaderState.maybeUpdateHighWatermark`): the end
    /// offset a majority of voters has reached (the leader's own included),
    /// adopted only past the start of its epoch (the Raft commit rule) and
    /// only upward.
    fn maybe_advance_high_watermark(&mut self, c: ControllerId) {
        let commit_rule = self.rules.commit_only_past_epoch_start;
        let majority = self.majority();
        let v = self.voter_mut(c);
        let mut known: Vec<u64> = v.end_offsets.iter().flatten().copied().collect();
        if known.len() < majority {
            return;
        }
        known.sort_unstable_by(|a, b| b.cmp(a));
        let candidate = known[majority - 1];
        if commit_rule && candidate <= v.epoch_start_offset {
            return;
        }
        if v.high_watermark.is_some_and(|hw| candidate <= hw) {
            return;
        }
        let from = v.high_watermark.replace(candidate);
        let epoch = v.epoch;
        self.outbox.push(Event::MetadataCommitted { controller: c, epoch, from, to: candidate });
    }

    /// `handleFetchResponse`: records are appended, a DivergingEpoch cuts
    /// the log back to where it agrees, and the HW is the leader's, capped
    /// at the own log end, never lower. Any answer without error resets the
    /// fetch timer; the next Fetch goes at once.
    #[allow(clippy::too_many_arguments)]
    fn handle_fetch_response(
        &mut self,
        c: ControllerId,
        from: ControllerId,
        epoch: u32,
        leader: Option<ControllerId>,
        error: Option<QuorumError>,
        records: &[crate::model::quorum::metadata_log::MetadataEntry],
        diverging: Option<(u32, u64)>,
        high_watermark: Option<u64>,
        now_ms: u64,
    ) {
        // Only the answer to the Fetch in flight is read; a role change made
        // any earlier one stale (`resetConnections`).
        let v = self.voter_mut(c);
        if v.role != Role::Follower || v.leader != Some(from) || v.fetch_expires_ms.is_none() {
            return;
        }
        v.fetch_expires_ms = None;
        // UNKNOWN_LEADER_EPOCH: the leader is behind this follower; no backoff.
        let backoff = matches!(error, Some(QuorumError::FencedLeaderEpoch | QuorumError::NotLeaderOrFollower));
        v.fetch_due_ms = Some(now_ms + if backoff { RETRY_BACKOFF_MS } else { 0 });
        if error == Some(QuorumError::UnknownLeaderEpoch) {
            return;
        }
        if self.handle_common_response(c, epoch, leader, now_ms) {
            return;
        }
        if error.is_some() {
            return;
        }
        let fetch_timeout_ms = self.timings.fetch_timeout_ms;
        let v = self.voter_mut(c);
        v.timer_ms = Some(now_ms + fetch_timeout_ms);
        v.has_fetched = true;
        if let Some((de, end)) = diverging {
            // `ReplicatedLog.truncateToEndOffset`: to the end of that epoch
            // here, if it is no later than the leader's.
            let (local_epoch, local_end) = v.log.end_offset_for_epoch(de);
            let to = if local_epoch == de { local_end.min(end) } else { local_end };
            let from_end = v.log.end_offset();
            if to < from_end {
                v.log.truncate_to(to);
                self.outbox.push(Event::MetadataTruncated { controller: c, from: from_end, to, epoch: de, end_offset: end });
            }
            return;
        }
        let first = v.log.end_offset();
        let mut count = 0;
        for e in records.iter().filter(|e| e.offset >= first) {
            if e.offset == v.log.end_offset() {
                v.log.append_entry(*e);
                count += 1;
            }
        }
        let end = v.log.end_offset();
        if count > 0 {
            self.outbox.push(Event::MetadataFetched { controller: c, leader: from, first_offset: first, count, log_end_offset: end });
        }
        if let Some(hw) = high_watermark.map(|h| h.min(end)) {
            let v = self.voter_mut(c);
            if v.high_watermark.is_none_or(|old| hw > old) {
                let old = v.high_watermark.replace(hw);
                self.outbox.push(Event::MetadataHighWatermark { controller: c, from: old, to: hw });
            }
        }
    }

    // ----- faults ----------------------------------------------------------------

    /// The process stops: what it persisted (epoch, vote, leader, the
    /// flushed log) stays; its role and timers go.
    pub fn crash(&mut self, c: ControllerId) {
        let v = self.voter_mut(c);
        v.alive = false;
        v.parked.clear();
        v.clear_role_state();
        v.high_watermark = None;
        self.outbox.push(Event::ControllerCrashed { controller: c });
    }

    /// `QuorumState.initialize`: a leader comes back Resigned in its epoch
    /// (it may not lead or vote in it again); a voter that voted for itself
    /// comes back a candidate; one that knew a leader follows it; any other
    /// is unattached. The HW is unknown until the leader says it.
    pub fn restart(&mut self, c: ControllerId, now_ms: u64) {
        let timeout = self.election_timeout();
        let fetch_timeout_ms = self.timings.fetch_timeout_ms;
        let v = self.voter_mut(c);
        v.alive = true;
        let role = if v.leader == Some(c) {
            // It may not lead or vote in its epoch again; it names no successors.
            v.role = Role::Resigned;
            v.timer_ms = Some(now_ms + timeout);
            "resigned"
        } else if v.voted_for == Some(c) {
            v.role = Role::Candidate;
            v.retries = 1;
            v.granted = vec![c];
            v.timer_ms = Some(now_ms + timeout);
            "candidate"
        } else if v.leader.is_some() {
            v.role = Role::Follower;
            v.timer_ms = Some(now_ms + fetch_timeout_ms);
            v.fetch_due_ms = Some(now_ms);
            "follower"
        } else {
            v.role = Role::Unattached;
            v.timer_ms = Some(now_ms + timeout);
            "unattached"
        };
        let (epoch, (last_epoch, last_offset)) = (v.epoch, v.log.last_offset_and_epoch());
        self.outbox.push(Event::ControllerRestarted { controller: c, role });
        if self.voters.len() == 1 {
            // A single voter elects itself at once (`KafkaRaftClient.initialize`).
            if role == "candidate" {
                self.become_leader(c, now_ms);
            } else {
                self.start_election(c, now_ms, QuorumCause::OnlyVoter);
            }
        } else if role == "candidate" {
            // Standard votes in the same epoch: no pre-vote (4.0 too).
            for to in self.ids().filter(|&o| o != c) {
                self.send(c, to, Rpc::Vote { epoch, last_epoch, last_offset, pre_vote: false }, now_ms);
            }
            self.voter_mut(c).retry_ms = Some(now_ms + REQUEST_TIMEOUT_MS);
        } else if role == "resigned" {
            let others: Vec<ControllerId> = self.ids().filter(|&o| o != c).collect();
            for &to in &others {
                self.send(c, to, Rpc::EndQuorumEpoch { epoch, successors: vec![] }, now_ms);
            }
            let v = self.voter_mut(c);
            v.unacknowledged = others;
            v.retry_ms = Some(now_ms + REQUEST_TIMEOUT_MS);
        }
    }
}
