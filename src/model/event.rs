//! Everything a step does comes out as typed events. Each event has one
//! `Display` line: the trace line that the command line, the tests and the
//! page's event log all share.

use crate::model::config::{Budget, BrokerId, ControllerId, PartitionId};
use crate::model::quorum::message::Rpc;
use crate::model::quorum::metadata_log::MetadataEntry;
use crate::model::violation::Violation;
use crate::model::protocol::{Errors, Message};
use crate::model::step::{Acks, Step};
use serde::Serialize;
use crate::base::text::thousands;
use std::fmt;
use std::sync::Arc;

/// Why a log was truncated, with the rule (and its source) that did it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Truncation {
    /// 0.10: a replica that becomes a follower truncates to its own HW
    /// (`ReplicaManager.makeFollowers`).
    HighWatermark { high_watermark: u64 },
    /// 0.11 to 1.1: the leader's OffsetsForLeaderEpoch answer (KIP-101).
    LeaderEpoch { requested_epoch: u32, end_offset: u64 },
    /// 0.11+: the leader has no end offset for the follower's epoch (it is
    /// newer than every epoch the leader knows, or, in 0.11, older); fall
    /// back to the own HW (KIP-101, UNDEFINED_EPOCH_OFFSET).
    UndefinedEpochOffset { requested_epoch: u32, high_watermark: u64 },
    /// 2.0 to 2.1: the OffsetsForLeaderEpoch answer names the leader's epoch;
    /// the follower compares it with its own (KIP-279).
    EpochEndOffset { epoch: u32, end_offset: u64, follower_end_offset: u64 },
    /// 2.8+: DivergingEpoch in the fetch response
    /// (`AbstractFetcherThread.truncateOnFetchResponse`, KIP-279 semantics).
    DivergingEpoch { epoch: u32, end_offset: u64, follower_end_offset: u64 },
    /// Fetch offset beyond the leader's log end (`OFFSET_OUT_OF_RANGE`).
    OffsetOutOfRange { leader_log_end_offset: u64 },
    /// Unflushed records lost with the power.
    PowerLoss { lost: u64 },
}

impl fmt::Display for Truncation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Truncation::HighWatermark { high_watermark } => {
                write!(f, "truncated to HW {high_watermark} (pre-KIP-101 rule: truncate to own HW on becoming follower)")
            }
            Truncation::LeaderEpoch { requested_epoch, end_offset } => {
                write!(f, "leader says epoch {requested_epoch} ends at {end_offset} (KIP-101 OffsetsForLeaderEpoch)")
            }
            Truncation::UndefinedEpochOffset { requested_epoch, high_watermark } => write!(
                f,
                "leader has no end offset for epoch {requested_epoch} (UNDEFINED_EPOCH_OFFSET: older or newer than every epoch it knows); truncated to HW {high_watermark} (KIP-101 fallback)"
            ),
            Truncation::EpochEndOffset { epoch, end_offset, follower_end_offset } => write!(
                f,
                "leader says epoch {epoch} ends at {end_offset}, here at {follower_end_offset} (KIP-279 OffsetsForLeaderEpoch)"
            ),
            Truncation::DivergingEpoch { epoch, end_offset, follower_end_offset } => write!(
                f,
                "diverging epoch {epoch} ends at {end_offset} on the leader, at {follower_end_offset} here (KIP-279 DivergingEpoch)"
            ),
            Truncation::OffsetOutOfRange { leader_log_end_offset } => {
                write!(f, "fetch offset beyond the leader's log end {leader_log_end_offset} (OFFSET_OUT_OF_RANGE)")
            }
            Truncation::PowerLoss { lost } => write!(f, "power loss: {lost} unflushed record(s) gone"),
        }
    }
}

/// Why a high watermark changed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum HighWatermarkCause {
    /// Leader: the smallest LEO over the ISR (`Partition.maybeIncrementLeaderHW`).
    IsrLogEndOffsets { isr: Vec<(BrokerId, u64)> },
    /// Follower: min(leader HW in the fetch response, own LEO)
    /// (`ReplicaFetcherThread.processPartitionData`).
    FetchResponse { leader_high_watermark: u64 },
    /// HW can never exceed LEO: a truncation pulled it down.
    Truncation,
    /// Restart: min(checkpointed HW, LEO).
    Checkpoint { checkpointed: u64 },
}

impl fmt::Display for HighWatermarkCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HighWatermarkCause::IsrLogEndOffsets { isr } => {
                f.write_str("min LEO over ISR: ")?;
                for (i, (b, leo)) in isr.iter().enumerate() {
                    write!(f, "{}{b}:{leo}", if i == 0 { "" } else { ", " })?;
                }
                Ok(())
            }
            HighWatermarkCause::FetchResponse { leader_high_watermark } => {
                write!(f, "min(leader HW {leader_high_watermark}, own LEO)")
            }
            HighWatermarkCause::Truncation => f.write_str("cannot exceed the LEO after truncation"),
            HighWatermarkCause::Checkpoint { checkpointed } => write!(f, "min(checkpointed HW {checkpointed}, LEO) after restart"),
        }
    }
}

