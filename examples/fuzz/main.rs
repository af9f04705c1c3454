//! A fuzzer for the link decoder, the scenario parser and the timeline, on
//! stable Rust: seeded mutation of the seed inputs (check.rs says what is
//! checked, mutate.rs how inputs are made), for a fixed time.
//!
//!   cargo run --release --example fuzz -- [--seconds 60] [--seed N] [--out DIR] [--slow-ms 1000] [SEED_DIR ...]
//!   cargo run --release --example fuzz -- --encode FILE.json   # the share link of a scenario file
//!   cargo run --release --example fuzz -- --decode FILE.link   # the scenario JSON in a link
//!   cargo run --release --example fuzz -- --check FILE ...     # the checks on saved inputs, with times
//!
//! Seeds come from tests/fuzz-seeds (but its known-* findings), tests/worst-case,
//! tests/scenarios, tests/hostile-tours and examples/tours (tour files, also
//! mutated into tour links) unless directories are given. Failures (a panic, a difference between two
//! runs of one input, a run past its budgets, one operation slower than
//! --slow-ms twice) are written to the output directory at once (default
//! target/fuzz-findings), the slowest inputs as slow-NN. The exit status is
//! 1 if anything failed.
//!
//! The inputs run in a child process (this program with --worker): an input
//! that runs for minutes cannot be interrupted, so the child saves it, exits,
//! and a new child carries on with the time left.

mod check;
mod mutate;

use check::{Failure, Input, Outcome, Report};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::collections::{hash_map::DefaultHasher, BTreeSet};
use std::hash::{Hash, Hasher};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Slowest inputs kept and reported.
const SLOWEST: usize = 10;
/// An input still running after `SAVE_AFTER` is saved at once (as
/// overtime); after `HANG` the child gives up on it and exits with `HUNG`.
const SAVE_AFTER: Duration = Duration::from_secs(10);
const HANG: Duration = Duration::from_secs(30);
const HUNG: i32 = 3;
/// Inputs kept for mutation besides the seeds.
const MAX_CORPUS: usize = 4_000;
/// File name prefixes of failures in the output directory.
const FAILURES: [&str; 5] = ["panic-", "nondeterministic-", "unbounded-", "inconsistent-", "overtime-"];

#[derive(Clone)]
struct Options {
    seconds: u64,
    seed: u64,
    out: PathBuf,
    slow: Duration,
    dirs: Vec<PathBuf>,
    worker: bool,
    /// A later child: the slowest inputs found so far are seeds too.
    resume: bool,
}

fn options() -> Result<Options, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut o = Options {
        seconds: 60,
        seed: SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_nanos() as u64 % 1_000_000).unwrap_or(1),
        out: root.join("target/fuzz-findings"),
        slow: Duration::from_millis(1_000),
        dirs: vec![],
        worker: false,
        resume: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let number = |v: String, name: &str| v.parse::<u64>().map_err(|_| format!("{name}: {v:?} is not a number"));
        match a.as_str() {
            "--seconds" => o.seconds = number(value("--seconds")?, "--seconds")?,
            "--seed" => o.seed = number(value("--seed")?, "--seed")?,
            "--slow-ms" => o.slow = Duration::from_millis(number(value("--slow-ms")?, "--slow-ms")?),
            "--out" => o.out = PathBuf::from(value("--out")?),
            "--worker" => o.worker = true,
            "--resume" => o.resume = true,
            "--encode" | "--decode" => {
                let path = value(&a)?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
                let out = if a == "--encode" {
                    highwater::Scenario::from_json(&text).map(|s| highwater::run::link::encode(&s))
                } else {
                    highwater::run::link::decode(&text).map(|s| s.to_json_pretty())
                };
                match out {
                    Ok(s) => println!("{s}"),
                    Err(e) => return Err(format!("{path}: {e}")),
                }
                std::process::exit(0);
            }
            "--check" => {
                let mut failed = false;
                for path in args.by_ref() {
                    let input = Input::read(Path::new(&path)).ok_or(format!("{path}: not a readable .json or .link file"))?;
                    match check::check(&input) {
                        Ok(r) => println!(
                            "{path}: {}; {} {:.3} s ({:.3} s CPU), load {:.3} s, {} of {} steps, {} events held",
                            r.outcome.describe(),
                            r.slowest_op,
                            r.time.as_secs_f64(),
                            r.cpu.as_secs_f64(),
                            r.load.as_secs_f64(),
                            r.steps_run,
                            r.steps,
                            r.events
                        ),
                        Err(f) => {
                            failed = true;
                            println!("{path}: FAILURE {}: {}", f.tag(), f.detail());
                        }
                    }
                }
                std::process::exit(failed as i32);
            }
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            dir => o.dirs.push(PathBuf::from(dir)),
        }
    }
    if o.dirs.is_empty() {
        o.dirs = ["tests/fuzz-seeds", "tests/worst-case", "tests/scenarios", "tests/hostile-tours", "examples/tours"].iter().map(|d| root.join(d)).collect();
    }
    Ok(o)
}

