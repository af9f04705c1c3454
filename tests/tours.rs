//! The narrated tours (`www/tours/`): every tour loads, its stops are in
//! order, every stop has its English caption (and a task where the learner
//! acts), and every fact a caption states holds in the model at that stop.
//! The file format and the fact vocabulary are described in docs/tours.md;
//! the facts are checked by the crate's own tour check (`view::tour`), the
//! one `highwater tour check` and the page use.

use highwater::view::tour::{check_facts, event_types, is_kebab, lookup, state_value, BuiltInTour, TourStop};
use highwater::{Scenario, Timeline};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A caption or task longer than this does not fit the 800x500 embed.
const MAX_TEXT_CHARS: usize = 300;

fn www() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("www")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The tour ids of www/tours/index.json, in teaching order.
fn index() -> Vec<String> {
    let index = read_json(&www().join("tours/index.json"));
    let tours = index["tours"].as_array().expect("www/tours/index.json: \"tours\" is an array");
    tours.iter().map(|t| t.as_str().expect("tour ids are strings").to_string()).collect()
}

/// The English text of one tour, checked for shape. A "do" stop's task is
/// said by the page from its step (`tour.your_step` and the step's words):
/// a tour may add words of its own before it (`tasks.<key>`), none need to.
struct Text {
    stops: Map<String, Value>,
    tasks: Map<String, Value>,
}

fn check_text(id: &str, locale: &Value, problems: &mut Vec<String>) -> Text {
    let t = &locale[id];
    for field in ["title", "summary"] {
        match t[field].as_str() {
            Some(s) if !s.trim().is_empty() => {}
            _ => problems.push(format!("{id}: www/locales/en/tours.json has no {field}")),
        }
    }
    let stops = t["stops"].as_object().cloned().unwrap_or_default();
    let tasks = t["tasks"].as_object().cloned().unwrap_or_default();
    for (kind, map) in [("stops", &stops), ("tasks", &tasks)] {
        for (key, text) in map {
            match text.as_str() {
                Some(s) if !s.trim().is_empty() => {
                    let n = s.chars().count();
                    if n > MAX_TEXT_CHARS {
                        problems.push(format!("{id}: {kind}.{key} has {n} characters, more than {MAX_TEXT_CHARS}"));
                    }
                    if s.contains('{') || s.contains('}') {
                        problems.push(format!("{id}: {kind}.{key} has a placeholder; tours state numbers as plain text"));
                    }
                }
                _ => problems.push(format!("{id}: {kind}.{key} is empty or not a string")),
            }
        }
    }
    Text { stops, tasks }
}

/// Loads one tour and checks it: the crate's own check (`view::tour`, what
/// `highwater tour check` runs: the file's fields, every step happens, the
/// stops' keys and order, every fact), then what only a built-in tour has,
/// its words in the locale file.
fn check_tour(id: &str, locale: &Value) -> Vec<String> {
    let mut problems = vec![];
    let text = check_text(id, locale, &mut problems);
    let file = std::fs::read_to_string(www().join(format!("tours/{id}.json"))).expect("the tour file");
    let tour = match BuiltInTour::from_json(&file) {
        Ok(tour) => tour,
        Err(e) => {
            problems.push(format!("{id}: {e}"));
            return problems;
        }
    };
    if tour.id != id {
        problems.push(format!("{id}: the file's \"id\" is {:?}, not the file name", tour.id));
    }
    problems.extend(tour.check().findings.iter().map(|f| format!("{id}: {f}")));
    let stops: Vec<&TourStop> = tour.parts.iter().flat_map(|p| &p.stops).collect();
    for stop in &stops {
        if !text.stops.contains_key(&stop.key) {
            problems.push(format!("{id}: stop {:?}: no English caption (stops.{})", stop.key, stop.key));
        }
    }
    for key in text.stops.keys() {
        if !stops.iter().any(|s| &s.key == key) {
            problems.push(format!("{id}: caption stops.{key} belongs to no stop"));
        }
    }
    for key in text.tasks.keys() {
        if !stops.iter().any(|s| s.does && &s.key == key) {
            problems.push(format!("{id}: task tasks.{key} belongs to no \"do\" stop"));
        }
    }
    problems
}

