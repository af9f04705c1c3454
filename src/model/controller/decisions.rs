//! The controller: broker sessions and registration, fencing, the
//! authoritative ISR and its Eligible Leader Replicas, and leader election
//! (ZooKeeper era: `controller/KafkaController.scala`,
//! `PartitionStateMachine.scala`; KRaft: `ClusterControlManager`,
//! `ReplicationControlManager`, `PartitionChangeBuilder`).

use crate::model::cluster::leader_balance::{preferred_election, ControllerMode, PartitionLeadership, PreferredElection};
use crate::model::config::{BrokerId, BrokerList, PartitionId};
use crate::model::controller::registrations::Election;
use crate::model::event::{ElectionKind, Event};
use crate::model::invariants::Touch;
use crate::model::rules::Rule;
use crate::model::quorum::metadata_log::MetadataRecord;
use crate::model::simulation::Simulation;

impl Simulation {
    /// A broker the controller may elect: registered and not fenced, that is
    /// its session has not expired (KRaft `ClusterControlManager.isActive`;
    /// ZooKeeper's live broker nodes). The controller cannot see a crash or a
    /// cut before that: a broker that is down or unreachable but not yet
    /// fenced counts, and its election is followed by another when it is fenced.
    pub(crate) fn active(&self, b: BrokerId) -> bool {
        // `ClusterControlManager.isActive`: not fenced and not in controlled shutdown.
        !self.controller.is_fenced(b) && !self.controller.is_shutting_down(b)
    }

    /// Up and reachable: the elected leader can serve.
    pub(crate) fn reachable(&self, b: BrokerId) -> bool {
        self.broker(b).alive && !self.network.is_isolated(b)
    }

    /// Changes the controller's ISR (and ELR), bumping the leader epoch where
    /// the version does: the ZooKeeper-era controller on its own removals
    /// (`KafkaController.removeReplicaFromIsr`), KRaft before metadata 3.6 on
    /// every shrink (`PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded`,
    /// KAFKA-15021). No bump when the leader itself left (`leader_stays` is
    /// false): the election that follows bumps the epoch once. Returns true
    /// if the epoch was bumped.
    pub(crate) fn change_isr(&mut self, p: PartitionId, isr: BrokerList, by_controller: bool, leader_stays: bool) -> bool {
        let shrink = self.controller.partition(p).isr.iter().any(|b| !isr.contains(b));
        let (min_isr, elr) = (self.config.min_insync_replicas, self.rules.has(Rule::EligibleLeaderReplicas));
        let registration = self.controller.partition_mut(p);
        let elr_before = registration.elr;
        registration.set_isr(isr, min_isr, elr);
        if registration.elr != elr_before {
            self.emit_elr_changed(p);
        }
        let bump = shrink
            && leader_stays
            && self.controller.partition(p).leader.is_some()
            && (self.rules.has(Rule::EpochBumpOnEveryIsrShrink) || (by_controller && self.rules.has(Rule::EpochBumpOnControllerIsrShrink)));
        if bump {
            let registration = self.controller.partition_mut(p);
            registration.leader_epoch += 1;
            let (leader, leader_epoch) = (registration.leader.expect("checked above"), registration.leader_epoch);
            self.emit_in(p, Event::LeaderEpochBumped { leader, leader_epoch });
        }
        bump
    }

    fn emit_elr_changed(&mut self, p: PartitionId) {
        let (elr, isr) = (self.controller.partition(p).elr, self.controller.partition(p).isr);
        self.emit_traced_in(p, Touch::Nothing, |_| Event::EligibleLeaderReplicasChanged { elr: elr.to_vec(), isr: isr.to_vec() });
    }

    /// Session expired: fence the broker, take it out of the ISR, and elect
    /// a new leader if it led. Without ELR the ISR is never emptied (the last
    /// member stays so that it can be elected cleanly when it returns); with
    /// ELR (KIP-966) it may become empty, and the members leave for the ELR.
    /// A restarted broker waiting for this expiry registers right after.
    pub(crate) fn fence(&mut self, b: BrokerId) {
        self.controller.fenced[(b - 1) as usize] = true;
        self.emit(Event::BrokerFenced { broker: b, session_timeout_ms: self.config.broker_session_timeout_ms });
        self.publish(MetadataRecord::FenceBroker { broker: b });
        let elr = self.rules.has(Rule::EligibleLeaderReplicas);
        for p in self.config.partition_ids() {
            self.remove_from_isr(p, b, elr);
        }
        if self.broker(b).starting && self.reaches_controller(b) {
            self.register(b);
        }
    }

