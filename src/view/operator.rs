//! The operator's view: what Kafka's own tools would show about the
//! partition at this moment. The `kafka-topics.sh --describe` line for it,
//! and the broker metrics people watch, under Kafka's names, computed from
//! the state (the gauges) and from the events so far (the meters' counts and
//! the fetcher lag, which Kafka sets as things happen).

use crate::model::config::{BrokerId, PartitionId};
use crate::model::event::{Event, Traced, Truncation};
use crate::model::rules::Rule;
use crate::model::simulation::Simulation;
use crate::run::timeline::Timeline;
use serde::Serialize;

/// The topic name the describe lines use.
pub const TOPIC: &str = "highwater";

/// How a dashboard puts the per-broker values of a metric together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    /// One value from the active controller.
    Controller,
    /// The sum over the brokers that are running.
    Sum,
    /// The largest value over the brokers that are running.
    Max,
}

/// One metric: its Kafka name and MBean, the dashboard's value and each
/// broker's own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Metric {
    /// Kafka's spelling, e.g. `UnderReplicatedPartitions`.
    pub name: &'static str,
    /// The JMX MBean name.
    pub mbean: &'static str,
    pub aggregate: Aggregate,
    /// A meter (`...PerSec`) shown by its count so far, not a rate.
    pub meter: bool,
    /// The dashboard's value (controller's, or the sum / max over brokers).
    pub value: u64,
    /// Index `id - 1`: the broker's own value; `None` while the broker's
    /// process is down (no JMX to read). Empty for a controller metric.
    pub per_broker: Vec<Option<u64>>,
}

/// What Kafka's tools show at this moment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OperatorView {
    pub topic: &'static str,
    pub partition: u32,
    /// The partition line of `kafka-topics.sh --describe`, exactly as printed
    /// (it starts with a tab).
    pub describe: String,
    pub leader: Option<BrokerId>,
    pub replicas: Vec<BrokerId>,
    pub isr: Vec<BrokerId>,
    /// `Some` where the version has KIP-966 (4.1).
    pub elr: Option<Vec<BrokerId>>,
    pub last_known_elr: Option<Vec<BrokerId>>,
    /// `--describe` with `--under-replicated-partitions`,
    /// `--under-min-isr-partitions` and `--unavailable-partitions`, in that order.
    pub lists: Vec<DescribeList>,
    pub metrics: Vec<Metric>,
}

fn ids(list: &[BrokerId]) -> String {
    let parts: Vec<String> = list.iter().map(|b| b.to_string()).collect();
    parts.join(",")
}

/// The partition line as `TopicCommand.PartitionDescription.printDescription`
/// (tools/src/main/java/org/apache/kafka/tools/TopicCommand.java) prints it:
/// "\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s", the
/// leader "none" when there is none, lists joined with "," (an empty list
/// prints nothing after the colon), then "\tElr: %s\tLastKnownElr: %s" from
/// a cluster with KIP-966's fields (DescribeTopicPartitions).
pub fn describe_line(partition: u32, leader: Option<BrokerId>, replicas: &[BrokerId], isr: &[BrokerId], elr: Option<(&[BrokerId], &[BrokerId])>) -> String {
    let leader = leader.map_or("none".to_string(), |l| l.to_string());
    let mut line = format!("\tTopic: {TOPIC}\tPartition: {partition}\tLeader: {leader}\tReplicas: {}\tIsr: {}", ids(replicas), ids(isr));
    if let Some((elr, last_known)) = elr {
        line.push_str(&format!("\tElr: {}\tLastKnownElr: {}", ids(elr), ids(last_known)));
    }
    line
}

/// `TopicCommand.PartitionDescription`'s tests of one partition, on what
/// the controller has registered (tools/.../TopicCommand.java).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescribeFlags {
    /// `isUnderReplicated`: fewer in the ISR than the replicas.
    pub under_replicated: bool,
    /// `isUnderMinIsr`: no leader, or fewer in the ISR than the topic's
    /// `min.insync.replicas` (the config itself, not capped by the
    /// replication factor).
    pub under_min_isr: bool,
    /// `hasUnavailablePartitions`: no leader, or a leader that is not among
    /// the live brokers `describeCluster` returns (unfenced, to the controller).
    pub unavailable: bool,
}

