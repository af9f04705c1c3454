//! One controller of the quorum: its persisted quorum-state (epoch, vote,
//! leader: the `quorum-state` file, written before a transition takes
//! effect, `QuorumState.durableTransitionTo`), its role, its copy of the
//! metadata log and the timers and tallies of its role.

use crate::model::config::ControllerId;
use crate::model::quorum::metadata_log::MetadataLog;
use serde::Serialize;

/// A voter's role (`QuorumState`'s states). Kafka 3.9 has no Voted state:
/// an Unattached voter with a vote (`UnattachedState.votedKey`); before, a
/// voter that granted its vote was Voted (`VotedState`). The model keeps
/// the vote in `voted_for` and names the role by the preset's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// No leader known in this epoch; the election timer runs.
    Unattached,
    /// Pre-vote (KIP-996, Kafka 4.0): asking whether it could win, in its
    /// current epoch, before it raises the epoch.
    Prospective,
    /// Running for leader in its epoch, having voted for itself.
    Candidate,
    Leader,
    /// Fetching from the leader of its epoch; the fetch timer runs.
    Follower,
    /// A former leader of this epoch: no writes, no vote in it.
    Resigned,
}

/// A Fetch the leader holds until it has records for it or its wait ends
/// (`fetchPurgatory`, `MAX_FETCH_WAIT_MS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParkedFetch {
    pub from: ControllerId,
    pub until_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Voter {
    pub id: ControllerId,
    pub alive: bool,
    /// Persisted: the epoch, the vote cast in it, the leader known in it.
    pub epoch: u32,
    pub voted_for: Option<ControllerId>,
    pub leader: Option<ControllerId>,
    pub role: Role,
    /// Flushed before the voter answers (a voter fsyncs before its next
    /// Fetch; the leader in the poll that appends), so a crash keeps it.
    pub log: MetadataLog,
    /// Unknown until learned: a new leader's until its epoch's first
    /// record commits; a restarted voter's until its leader tells it.
    pub high_watermark: Option<u64>,
    /// The role's timer: election (Unattached, Prospective, Candidate,
    /// Resigned), fetch (Follower), or a lost candidate's backoff.
    pub timer_ms: Option<u64>,
    /// A candidate that lost waits out its backoff (`timer_ms`).
    pub backing_off: bool,
    /// Elections lost in a row, for the backoff.
    pub retries: u32,
    /// Prospective and Candidate: the voters that granted and rejected.
    pub granted: Vec<ControllerId>,
    pub rejected: Vec<ControllerId>,
    /// Leader: the log end offset when it won (its LeaderChange record's offset).
    pub epoch_start_offset: u64,
    /// Leader: each voter's end offset as its last Fetch said (index `id - 1`).
    pub end_offsets: Vec<Option<u64>>,
    /// Leader: voters that fetched since check-quorum last restarted.
    pub fetched_voters: Vec<ControllerId>,
    pub check_quorum_ms: Option<u64>,
    /// Leader: BeginQuorumEpoch is due again (the heartbeat, or the retry to
    /// voters that have not acknowledged it).
    pub begin_epoch_ms: Option<u64>,
    /// Leader: voters that acknowledged its epoch (a BeginQuorumEpoch answer or a Fetch).
    pub acknowledged: Vec<ControllerId>,
    pub parked: Vec<ParkedFetch>,
    /// Follower: when it sends its next Fetch (none while one is in flight).
    pub fetch_due_ms: Option<u64>,
    /// Follower: its Fetch in flight times out then (`controller.quorum.request.timeout.ms`).
    pub fetch_expires_ms: Option<u64>,
    /// Follower: a Fetch of this epoch succeeded (`hasFetchedFromLeader`).
    pub has_fetched: bool,
    /// Resigned: the successors it named, best first.
    pub successors: Vec<ControllerId>,
    /// Resigned: the voters that have not acknowledged its EndQuorumEpoch.
    pub unacknowledged: Vec<ControllerId>,
    /// The role's requests go again to those that have not answered
    /// (Vote, EndQuorumEpoch) once `controller.quorum.request.timeout.ms` passes.
    pub retry_ms: Option<u64>,
}

impl Voter {
    pub fn new(id: ControllerId) -> Voter {
        Voter {
            id,
            alive: true,
            epoch: 0,
            voted_for: None,
            leader: None,
            role: Role::Unattached,
            log: MetadataLog::default(),
            high_watermark: None,
            timer_ms: None,
            backing_off: false,
            retries: 0,
            granted: vec![],
            rejected: vec![],
            epoch_start_offset: 0,
            end_offsets: vec![],
            fetched_voters: vec![],
            check_quorum_ms: None,
            begin_epoch_ms: None,
            acknowledged: vec![],
            parked: vec![],
            fetch_due_ms: None,
            fetch_expires_ms: None,
            has_fetched: false,
            successors: vec![],
            unacknowledged: vec![],
            retry_ms: None,
        }
    }

    pub fn is_leader(&self) -> bool {
        self.alive && self.role == Role::Leader
    }

    /// The role's name, as the preset names it: `voted` for an Unattached
    /// voter with a vote where Kafka has VotedState (before 3.9).
    pub fn role_name(&self, voted_state: bool) -> &'static str {
        match self.role {
            Role::Unattached if voted_state && self.voted_for.is_some() => "voted",
            Role::Unattached => "unattached",
            Role::Prospective => "prospective",
            Role::Candidate => "candidate",
            Role::Leader => "leader",
            Role::Follower => "follower",
            Role::Resigned => "resigned",
        }
    }

    /// Forgets what a role kept in memory only (tallies, timers, the
    /// leader's view of the voters), as a transition or a crash does.
    pub fn clear_role_state(&mut self) {
        self.timer_ms = None;
        self.backing_off = false;
        self.granted.clear();
        self.rejected.clear();
        self.end_offsets.clear();
        self.fetched_voters.clear();
        self.check_quorum_ms = None;
        self.begin_epoch_ms = None;
        self.acknowledged.clear();
        self.parked.clear();
        self.fetch_due_ms = None;
        self.fetch_expires_ms = None;
        self.has_fetched = false;
        self.successors.clear();
        self.unacknowledged.clear();
        self.retry_ms = None;
    }
}
