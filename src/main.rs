//! `highwater`: run a scenario and print what happened.

use clap::{Parser, Subcommand, ValueEnum};
use highwater::base::text::json_for_terminal;
use highwater::model::config::limits::MAX_EXPLORER_STATES;
use highwater::search::explore::{explore, Goal, Search, Stop, Strategy, MAX_THREADS};
use highwater::view::state::EventView;
use highwater::{Acks, Config, LogWindow, Protocol, Scenario, Simulation, StateView};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// How often `explore` prints progress on stderr.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// The exit status after Ctrl-C (128 + SIGINT, as shells report it): the
/// summary is printed, but the search did not finish.
const EXIT_INTERRUPTED: u8 = 130;

#[derive(Parser)]
#[command(name = "highwater", version, about = "A deterministic model of Kafka partition replication")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario file and print its trace, one line per event.
    Run {
        /// Print one JSON object (final state, violations, events) instead of the trace.
        #[arg(long)]
        json: bool,
        /// Run a fork of the scenario: the same steps with one change, in the
        /// text form of share links (docs/fork.md), like `min_insync_replicas=2`,
        /// `protocol=0.11`, `acks@8=1` or `step@14=crash:3`.
        #[arg(long, value_name = "CHANGE")]
        fork: Option<String>,
        /// The scenario file (format version 1, see docs/scenario-format.md); `-` reads standard input.
        file: PathBuf,
    },
    /// Search for the shortest run that breaks a safety check.
    Explore(ExploreArgs),
    /// Run a scenario under every version preset, acks, min.insync.replicas
    /// and unclean election, and print each combination's outcome.
    Whatif {
        /// Print one JSON object {"cells": [...]} instead of the table.
        #[arg(long)]
        json: bool,
        /// Runs at once (default: the machine's cores). The output is the same for any number.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
        /// The scenario file; `-` reads standard input.
        file: PathBuf,
    },
    /// Tours: `highwater tour check FILE` checks every fact a tour states
    /// against the model; `highwater tour link FILE` prints its link (docs/tours.md).
    #[command(subcommand)]
    Tour(TourCommand),
}

#[derive(Subcommand)]
enum TourCommand {
    /// Check a tour file: every fact of every stop holds in the model and
    /// every step happens. Exit 0 when all hold, 1 naming each wrong fact, 2
    /// for a file that cannot be read.
    Check {
        /// Print one JSON object {"findings": [...], "predictions": [...]}.
        #[arg(long)]
        json: bool,
        /// A tour file (`"highwater_tour": 1`) or a built-in tour (www/tours/<id>.json); `-` reads standard input.
        file: PathBuf,
    },
    /// Print a tour file as a link's fragment (`#t=v1.…`), the file written
    /// compactly, deflated and base64url-encoded. Exit 2 for a file that
    /// cannot be read or a link past the limit.
    Link {
        /// A tour file (`"highwater_tour": 1`); `-` reads standard input.
        file: PathBuf,
    },
}

/// A Kafka version preset or one of its aliases (as in `config.protocol`).
fn parse_protocol(name: &str) -> Result<Protocol, String> {
    Protocol::parse(name).ok_or_else(|| format!("unknown version preset; expected {}", Protocol::accepted_names()))
}

#[derive(Clone, Copy, ValueEnum)]
enum AcksArg {
    #[value(name = "1")]
    One,
    #[value(name = "all")]
    All,
}