fn main() {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fuzz: {e}");
            std::process::exit(2);
        }
    };
    std::process::exit(if o.worker { worker(&o) } else { supervise(&o) });
}

#[derive(Clone, Copy, Default)]
struct Counts {
    inputs: u64,
    refused: u64,
    finished: u64,
    stopped: u64,
}

impl Counts {
    /// The line a child prints for its parent.
    fn line(&self) -> String {
        format!("fuzz-counts {} {} {} {}", self.inputs, self.refused, self.finished, self.stopped)
    }

    fn parse(line: &str) -> Option<Counts> {
        let n: Vec<u64> = line.strip_prefix("fuzz-counts ")?.split(' ').filter_map(|v| v.parse().ok()).collect();
        match n[..] {
            [inputs, refused, finished, stopped] => Some(Counts { inputs, refused, finished, stopped }),
            _ => None,
        }
    }

    fn add(&mut self, c: Counts) {
        self.inputs += c.inputs;
        self.refused += c.refused;
        self.finished += c.finished;
        self.stopped += c.stopped;
    }
}

/// Runs children until the time is up, a new one after each hang.
fn supervise(o: &Options) -> i32 {
    let started = Instant::now();
    let since = SystemTime::now();
    // The slowest inputs of an earlier run are its own; failures stay.
    if let Ok(entries) = std::fs::read_dir(&o.out) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("slow-") || name == "report.md" {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let exe = std::env::current_exe().expect("the fuzzer's own path");
    let mut total = Counts::default();
    let mut hangs = 0;
    let mut status = 0;
    for child in 0u64.. {
        let left = o.seconds.saturating_sub(started.elapsed().as_secs());
        if child > 0 && left == 0 {
            break;
        }
        let mut cmd = std::process::Command::new(&exe);
        cmd.args(["--worker", "--seconds", &left.to_string(), "--seed", &(o.seed + child).to_string()]);
        cmd.arg("--slow-ms").arg(o.slow.as_millis().to_string()).arg("--out").arg(&o.out).args(&o.dirs);
        if child > 0 {
            cmd.arg("--resume");
        }
        let mut proc = match cmd.stdout(std::process::Stdio::piped()).spawn() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("fuzz: cannot start {}: {e}", exe.display());
                return 2;
            }
        };
        let mut last = Counts::default();
        for line in std::io::BufReader::new(proc.stdout.take().unwrap()).lines().map_while(Result::ok) {
            match Counts::parse(&line) {
                Some(c) => last = c,
                None => println!("{line}"),
            }
        }
        total.add(last);
        match proc.wait().ok().and_then(|s| s.code()) {
            Some(HUNG) => {
                hangs += 1;
                status = 1;
                println!("fuzz: a new child carries on (seed {})", o.seed + child + 1);
            }
            Some(code) => {
                status = status.max(code);
                break;
            }
            None => {
                eprintln!("fuzz: the child was killed by a signal");
                return 2;
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "fuzz: in all: {} inputs in {secs:.0} s ({:.1}/s), refused {}, finished {}, stopped at a budget {}; {hangs} hangs",
        total.inputs,
        total.inputs as f64 / secs,
        total.refused,
        total.finished,
        total.stopped
    );
    let mut found: Vec<String> = std::fs::read_dir(&o.out)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.metadata().and_then(|m| m.modified()).is_ok_and(|t| t >= since))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| FAILURES.iter().any(|p| n.starts_with(p)))
        .collect();
    found.sort();
    if !found.is_empty() {
        println!("fuzz: failing inputs saved in {}: {}", o.out.display(), found.join(" "));
    }
    status
}

