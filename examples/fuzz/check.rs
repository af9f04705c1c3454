//! The fuzzer's checks on one input, shared with tests/fuzz_seeds.rs so that
//! a saved finding is judged the same way in both places. An input is a
//! scenario (JSON text) or a share link; it must be refused with an error,
//! or run to its end or to a step where it stopped at a budget, the same way
//! twice, without a panic, holding no more events than the budgets allow.

use highwater::run::scenario::Elect;
use highwater::model::config::limits;
use highwater::run::scenario::{Heal, Produce};
use highwater::{link, Event, Scenario, Simulation, Step, Timeline};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Scenario,
    Link,
    /// A tour file (`"highwater_tour": 1`): read and checked as `highwater tour check` does.
    Tour,
    /// A tour link (what follows `#t=`).
    TourLink,
}

impl Kind {
    /// The seed file extension.
    pub fn ext(self) -> &'static str {
        match self {
            Kind::Scenario | Kind::Tour => "json",
            Kind::Link => "link",
            Kind::TourLink => "tlink",
        }
    }

    pub fn of_path(path: &std::path::Path) -> Option<Kind> {
        match path.extension()?.to_str()? {
            "json" => Some(Kind::Scenario),
            "link" => Some(Kind::Link),
            "tlink" => Some(Kind::TourLink),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Input {
    pub kind: Kind,
    pub text: String,
}

impl Input {
    /// A seed file: its extension says how it is read.
    /// A `.json` file that says `"highwater_tour"` is a tour file.
    pub fn read(path: &std::path::Path) -> Option<Input> {
        let mut kind = Kind::of_path(path)?;
        let text = std::fs::read_to_string(path).ok()?;
        if kind == Kind::Scenario && text.contains("\"highwater_tour\"") {
            kind = Kind::Tour;
        }
        Some(Input { kind, text })
    }

    pub fn parse(&self) -> Result<Scenario, String> {
        match self.kind {
            Kind::Scenario => Scenario::from_json(&self.text).map_err(|e| e.0),
            Kind::Link => link::decode(&self.text).map_err(|e| e.0),
            Kind::Tour | Kind::TourLink => Err("a tour, not a scenario".into()),
        }
    }

    pub fn is_tour(&self) -> bool {
        matches!(self.kind, Kind::Tour | Kind::TourLink)
    }
}

/// How a valid input's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not a valid scenario or link: the error.
    Refused(String),
    Finished,
    /// Stopped at a budget: the limit's name.
    Stopped(&'static str),
}

impl Outcome {
    pub fn describe(&self) -> String {
        match self {
            Outcome::Refused(e) => format!("refused: {}", e.chars().take(100).collect::<String>()),
            Outcome::Finished => "finished".into(),
            Outcome::Stopped(limit) => format!("stopped at {limit}"),
        }
    }
}

/// What one input did, as seen on its faster run.
#[derive(Clone, Debug)]
pub struct Report {
    pub outcome: Outcome,
    /// Steps the scenario has, and steps the timeline ran.
    pub steps: usize,
    pub steps_run: usize,
    /// Trace lines the timeline held after loading.
    pub events: usize,
    /// The slowest single operation a page would do (load, one seek, one
    /// apply), on the faster of the two runs: its CPU time (what the checks
    /// judge: on a busy machine wall time includes waiting for a core), its
    /// wall time, and its name.
    pub cpu: Duration,
    pub time: Duration,
    pub slowest_op: &'static str,
    /// Parsing and loading (`Timeline::new`), on the faster run.
    pub load: Duration,
    /// Event names seen (the fuzzer keeps inputs that show a new one).
    pub features: Vec<String>,
}

/// Why an input failed the checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    Panic(String),
    Nondeterministic(String),
    Unbounded(String),
    /// A check on the timeline's answers (seek, apply) did not hold.
    Inconsistent(String),
}

impl Failure {
    /// A short tag for file names and summaries.
    pub fn tag(&self) -> &'static str {
        match self {
            Failure::Panic(_) => "panic",
            Failure::Nondeterministic(_) => "nondeterministic",
            Failure::Unbounded(_) => "unbounded",
            Failure::Inconsistent(_) => "inconsistent",
        }
    }

    pub fn detail(&self) -> &str {
        match self {
            Failure::Panic(s) | Failure::Nondeterministic(s) | Failure::Unbounded(s) | Failure::Inconsistent(s) => s,
        }
    }
}

