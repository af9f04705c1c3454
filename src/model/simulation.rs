//! The engine: a topic's partitions on N brokers, driven one step at a time.
//!
//! `Simulation` is a plain value (clone it to snapshot it). It never reads a
//! clock or draws a random number it was not handed: time moves only through
//! `advance_ms`, randomness comes from the scenario's seed. Every step comes
//! back as typed events; the safety checks run after every action.

use crate::model::cluster::topology::replica_assignment;
use crate::model::config::{Budget, Budgets, BrokerId, Config, PartitionId, Protocol};
use crate::model::clients::subscription::Consumer;
use crate::model::controller::registrations::{Controller, Election};
use crate::model::accounting::{Accounting, PartitionMask};
use crate::model::event::{DropReason, Event, Traced};
use crate::model::invariants::{Checker, Touch, View, Violation};
use crate::model::cluster::network::Network;
use crate::model::clients::accumulator::Producer;
use crate::model::controller::registrations::Rebalance;
use crate::model::protocol::Message;
use crate::model::cluster::broker::Broker;
use crate::model::partition::replica::{Partition, Replica};
use crate::base::rng::Rng;
use crate::model::rules::{Rule, Rules};
use crate::model::step::{Nodes, Step};
use crate::model::quorum::Quorum;
use crate::model::quorum::slot::QuorumSlot;
use crate::model::quorum::checks::QuorumChecks;
use crate::model::quorum::metadata_log::MetadataRecord;
use crate::base::shared::Shared;

#[derive(Debug, PartialEq, Eq)]
pub struct Simulation {
    pub config: Config,
    pub now_ms: u64,
    /// Steps applied so far.
    pub step: u64,
    pub(crate) rng: Rng,
    /// The rules of `config.protocol` (`rules.rs`).
    pub rules: Rules,
    pub brokers: Vec<Broker>,
    /// The topic's partitions, each with its replica on every broker.
    pub partitions: Vec<Partition>,
    pub controller: Controller,
    /// Shared between copies (`Shared`): most steps do not change it.
    pub network: Shared<Network>,
    pub producer: Producer,
    /// Shared between copies: only `consume` steps change it.
    pub consumer: Shared<Consumer>,
    /// The KRaft controller quorum (`config.controllers` voters), if any.
    pub quorum: QuorumSlot,
    /// The quorum's safety checks' memory (empty without a quorum).
    pub(crate) quorum_checks: QuorumChecks,
    /// The safety checks' memory of what they verified, and what they found.
    /// One per partition.
    pub(crate) checkers: Vec<Checker>,
    pub violations: Vec<Violation>,
    /// When the leader's periodic ISR expiration check and the HW checkpoint next run.
    pub next_isr_check_ms: u64,
    pub next_checkpoint_ms: u64,
    /// The end of the `advance_ms` being run.
    pub(crate) advance_until_ms: u64,
    /// The run's accounting, apart from the partition: the step's events,
    /// the trace mode, and the work counted against the budgets.
    pub accounting: Accounting,
}

crate::clone_in_place!(Simulation { config, now_ms, step, rng, rules, brokers, partitions, controller, network, producer, consumer, quorum, quorum_checks, checkers, violations, next_isr_check_ms, next_checkpoint_ms, advance_until_ms, accounting });

