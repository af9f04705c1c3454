//! Faults as ordinary actions: crash and power loss, restart, isolation,
//! one-way and two-way cuts, heal, latency, and pausing a fetcher.

use crate::model::config::{BrokerId, PartitionId};
use crate::model::event::{Event, HighWatermarkCause, Truncation};
use crate::model::protocol::Errors;
use crate::model::rules::Rule;
use crate::model::step::{Nodes, Crash, Heal};
use std::sync::Arc;
use crate::model::simulation::Simulation;

/// `broker.heartbeat.interval.ms` (KRaft, default 2000): how often a broker
/// heartbeats the controller; a broker in controlled shutdown learns at a
/// heartbeat that it may stop.
pub const BROKER_HEARTBEAT_INTERVAL_MS: u64 = 2_000;

impl Simulation {
    /// A crash of one broker, or of every broker of a rack still running
    /// (a zone lost), one after the other in id order.
    pub(crate) fn crash(&mut self, c: &Crash) -> Result<(), String> {
        let running = |sim: &Simulation, b: BrokerId| sim.broker(b).alive || sim.broker(b).starting;
        match &c.nodes {
            Nodes::Broker(b) if !running(self, *b) => Err(format!("broker {b} is already down")),
            Nodes::Broker(b) => {
                self.crash_broker(*b, c.lose_unflushed);
                Ok(())
            }
            Nodes::Rack(r) => {
                let up: Vec<BrokerId> = c.nodes.ids(&self.config).into_iter().filter(|&b| running(self, b)).collect();
                if up.is_empty() {
                    return Err(format!("every broker of rack {r:?} is already down"));
                }
                up.into_iter().for_each(|b| self.crash_broker(b, c.lose_unflushed));
                Ok(())
            }
            Nodes::Controller(id) => self.crash_controller(*id),
        }
    }

    fn crash_broker(&mut self, b: BrokerId, lose_unflushed: u64) {
        self.emit(Event::Crashed { broker: b, lose_unflushed });
        // The client's connection breaks: pending acks=all requests fail.
        self.fail_pending_produces(b, None, Errors::NetworkException);
        let broker = self.broker_mut(b);
        broker.alive = false;
        broker.starting = false;
        broker.clean_shutdown = false;
        broker.shutdown_at_ms = None;
        broker.delayed_fetches.clear();
        broker.fetchers.iter_mut().for_each(|f| f.in_flight_since_ms = None);
        for p in self.config.partition_ids() {
            let replica = self.replica_mut(p, b);
            replica.pending_isr = None;
            replica.alter_partition = None;
            let leo = replica.log_end_offset();
            let lost = lose_unflushed.min(leo);
            if lost > 0 {
                self.truncate(p, b, leo - lost, Truncation::PowerLoss { lost });
            }
        }
        self.go_silent(b);
    }

    /// The process starts again: the log is recovered and the HW read back
    /// from its checkpoint. It then registers with the controller, which
    /// accepts a new incarnation only once the old session has expired
    /// (KRaft `ClusterControlManager.registerBroker`, ZooKeeper's ephemeral
    /// broker node): until then it serves nothing, and the controller fences
    /// it, takes it out of the ISR and replaces it as leader like any dead
    /// broker. A fast restart is never unnoticed.
    pub(crate) fn restart(&mut self, b: BrokerId) -> Result<(), String> {
        let broker = self.broker_mut(b);
        if broker.alive {
            return Err(format!("broker {b} is already running"));
        }
        if broker.starting {
            return Err(format!("broker {b} is already running (waiting to register)"));
        }
        broker.starting = true;
        broker.reset_fetchers();
        self.emit(Event::Restarted { broker: b });
        for p in self.config.partition_ids() {
            let replica = self.replica_mut(p, b);
            replica.leader = None;
            replica.isr.clear();
            replica.needs_epoch_truncation = false;
            replica.stopped_for_shutdown = false;
            replica.fetch_backoff_until_ms = 0;
            // The in-memory HW is gone: HW = min(checkpointed HW, LEO).
            let (hw_from, checkpointed) = (replica.high_watermark, replica.checkpointed_high_watermark);
            let hw = checkpointed.min(replica.log_end_offset());
            replica.high_watermark = hw;
            if hw != hw_from {
                self.emit_in(p, Event::HighWatermarkChanged { broker: b, from: hw_from, to: hw, cause: HighWatermarkCause::Checkpoint { checkpointed } });
            }
        }
        if !self.reaches_controller(b) {
            self.emit(Event::RegistrationRefused { broker: b, session_expires_ms: None });
        } else if self.controller.is_fenced(b) {
            self.register(b);
        } else {
            // Its registration request sets the controller looking for
            // expired sessions (with a quorum, a controller that activated
            // while no broker reached it had not looked): an old session
            // already expired is fenced now, and the broker registers.
            self.controller.fence_check_armed = true;
            let session_expires_ms = self.controller.session_expiry_ms(b, self.config.broker_session_timeout_ms);
            if session_expires_ms.is_some_and(|t| t <= self.now_ms) {
                self.fence(b);
            } else {
                self.emit(Event::RegistrationRefused { broker: b, session_expires_ms });
            }
        }
        Ok(())
    }

