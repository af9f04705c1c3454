//! A run with its history: the steps, every event, and periodic snapshots,
//! so that any step can be revisited (seek) without keeping every state.

use crate::model::config::{limits, Budgets};
use crate::model::event::Traced;
use crate::run::scenario::{Scenario, ScenarioError, Step};
use crate::model::simulation::Simulation;

/// At most this many snapshots are kept, and at most
/// `limits::MAX_TIMELINE_SNAPSHOT_BYTES` of them; when either is reached,
/// every other one goes and the spacing doubles, so memory stays bounded and
/// a seek replays at most `len / snapshots * 2` steps.
const MAX_SNAPSHOTS: usize = 32;

#[derive(Clone, Debug)]
pub struct Timeline {
    scenario: Scenario,
    events: Vec<Traced>,
    /// `step_ends[i]`: the number of events after step `i + 1`.
    step_ends: Vec<usize>,
    /// `snapshots[k]`: the state after `k * every` steps.
    snapshots: Vec<Simulation>,
    every: usize,
    position: usize,
    current: Simulation,
}

impl Timeline {
    /// Runs a (validated) scenario to its end, or to the step where it went
    /// past a budget (`stopped()`): the steps after that one are left out.
    pub fn new(scenario: &Scenario) -> Result<Timeline, ScenarioError> {
        Timeline::with_budgets(scenario, Budgets::default())
    }

    /// `new` under other budgets (tests that need to reach one quickly).
    pub fn with_budgets(scenario: &Scenario, budgets: Budgets) -> Result<Timeline, ScenarioError> {
        let mut build = Timeline::build(scenario, budgets)?;
        while !build.run(u64::MAX)? {}
        Ok(build.finish())
    }

    /// `with_budgets`, to be run in slices (`TimelineBuild::run`).
    pub fn build(scenario: &Scenario, budgets: Budgets) -> Result<TimelineBuild, ScenarioError> {
        scenario.validate()?;
        let mut start = Simulation::new(scenario.config.clone());
        start.accounting.budgets = budgets;
        let timeline = Timeline {
            scenario: Scenario { steps: vec![], ..scenario.clone() },
            events: vec![],
            step_ends: vec![],
            snapshots: vec![start.clone()],
            every: 8,
            position: 0,
            current: start,
        };
        Ok(TimelineBuild { timeline, steps: scenario.steps.clone(), next: 0, paused: false })
    }

    /// Why the run stopped at the current position, if it went past a
    /// budget (the `budget_exceeded` event's words).
    pub fn stopped(&self) -> Option<String> {
        self.current.stopped().map(|b| crate::model::event::budget_message(b, self.current.budgets().limit(b)))
    }

    /// Applies a step at the current position; steps after it (if the user
    /// went back in time) are discarded. The error says why a step is not
    /// allowed at all (a limit or a broker that does not exist); a step that
    /// is merely impossible now is applied and comes back as a rejected event.
    pub fn apply(&mut self, step: Step) -> Result<&[Traced], String> {
        self.check_step(&step)?;
        self.truncate_future();
        let events = self.current.apply(&step);
        Ok(self.record(step, events))
    }

    /// Why `step` cannot be applied at the current position, if it cannot.
    fn check_step(&self, step: &Step) -> Result<(), String> {
        if self.position >= limits::MAX_STEPS {
            return Err(format!("steps: the limit of {} steps is reached", limits::MAX_STEPS));
        }
        if let Some(budget) = self.current.stopped() {
            return Err(format!(
                "the run stopped at step {}: {} (limit {}); go back to an earlier step to change the run",
                self.position,
                budget.describe(self.current.budgets().limit(budget)),
                budget.limit_name()
            ));
        }
        step.validate(&self.scenario.config, self.current.now_ms)
    }

    /// A step just applied at the current position, with its events.
    fn record(&mut self, step: Step, events: Vec<Traced>) -> &[Traced] {
        let from = self.events.len();
        self.events.extend(events);
        self.step_ends.push(self.events.len());
        self.scenario.steps.push(step);
        self.position += 1;
        if self.position % self.every == 0 {
            self.snapshots.push(self.current.clone());
            while self.snapshots.len() > 1
                && (self.snapshots.len() > MAX_SNAPSHOTS || self.snapshot_bytes() > self.current.budgets().timeline_snapshot_bytes)
            {
                let kept: Vec<Simulation> = self.snapshots.drain(..).step_by(2).collect();
                self.snapshots = kept;
                self.every *= 2;
            }
        }
        &self.events[from..]
    }

    /// The estimated memory of the snapshots kept.
    pub fn snapshot_bytes(&self) -> usize {
        self.snapshots.iter().map(Simulation::approx_bytes).sum()
    }

