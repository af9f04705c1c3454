//! `highwater whatif`: every cell of the grid agrees with `highwater run
//! --json` on the same modified scenario; the known answers of the example
//! scenarios; the severity order; the CLI's JSON shape, errors and thread
//! independence.

mod common;

use highwater::run::scenario::Step;
use highwater::search::whatif::{cells, run_cell, scenario_for, whatif, CellSpec, Outcome, SEVERITY};
use highwater::{Acks, Protocol, Scenario};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn highwater(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_highwater"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn scenario_path(name: &str) -> String {
    common::scenarios_dir().join(format!("{name}.json")).display().to_string()
}

/// The grid as the CLI prints it.
fn cli_grid(name: &str, extra: &[&str]) -> Value {
    let path = scenario_path(name);
    let mut args = vec!["whatif", "--json"];
    args.extend_from_slice(extra);
    args.push(&path);
    let out = highwater(&args, None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("whatif --json prints JSON")
}

/// The cell's scenario, built here: the version as the page switches it,
/// the cell's settings, and its acks on every produce step.
fn modified(s: &Scenario, spec: &CellSpec) -> Scenario {
    let mut s = s.clone();
    s.config = s.config.with_protocol(spec.protocol);
    s.config.min_insync_replicas = spec.min_insync_replicas;
    s.config.unclean_leader_election = spec.unclean_leader_election;
    for step in &mut s.steps {
        if let Step::Produce(p) = step {
            p.acks = spec.acks;
        }
    }
    s
}

/// The outcome and step that `run --json`'s output implies: the violations
/// (kind, allowed_by, step), the final leader and the events that
/// took it away, and the refused writes with their final results.
fn expected(run: &Value) -> (String, Option<u64>) {
    let mut happened: Vec<(&str, u64)> = vec![];
    for v in run["violations"].as_array().unwrap() {
        let allowed_by = v["allowed_by"].as_str();
        assert_eq!(v["protocol_violation"].as_bool().unwrap(), allowed_by.is_none());
        let name = match allowed_by {
            Some("unclean.leader.election.enable") => "unclean_election_loss",
            Some("acks=1") => "acks1_write_lost",
            Some(other) => panic!("allowed by {other}?"),
            None => v["kind"].as_str().unwrap(),
        };
        happened.push((name, v["step"].as_u64().unwrap()));
    }
    let events = run["events"].as_array().unwrap();
    if run["partition"]["leader"].is_null() {
        // The first time it went offline after its last election (broker 1 leads from the start).
        let elected = events.iter().rposition(|e| e["type"] == "leader_elected").map_or(0, |i| i + 1);
        let offline = events[elected..].iter().find(|e| e["type"] == "partition_offline").expect("an offline event");
        happened.push(("offline", offline["step"].as_u64().unwrap()));
    }
    let producer = run["producer"].as_array().unwrap();
    let refused = events.iter().find(|e| {
        let error = e["result"]["error"].as_str().unwrap_or("");
        e["type"] == "produce_response"
            && (error == "NOT_ENOUGH_REPLICAS" || error == "NOT_ENOUGH_REPLICAS_AFTER_APPEND")
            && producer[e["request"].as_u64().unwrap() as usize]["result"] != "acked"
    });
    if let Some(e) = refused {
        happened.push(("not_enough_replicas", e["step"].as_u64().unwrap()));
    }
    let order = [
        "acked_write_lost",
        "committed_divergence",
        "consumer_saw_vanished_record",
        "hw_exceeds_leo",
        "unclean_election_loss",
        "acks1_write_lost",
        "offline",
        "not_enough_replicas",
    ];
    for kind in order {
        if let Some(step) = happened.iter().filter(|h| h.0 == kind).map(|h| h.1).min() {
            return (kind.to_string(), Some(step));
        }
    }
    ("safe".to_string(), None)
}

fn run_json(s: &Scenario) -> Value {
    let out = highwater(&["run", "--json", "-"], Some(&s.to_json_pretty()));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("run --json: {e}\n{}", String::from_utf8_lossy(&out.stderr)))
}