/// Why the producer client gave up on a record: which of its timeouts ran
/// out, and the last error it had seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Expiry {
    pub timeout: &'static str,
    /// None: the record was never sent.
    pub last_error: Option<Errors>,
    /// It ran out while a request for it was in flight (from 2.1,
    /// `Sender.getExpiredInflightBatches`): the application is told now, and
    /// a later answer is ignored, though the record may be in the log.
    pub in_flight: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ElectionKind {
    /// First live ISR member in assignment order
    /// (`PartitionStateMachine.offlinePartitionLeaderElection`).
    Clean,
    /// No live ISR member; first live replica (`unclean.leader.election.enable`).
    Unclean,
    /// KIP-966 (4.1): the ISR is empty; the first live Eligible Leader Replica.
    EligibleLeaderReplica,
    /// KIP-966 (4.1): ISR and ELR empty; the last known leader.
    LastKnownLeader,
    /// A preferred leader election: the first replica of the assignment,
    /// live and in the ISR, takes over (`kafka-leader-election.sh
    /// --election-type PREFERRED`; the controllers' automatic rebalance).
    Preferred,
}

/// Outcome of a produce request as the client sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProduceResult {
    Acked,
    /// acks=0: no response will come.
    Sent,
    Error(Errors),
}

/// Why a message did not arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    LinkCut,
    Isolated,
    BrokerDown,
    ControllerIsolated,
    ControllerDown,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DropReason::LinkCut => "link cut",
            DropReason::Isolated => "broker isolated",
            DropReason::BrokerDown => "broker down",
            DropReason::ControllerIsolated => "controller isolated",
            DropReason::ControllerDown => "controller down",
        })
    }
}

/// Why a controller's quorum role changed (`QuorumState`'s transitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QuorumCause {
    FetchTimeout,
    ElectionTimeout,
    BackoffOver,
    ElectionTimeoutAfterResigning,
    MajorityWouldVote,
    MajorityWouldNotVote,
    PreVoteTimedOut,
    NewerEpochResponse,
    NewerEpochVote,
    OnlyVoter,
    CheckQuorum,
    AskedToResign,
}

impl fmt::Display for QuorumCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuorumCause::FetchTimeout => "fetch timeout: no answer from the leader",
            QuorumCause::ElectionTimeout => "election timeout",
            QuorumCause::BackoffOver => "backoff over after a lost election",
            QuorumCause::ElectionTimeoutAfterResigning => "election timeout after resigning",
            QuorumCause::MajorityWouldVote => "a majority would vote for it",
            QuorumCause::MajorityWouldNotVote => "a majority would not vote for it",
            QuorumCause::PreVoteTimedOut => "pre-vote timed out",
            QuorumCause::NewerEpochResponse => "a response of a newer epoch",
            QuorumCause::NewerEpochVote => "a Vote of a newer epoch",
            QuorumCause::OnlyVoter => "the only voter",
            QuorumCause::CheckQuorum => "check-quorum: no majority of voters fetched from it",
            QuorumCause::AskedToResign => "asked to resign",
        })
    }
}

/// Why a voter refused a vote (`canGrantVote`, `handleVoteRequest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VoteRefusal {
    OlderEpoch,
    LeadsEpoch,
    FetchedFromLeader,
    LogBehind,
    AlreadyVoted,
    KnowsLeader,
    RunsItself,
    FollowsLeader,
    ResignedInEpoch,
}

