//! The explorer's state key: a hash of everything that decides the future
//! of a run in manual mode, so that a state reached again is searched once.

use crate::model::config::{BrokerId, BrokerList, PerBroker};
use crate::model::event::ProduceResult;
use crate::model::clients::accumulator::Status;
use crate::model::simulation::Simulation;
use crate::model::config::limits;
use crate::search::spec::Search;
use crate::search::moves::advances;
use crate::search::symmetry::{Identity, Rename, Renaming, Symmetries};

/// The simulated time left before the scenario's hour, as far as the search
/// can spend it. Near the hour a state with less time left has fewer moves
/// (no advance past the hour), so it is another state; with more than `depth`
/// of the longest advance left, time never runs out within the search.
pub(crate) fn time_left(sim: &Simulation, search: &Search) -> u64 {
    let most = advances(&sim.config).into_iter().max().unwrap_or(0).saturating_mul(search.depth as u64);
    limits::MAX_SIMULATED_MS.saturating_sub(sim.now_ms).min(most)
}

/// The visited set's key: the canonical state and the time it has left;
/// with symmetries, the smallest such hash of the state renamed by each of
/// them and by none (`symmetry`: the same for every state of an orbit).
#[inline]
pub(crate) fn state_key(sim: &Simulation, search: &Search, symmetries: &Symmetries) -> u64 {
    let left = time_left(sim, search);
    let key = |r: &dyn Fn(&mut WordHasher)| {
        let mut h = WordHasher::default();
        r(&mut h);
        h.push(left);
        h.finish()
    };
    let mut min = key(&|h| canonical_words(sim, &Identity, h));
    for r in &symmetries.renamings {
        min = min.min(key(&|h| canonical_words(sim, r, h)));
    }
    min
}

/// A hash of everything that decides the future of a run in manual mode,
/// with times made relative to now and capped where only "past the timeout"
/// matters, so that equivalent states are visited once. (Timed mode is not
/// searched: its messages in flight and fetcher clocks are not hashed.)
pub fn canonical_hash(sim: &Simulation) -> u64 {
    let mut h = WordHasher::default();
    canonical_words(sim, &Identity, &mut h);
    h.finish()
}

/// The words `canonical_hash` hashes, of the state renamed by `r` (tests
/// compare them: the renamed steps of a run reach the renamed state).
pub fn renamed_words(sim: &Simulation, r: &Renaming) -> Vec<u64> {
    let mut words = vec![];
    canonical_words(sim, r, &mut words);
    words
}

/// The same words of the state as it is.
pub fn state_words(sim: &Simulation) -> Vec<u64> {
    let mut words = vec![];
    canonical_words(sim, &Identity, &mut words);
    words
}