#[derive(Clone, Copy, ValueEnum)]
enum GoalArg {
    Violation,
    LostWrite,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnOff {
    On,
    Off,
}

#[derive(Clone, Copy, ValueEnum)]
enum StrategyArg {
    Bfs,
    Random,
}

#[derive(clap::Args)]
struct ExploreArgs {
    /// Brokers (default 3).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=7))]
    brokers: Option<u32>,
    /// Kafka version preset: 0.10, 0.11, 2.0, 2.1, 2.8, 3.5, 3.7 (default), 4.1 (aliases legacy, kip101, 2.7 = 2.8, modern).
    #[arg(long, value_parser = parse_protocol)]
    protocol: Option<Protocol>,
    /// min.insync.replicas (default 1).
    #[arg(long = "min-isr")]
    min_isr: Option<u32>,
    /// Voters of the KRaft controller quorum: 1, 3 or 5 (KRaft presets, 3.5
    /// on); their crashes, restarts, isolations and the leader's
    /// resignation are searched too. Default 0: the instant controller.
    #[arg(long)]
    controllers: Option<u32>,
    #[arg(long, value_enum, default_value = "all")]
    acks: AcksArg,
    /// Unclean leader election (`--unclean` or `--unclean true|false`). Off
    /// unless asked, in every version (0.10 shipped with it on): the search
    /// looks for holes in the protocol, and what an unclean election loses
    /// is allowed by Kafka's contract (not counted unless --count-unclean).
    #[arg(long, num_args = 0..=1, default_missing_value = "true")]
    unclean: Option<bool>,
    /// Allow power loss (a crash that drops the last unflushed record).
    #[arg(long = "power-loss")]
    power_loss: bool,
    /// Allow one-way link cuts from the leader, cuts to the controller, and heal.
    #[arg(long = "network-faults")]
    network_faults: bool,
    /// Allow controlled shutdowns (and under KRaft, 3.5 on, a shutdown's
    /// request alone: the broker stops at its next heartbeat).
    #[arg(long)]
    shutdowns: bool,
    /// Let the consumer read too (a record it read must stay in the log).
    #[arg(long)]
    consume: bool,
    /// Each broker's rack (broker.rack), broker 1's first: `--racks a,a,b`.
    #[arg(long, value_delimiter = ',')]
    racks: Option<Vec<String>>,
    /// Allow a rack's faults (the brokers need racks: --racks, or the
    /// prefix's config): every broker of a rack crashing at once (losing
    /// power too with --power-loss), a rack cut off from the other racks and
    /// the controller, and heal.
    #[arg(long = "rack-faults")]
    rack_faults: bool,
    #[arg(long, value_enum, default_value = "bfs")]
    strategy: StrategyArg,
    /// Steps to search (after the prefix).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=64))]
    depth: u64,
    /// Stop after this many distinct states (bfs) or steps (random); at most
    /// 12000000 (the search then takes about 250 MB: 8 bytes a state for its
    /// move, 8 to 16 in the visited set).
    #[arg(long = "max-states", default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..=MAX_EXPLORER_STATES))]
    max_states: u64,
    /// Records the producer may write.
    #[arg(long = "max-produces", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=16))]
    max_produces: u32,
    /// Seed of the random walks.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Count acks=1 losses too (Kafka's contract allows them).
    #[arg(long = "count-acks1")]
    count_acks1: bool,
    /// Count the losses an unclean election explains too
    /// (unclean.leader.election.enable allows them).
    #[arg(long = "count-unclean")]
    count_unclean: bool,
    /// What to look for: any broken guarantee (violation), or only a record
    /// gone (lost-write: a diverged log on the way is searched past).
    #[arg(long, value_enum, default_value = "violation")]
    goal: GoalArg,
    /// Threads of the exhaustive search (default: the machine's cores). The
    /// answer is the same for any number: the same states, the same run found.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_THREADS as u64))]
    threads: Option<u64>,
    /// Symmetry reduction: a state whose renaming of brokers and partitions
    /// (one that maps every replica list onto a replica list, in order, and
    /// keeps each broker's rack) was searched is not searched again. The
    /// same violation is found at the same depth, in fewer states.
    #[arg(long, value_enum, default_value = "on")]
    symmetry: OnOff,
    /// Start from this scenario's configuration and steps.
    #[arg(long)]
    prefix: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap quotes a refused argument as given, and its plain rendering
            // drops what parses as an ANSI sequence: the same arguments with
            // their invisible characters escaped give a message that shows them.
            let shown = std::env::args_os().map(|a| highwater::base::text::escaped(&a.to_string_lossy()));
            let e = Cli::try_parse_from(shown).err().filter(|shown| shown.kind() == e.kind()).unwrap_or(e);
            return clap_error(e);
        }
    };
    match cli.command {
        Command::Run { json, fork, file } => run(&file, json, fork.as_deref()),
        Command::Explore(args) => explore_command(args),
        Command::Whatif { json, threads, file } => whatif_command(&file, json, threads),
        Command::Tour(TourCommand::Check { json, file }) => tour_check(&file, json),
        Command::Tour(TourCommand::Link { file }) => tour_link(&file),
    }
}