impl fmt::Display for VoteRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VoteRefusal::OlderEpoch => "its epoch is older",
            VoteRefusal::LeadsEpoch => "it leads this epoch",
            VoteRefusal::FetchedFromLeader => "it fetched from its leader in this epoch",
            VoteRefusal::LogBehind => "the candidate's log is behind its own",
            VoteRefusal::AlreadyVoted => "it already voted in this epoch",
            VoteRefusal::KnowsLeader => "it knows the leader of this epoch",
            VoteRefusal::RunsItself => "it runs for this epoch itself",
            VoteRefusal::FollowsLeader => "it follows the leader of this epoch",
            VoteRefusal::ResignedInEpoch => "it resigned in this epoch",
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// An attempt of the producer client (1 for the first send).
    ProduceRequest { request: u64, to: Option<BrokerId>, value: Arc<str>, acks: Acks, attempt: u32 },
    /// A new record waits in its client: behind `behind`, an earlier record
    /// waiting to be sent (again), or for one of the `in_flight` requests
    /// unanswered to be answered (`max.in.flight.requests.per.connection`).
    ProduceQueued { request: u64, value: Arc<str>, acks: Acks, behind: Option<u64>, in_flight: u32 },
    /// An idempotent retry of a record the leader already holds (KIP-98).
    DuplicateProduce { broker: BrokerId, request: u64, offset: u64 },
    Appended { broker: BrokerId, offset: u64, epoch: u32, value: Arc<str> },
    /// `retry_in_ms`: a retriable error the client retries, not the final
    /// result; `expired`: the client's time for the record ran out
    /// (`delivery.timeout.ms` from 2.1, `request.timeout.ms` before), with the
    /// last error it had seen.
    ProduceResponse {
        request: u64,
        value: Arc<str>,
        acks: Acks,
        offset: Option<u64>,
        result: ProduceResult,
        attempts: u32,
        retry_in_ms: Option<u64>,
        expired: Option<Expiry>,
    },
    /// A message left its sender; in timed mode it arrives at `arrives_ms`.
    Sent { from: BrokerId, to: BrokerId, message: Message, latency_ms: u64 },
    Dropped { from: BrokerId, to: BrokerId, kind: &'static str, reason: DropReason },
    /// A follower ignored a response that no longer matches its state.
    ResponseIgnored { follower: BrokerId, kind: &'static str, reason: &'static str },
    /// The fetcher gave up on a request after `request.timeout.ms` and closed
    /// the connection, discarding `discarded` messages still in flight on it.
    FetchTimedOut { follower: BrokerId, leader: BrokerId, discarded: u64 },
    /// The follower stopped following `leader` while a fetch was out: the
    /// idle fetcher thread was shut down and closed its connection
    /// (`AbstractFetcherManager.shutdownIdleFetcherThreads`), discarding
    /// `discarded` messages still in flight on it.
    FetcherRemoved { follower: BrokerId, leader: BrokerId, discarded: u64 },
    /// The leader holds a fetch that found nothing new (`DelayedFetch`).
    FetchHeld { leader: BrokerId, follower: BrokerId, fetch_offset: u64, until_ms: u64 },
    RemoteLogEndOffsetUpdated { leader: BrokerId, follower: BrokerId, from: Option<u64>, to: u64 },
    FollowerAppended { follower: BrokerId, leader: BrokerId, first_offset: u64, count: u64, log_end_offset: u64 },
    HighWatermarkChanged { broker: BrokerId, from: u64, to: u64, cause: HighWatermarkCause },
    /// Since 3.7: the HW would move but the ISR is below `min.insync.replicas` (KAFKA-15583).
    HighWatermarkHeld { broker: BrokerId, high_watermark: u64, isr_size: u32, min_insync_replicas: u32 },
    Truncated { broker: BrokerId, from: u64, to: u64, truncation: Truncation },
    /// A truncation at the log end dropped an epoch entry that holds no
    /// record (`UnifiedLog.truncateTo`, KAFKA-10706).
    EpochCacheTrimmed { broker: BrokerId, epoch: u32, start_offset: u64 },
    IsrShrunk { leader: Option<BrokerId>, removed: Vec<BrokerId>, isr: Vec<BrokerId>, by_controller: bool },
    IsrExpanded { leader: BrokerId, added: BrokerId, isr: Vec<BrokerId> },
    /// An AlterPartition request leaves for the controller (timed mode,
    /// from 2.7); the answer arrives after `answer_in_ms`. `added`: the
    /// follower an expansion adds (None for a shrink).
    AlterPartitionSent { leader: BrokerId, proposed: Vec<BrokerId>, added: Option<BrokerId>, answer_in_ms: u64 },
    IsrChangeFailed { leader: BrokerId, proposed: Vec<BrokerId>, reason: &'static str },
    BrokerFenced { broker: BrokerId, session_timeout_ms: u64 },
    /// A restarted broker cannot register while its old session lives.
    RegistrationRefused { broker: BrokerId, session_expires_ms: Option<u64> },
    BrokerRegistered { broker: BrokerId },
    /// The controller bumped the leader epoch on an ISR shrink (same leader).
    LeaderEpochBumped { leader: BrokerId, leader_epoch: u32 },
    /// KIP-966: the Eligible Leader Replicas changed.
    EligibleLeaderReplicasChanged { elr: Vec<BrokerId>, isr: Vec<BrokerId> },
    BrokerUnfenced { broker: BrokerId },
    /// `unreachable`: the new leader is down or cut off, which the controller
    /// cannot know before its session expires; it serves nothing until then.
    LeaderElected {
        leader: BrokerId,
        leader_epoch: u32,
        isr: Vec<BrokerId>,
        kind: ElectionKind,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        unreachable: bool,
    },
    PartitionOffline { reason: String },
    /// The controller's automatic leader rebalance moves these partitions
    /// back to their preferred replica (one `LeaderElected` each follows).
    AutoLeaderRebalance { partitions: Vec<PartitionId> },
    BecameLeader { broker: BrokerId, leader_epoch: u32, start_offset: u64 },
    BecameFollower { broker: BrokerId, leader: Option<BrokerId>, leader_epoch: u32 },
    Crashed { broker: BrokerId, lose_unflushed: u64 },
    Restarted { broker: BrokerId },
    HighWatermarkCheckpointed { broker: BrokerId, high_watermark: u64 },
    LatencyChanged { broker: BrokerId, latency_ms: u64 },
    LinkCut { from: BrokerId, to: BrokerId, both_ways: bool },
    Isolated { broker: BrokerId },
    /// A rack cut off from the other brokers and the controller.
    RackIsolated { rack: Arc<str>, brokers: Vec<BrokerId> },
    LinkHealed { from: BrokerId, to: BrokerId },
    IsolationHealed { broker: BrokerId },
    ControllerCut { broker: BrokerId },
    ControllerLinkHealed { broker: BrokerId },
    ControlledShutdownStarted { broker: BrokerId },
    ControlledShutdownCompleted { broker: BrokerId },
    /// A broker in controlled shutdown learnt that it left the ISR (or that
    /// the partition has no leader) and stopped fetching it.
    ShutdownFetcherStopped { broker: BrokerId },
    FetcherPaused { broker: BrokerId },
    FetcherResumed { broker: BrokerId },
    ClockAdvanced { from_ms: u64, to_ms: u64 },
    Consumed { broker: BrokerId, from: u64, to: u64, high_watermark: u64, values: Vec<Arc<str>> },
    ConsumeFailed { error: String },
    /// KIP-320 (2.3+): the consumer's position is past where the leader says
    /// the epoch of its last record ends; `seek`: it goes back there, else it
    /// raises LogTruncationException (`auto.offset.reset=none`).
    ConsumerTruncationDetected { position: u64, epoch: u32, end_offset: u64, seek: bool },
    /// `auto.offset.reset` moved the consumer.
    ConsumerPositionReset { from: u64, to: u64, reset: &'static str, reason: String },
    /// `action`: the step that could not happen (named so, as `step` is the step's index).
    StepRejected { action: Step, reason: String },
    /// The run did more work than a budget allows: it stops at this step.
    BudgetExceeded { budget: Budget, limit: u64 },
    Violation(Violation),
    // ----- the KRaft controller quorum ----------------------------------
    /// A candidate, or a prospective asking for pre-votes, asks a voter for
    /// its vote (`Vote`).
    VoteRequest { candidate: ControllerId, to: ControllerId, epoch: u32, last_epoch: u32, last_offset: u64, pre_vote: bool, latency_ms: u64 },
    /// A voter grants its vote (persisted first, unless a pre-vote).
    VoteGranted { controller: ControllerId, candidate: ControllerId, epoch: u32, pre_vote: bool },
    VoteRejected { controller: ControllerId, candidate: ControllerId, epoch: u32, pre_vote: bool, reason: VoteRefusal },
    /// Any other message between controllers left its sender.
    QuorumSent { from: ControllerId, to: ControllerId, rpc: Rpc, latency_ms: u64 },
    QuorumDropped { from: ControllerId, to: ControllerId, kind: &'static str, reason: DropReason },
    #[serde(rename = "became_leader")]
    ControllerBecameLeader { controller: ControllerId, epoch: u32, epoch_start_offset: u64 },
    BecameCandidate { controller: ControllerId, epoch: u32, reason: QuorumCause },
    BecameProspective { controller: ControllerId, epoch: u32, reason: QuorumCause },
    #[serde(rename = "became_follower")]
    ControllerBecameFollower { controller: ControllerId, epoch: u32, leader: ControllerId },
    BecameUnattached { controller: ControllerId, epoch: u32, reason: QuorumCause },
    /// A quorum leader gives up its epoch (check-quorum, `resign`).
    Resigned { controller: ControllerId, epoch: u32, reason: QuorumCause },
    /// The quorum leader appended a record to the metadata log.
    MetadataAppended { controller: ControllerId, entry: MetadataEntry },
    /// A follower appended what its leader sent.
    MetadataFetched { controller: ControllerId, leader: ControllerId, first_offset: u64, count: u64, log_end_offset: u64 },
    /// A follower cut its log back to where it agrees with the leader (DivergingEpoch).
    MetadataTruncated { controller: ControllerId, from: u64, to: u64, epoch: u32, end_offset: u64 },
    /// The quorum leader's HW advanced: a majority of voters holds the records below it.
    MetadataCommitted { controller: ControllerId, epoch: u32, from: Option<u64>, to: u64 },
    /// A follower learned a higher HW from its leader.
    MetadataHighWatermark { controller: ControllerId, from: Option<u64>, to: u64 },
    ControllerCrashed { controller: ControllerId },
    ControllerRestarted { controller: ControllerId, role: &'static str },
    ControllerIsolated { controller: ControllerId },
    ControllerHealed { controller: ControllerId },
    /// The quorum leader's epoch has committed: it is the active controller
    /// (`QuorumController.claim`). It rebuilt its state from the metadata
    /// log up to `offset` and starts every broker's session anew
    /// (`ClusterControlManager.activate`).
    ControllerActivated { controller: ControllerId, epoch: u32, offset: u64 },
    /// A broker applied the committed metadata records from `from` to `to`
    /// (its metadata offset).
    MetadataApplied { broker: BrokerId, from: u64, to: u64 },
}

fn list(ids: &[BrokerId]) -> String {
    let parts: Vec<String> = ids.iter().map(|b| b.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

fn quoted(value: &str) -> String {
    // Debug escaping keeps every trace line one line, whatever the value holds.
    format!("{value:?}")
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Event::*;
        match self {
            ProduceQueued { request, value, acks, behind, in_flight } => {
                write!(f, "producer: Produce #{request} {} {acks} waits in the client ", quoted(value))?;
                match behind {
                    Some(b) => write!(f, "behind #{b}, which waits to be sent"),
                    None => write!(f, "for an answer: {in_flight} in flight, the most max.in.flight.requests.per.connection allows"),
                }
            }
            ProduceRequest { request, to, value, acks, attempt } => {
                match to {
                    Some(b) => write!(f, "producer -> broker {b}: Produce #{request} {} {acks}", quoted(value))?,
                    None => write!(f, "producer: Produce #{request} {} {acks} waits in the client: no leader in its metadata (LEADER_NOT_AVAILABLE)", quoted(value))?,
                }
                if *attempt > 1 {
                    write!(f, " (attempt {attempt})")?;
                }
                Ok(())
            }
            DuplicateProduce { broker, request, offset } => write!(
                f,
                "broker {broker} already holds #{request} at offset {offset}: an idempotent retry is not written twice (KIP-98)"
            ),
            Appended { broker, offset, epoch, value } => {
                write!(f, "broker {broker} appended {} at offset {offset} in epoch {epoch}", quoted(value))
            }
            ProduceResponse { request, value, acks, offset, result, attempts, retry_in_ms, expired } => {
                write!(f, "producer: #{request} {} {acks}: ", quoted(value))?;
                match (result, offset) {
                    (ProduceResult::Acked, Some(o)) => write!(f, "acknowledged at offset {o}")?,
                    (ProduceResult::Acked, None) => write!(f, "acknowledged")?,
                    (ProduceResult::Sent, _) => write!(f, "sent, no response expected")?,
                    (ProduceResult::Error(e), _) => write!(f, "{e}")?,
                }
                if let Some(ms) = retry_in_ms {
                    return write!(f, ", retrying in {ms} ms");
                }
                match expired {
                    Some(Expiry { timeout, in_flight: true, .. }) => {
                        write!(f, " ({timeout} ran out while its request was in flight; a later answer is ignored, though the record may be written)")?
                    }
                    Some(Expiry { timeout, last_error: Some(e), .. }) => write!(f, " ({timeout} ran out in the client; last error {e})")?,
                    Some(Expiry { timeout, last_error: None, .. }) => write!(f, " ({timeout} ran out in the client before it was sent)")?,
                    None => {}
                }
                if *attempts > 1 {
                    write!(f, " after {attempts} attempts")?;
                }
                Ok(())
            }
            Sent { from, to, message, latency_ms } => {
                write!(f, "broker {from} -> broker {to}: {message}")?;
                if *latency_ms > 0 {
                    write!(f, " (arrives in {latency_ms} ms)")?;
                }
                Ok(())
            }
            Dropped { from, to, kind, reason } => write!(f, "broker {from} -> broker {to}: {kind} dropped ({reason})"),
            ResponseIgnored { follower, kind, reason } => write!(f, "broker {follower} ignored a {kind}: {reason}"),
            FetchTimedOut { follower, leader, discarded } => {
                write!(f, "broker {follower}: fetch from broker {leader} timed out; connection closed")?;
                match discarded {
                    0 => {}
                    1 => write!(f, " (1 message in flight discarded)")?,
                    n => write!(f, " ({n} messages in flight discarded)")?,
                }
                write!(f, ", will retry")
            }
            FetcherRemoved { follower, leader, discarded } => {
                write!(f, "broker {follower} stops fetching from broker {leader}: its fetcher thread shut down and closed the connection")?;
                match discarded {
                    0 => Ok(()),
                    1 => write!(f, " (1 message in flight discarded)"),
                    n => write!(f, " ({n} messages in flight discarded)"),
                }
            }
            FetchHeld { leader, follower, fetch_offset, until_ms } => write!(
                f,
                "broker {leader} holds broker {follower}'s fetch: nothing past offset {fetch_offset} yet; answers when a record arrives or at {until_ms} ms (replica.fetch.wait.max.ms)"
            ),
            RemoteLogEndOffsetUpdated { leader, follower, from, to } => match from {
                Some(from) => write!(f, "broker {leader} notes follower {follower} at LEO {to} (was {from})"),
                None => write!(f, "broker {leader} notes follower {follower} at LEO {to} (was unknown)"),
            },
            FollowerAppended { follower, leader, first_offset, count, log_end_offset } => write!(
                f,
                "broker {follower} appended {count} record(s) from broker {leader} at offset {first_offset}, LEO {log_end_offset}"
            ),
            HighWatermarkChanged { broker, from, to, cause } => write!(f, "broker {broker} HW {from} -> {to} ({cause})"),
            HighWatermarkHeld { broker, high_watermark, isr_size, min_insync_replicas } => write!(
                f,
                "broker {broker} holds HW at {high_watermark}: ISR size {isr_size} < min.insync.replicas {min_insync_replicas} (KAFKA-15583)"
            ),
            Truncated { broker, from, to, truncation } => write!(f, "broker {broker} truncated its log {from} -> {to}: {truncation}"),
            EpochCacheTrimmed { broker, epoch, start_offset } => write!(
                f,
                "broker {broker} dropped epoch {epoch} from its epoch cache: it starts at the log end {start_offset} and holds no record (KAFKA-10706)"
            ),
            IsrShrunk { leader, removed, isr, by_controller } => {
                if *by_controller {
                    write!(f, "controller shrank the ISR to {} (removed fenced {})", list(isr), list(removed))
                } else {
                    let l = leader.map(|l| l.to_string()).unwrap_or_default();
                    write!(f, "leader {l} shrank the ISR to {} (removed {}: not caught up within replica.lag.time.max.ms)", list(isr), list(removed))
                }
            }
            IsrExpanded { leader, added, isr } => write!(f, "ISR expanded to {} (broker {added} caught up) on leader {leader}", list(isr)),
            AlterPartitionSent { leader, proposed, answer_in_ms, .. } => {
                write!(f, "broker {leader} asked the controller to change the ISR to {} (AlterPartition; the answer in {answer_in_ms} ms)", list(proposed))
            }
            IsrChangeFailed { leader, proposed, reason } => {
                write!(f, "broker {leader} could not change the ISR to {}: {reason}", list(proposed))
            }
            BrokerFenced { broker, session_timeout_ms } => {
                write!(f, "controller fenced broker {broker}: no heartbeat for {session_timeout_ms} ms")
            }
            BrokerUnfenced { broker } => write!(f, "controller unfenced broker {broker}: heartbeats again"),
            RegistrationRefused { broker, session_expires_ms } => match session_expires_ms {
                Some(t) => write!(
                    f,
                    "broker {broker} cannot register yet: its old session is still valid until {t} ms (DuplicateBrokerRegistrationException); it serves nothing until then"
                ),
                None => write!(f, "broker {broker} cannot reach the controller to register"),
            },
            BrokerRegistered { broker } => write!(f, "broker {broker} registered with the controller (a new incarnation)"),
            LeaderEpochBumped { leader, leader_epoch } => {
                write!(f, "controller bumped the leader epoch to {leader_epoch} for the ISR shrink (leader stays broker {leader})")
            }
            EligibleLeaderReplicasChanged { elr, isr } => {
                write!(f, "controller: ELR now {} (ISR {}, KIP-966)", list(elr), list(isr))
            }
            LeaderElected { leader, leader_epoch, isr, kind, unreachable } => {
                let kind = match kind {
                    ElectionKind::Clean => "clean",
                    ElectionKind::Unclean => "UNCLEAN",
                    ElectionKind::EligibleLeaderReplica => "from the ELR",
                    ElectionKind::LastKnownLeader => "last known leader",
                    ElectionKind::Preferred => "preferred replica",
                };
                write!(f, "controller elected broker {leader} leader in epoch {leader_epoch} ({kind}), ISR {}", list(isr))?;
                if *unreachable {
                    write!(f, "; broker {leader} is down or cut off, but its session has not expired, so the controller still counts it")?;
                }
                Ok(())
            }
            PartitionOffline { reason } => write!(f, "partition offline: {reason}"),
            AutoLeaderRebalance { partitions } => {
                write!(f, "controller: automatic leader rebalance (auto.leader.rebalance.enable) gives partitions {} back to their preferred replica", list(partitions))
            }
            BecameLeader { broker, leader_epoch, start_offset } => {
                write!(f, "broker {broker} is leader in epoch {leader_epoch}, epoch starts at offset {start_offset}")
            }
            BecameFollower { broker, leader, leader_epoch } => match leader {
                Some(l) => write!(f, "broker {broker} follows broker {l} in epoch {leader_epoch}"),
                None => write!(f, "broker {broker} has no leader to follow (epoch {leader_epoch})"),
            },
            Crashed { broker, lose_unflushed } => {
                if *lose_unflushed > 0 {
                    write!(f, "broker {broker} lost power ({lose_unflushed} unflushed record(s) at risk)")
                } else {
                    write!(f, "broker {broker} crashed")
                }
            }
            Restarted { broker } => write!(f, "broker {broker} restarted"),
            HighWatermarkCheckpointed { broker, high_watermark } => write!(f, "broker {broker} checkpointed HW {high_watermark}"),
            LatencyChanged { broker, latency_ms } => write!(f, "links of broker {broker} now take {latency_ms} ms"),
            LinkCut { from, to, both_ways } => {
                if *both_ways {
                    write!(f, "network partition between broker {from} and broker {to}")
                } else {
                    write!(f, "link cut from broker {from} to broker {to}")
                }
            }
            Isolated { broker } => write!(f, "broker {broker} isolated from the other brokers and the controller"),
            RackIsolated { rack, brokers } => write!(f, "rack {} cut off: brokers {} reach neither the brokers outside it nor the controller", quoted(rack), list(brokers)),
            LinkHealed { from, to } => write!(f, "link between broker {from} and broker {to} healed"),
            IsolationHealed { broker } => write!(f, "broker {broker} reconnected"),
            ControllerCut { broker } => write!(f, "broker {broker} cut from the controller (it still reaches the other brokers)"),
            ControllerLinkHealed { broker } => write!(f, "broker {broker} reaches the controller again"),
            ControlledShutdownStarted { broker } => write!(f, "broker {broker} asks the controller for a controlled shutdown"),
            ControlledShutdownCompleted { broker } => write!(f, "broker {broker} stopped cleanly (controlled shutdown)"),
            ShutdownFetcherStopped { broker } => {
                write!(f, "broker {broker} stops fetching: it is shutting down and is no longer in the ISR (or the partition has no leader)")
            }
            FetcherPaused { broker } => write!(f, "broker {broker} fetcher paused"),
            FetcherResumed { broker } => write!(f, "broker {broker} fetcher resumed"),
            ClockAdvanced { from_ms, to_ms } => write!(f, "clock {from_ms} -> {to_ms} ms"),
            VoteRequest { candidate, to, epoch, last_epoch, last_offset, pre_vote, latency_ms } => {
                let what = if *pre_vote { "Vote (pre-vote)" } else { "Vote" };
                write!(f, "controller {candidate} -> controller {to}: {what} epoch {epoch}, last record epoch {last_epoch}, log end {last_offset}")?;
                if *latency_ms > 0 {
                    write!(f, " (arrives in {latency_ms} ms)")?;
                }
                Ok(())
            }
            VoteGranted { controller, candidate, epoch, pre_vote } => {
                let what = if *pre_vote { "pre-vote" } else { "vote" };
                write!(f, "controller {controller} grants its {what} in epoch {epoch} to controller {candidate}")
            }
            VoteRejected { controller, candidate, epoch, pre_vote, reason } => {
                let what = if *pre_vote { "pre-vote" } else { "vote" };
                write!(f, "controller {controller} rejects controller {candidate}'s {what} request for epoch {epoch}: {reason}")
            }
            QuorumSent { from, to, rpc, latency_ms } => {
                write!(f, "controller {from} -> controller {to}: {rpc}")?;
                if *latency_ms > 0 {
                    write!(f, " (arrives in {latency_ms} ms)")?;
                }
                Ok(())
            }
            QuorumDropped { from, to, kind, reason } => write!(f, "{kind} from controller {from} to controller {to} lost: {reason}"),
            ControllerBecameLeader { controller, epoch, epoch_start_offset } => write!(
                f,
                "controller {controller} won the election: quorum leader of epoch {epoch}; its LeaderChange record at offset {epoch_start_offset} must commit before its HW is known"
            ),
            BecameCandidate { controller, epoch, reason } => write!(f, "controller {controller} runs for leader in epoch {epoch} ({reason})"),
            BecameProspective { controller, epoch, reason } => {
                write!(f, "controller {controller} asks for pre-votes in epoch {epoch} before it runs ({reason})")
            }
            ControllerBecameFollower { controller, epoch, leader } => write!(f, "controller {controller} follows controller {leader} in epoch {epoch}"),
            BecameUnattached { controller, epoch, reason } => write!(f, "controller {controller} knows no leader in epoch {epoch} ({reason})"),
            Resigned { controller, epoch, reason } => write!(f, "controller {controller} resigned as quorum leader of epoch {epoch} ({reason})"),
            MetadataAppended { controller, entry } => {
                write!(f, "controller {controller} appended {} at metadata offset {} in epoch {}", entry.record, entry.offset, entry.epoch)
            }
            MetadataFetched { controller, leader, first_offset, count, log_end_offset } => write!(
                f,
                "controller {controller} appended {count} metadata record{} from controller {leader} at {first_offset}, log end now {log_end_offset}",
                if *count == 1 { "" } else { "s" }
            ),
            MetadataTruncated { controller, from, to, epoch, end_offset } => write!(
                f,
                "controller {controller} truncated its metadata log {from} -> {to}: epoch {epoch} ends at {end_offset} on the leader (DivergingEpoch)"
            ),
            MetadataCommitted { controller, epoch, from, to } => match from {
                Some(from) => write!(f, "metadata HW {from} -> {to} on controller {controller}, quorum leader of epoch {epoch}: a majority of voters holds every record below {to}"),
                None => write!(f, "metadata HW {to} on controller {controller}, quorum leader of epoch {epoch}: a majority holds its LeaderChange record, so epoch {epoch} commits"),
            },
            MetadataHighWatermark { controller, from, to } => match from {
                Some(from) => write!(f, "controller {controller} metadata HW {from} -> {to}"),
                None => write!(f, "controller {controller} metadata HW {to}"),
            },
            ControllerCrashed { controller } => write!(f, "controller {controller} crashed"),
            ControllerActivated { controller, epoch, offset } => write!(
                f,
                "controller {controller} is the active controller in epoch {epoch}: it replayed the metadata log to offset {offset} and starts every broker's session anew"
            ),
            MetadataApplied { broker, from, to } => write!(f, "broker {broker} applied committed metadata {from} -> {to}"),
            ControllerRestarted { controller, role } => write!(f, "controller {controller} restarted as {role}"),
            ControllerIsolated { controller } => write!(f, "controller {controller} isolated from every other node"),
            ControllerHealed { controller } => write!(f, "controller {controller} reconnected"),
            Consumed { broker, from, to, high_watermark, values } => {
                if values.is_empty() {
                    write!(f, "consumer read nothing from broker {broker} (position {from}, HW {high_watermark})")
                } else {
                    let vs: Vec<String> = values.iter().map(|v| quoted(v)).collect();
                    let range = if to - from == 1 { format!("offset {from}") } else { format!("offsets {from}..{}", to - 1) };
                    write!(f, "consumer read {range} from broker {broker}: {}", vs.join(", "))
                }
            }
            ConsumeFailed { error } => write!(f, "consumer: {error}"),
            ConsumerTruncationDetected { position, epoch, end_offset, seek } => {
                write!(f, "consumer detected log truncation: the leader's epoch {epoch} ends at {end_offset}, below its position {position}")?;
                if *seek {
                    write!(f, "; it goes back to offset {end_offset} (KIP-320 position validation)")
                } else {
                    f.write_str(": LogTruncationException (auto.offset.reset=none)")
                }
            }
            ConsumerPositionReset { from, to, reset, reason } => {
                write!(f, "consumer: {reason}; auto.offset.reset={reset} moves it {from} -> {to}")
            }
            StepRejected { action, reason } => write!(f, "rejected {}: {reason}", action.to_json()),
            BudgetExceeded { budget, limit } => f.write_str(&budget_message(*budget, *limit)),
            Violation(v) => write!(f, "VIOLATION {v}"),
        }
    }
}

impl Event {
    /// A `Sent` event for a message (records are left out of the event).
    pub fn sent(message: &Message, latency_ms: u64) -> Event {
        let message = match message {
            Message::FetchResponse(r) => Message::FetchResponse(r.summary()),
            other => other.clone(),
        };
        Event::Sent { from: message.from(), to: message.to(), message, latency_ms }
    }
}

/// An event with the step and simulated time it happened at.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Traced {
    pub step: u64,
    pub time_ms: u64,
    /// The partition the event is about, in a topic of several partitions;
    /// none for one partition, or for what is the broker's or the cluster's.
    /// Written `topic_partition` (Kafka's `TopicPartition`): an event's own
    /// fields may name a partition too (a violation's `partition`).
    #[serde(rename = "topic_partition", skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionId>,
    #[serde(flatten)]
    pub event: Event,
    /// The same event happened again right after, this many more times, the
    /// last at `until_ms`: a timer that fires every millisecond makes one
    /// line, not millions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeated: Option<Repeated>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Repeated {
    pub more: u64,
    pub until_ms: u64,
}

impl fmt::Display for Traced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>7} ms  #{:<3} ", self.time_ms, self.step)?;
        if let Some(p) = self.partition {
            write!(f, "p{p}: ")?;
        }
        write!(f, "{}", self.event)?;
        match self.repeated {
            Some(Repeated { more: 1, until_ms }) => write!(f, " (… once more at {until_ms} ms)"),
            Some(Repeated { more, until_ms }) => write!(f, " (… {} more times until {until_ms} ms)", thousands(more)),
            None => Ok(()),
        }
    }
}

/// Why a run stopped, in the words the trace, the command line and the page
/// all use.
pub fn budget_message(budget: Budget, limit: u64) -> String {
    format!("stopped: {} (limit {}); the steps after this one are not run", budget.describe(limit), budget.limit_name())
}
