//! Golden traces: every scenario in `tests/scenarios/` (and its `cluster/`) is run (under each
//! generation listed below, or its own) and its trace compared line by line
//! with `tests/golden/<name>.<generation>.trace` (`tests/golden/cluster/` for a cluster's). The header of each golden
//! file says why the run matters (the scenario's description).
//!
//! After reviewing a change in behaviour, rewrite the expectations with
//! `HIGHWATER_BLESS=1 cargo test --test golden` (or `make bless`).

mod common;

use highwater::Protocol;
use std::fmt::Write;

/// Scenarios whose point is the difference between versions: each runs
/// under every version preset (`Config::with_protocol`).
const EVERY_GENERATION: &[&str] = &[
    "kip101-loss-after-restart",
    "kip101-divergence-after-power-loss",
    "kip279-fast-leader-change",
    "hw-frozen-under-min-isr",
    "eligible-leader-replicas",
    "consumer-saw-vanished-record",
];

#[test]
fn golden_traces() {
    let bless = std::env::var_os("HIGHWATER_BLESS").is_some();
    let golden_dir = common::scenarios_dir().join("../golden");
    let names = common::scenario_names();
    assert!(names.len() >= 12, "the scenario folder is incomplete: {names:?}");
    let mut failures = vec![];
    let mut checked = 0;
    for name in &names {
        let scenario = common::load(name);
        let protocols =
            if EVERY_GENERATION.contains(&name.as_str()) { Protocol::ALL.to_vec() } else { vec![scenario.config.protocol] };
        for p in protocols {
            let run = common::run(&common::with_protocol(scenario.clone(), p));
            let mut text = String::new();
            writeln!(text, "# {} ({p})", scenario.name).unwrap();
            for line in textwrap(&scenario.description, 78) {
                writeln!(text, "# {line}").unwrap();
            }
            text += &run.trace();
            let path = golden_dir.join(format!("{name}.{p}.trace"));
            if bless {
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            checked += 1;
            let expected = std::fs::read_to_string(&path).unwrap_or_default();
            if expected != text {
                let at = expected.lines().zip(text.lines()).position(|(a, b)| a != b).unwrap_or(expected.lines().count().min(text.lines().count()));
                failures.push(format!(
                    "{}: differs at line {}\n  expected: {}\n  actual:   {}",
                    path.display(),
                    at + 1,
                    expected.lines().nth(at).unwrap_or("<end of file>"),
                    text.lines().nth(at).unwrap_or("<end of trace>")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "golden traces differ (review, then HIGHWATER_BLESS=1 to accept):\n{}", failures.join("\n"));
    assert!(bless || checked >= 20, "only {checked} golden traces were compared");
}

fn textwrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![];
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
