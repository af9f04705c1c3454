//! A consumer (read_uncommitted) that reads from the leader up to its high
//! watermark and remembers what it read (reference §7).

use crate::model::config::{limits, BrokerId, OffsetReset};
use crate::model::event::Event;
use crate::model::rules::Rule;
use crate::model::simulation::Simulation;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConsumedRecord {
    pub offset: u64,
    pub id: u64,
    pub epoch: u32,
    pub value: Arc<str>,
}

#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Consumer {
    /// The next offset to read.
    pub position: u64,
    /// The leader epoch of the last record read (`FetchPosition.offsetEpoch`).
    pub position_epoch: Option<u32>,
    /// The partition's leader epoch when the consumer last fetched; a newer
    /// one makes it validate its position (KIP-320, 2.3+).
    pub leader_epoch_seen: Option<u32>,
    pub read: Vec<ConsumedRecord>,
}

crate::clone_in_place!(Consumer { position, position_epoch, leader_epoch_seen, read });

impl Simulation {
    /// Reads from the leader up to its HW (read_uncommitted, reference §7).
    /// The consumer starts at offset 0, as a group member whose committed
    /// offset is 0; `auto.offset.reset` applies when its position is invalid.
    /// Since 2.3 (KIP-320, `SubscriptionState.maybeCompleteValidation`), after
    /// a leader-epoch change it asks the leader where the epoch of its last
    /// record ends; if that is below its position, the log was truncated
    /// under it: it seeks back there (any reset policy) or, with
    /// `auto.offset.reset=none`, fails with LogTruncationException.
    pub(crate) fn consume(&mut self) {
        let p = 0;
        let Some(l) = self.controller.partition(p).leader else {
            self.emit(Event::ConsumeFailed { error: "NOT_LEADER_OR_FOLLOWER: the partition has no leader".into() });
            return;
        };
        if !self.broker(l).alive {
            self.emit(Event::ConsumeFailed { error: format!("NETWORK_EXCEPTION: leader broker {l} is down") });
            return;
        }
        let epoch = self.controller.partition(p).leader_epoch;
        let leader = self.replica(p, l);
        let validate = self.rules.has(Rule::ConsumerTruncationDetection) && self.consumer.leader_epoch_seen.is_some_and(|e| e != epoch);
        if let (true, Some(position_epoch)) = (validate, self.consumer.position_epoch) {
            let reset = self.config.auto_offset_reset;
            let position = self.consumer.position;
            match leader.log.end_offset_for_epoch(position_epoch) {
                Some((leader_epoch, end_offset)) if end_offset < position => {
                    if reset == OffsetReset::None {
                        self.emit(Event::ConsumerTruncationDetected { position, epoch: leader_epoch, end_offset, seek: false });
                        return;
                    }
                    self.emit(Event::ConsumerTruncationDetected { position, epoch: leader_epoch, end_offset, seek: true });
                    let consumer = self.consumer.make_mut();
                    consumer.position = end_offset;
                    consumer.position_epoch = Some(leader_epoch);
                }
                Some(_) => {}
                None => {
                    // 3.0+: an UNDEFINED answer resets by policy.
                    if !self.reset_position(l, "the leader knows no epoch as new as the position's (UNDEFINED_EPOCH_OFFSET)") {
                        return;
                    }
                }
            }
        }
        self.consumer.make_mut().leader_epoch_seen = Some(epoch);
        let leader = self.replica(p, l);
        if self.consumer.position > leader.log_end_offset() {
            let why = format!("position {} is past the leader's log end {}", self.consumer.position, leader.log_end_offset());
            if !self.reset_position(l, &why) {
                return;
            }
        }
        let leader = self.replica(p, l);
        let hw = leader.high_watermark;
        let from = self.consumer.position;
        let records: Vec<ConsumedRecord> = leader
            .log
            .iter_from(from)
            .take(hw.saturating_sub(from).min(limits::MAX_FETCH_RECORDS as u64) as usize)
            .zip(from..)
            .map(|(r, offset)| ConsumedRecord { offset, id: r.id, epoch: r.epoch, value: r.value.clone() })
            .collect();
        let to = from + records.len() as u64;
        let values = records.iter().map(|r| r.value.clone()).collect();
        let consumer = self.consumer.make_mut();
        if let Some(last) = records.last() {
            consumer.position_epoch = Some(last.epoch);
        }
        consumer.position = to;
        consumer.read.extend(records);
        self.emit(Event::Consumed { broker: l, from, to, high_watermark: hw, values });
    }

    /// `auto.offset.reset`: latest (the HW for read_uncommitted), earliest
    /// (the log start), or none (an error, position kept). False if the
    /// consumer cannot go on reading now.
    fn reset_position(&mut self, l: BrokerId, why: &str) -> bool {
        let reset = self.config.auto_offset_reset;
        let to = match reset {
            OffsetReset::Latest => self.replica(0, l).high_watermark,
            OffsetReset::Earliest => 0,
            OffsetReset::None => {
                self.emit(Event::ConsumeFailed { error: format!("OFFSET_OUT_OF_RANGE: {why} and auto.offset.reset is none") });
                return false;
            }
        };
        let consumer = self.consumer.make_mut();
        let from = std::mem::replace(&mut consumer.position, to);
        consumer.position_epoch = None;
        self.emit(Event::ConsumerPositionReset { from, to, reset: reset.name(), reason: why.to_string() });
        true
    }
}
