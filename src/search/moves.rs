//! The explorer's moves: every step a search may take from a state, as
//! small numbers (an index into the steps built once for the search).

use crate::model::config::{limits, BrokerId, Config, PartitionId};
use crate::model::rules::Rule;
use crate::model::simulation::Simulation;
use crate::run::scenario::{Crash, Elect, Heal, Nodes, Produce, Step};
use crate::search::spec::Search;
use crate::search::symmetry::Symmetries;
use arrayvec::ArrayVec;
use std::sync::Arc;

/// Every step a search may take, built once, so that listing a state's
/// moves allocates nothing: a move is an index into `steps`.
pub(crate) struct Moves {
    steps: Vec<Step>,
    /// The renamings that map the topic onto itself, for the state key
    /// (none unless `search.symmetry`): the moves of a renamed state are
    /// the renamed moves.
    pub(crate) symmetries: Symmetries,
    brokers: usize,
    partitions: usize,
    /// Where each kind of step starts in `steps` (one per broker, or per
    /// ordered pair of brokers for cuts, or per partition for elections;
    /// produce steps are last, one per record and partition).
    fetch: usize,
    crash: usize,
    power_loss: usize,
    restart: usize,
    elect: usize,
    elect_preferred: usize,
    advance: usize,
    cut: usize,
    cut_controller: usize,
    heal: usize,
    shutdown: usize,
    begin_shutdown: usize,
    consume: usize,
    produce: usize,
    /// The controller quorum's faults: one per controller, and a resignation.
    controllers: usize,
    crash_controller: usize,
    restart_controller: usize,
    isolate_controller: usize,
    heal_controller: usize,
    resign: usize,
    /// A rack's faults: each rack's brokers (indices, in id order), and
    /// one crash, one power loss and one isolation per rack.
    racks: Vec<Vec<usize>>,
    crash_rack: usize,
    power_loss_rack: usize,
    isolate_rack: usize,
}

pub(crate) type Move = u16;

/// At most 7 moves per broker, 3 per rack, 2 per partition, 2 per
/// controller and 6 more (see `Moves::list`: a fetch, a crash and a power
/// loss or a restart, a cut from a leader, a cut to the controller, a
/// controlled shutdown and its first half; a crash, a power loss and an
/// isolation per rack (there are at most as many racks as brokers); a
/// produce and an election per partition; a crash or a restart and an
/// isolation or a heal per controller; a preferred election, two advances,
/// a heal, a consume, a resignation).
pub(crate) const MOST_MOVES: usize = 10 * limits::MAX_BROKERS as usize + 2 * limits::MAX_PARTITIONS as usize + 2 * MAX_CONTROLLERS + 6;

/// The most voters a quorum has (`config.controllers`).
const MAX_CONTROLLERS: usize = 5;

pub(crate) type MoveList = ArrayVec<Move, MOST_MOVES>;