/// `whatif`: the cells run on up to `threads` scoped threads, each taking
/// the next cell not yet taken; results go back to their cell's place, so
/// the output does not depend on the number of threads.
fn whatif_command(file: &Path, json: bool, threads: Option<u32>) -> ExitCode {
    use highwater::search::whatif::{cells, run_cell, table, Cell, Grid, GridWork};
    let scenario = match read_scenario(file) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let specs = cells(&scenario);
    let threads = threads
        .map(|n| n as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, specs.len().max(1));
    // The grid's own budget: the first cell tells what a cell costs, and a
    // grid that would go past the budget is refused at the cost of one run.
    let work = GridWork::new(specs.len());
    let mut results: Vec<Option<Cell>> = vec![None; specs.len()];
    if let Some(spec) = specs.first() {
        let first = run_cell(&scenario, spec);
        if let Err(e) = work.estimate(&first).and_then(|()| work.add(&first)) {
            return fail(e);
        }
        results[0] = Some(first);
    }
    let next = std::sync::atomic::AtomicUsize::new(1);
    let done = std::sync::atomic::AtomicUsize::new(1);
    let refused = std::sync::Mutex::new(None::<String>);
    let (stop_reports, stopped) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        // Progress on stderr, only for a person watching: a grid of 224
        // cells, each a whole run under the budgets, can take a while.
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            let (done, total, started) = (&done, specs.len(), Instant::now());
            scope.spawn(move || {
                while stopped.recv_timeout(PROGRESS_EVERY) == Err(mpsc::RecvTimeoutError::Timeout) {
                    eprintln!("whatif: {} of {total} cells in {:.1} s", done.load(Ordering::Relaxed), started.elapsed().as_secs_f64());
                }
            });
        }
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut ran = vec![];
                    loop {
                        if work.is_spent() {
                            break ran;
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(spec) = specs.get(i) else { break ran };
                        let cell = run_cell(&scenario, spec);
                        if let Err(e) = work.add(&cell) {
                            *refused.lock().expect("not poisoned") = Some(e);
                            break ran;
                        }
                        ran.push((i, cell));
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for w in workers {
            for (i, cell) in w.join().expect("a grid cell panicked") {
                results[i] = Some(cell);
            }
        }
        drop(stop_reports);
    });
    if let Some(e) = refused.into_inner().expect("not poisoned") {
        return fail(e);
    }
    let grid = Grid { cells: results.into_iter().map(|c| c.expect("every cell ran")).collect() };
    if json {
        print_all(&(serde_json::to_string_pretty(&grid).expect("grid serializes") + "\n"));
    } else {
        print_all(&table(&grid));
    }
    ExitCode::SUCCESS
}

