//! Partition and cluster settings, with Kafka's defaults, and the limits on
//! everything a scenario file or a share link can ask for.

use crate::model::rules::Rules;
pub use crate::model::rules::Protocol;
use serde::{Deserialize, Deserializer, Serialize};
use std::sync::Arc;

pub type BrokerId = u32;

/// What a core built without the `quorum` feature (the page's first core,
/// `www/pkg`) says of a scenario with controllers; the page knows these
/// words, and loads the core that has the quorum (`www/pkg-quorum`).
pub const NO_QUORUM_IN_CORE: &str = "this core is built without the controller quorum";

/// Whether this build has the controller quorum's engine (the `quorum`
/// feature; `quorum/slot.rs`).
pub const QUORUM_BUILT: bool = cfg!(feature = "quorum");

/// A controller of the KRaft quorum, numbered `1..=controllers` apart from
/// the brokers (`controller.quorum.voters`).
pub type ControllerId = u32;

/// A partition of the topic, numbered from 0 as Kafka numbers them.
pub type PartitionId = u32;

pub use crate::model::per_broker::PerBroker;

/// A set of broker ids in id order (an ISR), stored inline.
pub type BrokerList = PerBroker<BrokerId>;

/// The `config` object of a scenario. Defaults are Kafka's, those of the
/// chosen version preset (`protocol`) where they changed over time.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Config {
    /// The cluster's brokers, ids `1..=brokers`.
    pub brokers: u32,
    /// The topic's partitions (1 to `MAX_PARTITIONS`), ids `0..partitions`.
    #[serde(skip_serializing_if = "is_one")]
    pub partitions: u32,
    /// Replicas of each partition; none written: `brokers` for a topic of
    /// one partition (every broker holds it, as this model always had), else
    /// `min(3, brokers)`, as production topics are created (Kafka's own
    /// `default.replication.factor` is 1). See `replication_factor()`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replication_factor: Option<u32>,
    /// Each broker's rack (`broker.rack`), `racks[0]` for broker 1; none
    /// written: no racks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub racks: Option<Arc<[Arc<str>]>>,
    /// Each partition's replicas, the preferred leader first: overrides
    /// placement (`kafka-topics.sh --replica-assignment`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assignment: Option<Arc<[Vec<BrokerId>]>>,
    /// `auto.leader.rebalance.enable` (default true).
    #[serde(skip_serializing_if = "is_true")]
    pub auto_leader_rebalance: bool,
    /// `leader.imbalance.per.broker.percentage` (default 10; the ZooKeeper
    /// controller's threshold, which KRaft's ignores).
    #[serde(skip_serializing_if = "is_ten")]
    pub leader_imbalance_per_broker_percentage: u32,
    /// `leader.imbalance.check.interval.seconds`, in ms (default 300000).
    #[serde(skip_serializing_if = "is_default_imbalance_interval")]
    pub leader_imbalance_check_interval_ms: u64,
    /// The Kafka version preset whose rules and defaults apply (`rules.rs`).
    pub protocol: Protocol,
    /// `min.insync.replicas` (default 1).
    pub min_insync_replicas: u32,
    /// `unclean.leader.election.enable` (true in 0.10, false since 0.11, KIP-106).
    pub unclean_leader_election: bool,
    /// `replica.lag.time.max.ms` (10000; 30000 since 2.5, KIP-537).
    pub replica_lag_time_max_ms: u64,
    /// How long the controller waits for a silent broker: ZooKeeper's
    /// `zookeeper.session.timeout.ms` (6000; 18000 since 2.5), KRaft's
    /// `broker.session.timeout.ms` (9000).
    pub broker_session_timeout_ms: u64,
    /// `replica.high.watermark.checkpoint.interval.ms` (default 5000).
    pub hw_checkpoint_interval_ms: u64,
    /// `request.timeout.ms` of the producer and of replica fetches (default 30000).
    pub request_timeout_ms: u64,
    /// Timed mode: followers fetch on their own, messages take their link's
    /// latency.
    pub auto_fetch: bool,
    /// `replica.fetch.wait.max.ms` (default 500): how long a leader holds a
    /// follower's fetch that finds nothing new (long polling). Older files
    /// name it `fetch_interval_ms`.
    pub replica_fetch_wait_max_ms: u64,
    /// `replica.fetch.backoff.ms` (default 1000): a follower's pause after a
    /// fetch that failed.
    pub replica_fetch_backoff_ms: u64,
    /// Latency of every link unless a `delay` step changes a broker's.
    pub link_latency_ms: u64,
    /// Seeds the one PRNG of the run (fetcher phases in timed mode).
    pub seed: u64,
    /// The consumer's `auto.offset.reset` (default "latest").
    pub auto_offset_reset: OffsetReset,
    /// The producer's `enable.idempotence` (true since 3.0, KIP-679).
    pub enable_idempotence: bool,
    /// The producer's `retries`: 0 before 2.1, then 2147483647 (KIP-91).
    pub retries: u32,
    /// The producer's `delivery.timeout.ms` (120000, KIP-91).
    pub delivery_timeout_ms: u64,
    /// The producer's `retry.backoff.ms` (100).
    pub retry_backoff_ms: u64,
    /// The producer's `retry.backoff.max.ms` (1000, KIP-580): from 3.7 the
    /// backoff doubles from `retry_backoff_ms` up to this, with jitter.
    pub retry_backoff_max_ms: u64,
    /// The producer's `max.in.flight.requests.per.connection` (5): requests
    /// sent and not yet answered, at most 5 with idempotence
    /// (`ProducerConfig`, KAFKA-5494 from 1.0).
    pub max_in_flight_requests_per_connection: u32,
    /// The voters of the KRaft controller quorum (`controller.quorum.voters`):
    /// 0 (the default) for the instant controller, else 1, 3 or 5, under
    /// the KRaft presets only.
    #[serde(skip_serializing_if = "is_zero")]
    pub controllers: u32,
    /// `controller.quorum.election.timeout.ms` (1000): a voter's election
    /// timer is drawn from [this, twice this).
    #[serde(skip_serializing_if = "is_default_election_timeout")]
    pub controller_quorum_election_timeout_ms: u64,
    /// `controller.quorum.fetch.timeout.ms` (2000): a follower that hears
    /// nothing from its leader for this long starts an election.
    #[serde(skip_serializing_if = "is_default_quorum_fetch_timeout")]
    pub controller_quorum_fetch_timeout_ms: u64,
    /// `broker.heartbeat.interval.ms` (2000): how often a broker heartbeats
    /// to the active controller.
    #[serde(skip_serializing_if = "is_default_heartbeat_interval")]
    pub broker_heartbeat_interval_ms: u64,
}