impl Moves {
    /// `records`: produce steps for records 1 to `records` (as far as
    /// `max_produces` allows): a state reached by the search has produced
    /// at most what its prefix did plus one per step.
    ///
    /// A topic of several partitions has the same moves for every
    /// partition: a record to each (`"partition": p`), an election of each,
    /// and a preferred election of all; one partition's moves are the
    /// one-partition explorer's (a record without a partition, `elect` of
    /// partition 0, no preferred election: its one replica list has nothing
    /// to rebalance that `elect` does not move).
    pub(crate) fn new(config: &Config, search: &Search, records: usize) -> Moves {
        let ids: Vec<BrokerId> = config.broker_ids().collect();
        let per_broker = |f: &dyn Fn(BrokerId) -> Step| ids.iter().map(|&b| f(b)).collect::<Vec<Step>>();
        let records = records.min(search.max_produces as usize);
        let partitions = config.partitions as usize;
        let topic = partitions > 1;
        let produce = |k: usize, p: PartitionId| {
            Step::Produce(Produce { value: format!("m{k}"), acks: search.acks, to: None, partition: topic.then_some(p), key: None })
        };
        let controller_ids: Vec<u32> = config.controller_ids().collect();
        let per_controller = |f: &dyn Fn(u32) -> Step| controller_ids.iter().map(|&c| f(c)).collect::<Vec<Step>>();
        // The racks in the order of their first broker (none unless asked).
        let mut names: Vec<Arc<str>> = vec![];
        if search.rack_faults {
            for b in config.broker_ids() {
                if let Some(r) = config.rack(b).filter(|r| !names.iter().any(|n| &**n == *r)) {
                    names.push(r.into());
                }
            }
        }
        let racks = names.iter().map(|r| ids.iter().enumerate().filter(|&(_, &b)| config.rack(b) == Some(&**r)).map(|(i, _)| i).collect()).collect();
        let per_rack = |f: &dyn Fn(Nodes) -> Step| names.iter().map(|r| f(Nodes::Rack(r.clone()))).collect::<Vec<Step>>();
        let kinds: [Vec<Step>; 22] = [
            per_broker(&Step::fetch),
            per_broker(&|b| Step::Crash(Crash::broker(b, 0))),
            per_broker(&|b| Step::Crash(Crash::broker(b, 1))),
            per_broker(&|b| Step::Restart(Nodes::Broker(b))),
            config.partition_ids().map(|p| Step::Elect(Elect { partition: p, broker: None })).collect(),
            if topic { vec![Step::ElectPreferred(None)] } else { vec![] },
            advances(config).into_iter().map(Step::AdvanceMs).collect(),
            ids.iter().flat_map(|&a| ids.iter().map(move |&b| Step::Cut([a, b]))).collect(),
            per_broker(&Step::CutController),
            vec![Step::Heal(Heal::All)],
            per_broker(&Step::ControlledShutdown),
            per_broker(&Step::BeginControlledShutdown),
            vec![Step::Consume(None)],
            (1..=records).flat_map(|k| config.partition_ids().map(move |p| (k, p))).map(|(k, p)| produce(k, p)).collect(),
            per_controller(&|c| Step::Crash(Crash { nodes: Nodes::Controller(c), lose_unflushed: 0 })),
            per_controller(&|c| Step::Restart(Nodes::Controller(c))),
            per_controller(&|c| Step::Isolate(Nodes::Controller(c))),
            per_controller(&|c| Step::Heal(Heal::Controller(c))),
            if controller_ids.is_empty() { vec![] } else { vec![Step::Resign(())] },
            per_rack(&|r| Step::Crash(Crash { nodes: r, lose_unflushed: 0 })),
            per_rack(&|r| Step::Crash(Crash { nodes: r, lose_unflushed: 1 })),
            per_rack(&Step::Isolate),
        ];
        let mut starts = [0; 22];
        let mut steps = vec![];
        for (start, kind) in starts.iter_mut().zip(kinds) {
            *start = steps.len();
            steps.extend(kind);
        }
        let [fetch, crash, power_loss, restart, elect, elect_preferred, advance, cut, cut_controller, heal, shutdown, begin_shutdown, consume, produce, crash_controller, restart_controller, isolate_controller, heal_controller, resign, crash_rack, power_loss_rack, isolate_rack] =
            starts;
        assert!(steps.len() <= Move::MAX as usize, "too many produce steps for a move index");
        let symmetries = symmetries(config, search);
        Moves {
            steps,
            symmetries,
            brokers: ids.len(),
            partitions,
            fetch,
            crash,
            power_loss,
            restart,
            elect,
            elect_preferred,
            advance,
            cut,
            cut_controller,
            heal,
            shutdown,
            begin_shutdown,
            consume,
            produce,
            controllers: controller_ids.len(),
            crash_controller,
            restart_controller,
            isolate_controller,
            heal_controller,
            resign,
            racks,
            crash_rack,
            power_loss_rack,
            isolate_rack,
        }
    }

    /// Whether `m` is one of this search's moves.
    #[cfg_attr(not(all(target_arch = "wasm32", feature = "workers")), allow(dead_code))]
    pub(crate) fn has(&self, m: Move) -> bool {
        (m as usize) < self.steps.len()
    }

    pub(crate) fn step(&self, m: Move) -> &Step {
        &self.steps[m as usize]
    }



