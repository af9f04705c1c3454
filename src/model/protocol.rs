//! The requests and responses brokers exchange, named as in Kafka's protocol,
//! and the Kafka error codes the model can produce.

use crate::model::config::{BrokerId, PartitionId};
use crate::model::partition::log::Record;
use serde::{Serialize, Serializer};
use smallvec::SmallVec;
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

/// The partitions of one request or response, in partition order: one for
/// a topic of one partition, stored inline.
pub type PartitionBatch<T> = SmallVec<[T; 1]>;

/// A message serializes as it always has for a topic of one partition: the
/// one partition's fields beside the message's own, in their order (the
/// page draws them); with several, a `partitions` list whose entries name
/// their partitions.
macro_rules! serialize_batch {
    (@one $map:ident $self:ident $one:ident own $f:ident) => { $map.serialize_entry(stringify!($f), &$self.$f)? };
    (@one $map:ident $self:ident $one:ident part $f:ident) => { $map.serialize_entry(stringify!($f), &$one.$f)? };
    (@many $map:ident $self:ident own $f:ident) => { $map.serialize_entry(stringify!($f), &$self.$f)? };
    (@many $map:ident $self:ident part $f:ident) => { () };
    ($t:ident { $($kind:ident $f:ident),* }) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(None)?;
                match &self.partitions[..] {
                    [one] => {
                        $(serialize_batch!(@one map self one $kind $f);)*
                        // A topic of one partition reads as it always did; another partition alone says which.
                        if one.partition != 0 {
                            map.serialize_entry("partition", &one.partition)?;
                        }
                    }
                    many => {
                        $(serialize_batch!(@many map self $kind $f);)*
                        map.serialize_entry("partitions", many)?;
                    }
                }
                map.end()
            }
        }
    };
}

/// Each partition's part of a message, as its text reads: `Fetch(offset 3)`
/// for one partition, `Fetch(p0 offset 3; p2 offset 0)` for several.
fn write_batch<T>(f: &mut fmt::Formatter<'_>, name: &str, partitions: &[T], id: impl Fn(&T) -> PartitionId, mut part: impl FnMut(&mut fmt::Formatter<'_>, &T) -> fmt::Result) -> fmt::Result {
    write!(f, "{name}(")?;
    match partitions {
        [one] => part(f, one)?,
        many => {
            for (i, x) in many.iter().enumerate() {
                write!(f, "{}p{} ", if i == 0 { "" } else { "; " }, id(x))?;
                part(f, x)?;
            }
        }
    }
    f.write_str(")")
}

/// One partition of a follower's Fetch request (`FetchRequest.PartitionData`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FetchPartition {
    pub partition: PartitionId,
    /// The follower's log end offset.
    pub fetch_offset: u64,
    /// KIP-320 `CurrentLeaderEpoch` (2.1+).
    pub current_leader_epoch: Option<u32>,
    /// Fetch v12 `LastFetchedEpoch` (2.8+; the version is 2.7's, KIP-595).
    pub last_fetched_epoch: Option<u32>,
    /// The epoch the follower was in when it sent the request; a response
    /// from another epoch is stale and ignored.
    pub sent_in_epoch: u32,
}

/// A follower's Fetch request (`FetchRequest`, replica side): one per
/// leader it follows, carrying every partition it fetches from that leader
/// (`AbstractFetcherThread`'s partition states, one thread per source broker).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fetch {
    pub follower: BrokerId,
    pub leader: BrokerId,
    /// `MaxWaitMs`: how long the leader may hold the fetch when it has
    /// nothing new (`replica.fetch.wait.max.ms`; 0 for a manual round).
    pub max_wait_ms: u64,
    pub partitions: PartitionBatch<FetchPartition>,
}

serialize_batch!(Fetch { own follower, own leader, part fetch_offset, part current_leader_epoch, part last_fetched_epoch, own max_wait_ms, part sent_in_epoch });

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DivergingEpoch {
    pub epoch: u32,
    pub end_offset: u64,
}

/// One partition of a FetchResponse (`FetchResponseData.PartitionData`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FetchResponsePartition {
    pub partition: PartitionId,
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

