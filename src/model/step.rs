//! The model's actions: one closed enum of everything that can happen to the
//! partition (`Step`), and the producer's acknowledgement level. A button in
//! the page, a line of a scenario file and a move of the explorer are each a
//! `Step`, applied by `Simulation::apply`. The scenario file format that holds
//! a list of them is `run::scenario`.

use crate::model::config::{limits, BrokerId, Config, ControllerId, PartitionId};
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

/// What a fault acts on: one broker, every broker of a rack
/// (`broker.rack`), or one controller of the KRaft quorum (numbered
/// `1..=controllers`, apart from the brokers).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Nodes {
    Broker(BrokerId),
    Rack(Arc<str>),
    Controller(ControllerId),
}

impl Nodes {
    /// The brokers meant, in id order (a rack no broker is in, or a
    /// controller: none).
    pub fn ids(&self, config: &Config) -> Vec<BrokerId> {
        match self {
            Nodes::Broker(b) => vec![*b],
            Nodes::Rack(r) => config.broker_ids().filter(|&b| config.rack(b) == Some(&**r)).collect(),
            Nodes::Controller(_) => vec![],
        }
    }
}

/// A `crash` step: `{"broker": b}`, `{"rack": "r"}` (every broker of the
/// rack, in id order), with `lose_unflushed` records lost by each, or
/// `{"controller": c}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Crash {
    pub nodes: Nodes,
    /// Records at the end of the log that were never flushed and are lost
    /// (a power loss); 0 for a process crash. A controller flushes its
    /// metadata log before it answers, so it loses none.
    pub lose_unflushed: u64,
}

impl Crash {
    /// A crash of one broker.
    pub fn broker(broker: BrokerId, lose_unflushed: u64) -> Crash {
        Crash { nodes: Nodes::Broker(broker), lose_unflushed }
    }
}

/// A crash as written: exactly one of `broker`, `rack` and `controller`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CrashWritten {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    broker: Option<BrokerId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rack: Option<Arc<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    controller: Option<ControllerId>,
    #[serde(default)]
    lose_unflushed: u64,
}

impl Serialize for Crash {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (broker, rack) = match &self.nodes {
            Nodes::Broker(b) => (Some(*b), None),
            Nodes::Rack(r) => (None, Some(r.clone())),
            // `{"controller": c}`: a controller loses nothing unflushed.
            Nodes::Controller(_) => return self.nodes.serialize(s),
        };
        CrashWritten { broker, rack, controller: None, lose_unflushed: self.lose_unflushed }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Crash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = CrashWritten::deserialize(d)?;
        let nodes = match (w.broker, w.rack, w.controller) {
            (Some(b), None, None) => Nodes::Broker(b),
            (None, Some(r), None) => Nodes::Rack(r),
            (None, None, Some(c)) => Nodes::Controller(c),
            (None, None, None) => return Err(de::Error::missing_field("broker")),
            _ => return Err(de::Error::custom("a crash names one of a broker, a rack or a controller")),
        };
        if matches!(nodes, Nodes::Controller(_)) && w.lose_unflushed > 0 {
            return Err(de::Error::custom("a controller flushes its metadata log before it answers: it has no unflushed records to lose"));
        }
        Ok(Crash { nodes, lose_unflushed: w.lose_unflushed })
    }
}

/// The argument of `isolate` and `restart`: a broker id, `{"rack": "r"}`
/// or `{"controller": c}`.
impl Serialize for Nodes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Rack<'a> {
            rack: &'a str,
        }
        #[derive(Serialize)]
        struct Controller {
            controller: ControllerId,
        }
        match self {
            Nodes::Broker(b) => s.serialize_u32(*b),
            Nodes::Rack(r) => Rack { rack: r }.serialize(s),
            Nodes::Controller(c) => Controller { controller: *c }.serialize(s),
        }
    }
}

/// `{"rack": r}` or `{"controller": c}`: exactly one.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodesWritten {
    #[serde(default)]
    rack: Option<Arc<str>>,
    #[serde(default)]
    controller: Option<ControllerId>,
}