/// The consumer's `auto.offset.reset`: where it goes when its position is
/// not valid (out of range, or truncation detected with no answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OffsetReset {
    /// To the end: for a read_uncommitted consumer, the high watermark.
    #[default]
    Latest,
    /// To the log start.
    Earliest,
    /// No reset: the application gets an error (OffsetOutOfRangeException,
    /// LogTruncationException).
    None,
}

impl OffsetReset {
    pub fn name(self) -> &'static str {
        match self {
            OffsetReset::Latest => "latest",
            OffsetReset::Earliest => "earliest",
            OffsetReset::None => "none",
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::for_protocol(Protocol::V3_7)
    }
}

impl Config {
    /// Every setting at its default for `protocol`.
    pub fn for_protocol(protocol: Protocol) -> Config {
        let d = protocol.defaults();
        Config {
            brokers: 3,
            partitions: 1,
            replication_factor: None,
            racks: None,
            assignment: None,
            auto_leader_rebalance: true,
            leader_imbalance_per_broker_percentage: 10,
            leader_imbalance_check_interval_ms: DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS,
            protocol,
            min_insync_replicas: 1,
            unclean_leader_election: d.unclean_leader_election,
            replica_lag_time_max_ms: d.replica_lag_time_max_ms,
            broker_session_timeout_ms: d.broker_session_timeout_ms,
            hw_checkpoint_interval_ms: 5_000,
            request_timeout_ms: 30_000,
            auto_fetch: false,
            replica_fetch_wait_max_ms: 500,
            replica_fetch_backoff_ms: 1_000,
            link_latency_ms: 5,
            seed: 1,
            auto_offset_reset: OffsetReset::Latest,
            enable_idempotence: d.enable_idempotence,
            retries: d.retries,
            delivery_timeout_ms: 120_000,
            retry_backoff_ms: 100,
            retry_backoff_max_ms: 1_000,
            max_in_flight_requests_per_connection: 5,
            controllers: 0,
            controller_quorum_election_timeout_ms: DEFAULT_ELECTION_TIMEOUT_MS,
            controller_quorum_fetch_timeout_ms: DEFAULT_QUORUM_FETCH_TIMEOUT_MS,
            broker_heartbeat_interval_ms: DEFAULT_HEARTBEAT_INTERVAL_MS,
        }
    }