/// Writes the state `canonical_hash` hashes as words: full-width values one
/// to a word, small ones (flags, broker ids, lists of broker ids) packed.
/// The encoding is unambiguous, so different canonical states give
/// different words. An optional offset or time is written as 0 for none and
/// value + 1 for some (they stay far below `u64::MAX`). Renamed by `r`:
/// broker `b` of the words is the state's `r.old_broker(b)`, every id is
/// written by its new name, and a list the engine keeps sorted is sorted
/// again (`Identity` writes the state as it is, at no cost).
#[inline]
fn canonical_words<R: Rename + ?Sized>(sim: &Simulation, r: &R, h: &mut impl Words) {
    let now = sim.now_ms;
    let expiry = sim.client_expiry_ms() + 1;
    let lag = sim.config.replica_lag_time_max_ms + 1;
    let (brokers, partitions) = (sim.config.brokers, sim.config.partitions);
    // How long ago `t` was, as far as a timeout of `cap` - 1 can tell.
    let age = |t: u64, cap: u64| now.saturating_sub(t).min(cap);
    let some = |o: Option<u64>| o.map_or(0, |x| x + 1);
    let id = |b: Option<BrokerId>| b.map_or(0, |b| r.broker(b) as u64);
    // One flag per broker, in the renamed order.
    let flags = |bits: &PerBroker<bool>| (1..=brokers).rev().fold(0u64, |w, b| w << 1 | bits[(r.old_broker(b) - 1) as usize] as u64);
    let bits = |bits: &[bool]| bits.iter().rev().fold(0u64, |w, &bit| w << 1 | bit as u64);
    // A list of at most 7 broker ids (1 to 7): its length, then 4 bits per id.
    let list = |ids: &BrokerList| {
        let ids = r.sorted_list(ids);
        ids.iter().fold(ids.len() as u64, |w, &b| w << 4 | b as u64)
    };
    // Time 0 is a time too: a new leader takes a follower outside the ISR
    // as caught up at 0 (`Replica.resetReplicaState`), which is within the
    // lag time until it has passed.
    h.push(age(0, lag));
    // The phase of the periodic ISR check and HW checkpoint decides what an advance does.
    h.push(sim.next_isr_check_ms - now);
    h.push(sim.next_checkpoint_ms - now);
    for nb in 1..=brokers {
        let b = sim.broker(r.old_broker(nb));
        let stops = b.shutdown_at_ms;
        h.push(bits(&[b.alive, b.starting, b.clean_shutdown, stops.is_some()]));
        // When a broker shutting down stops (KRaft: at its next heartbeat);
        // the flag above says whether this word is there.
        if let Some(t) = stops {
            h.push(t.saturating_sub(now));
        }
    }
    for np in 0..partitions {
        let partition = &sim.partitions[r.old_partition(np) as usize];
        for nb in 1..=brokers {
            let b = &partition.replicas[(r.old_broker(nb) - 1) as usize];
            let leads = sim.broker(b.id).alive && b.believes_leader();
            let small = bits(&[b.needs_epoch_truncation, leads, b.stopped_for_shutdown]);
            h.push(small | id(b.leader) << 8 | (b.leader_epoch as u64) << 32);
            h.push(b.high_watermark);
            h.push(b.checkpointed_high_watermark);
            // The log end gives the number of records.
            h.push(b.log.log_end_offset());
            for record in b.log.records() {
                h.push(record.id);
                h.push(record.epoch as u64);
            }
            let epochs = b.log.epochs().entries();
            h.push(epochs.len() as u64);
            for e in epochs {
                h.push(e.epoch as u64);
                h.push(e.start_offset);
            }
            if leads {
                h.push(list(&b.isr));
                h.push(b.pending_isr.as_ref().map_or(0, |p| 1 << 32 | list(p)));
                h.push(b.epoch_start_offset);
                for nf in 1..=brokers {
                    let f = &b.remote[(r.old_broker(nf) - 1) as usize];
                    let (leader_log_end_offset, fetched_ms) = f.last_fetch();
                    h.push(some(f.log_end_offset));
                    // Only "past the lag time" matters (`isFollowerOutOfSync`).
                    h.push(age(f.last_caught_up_ms, lag));
                    h.push(leader_log_end_offset);
                    // The last fetch's time only ever raises the caught-up time
                    // (`Replica.updateFetchState` takes the larger): a new
                    // leader's "never" (0, `resetReplicaState`) below it is the
                    // same as any time below it.
                    h.push(age(fetched_ms.max(f.last_caught_up_ms), lag));
                }
            }
        }
    }
    let c = &sim.controller;
    h.push(flags(&c.fenced));
    for np in 0..partitions {
        let registration = c.partition(r.old_partition(np));
        h.push(id(registration.leader) | list(&registration.isr) << 4);
        h.push(registration.leader_epoch as u64);
        // KIP-966's ELR and last known leader decide who may be elected.
        h.push(list(&registration.elr) | id(registration.last_known_leader) << 32);
    }
    // The automatic leader rebalance: when it next runs, and KRaft's schedule.
    h.push(c.rebalance.due_ms.map_or(0, |t| 1 + t.saturating_sub(now)) | (c.rebalance.schedule as u64) << 48);
    // Only "past the session timeout" matters: the broker is fenced. Of
    // brokers silent since one moment, the one that fell silent first is
    // fenced first: its rank among the silent brokers not yet fenced.
    let waiting = |i: usize| c.silent_order[i] != 0 && !c.fenced[i];
    for nb in 1..=brokers {
        let i = (r.old_broker(nb) - 1) as usize;
        let s = c.silent_since_ms[i];
        let rank = if waiting(i) { (0..brokers as usize).filter(|&j| waiting(j) && c.silent_order[j] <= c.silent_order[i]).count() as u64 } else { 0 };
        h.push(some(s.map(|t| age(t, sim.config.broker_session_timeout_ms))) | rank << 48);
    }
    h.push(sim.network.cuts.iter().fold(0u64, |w, &(a, b)| w | 1 << ((r.broker(a) - 1) * 8 + (r.broker(b) - 1))));
    h.push(flags(&sim.network.isolated) | flags(&sim.network.controller_cut) << 8 | flags(&c.shutting_down) << 16);
    h.push(sim.producer.requests.len() as u64);
    for q in &sim.producer.requests {
        let (status, retry_at) = match q.status {
            Status::Queued => (255, 0),
            Status::Pending => (0, 0),
            Status::Retrying { at_ms } => (1, at_ms),
            Status::Done(ProduceResult::Acked) => (2, 0),
            Status::Done(ProduceResult::Sent) => (3, 0),
            Status::Done(ProduceResult::Error(e)) => (4 + e as u64, 0),
        };
        let epoch = q.epoch.map_or(0, |e| e as u64 + 1);
        // Its partition (4 bits, at most 12 partitions) above the epoch's 33.
        h.push(status | id(q.broker) << 8 | (q.acks as u64) << 12 | epoch << 16 | (r.partition(q.partition) as u64) << 52);
        h.push(some(q.offset) | some(q.sent_in_epoch.map(u64::from)) << 40);
        if matches!(q.status, Status::Done(_)) {
            // Its clocks and attempts have no future.
            continue;
        }
        // When the retry goes, and how many attempts failed before it (the
        // next backoff and the retries left depend on them, KIP-580).
        h.push(retry_at.saturating_sub(now) | (q.attempts as u64) << 32);
        h.push(q.deadline_ms.saturating_sub(now));
        // The record's age decides when the client gives up on it
        // (`delivery.timeout.ms`, before 2.1 `request.timeout.ms`).
        h.push(age(q.created_ms, expiry));
    }
    // The clients' queues: their order is not in the statuses (a retry goes
    // back to the front).
    for np in 0..partitions {
        for id in sim.producer.queued_for(r.old_partition(np)) {
            h.push(id);
        }
    }
    // The consumer: where it reads next, the epoch it validates against
    // (KIP-320), and what it read (a record it read must stay).
    let consumer = &sim.consumer;
    for np in 0..partitions {
        let at = &consumer.positions[r.old_partition(np) as usize];
        h.push(at.position);
        h.push(some(at.position_epoch.map(u64::from)) | some(at.leader_epoch_seen.map(u64::from)) << 32);
    }
    h.push(consumer.read.len() as u64);
    for read in &consumer.read {
        h.push(read.offset | (r.partition(read.partition) as u64) << 48);
        h.push(read.id);
    }
    // The controller quorum, whole: its voters, timers, messages in flight
    // and random source decide its future, and the checks' memory what they
    // will find. Its timers are absolute, so states of a quorum at different
    // times are different states (no symmetry with a quorum: `Moves::new`).
    if let Some(q) = sim.quorum.as_deref() {
        h.push(now);
        let mut words = HashWords(h);
        std::hash::Hash::hash(q, &mut words);
        std::hash::Hash::hash(&sim.quorum_checks, &mut words);
        // The metadata each broker has applied, and its broker epoch.
        for b in &sim.brokers {
            words.0.push(b.metadata_offset);
            words.0.push(b.broker_epoch);
        }
    }
}

