//! The quorum on the simulation's clock: its messages and timers run in
//! time order with the rest of the cluster (`Simulation::run_due`), and the
//! controllers' faults are steps like the brokers'.

use crate::model::config::ControllerId;
use crate::model::event::Event;
use crate::model::simulation::Simulation;

impl Simulation {
    /// The quorum's messages and timers due now, one at a time, each
    /// followed by the quorum's checks.
    /// Committed metadata reaching the brokers goes in the same order.
    pub(crate) fn run_quorum(&mut self) {
        let now = self.now_ms;
        loop {
            let Some(q) = self.quorum.as_deref_mut() else { return };
            let to_broker_first = q.to_brokers.first_key().is_some_and(|k| k.0 <= now && q.in_flight.first_key().is_none_or(|m| k < m));
            if to_broker_first {
                let (_, d) = q.to_brokers.pop_first_if(|_| true).expect("a delivery is due");
                self.deliver_metadata(d);
            } else if q.run_next_due(now) {
                self.take_quorum_output();
            } else {
                return;
            }
        }
    }

    /// The quorum's events go into the step's trace; its checks run over
    /// what it did, and what they find goes into the run's violations.
    /// A controller that has claimed its epoch takes over as the active one.
    pub(crate) fn take_quorum_output(&mut self) {
        let Some(q) = self.quorum.as_deref_mut() else { return };
        for e in q.take_events() {
            self.emit(e);
        }
        let Some(q) = self.quorum.as_deref() else { return };
        for v in self.quorum_checks.check(q, self.step, self.now_ms) {
            self.violations.push(v.clone());
            self.emit(Event::Violation(v));
        }
        self.follow_active_controller();
    }

    /// A controller step in a scenario without controllers. Each step
    /// returns it at once on an empty slot (`let … else`), so that a build
    /// without the quorum sees the step ends there and drops the code after
    /// it (`slot`): behind a `Result` the compiler loses that.
    fn no_quorum() -> String {
        "the scenario has no controller quorum (config.controllers is 0)".to_string()
    }

    pub(crate) fn crash_controller(&mut self, c: ControllerId) -> Result<(), String> {
        let Some(q) = self.quorum.as_deref_mut() else { return Err(Self::no_quorum()) };
        if !q.voter(c).alive {
            return Err(format!("controller {c} is already down"));
        }
        q.crash(c);
        self.take_quorum_output();
        Ok(())
    }

    pub(crate) fn restart_controller(&mut self, c: ControllerId) -> Result<(), String> {
        let now = self.now_ms;
        let Some(q) = self.quorum.as_deref_mut() else { return Err(Self::no_quorum()) };
        if q.voter(c).alive {
            return Err(format!("controller {c} is already running"));
        }
        q.restart(c, now);
        self.take_quorum_output();
        Ok(())
    }

    /// Cut from every other node: the other controllers (and, once brokers
    /// fetch the metadata log, the brokers).
    pub(crate) fn isolate_controller(&mut self, c: ControllerId) -> Result<(), String> {
        let Some(q) = self.quorum.as_deref_mut() else { return Err(Self::no_quorum()) };
        if q.is_isolated(c) {
            return Err(format!("controller {c} is already isolated"));
        }
        q.isolated[(c - 1) as usize] = true;
        self.emit(Event::ControllerIsolated { controller: c });
        self.follow_active_controller();
        Ok(())
    }

    pub(crate) fn heal_controller(&mut self, c: ControllerId) -> Result<(), String> {
        let Some(q) = self.quorum.as_deref_mut() else { return Err(Self::no_quorum()) };
        if !q.is_isolated(c) {
            return Err(format!("nothing to heal: controller {c} is not isolated"));
        }
        q.isolated[(c - 1) as usize] = false;
        self.emit(Event::ControllerHealed { controller: c });
        self.follow_active_controller();
        Ok(())
    }

    /// The isolated controllers, in id order (none without a quorum).
    pub(crate) fn isolated_controllers(&self) -> Vec<ControllerId> {
        self.quorum.as_deref().map_or(vec![], |q| q.ids().filter(|&c| q.is_isolated(c)).collect())
    }

    /// `{"resign": null}`: the quorum leader hands over (`KafkaRaftClient.resign`).
    pub(crate) fn resign_controller(&mut self) -> Result<(), String> {
        let now = self.now_ms;
        let Some(q) = self.quorum.as_deref_mut() else { return Err(Self::no_quorum()) };
        let Some(leader) = q.leader().map(|v| v.id) else {
            return Err("resign: no controller leads the quorum now".into());
        };
        q.resign(leader, now, crate::model::event::QuorumCause::AskedToResign);
        self.take_quorum_output();
        Ok(())
    }
}