    /// The same settings under another version: a setting left at the old
    /// version's default takes the new version's default; one set to
    /// something else keeps its value.
    pub fn with_protocol(&self, protocol: Protocol) -> Config {
        let (old, new) = (Config::for_protocol(self.protocol), Config::for_protocol(protocol));
        let mut c = self.clone();
        c.protocol = protocol;
        if c.unclean_leader_election == old.unclean_leader_election {
            c.unclean_leader_election = new.unclean_leader_election;
        }
        if c.replica_lag_time_max_ms == old.replica_lag_time_max_ms {
            c.replica_lag_time_max_ms = new.replica_lag_time_max_ms;
        }
        if c.broker_session_timeout_ms == old.broker_session_timeout_ms {
            c.broker_session_timeout_ms = new.broker_session_timeout_ms;
        }
        if c.enable_idempotence == old.enable_idempotence {
            c.enable_idempotence = new.enable_idempotence;
        }
        // 0.10's client has no idempotent producer (KIP-98 came in 0.11).
        if !protocol.has_idempotent_producer() {
            c.enable_idempotence = false;
        }
        if c.max_in_flight_requests_per_connection == default_in_flight(self.protocol, self.enable_idempotence) {
            c.max_in_flight_requests_per_connection = default_in_flight(protocol, c.enable_idempotence);
        }
        if c.retries == old.retries {
            c.retries = new.retries;
        }
        // The ZooKeeper era has no controller quorum.
        if !protocol.has_kraft() {
            c.controllers = 0;
        }
        c
    }

    /// The same settings with `enable.idempotence` set: an in-flight limit
    /// left at its default takes the default for the new setting (1 for an
    /// idempotent producer under 0.11, `KafkaProducer.configureInflightRequests`).
    pub fn with_idempotence(&self, value: bool) -> Config {
        let mut c = self.clone();
        c.enable_idempotence = value;
        if c.max_in_flight_requests_per_connection == default_in_flight(self.protocol, self.enable_idempotence) {
            c.max_in_flight_requests_per_connection = default_in_flight(self.protocol, value);
        }
        c
    }

    pub fn rules(&self) -> Rules {
        self.protocol.rules()
    }
}

/// `leader.imbalance.check.interval.seconds`' default, 300 s.
pub const DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS: u64 = 300_000;

/// `controller.quorum.election.timeout.ms`, `controller.quorum.fetch.timeout.ms`
/// and `broker.heartbeat.interval.ms` by default (`QuorumConfig`, `KRaftConfigs`).
pub const DEFAULT_ELECTION_TIMEOUT_MS: u64 = 1_000;
pub const DEFAULT_QUORUM_FETCH_TIMEOUT_MS: u64 = 2_000;
pub const DEFAULT_HEARTBEAT_INTERVAL_MS: u64 = 2_000;

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_default_election_timeout(ms: &u64) -> bool {
    *ms == DEFAULT_ELECTION_TIMEOUT_MS
}

fn is_default_quorum_fetch_timeout(ms: &u64) -> bool {
    *ms == DEFAULT_QUORUM_FETCH_TIMEOUT_MS
}

