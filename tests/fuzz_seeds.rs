//! The fuzzer's seeds (tests/fuzz-seeds/: past findings, the worst cases as
//! links, the slowest inputs a fuzzing run found) through the fuzzer's own
//! checks: no panic; refused with an error, or run to the end or to a step
//! stopped at a budget; the same twice; no more events held than the budgets
//! allow (tests/fuzz-seeds/README.md).

#[allow(dead_code)]
#[path = "../examples/fuzz/check.rs"]
mod check;

use check::{Input, Outcome};
use std::path::{Path, PathBuf};

fn seeds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-seeds")
}

fn seed(name: &str) -> Input {
    let path = seeds_dir().join(name);
    Input::read(&path).unwrap_or_else(|| panic!("{}: not a readable seed", path.display()))
}

fn outcome(name: &str) -> Outcome {
    match check::check(&seed(name)) {
        Ok(r) => r.outcome,
        Err(f) => panic!("{name}: {} ({})", f.detail(), f.tag()),
    }
}

#[test]
fn every_seed_passes_the_fuzzers_checks() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(seeds_dir()).unwrap().flatten().map(|e| e.path()).collect();
    paths.sort();
    let mut checked = 0;
    let mut failures = vec![];
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(input) = Input::read(&path) else { continue };
        if name.starts_with("known-") {
            continue;
        }
        checked += 1;
        if let Err(f) = check::check(&input) {
            failures.push(format!("{name}: {} ({})", f.detail(), f.tag()));
        }
    }
    assert!(checked >= 8, "only {checked} seeds found in {}", seeds_dir().display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The three reproducers in tests/worst-case/, as the links that carried
/// them: each now finishes, or stops at the per-step budget.
#[test]
fn the_worst_cases_as_links_finish_or_stop_at_a_named_budget() {
    assert_eq!(outcome("worst-case-in-flight-responses.link"), Outcome::Finished);
    assert_eq!(outcome("worst-case-isr-change-spin.link"), Outcome::Stopped("MAX_WORK_PER_STEP"));
    assert_eq!(outcome("worst-case-timed-hour.link"), Outcome::Stopped("MAX_EVENTS_PER_STEP"));
}

/// Timed mode with Kafka's defaults for an hour (a short link that once
/// kept a tab busy for minutes) runs to the end; the 7-broker ISR spin of a
/// 2 ms lag time stops at the work budget. The link and the file give the
/// same run.
#[test]
fn past_findings_built_as_scenarios_run_the_same_as_links() {
    for (name, expected) in [("timed-defaults-hour", Outcome::Finished), ("isr-spin-hour", Outcome::Stopped("MAX_WORK_PER_STEP"))] {
        let (file, link) = (seed(&format!("{name}.json")), seed(&format!("{name}.link")));
        assert_eq!(file.parse(), link.parse(), "{name}: the link holds the file's scenario");
        assert_eq!(outcome(&format!("{name}.json")), expected, "{name}");
    }
}

/// A link that inflates to 100 MiB is refused at the size limit, without
/// being inflated past it.
#[test]
fn a_deflate_bomb_is_refused_at_the_size_limit() {
    let Outcome::Refused(e) = outcome("deflate-bomb.link") else { panic!("the bomb was not refused") };
    assert!(e.contains("expands past the limit of 1048576 bytes"), "{e}");
}

// The producer retry rescan (a fuzzing finding, fixed): records refused the
// same way every millisecond used to cost a scan of every waiting record per
// retry and leave no event for the budgets. Retries now find the first one
// that would succeed per acks, and the work budget counts them.
//
// Since the producer's clients send in order (`RecordAccumulator`'s deque:
// a record waits behind the one at the front), only each client's front
// record retries: the thousands behind it wait without work. The inputs
// whose front is refused every millisecond for an hour still stop at the
// work budget; the two whose records retried side by side now finish.

#[test]
fn retries_refused_every_millisecond_stop_at_the_work_budget() {
    for name in ["retry-rescan.json", "retry-rescan.link", "retry-rescan-9999-steps.link"] {
        assert_eq!(outcome(name), Outcome::Stopped("MAX_WORK_PER_STEP"), "{name}");
    }
    for name in ["retry-rescan-crash-restart.link", "retry-rescan-fuzzed.link"] {
        assert_eq!(outcome(name), Outcome::Finished, "{name}");
    }
}

#[test]
fn hostile_text_is_refused_with_a_short_escaped_message() {
    for (name, expected) in [
        ("hostile-long-key-over-values.link", "unknown field \"kkkk"),
        ("hostile-unknown-field-100k.link", "(100,011 characters)"),
    ] {
        let Outcome::Refused(e) = outcome(name) else { panic!("{name} was not refused") };
        assert!(e.contains(expected) && e.len() < 700, "{name}: {e}");
    }
}
