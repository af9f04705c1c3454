//! A broker's metadata under KRaft with a controller quorum: each broker is
//! an observer of the quorum that fetches the metadata log from its leader
//! and applies the records once committed (`MetadataLoader`,
//! `BrokerMetadataPublisher`). A batch of records is applied as one delta:
//! each partition it changes is applied in its last state, as a
//! LeaderAndIsr would be (`ReplicaManager.applyDelta`). So a broker leads
//! or follows a partition only once the record has committed and reached
//! it: the propagation delay is the quorum's.

use crate::model::config::{BrokerId, ControllerId, PartitionId};
use crate::model::controller::registrations::LeaderAndIsr;
use crate::model::event::Event;
use crate::model::quorum::message::ToBroker;
use crate::model::quorum::metadata_log::MetadataRecord;
use crate::model::simulation::Simulation;
use smallvec::SmallVec;

impl Simulation {
    /// Committed metadata arrives at a broker. One that is down or cut off
    /// from the controllers misses it, and catches up when it is back.
    pub(crate) fn deliver_metadata(&mut self, d: ToBroker) {
        let from_cut = self.quorum.as_deref().is_some_and(|q| q.is_isolated(d.from));
        if from_cut || !self.broker(d.broker).alive || !self.network.reaches_controller(d.broker) {
            return;
        }
        self.apply_metadata(d.broker, d.from, d.high_watermark, false);
    }

    /// A broker back in touch (registered after a restart, or healed)
    /// fetches what it missed from the quorum leader at once. After a
    /// restart it rebuilds its whole image from the log
    /// (`whole_image`): every partition is applied in its latest state.
    pub(crate) fn catch_up_metadata(&mut self, b: BrokerId, whole_image: bool) {
        let Some(q) = self.quorum.as_deref() else { return };
        let Some((leader, hw)) = q.leader().filter(|v| !q.is_isolated(v.id)).and_then(|v| v.high_watermark.map(|hw| (v.id, hw))) else { return };
        if self.network.reaches_controller(b) {
            self.apply_metadata(b, leader, hw, whole_image);
        }
    }

    /// Broker `b` applies the committed records of controller `from`'s log
    /// below `to`: from its metadata offset on, or from the start of the
    /// log for a whole image.
    fn apply_metadata(&mut self, b: BrokerId, from: ControllerId, to: u64, whole_image: bool) {
        let applied = self.broker(b).metadata_offset;
        if to <= applied && !whole_image {
            return;
        }
        let q = self.quorum.as_deref().expect("metadata comes from the quorum");
        let first = if whole_image { 0 } else { applied };
        // The delta: each partition in its last state in the batch; and its
        // own registration, if the batch holds it.
        let mut last: SmallVec<[(PartitionId, LeaderAndIsr); 2]> = SmallVec::new();
        let mut registration = None;
        for e in &q.voter(from).log.entries()[first as usize..to as usize] {
            let (p, state) = match e.record {
                MetadataRecord::PartitionChange { partition, leader, leader_epoch, isr, .. } => (partition, LeaderAndIsr { leader, leader_epoch, isr }),
                MetadataRecord::Partition { partition, leader, leader_epoch } => {
                    let mut isr = self.controller.partition(partition).replicas;
                    isr.sort_unstable();
                    (partition, LeaderAndIsr { leader: Some(leader), leader_epoch, isr })
                }
                MetadataRecord::RegisterBroker { broker, fenced } if broker == b => {
                    registration = Some((e.offset, fenced));
                    continue;
                }
                _ => continue,
            };
            match last.iter_mut().find(|(q, _)| *q == p) {
                Some(slot) => slot.1 = state,
                None => last.push((p, state)),
            }
        }
        let broker = self.broker_mut(b);
        broker.metadata_offset = to.max(applied);
        // Its broker epoch: the offset of its registration record.
        if let Some((offset, _)) = registration {
            broker.broker_epoch = offset;
        }
        if to > applied {
            self.emit(Event::MetadataApplied { broker: b, from: applied, to });
        }
        let registered = registration.is_some_and(|(_, fenced)| fenced);
        last.sort_unstable_by_key(|&(p, _)| p);
        for (p, state) in last {
            if self.controller.partition(p).replicas.contains(&b) {
                self.apply_leader_and_isr(p, b, state);
            }
        }
        // Caught up past its registration: its next heartbeat says so, and
        // the controller unfences it (`BrokerHeartbeatManager`; the model
        // does not wait for the heartbeat) and elects it where a partition
        // has no leader.
        if registered && self.controller.is_fenced(b) && self.reaches_controller(b) {
            self.rejoin(b);
        }
    }
}
