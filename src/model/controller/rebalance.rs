//! The controller's automatic leader rebalance in timed mode
//! (`auto.leader.rebalance.enable`, on by default): the clock's side of
//! `cluster::leader_balance`, whose pure functions decide which partitions
//! go back to their preferred replica.
//!
//! - ZooKeeper (`KafkaController`): a check 5 s after the controller starts,
//!   then every `leader.imbalance.check.interval.seconds`; it moves the
//!   partitions of each broker whose share of partitions led elsewhere is
//!   above `leader.imbalance.per.broker.percentage`
//!   (`checkAndTriggerAutoLeaderRebalance`).
//! - KRaft (`QuorumController`): no percentage; after each controller write
//!   that leaves a partition off its preferred leader, one balance run is
//!   scheduled an interval later (`maybeScheduleNextBalancePartitionLeaders`),
//!   and runs repeat while one stays off.

use crate::model::cluster::leader_balance::{
    check_and_trigger_auto_leader_rebalance, maybe_balance_partition_leaders, maybe_schedule_next_balance_partition_leaders, ImbalanceSchedule,
    PartitionLeadership, MAX_ELECTIONS_PER_IMBALANCE,
};
use crate::model::config::{BrokerId, PartitionId};
use crate::model::controller::registrations::Rebalance;
use crate::model::event::{ElectionKind, Event};
use crate::model::rules::Rule;
use crate::model::simulation::Simulation;

impl Simulation {
    /// The automatic rebalance runs in timed mode, when enabled.
    pub(crate) fn rebalance_enabled(&self) -> bool {
        self.config.auto_fetch && self.config.auto_leader_rebalance
    }

    fn leaderships(&self) -> Vec<PartitionLeadership> {
        self.controller
            .partitions
            .iter()
            .zip(0..)
            .map(|(r, id)| PartitionLeadership { id, replicas: r.replicas.to_vec(), leader: r.leader, isr: r.isr.to_vec() })
            .collect()
    }

    /// KRaft: after a controller write, a balance run is scheduled an
    /// interval from now if a partition is off its preferred leader and
    /// none is pending.
    pub(crate) fn schedule_balance(&mut self) {
        if !self.rebalance_enabled() || !self.rules.has(Rule::KraftController) || self.controller.rebalance.schedule == ImbalanceSchedule::Scheduled {
            return;
        }
        let imbalanced = self.controller.partitions.iter().any(|r| r.leader != Some(r.preferred_leader()));
        let rebalance = &mut self.controller.rebalance;
        if let Some(due) = maybe_schedule_next_balance_partition_leaders(&mut rebalance.schedule, Some(self.config.leader_imbalance_check_interval_ms), imbalanced, self.now_ms) {
            rebalance.due_ms = Some(due);
        }
    }

    /// The check or run due now: each partition chosen goes to its
    /// preferred replica in a new epoch (one election each), after one line
    /// that names them all.
    pub(crate) fn run_rebalance(&mut self) {
        let leaderships = self.leaderships();
        let elections: Vec<(PartitionId, BrokerId)> = if self.rules.has(Rule::KraftController) {
            let run = maybe_balance_partition_leaders(&leaderships, MAX_ELECTIONS_PER_IMBALANCE, |b| self.active(b));
            self.controller.rebalance = Rebalance { due_ms: None, schedule: ImbalanceSchedule::after_run(&run) };
            // A leader left with no valid replica is never the controller's own state (fencing
            // and controlled shutdown move leadership in the same write): no NO_LEADER here.
            run.elections.into_iter().filter_map(|(p, leader)| leader.map(|l| (p, l))).collect()
        } else {
            self.controller.rebalance.due_ms = Some(self.now_ms + self.config.leader_imbalance_check_interval_ms);
            let chosen = check_and_trigger_auto_leader_rebalance(&leaderships, self.config.leader_imbalance_per_broker_percentage, false, |b| self.active(b));
            chosen.into_iter().map(|p| (p, self.controller.partition(p).preferred_leader())).collect()
        };
        if !elections.is_empty() {
            self.emit(Event::AutoLeaderRebalance { partitions: elections.iter().map(|&(p, _)| p).collect() });
            for (p, leader) in elections {
                self.move_leadership(p, leader, ElectionKind::Preferred);
            }
        }
        self.schedule_balance();
    }
}
