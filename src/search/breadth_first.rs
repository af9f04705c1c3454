//! The exhaustive search, breadth-first and on any number of threads, with
//! the same answer for any number.
//!
//! Level by level: the states one step further than the last level are
//! the children of its states, less those already visited. A level's states
//! are expanded in batches; the threads share a batch chunk by chunk, and
//! their children are then merged in one fixed order (by parent, then by
//! move), as one thread would have taken them: a state's place in the next
//! level, the states counted, and the first violation (the one returned)
//! do not depend on which thread made what, or when (TLC's and Stateright's
//! parallel breadth-first searches share a queue instead, and return
//! whichever counterexample a thread reaches first).
//!
//! The search's own side (`Frontier`) hands out the batches and merges them;
//! who expands a batch is its caller's business: threads here (`search`),
//! Web Workers in the page (`boundary::explorer_parts`), which are sent the
//! paths of their states instead of the levels.
//!
//! A state is kept as the move that reached it from its parent (8 bytes),
//! not as a copy of the simulation: a thread rebuilds the state it expands
//! from the one it expanded before, replaying the moves from their common
//! ancestor (`Walker`). Consecutive states of a level are mostly siblings,
//! so that usually costs one step.

use crate::model::simulation::Simulation;
use crate::search::moves::{Move, MoveList, Moves, MOST_MOVES};
use crate::search::spec::{counts, replay, Found, Progress, Search, Stop};
use crate::search::state_key::state_key;
use crate::search::visited::Visited;
use arrayvec::ArrayVec;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// A state of a level: the move that reached it from its parent, the
/// parent's place in the level before.
#[derive(Clone, Copy)]
struct Node {
    parent: u32,
    mv: Move,
}

/// A level's states expanded between two merges (a fixed number, so that
/// the counts at a stop are the same for any number of threads).
const BATCH: usize = 4096;

/// States a thread takes at a time from a batch.
const CHUNK: usize = 64;

/// The moves from the root to a state (the search is at most 64 steps deep).
pub(crate) type Path = ArrayVec<Move, 64>;

/// A child not known to be visited when it was made, or one reached by a
/// step that broke a check (that counts even if the state is known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    key: u64,
    parent: u32,
    mv: Move,
    violated: bool,
}

/// What a thread made of a chunk.
#[derive(Default, Debug, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub candidates: Vec<Candidate>,
    pub generated: u64,
}

// The page's workers use these (src/boundary/explorer_parts.rs), and the tests.
#[cfg_attr(not(any(test, all(target_arch = "wasm32", feature = "workers"))), allow(dead_code))]
impl Chunk {
    /// As 32-bit words, to pass between Web Workers: the states generated
    /// (two words), then four words per candidate: its key (two), its
    /// parent, and its move with the violation flag above it.
    pub(crate) fn to_words(&self) -> Vec<u32> {
        let mut words = Vec::with_capacity(2 + 4 * self.candidates.len());
        words.extend([self.generated as u32, (self.generated >> 32) as u32]);
        for c in &self.candidates {
            words.extend([c.key as u32, (c.key >> 32) as u32, c.parent, c.mv as u32 | (c.violated as u32) << 16]);
        }
        words
    }

    /// `to_words` read back; `None` if the words are not a chunk's.
    pub(crate) fn from_words(words: &[u32]) -> Option<Chunk> {
        let [lo, hi] = *words.first_chunk::<2>()?;
        let rest = &words[2..];
        if rest.len() % 4 != 0 {
            return None;
        }
        let candidates = rest
            .chunks_exact(4)
            .map(|w| (w[3] >> 17 == 0).then(|| Candidate { key: w[0] as u64 | (w[1] as u64) << 32, parent: w[2], mv: w[3] as Move, violated: w[3] >> 16 == 1 }))
            .collect::<Option<Vec<_>>>()?;
        Some(Chunk { candidates, generated: lo as u64 | (hi as u64) << 32 })
    }
}

/// What every thread reads while a batch is expanded.
struct Shared<'a> {
    search: &'a Search,
    moves: &'a Moves,
    levels: &'a [Vec<Node>],
    visited: &'a Visited,
    /// Whether the threads leave out the children already visited.
    filter: bool,
    stop: &'a AtomicBool,
}

