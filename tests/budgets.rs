//! Bounded work: every valid run finishes within its budgets or stops at a
//! step with an event naming the limit. The reproducers of past findings are
//! kept in tests/worst-case/ and run here.

mod common;

use highwater::model::config::{limits, Budget, Budgets};
use highwater::base::text::thousands;
use highwater::model::event::Repeated;
use highwater::{Event, Scenario, Simulation, Step, Timeline};
use std::path::Path;

fn worst_case(name: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/worst-case").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Scenario::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A timed-out fetch closes its connection (`NetworkClient`): the request or
/// response still on the wire is discarded, so a follower never has more than
/// one fetch exchange in flight, however far away it is.
#[test]
fn a_timed_out_fetch_discards_what_is_in_flight_on_its_connection() {
    let s = worst_case("in-flight-responses");
    let mut sim = Simulation::new(s.config.clone());
    let (mut most_in_flight, mut discarded) = (0, 0);
    for step in &s.steps {
        for e in sim.apply(step) {
            if let Event::FetchTimedOut { discarded: d, .. } = e.event {
                discarded += d;
            }
        }
        most_in_flight = most_in_flight.max(sim.network.in_flight.len());
    }
    assert_eq!(sim.stopped(), None);
    assert!(discarded > 0, "the timed-out fetches discarded nothing");
    // Checked after each step; within the long advance the test below looks closer.
    assert!(most_in_flight <= 6, "{most_in_flight} messages in flight");
}

#[test]
fn in_flight_messages_stay_one_exchange_per_follower_during_a_long_advance() {
    let mut s = worst_case("in-flight-responses");
    // Advance in small steps to look at the wire often.
    let last = s.steps.pop();
    assert_eq!(last, Some(Step::AdvanceMs(3_590_000)));
    s.steps.extend(std::iter::repeat(Step::AdvanceMs(997)).take(200));
    let mut sim = Simulation::new(s.config.clone());
    for step in &s.steps {
        sim.apply(step);
        assert!(sim.network.in_flight.len() <= 6, "{} in flight at {} ms", sim.network.in_flight.len(), sim.now_ms);
    }
}

/// Kafka keeps an AlterPartition pending and retries it until answered; it
/// does not propose the change again on every ISR check. The hour of ISR
/// checks every millisecond is work that leaves no event: the work budget
/// stops it.
#[test]
fn an_unreachable_controller_leaves_one_pending_isr_change_not_millions() {
    let s = worst_case("isr-change-spin");
    let run = common::run(&s);
    let failed: Vec<_> = run.events.iter().filter(|e| matches!(e.event, Event::IsrChangeFailed { .. })).collect();
    assert_eq!(failed.len(), 1, "{}", run.trace());
    assert!(failed[0].repeated.is_none());
    assert!(run.events.len() < 100, "{} events", run.events.len());
    assert_eq!(run.sim.stopped(), Some(Budget::WorkPerStep));
    // One ISR check per millisecond: the budget is reached at about 400 s.
    assert!((380_000..420_000).contains(&run.sim.now_ms), "stopped at {} ms", run.sim.now_ms);
}

/// Healed before its session expires, the leader's pending ISR shrink is
/// answered: the controller accepts it.
#[test]
fn a_pending_isr_change_is_retried_when_the_controller_is_reachable_again() {
    let text = r#"{"version":1,"config":{"brokers":3,"replica_lag_time_max_ms":1000},
        "steps":[{"isolate":1},{"advance_ms":1500},{"advance_ms":2000},{"heal":"all"}]}"#;
    let s = Scenario::from_json(text).unwrap();
    let mut sim = Simulation::new(s.config.clone());
    sim.apply(&s.steps[0]);
    let first = sim.apply(&s.steps[1]);
    assert!(first.iter().any(|e| matches!(e.event, Event::IsrChangeFailed { .. })), "{first:?}");
    assert_eq!(sim.replica(0, 1).pending_isr.map(|p| p.to_vec()), Some(vec![1]));
    let waiting = sim.apply(&s.steps[2]);
    assert!(!waiting.iter().any(|e| matches!(e.event, Event::IsrChangeFailed { .. } | Event::IsrShrunk { .. })), "{waiting:?}");
    let healed = sim.apply(&s.steps[3]);
    assert!(
        healed.iter().any(|e| matches!(&e.event, Event::IsrShrunk { leader: Some(1), isr, by_controller: false, .. } if isr == &vec![1])),
        "{healed:?}"
    );
    assert_eq!(sim.replica(0, 1).pending_isr, None);
    assert_eq!(sim.controller.partition(0).isr.as_slice(), &[1]);
}

