//! The quorum's requests and responses between controllers (KIP-595):
//! Vote, BeginQuorumEpoch, EndQuorumEpoch and Fetch. Every response carries
//! the sender's epoch and the leader it knows, so that a stale node learns
//! of a newer epoch from any answer (`maybeHandleCommonResponse`).

use crate::model::config::{BrokerId, ControllerId};
use crate::model::quorum::metadata_log::MetadataEntry;
use serde::Serialize;
use std::fmt;

/// The errors a quorum request is answered with (`Errors`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum QuorumError {
    /// The request's epoch is older than the receiver's.
    FencedLeaderEpoch,
    /// The request's epoch is newer than the receiver's.
    UnknownLeaderEpoch,
    /// The receiver is not the leader of that epoch.
    NotLeaderOrFollower,
}

impl fmt::Display for QuorumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuorumError::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            QuorumError::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            QuorumError::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rpc {
    /// A candidate's (or, with `pre_vote`, a prospective's) request for a
    /// vote in `epoch`, with its last record's epoch and its log end offset.
    Vote { epoch: u32, last_epoch: u32, last_offset: u64, pre_vote: bool },
    VoteResponse { epoch: u32, leader: Option<ControllerId>, granted: bool, pre_vote: bool, error: Option<QuorumError> },
    /// The new leader announces its epoch.
    BeginQuorumEpoch { epoch: u32 },
    BeginQuorumEpochResponse { epoch: u32, leader: Option<ControllerId>, error: Option<QuorumError> },
    /// A resigning leader names its preferred successors, best first.
    EndQuorumEpoch { epoch: u32, successors: Vec<ControllerId> },
    EndQuorumEpochResponse { epoch: u32, leader: Option<ControllerId>, error: Option<QuorumError> },
    /// A follower asks for the records from its log end; `last_fetched_epoch`
    /// is the epoch of its last record.
    Fetch { epoch: u32, fetch_offset: u64, last_fetched_epoch: u32 },
    FetchResponse {
        epoch: u32,
        leader: Option<ControllerId>,
        error: Option<QuorumError>,
        records: Vec<MetadataEntry>,
        /// `DivergingEpoch`: the follower's last epoch ends here on the leader.
        diverging: Option<(u32, u64)>,
        high_watermark: Option<u64>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QuorumMessage {
    pub from: ControllerId,
    pub to: ControllerId,
    pub rpc: Rpc,
}

impl Rpc {
    /// Kafka's name of the request or response.
    pub fn name(&self) -> &'static str {
        match self {
            // A pre-vote is a Vote with PreVote set (KIP-996).
            Rpc::Vote { .. } => "Vote",
            Rpc::VoteResponse { .. } => "VoteResponse",
            Rpc::BeginQuorumEpoch { .. } => "BeginQuorumEpoch",
            Rpc::BeginQuorumEpochResponse { .. } => "BeginQuorumEpochResponse",
            Rpc::EndQuorumEpoch { .. } => "EndQuorumEpoch",
            Rpc::EndQuorumEpochResponse { .. } => "EndQuorumEpochResponse",
            Rpc::Fetch { .. } => "Fetch",
            Rpc::FetchResponse { .. } => "FetchResponse",
        }
    }
}

impl fmt::Display for Rpc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let error = |f: &mut fmt::Formatter<'_>, e: &Option<QuorumError>| match e {
            Some(e) => write!(f, " {e}"),
            None => Ok(()),
        };
        match self {
            Rpc::Vote { epoch, last_epoch, last_offset, pre_vote } => {
                let what = if *pre_vote { "Vote (pre-vote)" } else { "Vote" };
                write!(f, "{what} epoch {epoch}, last record epoch {last_epoch}, log end {last_offset}")
            }
            Rpc::VoteResponse { epoch, granted, error: e, .. } => {
                write!(f, "VoteResponse epoch {epoch} {}", if *granted { "granted" } else { "rejected" })?;
                error(f, e)
            }
            Rpc::BeginQuorumEpoch { epoch } => write!(f, "BeginQuorumEpoch epoch {epoch}"),
            Rpc::BeginQuorumEpochResponse { epoch, error: e, .. } => {
                write!(f, "BeginQuorumEpochResponse epoch {epoch}")?;
                error(f, e)
            }
            Rpc::EndQuorumEpoch { epoch, successors } => {
                let s: Vec<String> = successors.iter().map(|c| c.to_string()).collect();
                write!(f, "EndQuorumEpoch epoch {epoch}, successors [{}]", s.join(", "))
            }
            Rpc::EndQuorumEpochResponse { epoch, error: e, .. } => {
                write!(f, "EndQuorumEpochResponse epoch {epoch}")?;
                error(f, e)
            }
            Rpc::Fetch { epoch, fetch_offset, last_fetched_epoch } => {
                write!(f, "Fetch epoch {epoch}, offset {fetch_offset}, last fetched epoch {last_fetched_epoch}")
            }
            Rpc::FetchResponse { epoch, error: e, records, diverging, high_watermark, .. } => {
                write!(f, "FetchResponse epoch {epoch}")?;
                error(f, e)?;
                if let Some((de, end)) = diverging {
                    write!(f, ", diverging epoch {de} ends at {end}")?;
                } else if e.is_none() {
                    write!(f, ", {} record{}", records.len(), if records.len() == 1 { "" } else { "s" })?;
                }
                match high_watermark {
                    Some(hw) => write!(f, ", HW {hw}"),
                    None => write!(f, ", HW unknown"),
                }
            }
        }
    }
}

/// Committed metadata on its way from the quorum leader to a broker, an
/// observer of the quorum (`KafkaRaftClient` answering an observer's
/// Fetch): the leader's HW when it sent it. The broker reads the records
/// below it from the leader's log, where committed records never change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ToBroker {
    pub broker: BrokerId,
    pub from: ControllerId,
    pub high_watermark: u64,
}
