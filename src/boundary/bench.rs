//! Workloads shared by the native benchmark and the wasm one, so that their
//! ratio compares the same code.

use crate::model::config::{Budgets, Config};
use crate::run::scenario::{Acks, Produce, Step};
use crate::model::simulation::Simulation;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Throughput {
    pub records: u64,
    pub steps: u64,
    pub events: u64,
    pub simulated_ms: u64,
}

/// Records a timed run may be asked for (`benchTimedRun` checks it): the
/// native benchmark's million, 5 to 8 s in Node's wasm; without the budgets a run
/// has, this is the bound on its work.
pub const MAX_RECORDS: u64 = 1_000_000;

/// 3 brokers on 1 ms links, auto-fetch, `records` acks=all records, one per
/// simulated millisecond, then 2 s for the followers to catch up. Calls
/// `lap` after each tenth of the records.
///
/// The links are 1 ms so that the producer keeps up: it sends one record a
/// request, at most 5 in flight, and an acks=all request is answered after
/// about four link crossings (the produce, a follower's fetch, its next fetch
/// telling the leader the new LEO, the response). At the default 5 ms that is
/// about 250 records a second, and a run of a record a millisecond would end
/// with most of its records still queued, or at the simulated hour.
pub fn timed_produce_run(records: u64, lap: &mut dyn FnMut(u64)) -> Throughput {
    timed_cluster_run(3, 1, records, lap)
}

/// `timed_produce_run` on a topic of `partitions` partitions of three
/// replicas (or one partition on every broker) over `brokers` brokers: the
/// records go to the partitions in turn, and each is committed at the end.
pub fn timed_cluster_run(brokers: u32, partitions: u32, records: u64, lap: &mut dyn FnMut(u64)) -> Throughput {
    timed_run(brokers, partitions, 0, records, lap)
}

/// `timed_produce_run` beside a KRaft quorum of `controllers` voters: the
/// controllers' heartbeats, long-polled fetches and their events run with
/// the partition's.
pub fn timed_quorum_run(controllers: u32, records: u64, lap: &mut dyn FnMut(u64)) -> Throughput {
    timed_run(3, 1, controllers, records, lap)
}

fn timed_run(brokers: u32, partitions: u32, controllers: u32, records: u64, lap: &mut dyn FnMut(u64)) -> Throughput {
    let replication_factor = (partitions > 1).then_some(3.min(brokers));
    let config = Config { brokers, partitions, replication_factor, controllers, auto_fetch: true, link_latency_ms: 1, ..Config::default() };
    let mut sim = Simulation::new(config);
    // A throughput measurement, not a page's run: millions of events on purpose.
    sim.accounting.budgets = Budgets { events_per_step: u64::MAX, events_per_run: u64::MAX, messages_in_flight: u64::MAX, work_per_step: u64::MAX, work_per_run: u64::MAX, ..Budgets::default() };
    let tick = Step::AdvanceMs(1);
    let tenth = (records / 10).max(1);
    let mut events = 0u64;
    for i in 0..records {
        let produce = Step::Produce(Produce { value: format!("m{i}"), acks: Acks::All, to: None, partition: None, key: None });
        events += sim.apply(&produce).len() as u64;
        events += sim.apply(&tick).len() as u64;
        if (i + 1) % tenth == 0 {
            lap(i + 1);
        }
    }
    events += sim.apply(&Step::AdvanceMs(2_000)).len() as u64;
    let committed: u64 = sim.config.partition_ids().map(|p| sim.controller.partition(p).leader.map_or(0, |l| sim.replica(p, l).high_watermark)).sum();
    assert_eq!(committed, records, "every record is committed");
    assert!(sim.violations.is_empty());
    Throughput { records, steps: sim.step, events, simulated_ms: sim.now_ms }
}
