//! A consumer (read_uncommitted) that reads from the leader up to its high
//! watermark and remembers what it read (reference §7).

use crate::config::limits;
use crate::event::Event;
use crate::simulation::Simulation;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConsumedRecord {
    pub offset: u64,
    pub id: u64,
    pub value: Arc<str>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Consumer {
    /// The next offset to read.
    pub position: u64,
    pub read: Vec<ConsumedRecord>,
}

impl Simulation {
    // ----- consumer --------------------------------------------------------------

    /// Reads from the leader up to its HW (read_uncommitted, reference §7).
    pub(crate) fn consume(&mut self) {
        let Some(l) = self.controller.leader else {
            self.emit(Event::ConsumeFailed { error: "NOT_LEADER_OR_FOLLOWER: the partition has no leader".into() });
            return;
        };
        let leader = self.broker(l);
        if !leader.alive {
            self.emit(Event::ConsumeFailed { error: format!("NETWORK_EXCEPTION: leader broker {l} is down") });
            return;
        }
        let (hw, leo) = (leader.high_watermark, leader.log_end_offset());
        if self.consumer.position > leo {
            let error = format!("OFFSET_OUT_OF_RANGE: position {} is past the leader's log end {leo}; reset to HW {hw}", self.consumer.position);
            self.consumer.position = hw;
            self.emit(Event::ConsumeFailed { error });
            return;
        }
        let from = self.consumer.position;
        let records: Vec<ConsumedRecord> = leader
            .log
            .iter_from(from)
            .take(hw.saturating_sub(from).min(limits::MAX_FETCH_RECORDS as u64) as usize)
            .zip(from..)
            .map(|(r, offset)| ConsumedRecord { offset, id: r.id, value: r.value.clone() })
            .collect();
        let to = from + records.len() as u64;
        let values = records.iter().map(|r| r.value.clone()).collect();
        self.consumer.position = to;
        self.consumer.read.extend(records);
        self.emit(Event::Consumed { broker: l, from, to, high_watermark: hw, values });
    }
}