    /// Snapshots kept, and the steps between two of them.
    pub fn snapshot_spacing(&self) -> (usize, usize) {
        (self.snapshots.len(), self.every)
    }

    fn truncate_future(&mut self) {
        let p = self.position;
        if p == self.scenario.steps.len() {
            return;
        }
        self.scenario.steps.truncate(p);
        self.step_ends.truncate(p);
        self.events.truncate(if p == 0 { 0 } else { self.step_ends[p - 1] });
        self.snapshots.truncate(p / self.every + 1);
    }

    /// Moves to the state after `position` steps (time travel).
    pub fn seek(&mut self, position: usize) -> Result<(), String> {
        let len = self.scenario.steps.len();
        if position > len {
            return Err(format!("seek: position {position} is past the last step ({len})"));
        }
        if position == self.position {
            return Ok(());
        }
        let k = (position / self.every).min(self.snapshots.len() - 1);
        let mut sim = self.snapshots[k].clone();
        for step in &self.scenario.steps[k * self.every..position] {
            sim.apply(step);
        }
        self.current = sim;
        self.position = position;
        Ok(())
    }

    pub fn position(&self) -> usize {
        self.position
    }

    /// Steps in the timeline (including any after the position).
    pub fn len(&self) -> usize {
        self.scenario.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scenario.steps.is_empty()
    }

    pub fn current(&self) -> &Simulation {
        &self.current
    }

    /// The state before the first step.
    pub fn start(&self) -> &Simulation {
        &self.snapshots[0]
    }

    /// The events up to the current position.
    pub fn events(&self) -> &[Traced] {
        match self.position {
            0 => &[],
            p => &self.events[..self.step_ends[p - 1]],
        }
    }

    /// Every event of the timeline, whatever the position.
    pub fn all_events(&self) -> &[Traced] {
        &self.events
    }

    /// Events of one step (1-based), whatever the position.
    pub fn step_events(&self, step: usize) -> &[Traced] {
        if step == 0 || step > self.step_ends.len() {
            return &[];
        }
        let start = if step == 1 { 0 } else { self.step_ends[step - 2] };
        &self.events[start..self.step_ends[step - 1]]
    }

    /// `step_ends()[i]`: the number of events after step `i + 1` (every
    /// step of the timeline, whatever the position).
    pub fn step_ends(&self) -> &[usize] {
        &self.step_ends
    }

    pub fn trace_lines(&self) -> Vec<String> {
        self.events().iter().map(|e| e.to_string()).collect()
    }

    /// The scenario with every step of the timeline.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
}

/// A scenario's timeline being built (`Timeline::build`): each `run` applies
/// steps for a slice of work, a long clock step in slices of its own
/// (`Simulation::apply_sliced`), so that a caller with other work to do (the
/// page's main thread) can stop between slices. The timeline is the same as
/// `Timeline::new` makes.
#[derive(Debug)]
pub struct TimelineBuild {
    timeline: Timeline,
    steps: Vec<Step>,
    next: usize,
    /// `steps[next]` is applied and paused.
    paused: bool,
}

impl TimelineBuild {
    /// Runs on for about `slice` events and units of work, finishing the
    /// step under way or pausing it; true once every step is applied (or
    /// the run stopped at a budget). An error names the step, as
    /// `Timeline::new`'s does.
    pub fn run(&mut self, slice: u64) -> Result<bool, ScenarioError> {
        let slice = slice.max(1);
        let start = self.timeline.current.work_done();
        loop {
            let used = self.timeline.current.work_done() - start;
            if used >= slice && self.next < self.steps.len() {
                return Ok(false);
            }
            let left = slice - used.min(slice);
            let t = &mut self.timeline;
            if self.paused {
                if t.current.resume(left.max(1)).is_some() {
                    return Ok(false);
                }
                self.paused = false;
            } else {
                if self.next == self.steps.len() || t.current.stopped().is_some() {
                    self.next = self.steps.len();
                    return Ok(true);
                }
                let step = &self.steps[self.next];
                let i = self.next;
                t.check_step(step).map_err(|e| ScenarioError(format!("steps[{i}].{e}")))?;
                t.truncate_future();
                if t.current.apply_sliced(step, left.max(1)).is_some() {
                    self.paused = true;
                    return Ok(false);
                }
            }
            let events = t.current.take_events();
            t.record(self.steps[self.next].clone(), events);
            self.next += 1;
        }
    }

    /// Steps applied so far, and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.steps.len())
    }

    /// Every step is applied, or the run stopped at a budget.
    pub fn is_done(&self) -> bool {
        !self.paused && (self.next == self.steps.len() || self.timeline.current.stopped().is_some())
    }

    /// The timeline built; call once `run` has said it is done.
    pub fn finish(self) -> Timeline {
        assert!(self.is_done(), "the build is not done");
        self.timeline
    }
}