    /// The controller takes broker `b` out of the ISR (its session expired,
    /// or it is shutting down) and, if it led, elects another. The ISR is
    /// emptied only when `may_empty` (ELR, KIP-966: the last member leaves
    /// for the ELR); else its last member stays.
    pub(crate) fn remove_from_isr(&mut self, p: PartitionId, b: BrokerId, may_empty: bool) {
        let registration = self.controller.partition(p);
        let was_leader = registration.leader == Some(b);
        let isr = &registration.isr;
        if isr.contains(&b) && (isr.len() > 1 || may_empty) {
            let proposed: BrokerList = isr.iter().copied().filter(|&x| x != b).collect();
            let leader = registration.leader.filter(|&l| l != b);
            if proposed.is_empty() {
                let registration = self.controller.partition_mut(p);
                registration.last_known_leader = registration.leader;
            }
            self.emit_traced_in(p, Touch::Checked, |_| Event::IsrShrunk { leader, removed: vec![b], isr: proposed.to_vec(), by_controller: true });
            let bumped = self.change_isr(p, proposed, true, !was_leader);
            if !was_leader {
                // The leader learns the new ISR (LeaderAndIsr / partition change record).
                if self.quorum.is_some() {
                    self.publish_partition(p);
                } else if bumped {
                    self.notify_brokers(p);
                } else if let Some(l) = leader.filter(|&l| self.is_leader(p, l) && self.reaches_controller(l)) {
                    self.send_leader_and_isr(p, l);
                }
            }
        }
        if was_leader {
            let _ = self.elect(p, Election::Failover);
        }
    }

    /// A restarted broker registers with the controller: a new incarnation,
    /// accepted only once the old session has expired (KRaft
    /// `ClusterControlManager.registerBroker`; ZooKeeper's ephemeral broker
    /// node). Since 4.0 a broker whose last shutdown was unclean leaves the
    /// ISR and the ELR as it registers
    /// (`ReplicationControlManager.handleBrokerUncleanShutdown`, KIP-966);
    /// after a clean one (a controlled shutdown: `previousBrokerEpoch`
    /// matches, `ClusterControlManagerTest.testReRegistrationWithCleanShutdownDetection`)
    /// it stays in the ELR and can be elected from it.
    pub(crate) fn register(&mut self, b: BrokerId) {
        let broker = self.broker_mut(b);
        broker.starting = false;
        broker.alive = true;
        let clean = std::mem::take(&mut broker.clean_shutdown);
        self.emit(Event::BrokerRegistered { broker: b });
        // With a quorum: it registers fenced, and rebuilds its image from
        // the metadata it missed.
        self.publish(MetadataRecord::RegisterBroker { broker: b, fenced: true });
        self.catch_up_metadata(b, true);
        // The last known leader is kept: `handleBrokerUncleanShutdown` changes
        // the partitions whose ISR or ELR holds the broker, and the last known
        // leader is in neither (it is `lastKnownElr`); so it is elected when it
        // registers (`canElectLastKnownLeader`).
        if self.rules.has(Rule::EligibleLeaderReplicas) && !clean {
            for p in self.config.partition_ids() {
                let registration = self.controller.partition_mut(p);
                if registration.elr.contains(&b) {
                    registration.elr.retain(|x| *x != b);
                    self.emit_elr_changed(p);
                    self.publish_partition(p);
                }
            }
        }
        if self.quorum.is_some() {
            // KRaft with a quorum (`BrokerHeartbeatManager.calculateNextBrokerState`):
            // unfenced only once it has applied the metadata past its
            // registration record (`cluster::metadata_image`).
            self.controller.hear_from(b);
            self.controller.fence_check_armed = true;
            return;
        }
        self.rejoin(b);
    }

