//! The controller riding the KRaft quorum (`config.controllers` > 0). The
//! active controller is the quorum leader once its epoch has committed
//! (`QuorumController` claims it); its decisions are records appended to
//! the metadata log, which the brokers act on only once committed
//! (`cluster::metadata_image`). A controller that becomes active rebuilds
//! its state by replaying its log, and starts every broker's session clock
//! again (`ClusterControlManager.activate`). While no controller is active,
//! nothing is decided: no fencing, no election, no ISR change; the
//! partitions keep serving as they were.
//!
//! Without a quorum, the controller decides at once and tells the brokers
//! directly (`decisions`).

use crate::model::config::{BrokerId, ControllerId, PartitionId};
use crate::model::controller::registrations::PartitionRegistration;
use crate::model::event::Event;
use crate::model::quorum::metadata_log::MetadataRecord;
use crate::model::simulation::Simulation;

impl Simulation {
    /// The controller deciding now: the active controller, if it is not cut
    /// off. Kafka's active controller cut off from every node goes on
    /// deciding (3.5 has no check-quorum to depose it), but nothing it
    /// appends can commit or reach a broker; the model has it decide nothing.
    pub(crate) fn deciding_controller(&self) -> Option<ControllerId> {
        let q = self.quorum.as_deref()?;
        q.active_controller().filter(|&c| !q.is_isolated(c))
    }

    /// Whether the controller can decide now: always without a quorum.
    pub(crate) fn controller_decides(&self) -> bool {
        self.quorum.is_none() || self.deciding_controller().is_some()
    }

    /// Whether the controller looks for brokers whose session expired.
    /// With a quorum only an active controller does, once a broker has
    /// heartbeated or asked to register since it activated
    /// (`Controller::fence_check_armed`).
    pub(crate) fn fencing_runs(&self) -> bool {
        self.controller.fence_check_armed && self.controller_decides()
    }

    /// Broker `b` and the controller hear each other: no cut between them
    /// and, with a quorum, an active controller to hear.
    pub(crate) fn reaches_controller(&self, b: BrokerId) -> bool {
        self.network.reaches_controller(b) && self.controller_decides()
    }

    /// The deciding controller appends a record of its decision; the
    /// brokers act on it once it has committed.
    pub(crate) fn publish(&mut self, record: MetadataRecord) {
        let (now, Some(c)) = (self.now_ms, self.deciding_controller()) else { return };
        if let Some(q) = self.quorum.as_deref_mut() {
            q.append(c, record, now);
        }
        self.take_quorum_output();
    }

    /// The controller's state of partition `p`, as a partition change record.
    pub(crate) fn publish_partition(&mut self, p: PartitionId) {
        let r = self.controller.partition(p);
        let record = MetadataRecord::PartitionChange {
            partition: p,
            leader: r.leader,
            leader_epoch: r.leader_epoch,
            isr: r.isr,
            elr: r.elr,
            last_known_leader: r.last_known_leader,
        };
        self.publish(record);
    }

    /// After the quorum changed: a controller that has claimed a new epoch
    /// becomes the active controller; the same one heard again after a cut
    /// hears the brokers again.
    pub(crate) fn follow_active_controller(&mut self) {
        let deciding = self.deciding_controller();
        let Some(q) = self.quorum.as_deref_mut() else { return };
        let was_deciding = std::mem::replace(&mut q.deciding, deciding.is_some());
        let Some(c) = deciding else { return };
        let epoch = q.voter(c).epoch;
        if q.claimed != Some((c, epoch)) {
            q.claimed = Some((c, epoch));
            self.activate(c, epoch);
        } else if !was_deciding {
            for b in self.config.broker_ids() {
                if self.broker(b).alive && self.network.reaches_controller(b) {
                    self.rejoin(b);
                }
            }
        }
    }

    /// Controller `c` claims `epoch` (`QuorumController.claim`): it replays
    /// its log, all of it committed now (its epoch began at its log end and
    /// has committed), so decisions its predecessor appended that never
    /// committed are gone. Every broker's session starts again now
    /// (`ClusterControlManager.activate` registers each with the heartbeat
    /// manager, touched at once): a broker that is down is fenced a session
    /// timeout after this, not after its last heartbeat (reference §4). The
    /// brokers it hears rejoin: a fenced one is unfenced, a pending ISR
    /// change is sent again.
    fn activate(&mut self, c: ControllerId, epoch: u32) {
        let offset = self.replay(c);
        self.emit(Event::ControllerActivated { controller: c, epoch, offset });
        let now = self.now_ms;
        let brokers: Vec<BrokerId> = self.config.broker_ids().collect();
        for &b in &brokers {
            self.controller.hear_from(b);
        }
        for &b in &brokers {
            let heard = self.broker(b).alive && self.network.reaches_controller(b);
            if !heard && !self.controller.is_fenced(b) {
                self.controller.fall_silent(b, now);
            }
        }
        // A broker up (or restarted, asking to register) that reaches it
        // starts the look for expired sessions.
        let asks = |s: &Simulation, b: BrokerId| (s.broker(b).alive || s.broker(b).starting) && s.network.reaches_controller(b);
        self.controller.fence_check_armed = brokers.iter().any(|&b| asks(self, b));
        for b in brokers {
            if !self.network.reaches_controller(b) {
                continue;
            }
            if self.broker(b).alive {
                self.rejoin(b);
            } else if self.broker(b).starting && self.controller.is_fenced(b) {
                // A broker restarted while no controller was active keeps
                // asking to register (`BrokerLifecycleManager` resends
                // BrokerRegistration until it is answered); the new
                // controller takes it. One whose old session has not yet
                // expired registers once the fence check fences it (`fence`).
                self.register(b);
            }
        }
    }

    /// Rebuilds the controller's partitions and fencing from controller
    /// `c`'s metadata log (`QuorumController` replaying each record into
    /// its managers). Returns the log end it replayed to.
    fn replay(&mut self, c: ControllerId) -> u64 {
        let q = self.quorum.as_deref().expect("replayed from the quorum");
        let log = &q.voter(c).log;
        let mut partitions: Vec<PartitionRegistration> =
            self.controller.partitions.iter().map(|r| PartitionRegistration::new(r.replicas)).collect();
        let mut fenced: Vec<bool> = vec![false; self.config.brokers as usize];
        for e in log.entries() {
            match e.record {
                MetadataRecord::Partition { partition, leader, leader_epoch } => {
                    let r = &mut partitions[partition as usize];
                    r.leader = Some(leader);
                    r.leader_epoch = leader_epoch;
                }
                MetadataRecord::PartitionChange { partition, leader, leader_epoch, isr, elr, last_known_leader } => {
                    let r = &mut partitions[partition as usize];
                    (r.leader, r.leader_epoch, r.isr, r.elr, r.last_known_leader) = (leader, leader_epoch, isr, elr, last_known_leader);
                }
                MetadataRecord::RegisterBroker { broker, fenced: f } => fenced[(broker - 1) as usize] = f,
                MetadataRecord::FenceBroker { broker } => fenced[(broker - 1) as usize] = true,
                MetadataRecord::UnfenceBroker { broker } => fenced[(broker - 1) as usize] = false,
                MetadataRecord::LeaderChange { .. } => {}
            }
        }
        let end = log.end_offset();
        for (p, r) in partitions.into_iter().enumerate() {
            *self.controller.partition_mut(p as PartitionId) = r;
        }
        for (i, f) in fenced.into_iter().enumerate() {
            self.controller.fenced[i] = f;
        }
        end
    }
}
