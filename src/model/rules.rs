//! Kafka's replication rules by version, as data: one table of the rules that
//! changed between releases, each naming its KIP or JIRA and the version that
//! brought it (and the one that retired it). A preset's `Rules` is read by the
//! engine; nothing else in the model branches on the version.
//!
//! Every row was checked against apache/kafka at the tags named in
//! `docs/model.md` ("Rules by version").

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A Kafka version whose replication rules and defaults the model follows
/// (the scenario's `config.protocol`). Ordered by release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protocol {
    V0_10,
    V0_11,
    V2_0,
    V2_1,
    V2_8,
    V3_5,
    V3_7,
    V4_1,
}

impl Protocol {
    pub const ALL: [Protocol; 8] = [
        Protocol::V0_10,
        Protocol::V0_11,
        Protocol::V2_0,
        Protocol::V2_1,
        Protocol::V2_8,
        Protocol::V3_5,
        Protocol::V3_7,
        Protocol::V4_1,
    ];

    /// Older names, kept as exact aliases so that older files and links read
    /// as before: the names of the first three presets, and `"2.7"`, the
    /// name the 2.8 preset had. That preset was always Kafka 2.8's rules:
    /// truncation on a DivergingEpoch fetch answer is first in 2.8.0
    /// (KAFKA-10554); 2.7.0's fetcher still asks OffsetsForLeaderEpoch.
    pub const ALIASES: [(&'static str, Protocol); 4] =
        [("legacy", Protocol::V0_10), ("kip101", Protocol::V0_11), ("2.7", Protocol::V2_8), ("modern", Protocol::V3_7)];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::V0_10 => "0.10",
            Protocol::V0_11 => "0.11",
            Protocol::V2_0 => "2.0",
            Protocol::V2_1 => "2.1",
            Protocol::V2_8 => "2.8",
            Protocol::V3_5 => "3.5",
            Protocol::V3_7 => "3.7",
            Protocol::V4_1 => "4.1",
        }
    }

    /// A preset name or an alias.
    pub fn parse(name: &str) -> Option<Protocol> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .or_else(|| Protocol::ALIASES.iter().find(|(alias, _)| *alias == name).map(|&(_, p)| p))
    }

    /// A preset name or an alias that is a version number (`"2.7"`), not
    /// one of the old generation names: what a fork link's `protocol=` reads.
    pub fn parse_version(name: &str) -> Option<Protocol> {
        Protocol::parse(name).filter(|_| name.starts_with(|c: char| c.is_ascii_digit()))
    }

    /// Every accepted name, for error messages and help.
    pub fn accepted_names() -> String {
        let presets: Vec<String> = Protocol::ALL.iter().map(|p| format!("\"{}\"", p.name())).collect();
        let aliases: Vec<String> = Protocol::ALIASES.iter().map(|(a, p)| format!("\"{a}\" (= \"{}\")", p.name())).collect();
        format!("{}, or {}", presets.join(", "), aliases.join(", "))
    }

    /// The rules in force in this version.
    pub fn rules(self) -> Rules {
        Rules::of(self)
    }

    /// This version's defaults for the settings that changed over time.
    pub fn defaults(self) -> VersionDefaults {
        let zookeeper = self < Protocol::V3_5;
        VersionDefaults {
            // ZooKeeper's `zookeeper.session.timeout.ms`: 6000 until 2.5 (KIP-537
            // raised it to 18000); KRaft's `broker.session.timeout.ms` 9000.
            broker_session_timeout_ms: match self {
                _ if !zookeeper => 9_000,
                Protocol::V2_8 => 18_000,
                _ => 6_000,
            },
            // `replica.lag.time.max.ms`: 10000 until 2.5, then 30000 (KIP-537).
            replica_lag_time_max_ms: if self >= Protocol::V2_8 { 30_000 } else { 10_000 },
            // `unclean.leader.election.enable`: true until 0.11 (KIP-106).
            unclean_leader_election: self == Protocol::V0_10,
            // `enable.idempotence`: true since 3.0 (KIP-679; in effect from 3.0.1).
            enable_idempotence: self >= Protocol::V3_5,
            // `retries`: 0 until 2.1, then Integer.MAX_VALUE bounded by
            // `delivery.timeout.ms` (KIP-91).
            retries: if self >= Protocol::V2_1 { i32::MAX as u32 } else { 0 },
        }
    }

    /// Whether the client has an idempotent producer: KIP-98 brought
    /// `enable.idempotence` in 0.11; 0.10's client has none.
    pub fn has_idempotent_producer(self) -> bool {
        self >= Protocol::V0_11
    }

    /// Whether the cluster runs on KRaft (KIP-500): the presets from 3.5,
    /// where a scenario may have a controller quorum (`config.controllers`).
    pub fn has_kraft(self) -> bool {
        self >= Protocol::V3_5
    }

    /// Whether replicas keep a leader-epoch cache (`LeaderEpochFileCache`,
    /// the leader-epoch-checkpoint file): new in 0.11 with KIP-101; 0.10's
    /// records and logs have no leader epoch.
    pub fn has_leader_epoch_cache(self) -> bool {
        self >= Protocol::V0_11
    }

    /// The most requests in flight the idempotent producer allows: 1 in 0.11
    /// (`KafkaProducer.configureInflightRequests`: "Must set
    /// max.in.flight.requests.per.connection to 1"), 5 from 1.0 (KAFKA-5494).
    pub fn idempotent_max_in_flight(self) -> u32 {
        if self <= Protocol::V0_11 { 1 } else { 5 }
    }
}