/// An hour of timed mode with 10 ms fetch waits is millions of events: the
/// step stops at the per-step budget, with the event naming the limit, and
/// the clock where the work stopped.
#[test]
fn a_step_past_its_event_budget_stops_the_run_with_the_limit_named() {
    let s = worst_case("timed-hour");
    let mut sim = Simulation::new(s.config.clone());
    let events = sim.apply(&s.steps[0]);
    assert_eq!(sim.stopped(), Some(Budget::EventsPerStep));
    let last = events.last().unwrap();
    assert_eq!(last.event, Event::BudgetExceeded { budget: Budget::EventsPerStep, limit: limits::MAX_EVENTS_PER_STEP });
    let line = last.to_string();
    assert!(line.contains(&format!("more than {} events (limit MAX_EVENTS_PER_STEP)", thousands(limits::MAX_EVENTS_PER_STEP))), "{line}");
    assert!(sim.now_ms > 0 && sim.now_ms < 3_600_000, "stopped at {} ms", sim.now_ms);
    // Nothing runs after a stop.
    let after = sim.apply(&Step::AdvanceMs(1));
    assert!(matches!(&after[..], [e] if matches!(&e.event, Event::StepRejected { reason, .. } if reason.contains("MAX_EVENTS_PER_STEP"))), "{after:?}");
}

#[test]
fn a_run_past_its_event_budget_stops_at_that_step() {
    let text = r#"{"version":1,"config":{"brokers":3,"auto_fetch":true},"steps":[
        {"advance_ms":10000},{"advance_ms":10000},{"advance_ms":10000},{"advance_ms":10000}]}"#;
    let s = Scenario::from_json(text).unwrap();
    let per_step = Simulation::new(s.config.clone()).apply(&s.steps[0]).len() as u64;
    let stop = run_under(text, Budgets { events_per_run: per_step * 2 + per_step / 2, ..Budgets::default() });
    assert_eq!((stop.step, stop.budget), (Some(3), Some(Budget::EventsPerRun)));
    assert!(matches!(stop.last_event, Some(Event::BudgetExceeded { budget: Budget::EventsPerRun, .. })));
}

/// Where a run under lowered budgets stopped.
struct Stop {
    step: Option<u64>,
    budget: Option<Budget>,
    last_event: Option<Event>,
    line: String,
}

/// Runs a scenario under other budgets, stopping at the first budget.
fn run_under(text: &str, budgets: Budgets) -> Stop {
    let s = Scenario::from_json(text).unwrap();
    let mut sim = Simulation::new(s.config.clone());
    sim.accounting.budgets = budgets;
    for step in &s.steps {
        let events = sim.apply(step);
        if sim.stopped().is_some() {
            let last = events.last().cloned();
            return Stop { step: Some(sim.step), budget: sim.stopped(), line: last.as_ref().map(|e| e.to_string()).unwrap_or_default(), last_event: last.map(|e| e.event) };
        }
    }
    Stop { step: None, budget: None, last_event: None, line: String::new() }
}

#[test]
fn too_many_messages_in_flight_stop_the_run() {
    let text = r#"{"version":1,"config":{"brokers":5,"auto_fetch":true,"link_latency_ms":50},"steps":[{"advance_ms":1000}]}"#;
    let stop = run_under(text, Budgets { messages_in_flight: 1, ..Budgets::default() });
    assert_eq!(stop.budget, Some(Budget::MessagesInFlight));
    assert!(stop.line.contains("messages were in flight at once (limit MAX_MESSAGES_IN_FLIGHT)"), "{}", stop.line);
}

