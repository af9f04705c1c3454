//! The KRaft controller quorum (KIP-595): the controllers replicate the
//! metadata log among themselves with Kafka's Raft, beside the ISR of the
//! data partitions: fetch, log end offset, high watermark, epochs and
//! divergence as for a partition, but committed by a majority of voters,
//! leaders elected by vote, and no unclean election.
//!
//! - `metadata_log`: a controller's copy of the log, and its records;
//! - `message`: Vote, BeginQuorumEpoch, EndQuorumEpoch and Fetch;
//! - `voter`: one controller, its persisted state and its role;
//! - `raft`: the protocol, a pure state machine: a message in, a timer
//!   due, a fault, each changing the voters and sending messages; its
//!   roles and votes in `election`, its log and HW in `replication`;
//! - `checks`: the safety checks of Kafka's own simulation
//!   (`RaftEventSimulationTest`), which the engine runs after each change;
//! - `clock`: the quorum on the simulation's clock, and its faults as steps;
//! - `slot`: the simulation's quorum, if any (always none in a build
//!   without the `quorum` feature).
//!
//! `Quorum` (here) is the state: the voters, the messages between them,
//! and the seeded random source of their election timers.

pub mod metadata_log;
pub mod message;
pub mod voter;
pub mod raft;
pub mod election;
pub mod replication;
pub mod checks;
pub mod clock;
pub mod slot;

use crate::base::arrivals::Arrivals;
use crate::base::rng::Rng;
use crate::model::config::{Config, ControllerId};
use crate::model::event::Event;
use crate::model::quorum::message::{QuorumMessage, ToBroker};
use crate::model::quorum::metadata_log::MetadataRecord;
use crate::model::quorum::voter::{Role, Voter};
use crate::model::rules::{Rule, Rules};

/// What each preset's quorum does (`rules.rs`: the `Quorum*` rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QuorumRules {
    pub voted_state: bool,
    pub check_quorum: bool,
    pub begin_epoch_heartbeat: bool,
    pub pre_vote: bool,
    /// The Raft commit rule: the leader's HW moves only past the start of
    /// its epoch. Always on in Kafka; a test turns it off to show that the
    /// checks find what its absence allows (Raft's "figure 8").
    pub commit_only_past_epoch_start: bool,
}

impl QuorumRules {
    pub fn of(rules: &Rules) -> QuorumRules {
        QuorumRules {
            voted_state: rules.has(Rule::QuorumVotedState),
            check_quorum: rules.has(Rule::QuorumCheckQuorum),
            begin_epoch_heartbeat: rules.has(Rule::QuorumBeginEpochHeartbeat),
            pre_vote: rules.has(Rule::QuorumPreVote),
            commit_only_past_epoch_start: true,
        }
    }
}

/// The timings of the quorum, from the scenario's config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QuorumTimings {
    pub election_timeout_ms: u64,
    pub fetch_timeout_ms: u64,
    pub latency_ms: u64,
}

/// `controller.quorum.request.timeout.ms` (2000), `controller.quorum.retry.backoff.ms`
/// (20), `controller.quorum.election.backoff.max.ms` (1000) and the Fetch
/// long-poll (`KafkaRaftClient.MAX_FETCH_WAIT_MS`, 500): Kafka's defaults,
/// which the model does not make settings.
pub const REQUEST_TIMEOUT_MS: u64 = 2_000;
pub const RETRY_BACKOFF_MS: u64 = 20;
pub const ELECTION_BACKOFF_MAX_MS: u64 = 1_000;
pub const MAX_FETCH_WAIT_MS: u64 = 500;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Quorum {
    /// Voter `c` at index `c - 1`.
    pub voters: Vec<Voter>,
    /// Messages between controllers, by arrival time and send order.
    pub in_flight: Arrivals<QuorumMessage>,
    next_seq: u64,
    /// Committed metadata on its way to the brokers, by arrival time.
    pub to_brokers: Arrivals<ToBroker>,
    /// The brokers, observers of the quorum that fetch committed metadata.
    pub brokers: u32,
    /// The controller the brokers take as active (the last to claim its
    /// epoch), for the cluster to see when another claims.
    pub claimed: Option<(ControllerId, u32)>,
    /// Whether a controller decided at the last look: an active one, not cut off.
    pub deciding: bool,
    /// Controllers cut from every other node (index `c - 1`).
    pub isolated: Vec<bool>,
    /// Election timeouts and backoffs: a stream of its own, from the
    /// scenario's seed, so that a scenario without a quorum draws what it did.
    pub(crate) rng: Rng,
    pub rules: QuorumRules,
    pub timings: QuorumTimings,
    /// What the last call did, for the engine to take (`take_events`).
    pub(crate) outbox: Vec<Event>,
}

