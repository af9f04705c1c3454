//! The requests and responses brokers exchange, named as in Kafka's protocol,
//! and the Kafka error codes the model can produce.

use crate::model::config::BrokerId;
use crate::model::log::Record;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// Kafka error names (`org.apache.kafka.common.protocol.Errors`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Errors {
    NotLeaderOrFollower,
    NotEnoughReplicas,
    NotEnoughReplicasAfterAppend,
    RequestTimedOut,
    NetworkException,
    FencedLeaderEpoch,
    UnknownLeaderEpoch,
    OffsetOutOfRange,
    /// What the producer's metadata says of a partition with no leader: it
    /// sends nothing and the record waits in the client (`Sender`,
    /// `RecordAccumulator.ready`); not the answer of any broker.
    LeaderNotAvailable,
}

impl Errors {
    pub fn name(self) -> &'static str {
        match self {
            Errors::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            Errors::NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
            Errors::NotEnoughReplicasAfterAppend => "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
            Errors::RequestTimedOut => "REQUEST_TIMED_OUT",
            Errors::NetworkException => "NETWORK_EXCEPTION",
            Errors::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            Errors::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            Errors::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
            Errors::LeaderNotAvailable => "LEADER_NOT_AVAILABLE",
        }
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A follower's Fetch request (`FetchRequest`, replica side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Fetch {
    pub follower: BrokerId,
    pub leader: BrokerId,
    /// The follower's log end offset.
    pub fetch_offset: u64,
    /// KIP-320 `CurrentLeaderEpoch` (2.1+).
    pub current_leader_epoch: Option<u32>,
    /// Fetch v12 `LastFetchedEpoch` (2.8+; the version is 2.7's, KIP-595).
    pub last_fetched_epoch: Option<u32>,
    /// `MaxWaitMs`: how long the leader may hold the fetch when it has
    /// nothing new (`replica.fetch.wait.max.ms`; 0 for a manual round).
    pub max_wait_ms: u64,
    /// The epoch the follower was in when it sent the request; a response
    /// from another epoch is stale and ignored.
    pub sent_in_epoch: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DivergingEpoch {
    pub epoch: u32,
    pub end_offset: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FetchResponse {
    pub leader: BrokerId,
    pub follower: BrokerId,
    pub fetch_offset: u64,
    pub sent_in_epoch: u32,
    pub error: Option<Errors>,
    /// The leader's LEO (used by a follower after OFFSET_OUT_OF_RANGE).
    pub leader_log_end_offset: u64,
    pub high_watermark: u64,
    pub diverging_epoch: Option<DivergingEpoch>,
    pub record_count: u64,
    /// Shared, not copied: a response in flight, its copies in snapshots and
    /// a retransmission all refer to the same records.
    #[serde(skip)]
    pub records: Arc<[Record]>,
}

impl FetchResponse {
    /// The answer to `req` with the leader's LEO, its HW and the records read
    /// (no error, no divergence).
    pub fn answer(req: &Fetch, leader_log_end_offset: u64, high_watermark: u64, records: Vec<Record>) -> FetchResponse {
        FetchResponse {
            leader: req.leader,
            follower: req.follower,
            fetch_offset: req.fetch_offset,
            sent_in_epoch: req.sent_in_epoch,
            error: None,
            leader_log_end_offset,
            high_watermark,
            diverging_epoch: None,
            record_count: records.len() as u64,
            records: records.into(),
        }
    }

    /// The response as events show it: everything but the records themselves.
    pub fn summary(&self) -> FetchResponse {
        FetchResponse { records: Arc::default(), ..*self }
    }
}

/// KIP-101 `OffsetsForLeaderEpoch` request, sent by a follower (0.11 to 2.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct OffsetsForLeaderEpoch {
    pub follower: BrokerId,
    pub leader: BrokerId,
    pub leader_epoch: u32,
    /// KIP-320 `CurrentLeaderEpoch` (2.1+).
    pub current_leader_epoch: Option<u32>,
    pub sent_in_epoch: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct OffsetsForLeaderEpochResponse {
    pub leader: BrokerId,
    pub follower: BrokerId,
    pub requested_epoch: u32,
    pub sent_in_epoch: u32,
    pub error: Option<Errors>,
    /// KIP-279 (2.0+): the largest epoch <= the requested one that the leader has.
    pub leader_epoch: Option<u32>,
    /// `None` is Kafka's UNDEFINED_EPOCH_OFFSET.
    pub end_offset: Option<u64>,
}

/// A message on the wire between two brokers (timed mode keeps them in flight).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind")]
pub enum Message {
    Fetch(Fetch),
    FetchResponse(FetchResponse),
    OffsetsForLeaderEpoch(OffsetsForLeaderEpoch),
    OffsetsForLeaderEpochResponse(OffsetsForLeaderEpochResponse),
}

impl Message {
    /// Records the message carries (a FetchResponse's).
    pub fn record_count(&self) -> usize {
        match self {
            Message::FetchResponse(r) => r.records.len(),
            _ => 0,
        }
    }

    pub fn from(&self) -> BrokerId {
        match self {
            Message::Fetch(m) => m.follower,
            Message::FetchResponse(m) => m.leader,
            Message::OffsetsForLeaderEpoch(m) => m.follower,
            Message::OffsetsForLeaderEpochResponse(m) => m.leader,
        }
    }

    pub fn to(&self) -> BrokerId {
        match self {
            Message::Fetch(m) => m.leader,
            Message::FetchResponse(m) => m.follower,
            Message::OffsetsForLeaderEpoch(m) => m.leader,
            Message::OffsetsForLeaderEpochResponse(m) => m.follower,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Message::Fetch(_) => "Fetch",
            Message::FetchResponse(_) => "FetchResponse",
            Message::OffsetsForLeaderEpoch(_) => "OffsetsForLeaderEpoch",
            Message::OffsetsForLeaderEpochResponse(_) => "OffsetsForLeaderEpochResponse",
        }
    }
}

impl fmt::Display for Fetch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fetch(offset {}", self.fetch_offset)?;
        if let Some(e) = self.current_leader_epoch {
            write!(f, ", leader epoch {e}")?;
        }
        if let Some(e) = self.last_fetched_epoch {
            write!(f, ", last fetched epoch {e}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for FetchResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(e) = self.error {
            return write!(f, "FetchResponse({e})");
        }
        if let Some(d) = self.diverging_epoch {
            return write!(f, "FetchResponse(DivergingEpoch(epoch {}, end offset {}), HW {})", d.epoch, d.end_offset, self.high_watermark);
        }
        let n = self.record_count;
        match n {
            0 => write!(f, "FetchResponse(no records, HW {})", self.high_watermark),
            1 => write!(f, "FetchResponse(1 record at offset {}, HW {})", self.fetch_offset, self.high_watermark),
            _ => write!(
                f,
                "FetchResponse({n} records, offsets {}..{}, HW {})",
                self.fetch_offset,
                self.fetch_offset + n - 1,
                self.high_watermark
            ),
        }
    }
}

impl fmt::Display for OffsetsForLeaderEpoch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OffsetsForLeaderEpoch(epoch {}", self.leader_epoch)?;
        if let Some(e) = self.current_leader_epoch {
            write!(f, ", leader epoch {e}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for OffsetsForLeaderEpochResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.error, self.end_offset) {
            (Some(e), _) => write!(f, "OffsetsForLeaderEpochResponse({e})"),
            (None, Some(o)) => match self.leader_epoch {
                Some(e) => write!(f, "OffsetsForLeaderEpochResponse(epoch {e}, end offset {o})"),
                None => write!(f, "OffsetsForLeaderEpochResponse(end offset {o})"),
            },
            (None, None) => f.write_str("OffsetsForLeaderEpochResponse(UNDEFINED_EPOCH_OFFSET)"),
        }
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Fetch(m) => m.fmt(f),
            Message::FetchResponse(m) => m.fmt(f),
            Message::OffsetsForLeaderEpoch(m) => m.fmt(f),
            Message::OffsetsForLeaderEpochResponse(m) => m.fmt(f),
        }
    }
}
