//! A consumer (read_uncommitted) that reads from the leader up to its high
//! watermark and remembers what it read (reference §7).

use crate::model::clients::subscription::ConsumedRecord;
use crate::model::config::{limits, BrokerId, OffsetReset, PartitionId};
use crate::model::event::Event;
use crate::model::rules::Rule;
use crate::model::simulation::Simulation;

impl Simulation {
    /// Reads from the leader up to its HW (read_uncommitted, reference §7).
    /// The consumer starts at offset 0, as a group member whose committed
    /// offset is 0; `auto.offset.reset` applies when its position is invalid.
    /// Since 2.3 (KIP-320, `SubscriptionState.maybeCompleteValidation`), after
    /// a leader-epoch change it asks the leader where the epoch of its last
    /// record ends; if that is below its position, the log was truncated
    /// under it: it seeks back there (any reset policy) or, with
    /// `auto.offset.reset=none`, fails with LogTruncationException.
    pub(crate) fn consume(&mut self, partition: Option<PartitionId>) {
        match partition {
            Some(p) => self.consume_partition(p),
            None => self.config.partition_ids().for_each(|p| self.consume_partition(p)),
        }
    }

    fn consume_partition(&mut self, p: PartitionId) {
        let Some(l) = self.controller.partition(p).leader else {
            self.emit_in(p, Event::ConsumeFailed { error: "NOT_LEADER_OR_FOLLOWER: the partition has no leader".into() });
            return;
        };
        if !self.broker(l).alive {
            self.emit_in(p, Event::ConsumeFailed { error: format!("NETWORK_EXCEPTION: leader broker {l} is down") });
            return;
        }
        let at = self.consumer.positions[p as usize];
        let epoch = self.controller.partition(p).leader_epoch;
        let leader = self.replica(p, l);
        let validate = self.rules.has(Rule::ConsumerTruncationDetection) && at.leader_epoch_seen.is_some_and(|e| e != epoch);
        if let (true, Some(position_epoch)) = (validate, at.position_epoch) {
            let reset = self.config.auto_offset_reset;
            let position = at.position;
            match leader.log.end_offset_for_epoch(position_epoch) {
                Some((leader_epoch, end_offset)) if end_offset < position => {
                    if reset == OffsetReset::None {
                        self.emit_in(p, Event::ConsumerTruncationDetected { position, epoch: leader_epoch, end_offset, seek: false });
                        return;
                    }
                    self.emit_in(p, Event::ConsumerTruncationDetected { position, epoch: leader_epoch, end_offset, seek: true });
                    let at = &mut self.consumer.make_mut().positions[p as usize];
                    at.position = end_offset;
                    at.position_epoch = Some(leader_epoch);
                }
                Some(_) => {}
                None => {
                    // 3.0+: an UNDEFINED answer resets by policy.
                    if !self.reset_position(p, l, "the leader knows no epoch as new as the position's (UNDEFINED_EPOCH_OFFSET)") {
                        return;
                    }
                }
            }
        }
        self.consumer.make_mut().positions[p as usize].leader_epoch_seen = Some(epoch);
        let leader = self.replica(p, l);
        let position = self.consumer.position(p);
        if position > leader.log_end_offset() {
            let why = format!("position {position} is past the leader's log end {}", leader.log_end_offset());
            if !self.reset_position(p, l, &why) {
                return;
            }
        }
        let leader = self.replica(p, l);
        let hw = leader.high_watermark;
        let from = self.consumer.position(p);
        let records: Vec<ConsumedRecord> = leader
            .log
            .iter_from(from)
            .take(hw.saturating_sub(from).min(limits::MAX_FETCH_RECORDS as u64) as usize)
            .zip(from..)
            .map(|(r, offset)| ConsumedRecord { partition: p, offset, id: r.id, epoch: r.epoch, value: r.value.clone() })
            .collect();
        let to = from + records.len() as u64;
        let values = records.iter().map(|r| r.value.clone()).collect();
        let consumer = self.consumer.make_mut();
        let at = &mut consumer.positions[p as usize];
        if let Some(last) = records.last() {
            at.position_epoch = Some(last.epoch);
        }
        at.position = to;
        consumer.read.extend(records);
        self.emit_in(p, Event::Consumed { broker: l, from, to, high_watermark: hw, values });
    }

    /// `auto.offset.reset`: latest (the HW for read_uncommitted), earliest
    /// (the log start), or none (an error, position kept). False if the
    /// consumer cannot go on reading now.
    fn reset_position(&mut self, p: PartitionId, l: BrokerId, why: &str) -> bool {
        let reset = self.config.auto_offset_reset;
        let to = match reset {
            OffsetReset::Latest => self.replica(p, l).high_watermark,
            OffsetReset::Earliest => 0,
            OffsetReset::None => {
                self.emit_in(p, Event::ConsumeFailed { error: format!("OFFSET_OUT_OF_RANGE: {why} and auto.offset.reset is none") });
                return false;
            }
        };
        let at = &mut self.consumer.make_mut().positions[p as usize];
        let from = std::mem::replace(&mut at.position, to);
        at.position_epoch = None;
        self.emit_in(p, Event::ConsumerPositionReset { from, to, reset: reset.name(), reason: why.to_string() });
        true
    }
}