/// Every cell of five scenarios (384 runs of the binary), against `run --json`.
#[test]
fn every_cell_follows_from_run_json() {
    for name in ["kip101-loss-after-restart", "unclean-election-loss", "not-enough-replicas", "offline-without-unclean", "acks1-loss-after-failover"] {
        let s = common::load(name);
        let grid = cli_grid(name, &[]);
        let specs = cells(&s);
        let cli_cells = grid["cells"].as_array().unwrap();
        assert_eq!(cli_cells.len(), specs.len(), "{name}");
        assert_eq!(specs.len(), 8 * 2 * 2 * s.config.brokers as usize);
        for (spec, cell) in specs.iter().zip(cli_cells) {
            let m = modified(&s, spec);
            assert_eq!(scenario_for(&s, spec), m);
            let run = run_json(&m);
            let (outcome, step) = expected(&run);
            let at = format!("{name} {spec:?}");
            assert_eq!(cell["protocol"], spec.protocol.name(), "{at}");
            assert_eq!(cell["acks"], spec.acks.name(), "{at}");
            assert_eq!(cell["outcome"], outcome.as_str(), "{at}");
            assert_eq!(cell["step"].as_u64(), step, "{at}");
            assert_eq!(cell.get("stopped"), run["stopped"].as_str().map(Value::from).as_ref(), "{at}");
        }
    }
}

fn cell<'a>(grid: &'a [highwater::search::whatif::Cell], p: Protocol, acks: Acks, min_isr: u32, unclean: bool) -> &'a highwater::search::whatif::Cell {
    grid.iter()
        .find(|c| c.spec == CellSpec { protocol: p, acks, min_insync_replicas: min_isr, unclean_leader_election: unclean })
        .unwrap()
}

fn grid_of(name: &str) -> Vec<highwater::search::whatif::Cell> {
    whatif(&common::load(name)).unwrap().cells
}

#[test]
fn kip101_loses_the_acked_write_under_0_10_only() {
    let g = grid_of("kip101-loss-after-restart");
    for c in &g {
        let (outcome, step) = match (c.spec.protocol, c.spec.acks) {
            (Protocol::V0_10, Acks::All) => (Outcome::AckedWriteLost, Some(17)),
            (Protocol::V0_10, _) => (Outcome::Acks1WriteLost, Some(17)),
            // Leader epochs (KIP-101): the follower asks before it truncates.
            _ => (Outcome::Safe, None),
        };
        assert_eq!((c.outcome, c.step), (outcome, step), "{:?}", c.spec);
    }
}

/// 2.8's ZooKeeper session timeout is 18 s (KIP-537): the scenarios' 9 s
/// after the crash are too short for the controller to notice, so nothing
/// fails over and nothing is lost or offline in that version.
/// What the unclean election loses is allowed by the setting, in every
/// version: no cell of this scenario breaks a guarantee.
#[test]
fn unclean_election_loses_the_acked_write_only_when_on() {
    let g = grid_of("unclean-election-loss");
    for c in &g {
        if c.outcome == Outcome::UncleanElectionLoss {
            assert!(c.spec.unclean_leader_election, "{:?}", c.spec);
        }
        assert_ne!(c.outcome, Outcome::AckedWriteLost, "{:?}", c.spec);
    }
    for p in Protocol::ALL.into_iter().filter(|&p| p != Protocol::V2_8) {
        let on = cell(&g, p, Acks::All, 1, true);
        assert_eq!((on.outcome, on.step), (Outcome::UncleanElectionLoss, Some(9)), "{p}");
        let off = cell(&g, p, Acks::All, 1, false);
        assert_eq!((off.outcome, off.step), (Outcome::Offline, Some(9)), "{p}");
    }
    assert_eq!(cell(&g, Protocol::V2_8, Acks::All, 1, true).outcome, Outcome::Safe);
}

#[test]
fn offline_without_unclean() {
    let g = grid_of("offline-without-unclean");
    for c in g.iter().filter(|c| !c.spec.unclean_leader_election && c.spec.protocol != Protocol::V2_8) {
        assert_eq!((c.outcome, c.step), (Outcome::Offline, Some(9)), "{:?}", c.spec);
    }
}