#[test]
fn every_tour_file_is_listed_once() {
    let ids = index();
    assert!(!ids.is_empty(), "www/tours/index.json lists no tour");
    let mut seen = BTreeSet::new();
    for id in &ids {
        assert!(is_kebab(id), "tour id {id:?} is not lower-kebab-case");
        assert!(seen.insert(id.clone()), "tour {id} is listed twice in www/tours/index.json");
        assert!(www().join(format!("tours/{id}.json")).is_file(), "www/tours/{id}.json is missing");
    }
    let mut files = BTreeSet::new();
    for entry in std::fs::read_dir(www().join("tours")).expect("www/tours") {
        let name = entry.expect("a directory entry").file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".json") {
            if stem != "index" {
                files.insert(stem.to_string());
            }
        }
    }
    let unlisted: Vec<_> = files.difference(&seen).collect();
    assert!(unlisted.is_empty(), "tours not listed in www/tours/index.json: {unlisted:?}");
}

/// The index's `quorum`: exactly the tours with a part whose scenario has
/// controllers. The page loads the core with the controller quorum
/// (www/pkg-quorum) at once for these, and the core without it for the rest.
#[test]
fn the_index_names_the_tours_that_need_the_quorum() {
    let index = read_json(&www().join("tours/index.json"));
    let listed: BTreeSet<String> = index["quorum"].as_array().expect("www/tours/index.json: \"quorum\" is an array").iter().map(|v| v.as_str().expect("a tour id").to_string()).collect();
    let mut needed = BTreeSet::new();
    for id in self::index() {
        let tour = read_json(&www().join(format!("tours/{id}.json")));
        let parts = tour["parts"].as_array().expect("a tour has parts");
        if parts.iter().any(|p| p["scenario"]["config"]["controllers"].as_u64().unwrap_or(0) > 0) {
            needed.insert(id);
        }
    }
    assert!(!needed.is_empty(), "no tour has controllers: the check would hold of nothing");
    assert_eq!(listed, needed, "www/tours/index.json \"quorum\" lists the tours whose runs have controllers");
}

#[test]
fn the_first_seven_tours_keep_their_ids() {
    let ids = index();
    for id in ["leo-and-hw", "hw-min-isr", "isr-and-lag", "hw-truncation-loss", "leader-epoch", "acks-and-min-isr", "unclean-election"] {
        assert!(ids.iter().any(|i| i == id), "tour {id} is missing from www/tours/index.json");
    }
}

#[test]
fn every_locale_entry_belongs_to_a_tour() {
    let locale = read_json(&www().join("locales/en/tours.json"));
    let ids: BTreeSet<String> = index().into_iter().collect();
    for key in locale.as_object().expect("www/locales/en/tours.json is an object").keys() {
        assert!(ids.contains(key), "www/locales/en/tours.json has text for {key:?}, which is no tour");
    }
}

#[test]
fn every_tour_states_only_what_the_model_shows() {
    let locale = read_json(&www().join("locales/en/tours.json"));
    let mut problems = vec![];
    for id in index() {
        problems.extend(check_tour(&id, &locale));
    }
    assert!(problems.is_empty(), "{} problem(s) in the tours:\n{}", problems.len(), problems.join("\n"));
}

