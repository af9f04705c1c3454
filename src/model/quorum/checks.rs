//! The quorum's safety checks, as Kafka's own simulation states them
//! (`RaftEventSimulationTest`'s invariants), run after every message and
//! timer: one leader per epoch (`SingleLeader`), no voter's epoch going
//! down (`MonotonicEpoch`), no leader's HW below one a leader of its epoch
//! or an earlier one had (`MonotonicHighWatermark`), every record below it held by a majority
//! (`MajorityReachedHighWatermark`), and every voter's committed records
//! the same (`ConsistentCommittedData`).

use crate::model::config::ControllerId;
use crate::model::quorum::metadata_log::MetadataEntry;
use crate::model::quorum::Quorum;
use crate::model::violation::{Violation, ViolationKind};
use std::collections::{BTreeMap, BTreeSet};

/// What the checks remember of the run.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct QuorumChecks {
    /// The highest epoch each voter has been in.
    epochs: Vec<u32>,
    /// The leader seen in each epoch.
    leaders: BTreeMap<u32, ControllerId>,
    /// The highest HW a leader of each epoch has had.
    high_watermarks: BTreeMap<u32, u64>,
    /// The committed records seen so far, by offset.
    committed: Vec<MetadataEntry>,
    /// What was reported: a broken state is reported once, not after every step it lasts.
    reported: BTreeSet<(ViolationKind, ControllerId, u64)>,
}

// In place: the explorer copies it with every state, mostly empty. Without
// a quorum it is empty for good (`new(0)`), and copying it is then nothing:
// its two lists and three trees cost 19 ns a copy to find empty.
impl Clone for QuorumChecks {
    fn clone(&self) -> Self {
        let QuorumChecks { epochs, leaders, high_watermarks, committed, reported } = self;
        QuorumChecks { epochs: epochs.clone(), leaders: leaders.clone(), high_watermarks: high_watermarks.clone(), committed: committed.clone(), reported: reported.clone() }
    }

    #[inline]
    fn clone_from(&mut self, source: &Self) {
        if source.epochs.is_empty() && self.epochs.is_empty() {
            return;
        }
        let QuorumChecks { epochs, leaders, high_watermarks, committed, reported } = source;
        self.epochs.clone_from(epochs);
        self.leaders.clone_from(leaders);
        self.high_watermarks.clone_from(high_watermarks);
        self.committed.clone_from(committed);
        self.reported.clone_from(reported);
    }
}

impl QuorumChecks {
    pub fn new(voters: u32) -> QuorumChecks {
        QuorumChecks { epochs: vec![0; voters as usize], leaders: BTreeMap::new(), high_watermarks: BTreeMap::new(), committed: vec![], reported: BTreeSet::new() }
    }

    /// The violations in the voters' state now (each reported once).
    pub fn check(&mut self, q: &Quorum, step: u64, time_ms: u64) -> Vec<Violation> {
        let (voters, majority) = (&q.voters[..], q.majority());
        let mut found = vec![];
        let reported = &mut self.reported;
        let mut report = |kind: ViolationKind, controllers: Vec<ControllerId>, offset: Option<u64>, detail: String| {
            let key = (kind, controllers.last().copied().unwrap_or(0), offset.unwrap_or(u64::MAX));
            if !reported.insert(key) {
                return;
            }
            found.push(Violation {
                kind,
                step,
                time_ms,
                partition: 0,
                brokers: vec![],
                controllers,
                offset,
                value: None,
                acks: None,
                protocol_violation: true,
                allowed_by: None,
                detail,
            });
        };
        for v in voters {
            let seen = &mut self.epochs[(v.id - 1) as usize];
            if v.epoch < *seen {
                report(ViolationKind::MonotonicEpoch, vec![v.id], None, format!("controller {} went from epoch {} back to epoch {}", v.id, seen, v.epoch));
            }
            *seen = v.epoch;
        }
        for v in voters.iter().filter(|v| v.is_leader()) {
            match self.leaders.get(&v.epoch).copied() {
                None => {
                    self.leaders.insert(v.epoch, v.id);
                }
                Some(other) if other != v.id => report(
                    ViolationKind::SingleLeader,
                    vec![other, v.id],
                    None,
                    format!("controllers {other} and {} both led epoch {}", v.id, v.epoch),
                ),
                _ => {}
            }
            let Some(hw) = v.high_watermark else { continue };
            // Below what a leader of this epoch or an earlier one had: a
            // stale leader of an older epoch, cut off, keeps the HW it had,
            // below what a newer leader commits, and is no violation.
            let before = self.high_watermarks.range(..=v.epoch).map(|(_, &h)| h).max().unwrap_or(0);
            if hw < before {
                report(
                    ViolationKind::MonotonicHighWatermark,
                    vec![v.id],
                    Some(hw),
                    format!("the metadata HW went down from {before} to {hw} on controller {}, leader of epoch {}", v.id, v.epoch),
                );
            }
            let best = self.high_watermarks.entry(v.epoch).or_insert(hw);
            *best = (*best).max(hw);
            let reached = voters.iter().filter(|o| o.log.end_offset() >= hw).count();
            if reached < majority {
                report(
                    ViolationKind::MajorityReachedHighWatermark,
                    vec![v.id],
                    Some(hw),
                    format!("controller {} has metadata HW {hw}, reached by only {reached} of {} voters (a majority is {majority})", v.id, voters.len()),
                );
            }
        }
        // Every voter's records below its own HW agree with what was committed before.
        for v in voters {
            let hw = v.high_watermark.unwrap_or(0).min(v.log.end_offset());
            for e in &v.log.entries()[..hw as usize] {
                match self.committed.get(e.offset as usize) {
                    Some(c) if c != e => {
                        report(
                            ViolationKind::ConsistentCommittedData,
                            vec![v.id],
                            Some(e.offset),
                            format!("controller {} holds {} (epoch {}) below its HW at offset {}, where {} (epoch {}) was committed", v.id, e.record, e.epoch, e.offset, c.record, c.epoch),
                        );
                        break;
                    }
                    Some(_) => {}
                    None => self.committed.push(*e),
                }
            }
        }
        found
    }
}