#[test]
fn not_enough_replicas_where_min_isr_exceeds_the_live_isr() {
    let g = grid_of("not-enough-replicas");
    for c in &g {
        // Both followers are dead: the live ISR is the leader alone.
        let refused = c.spec.acks == Acks::All && c.spec.min_insync_replicas > 1;
        if !refused {
            assert_eq!(c.outcome, Outcome::Safe, "{:?}", c.spec);
            continue;
        }
        // 2.8's 18 s session outlives the 9 s advance: the write is appended
        // with the followers still in the ISR, and refused in step 6 when
        // the sessions expire and the ISR shrinks to the leader
        // (NOT_ENOUGH_REPLICAS_AFTER_APPEND, then NOT_ENOUGH_REPLICAS).
        let step = if c.spec.protocol == Protocol::V2_8 { 6 } else { 4 };
        assert_eq!((c.outcome, c.step), (Outcome::NotEnoughReplicas, Some(step)), "{:?}", c.spec);
    }
}

/// Two outcomes in one run: the cell shows the more severe, at its own step.
#[test]
fn the_most_severe_outcome_wins() {
    assert_eq!(SEVERITY[0], Outcome::AckedWriteLost);
    assert_eq!(SEVERITY[SEVERITY.len() - 1], Outcome::NotEnoughReplicas);
    assert!(!SEVERITY.contains(&Outcome::Safe));
    let s = common::load("unclean-election-loss");
    // 0.11, acks=all, min ISR 2, unclean off: m2 is refused at step 6
    // (the ISR is broker 1 alone), then the partition goes offline at step 9.
    let spec = CellSpec { protocol: Protocol::V0_11, acks: Acks::All, min_insync_replicas: 2, unclean_leader_election: false };
    let run = run_json(&scenario_for(&s, &spec));
    assert_eq!(run["producer"][1]["last_error"], "NOT_ENOUGH_REPLICAS");
    assert!(run["partition"]["leader"].is_null());
    let c = run_cell(&s, &spec);
    assert_eq!((c.outcome, c.step), (Outcome::Offline, Some(9)));
    // 0.10, unclean on: m2 is refused at step 6 too, but broker 2 comes back
    // truncated to its HW 0 (pre-KIP-101) and is elected uncleanly at step 9
    // without the acknowledged m1: out of the ISR, it lacked m1 when it was
    // elected, a loss unclean.leader.election.enable allows.
    let spec = CellSpec { protocol: Protocol::V0_10, unclean_leader_election: true, ..spec };
    let run = run_json(&scenario_for(&s, &spec));
    assert_eq!(run["producer"][1]["last_error"], "NOT_ENOUGH_REPLICAS");
    assert_eq!(run["violations"][0]["kind"], "acked_write_lost");
    assert_eq!(run["violations"][0]["allowed_by"], "unclean.leader.election.enable");
    let c = run_cell(&s, &spec);
    assert_eq!((c.outcome, c.step), (Outcome::UncleanElectionLoss, Some(9)));
    // Constructed: the acks=1 loss of a failover (step 6), then the new
    // leader dies too and the partition goes offline (step 8).
    let mut s = common::load("acks1-loss-after-failover");
    s.steps.extend([Step::Crash(highwater::run::scenario::Crash::broker(2, 0)), Step::AdvanceMs(9_000)]);
    let spec = CellSpec { protocol: Protocol::V3_7, acks: Acks::One, min_insync_replicas: 1, unclean_leader_election: false };
    let run = run_json(&scenario_for(&s, &spec));
    assert!(run["partition"]["leader"].is_null());
    assert_eq!(run["violations"][0]["protocol_violation"], false);
    let c = run_cell(&s, &spec);
    assert_eq!((c.outcome, c.step), (Outcome::Acks1WriteLost, Some(6)));
    assert_eq!(expected(&run), ("acks1_write_lost".to_string(), Some(6)));
    // The whole order.
    let at = |o| SEVERITY.iter().position(|&x| x == o).unwrap();
    assert!(at(Outcome::AckedWriteLost) < at(Outcome::CommittedDivergence));
    assert!(at(Outcome::CommittedDivergence) < at(Outcome::ConsumerSawVanishedRecord));
    assert!(at(Outcome::ConsumerSawVanishedRecord) < at(Outcome::UncleanElectionLoss));
    assert!(at(Outcome::UncleanElectionLoss) < at(Outcome::Acks1WriteLost));
    assert!(at(Outcome::Acks1WriteLost) < at(Outcome::Offline));
    assert!(at(Outcome::Offline) < at(Outcome::NotEnoughReplicas));
}

