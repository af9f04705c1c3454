//! The run's accounting, kept apart from the partition's state: the events
//! of the step being applied, whether the whole trace is kept or only what
//! the safety checks read (the explorer's mode), and the events and work
//! counted against the run's budgets (`config::limits`). Nothing here is
//! Kafka's: two runs in the same state of the partition may differ only
//! here.

use crate::model::config::{Budget, Budgets, PartitionId};
use crate::model::event::{Event, Repeated, Traced};
use crate::model::invariants::{Checker, Touch};

#[derive(Debug, PartialEq, Eq)]
pub struct Accounting {
    /// Events of the step being applied; `action_start` marks the current action.
    pub(crate) out: Vec<Traced>,
    pub(crate) action_start: usize,
    /// False in the explorer's mode (`Simulation::keep_checked_events_only`):
    /// `out` then keeps only the events the safety checks read.
    pub(crate) trace: bool,
    /// That mode: the last event emitted was not kept (so the next one is no
    /// repeat of the last one kept).
    pub(crate) dropped_last: bool,
    /// The work this run may do.
    pub budgets: Budgets,
    /// Events emitted so far in the run, repeats included, and when the
    /// current step began and the checks last ran (in the same count).
    pub(crate) emitted: u64,
    pub(crate) emitted_at_step_start: u64,
    pub(crate) checked_at: u64,
    /// The partitions an event since the last action ended came with a
    /// change the checks look at (`Checker::touches`). Every one at first:
    /// the first action with events is checked.
    pub(crate) unchecked: PartitionMask,
    /// Work that leaves no event (`limits::MAX_WORK_PER_STEP`) so far in the
    /// run, and when the current step began.
    pub(crate) work: u64,
    pub(crate) work_at_step_start: u64,
    /// The budget this run went past: it stopped, and runs no more steps.
    pub stopped: Option<Budget>,
    /// A clock step pauses once events and work together reach this count
    /// (`Simulation::apply_sliced`), so that a long one can be run in slices.
    pub(crate) pause_at: Option<u64>,
    /// The clock step paused there: `Simulation::resume` goes on with it.
    pub(crate) paused: bool,
}

crate::clone_in_place!(Accounting { out, action_start, trace, dropped_last, budgets, emitted, emitted_at_step_start, checked_at, unchecked, work, work_at_step_start, stopped, pause_at, paused });

impl Accounting {
    pub(crate) fn new() -> Accounting {
        Accounting {
            out: vec![],
            action_start: 0,
            trace: true,
            dropped_last: false,
            budgets: Budgets::default(),
            emitted: 0,
            emitted_at_step_start: 0,
            checked_at: 0,
            unchecked: PartitionMask::ALL,
            work: 0,
            work_at_step_start: 0,
            stopped: None,
            pause_at: None,
            paused: false,
        }
    }

    /// A step begins: its events start empty, its budgets count from here.
    #[inline]
    pub(crate) fn start_step(&mut self) {
        self.out.clear();
        self.action_start = 0;
        self.emitted_at_step_start = self.emitted;
        self.work_at_step_start = self.work;
    }

    /// Adds an event to the step's trace; the same event again right after
    /// is counted on the first (`Repeated`), not added.
    #[inline]
    pub(crate) fn emit(&mut self, step: u64, now_ms: u64, partition: Option<PartitionId>, event: Event) {
        self.emitted += 1;
        if Checker::touches(&event) == Touch::Checked {
            self.unchecked.add(partition);
        }
        if !self.trace && !Checker::reads(&event) {
            self.dropped_last = true;
            return;
        }
        // A kept event differs from a dropped one, so it can only repeat the
        // last one kept if nothing was dropped since: as in a full trace.
        let repeat_possible = !std::mem::take(&mut self.dropped_last);
        if let Some(last) = self.out.last_mut().filter(|last| repeat_possible && last.event == event && last.partition == partition) {
            let more = last.repeated.map_or(0, |r| r.more) + 1;
            last.repeated = Some(Repeated { more, until_ms: now_ms });
            return;
        }
        self.out.push(Traced { step, time_ms: now_ms, partition, event, repeated: None });
    }

    /// An event the explorer's mode does not build: it counts all the same.
    pub(crate) fn count_unbuilt(&mut self, touch: Touch) {
        self.emitted += 1;
        self.dropped_last = true;
        if touch == Touch::Checked {
            self.unchecked.add(None);
        }
    }

    /// A slice of a clock step is used up: it pauses here.
    #[inline]
    pub(crate) fn pause_due(&self) -> bool {
        self.pause_at.is_some_and(|at| self.emitted + self.work >= at)
    }

    /// Events since the checks last ran.
    #[inline]
    pub(crate) fn unchecked_events(&self) -> bool {
        self.emitted != self.checked_at
    }

    /// The events of the action being checked.
    pub(crate) fn action_events(&self) -> &[Traced] {
        &self.out[self.action_start..]
    }

    /// The checks have seen everything emitted so far: the next action starts here.
    #[inline]
    pub(crate) fn action_checked(&mut self) {
        self.action_start = self.out.len();
        self.checked_at = self.emitted;
    }

    /// The first budget the run has gone past, with `in_flight` messages on the wire.
    pub(crate) fn budget_passed(&self, in_flight: u64) -> Option<Budget> {
        if self.emitted - self.emitted_at_step_start > self.budgets.events_per_step {
            Some(Budget::EventsPerStep)
        } else if self.emitted > self.budgets.events_per_run {
            Some(Budget::EventsPerRun)
        } else if in_flight > self.budgets.messages_in_flight {
            Some(Budget::MessagesInFlight)
        } else if self.work - self.work_at_step_start > self.budgets.work_per_step {
            Some(Budget::WorkPerStep)
        } else if self.work > self.budgets.work_per_run {
            Some(Budget::WorkPerRun)
        } else {
            None
        }
    }
}

/// The partitions whose checked state may have changed since the checks last
/// ran: one bit per partition (`MAX_PARTITIONS` is 12); a change of no
/// partition (a broker's restart) is a change of every one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartitionMask(u16);

impl PartitionMask {
    pub const ALL: PartitionMask = PartitionMask(u16::MAX);

    pub fn add(&mut self, partition: Option<PartitionId>) {
        self.0 |= partition.map_or(u16::MAX, |p| 1 << p);
    }

    pub fn has(self, p: PartitionId) -> bool {
        self.0 & (1 << p) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}