/// A link or file that goes past a budget still loads: the timeline ends at
/// the step that stopped, says why, refuses to go on, and is usable again
/// from any earlier step.
#[test]
fn a_timeline_keeps_what_ran_before_the_stop_and_continues_from_earlier_steps() {
    let mut s = worst_case("timed-hour");
    s.steps.insert(0, Step::AdvanceMs(1000));
    s.steps[1] = Step::AdvanceMs(3_590_000);
    s.steps.push(Step::AdvanceMs(1));
    let mut t = Timeline::new(&s).expect("loads");
    assert_eq!(t.len(), 2, "the step after the stop is left out");
    let why = t.stopped().expect("stopped");
    assert!(why.contains("MAX_EVENTS_PER_STEP"), "{why}");
    let refused = t.apply(Step::AdvanceMs(1)).unwrap_err();
    assert!(refused.contains("step 2") && refused.contains("MAX_EVENTS_PER_STEP"), "{refused}");
    t.seek(1).unwrap();
    assert_eq!(t.stopped(), None);
    t.apply(Step::AdvanceMs(1000)).expect("a shorter step from before the stop runs");
    assert_eq!((t.len(), t.current().now_ms), (2, 2000));
}

/// The snapshots a timeline keeps to seek with stay under their byte budget
/// when the logs grow large, and seeking still lands on the same state.
#[test]
fn timeline_snapshots_are_thinned_to_their_byte_budget() {
    let mut s = Scenario::new(highwater::Config { brokers: 7, auto_fetch: true, ..Default::default() });
    for i in 0..4_999 {
        s.steps.push(Step::Produce(highwater::run::scenario::Produce { value: format!("v{i}"), acks: highwater::Acks::One, to: None, partition: None, key: None }));
        s.steps.push(Step::AdvanceMs(20));
    }
    // Ten thousand timed steps: more events than a run may cause, so only the snapshots' budget is the one under test.
    let roomy = Budgets { events_per_run: u64::MAX, events_per_step: u64::MAX, work_per_run: u64::MAX, ..Budgets::default() };
    let unbounded = Timeline::with_budgets(&s, Budgets { timeline_snapshot_bytes: usize::MAX, ..roomy }).unwrap();
    let budget = unbounded.snapshot_bytes() / 4;
    let mut t = Timeline::with_budgets(&s, Budgets { timeline_snapshot_bytes: budget, ..roomy }).unwrap();
    assert!(t.snapshot_bytes() <= budget, "{} bytes over a budget of {budget}", t.snapshot_bytes());
    let (kept, every) = t.snapshot_spacing();
    let (kept_unbounded, every_unbounded) = unbounded.snapshot_spacing();
    assert!(kept < kept_unbounded && every > every_unbounded, "{kept} snapshots every {every} steps, {kept_unbounded} every {every_unbounded} without the budget");
    let mut fresh = Simulation::new(s.config.clone());
    fresh.accounting.budgets = roomy;
    for step in &s.steps[..7_001] {
        fresh.apply(step);
    }
    t.seek(7_001).unwrap();
    assert_eq!(t.current().brokers, fresh.brokers);
    assert_eq!(t.current().now_ms, fresh.now_ms);
}

/// Identical events in a row are one trace line with a count.
#[test]
fn repeated_events_are_coalesced_with_a_count() {
    let traced = highwater::Traced {
        step: 2,
        time_ms: 1,
        partition: None,
        event: Event::FetcherPaused { broker: 2 },
        repeated: Some(Repeated { more: 3_599_998, until_ms: 3_600_000 }),
    };
    assert_eq!(traced.to_string(), "      1 ms  #2   broker 2 fetcher paused (… 3,599,998 more times until 3600000 ms)");
}