    /// Leader election. ZooKeeper era: `PartitionStateMachine
    /// .offlinePartitionLeaderElection`; KRaft: `PartitionChangeBuilder
    /// .electLeader`. The first active ISR member in assignment order; with
    /// ELR (4.1) and an empty ISR, the first active ELR member, else the last
    /// known leader if active (KAFKA-19522); failing that, with unclean
    /// election enabled, the first active replica; else the partition is
    /// offline. Active: not fenced (`active`).
    pub(crate) fn elect(&mut self, p: PartitionId, why: Election) -> Result<(), String> {
        let registration = self.controller.partition(p);
        let current = registration.leader;
        let unclean_ok = self.config.unclean_leader_election;
        let in_isr = |b: BrokerId| registration.isr.contains(&b);
        let elr_open = self.rules.has(Rule::EligibleLeaderReplicas) && registration.isr.is_empty();
        let in_elr = |b: BrokerId| elr_open && registration.elr.contains(&b);
        let last_known = |b: BrokerId| elr_open && registration.elr.is_empty() && registration.last_known_leader == Some(b);
        let choice = match why {
            Election::Requested(Some(b)) => {
                if current == Some(b) {
                    return Err(format!("broker {b} is already the leader"));
                }
                if !registration.replicas.contains(&b) {
                    return Err(format!("broker {b} holds no replica of partition {p}"));
                }
                if !self.active(b) {
                    return Err(format!("broker {b} is fenced: its session expired"));
                }
                let live_isr = registration.isr.iter().any(|&m| self.active(m));
                if in_isr(b) {
                    Some((b, ElectionKind::Clean))
                } else if in_elr(b) {
                    Some((b, ElectionKind::EligibleLeaderReplica))
                } else if last_known(b) {
                    Some((b, ElectionKind::LastKnownLeader))
                } else if !unclean_ok {
                    return Err(format!("broker {b} is not in the ISR and unclean.leader.election.enable is false"));
                } else if live_isr {
                    // An unclean election only happens when no ISR member is live.
                    return Err(format!("broker {b} is not in the ISR, and a live ISR member can be elected cleanly"));
                } else {
                    Some((b, ElectionKind::Unclean))
                }
            }
            Election::Requested(None) | Election::Failover => {
                let skip = if why == Election::Failover { None } else { current };
                let eligible = |b: &BrokerId| Some(*b) != skip && self.active(*b);
                let find = |pred: &dyn Fn(BrokerId) -> bool| registration.replicas.iter().copied().filter(|&b| pred(b)).find(eligible);
                // An unclean election only happens when no ISR member is live
                // (the current leader included): a move of leadership is clean.
                let live_isr = registration.isr.iter().any(|&m| self.active(m));
                let unclean = |_| unclean_ok && !live_isr;
                find(&in_isr)
                    .map(|b| (b, ElectionKind::Clean))
                    .or_else(|| find(&in_elr).map(|b| (b, ElectionKind::EligibleLeaderReplica)))
                    .or_else(|| find(&last_known).map(|b| (b, ElectionKind::LastKnownLeader)))
                    .or_else(|| find(&unclean).map(|b| (b, ElectionKind::Unclean)))
            }
        };
        let Some((leader, kind)) = choice else {
            let reason = move |s: &Simulation| {
                let registration = s.controller.partition(p);
                if unclean_ok {
                    "every replica is fenced".to_string()
                } else if s.rules.has(Rule::EligibleLeaderReplicas) {
                    format!(
                        "no unfenced replica in the ISR {:?} or the ELR {:?}, and unclean.leader.election.enable is false",
                        registration.isr, registration.elr
                    )
                } else {
                    format!("no unfenced replica in the ISR {:?} and unclean.leader.election.enable is false", registration.isr)
                }
            };
            if let Election::Requested(_) = why {
                return Err(self.rejection(reason));
            }
            if current.is_some() || why == Election::Failover {
                // Leaderless is a leader change too: ZooKeeper's controller
                // writes leader -1 in a new epoch (`removeReplicaFromIsr`), and
                // KRaft bumps the epoch on any leader change
                // (`PartitionRegistration.merge`).
                let registration = self.controller.partition_mut(p);
                if current.is_some() {
                    registration.leader_epoch += 1;
                }
                registration.leader = None;
                self.emit_traced_in(p, Touch::Checked, |s| Event::PartitionOffline { reason: reason(s) });
                // KRaft publishes the leaderless partition; the ZooKeeper-era
                // controller sends no LeaderAndIsr for it. A record only for
                // a change (`PartitionChangeBuilder.build` writes none when
                // nothing changes).
                if self.rules.has(Rule::KraftController) && (self.quorum.is_none() || current.is_some()) {
                    self.notify_brokers(p);
                }
            }
            return Ok(());
        };
        let isr: BrokerList = match kind {
            ElectionKind::Clean => {
                let fenced = |b: &BrokerId| self.controller.is_fenced(*b);
                registration.isr.iter().copied().filter(|b| !fenced(b)).collect()
            }
            // KIP-966: an ELR member or the last known leader leads alone.
            _ => [leader].into_iter().collect(),
        };
        let (min_isr, elr) = (self.config.min_insync_replicas, self.rules.has(Rule::EligibleLeaderReplicas));
        let registration = self.controller.partition_mut(p);
        registration.leader = Some(leader);
        registration.leader_epoch += 1;
        let elr_before = registration.elr;
        if kind != ElectionKind::Clean && elr {
            registration.elr.retain(|b| *b != leader);
            if kind == ElectionKind::Unclean {
                registration.elr.clear();
            }
        }
        registration.set_isr(isr, min_isr, elr);
        let (leader_epoch, elr_changed) = (registration.leader_epoch, registration.elr != elr_before);
        let unreachable = !self.reachable(leader);
        self.emit_in(p, Event::LeaderElected { leader, leader_epoch, isr: isr.to_vec(), kind, unreachable });
        if elr_changed {
            self.emit_elr_changed(p);
        }
        self.notify_brokers(p);
        Ok(())
    }