/// The search's own side: the levels, the visited set and the counts. It
/// hands out a level's states in batches (`next_batch`) and takes the
/// children a batch made back in their order (`merge`); who expands a batch
/// (threads here, Web Workers in the page) is the caller's business.
pub(crate) struct Frontier {
    search: Search,
    moves: Moves,
    root: Simulation,
    levels: Vec<Vec<Node>>,
    /// The states found so far one step further than `level`.
    next: Vec<Node>,
    visited: Visited,
    states: u64,
    generated: u64,
    /// The level being expanded, and its next state to hand out.
    level: usize,
    cursor: usize,
    ended: Option<Ending>,
}

/// How a search ended before its depth was searched.
enum Ending {
    /// A violation: the steps after the prefix, at `depth`.
    Found { path: Vec<Move>, depth: usize },
    /// Nothing new one step further: every state is searched.
    Exhausted,
    /// Stopped at `depth` levels finished.
    Stopped { depth: usize, stop: Stop },
}

impl Frontier {
    pub(crate) fn new(search: Search) -> Frontier {
        let (mut root, violation) = replay(&search, &search.prefix);
        root.keep_checked_events_only();
        let moves = Moves::new(&search.config, &search, root.producer.requests.len() + search.depth);
        let ended = violation.map(|_| Ending::Found { path: vec![], depth: 0 });
        // The root is not in the visited set: a state one or more steps
        // away that is the root's again is counted.
        let levels = vec![vec![Node { parent: 0, mv: 0 }]];
        Frontier { search, moves, root, levels, next: vec![], visited: Visited::with_capacity(1 << 16), states: 0, generated: 0, level: 0, cursor: 0, ended }
    }

    #[cfg_attr(not(any(test, all(target_arch = "wasm32", feature = "workers"))), allow(dead_code))]
    pub(crate) fn search(&self) -> &Search {
        &self.search
    }

    #[cfg_attr(not(all(target_arch = "wasm32", feature = "workers")), allow(dead_code))]
    pub(crate) fn states(&self) -> u64 {
        self.states
    }

    /// The next batch to expand: its level and its states in that level;
    /// `None` once the search has ended.
    pub(crate) fn next_batch(&mut self) -> Option<(usize, Range<usize>)> {
        while self.ended.is_none() {
            let parents = self.levels[self.level].len();
            if self.cursor < parents {
                let batch = self.cursor..(self.cursor + BATCH).min(parents);
                self.cursor = batch.end;
                return Some((self.level, batch));
            }
            // The level is done.
            if self.level + 1 == self.search.depth {
                self.level += 1;
                break;
            }
            if self.next.is_empty() {
                self.ended = Some(Ending::Exhausted);
                break;
            }
            self.levels.push(std::mem::take(&mut self.next));
            self.level += 1;
            self.cursor = 0;
        }
        None
    }

    /// The moves from the root to state `i` of `level`.
    pub(crate) fn path(&self, level: usize, i: usize) -> Path {
        path_to(&self.levels, level, i)
    }

    /// Takes a batch's children, all of its chunks in their order (the
    /// batch `next_batch` handed out last): the states generated, then each
    /// child in turn, until a violation or `max_states`.
    pub(crate) fn merge<'c>(&mut self, chunks: impl IntoIterator<Item = &'c Chunk> + Clone) {
        for chunk in chunks.clone() {
            self.generated += chunk.generated;
        }
        let (level, last) = (self.level, self.level + 1 == self.search.depth);
        for candidates in chunks.into_iter().map(|c| &c.candidates) {
            for (i, c) in candidates.iter().enumerate() {
                // The slot of a key a few candidates on, read ahead.
                if let Some(ahead) = candidates.get(i + 8) {
                    self.visited.touch(ahead.key);
                }
                if c.violated {
                    let mut path = self.path(level, c.parent as usize).to_vec();
                    path.push(c.mv);
                    self.ended = Some(Ending::Found { path, depth: level + 1 });
                    return;
                }
                if self.visited.insert(c.key) {
                    self.states += 1;
                    if !last {
                        self.next.push(Node { parent: c.parent, mv: c.mv });
                    }
                    if self.states >= self.search.max_states {
                        self.ended = Some(Ending::Stopped { depth: level, stop: Stop::MaxStates });
                        return;
                    }
                }
            }
        }
    }

    /// The caller stopped the search in the batch it handed out last.
    pub(crate) fn interrupt(&mut self) {
        self.ended = Some(Ending::Stopped { depth: self.level, stop: Stop::Interrupted });
    }

    /// What the search found, and how far it went.
    pub(crate) fn finish(self) -> Found {
        let (states, generated) = (self.states, self.generated);
        match self.ended {
            Some(Ending::Found { path, depth }) => {
                let steps = self.search.prefix.iter().cloned().chain(path.iter().map(|&m| self.moves.step(m).clone())).collect();
                // A prefix that breaks a check is the answer as it is.
                let states = if depth == 0 { 1 } else { states };
                (Some(steps), states, generated, depth, None)
            }
            Some(Ending::Stopped { depth, stop }) => (None, states, generated, depth, Some(stop)),
            Some(Ending::Exhausted) | None => (None, states, generated, self.search.depth, None),
        }
    }

    /// A walker for this search (one per thread or worker).
    pub(crate) fn walker(&self) -> Walker {
        Walker::new(&self.root, self.search.depth)
    }

    #[cfg_attr(not(any(test, all(target_arch = "wasm32", feature = "workers"))), allow(dead_code))]
    pub(crate) fn moves(&self) -> &Moves {
        &self.moves
    }
}