impl FetchResponsePartition {
    /// The answer to `req` with the leader's LEO, its HW and the records read
    /// (no error, no divergence).
    pub fn answer(req: &FetchPartition, leader_log_end_offset: u64, high_watermark: u64, records: Vec<Record>) -> FetchResponsePartition {
        FetchResponsePartition {
            partition: req.partition,
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
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FetchResponse {
    pub leader: BrokerId,
    pub follower: BrokerId,
    pub partitions: PartitionBatch<FetchResponsePartition>,
}

serialize_batch!(FetchResponse { own leader, own follower, part fetch_offset, part sent_in_epoch, part error, part leader_log_end_offset, part high_watermark, part diverging_epoch, part record_count });

impl FetchResponse {
    /// The response as events show it: everything but the records themselves.
    pub fn summary(&self) -> FetchResponse {
        let partitions = self.partitions.iter().map(|p| FetchResponsePartition { records: Arc::default(), ..p.clone() }).collect();
        FetchResponse { leader: self.leader, follower: self.follower, partitions }
    }
}

/// One partition of a KIP-101 `OffsetsForLeaderEpoch` request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct OffsetsForLeaderEpochPartition {
    pub partition: PartitionId,
    pub leader_epoch: u32,
    /// KIP-320 `CurrentLeaderEpoch` (2.1+).
    pub current_leader_epoch: Option<u32>,
    pub sent_in_epoch: u32,
}

/// KIP-101 `OffsetsForLeaderEpoch` request, sent by a follower (0.11 to 2.1)
/// to a leader for every partition it follows there that must truncate
/// first (`AbstractFetcherThread.maybeTruncate`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OffsetsForLeaderEpoch {
    pub follower: BrokerId,
    pub leader: BrokerId,
    pub partitions: PartitionBatch<OffsetsForLeaderEpochPartition>,
}

serialize_batch!(OffsetsForLeaderEpoch { own follower, own leader, part leader_epoch, part current_leader_epoch, part sent_in_epoch });

/// One partition of an `OffsetsForLeaderEpoch` response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct EpochEndOffset {
    pub partition: PartitionId,
    pub requested_epoch: u32,
    pub sent_in_epoch: u32,
    pub error: Option<Errors>,
    /// KIP-279 (2.0+): the largest epoch <= the requested one that the leader has.
    pub leader_epoch: Option<u32>,
    /// `None` is Kafka's UNDEFINED_EPOCH_OFFSET.
    pub end_offset: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OffsetsForLeaderEpochResponse {
    pub leader: BrokerId,
    pub follower: BrokerId,
    pub partitions: PartitionBatch<EpochEndOffset>,
}

serialize_batch!(OffsetsForLeaderEpochResponse { own leader, own follower, part requested_epoch, part sent_in_epoch, part error, part leader_epoch, part end_offset });

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
            Message::FetchResponse(r) => r.partitions.iter().map(|p| p.records.len()).sum(),
            _ => 0,
        }
    }

    /// The partition a message is about when it carries only one.
    pub fn only_partition(&self) -> Option<PartitionId> {
        fn one<T>(parts: &[T], id: impl Fn(&T) -> PartitionId) -> Option<PartitionId> {
            match parts {
                [only] => Some(id(only)),
                _ => None,
            }
        }
        match self {
            Message::Fetch(m) => one(&m.partitions, |p| p.partition),
            Message::FetchResponse(m) => one(&m.partitions, |p| p.partition),
            Message::OffsetsForLeaderEpoch(m) => one(&m.partitions, |p| p.partition),
            Message::OffsetsForLeaderEpochResponse(m) => one(&m.partitions, |p| p.partition),
        }
    }

    /// The message carries partition `p` (a batched Fetch carries each
    /// partition the follower follows on that leader).
    pub fn carries(&self, p: PartitionId) -> bool {
        match self {
            Message::Fetch(m) => m.partitions.iter().any(|x| x.partition == p),
            Message::FetchResponse(m) => m.partitions.iter().any(|x| x.partition == p),
            Message::OffsetsForLeaderEpoch(m) => m.partitions.iter().any(|x| x.partition == p),
            Message::OffsetsForLeaderEpochResponse(m) => m.partitions.iter().any(|x| x.partition == p),
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
        write_batch(f, "Fetch", &self.partitions, |p| p.partition, |f, p| {
            write!(f, "offset {}", p.fetch_offset)?;
            if let Some(e) = p.current_leader_epoch {
                write!(f, ", leader epoch {e}")?;
            }
            if let Some(e) = p.last_fetched_epoch {
                write!(f, ", last fetched epoch {e}")?;
            }
            Ok(())
        })
    }
}

impl fmt::Display for FetchResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_batch(f, "FetchResponse", &self.partitions, |p| p.partition, |f, p| {
            if let Some(e) = p.error {
                return write!(f, "{e}");
            }
            if let Some(d) = p.diverging_epoch {
                return write!(f, "DivergingEpoch(epoch {}, end offset {}), HW {}", d.epoch, d.end_offset, p.high_watermark);
            }
            match p.record_count {
                0 => write!(f, "no records, HW {}", p.high_watermark),
                1 => write!(f, "1 record at offset {}, HW {}", p.fetch_offset, p.high_watermark),
                n => write!(f, "{n} records, offsets {}..{}, HW {}", p.fetch_offset, p.fetch_offset + n - 1, p.high_watermark),
            }
        })
    }
}

impl fmt::Display for OffsetsForLeaderEpoch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_batch(f, "OffsetsForLeaderEpoch", &self.partitions, |p| p.partition, |f, p| {
            write!(f, "epoch {}", p.leader_epoch)?;
            if let Some(e) = p.current_leader_epoch {
                write!(f, ", leader epoch {e}")?;
            }
            Ok(())
        })
    }
}

impl fmt::Display for OffsetsForLeaderEpochResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_batch(f, "OffsetsForLeaderEpochResponse", &self.partitions, |p| p.partition, |f, p| match (p.error, p.end_offset) {
            (Some(e), _) => write!(f, "{e}"),
            (None, Some(o)) => match p.leader_epoch {
                Some(e) => write!(f, "epoch {e}, end offset {o}"),
                None => write!(f, "end offset {o}"),
            },
            (None, None) => f.write_str("UNDEFINED_EPOCH_OFFSET"),
        })
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