/// The flags of partition `p` at this moment.
pub fn describe_flags(sim: &Simulation, p: PartitionId) -> DescribeFlags {
    let c = sim.controller.partition(p);
    DescribeFlags {
        under_replicated: c.isr.len() < c.replicas.len(),
        under_min_isr: c.leader.is_none() || (c.isr.len() as u32) < sim.config.min_insync_replicas,
        unavailable: !c.leader.is_some_and(|l| !sim.controller.is_fenced(l)),
    }
}

/// The options of `kafka-topics.sh --describe` that list only some
/// partitions, each with the test it applies (`shouldPrint...Partitions`).
const LIST_OPTIONS: [(&str, fn(&DescribeFlags) -> bool); 3] = [
    ("--under-replicated-partitions", |f| f.under_replicated),
    ("--under-min-isr-partitions", |f| f.under_min_isr),
    ("--unavailable-partitions", |f| f.unavailable),
];

/// `kafka-topics.sh --describe` with one of the options that list only
/// some partitions: which, and the lines it prints (none: no output).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DescribeList {
    /// The option, as typed: `--under-replicated-partitions`,
    /// `--under-min-isr-partitions` or `--unavailable-partitions`.
    pub option: &'static str,
    pub partitions: Vec<PartitionId>,
    /// Their describe lines, as printed (no topic line: with these options
    /// `TopicCommand` prints the partitions alone).
    pub output: String,
}

/// What the events so far leave in each broker's meters and fetcher gauges.
#[derive(Clone, Debug)]
struct Counters {
    shrinks: Vec<u64>,
    expands: Vec<u64>,
    /// Per broker, the fetcher's lag for each partition
    /// (`FetcherLagMetrics.lag`), 0 when the broker fetches nothing (the
    /// `MaxLag` gauge folds from 0).
    lag: Vec<Vec<u64>>,
}

impl Counters {
    fn new(brokers: usize, partitions: usize) -> Counters {
        Counters { shrinks: vec![0; brokers], expands: vec![0; brokers], lag: vec![vec![0; partitions]; brokers] }
    }

    fn of(brokers: usize, partitions: usize, events: &[Traced]) -> Counters {
        let mut c = Counters::new(brokers, partitions);
        events.iter().for_each(|e| c.fold(e));
        c
    }

    /// What one event changes.
    fn fold(&mut self, e: &Traced) {
        let c = self;
        let i = |b: BrokerId| (b - 1) as usize;
        // The partition the event is about (one partition: 0).
        let p = e.partition.unwrap_or(0) as usize;
        match &e.event {
            // `PendingShrinkIsr.notifyListener` / `PendingExpandIsr
            // .notifyListener` mark the leader's `isrShrinkRate` /
            // `isrExpandRate` when its own AlterPartition is accepted
            // (before KIP-497, when its ZooKeeper write succeeds). A
            // removal by the controller (a fenced broker) is not the
            // leader's change and marks no meter.
            Event::IsrShrunk { leader: Some(l), by_controller: false, .. } => c.shrinks[i(*l)] += 1,
            Event::IsrExpanded { leader, .. } => c.expands[i(*leader)] += 1,
            // Meters and gauges live in the broker's process: a crash
            // starts them again from nothing.
            Event::Crashed { broker, .. } => {
                let b = i(*broker);
                (c.shrinks[b], c.expands[b]) = (0, 0);
                c.lag[b].iter_mut().for_each(|l| *l = 0);
            }
            // `AbstractFetcherThread.processFetchRequest`: after the
            // partition data is processed, lag = max(0, response HW -
            // next fetch offset). Records appended: the follower's HW
            // becomes min(leader HW, LEO); if it did not change, the
            // leader HW was the old HW, below the new LEO, and the lag is
            // 0; if it changed, the event below sets it.
            Event::FollowerAppended { follower, .. } => c.lag[i(*follower)][p] = 0,
            // HW = min(leader HW, LEO): the lag leader HW - LEO is
            // leader HW - HW (0 when the HW is the leader's).
            Event::HighWatermarkChanged { broker, to, cause: crate::model::event::HighWatermarkCause::FetchResponse { leader_high_watermark }, .. } => {
                c.lag[i(*broker)][p] = leader_high_watermark.saturating_sub(*to)
            }
            // `AbstractFetcherThread` after OFFSET_OUT_OF_RANGE with the
            // leader's end below the follower's: truncate, lag 0.
            Event::Truncated { broker, truncation: Truncation::OffsetOutOfRange { .. }, .. } => c.lag[i(*broker)][p] = 0,
            // The partition leaves the fetcher (`removeFetcherForPartitions`
            // unregisters its lag) when the broker leads or follows anew.
            Event::BecameLeader { broker, .. } | Event::BecameFollower { broker, .. } => c.lag[i(*broker)][p] = 0,
            _ => {}
        }
    }
}