/// Events a timeline may hold: a whole run's budget plus the step that went
/// past it (a stored line can stand for many repeated events, never fewer).
pub const MAX_EVENTS_HELD: usize = (limits::MAX_EVENTS_PER_RUN + limits::MAX_EVENTS_PER_STEP) as usize;

/// One pass over an input; everything that should come out the same twice.
struct Pass {
    outcome: Outcome,
    slowest: Slowest,
    load: Duration,
    digest: u64,
    steps: usize,
    steps_run: usize,
    events: usize,
    features: Vec<String>,
}

/// Runs the input twice (each time: parse, load, seek, apply) and checks it.
pub fn check(input: &Input) -> Result<Report, Failure> {
    check_within(input, None)
}

/// `check`, giving up as soon as one operation takes longer than `limit`
/// (the fuzzer's way past an input that would run for minutes).
pub fn check_within(input: &Input, limit: Option<Duration>) -> Result<Report, Failure> {
    let first = run(input, limit)?;
    let second = run(input, limit)?;
    if first.digest != second.digest || first.outcome != second.outcome {
        return Err(Failure::Nondeterministic(format!(
            "two runs differ: {} / {}, digest {:016x} / {:016x}",
            first.outcome.describe(),
            second.outcome.describe(),
            first.digest,
            second.digest
        )));
    }
    let fast = if first.slowest.cpu <= second.slowest.cpu { &first } else { &second };
    Ok(Report {
        outcome: first.outcome.clone(),
        steps: first.steps,
        steps_run: first.steps_run,
        events: first.events,
        cpu: fast.slowest.cpu,
        time: fast.slowest.wall,
        slowest_op: fast.slowest.name,
        load: first.load.min(second.load),
        features: first.features,
    })
}

fn run(input: &Input, limit: Option<Duration>) -> Result<Pass, Failure> {
    std::panic::catch_unwind(|| pass(input, limit)).map_err(|e| Failure::Panic(panic_message(&e)))?
}

#[derive(Clone, Copy)]
struct Slowest {
    cpu: Duration,
    wall: Duration,
    name: &'static str,
}

/// CPU time of this thread (Linux; elsewhere wall time stands in).
fn cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(text.split_whitespace().next()?.parse().ok()?))
}

/// The slowest operation so far, and the CPU time one may take.
struct Clock {
    slowest: Slowest,
    limit: Option<Duration>,
}

impl Clock {
    /// Runs `f`, keeping the slowest operation's times and name; past the
    /// limit, the input fails here.
    fn op<T>(&mut self, name: &'static str, f: impl FnOnce() -> T) -> Result<T, Failure> {
        let (started, cpu_started) = (Instant::now(), cpu_time());
        let out = f();
        let wall = started.elapsed();
        let cpu = cpu_started.zip(cpu_time()).map_or(wall, |(a, b)| b.saturating_sub(a));
        if cpu > self.slowest.cpu {
            self.slowest = Slowest { cpu, wall, name };
        }
        match self.limit {
            Some(limit) if cpu > limit => Err(Failure::Unbounded(format!("{name} took {:.1} s of CPU", cpu.as_secs_f64()))),
            _ => Ok(out),
        }
    }
}

pub fn panic_message(e: &Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_else(|| "a panic without a message".into())
}

/// Bytes of a tour check's findings as JSON, at most: `MAX_FINDINGS` short
/// lines whatever the file (a 5 KB file once made 420 MB of them).
pub const MAX_FINDINGS_JSON_BYTES: usize = 32_000;

