//! `highwater tour check`, as a docs site's CI runs it: exit 0 when every
//! fact of every stop holds, 1 naming each wrong fact (stop, fact, expected,
//! actual), 2 for a file it cannot read. `highwater tour link`: the file as
//! a `#t=` fragment, exit 2 for a file it cannot read or a link past the
//! limit. The sample lesson is examples/tours/acks-1-loss.json; the docs
//! site's lessons are site/public/lessons/*.json.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lesson() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tours/acks-1-loss.json")
}

fn check(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_highwater")).args(["tour", "check"]).arg(path).output().expect("the binary runs")
}

fn link(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_highwater")).args(["tour", "link"]).arg(path).output().expect("the binary runs")
}

fn with_text(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("highwater-tour-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_sample_lesson_holds() {
    let out = check(&lesson());
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "acks-1-loss: every fact holds (2 predictions)\n");
}

#[test]
fn a_wrong_fact_is_named_with_its_stop_and_both_values() {
    let text = std::fs::read_to_string(lesson()).unwrap();
    // The author believes the leader's HW is already 1 right after m1 is written.
    let wrong = text.replacen(r#""log_end_offset": 1, "high_watermark": 0"#, r#""log_end_offset": 1, "high_watermark": 1"#, 1);
    assert_ne!(wrong, text);
    let out = check(&with_text("wrong.json", &wrong));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "acks-1-loss: stop \"write-m1\" (part 1, at 1): fact `brokers.1.high_watermark`: expected 1, actual 0\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 finding"));
}