/// The seeds in `dirs`, except known findings (`known-*`): they would only
/// be found again, slowly.
fn read_seeds(dirs: &[PathBuf]) -> Vec<Input> {
    let mut seeds = vec![];
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        let known = |p: &PathBuf| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("known-"));
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| !known(p)).collect();
        paths.sort();
        seeds.extend(paths.iter().filter_map(|p| Input::read(p)));
    }
    seeds
}

/// The slowest inputs an earlier child saved.
fn read_slowest(out: &Path) -> Vec<Input> {
    let Ok(entries) = std::fs::read_dir(out) else { return vec![] };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("slow-"))).collect();
    paths.sort();
    paths.iter().filter_map(|p| Input::read(p)).collect()
}

fn digest(input: &Input) -> String {
    let mut h = DefaultHasher::new();
    input.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// Writes an input to the output directory; returns the path.
fn save(out: &Path, name: &str, input: &Input) -> PathBuf {
    let _ = std::fs::create_dir_all(out);
    let path = out.join(format!("{name}.{}", input.kind.ext()));
    if let Err(e) = std::fs::write(&path, &input.text) {
        eprintln!("fuzz: cannot write {}: {e}", path.display());
    }
    path
}

fn rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: u64 = status.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()).unwrap_or(0);
    kib / 1024
}

/// The input being checked and since when (ms since start), for the watchdog.
struct Current {
    input: Mutex<Option<Input>>,
    since_ms: AtomicU64,
}

/// Saves the input that has been running too long, and ends the child if
/// it runs on past `HANG`.
fn watchdog(current: Arc<Current>, started: Instant, out: PathBuf, counts: Arc<Mutex<Counts>>) {
    std::thread::spawn(move || {
        let mut saved = u64::MAX;
        loop {
            std::thread::sleep(Duration::from_millis(500));
            let since = current.since_ms.load(Ordering::Relaxed);
            let running = Duration::from_millis((started.elapsed().as_millis() as u64).saturating_sub(since));
            if since == u64::MAX || running < SAVE_AFTER {
                continue;
            }
            let Some(input) = current.input.lock().unwrap().clone() else { continue };
            if saved != since {
                saved = since;
                let path = save(&out, &format!("overtime-{}", digest(&input)), &input);
                println!("fuzz: FAILURE overtime: one operation has run for {} s -> {}", SAVE_AFTER.as_secs(), path.display());
            }
            if running >= HANG {
                println!("fuzz: still running after {} s ({} MiB resident): this child stops", HANG.as_secs(), rss_mib());
                println!("{}", counts.lock().unwrap().line());
                std::process::exit(HUNG);
            }
        }
    });
}

struct Slow {
    input: Input,
    report: Report,
}