/// Runs the search (`Search::threads` threads).
pub(crate) fn search(search: &Search, progress: Progress) -> Found {
    let mut frontier = Frontier::new(search.clone());
    // The page has no threads (its searches run in Web Workers, one thread
    // each): in wasm, one walker, and the threaded code is left out.
    let threads = if cfg!(target_arch = "wasm32") { 1 } else { search.threads.max(1) };
    let mut walkers: Vec<Walker> = (0..threads).map(|_| frontier.walker()).collect();
    let stop = AtomicBool::new(false);
    while let Some((level, batch)) = frontier.next_batch() {
        let f = &frontier;
        let shared = Shared { search, moves: &f.moves, levels: &f.levels, visited: &f.visited, filter: threads > 1, stop: &stop };
        let states = f.states;
        let chunks = expand(&shared, level, batch, &mut walkers, &mut |_| progress(states, level + 1));
        if stop.load(Ordering::Relaxed) {
            frontier.interrupt();
            break;
        }
        frontier.merge(&chunks);
    }
    frontier.finish()
}

/// The moves from the root to state `i` of `level`.
fn path_to(levels: &[Vec<Node>], level: usize, mut i: usize) -> Path {
    let mut path = Path::new();
    for l in (1..=level).rev() {
        let node = levels[l][i];
        path.push(node.mv);
        i = node.parent as usize;
    }
    path.reverse();
    path
}

/// Expands the states `range` of `level` on as many threads as there are
/// walkers: each chunk's children, in the chunks' order. The calling
/// thread works too, and is the one that calls `tick` after every step it
/// applies; false from `tick` stops every thread.
fn expand(shared: &Shared, level: usize, range: Range<usize>, walkers: &mut [Walker], tick: &mut dyn FnMut(()) -> bool) -> Vec<Chunk> {
    let chunks: Vec<OnceLock<Chunk>> = (0..range.len().div_ceil(CHUNK)).map(|_| OnceLock::new()).collect();
    let taken = AtomicUsize::new(0);
    let work = |walker: &mut Walker, tick: &mut dyn FnMut(()) -> bool| loop {
        let c = taken.fetch_add(1, Ordering::Relaxed);
        if c >= chunks.len() {
            return;
        }
        let from = range.start + c * CHUNK;
        let chunk = walker.expand_chunk(shared, level, from..(from + CHUNK).min(range.end), tick);
        let _ = chunks[c].set(chunk);
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
    };
    let (first, others) = walkers.split_first_mut().expect("one walker per thread");
    if others.is_empty() || chunks.len() == 1 {
        work(first, tick);
    } else {
        #[cfg(not(target_arch = "wasm32"))]
        std::thread::scope(|s| {
            for walker in others {
                let work = &work;
                s.spawn(move || work(walker, &mut |_| !shared.stop.load(Ordering::Relaxed)));
            }
            work(first, tick);
        });
    }
    chunks.into_iter().map(|c| c.into_inner().unwrap_or_default()).collect()
}

/// One thread's states: the state after each move of the path it is on
/// (`states[0]` is the root), and a spare to make children in.
pub(crate) struct Walker {
    states: Vec<Simulation>,
    path: Path,
    /// `states[..=valid]` are the states after `path[..valid]`.
    valid: usize,
    spare: Simulation,
}

impl Walker {
    fn new(root: &Simulation, depth: usize) -> Walker {
        Walker { states: vec![root.clone(); depth + 1], path: Path::new(), valid: 0, spare: root.clone() }
    }