fn explore_command(a: ExploreArgs) -> ExitCode {
    let defaults = Config::for_protocol(a.protocol.unwrap_or(Protocol::V3_7));
    let mut config = Config {
        brokers: a.brokers.unwrap_or(defaults.brokers),
        min_insync_replicas: a.min_isr.unwrap_or(defaults.min_insync_replicas),
        unclean_leader_election: a.unclean.unwrap_or(false),
        controllers: a.controllers.unwrap_or(0),
        racks: a.racks.as_ref().map(|r| r.iter().map(|name| name.as_str().into()).collect()),
        ..defaults
    };
    let mut prefix = vec![];
    if let Some(path) = &a.prefix {
        // The prefix brings its own configuration: a flag that would set it too is a contradiction.
        let given: Vec<&str> = [
            ("--brokers", a.brokers.is_some()),
            ("--protocol", a.protocol.is_some()),
            ("--min-isr", a.min_isr.is_some()),
            ("--unclean", a.unclean.is_some()),
            ("--controllers", a.controllers.is_some()),
            ("--racks", a.racks.is_some()),
        ]
        .into_iter()
        .filter_map(|(flag, set)| set.then_some(flag))
        .collect();
        if !given.is_empty() {
            return fail(format!(
                "--prefix takes the configuration from {}; drop {} (or change the file's config)",
                path.display(),
                given.join(", ")
            ));
        }
        let scenario = match read_scenario(path) {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        config = scenario.config;
        prefix = scenario.steps;
    }
    if let Err(e) = config.validate() {
        return fail(e);
    }
    let search = Search {
        acks: match a.acks {
            AcksArg::One => Acks::One,
            AcksArg::All => Acks::All,
        },
        power_loss: a.power_loss,
        network_faults: a.network_faults,
        shutdowns: a.shutdowns,
        consume: a.consume,
        rack_faults: a.rack_faults,
        prefix,
        strategy: match a.strategy {
            StrategyArg::Bfs => Strategy::Bfs,
            StrategyArg::Random => Strategy::Random,
        },
        depth: a.depth as usize,
        max_states: a.max_states,
        max_produces: a.max_produces,
        seed: a.seed,
        count_acks_one_losses: a.count_acks1,
        count_unclean_losses: a.count_unclean,
        goal: match a.goal {
            GoalArg::Violation => Goal::Violation,
            GoalArg::LostWrite => Goal::LostWrite,
        },
        threads: a.threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS), |n| n as usize),
        symmetry: a.symmetry == OnOff::On,
        ..Search::new(config)
    };
    if search.rack_faults && search.config.racks.is_none() {
        return fail("--rack-faults: the brokers have no racks; give them some with --racks (one name per broker: --racks a,a,b) or in the prefix's config".into());
    }
    if let Err(e) = search.validate() {
        return fail(e);
    }
    let interrupted = on_ctrl_c();
    let started = Instant::now();
    let json = a.json;
    let seen = Arc::new(Seen::default());
    let (stop_reports, reports) = (!json).then(|| progress_reports(seen.clone())).unzip();
    // Called after every step the search applies: it notes where the search
    // is (for the reports) and whether Ctrl-C was pressed.
    let outcome = explore(&search, &mut |states, depth| {
        seen.states.store(states, Ordering::Relaxed);
        seen.depth.store(depth as u64, Ordering::Relaxed);
        !interrupted.load(Ordering::Relaxed)
    });
    drop(stop_reports);
    if let Some(reports) = reports {
        let _ = reports.join();
    }
    let seconds = started.elapsed().as_secs_f64();
    let status = if outcome.stopped == Some(Stop::Interrupted) { ExitCode::from(EXIT_INTERRUPTED) } else { ExitCode::SUCCESS };
    let rate = |n: u64| if seconds > 0.0 { (n as f64 / seconds).round() } else { 0.0 };
    let per_second = rate(outcome.states);
    if json {
        let mut v = serde_json::to_value(&outcome).expect("outcome serializes");
        v["seconds"] = serde_json::json!(seconds);
        v["states_per_second"] = serde_json::json!(per_second);
        v["generated_per_second"] = serde_json::json!(rate(outcome.generated));
        v["link"] = serde_json::json!(outcome.scenario.as_ref().map(highwater::run::link::encode));
        v["threads"] = serde_json::json!(search.threads);
        v["symmetry"] = serde_json::json!(if search.symmetry { "on" } else { "off" });
        print_all(&json_for_terminal(&(serde_json::to_string_pretty(&v).expect("json") + "\n")));
        return status;
    }
    let what = if search.strategy == Strategy::Bfs { "distinct states" } else { "steps" };
    let stopped = match outcome.stopped {
        None => String::new(),
        Some(Stop::MaxStates) => format!(" (stopped at --max-states {})", search.max_states),
        Some(Stop::Interrupted) => " (stopped by Ctrl-C)".into(),
    };
    let mut text = format!(
        "searched {} {what} to depth {} in {seconds:.2} s ({per_second:.0}/s; {} generated, {:.0}/s; {} thread{}{}){stopped}\n",
        outcome.states,
        outcome.depth,
        outcome.generated,
        rate(outcome.generated),
        search.threads,
        if search.threads == 1 { "" } else { "s" },
        match (search.symmetry, outcome.symmetries) {
            (false, _) => "; symmetry off".to_string(),
            (true, 1) => String::new(),
            (true, n) => format!("; symmetry: {n} renamings of the topic"),
        },
    );
    match (&outcome.violation, &outcome.scenario) {
        (Some(v), Some(s)) => {
            // An allowed loss is found only when asked (--count-acks1, --count-unclean): say so.
            let allowed = v.allowed_by.map(|a| format!(" (allowed by {})", a.name())).unwrap_or_default();
            text += &format!("FOUND {}{allowed}: {}\n", v.kind.name(), v.detail);
            text += &format!("scenario ({} steps):\n{}\n", s.steps.len(), json_for_terminal(&s.to_json_pretty()));
            text += &format!("link: {}\n", highwater::run::link::encode(s));
        }
        _ => text += &format!("no violation up to depth {}\n", outcome.depth),
    }
    print_all(&text);
    status
}