/// The fuzzing loop, in a child process.
fn worker(o: &Options) -> i32 {
    let mut seeds = read_seeds(&o.dirs);
    if seeds.is_empty() {
        eprintln!("fuzz: no seeds (*.json, *.link) in {:?}", o.dirs);
        return 2;
    }
    // Panics in the checks are findings, caught and counted: keep their
    // messages off the terminal. A panic in the fuzzer itself is printed.
    let last_panic = Arc::new(Mutex::new(String::new()));
    let checking = Arc::new(AtomicBool::new(false));
    {
        let (last_panic, checking) = (last_panic.clone(), checking.clone());
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if checking.load(Ordering::Relaxed) {
                *last_panic.lock().unwrap() = info.to_string();
            } else {
                default(info);
            }
        }));
    }
    let check = |input: &Input| {
        checking.store(true, Ordering::Relaxed);
        // Three times over the limit is clearly over: no second run needed.
        let r = check::check_within(input, Some(o.slow * 3));
        checking.store(false, Ordering::Relaxed);
        r.map_err(|f| match f {
            Failure::Panic(m) => Failure::Panic(format!("{m} ({})", last_panic.lock().unwrap())),
            other => other,
        })
    };
    let fixed = seeds.len();
    if o.resume {
        seeds.extend(read_slowest(&o.out));
    }
    println!("fuzz: {} seeds, {} s, seed {} (again: --seed {}), findings in {}", seeds.len(), o.seconds, o.seed, o.seed, o.out.display());
    let started = Instant::now();
    let counts = Arc::new(Mutex::new(Counts::default()));
    let current = Arc::new(Current { input: Mutex::new(None), since_ms: AtomicU64::new(u64::MAX) });
    watchdog(current.clone(), started, o.out.clone(), counts.clone());

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(o.seed);
    let mut corpus: Vec<Input> = seeds[..fixed].to_vec();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut slowest: Vec<Slow> = vec![];
    let mut failures: Vec<(PathBuf, Failure)> = vec![];
    let mut c = Counts::default();
    let mut last_line = Instant::now();
    let deadline = Duration::from_secs(o.seconds);
    let mut queue: Vec<Input> = seeds; // every seed once first

    while started.elapsed() < deadline {
        let input = queue.pop().unwrap_or_else(|| {
            // Parents: the slowest inputs a fifth of the time, to climb toward slower ones.
            let parent = if !slowest.is_empty() && rng.random_bool(0.2) {
                slowest[rng.random_range(0..slowest.len())].input.clone()
            } else {
                corpus[rng.random_range(0..corpus.len())].clone()
            };
            let other = corpus[rng.random_range(0..corpus.len())].clone();
            mutate::mutate(&mut rng, &parent, &other)
        });
        *current.input.lock().unwrap() = Some(input.clone());
        current.since_ms.store(started.elapsed().as_millis() as u64, Ordering::Relaxed);
        let mut result = check(&input);
        if matches!(&result, Ok(r) if r.cpu > o.slow) {
            // Once more, to rule out a busy machine.
            let first = result.as_ref().unwrap().clone();
            result = match check(&input) {
                Ok(again) if again.cpu > o.slow => Err(Failure::Unbounded(format!(
                    "{} took {:.2} s and {:.2} s of CPU (more than {} ms); {}, {} events",
                    first.slowest_op,
                    first.cpu.as_secs_f64(),
                    again.cpu.as_secs_f64(),
                    o.slow.as_millis(),
                    first.outcome.describe(),
                    first.events
                ))),
                _ => Ok(first),
            };
        }
        current.since_ms.store(u64::MAX, Ordering::Relaxed);
        c.inputs += 1;

        match result {
            Err(f) => {
                let slow = matches!(&f, Failure::Unbounded(d) if d.contains(" took "));
                let path = save(&o.out, &format!("{}-{}", if slow { "overtime" } else { f.tag() }, digest(&input)), &input);
                println!("fuzz: FAILURE {}: {} -> {}", if slow { "overtime" } else { f.tag() }, f.detail(), path.display());
                failures.push((path, f));
            }
            Ok(r) => {
                match &r.outcome {
                    Outcome::Refused(_) => c.refused += 1,
                    Outcome::Finished => c.finished += 1,
                    Outcome::Stopped(_) => c.stopped += 1,
                }
                // Keep inputs that show something new.
                let outcome = match &r.outcome {
                    Outcome::Refused(e) => format!("refused {}", check::shape(e)),
                    other => other.describe(),
                };
                let mut new = false;
                for f in r.features.iter().cloned().chain([outcome]) {
                    new |= seen.insert(f);
                }
                if new && input.text.len() <= 300_000 {
                    if corpus.len() >= MAX_CORPUS {
                        let i = rng.random_range(fixed..corpus.len());
                        corpus.swap_remove(i);
                    }
                    corpus.push(input.clone());
                }
                if !matches!(r.outcome, Outcome::Refused(_)) || r.cpu > Duration::from_millis(5) {
                    keep_slowest(&mut slowest, input, r);
                }
            }
        }
        *counts.lock().unwrap() = c;
        if last_line.elapsed() >= Duration::from_secs(10) {
            last_line = Instant::now();
            let secs = started.elapsed().as_secs_f64();
            println!(
                "fuzz: {:>4.0} s  {} inputs ({:.0}/s)  refused {}, finished {}, stopped {}  corpus {}  features {}  slowest {:.3} s  {} MiB",
                secs,
                c.inputs,
                c.inputs as f64 / secs,
                c.refused,
                c.finished,
                c.stopped,
                corpus.len(),
                seen.len(),
                slowest.first().map_or(0.0, |s| s.report.cpu.as_secs_f64()),
                rss_mib()
            );
            println!("{}", c.line());
            report(o, &c, started.elapsed().as_secs_f64(), &slowest, &failures);
        }
    }
    print!("{}", report(o, &c, started.elapsed().as_secs_f64(), &slowest, &failures));
    println!("{}", c.line());
    if failures.is_empty() {
        0
    } else {
        1
    }
}