/// A stop's facts as paths of the vocabulary (`brokers.2.high_watermark`,
/// `produce.m5`, `isr`) with their values; `violations` and `events` are
/// sets, not values at a path, and are left out.
fn fact_paths(facts: &Map<String, Value>) -> Vec<(String, Value)> {
    let mut out = vec![];
    for (key, value) in facts {
        match (key.as_str(), value.as_object()) {
            ("violations" | "events", _) => {}
            ("brokers" | "controllers", Some(ids)) => {
                for (id, broker) in ids {
                    for (field, v) in broker.as_object().into_iter().flatten() {
                        out.push((format!("{key}.{id}.{field}"), v.clone()));
                    }
                }
            }
            ("leader_view" | "produce" | "produce_error" | "quorum", Some(map)) => {
                out.extend(map.iter().map(|(k, v)| (format!("{key}.{k}"), v.clone())));
            }
            _ => out.push((key.clone(), value.clone())),
        }
    }
    out
}

#[test]
fn fact_paths_name_what_lookup_reads() {
    let facts = json!({"leader": null, "isr": [1, 2], "brokers": {"2": {"high_watermark": 1}}, "produce": {"m5": "acked"}, "leader_view": {"3": 4}, "events": ["truncated"]});
    let paths: Vec<String> = fact_paths(facts.as_object().unwrap()).into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["brokers.2.high_watermark", "isr", "leader", "leader_view.3", "produce.m5"]);
}

/// Predict, then see: every built-in tour asks the learner at least once
/// to choose a value before the board shows it. The page shows `at - 1`
/// and then plays step `at`, so a prediction is never at 0; the path must
/// name a value of the state at its stop (the model's answer, from which
/// the choices are drawn); and since the caption, read after the choice,
/// states the answer, the stop states it as a fact too, so that the
/// answer the caption gives is the one the model has.
#[test]
fn every_tour_asks_for_a_prediction_and_its_caption_states_the_answer() {
    let mut problems = vec![];
    for id in index() {
        let file = std::fs::read_to_string(www().join(format!("tours/{id}.json"))).expect("the tour file");
        let tour = BuiltInTour::from_json(&file).unwrap_or_else(|e| panic!("{id}: {e}"));
        let mut predictions = 0;
        for (p, part) in tour.parts.iter().enumerate() {
            let scenario = Scenario::from_value(part.scenario.clone()).unwrap_or_else(|e| panic!("{id} part {}: {e}", p + 1));
            let mut timeline = Timeline::new(&scenario).expect("the scenario builds");
            for stop in part.stops.iter().filter(|s| s.predict.is_some()) {
                let path = stop.predict.as_deref().unwrap_or_default();
                let here = format!("{id}: stop {:?} (part {}, at {})", stop.key, p + 1, stop.at);
                predictions += 1;
                if stop.at == 0 {
                    problems.push(format!("{here}: a prediction needs a step before it (at 0 there is none)"));
                    continue;
                }
                if stop.at > timeline.len() {
                    problems.push(format!("{here}: past the end of the run"));
                    continue;
                }
                timeline.seek(stop.at).expect("a position within the timeline");
                let answer = match lookup(path, &state_value(&timeline)) {
                    Ok(answer) => answer,
                    Err(e) => {
                        problems.push(format!("{here}: predict `{path}`: {e}"));
                        continue;
                    }
                };
                match fact_paths(&stop.facts).into_iter().find(|(fact, _)| fact == path) {
                    Some((_, stated)) if stated == answer => {}
                    Some((_, stated)) => problems.push(format!("{here}: the fact `{path}` states {stated}, the model's answer is {answer}")),
                    None => problems.push(format!("{here}: the caption states the answer to `{path}` ({answer}): add it to the stop's facts")),
                }
            }
        }
        if predictions == 0 {
            problems.push(format!("{id}: no prediction stop (a stop with \"predict\")"));
        }
    }
    assert!(problems.is_empty(), "{} problem(s) with the predictions:\n{}", problems.len(), problems.join("\n"));
}

/// The crate's check of one facts object, as lines.
fn check(facts: &Value, state: &Value, events: &[String]) -> Result<(), Vec<String>> {
    let facts = facts.as_object().expect("facts are an object");
    let found: Vec<String> = check_facts(facts, state, events).into_iter().map(|f| f.message).collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(found)
    }
}