impl Simulation {
    /// Each partition's preferred replica leads epoch 0, every replica in
    /// the ISR (broker 1 and every broker, for one partition on every
    /// broker). The configuration must be valid (`Config::validate`).
    pub fn new(config: Config) -> Simulation {
        debug_assert!(config.validate().is_ok());
        let n = config.brokers;
        let mut rng = Rng::new(config.seed);
        let mut brokers: Vec<Broker> = config.broker_ids().map(|b| Broker::new(b, n)).collect();
        let mut partitions: Vec<Partition> = config.partition_ids().map(|p| Partition::new(p, n)).collect();
        let mut controller = Controller::new(n, &replica_assignment(&config));
        let rules = config.rules();
        controller.rebalance = Rebalance::new(config.auto_fetch && config.auto_leader_rebalance, rules.has(Rule::KraftController));
        for (partition, registration) in partitions.iter_mut().zip(&controller.partitions) {
            let leader = registration.preferred_leader();
            for &b in &registration.replicas {
                let r = &mut partition.replicas[(b - 1) as usize];
                if b == leader {
                    r.make_leader(0, registration.isr, 0, rules.has(Rule::EpochCachedOnBecomingLeader));
                } else {
                    r.leader = Some(leader);
                }
            }
        }
        // Timed mode: each fetcher starts at a seeded phase of its interval,
        // drawn by follower, then leader.
        for b in brokers.iter_mut() {
            let mut leaders: Vec<BrokerId> = partitions.iter().filter_map(|p| p.replicas[(b.id - 1) as usize].followed_leader()).collect();
            leaders.sort_unstable();
            leaders.dedup();
            for l in leaders {
                b.fetcher_mut(l).next_fetch_ms = rng.below(config.replica_fetch_wait_max_ms);
            }
        }
        // The metadata log a quorum starts from: the brokers' registrations
        // and the topic's partitions, committed on every voter.
        let quorum = QuorumSlot::new(|| (config.controllers > 0).then(|| {
            let mut records: Vec<MetadataRecord> = config.broker_ids().map(|broker| MetadataRecord::RegisterBroker { broker, fenced: false }).collect();
            records.extend(controller.partitions.iter().enumerate().map(|(p, r)| MetadataRecord::Partition {
                partition: p as u32,
                leader: r.preferred_leader(),
                leader_epoch: 0,
            }));
            Quorum::new(&config, &records)
        }));
        if let Some(q) = quorum.as_deref() {
            // Every broker has applied the bootstrap log; its registration
            // record follows the LeaderChange, in broker order.
            for b in brokers.iter_mut() {
                b.metadata_offset = q.voter(1).log.end_offset();
                b.broker_epoch = u64::from(b.id);
            }
        }
        Simulation {
            quorum,
            quorum_checks: QuorumChecks::new(config.controllers),
            now_ms: 0,
            step: 0,
            rng,
            rules,
            brokers,
            partitions,
            controller,
            network: Shared::new(Network::new(n, config.link_latency_ms)),
            producer: Producer::new(),
            consumer: Shared::new(Consumer::new(config.partitions)),
            checkers: config.partition_ids().map(|_| Checker::new(n)).collect(),
            violations: vec![],
            next_isr_check_ms: config.replica_lag_time_max_ms / 2,
            next_checkpoint_ms: config.hw_checkpoint_interval_ms,
            advance_until_ms: 0,
            accounting: Accounting::new(),
            config,
        }
    }