/// `std::hash::Hash` into words: what derives `Hash` (the quorum) is
/// written as the hasher's words.
struct HashWords<'a, W: Words>(&'a mut W);

impl<W: Words> std::hash::Hasher for HashWords<'_, W> {
    fn finish(&self) -> u64 {
        0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0.push(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0.push(n);
    }
}

/// FxHash (rustc's hasher) over words, in four lanes: the words go round
/// robin into four independent multiply chains instead of one in which each
/// word waits for the multiply of the one before. `finish` chains the lanes
/// and applies MurmurHash3's finaliser, so that every bit of the result
/// depends on every lane (the visited set uses a key's low bits as they
/// are). Fast, deterministic, good enough for de-duplication.
/// Where `canonical_words` writes: the hasher, or a list (to compare).
pub(crate) trait Words {
    fn push(&mut self, w: u64);
}

impl Words for Vec<u64> {
    fn push(&mut self, w: u64) {
        Vec::push(self, w);
    }
}

#[derive(Default)]
struct WordHasher {
    lanes: [u64; 4],
}

impl Words for WordHasher {
    #[inline]
    fn push(&mut self, w: u64) {
        let [a, b, c, d] = self.lanes;
        self.lanes = [b, c, d, (a.rotate_left(5) ^ w).wrapping_mul(Self::K)];
    }
}