fn is_default_heartbeat_interval(ms: &u64) -> bool {
    *ms == DEFAULT_HEARTBEAT_INTERVAL_MS
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_ten(n: &u32) -> bool {
    *n == 10
}

fn is_default_imbalance_interval(ms: &u64) -> bool {
    *ms == DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS
}

/// `max.in.flight.requests.per.connection` when not written: 5, or 1 for an
/// idempotent producer under 0.11, whose client lowers the default to 1
/// (`KafkaProducer.configureInflightRequests` at 0.11.0.0).
fn default_in_flight(protocol: Protocol, enable_idempotence: bool) -> u32 {
    let d = Config::for_protocol(protocol).max_in_flight_requests_per_connection;
    if enable_idempotence { d.min(protocol.idempotent_max_in_flight()) } else { d }
}

/// What a file may write: any subset of the settings.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFields {
    brokers: Option<u32>,
    partitions: Option<u32>,
    replication_factor: Option<u32>,
    racks: Option<Arc<[Arc<str>]>>,
    assignment: Option<Arc<[Vec<BrokerId>]>>,
    auto_leader_rebalance: Option<bool>,
    leader_imbalance_per_broker_percentage: Option<u32>,
    leader_imbalance_check_interval_ms: Option<u64>,
    protocol: Option<Protocol>,
    min_insync_replicas: Option<u32>,
    unclean_leader_election: Option<bool>,
    replica_lag_time_max_ms: Option<u64>,
    broker_session_timeout_ms: Option<u64>,
    hw_checkpoint_interval_ms: Option<u64>,
    request_timeout_ms: Option<u64>,
    auto_fetch: Option<bool>,
    #[serde(alias = "fetch_interval_ms")]
    replica_fetch_wait_max_ms: Option<u64>,
    replica_fetch_backoff_ms: Option<u64>,
    link_latency_ms: Option<u64>,
    seed: Option<u64>,
    auto_offset_reset: Option<OffsetReset>,
    enable_idempotence: Option<bool>,
    retries: Option<u32>,
    delivery_timeout_ms: Option<u64>,
    retry_backoff_ms: Option<u64>,
    retry_backoff_max_ms: Option<u64>,
    max_in_flight_requests_per_connection: Option<u32>,
    controllers: Option<u32>,
    controller_quorum_election_timeout_ms: Option<u64>,
    controller_quorum_fetch_timeout_ms: Option<u64>,
    broker_heartbeat_interval_ms: Option<u64>,
}

impl<'de> Deserialize<'de> for Config {
    /// Settings not written take the defaults of the version preset written
    /// (or of the default preset).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let f = ConfigFields::deserialize(d)?;
        let c = Config::for_protocol(f.protocol.unwrap_or(Protocol::V3_7));
        // Not written and more requests in flight than idempotence allows:
        // the client turns idempotence off (`postProcessAndValidateIdempotenceConfigs`, 3.x).
        let enable_idempotence = f.enable_idempotence.unwrap_or(
            c.enable_idempotence
                && f.max_in_flight_requests_per_connection.is_none_or(|n| n <= c.protocol.idempotent_max_in_flight()),
        );
        Ok(Config {
            brokers: f.brokers.unwrap_or(c.brokers),
            partitions: f.partitions.unwrap_or(c.partitions),
            replication_factor: f.replication_factor,
            racks: f.racks,
            assignment: f.assignment,
            auto_leader_rebalance: f.auto_leader_rebalance.unwrap_or(c.auto_leader_rebalance),
            leader_imbalance_per_broker_percentage: f.leader_imbalance_per_broker_percentage.unwrap_or(c.leader_imbalance_per_broker_percentage),
            leader_imbalance_check_interval_ms: f.leader_imbalance_check_interval_ms.unwrap_or(c.leader_imbalance_check_interval_ms),
            protocol: c.protocol,
            min_insync_replicas: f.min_insync_replicas.unwrap_or(c.min_insync_replicas),
            unclean_leader_election: f.unclean_leader_election.unwrap_or(c.unclean_leader_election),
            replica_lag_time_max_ms: f.replica_lag_time_max_ms.unwrap_or(c.replica_lag_time_max_ms),
            broker_session_timeout_ms: f.broker_session_timeout_ms.unwrap_or(c.broker_session_timeout_ms),
            hw_checkpoint_interval_ms: f.hw_checkpoint_interval_ms.unwrap_or(c.hw_checkpoint_interval_ms),
            request_timeout_ms: f.request_timeout_ms.unwrap_or(c.request_timeout_ms),
            auto_fetch: f.auto_fetch.unwrap_or(c.auto_fetch),
            replica_fetch_wait_max_ms: f.replica_fetch_wait_max_ms.unwrap_or(c.replica_fetch_wait_max_ms),
            replica_fetch_backoff_ms: f.replica_fetch_backoff_ms.unwrap_or(c.replica_fetch_backoff_ms),
            link_latency_ms: f.link_latency_ms.unwrap_or(c.link_latency_ms),
            seed: f.seed.unwrap_or(c.seed),
            auto_offset_reset: f.auto_offset_reset.unwrap_or(c.auto_offset_reset),
            enable_idempotence,
            retries: f.retries.unwrap_or(c.retries),
            delivery_timeout_ms: f.delivery_timeout_ms.unwrap_or(c.delivery_timeout_ms),
            retry_backoff_ms: f.retry_backoff_ms.unwrap_or(c.retry_backoff_ms),
            retry_backoff_max_ms: f.retry_backoff_max_ms.unwrap_or(c.retry_backoff_max_ms),
            max_in_flight_requests_per_connection: f
                .max_in_flight_requests_per_connection
                .unwrap_or(default_in_flight(c.protocol, enable_idempotence)),
            controllers: f.controllers.unwrap_or(c.controllers),
            controller_quorum_election_timeout_ms: f.controller_quorum_election_timeout_ms.unwrap_or(c.controller_quorum_election_timeout_ms),
            controller_quorum_fetch_timeout_ms: f.controller_quorum_fetch_timeout_ms.unwrap_or(c.controller_quorum_fetch_timeout_ms),
            broker_heartbeat_interval_ms: f.broker_heartbeat_interval_ms.unwrap_or(c.broker_heartbeat_interval_ms),
        })
    }
}

