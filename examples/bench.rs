//! Engine benchmark: a timed run of 3 brokers on 1 ms links with auto-fetch and 1,000,000
//! produced records (acks=all, one record per simulated millisecond).
//! Reports events per second, the cost of each tenth of the run (flat = a
//! step's cost does not grow with the log) and peak memory; then the
//! explorer's states per second on the 3-broker `modern` configuration.
//!
//! `cargo run --release --example bench [-- RECORDS]`

use highwater::boundary::bench::timed_produce_run;
use highwater::search::explore::{explore, Search};
use highwater::{Config, Protocol};
use std::time::Instant;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let records: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let started = Instant::now();
    let mut lap = Instant::now();
    let mut tenths = vec![];
    let run = timed_produce_run(records, &mut |_| {
        tenths.push(lap.elapsed().as_secs_f64() * 1000.0);
        lap = Instant::now();
    });
    let seconds = started.elapsed().as_secs_f64();
    let peak = peak_rss_kib();
    println!("engine: 3 brokers, 1 ms links, auto-fetch, acks=all, one record per simulated ms");
    println!("  records          {}", run.records);
    println!("  simulated time   {} s", run.simulated_ms / 1000);
    println!("  steps            {}", run.steps);
    println!("  events           {}", run.events);
    println!("  wall time        {seconds:.2} s");
    println!("  events/second    {:.0}", run.events as f64 / seconds);
    println!("  steps/second     {:.0}", run.steps as f64 / seconds);
    let fmt: Vec<String> = tenths.iter().map(|t| format!("{t:.0}")).collect();
    println!("  ms per tenth     {}", fmt.join(" "));
    if let Some(kib) = peak {
        println!("  peak memory      {:.0} MiB ({:.0} bytes per record)", kib as f64 / 1024.0, kib as f64 * 1024.0 / records as f64);
    }

    // The same workload on a topic of 12 partitions of three replicas over 6
    // brokers: each fetch carries the partitions a follower has on a leader,
    // so a record costs more events; the figure per event is the engine's.
    let cluster_records = records / 4;
    let started = Instant::now();
    let run12 = highwater::boundary::bench::timed_cluster_run(6, 12, cluster_records, &mut |_| {});
    let seconds12 = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let run1 = highwater::boundary::bench::timed_cluster_run(6, 1, cluster_records, &mut |_| {});
    let seconds1 = started.elapsed().as_secs_f64();
    println!("engine on a cluster: 6 brokers, the same workload, {cluster_records} records");
    for (name, run, seconds) in [("12 partitions x 3 replicas", &run12, seconds12), ("1 partition on all 6", &run1, seconds1)] {
        println!("  {name:<28} {} events in {seconds:.2} s: {:.0} events/s, {:.1} events per record", run.events, run.events as f64 / seconds, run.events as f64 / run.records as f64);
    }
    println!("  per event, 12 partitions cost {:.2}x one", (seconds12 / run12.events as f64) / (seconds1 / run1.events as f64));

    // The same workload as the first, beside a KRaft quorum of 3 controllers.
    let started = Instant::now();
    let plain = highwater::boundary::bench::timed_produce_run(cluster_records, &mut |_| {});
    let seconds_plain = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let quorum = highwater::boundary::bench::timed_quorum_run(3, cluster_records, &mut |_| {});
    let seconds_quorum = started.elapsed().as_secs_f64();
    println!("engine with a quorum: 3 brokers, the first workload, {cluster_records} records");
    for (name, run, seconds) in [("without controllers", &plain, seconds_plain), ("3 controllers", &quorum, seconds_quorum)] {
        println!("  {name:<28} {} events in {seconds:.2} s: {:.0} events/s", run.events, run.events as f64 / seconds);
    }
    println!("  per event, 3 controllers cost {:.2}x none", (seconds_quorum / quorum.events as f64) / (seconds_plain / plain.events as f64));

    let config = Config { brokers: 3, protocol: Protocol::V3_7, min_insync_replicas: 2, controllers: 3, ..Config::default() };
    let search = Search { depth: 5, max_states: highwater::model::config::limits::MAX_EXPLORER_STATES, max_produces: 2, threads: 1, ..Search::new(config) };
    let started = Instant::now();
    let outcome = explore(&search, &mut |_, _| true);
    let seconds = started.elapsed().as_secs_f64();
    println!("explorer with a quorum: exhaustive, 3 brokers, 3 controllers, modern, min ISR 2, acks=all, depth {}, 1 thread", search.depth);
    println!("  distinct states  {}", outcome.states);
    println!("  states/second    {:.0}", outcome.states as f64 / seconds);

    let config = Config { brokers: 3, protocol: Protocol::V3_7, min_insync_replicas: 2, ..Config::default() };
    let search = Search { depth: 8, max_states: highwater::model::config::limits::MAX_EXPLORER_STATES, max_produces: 2, ..Search::new(config) };
    let started = Instant::now();
    let outcome = explore(&search, &mut |_, _| true);
    let seconds = started.elapsed().as_secs_f64();
    println!("explorer: exhaustive, 3 brokers, modern, min ISR 2, acks=all, depth {}", search.depth);
    println!("  found            {}", outcome.found);
    println!("  distinct states  {}", outcome.states);
    println!("  wall time        {seconds:.2} s");
    println!("  states/second    {:.0}", outcome.states as f64 / seconds);
    println!("  generated        {} (every step applied, duplicates included)", outcome.generated);
    println!("  generated/second {:.0}", outcome.generated as f64 / seconds);
}