impl<'de> Deserialize<'de> for Nodes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Nodes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a broker id, {\"rack\": name} or {\"controller\": id}")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Nodes, E> {
                u32::try_from(v).map(Nodes::Broker).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Nodes, A::Error> {
                let w = NodesWritten::deserialize(de::value::MapAccessDeserializer::new(map))?;
                match (w.rack, w.controller) {
                    (Some(r), None) => Ok(Nodes::Rack(r)),
                    (None, Some(c)) => Ok(Nodes::Controller(c)),
                    _ => Err(de::Error::custom("name a rack or a controller: {\"rack\": name} or {\"controller\": id}")),
                }
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
    /// Every link of one controller of the quorum: `{"controller": c}`.
    Controller(ControllerId),
}

impl Serialize for Heal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Heal::All => s.serialize_str("all"),
            Heal::Link(a, b) => [a, b].serialize(s),
            Heal::Broker(b) => s.serialize_u32(b),
            Heal::Controller(c) => Nodes::Controller(c).serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Heal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Heal;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"all\", a broker id, a pair of broker ids [a, b], or {\"controller\": id}")
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
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Heal, A::Error> {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct Controller {
                    controller: ControllerId,
                }
                let w = Controller::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Heal::Controller(w.controller))
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
    /// A broker id, or `{"controller": c}`.
    Restart(Nodes),
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
    Isolate(Nodes),
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
    /// `{"resign": null}`: the active controller hands its quorum
    /// leadership over gracefully (`RaftClient.resign`): EndQuorumEpoch
    /// names the successors.
    Resign(()),
}

impl Step {
    /// One fetch round of every fetcher of broker `b`.
    pub fn fetch(b: BrokerId) -> Step {
        Step::Fetch(Fetch { broker: b, from: None })
    }

    /// A restart of broker `b`.
    pub fn restart(b: BrokerId) -> Step {
        Step::Restart(Nodes::Broker(b))
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
            Step::Crash(Crash { nodes: Nodes::Broker(b), .. }) => one("crash.broker", *b),
            Step::Restart(Nodes::Broker(b)) => one("restart", *b),
            Step::Elect(Elect { broker: Some(b), .. }) => one("elect", *b),
            Step::Delay(d) => one("delay.broker", d.broker),
            Step::Cut([a, b]) => [Some(("cut", *a)), Some(("cut", *b))],
            Step::Partition([a, b]) => [Some(("partition", *a)), Some(("partition", *b))],
            Step::Isolate(Nodes::Broker(b)) => one("isolate", *b),
            Step::CutController(b) => one("cut_controller", *b),
            Step::ControlledShutdown(b) => one("controlled_shutdown", *b),
            Step::BeginControlledShutdown(b) => one("begin_controlled_shutdown", *b),
            Step::Heal(Heal::Link(a, b)) => [Some(("heal", *a)), Some(("heal", *b))],
            Step::Heal(Heal::Broker(b)) => one("heal", *b),
            Step::Pause(b) => one("pause", *b),
            Step::Resume(b) => one("resume", *b),
            Step::Crash(Crash { nodes: Nodes::Rack(_) | Nodes::Controller(_), .. })
            | Step::Isolate(Nodes::Rack(_) | Nodes::Controller(_))
            | Step::Restart(Nodes::Rack(_) | Nodes::Controller(_))
            | Step::Heal(Heal::Controller(_))
            | Step::Resign(()) => [None, None],
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
            Step::Crash(Crash { nodes: Nodes::Rack(r), .. }) => Some(("crash.rack", r)),
            Step::Isolate(Nodes::Rack(r)) => Some(("isolate.rack", r)),
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
        let controller = match self {
            Step::Crash(Crash { nodes: Nodes::Controller(c), .. }) => Some(("crash.controller", *c)),
            Step::Restart(Nodes::Controller(c)) => Some(("restart.controller", *c)),
            Step::Isolate(Nodes::Controller(c)) => Some(("isolate.controller", *c)),
            Step::Heal(Heal::Controller(c)) => Some(("heal.controller", *c)),
            _ => None,
        };
        if let Some((field, c)) = controller {
            if config.controllers == 0 {
                return Err(format!("{field}: the scenario has no controller quorum (config.controllers is 0)"));
            }
            if c < 1 || c > config.controllers {
                return Err(format!("{field}: controller {c} does not exist (controllers are 1..={})", config.controllers));
            }
        }
        match self {
            Step::Resign(()) if config.controllers == 0 => Err("resign: the scenario has no controller quorum (config.controllers is 0)".into()),
            Step::Restart(Nodes::Rack(_)) => Err("restart: name a broker id or {\"controller\": c}".into()),
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
