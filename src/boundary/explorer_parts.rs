//! The explorer shared by several Web Workers (www/workers/explore-worker.js):
//! one worker holds the search's own side (`ExploreFrontier`: the levels,
//! the visited set, the merge) and expands a part of each batch; each other
//! worker holds an `ExploreHelper`, is sent the paths of its part and sends
//! back the children it made, as words. The merge takes the parts in their
//! order, so the answer is the one the command line gives on any number of
//! threads (`search::breadth_first`). Built only with the `workers` feature,
//! which scripts/build-wasm.sh turns on for the workers' core (www/pkg-fast).
//! Thin, as `wasm.rs` is.

use super::searches::{explore_search, Explored};
use super::wasm::to_js;
use crate::run::link;
use crate::search::breadth_first::{Chunk, Frontier, Walker};
use crate::search::explore;
use std::ops::Range;
use wasm_bindgen::prelude::*;

/// The search's own side, in the first worker.
#[wasm_bindgen]
pub struct ExploreFrontier {
    frontier: Frontier,
    walker: Walker,
    /// The batch handed out last: its level and its states.
    batch: Option<(usize, Range<usize>)>,
}

#[wasm_bindgen]
impl ExploreFrontier {
    /// The options of `explore` (`workers` says how many share it).
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "object | string")] options: JsValue) -> Result<ExploreFrontier, JsValue> {
        let search = explore_search(&options, "ExploreFrontier")?;
        if search.strategy != explore::Strategy::Bfs {
            return Err(JsError::new("ExploreFrontier: options.strategy: random walks are one worker's (call explore)").into());
        }
        let frontier = Frontier::new(search);
        let walker = frontier.walker();
        Ok(ExploreFrontier { frontier, walker, batch: None })
    }

    /// The next batch as `[level, start, end]` (its states `start..end` of
    /// `level`), or `undefined` once the search has ended.
    #[wasm_bindgen(js_name = nextBatch)]
    pub fn next_batch(&mut self) -> Option<Box<[u32]>> {
        self.batch = self.frontier.next_batch();
        self.batch.as_ref().map(|(level, r)| vec![*level as u32, r.start as u32, r.end as u32].into_boxed_slice())
    }

    /// The paths of states `start..end` of the batch's level, `level`
    /// moves each, one after the other (for a helper's `expand`).
    pub fn paths(&self, start: u32, end: u32) -> Result<Box<[u16]>, JsValue> {
        let (level, range) = self.part(start, end)?;
        Ok(range.flat_map(|i| self.frontier.path(level, i)).collect())
    }

    /// Expands states `start..end` of the batch itself: the children, as words.
    pub fn expand(&mut self, start: u32, end: u32) -> Result<Box<[u32]>, JsValue> {
        let (level, range) = self.part(start, end)?;
        let paths: Vec<u16> = range.clone().flat_map(|i| self.frontier.path(level, i)).collect();
        let range = range.start as u32..range.end as u32;
        let chunk = self.walker.expand_paths(self.frontier.search(), self.frontier.moves(), level, range, &paths, &mut |_| true);
        Ok(chunk.to_words().into_boxed_slice())
    }

    /// Takes the batch's parts, in their order (each as `expand` or a
    /// helper made it).
    pub fn merge(&mut self, #[wasm_bindgen(unchecked_param_type = "Uint32Array[]")] parts: Vec<js_sys::Uint32Array>) -> Result<(), JsValue> {
        if self.batch.is_none() {
            return Err(JsError::new("ExploreFrontier.merge: no batch to merge (call nextBatch)").into());
        }
        let chunks = parts
            .iter()
            .map(|p| Chunk::from_words(&p.to_vec()).ok_or_else(|| JsError::new("ExploreFrontier.merge: a part that is not a helper's children")))
            .collect::<Result<Vec<Chunk>, JsError>>()?;
        self.frontier.merge(&chunks);
        self.batch = None;
        Ok(())
    }

    /// Distinct states so far.
    #[wasm_bindgen(getter)]
    pub fn states(&self) -> f64 {
        self.frontier.states() as f64
    }

    /// The outcome, as `explore` returns it (call once the batches have ended).
    pub fn outcome(self) -> Result<JsValue, JsValue> {
        let search = self.frontier.search().clone();
        let outcome = explore::outcome(&search, self.frontier.finish());
        let link = outcome.scenario.as_ref().map(link::encode);
        Ok(to_js(&Explored { outcome: &outcome, link })?)
    }

    fn part(&self, start: u32, end: u32) -> Result<(usize, Range<usize>), JsValue> {
        let Some((level, batch)) = &self.batch else {
            return Err(JsError::new("ExploreFrontier: no batch (call nextBatch)").into());
        };
        let (start, end) = (start as usize, end as usize);
        if start > end || start < batch.start || end > batch.end {
            return Err(JsError::new(&format!("ExploreFrontier: states {start}..{end} are not within the batch's {}..{}", batch.start, batch.end)).into());
        }
        Ok((*level, start..end))
    }
}

/// A helper, in each other worker: expands the states it is sent.
#[wasm_bindgen]
pub struct ExploreHelper {
    frontier: Frontier,
    walker: Walker,
}

#[wasm_bindgen]
impl ExploreHelper {
    /// The same options as the frontier's.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "object | string")] options: JsValue) -> Result<ExploreHelper, JsValue> {
        let frontier = Frontier::new(explore_search(&options, "ExploreHelper")?);
        let walker = frontier.walker();
        Ok(ExploreHelper { frontier, walker })
    }

    /// States `start..end` of `level`, given their paths (`paths` from the
    /// frontier): the children, as words.
    pub fn expand(&mut self, level: u32, start: u32, end: u32, paths: &[u16]) -> Result<Box<[u32]>, JsValue> {
        let level = level as usize;
        if start > end || level > self.frontier.search().depth || paths.len() != (end - start) as usize * level {
            return Err(JsError::new(&format!("ExploreHelper.expand: {} moves are not the paths of states {start}..{end} of level {level}", paths.len())).into());
        }
        if let Some(&m) = paths.iter().find(|&&m| !self.frontier.moves().has(m)) {
            return Err(JsError::new(&format!("ExploreHelper.expand: move {m} is not one of the search's")).into());
        }
        let chunk = self.walker.expand_paths(self.frontier.search(), self.frontier.moves(), level, start..end, paths, &mut |_| true);
        Ok(chunk.to_words().into_boxed_slice())
    }
}
