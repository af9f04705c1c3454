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
//! A state is kept as the move that reached it from its parent (8 bytes),
//! not as a copy of the simulation: a thread rebuilds the state it expands
//! from the one it expanded before, replaying the moves from their common
//! ancestor (`Walker`). Consecutive states of a level are mostly siblings,
//! so that usually costs one step.

use crate::model::simulation::Simulation;
use crate::search::explore::{counts, replay, Found, Progress, Search, Stop};
use crate::search::moves::{Move, MoveList, Moves, MOST_MOVES};
use crate::search::state_key::state_key;
use crate::search::visited::Visited;
use arrayvec::ArrayVec;
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
type Path = ArrayVec<Move, 64>;

/// A child not known to be visited when it was made, or one reached by a
/// step that broke a check (that counts even if the state is known).
#[derive(Clone, Copy)]
struct Candidate {
    key: u64,
    parent: u32,
    mv: Move,
    violated: bool,
}

/// What a thread made of a chunk.
#[derive(Default)]
struct Chunk {
    candidates: Vec<Candidate>,
    generated: u64,
}

/// What every thread reads.
struct Shared<'a> {
    search: &'a Search,
    moves: &'a Moves,
    levels: &'a [Vec<Node>],
    visited: &'a Visited,
    /// Whether the threads leave out the children already visited.
    filter: bool,
    stop: &'a AtomicBool,
}

/// Runs the search (`Search::threads` threads).
pub(crate) fn search(search: &Search, progress: Progress) -> Found {
    let (mut root, violation) = replay(search, &search.prefix);
    if violation.is_some() {
        return (Some(search.prefix.clone()), 1, 0, 0, None);
    }
    root.keep_checked_events_only();
    let moves = Moves::new(&search.config, search, root.producer.requests.len() + search.depth);
    // The page has no threads (its searches run in Web Workers, one thread
    // each): in wasm, one walker, and the threaded code is left out.
    let threads = if cfg!(target_arch = "wasm32") { 1 } else { search.threads.max(1) };
    let mut walkers: Vec<Walker> = (0..threads).map(|_| Walker::new(&root, search.depth)).collect();
    let mut visited = Visited::with_capacity(1 << 16);
    // The root is not in the visited set: a state one or more steps away
    // that is the root's again is counted (as the depth-first search did).
    let mut levels: Vec<Vec<Node>> = vec![vec![Node { parent: 0, mv: 0 }]];
    let (mut states, mut generated) = (0u64, 0u64);
    let stop = AtomicBool::new(false);
    for level in 0..search.depth {
        let last = level + 1 == search.depth;
        let mut next = vec![];
        let parents = levels[level].len();
        for start in (0..parents).step_by(BATCH) {
            let shared = Shared { search, moves: &moves, levels: &levels, visited: &visited, filter: threads > 1, stop: &stop };
            let tick = &mut |_: ()| progress(states, level + 1);
            let chunks = expand(&shared, level, start..(start + BATCH).min(parents), &mut walkers, tick);
            if stop.load(Ordering::Relaxed) {
                return (None, states, generated, level, Some(Stop::Interrupted));
            }
            for chunk in &chunks {
                generated += chunk.generated;
            }
            let all: Vec<&Candidate> = chunks.iter().flat_map(|c| &c.candidates).collect();
            for (i, c) in all.iter().enumerate() {
                // The slot of a key a few candidates on, read ahead.
                if let Some(ahead) = all.get(i + 8) {
                    visited.touch(ahead.key);
                }
                if c.violated {
                    let mut path = path_to(&levels, level, c.parent as usize);
                    path.push(c.mv);
                    let steps = search.prefix.iter().cloned().chain(path.iter().map(|&m| moves.step(m).clone())).collect();
                    return (Some(steps), states, generated, level + 1, None);
                }
                if visited.insert(c.key) {
                    states += 1;
                    if !last {
                        next.push(Node { parent: c.parent, mv: c.mv });
                    }
                    if states >= search.max_states {
                        return (None, states, generated, level, Some(Stop::MaxStates));
                    }
                }
            }
        }
        if next.is_empty() && !last {
            // Nothing new one step further: every state is searched.
            break;
        }
        levels.push(next);
    }
    (None, states, generated, search.depth, None)
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
fn expand(shared: &Shared, level: usize, range: std::ops::Range<usize>, walkers: &mut [Walker], tick: &mut dyn FnMut(()) -> bool) -> Vec<Chunk> {
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
struct Walker {
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

    fn expand_chunk(&mut self, shared: &Shared, level: usize, range: std::ops::Range<usize>, tick: &mut dyn FnMut(()) -> bool) -> Chunk {
        let mut chunk = Chunk::default();
        let mut path = Path::new();
        let mut parent = None;
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
            self.expand_state(shared, &path, i as u32, &mut chunk, tick);
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
    /// level) that are not visited yet, or were reached by a violation.
    fn expand_state(&mut self, shared: &Shared, path: &[Move], index: u32, chunk: &mut Chunk, tick: &mut dyn FnMut(()) -> bool) {
        let (search, moves) = (shared.search, shared.moves);
        self.go_to(moves, path);
        let k = path.len();
        let mut list = MoveList::new();
        moves.list(&self.states[k], search, &mut list);
        let mut children: ArrayVec<(u64, bool), MOST_MOVES> = ArrayVec::new();
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
            children.push((state_key(next, search), violated));
            if !tick(()) {
                shared.stop.store(true, Ordering::Relaxed);
            }
        }
        chunk.generated += children.len() as u64;
        // Read the visited set's slots of all the children first, so that
        // their cache misses overlap instead of coming one after the other.
        // On one thread every child goes to the merge, which looks each up
        // once; on more, each thread leaves out the children already
        // visited, so that the merge (on one thread) has less to look up.
        if !shared.filter {
            chunk.candidates.extend(list.iter().zip(&children).map(|(&mv, &(key, violated))| Candidate { key, parent: index, mv, violated }));
            return;
        }
        for &(key, _) in &children {
            shared.visited.touch(key);
        }
        for (&m, &(key, violated)) in list.iter().zip(&children) {
            if violated || !shared.visited.contains(key) {
                chunk.candidates.push(Candidate { key, parent: index, mv: m, violated });
            }
        }
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
                        if seen.insert(state_key(&child, &plain)) {
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
}
