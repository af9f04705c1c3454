//! Limits on what a scenario or a link may ask for. Each is checked when a
//! scenario is read and when a step is applied, and named in the error.

pub const MAX_BROKERS: u32 = 7;
/// Partitions of the topic.
pub const MAX_PARTITIONS: u32 = 12;
/// Characters of a rack's name.
pub const MAX_RACK_CHARS: usize = 32;
pub const MAX_STEPS: usize = 10_000;
/// Bytes of one produced value.
pub const MAX_VALUE_BYTES: usize = 1_024;
/// Simulated time of one whole scenario (one hour).
pub const MAX_SIMULATED_MS: u64 = 3_600_000;
/// Records produced by one scenario (bounds every log).
pub const MAX_LOG_RECORDS: usize = MAX_STEPS;
/// Size of a scenario file or of decoded link text.
pub const MAX_SCENARIO_BYTES: usize = 1 << 20;
/// Characters of a share link's scenario part.
pub const MAX_LINK_CHARS: usize = 200_000;
/// Any duration setting (lag time, timeouts, intervals, latency).
pub const MAX_DURATION_MS: u64 = MAX_SIMULATED_MS;
/// Timed mode: an idle follower fetches at most every 10 ms (the
/// leader's longest wait for data), which keeps a run's event count bounded.
pub const MIN_FETCH_WAIT_MS: u64 = 10;
/// The producer's `retries` is a Java int.
pub const MAX_RETRIES: u32 = i32::MAX as u32;
/// The producer's `max.in.flight.requests.per.connection` (Kafka bounds
/// it only by an int); with idempotence, `Protocol::idempotent_max_in_flight`.
pub const MAX_IN_FLIGHT: u32 = 100;
/// Seeds stay exact in JavaScript numbers.
pub const MAX_SEED: u64 = (1 << 53) - 1;
pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_DESCRIPTION_CHARS: usize = 4_000;
/// Records one fetch response carries (a stand-in for `replica.fetch.max.bytes`).
pub const MAX_FETCH_RECORDS: usize = 1_000;
/// Distinct states (exhaustive) or steps (random) of one explorer search
/// (`--max-states`). The visited set holds each state's 64-bit key in a
/// table of 8-byte slots that doubles when 3/4 full (`search::visited`):
/// up to this cap one table of 2^24 slots, 134 MB (12,582,912 keys fill it
/// to 3/4), and the levels 8 bytes a state. "3 brokers, 3.7, min ISR 2,
/// acks=all, 2 records, depth 10" has 10,782,949 states: the process
/// peaks at 242 MB searching it.
pub const MAX_EXPLORER_STATES: u64 = 12_000_000;

// Budgets on the work a valid run does (`Budget`): past one, the run
// stops at that step with a `budget_exceeded` event naming it.

// The page computes a run on its main thread: these are sized so that a
// run at a budget opens in the page's core within about 0.2 s on the
// development machine (docs/worst-cases-and-fuzzing.md), a twentieth of
// that natively.

/// Events one step may cause (each counted, repeats included).
pub const MAX_EVENTS_PER_STEP: u64 = 50_000;
/// Events a whole run may cause: bounds the trace a timeline keeps (an
/// hour of 3 brokers in timed mode with Kafka's defaults is about 45,000,
/// an hour of 7 about 170,000: that one stops after about 20 minutes).
pub const MAX_EVENTS_PER_RUN: u64 = 60_000;
/// Messages in flight at once (timed mode).
pub const MAX_MESSAGES_IN_FLIGHT: u64 = 10_000;
/// Work that leaves no event, counted per step and per run: each moment
/// the clock stops at (a timer, an arrival, a retry) and each producer
/// retry handled there, traced or not (an identical refusal is not
/// traced again). A timer that fires every millisecond (a 2 ms lag time)
/// reaches it after about 400 s of simulated time.
pub const MAX_WORK_PER_STEP: u64 = 400_000;
pub const MAX_WORK_PER_RUN: u64 = 800_000;
/// Bytes (estimated) of the states a timeline keeps to seek with: past
/// it, every other snapshot goes and a seek replays more steps.
pub const MAX_TIMELINE_SNAPSHOT_BYTES: usize = 32 << 20;