/// A tour file or link: read (or refused with a short message), checked
/// twice the same way, its findings bounded and each one line with no
/// invisible character (what a terminal would act on).
fn tour_pass(input: &Input, limit: Option<Duration>) -> Result<Pass, Failure> {
    use highwater::view::tour::{TourFile, MAX_FINDINGS};
    let mut h = DefaultHasher::new();
    let mut clock = Clock { slowest: Slowest { cpu: Duration::ZERO, wall: Duration::ZERO, name: "parse" }, limit };
    let started = Instant::now();
    let read = clock.op("parse", || match input.kind {
        Kind::TourLink => TourFile::from_link(input.text.trim()),
        _ => TourFile::from_json(&input.text),
    })?;
    let tour = match read {
        Ok(tour) => tour,
        Err(e) => {
            if e.chars().count() > 1_200 || e.chars().any(highwater::base::text::is_invisible) {
                return Err(Failure::Inconsistent(format!("a tour's error message of {} characters or with an invisible character: {}", e.chars().count(), highwater::base::text::one_line(&e))));
            }
            e.hash(&mut h);
            return Ok(Pass { outcome: Outcome::Refused(e), slowest: clock.slowest, load: started.elapsed(), digest: h.finish(), steps: 0, steps_run: 0, events: 0, features: vec![] });
        }
    };
    let check = clock.op("tour check", || tour.check())?;
    let load = started.elapsed();
    if check.findings.len() > MAX_FINDINGS {
        return Err(Failure::Unbounded(format!("{} findings listed, more than {MAX_FINDINGS}", check.findings.len())));
    }
    let json = serde_json::to_string(&check.findings).expect("findings serialize");
    if json.len() > MAX_FINDINGS_JSON_BYTES {
        return Err(Failure::Unbounded(format!("{} bytes of findings, more than {MAX_FINDINGS_JSON_BYTES}", json.len())));
    }
    let mut features = vec!["tour".to_string()];
    for f in &check.findings {
        let line = f.to_string();
        if line.chars().count() > 1_200 || line.chars().any(highwater::base::text::is_invisible) {
            return Err(Failure::Inconsistent(format!("a finding of {} characters or with an invisible character: {}", line.chars().count(), highwater::base::text::one_line(&line))));
        }
        features.push(format!("finding {}", shape(&f.message)));
    }
    features.sort();
    features.dedup();
    json.hash(&mut h);
    check.more_findings.hash(&mut h);
    serde_json::to_string(&check.predictions).expect("predictions serialize").hash(&mut h);
    let steps = tour.parts.iter().map(|p| p.scenario["steps"].as_array().map_or(0, Vec::len)).sum();
    Ok(Pass { outcome: Outcome::Finished, slowest: clock.slowest, load, digest: h.finish(), steps, steps_run: steps, events: 0, features })
}

fn pass(input: &Input, limit: Option<Duration>) -> Result<Pass, Failure> {
    if input.is_tour() {
        return tour_pass(input, limit);
    }
    let mut h = DefaultHasher::new();
    let mut clock = Clock { slowest: Slowest { cpu: Duration::ZERO, wall: Duration::ZERO, name: "parse" }, limit };
    let started = Instant::now();
    let scenario = match clock.op("parse", || input.parse())? {
        Ok(s) => s,
        Err(e) => {
            // An error quotes the user's text in excerpts, its invisible characters escaped.
            if e.chars().count() > 1_200 || e.chars().any(highwater::base::text::is_invisible) {
                return Err(Failure::Inconsistent(format!("an error message of {} characters or with an invisible character: {}", e.chars().count(), highwater::base::text::one_line(&e))));
            }
            e.hash(&mut h);
            let load = started.elapsed();
            return Ok(Pass { outcome: Outcome::Refused(e), slowest: clock.slowest, load, digest: h.finish(), steps: 0, steps_run: 0, events: 0, features: vec![] });
        }
    };
    // What parsed is valid, so the timeline must load it.
    let loaded = clock.op("load", || Timeline::new(&scenario))?;
    let load = started.elapsed();
    let mut t = loaded.map_err(|e| Failure::Inconsistent(format!("parsed, but the timeline refused it: {}", e.0)))?;
    bounded(&t, &scenario, "after loading")?;
    let (steps_run, events) = (t.len(), t.events().len());
    let outcome = match t.current().stopped() {
        Some(b) => Outcome::Stopped(b.limit_name()),
        None => Outcome::Finished,
    };
    let features = features(t.events());
    t.events().hash(&mut h);
    state_digest(t.current(), &mut h);

    // Seeking lands on the state a fresh run reaches after as many steps.
    let mid = steps_run / 2;
    clock.op("seek", || t.seek(mid))?.map_err(|e| Failure::Inconsistent(format!("seek({mid}) of {steps_run} steps: {e}")))?;
    let mut fresh = Simulation::new(scenario.config.clone());
    for step in &t.scenario().steps[..mid] {
        fresh.apply(step);
    }
    if *t.current() != fresh {
        return Err(Failure::Inconsistent(format!("seek({mid}) differs from a fresh run of {mid} steps")));
    }
    clock.op("seek", || t.seek(0))?.map_err(|e| Failure::Inconsistent(format!("seek(0): {e}")))?;
    clock.op("seek", || t.seek(steps_run))?.map_err(|e| Failure::Inconsistent(format!("seek({steps_run}): {e}")))?;
    if t.seek(steps_run + 1).is_ok() {
        return Err(Failure::Inconsistent(format!("seek({}) past the end was accepted", steps_run + 1)));
    }
    state_digest(t.current(), &mut h);

    // A few steps at the end (refused there if the run stopped), then a few
    // from the middle, which discards the rest.
    let stopped = t.current().stopped().is_some();
    for step in [Step::AdvanceMs(1), Step::Heal(Heal::All)] {
        let r = clock.op("apply", || t.apply(step).map(|e| e.to_vec()))?;
        if stopped && r.is_ok() {
            return Err(Failure::Inconsistent("a stopped run applied another step".into()));
        }
        r.hash(&mut h);
    }
    clock.op("seek", || t.seek(mid))?.map_err(|e| Failure::Inconsistent(format!("seek({mid}) after applying: {e}")))?;
    let produce = Step::Produce(Produce { value: "fuzz".into(), acks: Default::default(), to: None, partition: None, key: None });
    for step in [produce, Step::AdvanceMs(1_000), Step::Elect(Elect::default()), Step::Consume(None)] {
        clock.op("apply", || t.apply(step).map(|e| e.to_vec()))?.hash(&mut h);
    }
    bounded(&t, t.scenario(), "after seeking and applying")?;
    t.events().hash(&mut h);
    state_digest(t.current(), &mut h);
    Ok(Pass { outcome, slowest: clock.slowest, load, digest: h.finish(), steps: scenario.steps.len(), steps_run, events, features })
}