/// The metrics at this moment: the gauges from the state, the meters and
/// fetcher lag from `counters`.
fn metrics(sim: &Simulation, counters: &Counters) -> Vec<Metric> {
    let n = sim.config.brokers;
    let partitions = sim.config.partition_ids();
    // A broker's process is running (its JMX answers) unless it crashed
    // and has not restarted.
    let running = |i: usize| sim.brokers[i].alive || sim.brokers[i].starting;
    let per_broker = |f: &dyn Fn(usize) -> u64| -> Vec<Option<u64>> { (0..n as usize).map(|i| running(i).then(|| f(i))).collect() };
    // Over the partitions a broker leads, in its own belief:
    // `Partition.isUnderReplicated` (its ISR is smaller than the assigned
    // replicas) and `Partition.isUnderMinIsr` (smaller than the effective
    // min ISR, min(min.insync.replicas, replication factor)).
    let led = |i: usize, under: &dyn Fn(usize, u32) -> bool| -> u64 {
        partitions
            .clone()
            .filter(|&p| {
                let b = &sim.partitions[p as usize].replicas[i];
                sim.is_leader(p, b.id) && under(b.isr.len(), sim.controller.partition(p).replicas.len() as u32)
            })
            .count() as u64
    };
    let under_replicated = per_broker(&|i| led(i, &|isr, rf| (isr as u32) < rf));
    let min_isr = sim.config.min_insync_replicas;
    let under_min_isr = per_broker(&|i| led(i, &|isr, rf| (isr as u32) < min_isr.min(rf)));
    let offline = partitions.clone().filter(|&p| sim.controller.partition(p).leader.is_none()).count() as u64;
    // `ReplicaManager`'s `LeaderCount` (`leaderPartitionsIterator.size`:
    // the partitions it leads, in its own belief) and `PartitionCount`
    // (`allPartitions.size`: every partition it holds a replica of; the
    // model's assignment never changes, so these are the assigned ones
    // while the broker runs).
    let leaders = per_broker(&|i| led(i, &|_, _| true));
    let hosted = per_broker(&|i| partitions.clone().filter(|&p| sim.controller.partition(p).replicas.contains(&(i as BrokerId + 1))).count() as u64);
    let shrinks = per_broker(&|i| counters.shrinks[i]);
    let expands = per_broker(&|i| counters.expands[i]);
    let lag = per_broker(&|i| counters.lag[i].iter().copied().max().unwrap_or(0));
    let sum = |v: &[Option<u64>]| v.iter().flatten().sum::<u64>();
    let max = |v: &[Option<u64>]| v.iter().flatten().copied().max().unwrap_or(0);
    let metric = |name, mbean, aggregate, per_broker: Vec<Option<u64>>| {
        let value = if aggregate == Aggregate::Max { max(&per_broker) } else { sum(&per_broker) };
        Metric { name, mbean, aggregate, meter: name.ends_with("PerSec"), value, per_broker }
    };
    vec![
        metric("UnderReplicatedPartitions", "kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions", Aggregate::Sum, under_replicated),
        metric("UnderMinIsrPartitionCount", "kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount", Aggregate::Sum, under_min_isr),
        // The controller's gauge (KRaft `ControllerMetadataMetrics`,
        // ZooKeeper era `KafkaController`): partitions without a leader.
        Metric {
            name: "OfflinePartitionsCount",
            mbean: "kafka.controller:type=KafkaController,name=OfflinePartitionsCount",
            aggregate: Aggregate::Controller,
            meter: false,
            value: offline,
            per_broker: vec![],
        },
        // The busiest broker's count: one broker leading far more than the
        // others is the imbalance a preferred election repairs.
        metric("LeaderCount", "kafka.server:type=ReplicaManager,name=LeaderCount", Aggregate::Max, leaders),
        metric("PartitionCount", "kafka.server:type=ReplicaManager,name=PartitionCount", Aggregate::Sum, hosted),
        metric("IsrShrinksPerSec", "kafka.server:type=ReplicaManager,name=IsrShrinksPerSec", Aggregate::Sum, shrinks),
        metric("IsrExpandsPerSec", "kafka.server:type=ReplicaManager,name=IsrExpandsPerSec", Aggregate::Sum, expands),
        // `AbstractFetcherManager`'s gauge: the largest
        // `FetcherLagMetrics.lag` over the broker's fetchers.
        metric("MaxLag", "kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica", Aggregate::Max, lag),
    ]
}