/// The summary, the slowest inputs and the failures. The slowest inputs and
/// report.md are written to the output directory (also while running, so
/// that a hang leaves them behind).
fn report(o: &Options, c: &Counts, seconds: f64, slowest: &[Slow], failures: &[(PathBuf, Failure)]) -> String {
    let mut summary = format!(
        "fuzz: {} inputs in {seconds:.0} s ({:.1}/s), seed {}: refused {}, finished {}, stopped at a budget {}; {} failures\n",
        c.inputs,
        c.inputs as f64 / seconds,
        o.seed,
        c.refused,
        c.finished,
        c.stopped,
        failures.len()
    );
    summary += "slowest (the slowest single operation of the faster of two runs, by CPU time; load = parse + Timeline::new, wall time):\n";
    summary += "| # | file | bytes | op | CPU | wall | load | steps run | events held | outcome |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    // Positions move: the old files go first, so that each name holds one input.
    for e in std::fs::read_dir(&o.out).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with("slow-") {
            let _ = std::fs::remove_file(e.path());
        }
    }
    for (i, s) in slowest.iter().enumerate() {
        let path = save(&o.out, &format!("slow-{:02}", i + 1), &s.input);
        let r = &s.report;
        summary += &format!(
            "| {} | {} | {} | {} | {:.3} s | {:.3} s | {:.3} s | {} of {} | {} | {} |\n",
            i + 1,
            path.file_name().unwrap().to_string_lossy(),
            s.input.text.len(),
            r.slowest_op,
            r.cpu.as_secs_f64(),
            r.time.as_secs_f64(),
            r.load.as_secs_f64(),
            r.steps_run,
            r.steps,
            r.events,
            r.outcome.describe()
        );
    }
    for (path, f) in failures {
        summary += &format!("FAILURE {}: {} ({})\n", f.tag(), f.detail(), path.display());
    }
    let _ = std::fs::create_dir_all(&o.out);
    let _ = std::fs::write(o.out.join("report.md"), &summary);
    summary
}

/// Keeps the `SLOWEST` slowest inputs, slowest first, one per outcome and
/// size class so that one slow shape does not fill the list.
fn keep_slowest(slowest: &mut Vec<Slow>, input: Input, report: Report) {
    if slowest.len() == SLOWEST && report.cpu <= slowest.last().unwrap().report.cpu {
        return;
    }
    let class = |r: &Report, i: &Input| (r.outcome.describe(), r.steps_run / 1_000, r.slowest_op, i.kind);
    let mine = class(&report, &input);
    if let Some(at) = slowest.iter().position(|s| class(&s.report, &s.input) == mine) {
        if slowest[at].report.cpu >= report.cpu {
            return;
        }
        slowest.remove(at);
    }
    let at = slowest.iter().position(|s| s.report.cpu < report.cpu).unwrap_or(slowest.len());
    slowest.insert(at, Slow { input, report });
    slowest.truncate(SLOWEST);
}