    /// States `range` of `level`, read from the levels (threads).
    fn expand_chunk(&mut self, shared: &Shared, level: usize, range: Range<usize>, tick: &mut dyn FnMut(()) -> bool) -> Chunk {
        let mut chunk = Chunk::default();
        let mut path = Path::new();
        let mut parent = None;
        let visited = shared.filter.then_some(shared.visited);
        for i in range {
            if shared.stop.load(Ordering::Relaxed) {
                break;
            }
            // A sibling of the state before has its path but the last move.
            let node = shared.levels[level][i];
            if level > 0 && parent == Some(node.parent) {
                *path.last_mut().expect("a state below the root has a move") = node.mv;
            } else {
                path = path_to(shared.levels, level, i);
                parent = (level > 0).then_some(node.parent);
            }
            if !self.expand_state(shared.search, shared.moves, visited, &path, i as u32, &mut chunk, tick) {
                shared.stop.store(true, Ordering::Relaxed);
            }
        }
        chunk
    }

    /// States `range` of `level`, given their paths (`level` moves each,
    /// one after the other), for a Web Worker that has no levels. Stops
    /// early when `tick` returns false.
    #[cfg_attr(not(any(test, all(target_arch = "wasm32", feature = "workers"))), allow(dead_code))]
    pub(crate) fn expand_paths(&mut self, search: &Search, moves: &Moves, level: usize, range: Range<u32>, paths: &[Move], tick: &mut dyn FnMut(()) -> bool) -> Chunk {
        assert_eq!(paths.len(), range.len() * level, "one path of {level} moves per state");
        let mut chunk = Chunk::default();
        for (i, index) in range.enumerate() {
            let path = &paths[i * level..(i + 1) * level];
            if !self.expand_state(search, moves, None, path, index, &mut chunk, tick) {
                break;
            }
        }
        chunk
    }

    /// Makes the state at the end of `path` from the one before: replays
    /// the moves after their common ancestor.
    fn go_to(&mut self, moves: &Moves, path: &[Move]) {
        let common = self.path.iter().zip(path).take(self.valid).take_while(|(a, b)| a == b).count();
        for j in common..path.len() {
            let (done, rest) = self.states.split_at_mut(j + 1);
            rest[0].clone_from(&done[j]);
            rest[0].apply_in_place(moves.step(path[j]));
            rest[0].accounting.out.clear();
        }
        self.path.clear();
        self.path.try_extend_from_slice(path).expect("at most 64 steps");
        self.valid = path.len();
    }