/// Limits on what a scenario or a link may ask for (`limits.rs`).
pub use crate::model::limits;

/// A budget on the work of a run (`limits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    EventsPerStep,
    EventsPerRun,
    MessagesInFlight,
    WorkPerStep,
    WorkPerRun,
}

impl Budget {
    /// The limit's name in `limits`, as messages print it.
    pub fn limit_name(self) -> &'static str {
        match self {
            Budget::EventsPerStep => "MAX_EVENTS_PER_STEP",
            Budget::EventsPerRun => "MAX_EVENTS_PER_RUN",
            Budget::MessagesInFlight => "MAX_MESSAGES_IN_FLIGHT",
            Budget::WorkPerStep => "MAX_WORK_PER_STEP",
            Budget::WorkPerRun => "MAX_WORK_PER_RUN",
        }
    }

    /// What went past the budget of `limit`, in words.
    pub fn describe(self, limit: u64) -> String {
        let n = crate::base::text::thousands(limit);
        match self {
            Budget::EventsPerStep => format!("this step caused more than {n} events"),
            Budget::EventsPerRun => format!("the run caused more than {n} events"),
            Budget::MessagesInFlight => format!("more than {n} messages were in flight at once"),
            Budget::WorkPerStep => format!("this step ran more than {n} timer firings and producer retries"),
            Budget::WorkPerRun => format!("the run ran more than {n} timer firings and producer retries"),
        }
    }
}

/// The budgets a simulation runs under: `limits`' values, lowered only by
/// tests that need to reach one quickly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budgets {
    pub events_per_step: u64,
    pub events_per_run: u64,
    pub messages_in_flight: u64,
    pub work_per_step: u64,
    pub work_per_run: u64,
    /// Bytes of the snapshots a timeline keeps (`MAX_TIMELINE_SNAPSHOT_BYTES`).
    pub timeline_snapshot_bytes: usize,
}

impl Budgets {
    pub fn limit(&self, budget: Budget) -> u64 {
        match budget {
            Budget::EventsPerStep => self.events_per_step,
            Budget::EventsPerRun => self.events_per_run,
            Budget::MessagesInFlight => self.messages_in_flight,
            Budget::WorkPerStep => self.work_per_step,
            Budget::WorkPerRun => self.work_per_run,
        }
    }
}