    /// A preferred leader election (`kafka-leader-election.sh --election-type
    /// PREFERRED`) of one partition or of every one: where the preferred
    /// replica is live and in the ISR it takes over, in a new epoch, with
    /// the ISR as it is; a partition it already leads, or whose preferred
    /// replica cannot lead, keeps its leader (ZooKeeper:
    /// `KafkaController.onReplicaElection` with
    /// `PreferredReplicaPartitionLeaderElectionStrategy`; KRaft:
    /// `ReplicationControlManager.electLeader`, `PartitionChangeBuilder`
    /// with `Election.PREFERRED`, `cluster::leader_balance`). Refused when no
    /// partition it names moves.
    pub(crate) fn elect_preferred(&mut self, which: Option<PartitionId>) -> Result<(), String> {
        let mode = if self.rules.has(Rule::KraftController) { ControllerMode::KRaft } else { ControllerMode::ZooKeeper };
        let partitions: Vec<PartitionId> = match which {
            Some(p) => vec![p],
            None => self.config.partition_ids().collect(),
        };
        let mut moved = 0;
        let mut why = "";
        for &p in &partitions {
            match self.preferred_choice(p, mode) {
                PreferredElection::Elected(b) if Some(b) != self.controller.partition(p).leader => {
                    self.move_leadership(p, b, ElectionKind::Preferred);
                    moved += 1;
                }
                PreferredElection::ElectionNotNeeded => why = "ELECTION_NOT_NEEDED: its preferred replica leads it",
                _ => why = "PREFERRED_LEADER_NOT_AVAILABLE: its preferred replica is fenced, shutting down or not in the ISR",
            }
        }
        match (moved, which) {
            (0, Some(p)) => Err(format!("partition {p}: {why}")),
            (0, None) => Err("no partition moved: each is led by its preferred replica, or that replica is fenced, shutting down or not in the ISR".into()),
            _ => Ok(()),
        }
    }