    /// The children of the state at the end of `path` (state `index` of its
    /// level), less those `visited` already holds, if given, but for those
    /// reached by a violation. False if `tick` said to stop.
    #[allow(clippy::too_many_arguments)]
    fn expand_state(&mut self, search: &Search, moves: &Moves, visited: Option<&Visited>, path: &[Move], index: u32, chunk: &mut Chunk, tick: &mut dyn FnMut(()) -> bool) -> bool {
        self.go_to(moves, path);
        let k = path.len();
        let mut list = MoveList::new();
        moves.list(&self.states[k], search, &mut list);
        let mut children: ArrayVec<(u64, bool), MOST_MOVES> = ArrayVec::new();
        let mut go_on = true;
        for (i, &m) in list.iter().enumerate() {
            // The last child is made in the state itself (it is not needed
            // again), except the root's.
            let next = if i + 1 == list.len() && k > 0 {
                self.valid = k - 1;
                &mut self.states[k]
            } else {
                self.spare.clone_from(&self.states[k]);
                &mut self.spare
            };
            let seen = next.violations.len();
            next.apply_in_place(moves.step(m));
            next.accounting.out.clear(); // the next copy of this state need not copy its events
            let violated = next.violations[seen..].iter().any(|v| counts(v, search));
            children.push((state_key(next, search, &moves.symmetries), violated));
            // Asked to stop: at once, as the command line's Ctrl-C and a
            // page's progress callback expect (the batch is not merged).
            if !tick(()) {
                go_on = false;
                break;
            }
        }
        chunk.generated += children.len() as u64;
        // On one thread every child goes to the merge, which looks each up
        // once; on more, each thread leaves out the children already
        // visited, so that the merge (on one thread) has less to look up.
        let Some(visited) = visited else {
            chunk.candidates.extend(list.iter().zip(&children).map(|(&mv, &(key, violated))| Candidate { key, parent: index, mv, violated }));
            return go_on;
        };
        // Read the visited set's slots of all the children first, so that
        // their cache misses overlap instead of coming one after the other.
        for &(key, _) in &children {
            visited.touch(key);
        }
        for (&m, &(key, violated)) in list.iter().zip(&children) {
            if violated || !visited.contains(key) {
                chunk.candidates.push(Candidate { key, parent: index, mv: m, violated });
            }
        }
        go_on
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::{Config, Protocol};
    use std::collections::HashSet;

    /// The same states as a plain breadth-first search that keeps a copy of
    /// every state: the walkers rebuild each state right, on any number of
    /// threads, and the merge keeps each new state once.
    #[test]
    fn counts_the_states_a_plain_search_counts() {
        for (protocol, brokers, min_isr) in [(Protocol::V3_7, 3, 2), (Protocol::V0_10, 2, 1), (Protocol::V2_8, 4, 2)] {
            let config = Config { brokers, min_insync_replicas: min_isr, ..Config::for_protocol(protocol) };
            let plain = Search { depth: 4, max_produces: 2, power_loss: true, network_faults: true, ..Search::new(config.clone()) };
            let moves = Moves::new(&config, &plain, plain.depth);
            let mut root = Simulation::new(config);
            root.keep_checked_events_only();
            let mut seen = HashSet::new();
            let mut level = vec![root];
            for _ in 0..plain.depth {
                let mut next = vec![];
                for state in &level {
                    let mut list = MoveList::new();
                    moves.list(state, &plain, &mut list);
                    for &m in &list {
                        let mut child = state.clone();
                        child.apply_in_place(moves.step(m));
                        child.accounting.out.clear();
                        if seen.insert(state_key(&child, &plain, &moves.symmetries)) {
                            next.push(child);
                        }
                    }
                }
                level = next;
            }
            for threads in [1, 2, 3] {
                let (path, states, ..) = search(&Search { threads, count_acks_one_losses: false, ..plain.clone() }, &mut |_, _| true);
                assert_eq!(states, seen.len() as u64, "{protocol:?}, {threads} threads");
                assert!(path.is_none(), "{protocol:?}: no violation within 4 steps");
            }
        }
    }

    /// What the page's workers do (src/boundary/explorer_parts.rs): one
    /// holds the frontier and expands a part of each batch, the others are
    /// sent the paths of theirs and send back their children as words. The
    /// same answer as the search on threads, for any number of workers.
    #[test]
    fn workers_sent_paths_give_the_same_answer() {
        let cases = [
            Search { depth: 5, max_produces: 2, ..Search::new(Config { brokers: 3, min_insync_replicas: 2, ..Config::for_protocol(Protocol::V3_7) }) },
            Search { depth: 8, ..Search::new(Config { brokers: 2, ..Config::for_protocol(Protocol::V0_10) }) },
            Search { depth: 4, max_states: 3000, power_loss: true, network_faults: true, ..Search::new(Config { brokers: 3, ..Config::for_protocol(Protocol::V2_8) }) },
        ];
        for case in cases {
            let expected = search(&case, &mut |_, _| true);
            for workers in 1..=4usize {
                let mut frontier = Frontier::new(case.clone());
                let mut walkers: Vec<Walker> = (0..workers).map(|_| frontier.walker()).collect();
                while let Some((level, batch)) = frontier.next_batch() {
                    let mut parts = vec![];
                    for (w, walker) in walkers.iter_mut().enumerate() {
                        let (from, to) = (batch.start + batch.len() * w / workers, batch.start + batch.len() * (w + 1) / workers);
                        let paths: Vec<Move> = (from..to).flat_map(|i| frontier.path(level, i)).collect();
                        let chunk = walker.expand_paths(frontier.search(), frontier.moves(), level, from as u32..to as u32, &paths, &mut |_| true);
                        parts.push(Chunk::from_words(&chunk.to_words()).expect("words read back"));
                    }
                    frontier.merge(&parts);
                }
                let found = frontier.finish();
                assert_eq!((&found.0, found.1, found.2, found.3), (&expected.0, expected.1, expected.2, expected.3), "{workers} workers");
            }
        }
        assert_eq!(Chunk::from_words(&[1]), None);
        assert_eq!(Chunk::from_words(&[1, 0, 5]), None);
        assert_eq!(Chunk::from_words(&[1, 0, 5, 0, 0, 1 << 17]), None, "no such flag");
    }
}