impl OperatorView {
    /// The view at a timeline's current position.
    pub fn of_timeline(t: &Timeline) -> OperatorView {
        OperatorView::of(t.current(), t.events())
    }

    /// The view of `sim`, with `events` every event of the run up to it.
    pub fn of(sim: &Simulation, events: &[Traced]) -> OperatorView {
        let partitions = sim.config.partition_ids();
        let c = sim.controller.partition(0);
        let replicas: Vec<BrokerId> = c.replicas.to_vec();
        let isr = c.isr.to_vec();
        let kip966 = sim.rules.has(Rule::EligibleLeaderReplicas);
        let elr = kip966.then(|| c.elr.to_vec());
        // The model keeps KIP-966's last known leader (the field's use with
        // last-known-leader recovery, `PartitionChangeBuilder
        // .maybeUpdateLastKnownLeader`): the leader when the ISR emptied.
        let last_known_elr = kip966.then(|| c.last_known_leader.into_iter().collect::<Vec<_>>());
        // One line per partition, as `kafka-topics.sh --describe` prints the topic's.
        let lines: Vec<String> = partitions
            .clone()
            .map(|p| {
                let r = sim.controller.partition(p);
                let (elr, last_known) = (r.elr.to_vec(), r.last_known_leader.into_iter().collect::<Vec<_>>());
                describe_line(p, r.leader, &r.replicas, &r.isr, kip966.then_some((&elr[..], &last_known[..])))
            })
            .collect();
        let describe = lines.join("\n");
        let flags: Vec<DescribeFlags> = partitions.clone().map(|p| describe_flags(sim, p)).collect();
        let lists = LIST_OPTIONS
            .iter()
            .map(|(option, listed)| {
                let partitions: Vec<PartitionId> = flags.iter().zip(0..).filter(|(f, _)| listed(f)).map(|(_, p)| p).collect();
                let output = partitions.iter().map(|&p| lines[p as usize].as_str()).collect::<Vec<_>>().join("\n");
                DescribeList { option, partitions, output }
            })
            .collect();
        let counters = Counters::of(sim.config.brokers as usize, sim.config.partitions as usize, events);
        let metrics = metrics(sim, &counters);
        OperatorView { topic: TOPIC, partition: 0, describe, lists, leader: c.leader, replicas, isr, elr, last_known_elr, metrics }
    }