impl WordHasher {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn finish(&self) -> u64 {
        let mut x = self.lanes.iter().fold(0, |h: u64, &lane| (h.rotate_left(5) ^ lane).wrapping_mul(Self::K));
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::{Config, Protocol};
    use crate::search::moves::{MoveList, Moves};
    use std::collections::HashMap;

    /// The words `state_key` hashes.
    fn key_words(sim: &Simulation, search: &Search) -> Vec<u64> {
        let mut words = vec![];
        canonical_words(sim, &Identity, &mut words);
        words.push(time_left(sim, search));
        words
    }

    /// Two states with one key have the same future: under every preset,
    /// every pair of states the search reaches with the same key has
    /// children with the same keys, move for move, whose steps found the
    /// same violations. (A key that left out
    /// something the future depends on, such as a retry's failed attempts,
    /// would make the search expand one of them only, and miss what the
    /// other leads to.)
    #[test]
    fn states_with_one_key_have_the_same_children() {
        for protocol in Protocol::ALL {
            // One partition, and a topic of two on three brokers (placed by
            // the version's placer); and (KRaft) a quorum of three controllers.
            let quorum = if protocol.has_kraft() { 3 } else { 0 };
            // (With faults, a rack's too: racks a, b, b.)
            for (faults, depth, partitions, controllers) in [(false, 5, 1, 0), (true, 3, 1, 0), (false, 4, 2, 0), (false, 3, 1, quorum)] {
                let config = Config {
                    racks: faults.then(|| ["a", "b", "b"].map(Into::into).into()),
                    brokers: 3,
                    min_insync_replicas: 2,
                    partitions,
                    replication_factor: (partitions > 1).then_some(2),
                    controllers,
                    ..Config::for_protocol(protocol)
                };
                let search = Search { max_produces: 2, depth, power_loss: faults, network_faults: faults, shutdowns: faults, consume: faults, rack_faults: faults, ..Search::new(config.clone()) };
                let moves = Moves::new(&config, &search, depth);
                // A child's key, with the kinds of the violations its step
                // found (the checks' memory must decide them as the key does).
                let children = |s: &Simulation| -> Vec<(u64, Simulation)> {
                    let mut list = MoveList::new();
                    moves.list(s, &search, &mut list);
                    list.iter()
                        .map(|&m| {
                            let mut next = s.clone();
                            let seen = next.violations.len();
                            next.apply_in_place(moves.step(m));
                            next.accounting.out.clear();
                            let found = next.violations[seen..].iter().fold(0u64, |w, v| w.rotate_left(7) ^ (v.kind as u64 + 1));
                            (state_key(&next, &search, &Symmetries::none()) ^ found.wrapping_mul(0x9E37_79B9_7F4A_7C15), next)
                        })
                        .collect()
                };
                let mut root = Simulation::new(config);
                root.keep_checked_events_only();
                let mut first: HashMap<u64, (Simulation, Vec<u64>)> = HashMap::new();
                let mut level = vec![root];
                for _ in 0..depth {
                    let mut next = vec![];
                    for state in &level {
                        for (key, child) in children(state) {
                            let keys: Vec<u64> = children(&child).iter().map(|c| c.0).collect();
                            match first.get(&key) {
                                None => {
                                    first.insert(key, (child.clone(), keys));
                                    next.push(child);
                                }
                                Some((other, theirs)) if *theirs != keys => {
                                    let ours: Vec<Vec<u64>> = children(&child).iter().map(|c| key_words(&c.1, &search)).collect();
                                    let others: Vec<Vec<u64>> = children(other).iter().map(|c| key_words(&c.1, &search)).collect();
                                    panic!("{protocol:?}: one key, other children:\n{ours:?}\n{others:?}\n{child:#?}\n{other:#?}");
                                }
                                Some(_) => {}
                            }
                        }
                    }
                    level = next;
                }
                assert!(first.len() > 100, "{protocol:?}: {} states", first.len());
            }
        }
    }
}