#[test]
fn a_step_the_model_rejects_is_a_finding() {
    let text = std::fs::read_to_string(lesson()).unwrap();
    // Broker 1 leads at the start: a leader does not fetch.
    let wrong = text.replacen(r#"{ "fetch": 2 }, { "fetch": 3 }"#, r#"{ "fetch": 1 }, { "fetch": 3 }"#, 1);
    let out = check(&with_text("rejected.json", &wrong));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("step 2 ({\"fetch\":1}) is rejected by the model"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn an_unreadable_file_exits_2_with_a_short_message() {
    for (name, text) in [
        ("not-json.json", "{ this is not json"),
        ("no-version.json", r#"{"id": "x", "title": {"en": "x"}, "parts": []}"#),
        ("unknown-key.json", &std::fs::read_to_string(lesson()).unwrap().replacen("\"summary\"", "\"sumary\"", 1)),
    ] {
        let out = check(&with_text(name, text));
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("highwater: ") && err.lines().count() == 1 && err.len() < 400, "{name}: {err}");
    }
    let out = check(Path::new("/nonexistent/tour.json"));
    assert_eq!(out.status.code(), Some(2));
}

/// The docs site's lessons (site/public/lessons/*.json, served as they are
/// and played by the element's `tour-src`), as the site's CI would check them.
#[test]
fn every_lesson_of_the_docs_site_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("site/public/lessons");
    let mut lessons: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    lessons.sort();
    assert!(!lessons.is_empty(), "no lesson in {}", dir.display());
    for path in &lessons {
        let out = check(path);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{}:\n{stdout}{stderr}", path.display());
        assert!(stderr.contains("every fact holds"), "{}: {stderr}", path.display());
        // A lesson on the site asks for a prediction at least once (predict, then see).
        assert!(!stderr.contains("(0 predictions)"), "{}: {stderr}", path.display());
    }
}

#[test]
fn the_built_in_tours_check_as_well() {
    let out = check(&Path::new(env!("CARGO_MANIFEST_DIR")).join("www/tours/leo-and-hw.json"));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn a_tour_link_is_the_file_as_read() {
    use highwater::view::tour::TourFile;
    let out = link(&lesson());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let fragment = stdout.strip_suffix('\n').expect("one line");
    let text = fragment.strip_prefix("#t=").expect("a #t= fragment");
    assert!(text.starts_with("v1.") && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)), "{fragment}");
    let from_link = TourFile::from_link(text).unwrap();
    let from_file = TourFile::from_json(&std::fs::read_to_string(lesson()).unwrap()).unwrap();
    assert_eq!(serde_json::to_value(&from_link).unwrap(), serde_json::to_value(&from_file).unwrap());
    // The same check from the link as from the file.
    assert_eq!(serde_json::to_value(from_link.check()).unwrap(), serde_json::to_value(from_file.check()).unwrap());
}

#[test]
fn a_tour_link_of_a_file_it_cannot_read_or_past_the_limit_exits_2() {
    use highwater::view::tour::{MAX_TOUR_BYTES, MAX_TOUR_LINK_CHARS};
    let sample = std::fs::read_to_string(lesson()).unwrap();
    // Captions that do not compress, as long as the file's limit allows:
    // a file the reader takes, whose link is past the link's limit.
    let mut x: u64 = 7;
    let mut noise = |n: usize| -> String {
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                char::from(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[(x >> 58) as usize % 62])
            })
            .collect()
    };
    let stops: Vec<String> = (0..200)
        .map(|i| {
            let caption: Vec<String> = (0..16).map(|l| format!(r#""x{l}": "{}""#, noise(300))).collect();
            format!(r#"{{"key": "s{i}", "at": 0, "caption": {{{}}}}}"#, caption.join(", "))
        })
        .collect();
    let big = format!(
        r#"{{"highwater_tour": 1, "id": "big", "title": {{"en": "Big"}}, "parts": [{{"scenario": {{"version": 1}}, "stops": [{}]}}]}}"#,
        stops.join(", ")
    );
    assert!(big.len() <= MAX_TOUR_BYTES, "{} bytes", big.len());
    for (name, text, says) in [
        ("not-json.json", "{ this is not json".to_string(), "not valid JSON".to_string()),
        ("unknown-key.json", sample.replacen("\"summary\"", "\"sumary\"", 1), "unknown field \"sumary\"".to_string()),
        ("built-in.json", std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/tours/leo-and-hw.json")).unwrap(), "highwater_tour: missing".into()),
        ("big.json", big, format!("characters is longer than the limit of {MAX_TOUR_LINK_CHARS}")),
    ] {
        let out = link(&with_text(name, &text));
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty(), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("highwater: ") && err.lines().count() == 1 && err.len() < 400 && err.contains(&says), "{name}: {err}");
    }
    assert_eq!(link(Path::new("/nonexistent/tour.json")).status.code(), Some(2));
}

/// The JSON Schema in the package (www/tour.schema.json) names exactly the
/// fields the reader accepts and the facts the check knows, so an editor
/// that validates with it and `tour check` never disagree on a name.
#[test]
fn the_schema_names_what_the_reader_reads() {
    use highwater::view::tour::{BROKER_FACTS, CONTROLLER_FACTS, PARTITION_FACTS, QUORUM_FACTS, TOPIC_COUNTS, TOPIC_PARTITION_FACTS};
    use std::collections::BTreeSet;
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/tour.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys = |v: &serde_json::Value| -> BTreeSet<String> { v["properties"].as_object().unwrap().keys().cloned().collect() };
    let set = |names: &[&str]| -> BTreeSet<String> { names.iter().map(|s| s.to_string()).collect() };
    assert_eq!(keys(&schema), set(&["highwater_tour", "id", "title", "summary", "parts"]));
    let stop = &schema["properties"]["parts"]["items"]["properties"]["stops"]["items"];
    assert_eq!(keys(stop), set(&["key", "at", "do", "facts", "predict", "caption", "task", "partition"]));
    let mut facts: Vec<&str> = PARTITION_FACTS.to_vec();
    facts.extend(["time_ms", "brokers", "leader_view", "produce", "produce_error", "consumed", "violations", "events", "partitions", "quorum", "controllers"]);
    facts.extend(TOPIC_COUNTS);
    assert_eq!(keys(&stop["properties"]["facts"]), set(&facts));
    assert_eq!(keys(&stop["properties"]["facts"]["properties"]["brokers"]["additionalProperties"]), set(&BROKER_FACTS));
    assert_eq!(keys(&stop["properties"]["facts"]["properties"]["partitions"]["additionalProperties"]), set(&TOPIC_PARTITION_FACTS));
    assert_eq!(keys(&stop["properties"]["facts"]["properties"]["quorum"]), set(&QUORUM_FACTS));
    assert_eq!(keys(&stop["properties"]["facts"]["properties"]["controllers"]["additionalProperties"]), set(&CONTROLLER_FACTS));
    let kinds: Vec<&str> = stop["properties"]["facts"]["properties"]["violations"]["items"]["enum"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    assert_eq!(kinds, highwater::view::tour::VIOLATION_KINDS.to_vec());
}

fn hostile(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile-tours").join(name)
}

fn check_json(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_highwater")).args(["tour", "check", "--json"]).arg(path).output().expect("the binary runs")
}

/// A stop's `events` fact on a step of 50,002 events: each type the step
/// did not cause was a finding listing every event of the step, all built
/// before printing (a 5 KB file: 350 MB of text in 5.2 s, 420 MB of JSON
/// in 6.7 s and 770 MB of memory). Now a type the model does not have is
/// one finding, a missing one names the step's types with their counts,
/// and past `MAX_FINDINGS` findings are counted, not built.
#[test]
fn a_check_prints_a_few_kilobytes_whatever_the_file() {
    use highwater::view::tour::{EVENT_TYPES, MAX_FINDINGS};
    let started = std::time::Instant::now();
    let out = check(&hostile("events-fact-explosion.json"));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.len() < 1_000, "{} bytes", out.stdout.len());
    assert!(String::from_utf8_lossy(&out.stdout).contains("fact `events`: [0] \"x0\" is not one the model has"), "{}", String::from_utf8_lossy(&out.stdout));
    // Every real type, and 2,000 produce facts about records that were never written.
    let mut tour: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(hostile("events-fact-explosion.json")).unwrap()).unwrap();
    let facts = &mut tour["parts"][0]["stops"][0]["facts"];
    facts["events"] = serde_json::json!(EVENT_TYPES.to_vec());
    facts["produce"] = (0..2000).map(|i| (format!("m{i}"), serde_json::json!("acked"))).collect::<serde_json::Map<_, _>>().into();
    facts["brokers"] = serde_json::json!({"1": {"log": (0..5000).map(|i| format!("record-{i}")).collect::<Vec<_>>()}});
    let file = with_text("many-findings.json", &tour.to_string());
    let out = check(&file);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.len() < 8_000, "{} bytes:\n{text}", out.stdout.len());
    assert_eq!(text.lines().count(), MAX_FINDINGS + 1, "{text}");
    // Of the model's event types the step caused 5; the first missing one is named, the rest counted.
    let more = EVENT_TYPES.len() - 5 - 1;
    assert!(text.contains(&format!("fact `events`: the step caused no \"alter_partition_sent\" event (nor {more} more of those stated); it caused 50,002 events of 5 types: budget_exceeded (1)")), "{text}");
    assert!(text.ends_with(&format!("events-fact-explosion: and {} more findings (the first {MAX_FINDINGS} are listed)\n", 2002 - MAX_FINDINGS)), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("2002 findings"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = check_json(&file);
    assert!(out.stdout.len() < 16_000, "{} bytes of JSON", out.stdout.len());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["findings"].as_array().unwrap().len(), v["more_findings"].as_u64()), (MAX_FINDINGS, Some(2002 - MAX_FINDINGS as u64)));
    assert!(started.elapsed().as_secs_f64() < 3.0, "{:?} for three checks", started.elapsed());
}