    /// The moves of a state, in a fixed order (the random walks pick by
    /// position). Only a clock step can be invalid (past the scenario's
    /// hour); the others are valid by construction.
    pub(crate) fn list(&self, sim: &Simulation, search: &Search, out: &mut MoveList) {
        out.clear();
        let mut add = |at: usize, i: usize| out.push((at + i) as Move);
        let produced = sim.producer.requests.len();
        let led = |p: usize| sim.controller.partitions[p].leader.is_some();
        if produced < search.max_produces as usize {
            for p in (0..self.partitions).filter(|&p| led(p)) {
                add(self.produce, produced * self.partitions + p);
            }
        }
        for (i, b) in sim.brokers.iter().enumerate() {
            if sim.config.partition_ids().any(|p| sim.following(p, b.id).is_some()) {
                add(self.fetch, i);
            }
        }
        for (i, b) in sim.brokers.iter().enumerate() {
            if b.alive {
                add(self.crash, i);
                if search.power_loss && sim.partitions.iter().any(|p| p.replicas[i].log_end_offset() > 0) {
                    add(self.power_loss, i);
                }
            } else {
                add(self.restart, i);
            }
        }
        for p in (0..self.partitions).filter(|&p| led(p)) {
            add(self.elect, p);
        }
        if self.partitions > 1 && sim.preferred_election_moves_any() {
            add(self.elect_preferred, 0);
        }
        // Only what `highwater run` accepts after the time already spent: an
        // advance past the scenario's hour is no move (`Step::validate`'s
        // check of a clock step, without building the step).
        for (i, ms) in advances(&sim.config).into_iter().enumerate() {
            if sim.now_ms.saturating_add(ms) <= limits::MAX_SIMULATED_MS {
                add(self.advance, i);
            }
        }
        if search.network_faults {
            // A cut from a broker the controller has leading some partition.
            for l in sim.config.broker_ids().filter(|&l| sim.controller.partitions.iter().any(|r| r.leader == Some(l))) {
                for f in sim.config.broker_ids().filter(|&f| f != l && !sim.network.cuts.contains(&(l, f))) {
                    add(self.cut, (l as usize - 1) * self.brokers + f as usize - 1);
                }
            }
            // KIP-841's cases: a broker that still fetches but has lost the
            // controller (its session expires, it is fenced).
            for (i, b) in sim.brokers.iter().enumerate() {
                if b.alive && sim.reaches_controller(b.id) {
                    add(self.cut_controller, i);
                }
            }
        }
        // A rack's faults (a zone lost, or cut off): its running brokers
        // crash at once, one after the other in id order; or every link
        // between it and the other racks is cut both ways, and it loses
        // the controller (`Simulation::crash`, `isolate`).
        for (i, members) in self.racks.iter().enumerate() {
            let running = |b: usize| sim.brokers[b].alive || sim.brokers[b].starting;
            if members.iter().any(|&b| running(b)) {
                add(self.crash_rack, i);
                if search.power_loss && members.iter().any(|&b| running(b) && sim.partitions.iter().any(|p| p.replicas[b].log_end_offset() > 0)) {
                    add(self.power_loss_rack, i);
                }
            }
            let id = |b: usize| b as BrokerId + 1;
            let outside = (0..self.brokers).filter(|b| !members.contains(b));
            let cut_off = members.iter().all(|&b| sim.network.controller_cut[b])
                && outside.flat_map(|o| members.iter().flat_map(move |&m| [(id(m), id(o)), (id(o), id(m))])).all(|l| sim.network.cuts.contains(&l));
            if !cut_off {
                add(self.isolate_rack, i);
            }
        }
        if (search.network_faults || !self.racks.is_empty()) && (!sim.network.cuts.is_empty() || sim.network.controller_cut.iter().any(|&c| c)) {
            add(self.heal, 0);
        }
        // The consumer reads from a leader that is up (from one that is down
        // it only gets an error, which changes nothing).
        if search.consume && sim.controller.partitions.iter().any(|r| r.leader.is_some_and(|l| sim.broker(l).alive)) {
            add(self.consume, 0);
        }
        // The controller quorum's faults: a crash or a restart, an isolation
        // or a heal of each controller, and the leader's resignation.
        if let Some(q) = sim.quorum.as_deref() {
            for i in 0..self.controllers {
                let v = &q.voters[i];
                add(if v.alive { self.crash_controller } else { self.restart_controller }, i);
                add(if q.isolated[i] { self.heal_controller } else { self.isolate_controller }, i);
            }
            if q.leader().is_some() {
                add(self.resign, 0);
            }
        }
        if search.shutdowns {
            // A clean stop, and (KRaft) its first half alone: the broker
            // asks, and keeps fetching until its next heartbeat (KIP-841);
            // in the ZooKeeper era the request is the whole stop.
            let kraft = sim.rules.has(Rule::KraftController);
            for (i, b) in sim.brokers.iter().enumerate() {
                if b.alive && b.shutdown_at_ms.is_none() && sim.reaches_controller(b.id) {
                    add(self.shutdown, i);
                    if kraft {
                        add(self.begin_shutdown, i);
                    }
                }
            }
        }
    }
}

/// The renamings a search's state key takes (`Search::symmetry`).
pub(crate) fn symmetries(config: &Config, search: &Search) -> Symmetries {
    // A renaming of brokers leaves the controllers as they are, and the
    // metadata log names brokers: no symmetry with a quorum. A rack's faults
    // act on its brokers in id order: no renaming of brokers with them
    // (see `symmetry`).
    match (search.symmetry && config.controllers == 0, search.rack_faults) {
        (false, _) => Symmetries::none(),
        (true, false) => Symmetries::of(config),
        (true, true) => Symmetries::of(config).keeping_brokers(),
    }
}

/// The clock steps: past the session timeout, and past the lag time whatever
/// the phase of the lag/2 check.
pub(crate) fn advances(config: &Config) -> [u64; 2] {
    [config.broker_session_timeout_ms, config.replica_lag_time_max_ms * 3 / 2]
}