    pub(crate) fn isolate(&mut self, which: &Nodes) -> Result<(), String> {
        match which {
            Nodes::Broker(b) => self.isolate_broker(*b),
            Nodes::Rack(r) => self.isolate_rack(r, which.ids(&self.config)),
            Nodes::Controller(c) => self.isolate_controller(*c),
        }
    }

    /// A zone cut off: every link between the rack's brokers and the
    /// brokers outside it is cut both ways, and the rack loses the
    /// controller; inside the rack the brokers still reach each other.
    fn isolate_rack(&mut self, rack: &Arc<str>, inside: Vec<BrokerId>) -> Result<(), String> {
        let outside: Vec<BrokerId> = self.config.broker_ids().filter(|b| !inside.contains(b)).collect();
        let links: Vec<(BrokerId, BrokerId)> =
            inside.iter().flat_map(|&a| outside.iter().flat_map(move |&o| [(a, o), (o, a)])).collect();
        let network = self.network.make_mut();
        let new_cuts = links.into_iter().filter(|&l| network.cuts.insert(l)).count();
        let mut new_controller_cuts = 0;
        for &b in &inside {
            let cut = &mut network.controller_cut[(b - 1) as usize];
            new_controller_cuts += usize::from(!*cut);
            *cut = true;
        }
        if new_cuts == 0 && new_controller_cuts == 0 {
            return Err(format!("rack {rack:?} is already cut off"));
        }
        self.emit(Event::RackIsolated { rack: rack.clone(), brokers: inside.clone() });
        inside.into_iter().for_each(|b| self.go_silent(b));
        Ok(())
    }

    fn isolate_broker(&mut self, b: BrokerId) -> Result<(), String> {
        if self.network.is_isolated(b) {
            return Err(format!("broker {b} is already isolated"));
        }
        self.network.make_mut().isolated[(b - 1) as usize] = true;
        self.emit(Event::Isolated { broker: b });
        self.go_silent(b);
        Ok(())
    }

