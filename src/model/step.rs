//! The model's actions: one closed enum of everything that can happen to the
//! partition (`Step`), and the producer's acknowledgement level. A button in
//! the page, a line of a scenario file and a move of the explorer are each a
//! `Step`, applied by `Simulation::apply`. The scenario file format that holds
//! a list of them is `run::scenario`.

use crate::model::config::{limits, BrokerId, Config, PartitionId};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

/// Producer acknowledgement level, written `"0"`, `"1"` or `"all"` (numbers 0 and 1, and
/// Kafka's -1 for all, are accepted too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Acks {
    Zero,
    One,
    #[default]
    All,
}

impl Acks {
    /// 0, 1, 2 for acks 0, 1, all (an index into per-acks tables).
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Acks::Zero => "0",
            Acks::One => "1",
            Acks::All => "all",
        }
    }
}

impl fmt::Display for Acks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "acks={}", self.name())
    }
}

impl Serialize for Acks {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Acks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Acks;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"0\", \"1\" or \"all\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Acks, E> {
                match v {
                    "0" => Ok(Acks::Zero),
                    "1" => Ok(Acks::One),
                    "all" | "-1" => Ok(Acks::All),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Acks, E> {
                match v {
                    0 => Ok(Acks::Zero),
                    1 => Ok(Acks::One),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Acks, E> {
                match v {
                    -1 => Ok(Acks::All),
                    0 | 1 => self.visit_u64(v as u64),
                    _ => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Produce {
    pub value: String,
    #[serde(default)]
    pub acks: Acks,
    /// The broker the request is sent to; by default the current leader.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<BrokerId>,
    /// The partition; none written: the key's, else the next in turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionId>,
    /// The record's key: its partition is Kafka's hash of it
    /// (`Utils.toPositive(Utils.murmur2(key)) % partitions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// The brokers a fault acts on: one, or every broker of a rack (`broker.rack`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Brokers {
    One(BrokerId),
    Rack(Arc<str>),
}

impl Brokers {
    /// The brokers meant, in id order (a rack no broker is in: none).
    pub fn ids(&self, config: &Config) -> Vec<BrokerId> {
        match self {
            Brokers::One(b) => vec![*b],
            Brokers::Rack(r) => config.broker_ids().filter(|&b| config.rack(b) == Some(&**r)).collect(),
        }
    }
}

/// A `crash` step: `{"broker": b}` or `{"rack": "r"}` (every broker of the
/// rack, in id order), with `lose_unflushed` records lost by each.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Crash {
    pub brokers: Brokers,
    /// Records at the end of the log that were never flushed and are lost
    /// (a power loss); 0 for a process crash.
    pub lose_unflushed: u64,
}

impl Crash {
    /// A crash of one broker.
    pub fn broker(broker: BrokerId, lose_unflushed: u64) -> Crash {
        Crash { brokers: Brokers::One(broker), lose_unflushed }
    }
}

/// A crash as written: exactly one of `broker` and `rack`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CrashWritten {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    broker: Option<BrokerId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rack: Option<Arc<str>>,
    #[serde(default)]
    lose_unflushed: u64,
}

impl Serialize for Crash {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (broker, rack) = match &self.brokers {
            Brokers::One(b) => (Some(*b), None),
            Brokers::Rack(r) => (None, Some(r.clone())),
        };
        CrashWritten { broker, rack, lose_unflushed: self.lose_unflushed }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Crash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = CrashWritten::deserialize(d)?;
        let brokers = match (w.broker, w.rack) {
            (Some(b), None) => Brokers::One(b),
            (None, Some(r)) => Brokers::Rack(r),
            (None, None) => return Err(de::Error::missing_field("broker")),
            (Some(_), Some(_)) => return Err(de::Error::custom("a crash names a broker or a rack, not both")),
        };
        Ok(Crash { brokers, lose_unflushed: w.lose_unflushed })
    }
}

/// `isolate`'s argument: a broker id, or `{"rack": "r"}`.
impl Serialize for Brokers {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Rack<'a> {
            rack: &'a str,
        }
        match self {
            Brokers::One(b) => s.serialize_u32(*b),
            Brokers::Rack(r) => Rack { rack: r }.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Brokers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Rack {
            rack: Arc<str>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Brokers;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a broker id, or {\"rack\": name}")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Brokers, E> {
                u32::try_from(v).map(Brokers::One).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Brokers, A::Error> {
                let r = Rack::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Brokers::Rack(r.rack))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delay {
    pub broker: BrokerId,
    pub ms: u64,
}

/// What a `heal` step restores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Heal {
    /// Every cut and every isolation.
    All,
    /// Both directions between two brokers.
    Link(BrokerId, BrokerId),
    /// Every link of one broker, including to the controller.
    Broker(BrokerId),
}

impl Serialize for Heal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Heal::All => s.serialize_str("all"),
            Heal::Link(a, b) => [a, b].serialize(s),
            Heal::Broker(b) => s.serialize_u32(b),
        }
    }
}

impl<'de> Deserialize<'de> for Heal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Heal;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"all\", a broker id, or a pair of broker ids [a, b]")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Heal, E> {
                if v == "all" {
                    Ok(Heal::All)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Heal, E> {
                u32::try_from(v)
                    .map(Heal::Broker)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Heal, A::Error> {
                let a: BrokerId = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let b: BrokerId = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(3, &self));
                }
                Ok(Heal::Link(a, b))
            }
        }
        d.deserialize_any(V)
    }
}

