//! Faults as ordinary actions: crash and power loss, restart, isolation,
//! one-way and two-way cuts, heal, latency, and pausing a fetcher.

use crate::model::config::BrokerId;
use crate::model::event::{Event, HighWatermarkCause, Truncation};
use crate::model::protocol::Errors;
use crate::model::step::{Crash, Heal};
use crate::model::simulation::Simulation;

impl Simulation {
    pub(crate) fn crash(&mut self, c: &Crash) -> Result<(), String> {
        let b = c.broker;
        let broker = self.broker(b);
        if !broker.alive && !broker.starting {
            return Err(format!("broker {b} is already down"));
        }
        self.emit(Event::Crashed { broker: b, lose_unflushed: c.lose_unflushed });
        // The client's connection breaks: pending acks=all requests fail.
        self.fail_pending_produces(b, Errors::NetworkException);
        let broker = self.broker_mut(b);
        broker.alive = false;
        broker.starting = false;
        broker.pending_isr = None;
        broker.alter_partition = None;
        broker.delayed_fetches.clear();
        broker.fetcher.in_flight_since_ms = None;
        let leo = broker.log_end_offset();
        let lost = c.lose_unflushed.min(leo);
        if lost > 0 {
            self.truncate(b, leo - lost, Truncation::PowerLoss { lost });
        }
        self.go_silent(b);
        Ok(())
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
        broker.leader = None;
        broker.isr.clear();
        broker.fetcher = crate::model::replica::Fetcher { paused: broker.fetcher.paused, ..Default::default() };
        // The in-memory HW is gone: HW = min(checkpointed HW, LEO).
        let (hw_from, checkpointed) = (broker.high_watermark, broker.checkpointed_high_watermark);
        let hw = checkpointed.min(broker.log_end_offset());
        broker.high_watermark = hw;
        self.emit(Event::Restarted { broker: b });
        if hw != hw_from {
            self.emit(Event::HighWatermarkChanged { broker: b, from: hw_from, to: hw, cause: HighWatermarkCause::Checkpoint { checkpointed } });
        }
        if !self.network.reaches_controller(b) {
            self.emit(Event::RegistrationRefused { broker: b, session_expires_ms: None });
        } else if self.controller.is_fenced(b) {
            self.register(b);
        } else {
            let session_expires_ms = self.controller.session_expiry_ms(b, self.config.broker_session_timeout_ms);
            self.emit(Event::RegistrationRefused { broker: b, session_expires_ms });
        }
        Ok(())
    }

    pub(crate) fn isolate(&mut self, b: BrokerId) -> Result<(), String> {
        if self.network.is_isolated(b) {
            return Err(format!("broker {b} is already isolated"));
        }
        self.network.make_mut().isolated[(b - 1) as usize] = true;
        self.emit(Event::Isolated { broker: b });
        self.go_silent(b);
        Ok(())
    }

    pub(crate) fn heal(&mut self, h: Heal) -> Result<(), String> {
        let touches = |b: BrokerId| match h {
            Heal::All => true,
            Heal::Link(x, y) => b == x || b == y,
            Heal::Broker(x) => b == x,
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
        if cuts.is_empty() && isolated.is_empty() && controller_cut.is_empty() {
            return Err("nothing to heal: no such cut or isolation".into());
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
        let reconnected: Vec<(BrokerId, BrokerId)> = self
            .brokers
            .iter()
            .filter(|b| touches(b.id) || b.leader.is_some_and(touches))
            .filter_map(|b| b.following().map(|l| (b.id, l)))
            .collect();
        for (f, leader) in reconnected {
            if !self.exchange_under_way(f, leader) {
                self.broker_mut(f).fetcher.in_flight_since_ms = None;
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
            if !self.network.reaches_controller(b) {
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

    /// Controlled shutdown. KRaft: the broker's heartbeat asks wantShutDown;
    /// `ReplicationControlManager.handleBrokerInControlledShutdown` runs
    /// `generateLeaderAndIsrUpdates("enterControlledShutdown", ...)`: the
    /// broker leaves the ISR (never emptied: the last member stays) and its
    /// leadership moves to another active ISR member (`isActive` excludes a
    /// broker in controlled shutdown). ZooKeeper: `KafkaController
    /// .doControlledShutdown` (ControlledShutdownLeaderSelector, then
    /// removeReplicasFromIsr). Once it leads nothing the broker stops: its
    /// log is flushed and its HW checkpointed, nothing is lost. The model
    /// takes the whole exchange as one step; the controller then counts the
    /// broker as fenced at once (no session to wait for), so a restart
    /// registers straight away.
    pub(crate) fn controlled_shutdown(&mut self, b: BrokerId) -> Result<(), String> {
        if !self.broker(b).alive {
            return Err(format!("broker {b} is not running"));
        }
        if !self.network.reaches_controller(b) {
            return Err(format!("broker {b} cannot reach the controller, which a controlled shutdown needs (crash it instead)"));
        }
        self.emit(Event::ControlledShutdownStarted { broker: b });
        self.controller.shutting_down[(b - 1) as usize] = true;
        // Leadership moves away and the broker leaves the ISR (never emptied), as for an expired session.
        self.remove_from_isr(b, false);
        // The clean stop: the HW checkpoint is written, the process exits.
        self.fail_pending_produces(b, Errors::NotLeaderOrFollower);
        let broker = self.broker_mut(b);
        let high_watermark = broker.high_watermark;
        broker.checkpointed_high_watermark = high_watermark;
        broker.alive = false;
        broker.starting = false;
        broker.pending_isr = None;
        broker.alter_partition = None;
        broker.delayed_fetches.clear();
        broker.fetcher.in_flight_since_ms = None;
        self.emit(Event::HighWatermarkCheckpointed { broker: b, high_watermark });
        self.controller.fenced[(b - 1) as usize] = true;
        self.controller.shutting_down[(b - 1) as usize] = false;
        self.controller.silent_since_ms[(b - 1) as usize] = None;
        self.emit(Event::ControlledShutdownCompleted { broker: b });
        Ok(())
    }
}
