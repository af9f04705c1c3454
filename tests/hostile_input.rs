//! Input made to hurt the reader: shapes that once made reading quadratic,
//! and text that an error message quotes (very long, or holding bidi
//! controls, terminal escapes and NULs). Reading stays linear, and every
//! message quotes at most an excerpt with its invisible characters escaped,
//! in the library, in links and on the command line.

use highwater::base::text;
use highwater::model::config::limits;
use highwater::{link, Scenario};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// A message as the tests expect it: short and without raw invisible characters.
fn assert_tame(message: &str) {
    assert!(message.chars().count() <= 700, "{} characters: {}", message.chars().count(), text::one_line(message));
    assert!(!message.chars().any(text::is_invisible), "an invisible character in {}", text::one_line(message));
}

fn read_err(json: &str) -> String {
    let e = Scenario::from_json(json).unwrap_err().0;
    assert_tame(&e);
    e
}

fn pack(json: &str) -> String {
    use base64::Engine;
    format!("v1.{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9)))
}

fn link_err(json: &str) -> String {
    let e = link::decode(&pack(json)).unwrap_err().0;
    assert_tame(&e);
    e
}

/// `f` on another thread, which must finish within `seconds`: a guard
/// against a reader gone quadratic (it once took 100 s), not a measurement.
fn within<T: Send + 'static>(seconds: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(Duration::from_secs(seconds)).expect("the reader did not finish in time: quadratic again?")
}