/// A run that goes past a work budget: classified up to the stop, with the
/// budget's words.
#[test]
fn a_budget_stop_is_reported_with_the_cell() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/worst-case/isr-change-spin.json");
    let s = Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    let spec = CellSpec { protocol: Protocol::V3_7, acks: Acks::All, min_insync_replicas: 1, unclean_leader_election: false };
    let c = run_cell(&s, &spec);
    let run = run_json(&scenario_for(&s, &spec));
    let words = run["stopped"].as_str().expect("the run stops at a budget");
    assert_eq!(c.stopped.as_deref(), Some(words));
    assert_eq!((c.outcome.name().to_string(), c.step), expected(&run));
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(v["stopped"], words);
}

#[test]
fn the_json_shape() {
    let grid = cli_grid("kip101-loss-after-restart", &[]);
    let top: Vec<&String> = grid.as_object().unwrap().keys().collect();
    assert_eq!(top, ["cells"]);
    let cells = grid["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 8 * 2 * 3 * 2);
    let mut order = vec![];
    for c in cells {
        let o = c.as_object().unwrap();
        let mut keys: Vec<&str> = o.keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["acks", "min_insync_replicas", "outcome", "protocol", "step", "unclean_leader_election"]);
        assert!(c["protocol"].is_string() && c["acks"].is_string() && c["outcome"].is_string());
        assert!(c["min_insync_replicas"].is_u64() && c["unclean_leader_election"].is_boolean());
        assert!(c["step"].is_u64() || (c["step"].is_null() && c["outcome"] == "safe"), "{c}");
        order.push((c["protocol"].as_str().unwrap(), c["acks"].as_str().unwrap(), c["min_insync_replicas"].as_u64().unwrap(), c["unclean_leader_election"].as_bool().unwrap()));
    }
    let mut expected = vec![];
    for p in ["0.10", "0.11", "2.0", "2.1", "2.8", "3.5", "3.7", "4.1"] {
        for acks in ["1", "all"] {
            for min_isr in 1..=3 {
                for unclean in [false, true] {
                    expected.push((p, acks, min_isr, unclean));
                }
            }
        }
    }
    assert_eq!(order, expected);
    assert_eq!(cells[6]["outcome"], "acked_write_lost");
    assert_eq!(cells[6]["step"], 17);
}