/// The state after two-fetch-rounds' first three steps: leader 1 at LEO 1
/// and HW 1, follower 2 at LEO 1 and HW 1, m1 acknowledged.
fn known_state() -> (Value, Vec<String>) {
    let scenario = Scenario::from_json(
        r#"{"version": 1, "config": {"brokers": 2}, "steps": [
            {"produce": {"value": "m1", "acks": "all"}}, {"fetch": 2}, {"fetch": 2}]}"#,
    )
    .expect("a valid scenario");
    let mut timeline = Timeline::new(&scenario).expect("it builds");
    timeline.seek(3).expect("position 3");
    (state_value(&timeline), event_types(&timeline, 3))
}

#[test]
fn the_checker_accepts_true_facts() {
    let (state, events) = known_state();
    let facts = json!({
        "leader": 1, "leader_epoch": 0, "isr": [1, 2], "elr": [], "high_watermark": 1, "time_ms": 0,
        "brokers": {
            "1": {"log_end_offset": 1, "high_watermark": 1, "role": "leader", "alive": true, "in_isr": true,
                  "log": ["m1"], "log_epochs": [0], "epoch_cache": [[0, 0]], "fenced": false, "in_elr": false,
                  "checkpointed_high_watermark": 0, "leader_epoch": 0},
            "2": {"log_end_offset": 1, "high_watermark": 1, "role": "follower"}
        },
        "leader_view": {"2": 1},
        "produce": {"m1": "acked"},
        "produce_error": {"m1": null},
        "consumed": [],
        "violations": [],
        "events": ["high_watermark_changed", "produce_response"]
    });
    check(&facts, &state, &events).unwrap_or_else(|e| panic!("true facts were refused:\n{}", e.join("\n")));
}

#[test]
fn the_checker_reports_wrong_facts() {
    let (state, events) = known_state();
    let wrong = [
        json!({"high_watermark": 0}),
        json!({"leader": 2}),
        json!({"isr": [1]}),
        json!({"brokers": {"2": {"log_end_offset": 2}}}),
        json!({"brokers": {"2": {"log": ["m2"]}}}),
        json!({"brokers": {"1": {"epoch_cache": [[1, 0]]}}}),
        json!({"brokers": {"3": {"alive": true}}}),
        json!({"brokers": {"1": {"colour": "blue"}}}),
        json!({"leader_view": {"2": null}}),
        json!({"produce": {"m1": "pending"}}),
        json!({"produce": {"m9": "acked"}}),
        json!({"consumed": ["m1"]}),
        json!({"violations": ["acked_write_lost"]}),
        json!({"events": ["truncated"]}),
        json!({"high_watermarks": 1}),
    ];
    for facts in wrong {
        let result = check(&facts, &state, &events);
        assert!(result.is_err(), "the wrong fact {facts} was accepted");
    }
    let errors = check(&json!({"brokers": {"2": {"high_watermark": 0}}}), &state, &events).unwrap_err();
    assert_eq!(errors, vec!["fact `brokers.2.high_watermark`: expected 0, actual 1".to_string()]);
}