/// An `elect` step: which partition, and to which broker (none: the
/// controller's choice).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Elect {
    pub partition: PartitionId,
    pub broker: Option<BrokerId>,
}

impl Serialize for Elect {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Written {
            partition: PartitionId,
            #[serde(skip_serializing_if = "Option::is_none")]
            broker: Option<BrokerId>,
        }
        match (self.partition, self.broker) {
            (0, None) => s.serialize_none(),
            (0, Some(b)) => s.serialize_u32(b),
            (partition, broker) => Written { partition, broker }.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Elect {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            partition: PartitionId,
            #[serde(default)]
            broker: Option<BrokerId>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Elect;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("null, a broker id, or {\"partition\": p} with an optional \"broker\"")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Elect, E> {
                Ok(Elect::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Elect, E> {
                Ok(Elect::default())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Elect, E> {
                let broker = u32::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))?;
                Ok(Elect { partition: 0, broker: Some(broker) })
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Elect, A::Error> {
                let w = Written::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Elect { partition: w.partition, broker: w.broker })
            }
        }
        d.deserialize_any(V)
    }
}

/// A `fetch` step: one round of every fetcher of `broker` (one Fetch per
/// leader it follows), or with `from` only of its fetcher on that leader.
/// Written as the broker id, or `{"broker": b, "from": l}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fetch {
    pub broker: BrokerId,
    pub from: Option<BrokerId>,
}

impl Serialize for Fetch {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Written {
            broker: BrokerId,
            from: BrokerId,
        }
        match self.from {
            None => s.serialize_u32(self.broker),
            Some(from) => Written { broker: self.broker, from }.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Fetch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            broker: BrokerId,
            #[serde(default)]
            from: Option<BrokerId>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Fetch;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a broker id, or {\"broker\": b, \"from\": l}")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Fetch, E> {
                let broker = u32::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))?;
                Ok(Fetch { broker, from: None })
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Fetch, A::Error> {
                let w = Written::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Fetch { broker: w.broker, from: w.from })
            }
        }
        d.deserialize_any(V)
    }
}

/// A step's partition, written `{"partition": p}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnePartition {
    pub partition: PartitionId,
}