impl Default for Budgets {
    fn default() -> Budgets {
        Budgets {
            events_per_step: limits::MAX_EVENTS_PER_STEP,
            events_per_run: limits::MAX_EVENTS_PER_RUN,
            messages_in_flight: limits::MAX_MESSAGES_IN_FLIGHT,
            work_per_step: limits::MAX_WORK_PER_STEP,
            work_per_run: limits::MAX_WORK_PER_RUN,
            timeline_snapshot_bytes: limits::MAX_TIMELINE_SNAPSHOT_BYTES,
        }
    }
}

impl Config {
    /// Checks every setting; the error names the field and the problem.
    pub fn validate(&self) -> Result<(), String> {
        use limits::*;
        let c = self;
        if c.brokers < 1 || c.brokers > MAX_BROKERS {
            return Err(format!("config.brokers: {} is out of range 1..={MAX_BROKERS}", c.brokers));
        }
        c.validate_topic()?;
        if c.min_insync_replicas < 1 || c.min_insync_replicas > c.brokers {
            return Err(format!(
                "config.min_insync_replicas: {} must be between 1 and brokers ({})",
                c.min_insync_replicas, c.brokers
            ));
        }
        let durations = [
            ("leader_imbalance_check_interval_ms", c.leader_imbalance_check_interval_ms, 1),
            ("replica_lag_time_max_ms", c.replica_lag_time_max_ms, 2),
            ("broker_session_timeout_ms", c.broker_session_timeout_ms, 1),
            ("hw_checkpoint_interval_ms", c.hw_checkpoint_interval_ms, 1),
            ("request_timeout_ms", c.request_timeout_ms, 1),
            ("replica_fetch_wait_max_ms", c.replica_fetch_wait_max_ms, MIN_FETCH_WAIT_MS),
            ("replica_fetch_backoff_ms", c.replica_fetch_backoff_ms, MIN_FETCH_WAIT_MS),
            ("link_latency_ms", c.link_latency_ms, 0),
            ("delivery_timeout_ms", c.delivery_timeout_ms, 1),
            ("retry_backoff_ms", c.retry_backoff_ms, 1),
            ("retry_backoff_max_ms", c.retry_backoff_max_ms, 1),
            ("controller_quorum_election_timeout_ms", c.controller_quorum_election_timeout_ms, 1),
            ("controller_quorum_fetch_timeout_ms", c.controller_quorum_fetch_timeout_ms, 1),
            ("broker_heartbeat_interval_ms", c.broker_heartbeat_interval_ms, 1),
        ];
        for (name, value, min) in durations {
            if value < min || value > MAX_DURATION_MS {
                return Err(format!("config.{name}: {value} is out of range {min}..={MAX_DURATION_MS}"));
            }
        }
        if c.retries > MAX_RETRIES {
            return Err(format!("config.retries: {} is larger than Kafka's largest, {MAX_RETRIES}", c.retries));
        }
        let in_flight = c.max_in_flight_requests_per_connection;
        if !(1..=MAX_IN_FLIGHT).contains(&in_flight) {
            return Err(format!("config.max_in_flight_requests_per_connection: {in_flight} is out of range 1..={MAX_IN_FLIGHT}"));
        }
        // The idempotent producer is KIP-98's, first in 0.11: 0.10's client
        // has no `enable.idempotence`.
        if c.enable_idempotence && !c.protocol.has_idempotent_producer() {
            return Err(format!("config.enable_idempotence: the idempotent producer came in 0.11 (KIP-98); {} has none", c.protocol));
        }
        // `KafkaProducer.configureInflightRequests` (0.11 - 2.x), then
        // `ProducerConfig.postProcessAndValidateIdempotenceConfigs`: idempotence
        // keeps the order of at most 5 requests in flight (1 in 0.11).
        let idempotent_limit = c.protocol.idempotent_max_in_flight();
        if c.enable_idempotence && in_flight > idempotent_limit {
            return Err(format!(
                "config.max_in_flight_requests_per_connection: {in_flight} is more than {idempotent_limit}, the most enable_idempotence allows in {}",
                c.protocol
            ));
        }
        // `controller.quorum.voters`: an odd count, so that a majority is a
        // clear one; the ZooKeeper era has no quorum of controllers.
        if ![0, 1, 3, 5].contains(&c.controllers) {
            return Err(format!("config.controllers: {} is not 0, 1, 3 or 5", c.controllers));
        }
        if c.controllers > 0 && !c.protocol.has_kraft() {
            return Err(format!("config.controllers: {} is a ZooKeeper-era preset, which has no controller quorum (KRaft presets: 3.5 on)", c.protocol));
        }
        if c.controllers > 0 && !QUORUM_BUILT {
            // The page's first core (www/pkg): the page loads www/pkg-quorum for such a scenario.
            return Err(format!("config.controllers: {NO_QUORUM_IN_CORE}"));
        }
        if c.seed > MAX_SEED {
            return Err(format!("config.seed: {} is larger than {MAX_SEED} (2^53 - 1)", c.seed));
        }
        Ok(())
    }