    /// What a preferred election would do for partition `p` now.
    fn preferred_choice(&self, p: PartitionId, mode: ControllerMode) -> PreferredElection {
        let registration = self.controller.partition(p);
        let leadership = PartitionLeadership { id: p, replicas: registration.replicas.to_vec(), leader: registration.leader, isr: registration.isr.to_vec() };
        preferred_election(&leadership, mode, |b| self.active(b))
    }

    /// A preferred election of every partition would move some leadership
    /// now (the step would not be refused).
    pub(crate) fn preferred_election_moves_any(&self) -> bool {
        let mode = if self.rules.has(Rule::KraftController) { ControllerMode::KRaft } else { ControllerMode::ZooKeeper };
        self.config.partition_ids().any(|p| matches!(self.preferred_choice(p, mode), PreferredElection::Elected(b) if Some(b) != self.controller.partition(p).leader))
    }

    /// The controller gives partition `p` to `leader`, an active ISR member,
    /// in a new epoch with the ISR as it is, and tells the brokers.
    pub(crate) fn move_leadership(&mut self, p: PartitionId, leader: BrokerId, kind: ElectionKind) {
        let registration = self.controller.partition_mut(p);
        registration.leader = Some(leader);
        registration.leader_epoch += 1;
        let (leader_epoch, isr) = (registration.leader_epoch, registration.isr);
        let unreachable = !self.reachable(leader);
        self.emit_in(p, Event::LeaderElected { leader, leader_epoch, isr: isr.to_vec(), kind, unreachable });
        self.notify_brokers(p);
    }

    /// LeaderAndIsr to every broker the controller reaches.
    pub(crate) fn notify_brokers(&mut self, p: PartitionId) {
        if self.quorum.is_some() {
            // A partition change record: the brokers act on it once committed.
            self.publish_partition(p);
            return;
        }
        for b in self.config.broker_ids() {
            let replica = self.controller.partition(p).replicas.contains(&b);
            if replica && self.broker(b).alive && self.reaches_controller(b) {
                self.send_leader_and_isr(p, b);
            }
        }
    }

    /// The controller tells one broker the current leader, epoch and ISR;
    /// restart and heal deliver it at once (reference §10).
    pub(crate) fn send_leader_and_isr(&mut self, p: PartitionId, b: BrokerId) {
        let state = self.controller.partition(p).leader_and_isr();
        self.apply_leader_and_isr(p, b, state);
    }

    /// A broker is back in touch with the controller (registered after a
    /// restart, or healed).
    pub(crate) fn rejoin(&mut self, b: BrokerId) {
        self.controller.hear_from(b);
        self.controller.fence_check_armed = true;
        // A broker still in controlled shutdown stays so (it stops at its next heartbeat).
        if self.broker(b).shutdown_at_ms.is_none() {
            self.controller.shutting_down[(b - 1) as usize] = false;
        }
        if self.controller.is_fenced(b) {
            self.controller.fenced[(b - 1) as usize] = false;
            self.emit(Event::BrokerUnfenced { broker: b });
            self.publish(MetadataRecord::UnfenceBroker { broker: b });
        }
        // With a quorum, it fetches the committed metadata it missed
        // instead of being told each partition.
        self.catch_up_metadata(b, false);
        for p in self.config.partition_ids() {
            if !self.controller.partition(p).replicas.contains(&b) {
                continue;
            }
            if self.controller.partition(p).leader.is_none() {
                let _ = self.elect(p, Election::Failover);
                if self.controller.partition(p).leader.is_some() {
                    continue; // the election told every broker
                }
            }
            if self.quorum.is_none() {
                self.send_leader_and_isr(p, b);
            }
            // Back in touch: the AlterPartition it kept retrying gets its answer
            // (unless a request sent before the cut is still out).
            let retry = self.is_leader(p, b) && self.replica(p, b).alter_partition.is_none();
            if let Some(proposed) = retry.then(|| self.replica_mut(p, b).pending_isr.take()).flatten() {
                if self.alter_partition(p, b, proposed) {
                    self.maybe_increment_high_watermark(p, b);
                }
            }
        }
    }

    /// The controller stops hearing from `b` (unless it already had).
    pub(crate) fn go_silent(&mut self, b: BrokerId) {
        let now = self.now_ms;
        self.controller.fall_silent(b, now);
    }
}