/// The timeline either ran every step of `scenario`, or stopped at a
/// budget with the event that names it; and it holds a bounded trace.
fn bounded(t: &Timeline, scenario: &Scenario, when: &str) -> Result<(), Failure> {
    let held = t.events().len();
    if held > MAX_EVENTS_HELD {
        return Err(Failure::Unbounded(format!("{when}: {held} events held, more than {MAX_EVENTS_HELD}")));
    }
    let (snapshots, _) = t.snapshot_spacing();
    if snapshots > 1 && t.snapshot_bytes() > limits::MAX_TIMELINE_SNAPSHOT_BYTES {
        return Err(Failure::Unbounded(format!("{when}: {} snapshot bytes", t.snapshot_bytes())));
    }
    let sim = t.current();
    match sim.stopped() {
        None if t.position() != scenario.steps.len() => {
            Err(Failure::Unbounded(format!("{when}: ran {} of {} steps without stopping", t.position(), scenario.steps.len())))
        }
        None => Ok(()),
        Some(budget) => match t.events().last().map(|e| &e.event) {
            Some(Event::BudgetExceeded { budget: b, .. }) if *b == budget => Ok(()),
            other => Err(Failure::Unbounded(format!("{when}: stopped at {budget:?}, but the last event is {other:?}"))),
        },
    }
}

fn state_digest(sim: &Simulation, h: &mut DefaultHasher) {
    (sim.now_ms, sim.step, sim.stopped()).hash(h);
    sim.brokers.hash(h);
    sim.controller.hash(h);
    sim.network.hash(h);
    sim.producer.hash(h);
    sim.violations.hash(h);
}

/// The names of the events in a trace (its first 20,000 lines), plus the
/// step kinds rejected: a cheap stand-in for coverage.
fn features(events: &[highwater::Traced]) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    for e in events.iter().take(20_000) {
        let name = match &e.event {
            Event::StepRejected { action, reason } => {
                format!("rejected {} {}", action.to_json().split(':').next().unwrap_or(""), shape(reason))
            }
            Event::Violation(v) => format!("violation {}", v.kind.name()),
            other => {
                let debug = format!("{other:?}");
                debug.split([' ', '(', '{']).next().unwrap_or("").to_string()
            }
        };
        names.insert(name);
    }
    names.into_iter().collect()
}

/// A message with its numbers taken out: errors that differ only in values
/// are one feature.
pub fn shape(message: &str) -> String {
    let mut out = String::new();
    for c in message.chars().take(60) {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push(c);
        }
    }
    out
}
