//! What `tour check` prints for a tour file, as text: the command line
//! (`highwater tour check`) and the package's own command
//! (`npx highwater-playground check`, on the workers' core) both print this,
//! so a docs site's CI without Rust finds what the command line finds, word
//! for word, with the same exit status.

use crate::base::text::{json_for_terminal, one_line};
use crate::view::tour::{BuiltInTour, TourFile, MAX_TOUR_BYTES};
use serde::Serialize;

/// One file's report: what goes to standard output and to standard error,
/// and the exit status (0: every fact holds; 1: findings; 2: the file could
/// not be read, `error` then says why, without the program's name).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    pub stdout: String,
    pub stderr: String,
    pub error: Option<String>,
    pub code: u8,
}

/// Checks the tour file `text` (read from `name`): an author's file (`"highwater_tour": 1`),
/// or a built-in tour (www/tours/), which says no format. With `json`, the
/// check as one JSON object on standard output.
pub fn check_report(name: &str, text: &str, json: bool) -> CheckReport {
    let failed = |message: String| CheckReport { stdout: String::new(), stderr: String::new(), error: Some(one_line(&message)), code: 2 };
    if text.len() > MAX_TOUR_BYTES {
        return failed(format!("{name}: larger than the limit of {MAX_TOUR_BYTES} bytes"));
    }
    // An author's file says its format; a built-in tour (www/tours/) does not.
    let built_in = serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| v.get("highwater_tour").is_none() && v.get("parts").is_some());
    let read = if built_in { BuiltInTour::from_json(text).map(|t| (t.id.clone(), t.check())) } else { TourFile::from_json(text).map(|t| (t.id.clone(), t.check())) };
    let (id, check) = match read {
        Ok(read) => read,
        Err(e) => return failed(format!("{name}: {e}")),
    };
    // Every line through the terminal's one function for user text
    // (`text::one_line`, JSON through `json_for_terminal`): a fact's key, a
    // record's value or a stop's key reach the terminal as text, never as
    // an escape sequence. At most `MAX_FINDINGS` findings, and a count of the rest.
    let id = one_line(&id);
    let n = check.findings.len() + check.more_findings;
    let stdout = if json {
        json_for_terminal(&(serde_json::to_string_pretty(&check).expect("a check serializes") + "\n")).into_owned()
    } else {
        let mut text = String::new();
        for finding in &check.findings {
            text += &format!("{id}: {}\n", one_line(&finding.to_string()));
        }
        if check.more_findings > 0 {
            text += &format!("{id}: and {} more finding{} (the first {} are listed)\n", check.more_findings, if check.more_findings == 1 { "" } else { "s" }, check.findings.len());
        }
        text
    };
    let (stderr, code) = if n == 0 {
        (format!("{id}: every fact holds ({} prediction{})\n", check.predictions.len(), if check.predictions.len() == 1 { "" } else { "s" }), 0)
    } else {
        (format!("{id}: {n} finding{} (a fact the model does not bear out, or a step or stop that cannot be)\n", if n == 1 { "" } else { "s" }), 1)
    };
    CheckReport { stdout, stderr, error: None, code }
}