/// `highwater run` prints the trace up to the stop, then exits 2 with the
/// same words; `--json` stays one valid object with the events and the
/// final state, which says why it stopped.
#[test]
fn the_command_line_stops_with_exit_two_and_the_same_words() {
    let bin = env!("CARGO_BIN_EXE_highwater");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/worst-case/timed-hour.json");
    let out = std::process::Command::new(bin).arg("run").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let last = stdout.lines().last().unwrap();
    let words = last.split_once("#1   ").unwrap().1;
    let expected = format!("stopped: this step caused more than {} events (limit MAX_EVENTS_PER_STEP)", thousands(limits::MAX_EVENTS_PER_STEP));
    assert!(words.starts_with(&expected), "{last}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(&format!("step 1: {words}")), "{stderr}");

    let out = std::process::Command::new(bin).args(["run", "--json"]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let events = v["events"].as_array().unwrap();
    assert_eq!(events.last().unwrap()["type"], "budget_exceeded");
    assert_eq!(events.last().unwrap()["budget"], "events_per_step");
    assert_eq!(v["stopped"].as_str(), Some(words));
    assert!(v["brokers"].as_array().is_some_and(|b| b.len() == 7));
}

/// Producer retries refused the same way leave no event; the work budget
/// counts them (and every moment the clock stops at), so records retried
/// every millisecond for an hour stop the run instead of running for minutes.
#[test]
fn retries_that_leave_no_event_count_against_the_work_budget() {
    let mut s = Scenario::from_json(
        r#"{"version":1,"config":{"min_insync_replicas":3,"replica_lag_time_max_ms":2,"retry_backoff_ms":1,"delivery_timeout_ms":3600000},
            "steps":[{"isolate":3},{"advance_ms":1000}]}"#,
    )
    .unwrap();
    for i in 0..200 {
        s.steps.push(Step::Produce(highwater::run::scenario::Produce { value: format!("m{i}"), acks: highwater::Acks::All, to: None, partition: None, key: None }));
    }
    s.steps.push(Step::AdvanceMs(3_599_000));
    let run = common::run(&s);
    assert_eq!(run.sim.stopped(), Some(Budget::WorkPerStep), "{}", run.trace());
    let last = run.events.last().unwrap().to_string();
    let expected = format!("this step ran more than {} timer firings and producer retries (limit MAX_WORK_PER_STEP)", thousands(limits::MAX_WORK_PER_STEP));
    assert!(last.contains(&expected), "{last}");
    assert!(run.events.len() < 5_000, "{} events: the retries were not traced one by one", run.events.len());
    assert!(run.sim.now_ms < 3_600_000);
}

#[test]
fn work_over_the_whole_run_is_bounded_too() {
    let text = r#"{"version":1,"config":{"replica_lag_time_max_ms":2},"steps":[{"advance_ms":300000},{"advance_ms":300000},{"advance_ms":300000}]}"#;
    // 300,000 ISR checks per step (every millisecond), under the step's budget: the second step passes 500,000.
    let stop = run_under(text, Budgets { work_per_run: 500_000, ..Budgets::default() });
    assert_eq!((stop.step, stop.budget), (Some(2), Some(Budget::WorkPerRun)));
}

/// Every input worth slicing: the worst cases, the fuzz seeds (links and
/// files) and the scenarios, as scenarios (those that read).
fn sliceable_inputs() -> Vec<(String, Scenario)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut out = vec![];
    for dir in ["worst-case", "fuzz-seeds", "scenarios", "scenarios/cluster"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let scenario = match path.extension().and_then(|e| e.to_str()) {
                Some("json") => Scenario::from_json(&text).ok(),
                Some("link") => highwater::link::decode(text.trim()).ok(),
                _ => None,
            };
            if let Some(s) = scenario {
                out.push((path.file_name().unwrap().to_string_lossy().into_owned(), s));
            }
        }
    }
    out
}

/// A timeline built in slices (the page's way with a long link: a clock
/// step paused where its loop checks the budgets, and gone on with) is the
/// one built at once: the same events, step ends, stop and final state,
/// whatever the slice.
#[test]
fn a_timeline_built_in_slices_is_the_one_built_at_once() {
    let inputs = sliceable_inputs();
    assert!(inputs.len() >= 30, "{} inputs", inputs.len());
    let mut paused_somewhere = 0;
    for (name, scenario) in &inputs {
        let whole = Timeline::new(scenario).unwrap();
        for slice in [1u64, 97, 5_000] {
            let mut build = Timeline::build(scenario, Budgets::default()).unwrap();
            let mut runs = 0u64;
            while !build.run(slice).unwrap() {
                runs += 1;
            }
            paused_somewhere += (runs > build.progress().1 as u64) as u32;
            let sliced = build.finish();
            assert_eq!(sliced.len(), whole.len(), "{name}, slice {slice}");
            assert_eq!(sliced.step_ends(), whole.step_ends(), "{name}, slice {slice}");
            assert!(sliced.all_events() == whole.all_events(), "{name}, slice {slice}: the events differ");
            assert_eq!(sliced.stopped(), whole.stopped(), "{name}, slice {slice}");
            assert!(*sliced.current() == *whole.current(), "{name}, slice {slice}: the final state differs");
        }
    }
    // Slices that small pause long clock steps, not only between steps.
    assert!(paused_somewhere >= 10, "{paused_somewhere}");
}
