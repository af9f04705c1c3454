//! What the controller holds: each partition's registration (leader,
//! epoch, ISR, ELR), each broker's session, fencing and controlled
//! shutdown, and where the automatic leader rebalance stands. Its decisions
//! over them are `decisions` and `rebalance`.

use crate::model::cluster::leader_balance::{ImbalanceSchedule, AUTO_LEADER_REBALANCE_FIRST_CHECK_DELAY_MS};
use crate::model::config::{BrokerId, BrokerList, PartitionId, PerBroker};

/// What the controller holds of one partition (KRaft's
/// `PartitionRegistration`; ZooKeeper's partition state znode): its leader,
/// epoch, ISR and Eligible Leader Replicas.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct PartitionRegistration {
    /// The assignment: the brokers holding a replica, the preferred leader first.
    pub replicas: BrokerList,
    pub leader: Option<BrokerId>,
    pub leader_epoch: u32,
    pub isr: BrokerList,
    /// Eligible Leader Replicas (KIP-966, 4.1): replicas that left an ISR
    /// below `min.insync.replicas`, and so still hold every committed record.
    pub elr: BrokerList,
    /// KIP-966's last known leader: the leader when the ISR became empty.
    pub last_known_leader: Option<BrokerId>,
}

crate::clone_in_place!(PartitionRegistration { replicas, leader, leader_epoch, isr, elr, last_known_leader });

impl PartitionRegistration {
    /// A new partition on `replicas`: the first leads epoch 0, every replica in the ISR.
    pub fn new(replicas: BrokerList) -> PartitionRegistration {
        let mut isr = replicas;
        isr.sort_unstable();
        PartitionRegistration { replicas, leader: replicas.first().copied(), leader_epoch: 0, isr, elr: BrokerList::new(), last_known_leader: None }
    }

    /// What the brokers are told of it: a LeaderAndIsr request, or a
    /// partition change record under KRaft.
    pub fn leader_and_isr(&self) -> LeaderAndIsr {
        LeaderAndIsr { leader: self.leader, leader_epoch: self.leader_epoch, isr: self.isr }
    }

    /// The preferred leader: the first replica of the assignment.
    pub fn preferred_leader(&self) -> BrokerId {
        self.replicas[0]
    }

    /// Sets a new ISR and keeps the ELR by KIP-966's rule
    /// (`PartitionChangeBuilder.maybePopulateTargetElr`): while the ISR is
    /// below `min_isr`, the replicas leaving it join the ELR; once it is back
    /// at `min_isr` the ELR is cleared.
    pub fn set_isr(&mut self, isr: BrokerList, min_isr: u32, elr_enabled: bool) {
        if !isr.is_empty() {
            // Kept only while the ISR is empty.
            self.last_known_leader = None;
        }
        if elr_enabled {
            if (isr.len() as u32) < min_isr {
                for &b in &self.isr {
                    if !isr.contains(&b) && !self.elr.contains(&b) {
                        self.elr.push(b);
                    }
                }
                self.elr.retain(|b| !isr.contains(b));
                self.elr.sort_unstable();
            } else {
                self.elr.clear();
                self.last_known_leader = None;
            }
        }
        self.isr = isr;
    }
}

/// A partition's leader, epoch and ISR as the controller tells the brokers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaderAndIsr {
    pub leader: Option<BrokerId>,
    pub leader_epoch: u32,
    pub isr: BrokerList,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Controller {
    /// Brokers whose session expired (index `id - 1`).
    pub fenced: PerBroker<bool>,
    /// Since when the controller has heard no heartbeat from a broker.
    pub silent_since_ms: PerBroker<Option<u64>>,
    /// The order in which the silent brokers fell silent (1 for the first;
    /// 0 for a broker heard from). The stalest broker is fenced first
    /// (KRaft's `BrokerHeartbeatManager` keeps its brokers by last contact,
    /// oldest first, and `findOneStaleBroker` takes the first): brokers
    /// silent since the same moment go in the order they fell silent, never
    /// by their ids.
    pub silent_order: PerBroker<u32>,
    /// Brokers in controlled shutdown (KRaft `BrokerRegistration.inControlledShutdown`).
    pub shutting_down: PerBroker<bool>,
    /// One per partition, by id.
    pub partitions: Vec<PartitionRegistration>,
    /// The automatic leader rebalance (timed mode).
    pub rebalance: Rebalance,
    /// With a quorum: the active controller looks for expired sessions once
    /// a broker has heartbeated or asked to register since it activated
    /// (`ClusterControlManager.rescheduleMaybeFenceStaleBrokers` runs on
    /// those, not at activation). Always true without a quorum.
    pub fence_check_armed: bool,
}