    pub(crate) fn heal(&mut self, h: Heal) -> Result<(), String> {
        if let Heal::Controller(c) = h {
            return self.heal_controller(c);
        }
        let touches = |b: BrokerId| match h {
            Heal::All => true,
            Heal::Link(x, y) => b == x || b == y,
            Heal::Broker(x) => b == x,
            Heal::Controller(_) => false,
        };
        let cuts: Vec<(BrokerId, BrokerId)> = self
            .network
            .cuts
            .iter()
            .copied()
            .filter(|&(x, y)| match h {
                Heal::All => true,
                Heal::Link(a, b) => (x, y) == (a, b) || (x, y) == (b, a),
                Heal::Broker(a) => x == a || y == a,
                Heal::Controller(_) => false,
            })
            .collect();
        let isolated: Vec<BrokerId> = match h {
            Heal::Link(..) => vec![],
            _ => self.config.broker_ids().filter(|&b| touches(b) && self.network.is_isolated(b)).collect(),
        };
        let controller_cut: Vec<BrokerId> = match h {
            Heal::Link(..) => vec![],
            _ => self.config.broker_ids().filter(|&b| touches(b) && self.network.controller_cut[(b - 1) as usize]).collect(),
        };
        let controllers = if h == Heal::All { self.isolated_controllers() } else { vec![] };
        if cuts.is_empty() && isolated.is_empty() && controller_cut.is_empty() && controllers.is_empty() {
            return Err("nothing to heal: no such cut or isolation".into());
        }
        for c in controllers {
            self.heal_controller(c)?;
        }
        for (x, y) in cuts {
            self.network.make_mut().cuts.remove(&(x, y));
            if x < y || !self.network.cuts.contains(&(y, x)) {
                self.emit(Event::LinkHealed { from: x, to: y });
            }
        }
        // Reconnected fetchers stop waiting for answers that were lost; one
        // whose request or answer is still on the wire (or held by the
        // leader) keeps waiting for it: one fetch in flight per leader.
        let mut reconnected: Vec<(BrokerId, BrokerId)> = self
            .config
            .partition_ids()
            .flat_map(|p| self.config.broker_ids().map(move |b| (p, b)))
            .filter_map(|(p, b)| self.following(p, b).map(|l| (b, l)))
            .filter(|&(b, l)| touches(b) || touches(l))
            .collect();
        reconnected.sort_unstable();
        reconnected.dedup();
        for (f, leader) in reconnected {
            if !self.exchange_under_way(f, leader) {
                self.broker_mut(f).fetcher_mut(leader).in_flight_since_ms = None;
            }
        }
        let mut back: Vec<BrokerId> = isolated.iter().chain(&controller_cut).copied().collect();
        back.sort_unstable();
        back.dedup();
        for b in back {
            if controller_cut.contains(&b) {
                self.network.make_mut().controller_cut[(b - 1) as usize] = false;
                self.emit(Event::ControllerLinkHealed { broker: b });
            }
            if isolated.contains(&b) {
                self.network.make_mut().isolated[(b - 1) as usize] = false;
                self.emit(Event::IsolationHealed { broker: b });
            }
            if !self.reaches_controller(b) {
                continue;
            }
            if self.broker(b).alive {
                self.rejoin(b);
            } else if self.broker(b).starting {
                if self.controller.is_fenced(b) {
                    self.register(b);
                } else {
                    let session_expires_ms = self.controller.session_expiry_ms(b, self.config.broker_session_timeout_ms);
                    self.emit(Event::RegistrationRefused { broker: b, session_expires_ms });
                }
            }
        }
        Ok(())
    }

    /// The broker loses the controller only: heartbeats stop, so its session
    /// expires and it is fenced, while its fetches still reach the leader.
    pub(crate) fn cut_controller(&mut self, b: BrokerId) -> Result<(), String> {
        if !self.network.reaches_controller(b) {
            return Err(format!("broker {b} already cannot reach the controller"));
        }
        self.network.make_mut().controller_cut[(b - 1) as usize] = true;
        self.emit(Event::ControllerCut { broker: b });
        self.go_silent(b);
        Ok(())
    }

    /// Controlled shutdown, the whole of it in one step: the request
    /// (`begin_controlled_shutdown`), then the stop at once. KRaft: the
    /// broker's heartbeat asks wantShutDown;
    /// `ReplicationControlManager.handleBrokerInControlledShutdown` runs
    /// `generateLeaderAndIsrUpdates("enterControlledShutdown", ...)`: the
    /// broker leaves the ISR (the last member stays, unless ELR lets it
    /// empty) and its leadership moves to another active ISR member
    /// (`isActive` excludes a broker in controlled shutdown). ZooKeeper:
    /// `KafkaController.doControlledShutdown` (ControlledShutdownLeaderSelector,
    /// then removeReplicasFromIsr). Once it leads nothing the broker stops:
    /// its log is flushed and its HW checkpointed, nothing is lost. The
    /// controller then counts it as fenced at once (no session to wait
    /// for), so a restart registers straight away.
    pub(crate) fn controlled_shutdown(&mut self, b: BrokerId) -> Result<(), String> {
        if self.broker(b).shutdown_at_ms.is_none() {
            self.begin_controlled_shutdown(b)?;
        }
        if self.broker(b).alive {
            self.complete_controlled_shutdown(b);
        }
        Ok(())
    }