impl Quorum {
    /// A quorum at rest: controller 1 leads epoch 1, and every voter holds
    /// the committed bootstrap log (its LeaderChange record, then `records`).
    pub fn new(config: &Config, records: &[MetadataRecord]) -> Quorum {
        let n = config.controllers;
        let mut rng = Rng::new(config.seed ^ 0x6B72_6166_7471_756F); // "kraftquo"
        let mut voters: Vec<Voter> = config.controller_ids().map(Voter::new).collect();
        for v in voters.iter_mut() {
            v.epoch = 1;
            v.leader = Some(1);
            v.log.append(1, MetadataRecord::LeaderChange { leader: 1 });
            for &r in records {
                v.log.append(1, r);
            }
            v.high_watermark = Some(v.log.end_offset());
            if v.id == 1 {
                v.role = Role::Leader;
                v.end_offsets = (0..n).map(|_| Some(v.log.end_offset())).collect();
                v.acknowledged = config.controller_ids().collect();
            } else {
                v.role = Role::Follower;
                v.has_fetched = true;
                // Each follower last heard from its leader at a seeded moment
                // of the leader's long-poll, and fetches then: their fetch
                // timers do not run out together.
                let phase = rng.below(MAX_FETCH_WAIT_MS);
                v.fetch_due_ms = Some(phase);
                v.timer_ms = Some(phase + config.controller_quorum_fetch_timeout_ms);
            }
        }
        let rules = QuorumRules::of(&config.rules());
        let timings = QuorumTimings {
            election_timeout_ms: config.controller_quorum_election_timeout_ms,
            fetch_timeout_ms: config.controller_quorum_fetch_timeout_ms,
            latency_ms: config.link_latency_ms,
        };
        let mut q = Quorum {
            voters,
            in_flight: Arrivals::new(),
            next_seq: 0,
            to_brokers: Arrivals::new(),
            brokers: config.brokers,
            claimed: (n > 0).then_some((1, 1)),
            deciding: n > 0,
            isolated: vec![false; n as usize],
            rng,
            rules,
            timings,
            outbox: vec![],
        };
        if n > 0 {
            q.start_leader_timers(1, 0);
        }
        q
    }

    /// Roughly the memory a copy holds (`Simulation::approx_bytes`).
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        let logs: usize = self.voters.iter().map(|v| v.log.entries().len() * size_of::<crate::model::quorum::metadata_log::MetadataEntry>()).sum();
        size_of::<Quorum>()
            + self.voters.len() * size_of::<Voter>()
            + logs
            + self.in_flight.len() * size_of::<QuorumMessage>()
            + self.to_brokers.len() * size_of::<ToBroker>()
    }

    pub fn voter(&self, c: ControllerId) -> &Voter {
        &self.voters[(c - 1) as usize]
    }

    pub(crate) fn voter_mut(&mut self, c: ControllerId) -> &mut Voter {
        &mut self.voters[(c - 1) as usize]
    }

    pub fn ids(&self) -> std::ops::RangeInclusive<ControllerId> {
        1..=self.voters.len() as ControllerId
    }

    /// ⌊n/2⌋ + 1 (`CandidateState.majoritySize`).
    pub fn majority(&self) -> usize {
        self.voters.len() / 2 + 1
    }

    /// The running leader with the highest epoch, if any.
    pub fn leader(&self) -> Option<&Voter> {
        self.voters.iter().filter(|v| v.is_leader()).max_by_key(|v| v.epoch)
    }

    /// The active controller: the quorum leader once its epoch has
    /// committed (its HW is known only past its LeaderChange record), when
    /// `QuorumController` claims the epoch (`handleLeaderChange` fires only
    /// once the listener reaches the epoch's start).
    pub fn active_controller(&self) -> Option<ControllerId> {
        self.leader().filter(|v| v.high_watermark.is_some_and(|hw| hw > v.epoch_start_offset)).map(|v| v.id)
    }

    /// The highest quorum epoch any controller knows.
    pub fn epoch(&self) -> u32 {
        self.voters.iter().map(|v| v.epoch).max().unwrap_or(0)
    }

    pub fn is_isolated(&self, c: ControllerId) -> bool {
        self.isolated[(c - 1) as usize]
    }

    /// The events of the last call, in order.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.outbox)
    }

    /// The leader's HW moved: the brokers' held metadata fetches are
    /// answered with it, each arriving a link latency later (Kafka 4.1,
    /// KAFKA-14145; before it an observer could wait for the next append or
    /// the end of its 500 ms long poll, which the model does not draw).
    pub(crate) fn send_to_brokers(&mut self, from: ControllerId, high_watermark: u64, now_ms: u64) {
        if self.is_isolated(from) {
            return;
        }
        let arrives = now_ms + self.timings.latency_ms;
        for broker in 1..=self.brokers {
            self.to_brokers.insert((arrives, self.next_seq), ToBroker { broker, from, high_watermark });
            self.next_seq += 1;
        }
    }

    pub(crate) fn put_on_wire(&mut self, m: QuorumMessage, now_ms: u64) -> u64 {
        let arrives = now_ms + self.timings.latency_ms;
        self.in_flight.insert((arrives, self.next_seq), m);
        self.next_seq += 1;
        arrives
    }
}