crate::clone_in_place!(Controller { fenced, silent_since_ms, silent_order, shutting_down, partitions, rebalance, fence_check_armed });

impl Controller {
    /// A new topic with the replicas of each partition (`assignment`): each
    /// led by its preferred replica in epoch 0, every replica in the ISR.
    pub fn new(brokers: u32, assignment: &[BrokerList]) -> Controller {
        Controller {
            fenced: (0..brokers).map(|_| false).collect(),
            silent_since_ms: (0..brokers).map(|_| None).collect(),
            silent_order: (0..brokers).map(|_| 0).collect(),
            shutting_down: (0..brokers).map(|_| false).collect(),
            partitions: assignment.iter().map(|&r| PartitionRegistration::new(r)).collect(),
            rebalance: Rebalance::default(),
            fence_check_armed: true,
        }
    }

    pub fn partition(&self, p: PartitionId) -> &PartitionRegistration {
        &self.partitions[p as usize]
    }

    pub fn partition_mut(&mut self, p: PartitionId) -> &mut PartitionRegistration {
        &mut self.partitions[p as usize]
    }

    pub fn is_fenced(&self, b: BrokerId) -> bool {
        self.fenced[(b - 1) as usize]
    }

    pub fn is_shutting_down(&self, b: BrokerId) -> bool {
        self.shutting_down[(b - 1) as usize]
    }

    /// Brokers whose session has expired by `now_ms`, the stalest first:
    /// by the time they fell silent, then by the order they did.
    pub fn expired_sessions(&self, now_ms: u64, session_timeout_ms: u64) -> BrokerList {
        let mut expired: BrokerList = (1..=self.fenced.len() as u32)
            .filter(|&b| !self.is_fenced(b))
            .filter(|&b| self.silent_since_ms[(b - 1) as usize].is_some_and(|t| now_ms >= t + session_timeout_ms))
            .collect();
        expired.sort_unstable_by_key(|&b| (self.silent_since_ms[(b - 1) as usize], self.silent_order[(b - 1) as usize]));
        expired
    }

    /// The controller hears no more from broker `b` from `now_ms` (if it
    /// did until now).
    pub fn fall_silent(&mut self, b: BrokerId, now_ms: u64) {
        let i = (b - 1) as usize;
        if self.silent_since_ms[i].is_none() {
            self.silent_since_ms[i] = Some(now_ms);
            self.silent_order[i] = 1 + self.silent_order.iter().copied().max().unwrap_or(0);
        }
    }

    /// The controller hears from broker `b` again.
    pub fn hear_from(&mut self, b: BrokerId) {
        self.silent_since_ms[(b - 1) as usize] = None;
        self.silent_order[(b - 1) as usize] = 0;
    }

    /// The next time a session can expire.
    pub fn next_expiry_ms(&self, session_timeout_ms: u64) -> Option<u64> {
        let silent = self.fenced.iter().zip(&self.silent_since_ms).filter_map(|(&fenced, &since)| since.filter(|_| !fenced));
        silent.min().map(|t| t + session_timeout_ms)
    }

    /// The session of a silent broker expires at this time.
    pub fn session_expiry_ms(&self, b: BrokerId, session_timeout_ms: u64) -> Option<u64> {
        self.silent_since_ms[(b - 1) as usize].map(|t| t + session_timeout_ms)
    }
}

/// Why an election is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Election {
    /// The leader was fenced, or the partition is offline and a broker returned.
    Failover,
    /// An `elect` step: move leadership, to this broker or to the controller's choice.
    Requested(Option<BrokerId>),
}

/// Where the automatic rebalance stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rebalance {
    /// The next check (ZooKeeper) or balance run (KRaft), if one is due.
    pub due_ms: Option<u64>,
    /// KRaft: the balance task's state.
    pub schedule: ImbalanceSchedule,
}

impl Rebalance {
    /// At the controller's start: ZooKeeper's first check is due 5 s later
    /// (`onControllerFailover`); KRaft's balanced topic schedules nothing.
    pub fn new(enabled: bool, kraft: bool) -> Rebalance {
        let due_ms = (enabled && !kraft).then_some(AUTO_LEADER_REBALANCE_FIRST_CHECK_DELAY_MS);
        Rebalance { due_ms, schedule: ImbalanceSchedule::Deferred }
    }
}