/// The defaults that differ between versions (`Config::for_protocol` fills
/// the rest with defaults that never changed). `enable_idempotence` is the
/// producer's (true since 3.0, KIP-679).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VersionDefaults {
    pub broker_session_timeout_ms: u64,
    pub replica_lag_time_max_ms: u64,
    pub unclean_leader_election: bool,
    pub enable_idempotence: bool,
    pub retries: u32,
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Protocol {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Protocol {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Protocol;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a Kafka version preset: {}", Protocol::accepted_names())
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Protocol, E> {
                Protocol::parse(v).ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(v), &self))
            }
        }
        d.deserialize_str(V)
    }
}

/// A rule of Kafka's replication that changed between versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// A replica that becomes a follower truncates its log to its own HW.
    TruncateToHighWatermark,
    /// A new follower asks OffsetsForLeaderEpoch for its latest epoch and
    /// truncates to the answer.
    OffsetsForLeaderEpoch,
    /// The OffsetsForLeaderEpoch answer also names the largest epoch <= the
    /// asked one; a follower without it truncates further and asks again.
    EpochInOffsetsForLeaderEpoch,
    /// Fetch and OffsetsForLeaderEpoch carry the current leader epoch; a
    /// leader fences requests from another epoch.
    LeaderEpochFencing,
    /// A new leader records its epoch in the epoch cache at once (before, at
    /// its first append in that epoch).
    EpochCachedOnBecomingLeader,
    /// A follower whose LEO equals the leader's is never out of sync.
    CaughtUpAtLogEnd,
    /// A follower rejoins the ISR only once it reaches the start of the
    /// leader's epoch, not merely the HW.
    IsrExpansionNeedsEpochStart,
    /// Divergence is detected inside the fetch (DivergingEpoch); no separate
    /// OffsetsForLeaderEpoch round.
    DivergingEpochInFetch,
    /// A truncation whose target is at or past the log end still drops an
    /// epoch entry that starts at the log end (a leader's epoch with no record).
    TruncateToLogEndTrimsEpochCache,
    /// A follower does not take the HW of a DivergingEpoch response: it
    /// truncates first.
    NoHighWatermarkFromDivergingResponse,
    /// The controller bumps the leader epoch when it removes a replica from
    /// the ISR (ZooKeeper era).
    EpochBumpOnControllerIsrShrink,
    /// Every ISR shrink bumps the leader epoch (KRaft before metadata 3.6).
    EpochBumpOnEveryIsrShrink,
    /// KRaft: the controller publishes a leaderless partition to the brokers
    /// (the ZooKeeper-era controller sends no LeaderAndIsr for it).
    KraftController,
    /// The leader does not advance the HW while the ISR is below
    /// `min.insync.replicas`.
    HighWatermarkFrozenUnderMinIsr,
    /// The producer client retries until `delivery.timeout.ms` from the send;
    /// before, a record waiting in the client expired after `request.timeout.ms`.
    DeliveryTimeout,
    /// After a leader-epoch change the consumer validates its position and
    /// detects log truncation.
    ConsumerTruncationDetection,
    /// The controller keeps Eligible Leader Replicas and may elect one.
    EligibleLeaderReplicas,
    /// The leader adds a caught-up follower to the ISR only if its broker is
    /// neither fenced nor in controlled shutdown (KIP-841).
    IsrExpansionNeedsEligibleBroker,
    /// An ISR change is an AlterPartition request answered later (timed
    /// mode: a round trip); while an expansion waits, the leader counts the
    /// ISR with the member being added (the maximal ISR) for the HW and for
    /// acks=all.
    MaximalIsr,
    /// The producer's retry backoff doubles from `retry.backoff.ms` up to
    /// `retry.backoff.max.ms`, with 20% jitter.
    ExponentialRetryBackoff,
    /// A producer retry to a newer leader than the one it was sent to does
    /// not wait out its backoff.
    RetryAtOnceToNewLeader,
    /// KRaft quorum: a voter that granted its vote is in a state of its
    /// own, Voted (3.9 folds it into Unattached with a vote).
    QuorumVotedState,
    /// KRaft quorum: a leader that no majority of voters fetched from in
    /// 1.5 x `controller.quorum.fetch.timeout.ms` resigns (check-quorum).
    QuorumCheckQuorum,
    /// KRaft quorum: the leader sends BeginQuorumEpoch to every voter each
    /// `controller.quorum.fetch.timeout.ms` / 2 as a heartbeat (before, only
    /// to voters that had not acknowledged it).
    QuorumBeginEpochHeartbeat,
    /// KRaft quorum: before it runs for election a voter asks for pre-votes
    /// in its current epoch (Prospective), so a voter cut off cannot depose a
    /// healthy leader by raising the epoch.
    QuorumPreVote,
}

