//! Partition and cluster settings, with Kafka's defaults, and the limits on
//! everything a scenario file or a share link can ask for.

use serde::{Deserialize, Serialize};

pub type BrokerId = u32;

/// One value per broker (index `id - 1`), stored inline: cloning a state for a
/// snapshot or a search branch then allocates nothing for it.
pub type PerBroker<T> = arrayvec::ArrayVec<T, { limits::MAX_BROKERS as usize }>;

/// A set of broker ids in id order (an ISR), stored inline.
pub type BrokerList = PerBroker<BrokerId>;

/// Which era of Kafka's replication protocol the model follows
/// (reference §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Kafka 0.10: truncate to the own high watermark, no leader epochs in
    /// truncation, no fencing.
    Legacy,
    /// Kafka 0.11 - 1.1: OffsetsForLeaderEpoch before fetching (KIP-101).
    Kip101,
    /// Kafka 2.7 - 3.x: DivergingEpoch inside Fetch (KIP-279 semantics),
    /// epoch fencing (KIP-320), HW frozen under min ISR (KAFKA-15583).
    Modern,
}

impl Protocol {
    pub const ALL: [Protocol; 3] = [Protocol::Legacy, Protocol::Kip101, Protocol::Modern];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::Legacy => "legacy",
            Protocol::Kip101 => "kip101",
            Protocol::Modern => "modern",
        }
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The `config` object of a scenario. Defaults are Kafka's.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Replicas of the partition, broker ids `1..=brokers`, assignment order = id order.
    pub brokers: u32,
    pub protocol: Protocol,
    /// `min.insync.replicas` (default 1).
    pub min_insync_replicas: u32,
    /// `unclean.leader.election.enable` (default false).
    pub unclean_leader_election: bool,
    /// `replica.lag.time.max.ms` (default 30000 since Kafka 2.5).
    pub replica_lag_time_max_ms: u64,
    /// `broker.session.timeout.ms` (default 9000, KRaft).
    pub broker_session_timeout_ms: u64,
    /// `replica.high.watermark.checkpoint.interval.ms` (default 5000).
    pub hw_checkpoint_interval_ms: u64,
    /// `request.timeout.ms` of the producer and of replica fetches (default 30000).
    pub request_timeout_ms: u64,
    /// Followers fetch on their own every `fetch_interval_ms`, messages take
    /// their link's latency.
    pub auto_fetch: bool,
    pub fetch_interval_ms: u64,
    /// Latency of every link unless a `delay` step changes a broker's.
    pub link_latency_ms: u64,
    /// Seeds the one PRNG of the run (fetcher phases in timed mode).
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            brokers: 3,
            protocol: Protocol::Modern,
            min_insync_replicas: 1,
            unclean_leader_election: false,
            replica_lag_time_max_ms: 30_000,
            broker_session_timeout_ms: 9_000,
            hw_checkpoint_interval_ms: 5_000,
            request_timeout_ms: 30_000,
            auto_fetch: false,
            fetch_interval_ms: 500,
            link_latency_ms: 5,
            seed: 1,
        }
    }
}

/// Limits on what a scenario or a link may ask for. Each is checked when a
/// scenario is read and when a step is applied, and named in the error.
pub mod limits {
    pub const MAX_BROKERS: u32 = 7;
    pub const MAX_STEPS: usize = 10_000;
    /// Bytes of one produced value.
    pub const MAX_VALUE_BYTES: usize = 1_024;
    /// Simulated time of one whole scenario (one hour).
    pub const MAX_SIMULATED_MS: u64 = 3_600_000;
    /// Records produced by one scenario (bounds every log).
    pub const MAX_LOG_RECORDS: usize = MAX_STEPS;
    /// Size of a scenario file or of decoded link text.
    pub const MAX_SCENARIO_BYTES: usize = 1 << 20;
    /// Characters of a share link's scenario part.
    pub const MAX_LINK_CHARS: usize = 200_000;
    /// Any duration setting (lag time, timeouts, intervals, latency).
    pub const MAX_DURATION_MS: u64 = MAX_SIMULATED_MS;
    /// Timed mode: fetches at most every 10 ms keep a run's event count bounded.
    pub const MIN_FETCH_INTERVAL_MS: u64 = 10;
    /// Seeds stay exact in JavaScript numbers.
    pub const MAX_SEED: u64 = (1 << 53) - 1;
    pub const MAX_NAME_CHARS: usize = 200;
    pub const MAX_DESCRIPTION_CHARS: usize = 4_000;
    /// Records one fetch response carries (a stand-in for `replica.fetch.max.bytes`).
    pub const MAX_FETCH_RECORDS: usize = 1_000;
}

impl Config {
    /// Checks every setting; the error names the field and the problem.
    pub fn validate(&self) -> Result<(), String> {
        use limits::*;
        let c = self;
        if c.brokers < 1 || c.brokers > MAX_BROKERS {
            return Err(format!("config.brokers: {} is out of range 1..={MAX_BROKERS}", c.brokers));
        }
        if c.min_insync_replicas < 1 || c.min_insync_replicas > c.brokers {
            return Err(format!(
                "config.min_insync_replicas: {} must be between 1 and brokers ({})",
                c.min_insync_replicas, c.brokers
            ));
        }
        let durations = [
            ("replica_lag_time_max_ms", c.replica_lag_time_max_ms, 2),
            ("broker_session_timeout_ms", c.broker_session_timeout_ms, 1),
            ("hw_checkpoint_interval_ms", c.hw_checkpoint_interval_ms, 1),
            ("request_timeout_ms", c.request_timeout_ms, 1),
            ("fetch_interval_ms", c.fetch_interval_ms, MIN_FETCH_INTERVAL_MS),
            ("link_latency_ms", c.link_latency_ms, 0),
        ];
        for (name, value, min) in durations {
            if value < min || value > MAX_DURATION_MS {
                return Err(format!("config.{name}: {value} is out of range {min}..={MAX_DURATION_MS}"));
            }
        }
        if c.seed > MAX_SEED {
            return Err(format!("config.seed: {} is larger than {MAX_SEED} (2^53 - 1)", c.seed));
        }
        Ok(())
    }

    pub fn broker_ids(&self) -> impl Iterator<Item = BrokerId> {
        1..=self.brokers
    }
}
