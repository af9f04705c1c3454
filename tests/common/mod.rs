//! Helpers shared by the integration tests.
#![allow(dead_code)]

use highwater::{Protocol, Scenario, Simulation, Traced, Violation, ViolationKind};
use std::path::{Path, PathBuf};

pub fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios")
}

/// Every scenario's name for `load`: one partition's (`tests/scenarios/`),
/// then a topic's on a cluster (`cluster/name`), each folder sorted.
pub fn scenario_names() -> Vec<String> {
    let mut out = vec![];
    for folder in ["", "cluster/"] {
        let mut names: Vec<String> = std::fs::read_dir(scenarios_dir().join(folder))
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok()?.strip_suffix(".json").map(|n| format!("{folder}{n}")))
            .collect();
        names.sort();
        out.extend(names);
    }
    out
}

pub fn load(name: &str) -> Scenario {
    let path = scenarios_dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Scenario::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The scenario under another version preset; settings left at the old
/// version's defaults take the new version's (`Config::with_protocol`).
/// The version presets a scenario can run under: every one, or only the
/// KRaft ones (3.5 on) for a scenario with a controller quorum, whose steps
/// name controllers that a ZooKeeper-era cluster does not have.
pub fn protocols_for(s: &Scenario) -> Vec<Protocol> {
    Protocol::ALL.into_iter().filter(|p| s.config.controllers == 0 || p.has_kraft()).collect()
}

pub fn with_protocol(mut s: Scenario, p: Protocol) -> Scenario {
    s.config = s.config.with_protocol(p);
    s
}

pub struct Run {
    pub sim: Simulation,
    pub events: Vec<Traced>,
}

impl Run {
    pub fn trace(&self) -> String {
        self.events.iter().map(|e| format!("{e}\n")).collect()
    }

    pub fn violations(&self, kind: ViolationKind) -> Vec<&Violation> {
        self.sim.violations.iter().filter(|v| v.kind == kind).collect()
    }
}

pub fn run(s: &Scenario) -> Run {
    let mut sim = Simulation::new(s.config.clone());
    let mut events = vec![];
    for step in &s.steps {
        events.extend(sim.apply(step));
    }
    Run { sim, events }
}