/// Where the search is, as its progress callback last saw it.
#[derive(Default)]
struct Seen {
    states: AtomicU64,
    depth: AtomicU64,
}

/// Prints progress on stderr every `PROGRESS_EVERY` from a thread of its
/// own, until the sender is dropped: the search only stores two numbers per
/// step, and a slow step (extreme timers) does not hold the reports up.
fn progress_reports(seen: Arc<Seen>) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let (stop, stopped) = mpsc::channel::<()>();
    let reports = std::thread::spawn(move || {
        let started = Instant::now();
        while stopped.recv_timeout(PROGRESS_EVERY) == Err(mpsc::RecvTimeoutError::Timeout) {
            let (states, depth) = (seen.states.load(Ordering::Relaxed), seen.depth.load(Ordering::Relaxed));
            if depth > 0 {
                eprintln!("depth {depth}: {states} states, {:.0} states/s", states as f64 / started.elapsed().as_secs_f64());
            }
        }
    });
    (stop, reports)
}

/// The first Ctrl-C asks the search to stop (it then prints its summary);
/// a second one exits at once.
fn on_ctrl_c() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    // Without a handler (one already set) Ctrl-C keeps its default: exit at once.
    let _ = ctrlc::set_handler(move || {
        if set.swap(true, Ordering::Relaxed) {
            std::process::exit(EXIT_INTERRUPTED.into());
        }
    });
    flag
}

/// clap's own message (usage errors, `--help`, `--version`) with its exit
/// status (2 for a usage error): clap quotes a refused argument as given, so
/// each line goes through `text::one_line`, which escapes what a terminal
/// would act on and bounds its length.
fn clap_error(e: clap::Error) -> ExitCode {
    let text = e.render().to_string();
    let lines: Vec<String> = text.lines().map(highwater::base::text::one_line).collect();
    let text = lines.join("\n") + "\n";
    if e.use_stderr() {
        eprint!("{text}");
    } else {
        print_all(&text);
    }
    ExitCode::from(e.exit_code().clamp(0, 255) as u8)
}