    /// Roughly the memory a copy of this state holds of its own (what copies
    /// share, full log chunks, a response's records and record values, is
    /// not counted): the timeline's snapshot budget.
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        let logs: usize = self.partitions.iter().flat_map(|p| &p.replicas).map(|r| r.log.approx_copy_bytes()).sum();
        size_of::<Simulation>()
            + logs
            + self.network.in_flight.len() * size_of::<Message>()
            + self.producer.requests.len() * size_of::<crate::model::clients::accumulator::ProduceRequest>()
            + self.violations.len() * size_of::<Violation>()
            + self.consumer.read.len() * std::mem::size_of::<crate::model::clients::subscription::ConsumedRecord>()
            + self.quorum.as_deref().map_or(0, Quorum::approx_bytes)
    }

    pub fn protocol(&self) -> Protocol {
        self.config.protocol
    }

    pub fn broker(&self, b: BrokerId) -> &Broker {
        &self.brokers[(b - 1) as usize]
    }

    pub(crate) fn broker_mut(&mut self, b: BrokerId) -> &mut Broker {
        &mut self.brokers[(b - 1) as usize]
    }

    /// Broker `b`'s replica of partition `p`.
    pub fn replica(&self, p: PartitionId, b: BrokerId) -> &Replica {
        &self.partitions[p as usize].replicas[(b - 1) as usize]
    }

    pub(crate) fn replica_mut(&mut self, p: PartitionId, b: BrokerId) -> &mut Replica {
        &mut self.partitions[p as usize].replicas[(b - 1) as usize]
    }

    /// Broker `b` runs and believes itself the leader of `p` (possibly a stale one).
    pub fn is_leader(&self, p: PartitionId, b: BrokerId) -> bool {
        self.broker(b).alive && self.replica(p, b).believes_leader()
    }

    /// The other broker that broker `b`, running, believes leads `p`.
    pub fn following(&self, p: PartitionId, b: BrokerId) -> Option<BrokerId> {
        self.replica(p, b).followed_leader().filter(|_| self.broker(b).alive)
    }

    /// Broker `b` runs and leads some partition.
    pub fn leads_any(&self, b: BrokerId) -> bool {
        self.config.partition_ids().any(|p| self.is_leader(p, b))
    }

    /// Applies one step and returns the events it caused, in order.
    pub fn apply(&mut self, step: &Step) -> Vec<Traced> {
        self.apply_in_place(step);
        std::mem::take(&mut self.accounting.out)
    }

    /// `apply`, leaving the events in the simulation (until the next step)
    /// instead of handing them out: no allocation for a caller that only
    /// looks at the state, such as the explorer.
    pub fn apply_in_place(&mut self, step: &Step) -> &[Traced] {
        self.step += 1;
        self.accounting.start_step();
        if let Some(budget) = self.accounting.stopped {
            let reason = format!("the run has stopped: {} (limit {})", budget.describe(self.accounting.budgets.limit(budget)), budget.limit_name());
            self.emit(Event::StepRejected { action: step.clone(), reason });
            return &self.accounting.out;
        }
        match self.run_step(step) {
            Ok(()) if self.accounting.paused => return &self.accounting.out,
            // A step may free an in-flight request (a fetch moves a HW, an
            // election fails what waited at the old leader).
            Ok(()) => self.send_produces(),
            Err(reason) => self.emit_traced(Touch::Nothing, |_| Event::StepRejected { action: step.clone(), reason }),
        }
        self.finish_step();
        &self.accounting.out
    }

    fn finish_step(&mut self) {
        self.end_action();
        self.over_budget();
    }

    /// `apply`, in slices: a clock step pauses once `slice` more events and
    /// units of work are done (at a moment where its loop would check the
    /// budgets). `None` when the step is done, with its events, as `apply`
    /// gives them; `Some` (no events yet) when it paused: call `resume`
    /// until it is done. The result is the same as `apply`'s, event for
    /// event and state for state (`tests/budgets.rs`).
    pub fn apply_sliced(&mut self, step: &Step, slice: u64) -> Option<()> {
        self.accounting.pause_at = Some(self.work_done().saturating_add(slice));
        self.apply_in_place(step);
        self.accounting.pause_at = None;
        self.accounting.paused.then_some(())
    }

    /// Goes on with a paused clock step for another `slice`; `None` once it
    /// is done (its events are then in `take_events`).
    pub fn resume(&mut self, slice: u64) -> Option<()> {
        assert!(self.accounting.paused, "no step is paused");
        self.accounting.paused = false;
        self.accounting.pause_at = Some(self.work_done().saturating_add(slice));
        self.advance_to(self.advance_until_ms);
        self.accounting.pause_at = None;
        if self.accounting.paused {
            return Some(());
        }
        self.send_produces();
        self.finish_step();
        None
    }

    /// The events of the step just done (`apply_in_place`, `apply_sliced`, `resume`).
    pub fn take_events(&mut self) -> Vec<Traced> {
        std::mem::take(&mut self.accounting.out)
    }

    /// Events and units of work done in the run so far (what a slice counts).
    pub fn work_done(&self) -> u64 {
        self.accounting.emitted + self.accounting.work
    }

    /// A clock step is paused (`apply_sliced`).
    pub fn is_paused(&self) -> bool {
        self.accounting.paused
    }

    pub(crate) fn run_step(&mut self, step: &Step) -> Result<(), String> {
        // The explorer's mode takes only the explorer's moves, valid by
        // construction (`search::moves`), millions of them.
        if self.accounting.trace {
            step.validate(&self.config, self.now_ms)?;
        } else {
            debug_assert!(step.validate(&self.config, self.now_ms).is_ok(), "{step:?}");
        }
        match step {
            Step::Produce(p) => self.produce(p),
            Step::Fetch(f) => self.fetch_now(f.broker, f.from)?,
            Step::AdvanceMs(ms) => self.advance(*ms),
            Step::Crash(c) => self.crash(c)?,
            Step::Restart(Nodes::Broker(b)) => self.restart(*b)?,
            Step::Restart(Nodes::Controller(c)) => self.restart_controller(*c)?,
            Step::Restart(Nodes::Rack(_)) => return Err("restart: name a broker id or {\"controller\": c}".into()),
            Step::Resign(()) => self.resign_controller()?,
            Step::Elect(e) => self.elect(e.partition, Election::Requested(e.broker))?,
            Step::ElectPreferred(p) => self.elect_preferred(*p)?,
            Step::Delay(d) => {
                self.network.make_mut().latency_ms[(d.broker - 1) as usize] = d.ms;
                self.emit(Event::LatencyChanged { broker: d.broker, latency_ms: d.ms });
            }
            Step::Cut([a, b]) => {
                if !self.network.make_mut().cuts.insert((*a, *b)) {
                    return Err(format!("the link from broker {a} to broker {b} is already cut"));
                }
                self.emit(Event::LinkCut { from: *a, to: *b, both_ways: false });
            }
            Step::Partition([a, b]) => {
                let cuts = &mut self.network.make_mut().cuts;
                let (new_ab, new_ba) = (cuts.insert((*a, *b)), cuts.insert((*b, *a)));
                if !new_ab && !new_ba {
                    return Err(format!("brokers {a} and {b} are already partitioned"));
                }
                self.emit(Event::LinkCut { from: *a, to: *b, both_ways: true });
            }
            Step::Isolate(b) => self.isolate(b)?,
            Step::CutController(b) => self.cut_controller(*b)?,
            Step::ControlledShutdown(b) => self.controlled_shutdown(*b)?,
            Step::BeginControlledShutdown(b) => self.begin_controlled_shutdown(*b)?,
            Step::Heal(h) => self.heal(*h)?,
            Step::Consume(which) => self.consume(which.map(|w| w.partition)),
            Step::Pause(b) | Step::Resume(b) => {
                let pause = matches!(step, Step::Pause(_));
                let broker = self.broker_mut(*b);
                if broker.fetchers_paused == pause {
                    return Err(format!("broker {b}'s fetcher is already {}", if pause { "paused" } else { "running" }));
                }
                broker.fetchers_paused = pause;
                self.emit(if pause { Event::FetcherPaused { broker: *b } } else { Event::FetcherResumed { broker: *b } });
            }
        }
        Ok(())
    }

    // ----- events and checks -------------------------------------------

    /// Adds an event to the step's trace (`Accounting::emit`).
    #[inline]
    pub(crate) fn emit(&mut self, event: Event) {
        self.accounting.emit(self.step, self.now_ms, None, event);
    }

    /// `emit` for an event about partition `p`: its trace line names the
    /// partition when the topic has several.
    #[inline]
    pub(crate) fn emit_in(&mut self, p: PartitionId, event: Event) {
        let partition = (self.config.partitions > 1).then_some(p);
        self.accounting.emit(self.step, self.now_ms, partition, event);
    }

    /// `emit_traced` for an event about partition `p`.
    pub(crate) fn emit_traced_in(&mut self, p: PartitionId, touch: Touch, event: impl FnOnce(&Simulation) -> Event) {
        if self.accounting.trace {
            let event = event(self);
            assert_eq!(Checker::touches(&event), touch, "{event}");
            self.emit_in(p, event);
        } else {
            self.accounting.count_unbuilt(touch);
        }
    }

    /// `emit` for an event the checks do not read, built (from the state as
    /// it is now) only if the trace is kept: its payload may allocate or
    /// share a value. `touch` is what `Checker::touches` says of it (checked
    /// whenever the event is built).
    pub(crate) fn emit_traced(&mut self, touch: Touch, event: impl FnOnce(&Simulation) -> Event) {
        if self.accounting.trace {
            let event = event(self);
            // The trace line names the event (`Display`): its `Debug` form would
            // add a formatter of every event to the wasm file.
            assert_eq!(Checker::touches(&event), touch, "{event}");
            self.emit(event);
        } else {
            self.accounting.count_unbuilt(touch);
        }
    }

    /// Why a step is rejected, for its `StepRejected` event: built (from the
    /// state as it is now) only if the trace is kept, as that event is not
    /// kept otherwise.
    pub(crate) fn rejection(&self, reason: impl FnOnce(&Simulation) -> String) -> String {
        if self.accounting.trace {
            reason(self)
        } else {
            String::new()
        }
    }

    /// The explorer's mode: each step keeps only the events the safety
    /// checks read (`Checker::reads`), which are all `apply` returns then.
    /// The checks, the state and the budgets (which count every event) are
    /// the same as with the full trace; what goes is the work of building
    /// and storing events that only the trace shows.
    pub(crate) fn keep_checked_events_only(&mut self) {
        self.accounting.trace = false;
    }

    /// The budget this run went past: it stopped, and runs no more steps.
    pub fn stopped(&self) -> Option<Budget> {
        self.accounting.stopped
    }

    /// The work this run may do (`config::limits`).
    pub fn budgets(&self) -> &Budgets {
        &self.accounting.budgets
    }

    /// Stops the run if it went past a budget (`config::limits`), with an
    /// event naming it. True if the run has stopped.
    pub(crate) fn over_budget(&mut self) -> bool {
        if self.accounting.stopped.is_some() {
            return true;
        }
        let Some(budget) = self.accounting.budget_passed(self.network.in_flight.len() as u64) else { return false };
        self.accounting.stopped = Some(budget);
        self.emit(Event::BudgetExceeded { budget, limit: self.accounting.budgets.limit(budget) });
        true
    }

    /// Runs the safety checks over the action just finished.
    #[inline]
    pub(crate) fn end_action(&mut self) {
        // KRaft schedules a balance run after a controller write.
        self.schedule_balance();
        if self.accounting.unchecked_events() {
            self.action_ended();
        }
    }

    /// Every change a check looks at (a log, a HW, the leader, the ISR, an
    /// acknowledgement, a read) comes with an event that says so
    /// (`Checker::touches`). After an action without one the checks would
    /// find nothing new (they remember what they verified, and the state
    /// they look at is the same), so they do not run.
    fn action_ended(&mut self) {
        let changed = std::mem::take(&mut self.accounting.unchecked);
        if !changed.is_empty() {
            self.run_checks(changed);
        }
        self.accounting.action_checked();
    }

    /// The checks of each partition whose checked state may have changed.
    fn run_checks(&mut self, changed: PartitionMask) {
        self.accounting.checked_at = self.accounting.emitted;
        for p in self.config.partition_ids().filter(|&p| changed.has(p)) {
            // A partition's checks read its own events and those of no partition
            // (a broker's restart); in a topic of one partition, every event.
            let events: Vec<Traced>;
            let all = self.accounting.action_events();
            let events = if self.config.partitions == 1 {
                all
            } else {
                events = all.iter().filter(|e| e.partition.is_none_or(|x| x == p)).cloned().collect();
                &events[..]
            };
            let view = View {
                brokers: &self.brokers,
                replicas: &self.partitions[p as usize].replicas,
                registration: self.controller.partition(p),
                producer: &self.producer,
                consumer: &self.consumer,
                step: self.step,
                time_ms: self.now_ms,
                partition: p,
            };
            let found = self.checkers[p as usize].check(&view, events);
            for v in found {
                self.violations.push(v.clone());
                self.emit_in(p, Event::Violation(v));
            }
        }
        self.accounting.action_checked();
    }

    // ----- the wire --------------------------------------------------------------

    /// Why a message from `from` to `to` cannot arrive now.
    pub(crate) fn drop_reason(&self, from: BrokerId, to: BrokerId) -> Option<DropReason> {
        self.network.blocked(from, to).or((!self.broker(to).alive).then_some(DropReason::BrokerDown))
    }

    /// A broker handles a request; the response to send back.
    pub(crate) fn handle_request(&mut self, m: &Message) -> Option<Message> {
        match m {
            Message::Fetch(req) => self.handle_fetch(req).map(Message::FetchResponse),
            Message::OffsetsForLeaderEpoch(req) => Some(Message::OffsetsForLeaderEpochResponse(self.handle_offsets_for_leader_epoch(req))),
            Message::FetchResponse(resp) => {
                self.handle_fetch_response(resp.clone());
                None
            }
            Message::OffsetsForLeaderEpochResponse(resp) => {
                self.handle_offsets_for_leader_epoch_response(resp.clone());
                None
            }
        }
    }

    /// Delivers a message now, or drops it; returns the reply, if any.
    pub(crate) fn deliver(&mut self, m: Message) -> Option<Message> {
        if let Some(reason) = self.drop_reason(m.from(), m.to()) {
            self.emit(Event::Dropped { from: m.from(), to: m.to(), kind: m.name(), reason });
            return None;
        }
        match m {
            Message::FetchResponse(resp) => {
                self.handle_fetch_response(resp);
                None
            }
            other => self.handle_request(&other),
        }
    }

    // ----- time ------------------------------------------------------------------

    /// Runs the clock for `ms`: message arrivals, fetchers (timed mode),
    /// sessions, ISR expiration, HW checkpoints and produce timeouts, in time
    /// order; the checks run after each.
    pub(crate) fn advance(&mut self, ms: u64) {
        let (from_ms, to_ms) = (self.now_ms, self.now_ms + ms);
        self.advance_until_ms = to_ms;
        self.emit(Event::ClockAdvanced { from_ms, to_ms });
        self.end_action();
        self.advance_to(to_ms);
    }

    /// `advance`'s loop, from now to `to_ms`. It may pause (`apply_sliced`)
    /// where it checks the budgets: nothing of the moment it would go on
    /// with is done yet, so going on (`resume`) enters this loop again with
    /// the same state, as if it had never stopped.
    fn advance_to(&mut self, to_ms: u64) {
        loop {
            let other = self.next_due_ms_except_timers();
            let t = other.min(self.next_isr_check_ms).min(self.next_checkpoint_ms);
            if t > to_ms {
                break;
            }
            if self.over_budget() {
                return; // the clock stays where the work stopped
            }
            if self.accounting.pause_due() {
                self.accounting.paused = true;
                return;
            }
            self.now_ms = t;
            self.accounting.work += 1;
            if t < other {
                if !self.pass_quiet_timers(other.min(to_ms + 1)) {
                    return; // over a budget: the clock stays where the work stopped
                }
            } else {
                self.run_due();
            }
        }
        self.now_ms = to_ms;
    }

    /// Only the periodic timers are due now, and nothing else before `until`:
    /// while the timers due would do nothing (`timers_are_quiet`), running
    /// what is due would only move them, so only they move; the first timer
    /// that has work to do runs as usual (`run_due`). Each moment passed
    /// counts as work and is checked against the budgets as in `advance`'s
    /// loop; false if the run went past one (the clock stays at the moment
    /// before).
    fn pass_quiet_timers(&mut self, until: u64) -> bool {
        while self.timers_are_quiet() {
            if self.next_isr_check_ms <= self.now_ms {
                self.next_isr_check_ms += self.isr_check_interval_ms();
            }
            if self.next_checkpoint_ms <= self.now_ms {
                self.next_checkpoint_ms += self.config.hw_checkpoint_interval_ms;
            }
            let next = self.next_isr_check_ms.min(self.next_checkpoint_ms);
            if next >= until {
                return true;
            }
            if self.over_budget() {
                return false;
            }
            // Paused here, `advance_to` comes back to this moment: its timers
            // are the earliest due, before `until`, and still quiet.
            if self.accounting.pause_due() {
                self.accounting.paused = true;
                return false;
            }
            self.now_ms = next;
            self.accounting.work += 1;
        }
        self.run_due();
        true
    }

    /// Due work other than the leader's periodic ISR check and the HW
    /// checkpoints, or `u64::MAX`.
    fn next_due_ms_except_timers(&self) -> u64 {
        let due = self.next_event_ms().unwrap_or(u64::MAX);
        self.next_send_ms().map_or(due, |send| send.min(due))
    }

    /// The periodic timers due now would do nothing: the ISR check (if due)
    /// finds no leader with a follower out of sync, the HW checkpoint (if
    /// due) has no HW to write, and the producer has no finished request at
    /// the front of its deadline queue for `run_due` to drop. When nothing
    /// else is due, running what is due would only move the timers.
    fn timers_are_quiet(&self) -> bool {
        let now = self.now_ms;
        let (lag, at_log_end) = (self.config.replica_lag_time_max_ms, self.rules.has(Rule::CaughtUpAtLogEnd));
        let isr_check_quiet = self.next_isr_check_ms > now
            || self.partitions.iter().flat_map(|p| &p.replicas).all(|r| {
                !(self.broker(r.id).alive && r.believes_leader() && r.may_propose_isr()) || r.out_of_sync_replicas(now, lag, at_log_end).is_empty()
            });
        let checkpoint_quiet = self.next_checkpoint_ms > now
            || self.partitions.iter().flat_map(|p| &p.replicas).all(|r| !self.broker(r.id).alive || r.checkpointed_high_watermark == r.high_watermark);
        isr_check_quiet && checkpoint_quiet && self.producer.deadlines_start_pending()
    }

    /// ReplicaManager schedules "isr-expiration" every replica.lag.time.max.ms / 2.
    fn isr_check_interval_ms(&self) -> u64 {
        (self.config.replica_lag_time_max_ms / 2).max(1)
    }

    /// Due work that may change how the cluster answers a produce request:
    /// everything but the producer's retries, the HW checkpoints (which
    /// only write a HW to disk) and the ISR checks that would find every
    /// follower in sync (`next_isr_shrink_ms`).
    pub(crate) fn next_change_ms(&self) -> u64 {
        let shrink = self.next_isr_shrink_ms();
        self.next_event_ms().map_or(shrink, |t| t.min(shrink))
    }

    /// The first ISR check, from the next one on, that would find a
    /// follower out of sync if nothing else happened before it; `u64::MAX`
    /// if none would. The checks before it are quiet (`timers_are_quiet`):
    /// they move their timer and change nothing else.
    fn next_isr_shrink_ms(&self) -> u64 {
        let (lag, at_log_end) = (self.config.replica_lag_time_max_ms, self.rules.has(Rule::CaughtUpAtLogEnd));
        let Some(out) = self
            .partitions
            .iter()
            .flat_map(|p| &p.replicas)
            .filter(|r| self.broker(r.id).alive && r.believes_leader() && r.may_propose_isr())
            .filter_map(|r| r.out_of_sync_from_ms(lag, at_log_end))
            .min()
        else {
            return u64::MAX;
        };
        let (next, interval) = (self.next_isr_check_ms, self.isr_check_interval_ms());
        if out <= next {
            return next;
        }
        next.saturating_add((out - next).div_ceil(interval).saturating_mul(interval))
    }

    /// Due work other than the producer's retries and the periodic timers:
    /// session expiries, produce deadlines and, in timed mode, messages,
    /// the controller's AlterPartition answers, held fetches and fetchers.
    #[inline]
    fn next_event_ms(&self) -> Option<u64> {
        let later = |due: Option<u64>, t: Option<u64>| match (due, t) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut due = self.fencing_runs().then(|| self.controller.next_expiry_ms(self.config.broker_session_timeout_ms)).flatten();
        due = later(due, self.producer.next_deadline_ms());
        due = later(due, self.next_shutdown_ms());
        due = later(due, self.controller.rebalance.due_ms);
        due = later(due, self.quorum.as_deref().and_then(|q| q.next_due_ms()));
        // Fetchers, held fetches and messages in flight exist in timed mode only.
        if self.config.auto_fetch || !self.network.in_flight.is_empty() {
            let held = self.brokers.iter().filter(|b| !b.delayed_fetches.is_empty() && self.leads_any(b.id)).flat_map(|b| b.delayed_fetches.iter().map(|d| d.until_ms)).min();
            let answers = self.partitions.iter().flat_map(|p| &p.replicas).filter_map(|r| r.alter_partition.map(|a| a.answer_ms)).min();
            due = [held, answers, self.network.next_arrival_ms(), self.next_fetcher_due_ms()].into_iter().fold(due, later);
        }
        due
    }

    /// Everything due at `now_ms`, in a fixed order.
    pub(crate) fn run_due(&mut self) {
        let now = self.now_ms;
        if self.quorum.is_some() {
            self.run_quorum();
            self.end_action();
        }
        while self.network.next_arrival_ms().is_some_and(|t| t <= now) {
            let m = self.network.make_mut().pop_arrived(now).expect("a message has arrived");
            if let Some(reply) = self.deliver(m) {
                self.send(reply);
            }
            self.end_action();
        }
        self.answer_alter_partitions();
        for l in self.config.broker_ids() {
            if self.leads_any(l) && self.broker(l).delayed_fetches.iter().any(|d| d.until_ms <= now) {
                self.complete_delayed_fetches(l);
                self.end_action();
            }
        }
        self.run_fetchers();
        let expired = if self.fencing_runs() { self.controller.expired_sessions(now, self.config.broker_session_timeout_ms) } else { Default::default() };
        for b in expired {
            self.fence(b);
            self.end_action();
        }
        self.complete_due_shutdowns();
        if self.controller.rebalance.due_ms.is_some_and(|t| t <= now) {
            self.run_rebalance();
            self.end_action();
        }
        if self.next_isr_check_ms <= now {
            self.next_isr_check_ms += self.isr_check_interval_ms();
            self.expire_isr();
            self.end_action();
        }
        if self.next_checkpoint_ms <= now {
            self.next_checkpoint_ms += self.config.hw_checkpoint_interval_ms;
            self.checkpoint_high_watermarks();
            self.end_action();
        }
        self.expire_produces();
        self.send_produces();
    }

    pub(crate) fn send(&mut self, m: Message) {
        let arrives = self.network.make_mut().send(m.clone(), self.now_ms);
        self.emit_sent(&m, arrives - self.now_ms);
    }

    /// A message on its way: its line names the partition when it carries
    /// one partition of several (one of many names each in its text).
    pub(crate) fn emit_sent(&mut self, m: &Message, latency_ms: u64) {
        match m.only_partition() {
            Some(p) => self.emit_in(p, Event::sent(m, latency_ms)),
            None => self.emit(Event::sent(m, latency_ms)),
        }
    }

    /// Every `replica.high.watermark.checkpoint.interval.ms` each live broker
    /// writes its HW to disk (`ReplicaManager.checkpointHighWatermarks`).
    pub(crate) fn checkpoint_high_watermarks(&mut self) {
        for p in self.config.partition_ids() {
            for b in self.config.broker_ids() {
                let alive = self.broker(b).alive;
                let r = self.replica_mut(p, b);
                if alive && r.checkpointed_high_watermark != r.high_watermark {
                    r.checkpointed_high_watermark = r.high_watermark;
                    let event = Event::HighWatermarkCheckpointed { broker: b, high_watermark: r.high_watermark };
                    self.emit_in(p, event);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::Repeated;

    /// The same event again right after is counted on the first; another
    /// event in between starts a new line.
    #[test]
    fn identical_events_in_a_row_are_coalesced() {
        let mut sim = Simulation::new(Config::default());
        for t in 1..=3 {
            sim.now_ms = t;
            sim.emit(Event::FetcherPaused { broker: 2 });
        }
        sim.emit(Event::FetcherResumed { broker: 2 });
        sim.emit(Event::FetcherPaused { broker: 2 });
        let repeats: Vec<Option<Repeated>> = sim.accounting.out.iter().map(|e| e.repeated).collect();
        assert_eq!(repeats, vec![Some(Repeated { more: 2, until_ms: 3 }), None, None]);
        assert_eq!(sim.accounting.out[0].time_ms, 1);
        assert_eq!(sim.accounting.emitted, 5, "every event counts against the budgets");
    }
}
