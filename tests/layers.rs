//! The crate's folders are its layers (`src/lib.rs`): each may use only the
//! layers below it, so that the model never reaches a view, a search or a
//! boundary. And inside the model, the vocabulary and the state never import
//! the engine: a message, an event or a log means the same whoever applies it.

use std::collections::BTreeSet;
use std::path::Path;

/// Lowest first: a layer may use itself and those before it.
const LAYERS: [&str; 6] = ["base", "model", "run", "view", "search", "boundary"];

/// The model's vocabulary: the words every other file speaks, which import
/// nothing else of the model.
const VOCABULARY: [&str; 10] =
    ["limits", "config", "rules", "per_broker", "protocol", "step", "event", "violation", "quorum/message", "quorum/metadata_log"];

/// The model's state, apart from the engine that changes it, and the
/// cluster's shape (pure functions of brokers, racks and the seed).
const STATE: [&str; 19] = [
    "partition/mod",
    "partition/log",
    "partition/replica",
    "cluster/mod",
    "cluster/broker",
    "cluster/network",
    "cluster/placement",
    "cluster/partitioner",
    "cluster/leader_balance",
    "cluster/topology",
    "controller/mod",
    "controller/registrations",
    "clients/mod",
    "clients/accumulator",
    "clients/subscription",
    "quorum/mod",
    "quorum/voter",
    "quorum/slot",
    "mod",
];

/// The cluster's shape among the state.
const SHAPE: [&str; 4] = ["cluster/placement", "cluster/partitioner", "cluster/leader_balance", "cluster/topology"];

/// The safety checks read the state through a view; the engine runs them.
const CHECKS: [&str; 2] = ["invariants", "quorum/checks"];

/// The engine: `Simulation`, its accounting, and each part of the protocol
/// implementing its share of it in the folder of its concept.
const ENGINE: [&str; 16] = [
    "simulation",
    "accounting",
    "partition/leader",
    "cluster/fetcher",
    "cluster/faults",
    "cluster/leader_and_isr",
    "cluster/metadata_image",
    "controller/decisions",
    "controller/rebalance",
    "controller/metadata",
    "clients/producer",
    "clients/consumer",
    "quorum/raft",
    "quorum/election",
    "quorum/replication",
    "quorum/clock",
];

/// The model's folders: a path `crate::model::cluster::broker` names the
/// file `cluster/broker`; any other `crate::model::x` names the file `x`.
const FOLDERS: [&str; 5] = ["partition", "cluster", "controller", "clients", "quorum"];

/// `crate::a::b` paths in a file's code (comments and tests included: a test
/// in the model that needs a search belongs with the search).
fn uses(text: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        let mut parts = rest.split("::").map(|p| p.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>());
        let (a, b) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
        out.insert((a, b));
    }
    out
}