/// One row of the table.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RuleSource {
    pub rule: Rule,
    /// The first version preset that has it.
    pub since: Protocol,
    /// The first version preset that no longer has it.
    pub until: Option<Protocol>,
    /// The KIP or JIRA that brought it, and where it lives in Kafka's code.
    pub source: &'static str,
    pub code: &'static str,
    /// The Kafka release that brought it (the preset may be later).
    pub kafka_version: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
}

use Protocol::*;

/// Every rule that changed between versions, in the order of the versions
/// that brought them.
pub const RULES: &[RuleSource] = &[
    RuleSource {
        rule: Rule::TruncateToHighWatermark,
        since: V0_10,
        until: Some(V0_11),
        source: "KIP-101 (the bug it fixed)",
        code: "ReplicaManager.makeFollowers -> Log.truncateTo(highWatermark)",
        kafka_version: "0.8",
        summary: "a new follower truncates its log to its own high watermark",
    },
    RuleSource {
        rule: Rule::EpochBumpOnControllerIsrShrink,
        since: V0_10,
        until: Some(V3_5),
        source: "ZooKeeper controller",
        code: "KafkaController.removeReplicaFromIsr (leaderEpoch + 1)",
        kafka_version: "0.8",
        summary: "the controller bumps the leader epoch when it removes a dead replica from the ISR",
    },
    RuleSource {
        rule: Rule::OffsetsForLeaderEpoch,
        since: V0_11,
        until: Some(V2_8),
        source: "KIP-101",
        code: "ReplicaFetcherThread.maybeTruncate, LeaderEpochFileCache.endOffsetFor",
        kafka_version: "0.11",
        summary: "a new follower asks the leader where its latest epoch ends, and truncates there",
    },
    RuleSource {
        rule: Rule::EpochInOffsetsForLeaderEpoch,
        since: V2_0,
        until: None,
        source: "KIP-279",
        code: "AbstractFetcherThread.getOffsetTruncationState",
        kafka_version: "2.0",
        summary: "the answer names the largest epoch the leader has at or below the asked one; a follower without it truncates further and asks again",
    },
    RuleSource {
        rule: Rule::LeaderEpochFencing,
        since: V2_1,
        until: None,
        source: "KIP-320",
        code: "Partition.fetchRecords (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH)",
        kafka_version: "2.1",
        summary: "requests carry the current leader epoch; a leader refuses requests from another epoch",
    },
    RuleSource {
        rule: Rule::EpochCachedOnBecomingLeader,
        since: V2_1,
        until: None,
        source: "KAFKA-7415",
        code: "Partition.makeLeader -> LeaderEpochFileCache.assign",
        kafka_version: "2.1",
        summary: "a new leader records its epoch in the epoch cache at once, not at its first append",
    },
    RuleSource {
        rule: Rule::CaughtUpAtLogEnd,
        since: V2_1,
        until: None,
        source: "KAFKA-7152",
        code: "Replica.isCaughtUp / Partition.isFollowerOutOfSync",
        kafka_version: "2.1",
        summary: "a follower at the leader's log end is never out of sync, however long since it fetched",
    },
    RuleSource {
        rule: Rule::IsrExpansionNeedsEpochStart,
        since: V2_1,
        until: None,
        source: "KAFKA-7128",
        code: "Partition.isFollowerInSync (leaderEpochStartOffsetOpt)",
        kafka_version: "2.1",
        summary: "a follower rejoins the ISR only once it reaches the start of the leader's epoch",
    },
    RuleSource {
        rule: Rule::DivergingEpochInFetch,
        since: V2_8,
        until: None,
        source: "KIP-595 (Fetch v12, 2.7), KAFKA-10554 (2.8)",
        code: "Partition.fetchRecords (DivergingEpoch), AbstractFetcherThread.truncateOnFetchResponse",
        kafka_version: "2.8 (with inter.broker.protocol.version >= 2.7)",
        summary: "the leader answers a diverging fetch with DivergingEpoch; no separate truncation round",
    },
    RuleSource {
        rule: Rule::TruncateToLogEndTrimsEpochCache,
        since: V2_8,
        until: None,
        source: "KAFKA-10706",
        code: "UnifiedLog.truncateTo (Log.truncateTo before 3.0): leaderEpochCache.truncateFromEnd(logEndOffset)",
        kafka_version: "2.6.1 / 2.7.0 (in this table from the 2.8 preset, the first after 2.1)",
        summary: "a truncation at or past the log end still drops an epoch entry with no record at the log end",
    },
    RuleSource {
        rule: Rule::NoHighWatermarkFromDivergingResponse,
        since: V3_5,
        until: None,
        source: "KAFKA-14704",
        code: "AbstractFetcherThread.processFetchRequest",
        kafka_version: "3.5",
        summary: "a follower ignores the HW of a DivergingEpoch response and truncates first",
    },
    RuleSource {
        rule: Rule::KraftController,
        since: V3_5,
        until: None,
        source: "KIP-500, KIP-631",
        code: "ClusterControlManager.registerBroker, ReplicationControlManager",
        kafka_version: "3.3",
        summary: "KRaft: broker sessions of broker.session.timeout.ms; a leaderless partition is published to every broker",
    },
    RuleSource {
        rule: Rule::EpochBumpOnEveryIsrShrink,
        since: V3_5,
        until: Some(V3_7),
        source: "KIP-631 (KRaft controller); turned off by KAFKA-15021",
        code: "PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded",
        kafka_version: "3.0 (KRaft; off from metadata.version 3.6, KAFKA-15021)",
        summary: "every ISR shrink bumps the leader epoch",
    },
    RuleSource {
        rule: Rule::HighWatermarkFrozenUnderMinIsr,
        since: V3_7,
        until: None,
        source: "KAFKA-15583",
        code: "Partition.maybeIncrementLeaderHW (isUnderMinIsr)",
        kafka_version: "3.7",
        summary: "the leader does not advance the HW while the ISR is below min.insync.replicas",
    },
    RuleSource {
        rule: Rule::DeliveryTimeout,
        since: V2_1,
        until: None,
        source: "KIP-91",
        code: "RecordAccumulator.expiredBatches, Sender.canRetry",
        kafka_version: "2.1",
        summary: "the producer retries until delivery.timeout.ms after the send; before, a record waiting in the client expired after request.timeout.ms",
    },
    RuleSource {
        rule: Rule::ConsumerTruncationDetection,
        since: V2_8,
        until: None,
        source: "KIP-320 (client side)",
        code: "SubscriptionState.maybeCompleteValidation",
        kafka_version: "2.3",
        summary: "after a leader change the consumer validates its position and goes back to where the log diverged",
    },
    RuleSource {
        rule: Rule::EligibleLeaderReplicas,
        since: V4_1,
        until: None,
        source: "KIP-966",
        code: "PartitionChangeBuilder.maybePopulateTargetElr, electLeader",
        kafka_version: "4.0 (on by default for new clusters in 4.1)",
        summary: "replicas dropped from an ISR below min.insync.replicas stay eligible to lead (ELR)",
    },
    // KIP-497 shipped AlterIsr in 2.7.0 (`IsrState.maximalIsr`, absent at
    // 2.6.0); 2.8 is the first preset at or after it.
    RuleSource {
        rule: Rule::MaximalIsr,
        since: V2_8,
        until: None,
        source: "KIP-497",
        code: "AlterPartitionManager; Partition.maybeIncrementLeaderHW, checkEnoughReplicasReachOffset (PendingExpandIsr.maximalIsr)",
        kafka_version: "2.7",
        summary: "an ISR change is an AlterPartition request the controller answers later (in timed mode after a round trip over the leader's link); while an expansion waits, the leader already counts the new member for the HW and for acks=all (the maximal ISR). Before, the leader wrote the ISR to ZooKeeper itself in one step (cut from ZooKeeper, it appended nothing until the write landed)",
    },
    // KIP-841 shipped in 3.3.0 (KRaft); 3.5 is the first preset at or after it.
    RuleSource {
        rule: Rule::IsrExpansionNeedsEligibleBroker,
        since: V3_5,
        until: None,
        source: "KIP-841",
        code: "Partition.isReplicaIsrEligible (MetadataCache.isBrokerFenced, isBrokerShuttingDown)",
        kafka_version: "3.3",
        summary: "a caught-up follower on a fenced or shutting-down broker is not added back to the ISR",
    },
    RuleSource {
        rule: Rule::ExponentialRetryBackoff,
        since: V3_7,
        until: None,
        source: "KIP-580",
        code: "RecordAccumulator.shouldBackoff (ExponentialBackoff.backoff(attempts - 1))",
        kafka_version: "3.7",
        summary: "the producer's retry backoff doubles from retry.backoff.ms up to retry.backoff.max.ms (1000), with 20% jitter",
    },
    RuleSource {
        rule: Rule::RetryAtOnceToNewLeader,
        since: V3_7,
        until: None,
        source: "KIP-951",
        code: "RecordAccumulator.shouldBackoff (hasLeaderChanged), ProducerBatch.maybeUpdateLeaderEpoch",
        kafka_version: "3.7",
        summary: "a producer retry to a newer leader than the one the record was sent to goes at once, without its backoff",
    },
    RuleSource {
        rule: Rule::QuorumVotedState,
        since: V3_5,
        until: Some(V4_1),
        source: "KIP-595; folded into Unattached by KAFKA-17067",
        code: "VotedState (3.5 to 3.8), UnattachedState.votedKey (3.9)",
        kafka_version: "2.8 to 3.8",
        summary: "a controller that granted its vote is Voted, a state of its own",
    },
    RuleSource {
        rule: Rule::QuorumCheckQuorum,
        since: V3_7,
        until: None,
        source: "KAFKA-15489",
        code: "LeaderState.timeUntilCheckQuorumExpires, KafkaRaftClient.pollLeader",
        kafka_version: "3.7",
        summary: "a quorum leader no majority fetched from for 1.5 x controller.quorum.fetch.timeout.ms resigns",
    },
    RuleSource {
        rule: Rule::QuorumBeginEpochHeartbeat,
        since: V4_1,
        until: None,
        source: "KAFKA-16536",
        code: "KafkaRaftClient.maybeSendBeginQuorumEpochRequests, LeaderState.timeUntilBeginQuorumEpochTimerExpires",
        kafka_version: "3.9",
        summary: "the quorum leader sends BeginQuorumEpoch to every voter every controller.quorum.fetch.timeout.ms / 2",
    },
    RuleSource {
        rule: Rule::QuorumPreVote,
        since: V4_1,
        until: None,
        source: "KIP-996",
        code: "ProspectiveState, KafkaRaftClient.pollProspective, FollowerState.canGrantVote",
        kafka_version: "4.0",
        summary: "a controller asks for pre-votes in its own epoch before it runs for election",
    },
];