    /// A metric by its Kafka name.
    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// The dashboard's value of a metric (panics on an unknown name).
    pub fn value(&self, name: &str) -> u64 {
        self.metric(name).unwrap_or_else(|| panic!("no metric {name}")).value
    }
}

/// One metric's dashboard value over the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MetricSeries {
    pub name: &'static str,
    pub aggregate: Aggregate,
    /// One per sampled position (`OperatorSeries.positions`).
    pub values: Vec<u64>,
}

/// The metrics over the whole run, as a dashboard scrapes them: sampled at
/// the start and after steps (every step, or every few when the run is
/// longer than the chart has points), whatever the timeline's position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OperatorSeries {
    /// The positions sampled (steps done), from 0 to the last step.
    pub positions: Vec<u32>,
    /// The simulated time at each.
    pub time_ms: Vec<u64>,
    pub metrics: Vec<MetricSeries>,
}

impl OperatorSeries {
    /// Replays the timeline from its start, sampling at most `max_points`
    /// positions (at least the first and the last).
    pub fn of(t: &Timeline, max_points: usize) -> OperatorSeries {
        let mut replay = SeriesReplay::new(t);
        replay.update(t);
        replay.series(max_points)
    }
}

/// The metrics after every step of a timeline, kept as it grows: a step
/// applied at the end costs that step's replay, not the whole run's (the
/// page asks again after every step while the operator's view is open).
#[derive(Clone, Debug)]
pub struct SeriesReplay {
    sim: Simulation,
    counters: Counters,
    /// The steps replayed so far (a timeline's first steps, or it starts again).
    steps: Vec<crate::run::scenario::Step>,
    names: Vec<(&'static str, Aggregate)>,
    time_ms: Vec<u64>,
    /// `values[m][position]`: metric `m` after `position` steps.
    values: Vec<Vec<u64>>,
}

impl SeriesReplay {
    /// The metrics at the timeline's start.
    pub fn new(t: &Timeline) -> SeriesReplay {
        let sim = t.start().clone();
        let counters = Counters::new(sim.config.brokers as usize, sim.config.partitions as usize);
        let first = metrics(&sim, &counters);
        SeriesReplay {
            names: first.iter().map(|m| (m.name, m.aggregate)).collect(),
            time_ms: vec![sim.now_ms],
            values: first.iter().map(|m| vec![m.value]).collect(),
            sim,
            counters,
            steps: vec![],
        }
    }

    /// Brought up to `t`'s last step: the steps added since, or the whole
    /// run again when an earlier step changed.
    pub fn update(&mut self, t: &Timeline) {
        let steps = &t.scenario().steps;
        if !steps.starts_with(&self.steps) || self.sim.config != t.start().config {
            *self = SeriesReplay::new(t);
        }
        for step in &steps[self.steps.len()..] {
            let counters = &mut self.counters;
            self.sim.apply_in_place(step).iter().for_each(|e| counters.fold(e));
            self.time_ms.push(self.sim.now_ms);
            for (column, m) in self.values.iter_mut().zip(metrics(&self.sim, &self.counters)) {
                column.push(m.value);
            }
            self.steps.push(step.clone());
        }
    }

    /// At most `max_points` samples: every `ceil(steps / (max_points - 1))`
    /// steps, and the last.
    pub fn series(&self, max_points: usize) -> OperatorSeries {
        let len = self.steps.len();
        let every = len.div_ceil(max_points.max(2) - 1).max(1);
        let positions: Vec<usize> = (0..=len).filter(|&p| p % every == 0 || p == len).collect();
        OperatorSeries {
            positions: positions.iter().map(|&p| p as u32).collect(),
            time_ms: positions.iter().map(|&p| self.time_ms[p]).collect(),
            metrics: self
                .names
                .iter()
                .zip(&self.values)
                .map(|(&(name, aggregate), column)| MetricSeries { name, aggregate, values: positions.iter().map(|&p| column[p]).collect() })
                .collect(),
        }
    }
}