/// The `.rs` files of a folder and of its subfolders, named by their path
/// in it without the extension (`cluster/placement`), in name order.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            out.extend(files(&path).into_iter().map(|(f, text)| (format!("{stem}/{f}"), text)));
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push((stem, std::fs::read_to_string(&path).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn each_layer_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut checked = 0;
    for (rank, layer) in LAYERS.iter().enumerate() {
        for (file, text) in files(&src.join(layer)) {
            for (to, _) in uses(&text) {
                // The crate root's macros (`clone_in_place`) and trait are shared building blocks.
                if to == "clone_in_place" || to == "CopyShort" {
                    continue;
                }
                let target = LAYERS.iter().position(|l| *l == to);
                assert!(target.is_some(), "src/{layer}/{file}.rs uses crate::{to}, which is not a layer folder");
                assert!(target.unwrap() <= rank, "src/{layer}/{file}.rs uses crate::{to}: {layer} may use only {:?}", &LAYERS[..=rank]);
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} uses found: is the source where this test looks?");
}

/// The model's files a file imports, by their names in `files`.
fn model_uses(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::model::") {
        let rest = &text[i + "crate::model::".len()..];
        let mut parts = rest.split("::").map(|p| p.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>());
        let (a, b) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
        if FOLDERS.contains(&a.as_str()) {
            // `crate::model::cluster::{broker, ...}` or a name the folder's mod.rs defines.
            let is_file = !b.is_empty() && b.chars().next().is_some_and(|c| c.is_ascii_lowercase());
            out.insert(if is_file { format!("{a}/{b}") } else { format!("{a}/mod") });
        } else if !a.is_empty() {
            out.insert(a);
        }
    }
    out
}

#[test]
fn every_file_of_the_model_is_placed_on_purpose() {
    let all = files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/model"));
    for (file, _) in &all {
        let kinds = [&VOCABULARY[..], &STATE, &CHECKS, &ENGINE].iter().filter(|k| k.contains(&file.as_str())).count();
        assert_eq!(kinds, 1, "src/model/{file}.rs: place it in exactly one list of tests/layers.rs");
    }
    let named = VOCABULARY.len() + STATE.len() + CHECKS.len() + ENGINE.len();
    assert_eq!(named, all.len(), "a file named in tests/layers.rs is not in src/model");
}

#[test]
fn the_models_vocabulary_and_state_do_not_import_the_engine() {
    let all = files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/model"));
    let mut checked = 0;
    for (file, text) in &all {
        let f = file.as_str();
        let may: Vec<&str> = if VOCABULARY.contains(&f) {
            // A message carries records, which the log defines; the log imports nothing of the model.
            VOCABULARY.iter().copied().chain(["partition/log"]).collect()
        } else if SHAPE.contains(&f) {
            VOCABULARY.iter().chain(&SHAPE).copied().collect()
        } else if f == "partition/log" {
            vec![]
        } else if STATE.contains(&f) || CHECKS.contains(&f) {
            VOCABULARY.iter().chain(&STATE).copied().collect()
        } else {
            continue;
        };
        for to in model_uses(text) {
            assert!(may.contains(&to.as_str()), "src/model/{file}.rs uses the model's {to}, which it may not: {may:?}");
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} uses found: is the model where this test looks?");
}

/// Each part of the protocol implements its share of `Simulation`; none
/// imports another's file back, so the model's files import each other in
/// no circle (a role takes the state it needs from the state files, never
/// from the file of another role).
#[test]
fn no_two_files_of_the_model_import_each_other_in_a_circle() {
    let all = files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/model"));
    let edges: Vec<(String, BTreeSet<String>)> = all.iter().map(|(f, text)| (f.clone(), model_uses(text).into_iter().filter(|t| t != f).collect())).collect();
    let uses_of = |f: &str| edges.iter().find(|(g, _)| g == f).map(|(_, to)| to.clone()).unwrap_or_default();
    assert!(uses_of("simulation").len() >= 8, "the engine's imports are where this test looks");
    // Depth-first from every file, reporting the first path that comes back.
    fn visit(f: &str, path: &mut Vec<String>, done: &mut BTreeSet<String>, uses_of: &dyn Fn(&str) -> BTreeSet<String>) {
        if let Some(i) = path.iter().position(|p| p == f) {
            panic!("the model's files import each other in a circle: {} -> {f}", path[i..].join(" -> "));
        }
        if done.contains(f) {
            return;
        }
        path.push(f.to_string());
        for to in uses_of(f) {
            visit(&to, path, done, uses_of);
        }
        path.pop();
        done.insert(f.to_string());
    }
    let mut done = BTreeSet::new();
    for (f, _) in &all {
        visit(f, &mut vec![], &mut done, &uses_of);
    }
    assert_eq!(done.len(), all.len());
}

/// The cluster's placement, partitioner and leader balance are functions of
/// the cluster's shape: they use the vocabulary (broker ids, the seeded
/// PRNG) and each other, never the engine, so the engine and a test can
/// call them alike.
#[test]
fn the_clusters_functions_use_only_the_vocabulary() {
    let cluster = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/model/cluster");
    let all = files(&cluster);
    let shape: Vec<_> = all.iter().filter(|(f, _)| SHAPE.contains(&format!("cluster/{f}").as_str())).collect();
    assert_eq!(shape.len(), SHAPE.len(), "the cluster's shape is where this test looks");
    for (file, text) in shape {
        for (to, module) in uses(text) {
            let allowed = to == "base" || (to == "model" && (VOCABULARY.contains(&module.as_str()) || module == "cluster"));
            assert!(allowed, "src/model/cluster/{file}.rs uses crate::{to}::{module}");
        }
    }
}