/// The set of rules in force for one version preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub protocol: Protocol,
    bits: u32,
}

impl Rules {
    pub fn of(protocol: Protocol) -> Rules {
        let bits = RULES
            .iter()
            .filter(|r| r.since <= protocol && r.until.is_none_or(|u| protocol < u))
            .fold(0u32, |bits, r| bits | 1 << r.rule as u32);
        Rules { protocol, bits }
    }

    pub fn has(&self, rule: Rule) -> bool {
        self.bits & (1 << rule as u32) != 0
    }

    /// The rows of the table in force, in table order.
    pub fn in_force(&self) -> impl Iterator<Item = &'static RuleSource> + '_ {
        RULES.iter().filter(|r| self.has(r.rule))
    }

    /// How the version detects where a follower's log diverges.
    pub fn truncation(&self) -> TruncationRule {
        if self.has(Rule::DivergingEpochInFetch) {
            TruncationRule::DivergingEpochInFetch
        } else if self.has(Rule::OffsetsForLeaderEpoch) {
            TruncationRule::OffsetsForLeaderEpoch
        } else {
            TruncationRule::HighWatermark
        }
    }
}

/// One version preset as the page and the docs show it: its name and
/// aliases, its defaults, the rules in force, and what changed at it.
#[derive(Clone, Debug, Serialize)]
pub struct VersionInfo {
    pub name: &'static str,
    pub aliases: Vec<&'static str>,
    pub defaults: VersionDefaults,
    /// Whether `enable.idempotence` exists (KIP-98, 0.11 on).
    pub idempotent_producer: bool,
    /// The rules in force, in table order.
    pub rules: Vec<Rule>,
    /// Rules this version brought, and rules it retired, against the previous preset.
    pub introduced: Vec<Rule>,
    pub retired: Vec<Rule>,
}

