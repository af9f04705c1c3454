//! The quorum's protocol (KIP-595, `KafkaRaftClient`), as a pure state
//! machine over `Quorum`: a message arrives (`deliver`), a timer is due
//! (`poll`), or a fault strikes (`crash`, `restart`, `resign`). Each
//! changes the voters, puts messages on the wire and says what it did as
//! events. No clock: the caller says what time it is. Here: time, the wire
//! and faults; the roles and votes are `election`'s, the log and its HW
//! `replication`'s.

use crate::model::config::ControllerId;
use crate::model::event::{DropReason, Event, QuorumCause};
use crate::model::quorum::message::{QuorumMessage, Rpc};
use crate::model::quorum::voter::{ParkedFetch, Role};
use crate::model::quorum::{Quorum, ELECTION_BACKOFF_MAX_MS, REQUEST_TIMEOUT_MS};

impl Quorum {
    // ----- time ---------------------------------------------------------------

    /// The next moment something is due: a message arrives or a timer of a
    /// running voter fires.
    pub fn next_due_ms(&self) -> Option<u64> {
        let mut due = self.in_flight.first_key().map(|(t, _)| t);
        if let Some((t, _)) = self.to_brokers.first_key() {
            due = Some(due.map_or(t, |d| d.min(t)));
        }
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
    pub(super) fn poll(&mut self, c: ControllerId, now_ms: u64) -> bool {
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
    pub(super) fn election_timeout(&mut self) -> u64 {
        let t = self.timings.election_timeout_ms;
        t + self.rng.below(t)
    }

    /// After a lost election: 100 ms x rand[0, 2^retries), at most
    /// `controller.quorum.election.backoff.max.ms` (`binaryExponentialElectionBackoffMs`).
    pub(super) fn election_backoff(&mut self, retries: u32) -> u64 {
        let bound = 2u64 << retries.saturating_sub(1).min(20);
        (100 * self.rng.below(bound)).min(ELECTION_BACKOFF_MAX_MS)
    }

    // ----- the wire ------------------------------------------------------------

    pub(super) fn send(&mut self, from: ControllerId, to: ControllerId, rpc: Rpc, now_ms: u64) {
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
    pub(super) fn drop_reason(&self, m: &QuorumMessage) -> Option<DropReason> {
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
    pub(super) fn handle_common_response(&mut self, c: ControllerId, epoch: u32, leader: Option<ControllerId>, now_ms: u64) -> bool {
        let v = self.voter(c);
        if epoch > v.epoch {
            self.transition_to_epoch(c, epoch, leader, now_ms, QuorumCause::NewerEpochResponse);
            return true;
        }
        epoch < v.epoch
    }

    /// Moves to a newer epoch: follower of its leader if one is named, else
    /// unattached (`maybeTransition`).
    pub(super) fn transition_to_epoch(&mut self, c: ControllerId, epoch: u32, leader: Option<ControllerId>, now_ms: u64, reason: QuorumCause) {
        match leader.filter(|&l| l != c) {
            Some(l) => self.become_follower(c, epoch, l, now_ms),
            None => self.become_unattached(c, epoch, now_ms, reason, None),
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