/// A fact in a shape the check does not read was true: `"violations":
/// [{"kind": "acked_write_lost"}, 42, null]` where the model has none
/// passed ("every fact holds"), its entries dropped as not strings.
#[test]
fn a_fact_of_an_unknown_shape_is_an_error_naming_the_stop_and_the_key() {
    let out = check(&hostile("violation-objects.json"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(text, "violation-objects: stop \"write-m1\" (part 1, at 1): fact `violations`: [0] is {\"kind\":\"acked_write_lost\"}, not a string (an array of kinds: acked_write_lost, committed_divergence, consumer_saw_vanished_record, hw_exceeds_leo, single_leader, monotonic_epoch, monotonic_high_watermark, majority_reached_high_watermark, consistent_committed_data)\n");
    let sample = std::fs::read_to_string(lesson()).unwrap();
    let m1 = r#""facts": { "produce": { "m1": "acked" }, "brokers": { "1": { "log_end_offset": 1, "high_watermark": 0 } } }"#;
    for (facts, says) in [
        (r#""violations": ["acked_write_lost"]"#, "fact `violations`: expected [\"acked_write_lost\"], actual []"),
        (r#""violations": ["lost"]"#, "fact `violations`: [0] \"lost\" is not one the model has"),
        (r#""violations": "acked_write_lost""#, "fact `violations`: expected an array, found \"acked_write_lost\""),
        (r#""events": ["appended", 7]"#, "fact `events`: [1] is 7, not a string"),
        (r#""leader": "1""#, "fact `leader`: expected a number (0 or more) or null, found \"1\""),
        (r#""isr": [1, "2"]"#, "fact `isr`: expected an array of numbers, found [1,\"2\"]"),
        (r#""brokers": {"1": {"role": "boss"}}"#, "fact `brokers.1.role`: expected one of \"leader\", \"follower\""),
        (r#""brokers": {"1": {"alive": 1}}"#, "fact `brokers.1.alive`: expected true or false, found 1"),
        (r#""produce": {"m1": true}"#, "fact `produce.m1`: expected a string, found true"),
        (r#""consumed": [null]"#, "fact `consumed`: expected an array of strings, found [null]"),
    ] {
        let wrong = sample.replacen(m1, &format!(r#""facts": {{ {facts} }}"#), 1);
        assert_ne!(wrong, sample);
        let out = check(&with_text("shape.json", &wrong));
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{facts}: {text}");
        assert!(text.starts_with("acks-1-loss: stop \"write-m1\" (part 1, at 1): ") && text.contains(says) && text.lines().count() == 1, "{facts}: {text}");
    }
}

/// Fact keys, produce values and broker ids reached the finding line raw:
/// `ESC ] 0 ;` set the terminal's title, `ESC [2J` cleared the screen.
#[test]
fn a_check_prints_no_escape_sequence() {
    for out in [check(&hostile("terminal-escapes.json")), check_json(&hostile("terminal-escapes.json"))] {
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8(out.stdout).unwrap();
        for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
            assert!(!text.contains(bad), "{bad:?} in {text}");
        }
        assert!(text.contains(r"\u{1B}]0;Official notice\u{7}") || text.contains(r"\\u{1B}]0;Official notice\\u{7}"), "{text}");
        assert!(text.contains(r"role\u{202E}gnp.exe") || text.contains(r"role\\u{202E}gnp.exe"), "{text}");
    }
}

/// 200 stops at the end of a 9,999-step run: the check wrote the whole state
/// (the 9,999 produce requests, 1.4 MB of JSON) at each stop and seeked
/// from a snapshot each time, 3.5-6.1 s where `run --json` takes 0.07-0.26 s.
/// It now runs the part once, forward, and writes at each stop only what
/// its facts read: under a second.
#[test]
fn a_check_costs_the_run_plus_the_facts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let link = std::fs::read_to_string(root.join("tests/fuzz-seeds/retry-rescan-9999-steps.link")).unwrap();
    let scenario = highwater::run::link::decode(link.trim()).unwrap();
    let n = scenario.steps.len();
    let stops: Vec<serde_json::Value> = (0..200)
        .map(|i| serde_json::json!({"key": format!("s{i}"), "at": n - 199 + i, "caption": {"en": "A stop."}, "facts": {"leader": 1, "isr": [1]}}))
        .collect();
    let tour = serde_json::json!({"highwater_tour": 1, "id": "stops-at-the-end", "title": {"en": "200 stops at the end"},
        "parts": [{"scenario": serde_json::from_str::<serde_json::Value>(&scenario.to_json_pretty()).unwrap(), "stops": stops}]});
    let file = with_text("stops-at-the-end.json", &tour.to_string());
    let started = std::time::Instant::now();
    let out = check(&file);
    let took = started.elapsed().as_secs_f64();
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(took < 1.0, "{took:.2} s");
    // A produce fact at every stop reads the requests with that value, and still holds.
    let mut with_produce = tour.clone();
    for stop in with_produce["parts"][0]["stops"].as_array_mut().unwrap() {
        stop["facts"]["produce"] = serde_json::json!({"no-such-record": "acked"});
    }
    let out = check(&with_text("stops-with-produce.json", &with_produce.to_string()));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("fact `produce.no-such-record`: no produce request has the value \"no-such-record\""));
    assert!(String::from_utf8_lossy(&out.stdout).contains("and 180 more findings"), "{}", String::from_utf8_lossy(&out.stdout));
}