/// One action of a scenario. Faults are ordinary steps: a button in the page,
/// a line in a file and a move of the explorer all go through `Simulation::apply`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    Produce(Produce),
    /// One whole fetch round of this follower (request and response): a
    /// broker id (every leader it follows), or `{"broker": b, "from": l}`.
    Fetch(Fetch),
    /// Run the clock: timers, and in timed mode the fetchers and the network.
    AdvanceMs(u64),
    Crash(Crash),
    Restart(BrokerId),
    /// `null`: the controller moves leadership of partition 0 to its choice
    /// now; a broker id: to that broker; `{"partition": p}` or
    /// `{"partition": p, "broker": b}`: the same for partition `p`.
    Elect(Elect),
    /// A preferred leader election (`kafka-leader-election.sh --election-type
    /// PREFERRED`): `null` every partition, a partition id one.
    ElectPreferred(Option<PartitionId>),
    Delay(Delay),
    /// One-way cut: messages from the first broker to the second are dropped.
    Cut([BrokerId; 2]),
    /// Two-way cut between two brokers.
    Partition([BrokerId; 2]),
    /// Cut a broker from every other broker and from the controller (not
    /// from clients); `{"rack": "r"}`: cut every broker of the rack from
    /// the brokers outside it and from the controller (a zone cut off; the
    /// rack's brokers still reach each other).
    Isolate(Brokers),
    /// Cut a broker from the controller only: its heartbeats stop (its
    /// session expires and it is fenced) while it still fetches from the
    /// leader and serves clients. `heal` with the broker or `"all"` restores it.
    CutController(BrokerId),
    /// A clean stop: the controller first moves leadership away and takes the
    /// broker out of the ISR, then the broker stops with its log flushed and
    /// its HW checkpointed (KRaft BrokerHeartbeat wantShutDown; ZooKeeper
    /// ControlledShutdownRequest).
    ControlledShutdown(BrokerId),
    /// The first half of a controlled shutdown (KRaft): the broker asks to
    /// stop; the controller moves its leadership away and takes it out of
    /// the ISR; it keeps fetching what it still follows from inside the ISR
    /// and is not added back to one (KIP-841); it stops by itself at its
    /// next heartbeat, `broker.heartbeat.interval.ms` (2000) later
    /// (`BrokerLifecycleManager.beginControlledShutdown`). ZooKeeper era:
    /// the whole stop at once, as `controlled_shutdown`.
    BeginControlledShutdown(BrokerId),
    Heal(Heal),
    /// The consumer reads from each partition's leader up to its high
    /// watermark: `null` every partition, `{"partition": p}` one.
    Consume(Option<OnePartition>),
    /// Stop this follower's fetcher (timed mode).
    Pause(BrokerId),
    Resume(BrokerId),
}

impl Step {
    /// One fetch round of every fetcher of broker `b`.
    pub fn fetch(b: BrokerId) -> Step {
        Step::Fetch(Fetch { broker: b, from: None })
    }