/// Every preset, oldest first, with the table of rules (`RULES`).
#[derive(Clone, Debug, Serialize)]
pub struct Catalogue {
    pub versions: Vec<VersionInfo>,
    pub rules: &'static [RuleSource],
}

pub fn catalogue() -> Catalogue {
    let mut versions = vec![];
    let mut previous: Option<Rules> = None;
    for p in Protocol::ALL {
        let rules = p.rules();
        let ids: Vec<Rule> = rules.in_force().map(|r| r.rule).collect();
        let (introduced, retired) = match previous {
            None => (ids.clone(), vec![]),
            Some(prev) => (
                RULES.iter().map(|r| r.rule).filter(|&r| rules.has(r) && !prev.has(r)).collect(),
                RULES.iter().map(|r| r.rule).filter(|&r| !rules.has(r) && prev.has(r)).collect(),
            ),
        };
        versions.push(VersionInfo {
            name: p.name(),
            aliases: Protocol::ALIASES.iter().filter(|(_, q)| *q == p).map(|(a, _)| *a).collect(),
            defaults: p.defaults(),
            idempotent_producer: p.has_idempotent_producer(),
            rules: ids,
            introduced,
            retired,
        });
        previous = Some(rules);
    }
    Catalogue { versions, rules: RULES }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TruncationRule {
    HighWatermark,
    OffsetsForLeaderEpoch,
    DivergingEpochInFetch,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_round_trip() {
        for p in Protocol::ALL {
            assert_eq!(Protocol::parse(p.name()), Some(p));
        }
        assert_eq!(Protocol::parse("legacy"), Some(V0_10));
        assert_eq!(Protocol::parse("kip101"), Some(V0_11));
        assert_eq!(Protocol::parse("modern"), Some(V3_7));
        assert_eq!(Protocol::parse("2.7"), Some(V2_8), "the 2.8 preset's old name");
        assert_eq!(Protocol::parse_version("2.7"), Some(V2_8));
        assert_eq!(Protocol::parse_version("legacy"), None);
        assert_eq!(V2_8.name(), "2.8");
        assert_eq!(Protocol::parse("3.6"), None);
    }

    #[test]
    fn every_rule_is_in_the_table_once() {
        let mut seen: Vec<Rule> = RULES.iter().map(|r| r.rule).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), RULES.len());
        for r in RULES {
            assert!(r.until.is_none_or(|u| r.since < u), "{:?} ends before it starts", r.rule);
        }
    }

    #[test]
    fn one_truncation_rule_per_version() {
        use TruncationRule::*;
        let t = |p: Protocol| p.rules().truncation();
        assert_eq!(t(V0_10), HighWatermark);
        assert_eq!(t(V0_11), OffsetsForLeaderEpoch);
        assert_eq!(t(V2_1), OffsetsForLeaderEpoch);
        assert_eq!(t(V2_8), DivergingEpochInFetch);
        assert!(!V0_10.rules().has(Rule::OffsetsForLeaderEpoch));
        assert!(V3_5.rules().has(Rule::EpochBumpOnEveryIsrShrink) && !V3_7.rules().has(Rule::EpochBumpOnEveryIsrShrink));
        assert!(V4_1.rules().has(Rule::EligibleLeaderReplicas) && !V3_7.rules().has(Rule::EligibleLeaderReplicas));
    }
}
