//! `highwater`: run a scenario and print what happened.

use clap::{Parser, Subcommand};
use highwater::view::EventView;
use highwater::{LogWindow, Scenario, Simulation, StateView};
use std::path::PathBuf;
use std::process::ExitCode;

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
        /// The scenario file (format version 1, see docs/scenario-format.md).
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { json, file } => run(&file, json),
    }
}

fn fail(message: String) -> ExitCode {
    eprintln!("highwater: {message}");
    ExitCode::from(2)
}

fn run(file: &PathBuf, json: bool) -> ExitCode {
    let text = match std::fs::read(file) {
        Ok(bytes) if bytes.len() > highwater::config::limits::MAX_SCENARIO_BYTES => {
            return fail(format!("{}: larger than the limit of {} bytes", file.display(), highwater::config::limits::MAX_SCENARIO_BYTES))
        }
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => return fail(format!("{}: not UTF-8 text", file.display())),
        },
        Err(e) => return fail(format!("cannot read {}: {e}", file.display())),
    };
    let scenario = match Scenario::from_json(&text) {
        Ok(s) => s,
        Err(e) => return fail(format!("{}: {e}", file.display())),
    };
    let mut sim = Simulation::new(scenario.config.clone());
    let mut events = vec![];
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    use std::io::Write;
    for step in &scenario.steps {
        let step_events = sim.apply(step);
        if json {
            events.extend(step_events);
        } else {
            for e in &step_events {
                if writeln!(out, "{e}").is_err() {
                    return ExitCode::SUCCESS; // stdout closed (e.g. piped to head)
                }
            }
        }
    }
    if json {
        let mut state = serde_json::to_value(StateView::of(&sim, LogWindow::ALL)).expect("state serializes");
        let events: Vec<EventView> = events.iter().map(EventView::of).collect();
        state["events"] = serde_json::to_value(events).expect("events serialize");
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&state).expect("json"));
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}