/// `{"version":1, <key>: [[],[],…]}` with the key `key_chars` long and the
/// whole text just under the size limit; `at` puts the key at the top, in
/// `config` or in a step.
fn long_key_over_many_values(key_chars: usize, at: &str) -> String {
    let key = "k".repeat(key_chars);
    let values = (limits::MAX_SCENARIO_BYTES - key_chars - 64) / 3;
    let array = format!("[{}]", vec!["[]"; values].join(","));
    let text = match at {
        "top" => format!(r#"{{"version":1,"{key}":{array}}}"#),
        "config" => format!(r#"{{"version":1,"config":{{"{key}":{array}}}}}"#),
        _ => format!(r#"{{"version":1,"steps":[{{"{key}":{array}}}]}}"#),
    };
    assert!(text.len() <= limits::MAX_SCENARIO_BYTES && text.len() > limits::MAX_SCENARIO_BYTES - 100, "{}", text.len());
    text
}

#[test]
fn a_long_key_over_many_values_is_read_in_linear_time() {
    for (key_chars, at, error) in [
        (512 * 1024, "top", "unknown field \"kkkk"),
        (200_000, "top", "unknown field \"kkkk"),
        (200_000, "config", "config.kkkk"),
        (200_000, "step", "steps[0]: unknown variant \"kkkk"),
    ] {
        let text = long_key_over_many_values(key_chars, at);
        let e = within(30, move || Scenario::from_json(&text).unwrap_err().0);
        assert_tame(&e);
        assert!(e.contains(error) && e.contains(&format!("({} characters)", text::thousands(key_chars as u64))), "{e}");
    }
}

#[test]
fn a_link_to_a_long_key_over_many_values_is_read_in_linear_time() {
    let link = pack(&long_key_over_many_values(512 * 1024, "top"));
    assert!(link.len() < limits::MAX_LINK_CHARS, "{} characters", link.len());
    let e = within(30, move || link::decode(&link).unwrap_err().0);
    assert_tame(&e);
    assert!(e.starts_with("link: kkkk") && e.contains("unknown field \"kkkk") && e.contains("(524,288 characters)"), "{e}");
}

#[test]
fn a_duplicate_key_under_a_long_key_is_found_and_named_briefly() {
    let key = "d".repeat(300_000);
    let json = format!(r#"{{"version":1,"config":{{"{key}":[[],[],{{"a":1,"a":2}}]}}}}"#);
    let e = within(30, move || read_err(&json));
    assert_eq!(e, format!("config.{}…[2].a: the key appears twice", "d".repeat(60)));
    let key = "e".repeat(100_000);
    let e = read_err(&format!(r#"{{"version":1,"config":{{"{key}":1,"{key}":2}}}}"#));
    assert_eq!(e, format!("config.{}…: the key appears twice", "e".repeat(60)));
}

#[test]
fn an_unknown_field_is_quoted_as_an_excerpt_with_its_length() {
    let key = "a".repeat(100_000);
    let expected = format!("config.{a}…: unknown field \"{a}…\" (100,000 characters), expected one of `brokers`, `partitions`,", a = "a".repeat(60));
    let e = read_err(&format!(r#"{{"version":1,"config":{{"{key}":1}}}}"#));
    assert!(e.starts_with(&expected), "{e}");
    let e = link_err(&format!(r#"{{"version":1,"config":{{"{key}":1}}}}"#));
    assert!(e.starts_with(&format!("link: {expected}")), "{e}");
    let e = read_err(&format!(r#"{{"version":1,"{key}":1}}"#));
    assert!(e.starts_with(&format!("{}…: unknown field", "a".repeat(60))), "{e}");
}

#[test]
fn long_acks_protocol_and_step_names_are_quoted_as_excerpts() {
    let long = "z".repeat(100_000);
    let excerpt = format!("\"{}…\" (100,000 characters)", "z".repeat(60));
    let e = read_err(&format!(r#"{{"version":1,"steps":[{{"produce":{{"value":"x","acks":"{long}"}}}}]}}"#));
    assert!(e.starts_with(&format!("steps[0].produce.acks: invalid value: string {excerpt}")), "{e}");
    let e = read_err(&format!(r#"{{"version":1,"config":{{"protocol":"{long}"}}}}"#));
    assert!(e.starts_with(&format!("config.protocol: invalid value: string {excerpt}")), "{e}");
    let e = read_err(&format!(r#"{{"version":1,"steps":["{long}"]}}"#));
    assert_eq!(e, format!("steps[0]: unknown step {excerpt}"));
    let e = read_err(&format!(r#"{{"version":1,"steps":[{{"{long}":1}}]}}"#));
    assert!(e.starts_with(&format!("steps[0]: unknown variant {excerpt}, expected one of `produce`")), "{e}");
    let e = read_err(&format!(r#"{{"version":1,"config":{{"brokers":"{long}"}}}}"#));
    assert!(e.starts_with(&format!("config.brokers: invalid type: string {excerpt}, expected")), "{e}");
    let e = read_err(&format!(r#"{{"version":"{long}"}}"#));
    assert!(e.starts_with("version: \"zzzz") && e.contains('…'), "{e}");
    let e = highwater::view::fork::Change::parse(&format!("min_insync_replicas={long}")).unwrap_err().0;
    assert_tame(&e);
    let e = highwater::view::fork::Change::parse(&format!("{long}=1")).unwrap_err().0;
    assert_tame(&e);
}

/// A right-to-left override, a terminal title (OSC), a screen clear and a NUL.
const HOSTILE: [(&str, &str); 4] =
    [("\u{202E}", r"\u{202E}"), ("\u{1B}]0;pwned\u{7}", r"\u{1B}]0;pwned\u{7}"), ("\u{1B}[2J\u{1B}[H", r"\u{1B}[2J\u{1B}[H"), ("\u{0}", r"\u{0}")];

#[test]
fn invisible_characters_in_quoted_names_are_escaped() {
    for (raw, shown) in HOSTILE {
        let name = serde_json::to_string(&format!("x{raw}y")).unwrap();
        let e = read_err(&format!(r#"{{"version":1,"config":{{{name}:1}}}}"#));
        assert!(e.starts_with(&format!("config.x{shown}y: unknown field \"x{shown}y\"")), "{e}");
        let e = read_err(&format!(r#"{{"version":1,"steps":[{name}]}}"#));
        assert_eq!(e, format!("steps[0]: unknown step \"x{shown}y\""));
        let e = read_err(&format!(r#"{{"version":1,"steps":[{{{name}:1}}]}}"#));
        assert!(e.starts_with(&format!("steps[0]: unknown variant \"x{shown}y\"")), "{e}");
        let e = read_err(&format!(r#"{{"version":1,"config":{{{name}:{{"a":1,"a":1}}}}}}"#));
        assert_eq!(e, format!("config.x{shown}y.a: the key appears twice"));
        let e = read_err(&format!(r#"{{"version":1,"steps":[{{"produce":{{"value":"v","acks":{name}}}}}]}}"#));
        assert!(e.starts_with(&format!("steps[0].produce.acks: invalid value: string \"x{shown}y\"")), "{e}");
        link_err(&format!(r#"{{"version":1,"config":{{{name}:1}}}}"#));
    }
}

fn highwater(args: &[&str], file: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_highwater")).args(args).arg(file).output().expect("runs")
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("highwater-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_command_line_prints_a_hostile_scenario_error_as_one_short_escaped_line() {
    let long = "q".repeat(2_000_000 / 4);
    for (i, json) in [
        format!(r#"{{"version":1,"config":{{"{long}":1}}}}"#),
        format!(r#"{{"version":1,"config":{{"x\u202e\u001b]0;pwned\u0007\u001b[2J\u0000":1}}}}"#),
        long_key_over_many_values(512 * 1024, "top"),
    ]
    .iter()
    .enumerate()
    {
        let file = temp_file(&format!("bad-{i}.json"), json);
        for command in [&["run"][..], &["whatif"], &["explore", "--depth", "1", "--prefix"]] {
            let out = within(60, {
                let file = file.clone();
                let command: Vec<String> = command.iter().map(|s| s.to_string()).collect();
                move || highwater(&command.iter().map(|s| s.as_str()).collect::<Vec<_>>(), &file)
            });
            assert_eq!(out.status.code(), Some(2), "{command:?}: the exit status of a scenario that cannot be read");
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(stderr.starts_with("highwater: ") && stderr.len() < 800, "{} bytes: {}", stderr.len(), text::one_line(&stderr));
            assert!(!stderr.trim_end().chars().any(text::is_invisible), "{}", text::one_line(&stderr));
        }
    }
    // Standard input is read the same way.
    let mut child = Command::new(env!("CARGO_BIN_EXE_highwater"))
        .args(["run", "-"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let text = long_key_over_many_values(512 * 1024, "top");
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || std::io::Write::write_all(&mut stdin, text.as_bytes()));
    let out = within(60, move || child.wait_with_output().unwrap());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("highwater: standard input: kkkk") && stderr.len() < 800 && stderr.lines().count() == 1, "{stderr}");
    let file = temp_file("clear.json", &serde_json::json!({"version": 1, "steps": ["\u{1B}[2J"]}).to_string());
    let out = highwater(&["run"], &file);
    assert_eq!(String::from_utf8(out.stderr).unwrap(), format!("highwater: {}: steps[0]: unknown step \"\\u{{1B}}[2J\"\n", file.display()));
}

#[test]
fn the_command_line_trace_escapes_record_values_and_names() {
    let json = serde_json::json!({
        "version": 1,
        "name": "n\u{202E}\u{1B}]0;pwned\u{7}",
        "steps": [{"produce": {"value": "v\u{202E}\u{1B}[2J\u{0}", "acks": "all"}}, {"fetch": 2}, {"fetch": 3}, {"fetch": 2}, "consume"]
    });
    let file = temp_file("values.json", &json.to_string());
    for args in [&["run"][..], &["run", "--json"]] {
        let out = highwater(args, &file);
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains("v"), "{stdout}");
        let invisible: Vec<char> = stdout.chars().filter(|&c| text::is_invisible(c) && c != '\n').collect();
        assert!(invisible.is_empty(), "{args:?}: {invisible:?} in {stdout}");
    }
    let out = highwater(&["run", "--json"], &file);
    let state: serde_json::Value = serde_json::from_slice(&out.stdout).expect("still JSON");
    assert_eq!(state["brokers"][0]["log"][0]["value"], "v\u{202E}\u{1B}[2J\u{0}", "the same value, escaped as JSON");
}

#[test]
fn the_command_line_escapes_a_hostile_argument_in_its_usage_errors() {
    for args in [&["whatif", "--threads", "\u{1B}[2J\u{202E}", "x.json"][..], &["explore", "--protocol", "\u{1B}]0;pwned\u{7}"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_highwater")).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "a usage error exits 2 as before");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(r"'\u{1B}"), "{stderr}");
        assert!(!stderr.chars().any(|c| text::is_invisible(c) && c != '\n'), "{}", text::one_line(&stderr));
    }
    let long = "9".repeat(100_000);
    let out = Command::new(env!("CARGO_BIN_EXE_highwater")).args(["whatif", "--threads", &long, "x.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stderr.len() < 4_000, "{} bytes", out.stderr.len());
    let help = Command::new(env!("CARGO_BIN_EXE_highwater")).arg("--help").output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8(help.stdout).unwrap().contains("Usage: highwater"));
}