    pub fn broker_ids(&self) -> impl Iterator<Item = BrokerId> {
        1..=self.brokers
    }

    pub fn controller_ids(&self) -> std::ops::RangeInclusive<ControllerId> {
        1..=self.controllers
    }

    pub fn partition_ids(&self) -> std::ops::Range<PartitionId> {
        0..self.partitions
    }

    /// Replicas of each partition: as written, the assignment's, or the
    /// default (`brokers` for one partition, else `min(3, brokers)`).
    pub fn replication_factor(&self) -> u32 {
        match (&self.replication_factor, &self.assignment) {
            (Some(rf), _) => *rf,
            (None, Some(a)) => a.first().map_or(1, |r| r.len() as u32),
            (None, None) if self.partitions == 1 => self.brokers,
            (None, None) => self.brokers.min(3),
        }
    }

    /// Broker `b`'s rack, if the brokers have racks.
    pub fn rack(&self, b: BrokerId) -> Option<&str> {
        self.racks.as_ref().map(|r| &*r[(b - 1) as usize])
    }

    /// The topic's shape: partitions, replication factor, racks and a
    /// written assignment, each within bounds and consistent with the others.
    fn validate_topic(&self) -> Result<(), String> {
        use limits::*;
        let c = self;
        if c.partitions < 1 || c.partitions > MAX_PARTITIONS {
            return Err(format!("config.partitions: {} is out of range 1..={MAX_PARTITIONS}", c.partitions));
        }
        let rf = c.replication_factor();
        if rf < 1 || rf > c.brokers {
            return Err(format!("config.replication_factor: {rf} must be between 1 and brokers ({})", c.brokers));
        }
        if let Some(racks) = &c.racks {
            if racks.len() != c.brokers as usize {
                return Err(format!("config.racks: {} names for {} brokers (one per broker, racks[0] for broker 1)", racks.len(), c.brokers));
            }
            for (i, name) in racks.iter().enumerate() {
                let chars = name.chars().count();
                if chars == 0 || chars > MAX_RACK_CHARS || name.chars().any(char::is_control) {
                    return Err(format!("config.racks[{i}]: a rack's name has 1 to {MAX_RACK_CHARS} characters, none of them a control character"));
                }
            }
        }
        if let Some(assignment) = &c.assignment {
            if assignment.len() != c.partitions as usize {
                return Err(format!("config.assignment: {} replica lists for {} partitions (one per partition)", assignment.len(), c.partitions));
            }
            for (p, replicas) in assignment.iter().enumerate() {
                // `ReplicationControlManager.validateManualPartitionAssignment`:
                // every partition has the same number of replicas, no broker twice.
                if replicas.len() as u32 != rf {
                    return Err(format!("config.assignment[{p}]: {} replicas where the replication factor is {rf}: every partition has the same number", replicas.len()));
                }
                for (i, &b) in replicas.iter().enumerate() {
                    if b < 1 || b > c.brokers {
                        return Err(format!("config.assignment[{p}][{i}]: broker {b} is out of range 1..={}", c.brokers));
                    }
                    if replicas[..i].contains(&b) {
                        return Err(format!("config.assignment[{p}]: broker {b} appears twice"));
                    }
                }
            }
        }
        if c.leader_imbalance_per_broker_percentage > 100 {
            return Err(format!("config.leader_imbalance_per_broker_percentage: {} is out of range 0..=100", c.leader_imbalance_per_broker_percentage));
        }
        Ok(())
    }
}
