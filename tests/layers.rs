//! The crate's folders are its layers (`src/lib.rs`): each may use only the
//! layers below it, so that the model never reaches a view, a search or a
//! boundary. And inside the model, the vocabulary and the state never import
//! the engine: a message, an event or a log means the same whoever applies it.

use std::collections::BTreeSet;
use std::path::Path;

/// Lowest first: a layer may use itself and those before it.
const LAYERS: [&str; 6] = ["base", "model", "run", "view", "search", "boundary"];

/// The model's files that hold no part of the engine.
const VOCABULARY_AND_STATE: [&str; 12] =
    ["config", "rules", "per_broker", "protocol", "step", "event", "violation", "log", "broker", "replica", "network", "retries"];

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

#[test]
fn the_models_vocabulary_and_state_do_not_import_the_engine() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/model");
    let all = files(&model);
    for (file, text) in all.iter().filter(|(f, _)| VOCABULARY_AND_STATE.contains(&f.as_str())) {
        for (to, module) in uses(text) {
            let allowed = to == "base" || to == "clone_in_place" || (to == "model" && VOCABULARY_AND_STATE.contains(&module.as_str()));
            assert!(allowed, "src/model/{file}.rs uses crate::{to}::{module}, a part of the engine");
        }
    }
    // Every file of the folder is either vocabulary and state, the cluster's
    // pure functions, or engine, so a new one is placed on purpose.
    let engine = ["mod", "simulation", "accounting", "leader", "fetcher", "controller", "rebalance", "producer", "consumer", "faults", "invariants"];
    for (file, _) in &all {
        let placed = VOCABULARY_AND_STATE.contains(&file.as_str()) || engine.contains(&file.as_str()) || file.starts_with("cluster/");
        assert!(placed, "src/model/{file}.rs: add it to a list in tests/layers.rs");
    }
}

/// The cluster's placement, partitioner and leader balance are functions of
/// the cluster's shape: they use the vocabulary (broker ids, the seeded
/// PRNG) and each other, never the engine, so the engine and a test can
/// call them alike.
#[test]
fn the_clusters_functions_use_only_the_vocabulary() {
    let cluster = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/model/cluster");
    let all = files(&cluster);
    assert!(all.len() >= 3, "the cluster's files are where this test looks");
    for (file, text) in &all {
        for (to, module) in uses(text) {
            let allowed = to == "base" || (to == "model" && (VOCABULARY_AND_STATE.contains(&module.as_str()) || module == "cluster"));
            assert!(allowed, "src/model/cluster/{file}.rs uses crate::{to}::{module}");
        }
    }
}