    /// The step as one line of scenario JSON (for traces and errors).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "?".into())
    }

    /// Broker ids the step names, with the field they are in.
    fn brokers(&self) -> [Option<(&'static str, BrokerId)>; 2] {
        let one = |field, b| [Some((field, b)), None];
        match self {
            Step::Produce(p) => [p.to.map(|b| ("produce.to", b)), None],
            Step::Fetch(Fetch { broker, from: None }) => one("fetch", *broker),
            Step::Fetch(Fetch { broker, from: Some(l) }) => [Some(("fetch.broker", *broker)), Some(("fetch.from", *l))],
            Step::Crash(Crash { brokers: Brokers::One(b), .. }) => one("crash.broker", *b),
            Step::Restart(b) => one("restart", *b),
            Step::Elect(Elect { broker: Some(b), .. }) => one("elect", *b),
            Step::Delay(d) => one("delay.broker", d.broker),
            Step::Cut([a, b]) => [Some(("cut", *a)), Some(("cut", *b))],
            Step::Partition([a, b]) => [Some(("partition", *a)), Some(("partition", *b))],
            Step::Isolate(Brokers::One(b)) => one("isolate", *b),
            Step::CutController(b) => one("cut_controller", *b),
            Step::ControlledShutdown(b) => one("controlled_shutdown", *b),
            Step::BeginControlledShutdown(b) => one("begin_controlled_shutdown", *b),
            Step::Heal(Heal::Link(a, b)) => [Some(("heal", *a)), Some(("heal", *b))],
            Step::Heal(Heal::Broker(b)) => one("heal", *b),
            Step::Pause(b) => one("pause", *b),
            Step::Resume(b) => one("resume", *b),
            Step::Crash(Crash { brokers: Brokers::Rack(_), .. }) | Step::Isolate(Brokers::Rack(_)) => [None, None],
            Step::AdvanceMs(_) | Step::Elect(Elect { broker: None, .. }) | Step::ElectPreferred(_) | Step::Heal(Heal::All) | Step::Consume(_) => [None, None],
        }
    }

    /// Checks the step against the configuration and the limits. `elapsed_ms`
    /// is the simulated time the scenario has used before this step.
    pub fn validate(&self, config: &Config, elapsed_ms: u64) -> Result<(), String> {
        for (field, b) in self.brokers().into_iter().flatten() {
            if b < 1 || b > config.brokers {
                return Err(format!("{field}: broker {b} does not exist (brokers are 1..={})", config.brokers));
            }
        }
        let rack = match self {
            Step::Crash(Crash { brokers: Brokers::Rack(r), .. }) => Some(("crash.rack", r)),
            Step::Isolate(Brokers::Rack(r)) => Some(("isolate.rack", r)),
            _ => None,
        };
        if let Some((field, r)) = rack {
            let Some(racks) = &config.racks else {
                return Err(format!("{field}: the brokers have no racks (config.racks is not set)"));
            };
            if !racks.iter().any(|x| x == r) {
                let mut names: Vec<&str> = racks.iter().map(|x| &**x).collect();
                names.sort_unstable();
                names.dedup();
                let names: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
                return Err(format!("{field}: no broker is in rack {r:?} (the racks are {})", names.join(", ")));
            }
        }
        match self {
            Step::Produce(p) if p.value.len() > limits::MAX_VALUE_BYTES => Err(format!(
                "produce.value: {} bytes is longer than the limit of {} bytes",
                p.value.len(),
                limits::MAX_VALUE_BYTES
            )),
            Step::Elect(Elect { partition, .. }) | Step::ElectPreferred(Some(partition)) if *partition >= config.partitions => {
                let field = if matches!(self, Step::Elect(_)) { "elect.partition" } else { "elect_preferred" };
                Err(format!("{field}: partition {partition} does not exist (partitions are 0..={})", config.partitions - 1))
            }
            Step::Consume(Some(OnePartition { partition })) if *partition >= config.partitions => {
                Err(format!("consume.partition: partition {partition} does not exist (partitions are 0..={})", config.partitions - 1))
            }
            Step::Produce(p) if p.partition.is_some_and(|x| x >= config.partitions) => Err(format!(
                "produce.partition: partition {} does not exist (partitions are 0..={})",
                p.partition.unwrap_or(0),
                config.partitions - 1
            )),
            Step::Produce(p) if p.key.as_ref().is_some_and(|k| k.len() > limits::MAX_VALUE_BYTES) => Err(format!(
                "produce.key: {} bytes is longer than the limit of {} bytes",
                p.key.as_ref().map_or(0, |k| k.len()),
                limits::MAX_VALUE_BYTES
            )),
            Step::AdvanceMs(ms) if elapsed_ms.saturating_add(*ms) > limits::MAX_SIMULATED_MS => Err(format!(
                "advance_ms: {ms} would take the scenario past the limit of {} ms of simulated time (already {elapsed_ms} ms)",
                limits::MAX_SIMULATED_MS
            )),
            Step::Crash(c) if c.lose_unflushed > limits::MAX_LOG_RECORDS as u64 => Err(format!(
                "crash.lose_unflushed: {} is more than a log can hold ({} records)",
                c.lose_unflushed,
                limits::MAX_LOG_RECORDS
            )),
            Step::Delay(d) if d.ms > limits::MAX_DURATION_MS => {
                Err(format!("delay.ms: {} is larger than the limit of {} ms", d.ms, limits::MAX_DURATION_MS))
            }
            Step::Cut([a, b]) | Step::Partition([a, b]) if a == b => {
                Err(format!("{}: a broker cannot be cut from itself ({a})", if matches!(self, Step::Cut(_)) { "cut" } else { "partition" }))
            }
            Step::Heal(Heal::Link(a, b)) if a == b => Err(format!("heal: a broker has no link to itself ({a})")),
            _ => Ok(()),
        }
    }
}