#[test]
fn bad_input_exits_2_naming_the_field() {
    let out = highwater(&["whatif", "/nonexistent/scenario.json"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/scenario.json"));
    let out = highwater(&["whatif", "--json", "-"], Some(r#"{"version": 1, "config": {"brokers": 9}}"#));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("standard input: config.brokers: 9 is out of range"), "{err}");
    assert!(out.stdout.is_empty());
    let out = highwater(&["whatif", "-"], Some(r#"{"version": 1, "steps": [{"produce": {"value": "x", "acks": "2"}}]}"#));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("steps[0].produce.acks"));
}

#[test]
fn the_output_does_not_depend_on_the_threads() {
    for name in ["kip101-loss-after-restart", "eligible-leader-replicas"] {
        let path = scenario_path(name);
        for json in [true, false] {
            let run = |threads: &str| {
                let mut args = vec!["whatif", "--threads", threads];
                if json {
                    args.push("--json");
                }
                args.push(&path);
                let out = highwater(&args, None);
                assert!(out.status.success());
                out.stdout
            };
            let one = run("1");
            assert_eq!(one, run("7"), "{name}");
            assert_eq!(one, run("64"), "{name}");
        }
        // The library's grid, one cell after another, is the CLI's.
        let lib = serde_json::to_value(whatif(&common::load(name)).unwrap()).unwrap();
        assert_eq!(lib, cli_grid(name, &["--threads", "3"]));
    }
}

/// A cell is a whole run: it stops at the same step, for the same budget and
/// with the same words as the timeline that loads its scenario (`highwater
/// run`, the page), under the default budgets and under lowered ones.
#[test]
fn every_cell_runs_under_the_budgets_of_a_single_run() {
    use highwater::model::config::Budgets;
    use highwater::search::whatif::{run_cell_with, run_outcome};
    use highwater::Timeline;
    let text = r#"{"version":1,"config":{"brokers":2,"auto_fetch":true},"steps":[
        {"produce":{"value":"a"}},{"advance_ms":10000},{"advance_ms":10000},{"advance_ms":10000},{"advance_ms":10000}]}"#;
    let s = Scenario::from_json(text).unwrap();
    let one_step = Timeline::new(&Scenario { steps: s.steps[..2].to_vec(), ..s.clone() }).unwrap().events().len() as u64;
    for budgets in [Budgets::default(), Budgets { events_per_run: one_step * 2, ..Budgets::default() }] {
        let mut stops = 0;
        for spec in cells(&s) {
            let timeline = Timeline::with_budgets(&scenario_for(&s, &spec), budgets).unwrap();
            let cell = run_cell_with(&s, &spec, budgets);
            assert_eq!(cell.stopped, timeline.stopped(), "{spec:?} under {budgets:?}");
            stops += cell.stopped.is_some() as u32;
        }
        assert_eq!(stops > 0, budgets != Budgets::default(), "the lowered budget stops runs, the default does not");
        if budgets == Budgets::default() {
            assert_eq!(run_outcome(&s).stopped, None);
        }
    }
}

/// The grid has a budget of its own (`MAX_WORK_PER_GRID`): `highwater
/// whatif` ran far past a second on inputs `run` opens in 0.02-0.29 s (52 s
/// for the fuzz seed 4242 on 2 threads, 15 s for the 860k events seed, 5.2 s
/// for timed-hour.json). Now every worst-case input and fuzz seed answers or
/// is refused within a second, the refusal naming the limit, and every
/// gallery scenario still gets its whole grid.
#[test]
fn the_grid_answers_or_refuses_within_a_second_on_every_worst_case() {
    use highwater::search::whatif::{GridWork, MAX_WORK_PER_GRID};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<(String, String)> = vec![];
    for dir in ["tests/worst-case", "tests/fuzz-seeds"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let json = match path.extension().and_then(|e| e.to_str()) {
                Some("json") => text,
                Some("link") => match highwater::run::link::decode(text.trim()) {
                    Ok(s) => s.to_json_pretty(),
                    Err(_) => continue, // refused links: nothing to run
                },
                _ => continue,
            };
            inputs.push((path.file_name().unwrap().to_string_lossy().into(), json));
        }
    }
    assert!(inputs.len() >= 15, "{}", inputs.len());
    let mut refused = 0;
    for (name, json) in &inputs {
        let started = std::time::Instant::now();
        let out = highwater(&["whatif", "--threads", "2", "-"], Some(json));
        let took = started.elapsed().as_secs_f64();
        assert!(took < 1.0, "{name}: {took:.2} s");
        let err = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {}
            Some(2) => {
                assert!(err.contains(&format!("go past the grid's budget of {} units of work (MAX_WORK_PER_GRID)", highwater::base::text::thousands(MAX_WORK_PER_GRID))), "{name}: {err}");
                assert!(err.lines().count() == 1 && err.len() < 300, "{name}: {err}");
                refused += 1;
            }
            other => panic!("{name}: exit {other:?}: {err}"),
        }
    }
    assert!(refused > 0);
    // The library's grid refuses the same way, and the gallery's scenarios fit with room to spare.
    let big = Scenario::from_json(&std::fs::read_to_string(root.join("tests/worst-case/timed-hour.json")).unwrap()).unwrap();
    assert!(whatif(&big).unwrap_err().0.contains("MAX_WORK_PER_GRID"));
    for name in common::scenario_names() {
        let s = common::load(&name);
        let grid = whatif(&s).unwrap();
        let work: u64 = grid.cells.iter().map(|c| c.work).sum();
        assert!(work * 20 < MAX_WORK_PER_GRID, "{work}");
    }
    // A grid whose cells together pass a budget is refused, whichever cell found it.
    let s = common::load("kip101-loss-after-restart");
    let specs = cells(&s);
    let work = GridWork::with_limit(specs.len(), 2_000);
    let outcome: Result<(), String> = specs.iter().try_for_each(|spec| work.add(&run_cell(&s, spec)));
    assert!(outcome.unwrap_err().starts_with("whatif: its 96 cells together go past the grid's budget of 2,000 units of work"));
}