    /// The request half of a controlled shutdown. The controller moves the
    /// broker's leadership away and takes it out of the ISR (with ELR, 4.1,
    /// the ISR may become empty:
    /// `PartitionChangeBuilderTest.testEligibleLeaderReplicas_IsrCanShrinkToZero`).
    /// KRaft (from 3.3): the broker stops fetching a partition it left the
    /// ISR of, or that has no leader (`ReplicaManager.applyLocalFollowersDelta`,
    /// `ReplicaManagerTest.testReplicasAreStoppedWhileInControlledShutdown`);
    /// one it followed from outside the ISR gets no change from the
    /// controller, so it goes on fetching, and the leader does not add it
    /// back (KIP-841, `PartitionTest.testIsrNotExpandedIfReplicaIsInControlledShutdown`).
    /// The controller answers `shouldShutDown` once the broker leads nothing
    /// (`BrokerHeartbeatManager`): it stops at its next heartbeat,
    /// `broker.heartbeat.interval.ms` later. ZooKeeper era: the controller
    /// sends it StopReplica for what it follows and answers the
    /// ControlledShutdownRequest with nothing left, and it stops at once.
    pub(crate) fn begin_controlled_shutdown(&mut self, b: BrokerId) -> Result<(), String> {
        if !self.broker(b).alive {
            return Err(format!("broker {b} is not running"));
        }
        if self.broker(b).shutdown_at_ms.is_some() {
            return Err(format!("broker {b} is already shutting down"));
        }
        if !self.reaches_controller(b) {
            return Err(format!("broker {b} cannot reach the controller, which a controlled shutdown needs (crash it instead)"));
        }
        self.emit(Event::ControlledShutdownStarted { broker: b });
        self.controller.shutting_down[(b - 1) as usize] = true;
        let was_in_isr: Vec<bool> = self.controller.partitions.iter().map(|r| r.isr.contains(&b)).collect();
        let elr = self.rules.has(Rule::EligibleLeaderReplicas);
        for p in self.config.partition_ids() {
            self.remove_from_isr(p, b, elr);
        }
        if !self.rules.has(Rule::KraftController) {
            self.complete_controlled_shutdown(b);
            return Ok(());
        }
        self.broker_mut(b).shutdown_at_ms = Some(self.now_ms + BROKER_HEARTBEAT_INTERVAL_MS);
        for p in self.config.partition_ids() {
            let still_follows = self.following(p, b).is_some() && !self.replica(p, b).stopped_for_shutdown;
            if still_follows && (was_in_isr[p as usize] || self.controller.partition(p).leader.is_none()) {
                self.stop_fetching_for_shutdown(p, b);
            }
        }
        Ok(())
    }

    /// `applyLocalFollowersDelta` in controlled shutdown: the fetcher for the
    /// partition is removed.
    pub(crate) fn stop_fetching_for_shutdown(&mut self, p: PartitionId, b: BrokerId) {
        if let Some(leader) = self.following(p, b) {
            self.remove_fetcher(p, b, leader);
        }
        self.replica_mut(p, b).stopped_for_shutdown = true;
        self.emit_in(p, Event::ShutdownFetcherStopped { broker: b });
    }

    /// The stop: the HW checkpoint is written and the process exits; the
    /// controller counts the broker as fenced at once.
    pub(crate) fn complete_controlled_shutdown(&mut self, b: BrokerId) {
        self.fail_pending_produces(b, None, Errors::NotLeaderOrFollower);
        let broker = self.broker_mut(b);
        broker.alive = false;
        broker.starting = false;
        broker.clean_shutdown = true;
        broker.shutdown_at_ms = None;
        broker.delayed_fetches.clear();
        broker.fetchers.iter_mut().for_each(|f| f.in_flight_since_ms = None);
        for p in self.config.partition_ids() {
            let replica = self.replica_mut(p, b);
            let high_watermark = replica.high_watermark;
            replica.checkpointed_high_watermark = high_watermark;
            replica.pending_isr = None;
            replica.alter_partition = None;
            self.emit_in(p, Event::HighWatermarkCheckpointed { broker: b, high_watermark });
        }
        self.controller.fenced[(b - 1) as usize] = true;
        self.publish(crate::model::quorum::metadata_log::MetadataRecord::FenceBroker { broker: b });
        self.controller.shutting_down[(b - 1) as usize] = false;
        self.controller.hear_from(b);
        self.emit(Event::ControlledShutdownCompleted { broker: b });
    }

    /// Brokers in controlled shutdown whose heartbeat is now answered
    /// `shouldShutDown` (they lead nothing: the controller moved it all when
    /// they asked). One cut from the controller hears nothing and waits.
    pub(crate) fn complete_due_shutdowns(&mut self) {
        for b in self.config.broker_ids() {
            let due = self.broker(b).shutdown_at_ms.is_some_and(|t| t <= self.now_ms);
            if due && self.broker(b).alive && self.reaches_controller(b) {
                self.complete_controlled_shutdown(b);
                self.end_action();
            }
        }
    }

    /// The next time a broker in controlled shutdown stops.
    pub(crate) fn next_shutdown_ms(&self) -> Option<u64> {
        // Usually no broker is shutting down: that is looked at first.
        self.brokers.iter().filter(|b| b.shutdown_at_ms.is_some() && self.reaches_controller(b.id)).filter_map(|b| b.shutdown_at_ms).min()
    }
}