/// The quorum's facts (`quorum.*`, `controllers.N.*`, a broker's
/// `metadata_offset`): read from the state of a scenario with three
/// controllers, true ones accepted and wrong ones reported; a scenario
/// without controllers has no quorum to state facts of.
#[test]
fn the_checker_reads_the_quorum() {
    let scenario = Scenario::from_json(r#"{"version": 1, "config": {"brokers": 3, "protocol": "4.1", "controllers": 3}, "steps": [{"crash": {"controller": 2}}]}"#).expect("a valid scenario");
    let mut timeline = Timeline::new(&scenario).expect("it builds");
    timeline.seek(1).expect("position 1");
    let (state, events) = (state_value(&timeline), event_types(&timeline, 1));
    let truth = json!({
        "quorum": {"epoch": 1, "leader": 1, "active_controller": 1, "high_watermark": 5},
        "controllers": {
            "1": {"role": "leader", "epoch": 1, "voted_for": null, "log_end_offset": 5, "high_watermark": 5, "alive": true, "isolated": false,
                  "log": ["LeaderChange controller 1", "RegisterBroker 1", "RegisterBroker 2", "RegisterBroker 3", "PartitionRecord p0 leader 1 epoch 0"]},
            "2": {"role": "down", "alive": false}
        },
        "brokers": {"2": {"metadata_offset": 5, "broker_epoch": 2}}
    });
    check(&truth, &state, &events).unwrap_or_else(|e| panic!("true quorum facts were refused:\n{}", e.join("\n")));
    let wrong = [
        json!({"quorum": {"high_watermark": 4}}),
        json!({"quorum": {"active_controller": 2}}),
        json!({"quorum": {"term": 1}}),
        json!({"controllers": {"2": {"role": "follower"}}}),
        json!({"controllers": {"2": {"role": "boss"}}}),
        json!({"controllers": {"1": {"log": ["LeaderChange controller 1"]}}}),
        json!({"controllers": {"4": {"alive": true}}}),
        json!({"brokers": {"1": {"metadata_offset": 4}}}),
    ];
    for facts in wrong {
        assert!(check(&facts, &state, &events).is_err(), "the wrong fact {facts} was accepted");
    }
    let errors = check(&json!({"controllers": {"2": {"role": "follower"}}}), &state, &events).unwrap_err();
    assert_eq!(errors, vec!["fact `controllers.2.role`: expected \"follower\", actual \"down\"".to_string()]);
    let (no_quorum, events) = known_state();
    let errors = check(&json!({"quorum": {"leader": 1}}), &no_quorum, &events).unwrap_err();
    assert!(errors[0].contains("no controller quorum"), "{errors:?}");
    assert!(check(&json!({"brokers": {"1": {"metadata_offset": null}}}), &no_quorum, &events).is_ok(), "no quorum: no metadata offset");
}

/// The `isr-and-lag` tour's pause stop: only broker 3's fetcher stops, and
/// the leader's lag check takes it out of the ISR. A stall of the whole
/// broker (a long GC pause) stops its heartbeats too: under the tour's
/// version (3.7: `broker.session.timeout.ms` 9 s) the controller fences it
/// 9 s after the stall, before the leader's check, which runs every 5 s
/// (half the tour's 10 s lag time) and would drop it only at 15 s.
#[test]
fn isr_and_lag_a_stall_of_the_whole_broker_is_fenced_before_the_lag_check() {
    use highwater::model::event::Event;
    let text = r#"{"version": 1, "config": {"brokers": 3, "auto_fetch": true, "replica_lag_time_max_ms": 10000},
        "steps": [{"produce": {"value": "m1", "acks": "all"}}, {"advance_ms": 1000}, {"pause": 3}, {"cut_controller": 3},
                  {"advance_ms": 1000}, {"produce": {"value": "m2", "acks": "all"}}, {"advance_ms": 10000}]}"#;
    let s = highwater::Scenario::from_json(text).expect("scenario");
    let mut sim = highwater::Simulation::new(s.config.clone());
    let events: Vec<_> = s.steps.iter().flat_map(|step| sim.apply(step)).collect();
    let fenced: Vec<u64> = events.iter().filter(|e| matches!(e.event, Event::BrokerFenced { broker: 3, .. })).map(|e| e.time_ms).collect();
    assert_eq!(fenced, [10_000], "9 s after the stall at 1 s");
    let shrinks: Vec<(u64, bool)> = events.iter().filter_map(|e| match &e.event {
        Event::IsrShrunk { removed, by_controller, .. } if removed == &vec![3] => Some((e.time_ms, *by_controller)),
        _ => None,
    }).collect();
    assert_eq!(shrinks, [(10_000, true)], "the controller, not the leader's lag check");
    assert_eq!(sim.controller.partition(0).isr.to_vec(), vec![1, 2]);
}