/// Writes to stdout, ignoring a closed pipe (`| head`).
fn print_all(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Exit status 2 with the message on stderr: one line, bounded, its
/// invisible characters escaped (`text::one_line`), whatever text it quotes.
fn fail(message: String) -> ExitCode {
    eprintln!("highwater: {}", highwater::base::text::one_line(&message));
    ExitCode::from(2)
}

/// Reads a scenario file (`-`: standard input), never more than the size
/// limit plus one byte, and parses it. The error names the file.
fn read_scenario(file: &Path) -> Result<Scenario, String> {
    let (name, text) = read_text(file, highwater::model::config::limits::MAX_SCENARIO_BYTES)?;
    Scenario::from_json(&text).map_err(|e| format!("{name}: {e}"))
}

/// `tour check`: the findings one per line (or as JSON), a summary on stderr.
fn tour_check(file: &Path, json: bool) -> ExitCode {
    use highwater::view::tour::MAX_TOUR_BYTES;
    let (name, text) = match read_text(file, MAX_TOUR_BYTES) {
        Ok(read) => read,
        Err(e) => return fail(e),
    };
    // The same report as the package's command (`view::tour_report`).
    let report = highwater::view::tour_report::check_report(&name, &text, json);
    if let Some(e) = report.error {
        // Already one bounded line (`text::one_line`).
        eprintln!("highwater: {e}");
        return ExitCode::from(report.code);
    }
    print_all(&report.stdout);
    eprint!("{}", report.stderr);
    ExitCode::from(report.code)
}

/// `tour link`: the fragment on stdout, for a page's address (`#t=`).
fn tour_link(file: &Path) -> ExitCode {
    use highwater::view::tour::{TourFile, MAX_TOUR_BYTES};
    let (name, text) = match read_text(file, MAX_TOUR_BYTES) {
        Ok(read) => read,
        Err(e) => return fail(e),
    };
    match TourFile::from_json(&text).and_then(|tour| tour.to_link()) {
        Ok(link) => {
            print_all(&format!("#t={link}\n"));
            ExitCode::SUCCESS
        }
        Err(e) => fail(format!("{name}: {e}")),
    }
}

/// A file's text (`-`: standard input), never more than `limit` bytes plus
/// one read; the file's name for messages.
fn read_text(file: &Path, limit: usize) -> Result<(String, String), String> {
    use std::io::Read;
    let name = if file == Path::new("-") { "standard input".to_string() } else { file.display().to_string() };
    let source: Box<dyn Read> = if file == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(file).map_err(|e| format!("cannot read {name}: {e}"))?)
    };
    let mut bytes = Vec::new();
    source.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() > limit {
        return Err(format!("{name}: larger than the limit of {limit} bytes"));
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("{name}: not UTF-8 text"))?;
    Ok((name, text))
}

/// Runs a scenario, writing each step's events as soon as the step is done:
/// memory holds one step's events (bounded by `MAX_EVENTS_PER_STEP`), never
/// the run's. `--json` streams the events array the same way and ends with
/// the final state. A run that goes past a budget stops with exit 2. With
/// `--fork`, the scenario with that one change is run instead.
fn run(file: &Path, json: bool, fork: Option<&str>) -> ExitCode {
    use std::io::Write;
    let scenario = match read_scenario(file) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let scenario = match fork {
        None => scenario,
        Some(text) => match highwater::view::fork::Change::parse(text) {
            Err(e) => return fail(format!("--fork: {e}")),
            Ok(change) => match highwater::view::fork::fork(&scenario, &change) {
                Ok(s) => s,
                Err(e) => return fail(format!("--fork {text}: {e}")),
            },
        },
    };
    let mut sim = Simulation::new(scenario.config.clone());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut first = true;
    let written = (|| -> std::io::Result<()> {
        if json {
            out.write_all(b"{\n  \"events\": [")?;
        }
        for step in &scenario.steps {
            for e in sim.apply_in_place(step) {
                if json {
                    out.write_all(if first { b"\n    " } else { b",\n    " })?;
                    let line = serde_json::to_string(&EventView::of(e)).expect("an event serializes");
                    out.write_all(json_for_terminal(&line).as_bytes())?;
                    first = false;
                } else {
                    writeln!(out, "{e}")?;
                }
            }
            if sim.stopped().is_some() {
                break;
            }
        }
        if json {
            // The final state's fields follow the events in the same object.
            let state = serde_json::to_string_pretty(&StateView::of(&sim, LogWindow::ALL).with_partitions(&sim, LogWindow::ALL)).expect("state serializes");
            let fields = state.trim_start_matches('{').trim_start();
            write!(out, "\n  ],\n  {}\n", json_for_terminal(fields))?;
        }
        out.flush()
    })();
    if written.is_err() {
        return ExitCode::SUCCESS; // stdout closed (e.g. piped to head)
    }
    match sim.stopped() {
        Some(budget) => fail(format!(
            "{}: step {}: {}",
            file.display(),
            sim.step,
            highwater::model::event::budget_message(budget, sim.budgets().limit(budget))
        )),
        None => ExitCode::SUCCESS,
    }
}
