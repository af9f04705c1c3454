//! The tour author's calls (docs/tours.md, "Your own tour: a tour file"): a
//! tour file or a tour link read and checked by the model, and a tour
//! written as a link. Built only with the `authoring` feature, which
//! scripts/build-wasm.sh turns on for the workers' core (www/pkg-fast), so
//! the page's core on the first load (www/pkg) does not carry them; the page
//! calls them in a Web Worker (www/workers/tour-worker.js). Thin, as
//! `wasm.rs` is: the arguments checked there the same way, then `view::tour`
//! and `run::link`, each failure a JS `Error` with the core's message.

use super::wasm::{args, to_js};
use crate::view::tour::{BuiltInTour, TourCheck, TourFile, MAX_TOUR_BYTES, MAX_TOUR_LINK_CHARS};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TOUR_TYPES: &'static str = r#"
/** Words in one or more languages: a language tag to the text. */
export type TourWords = Record<string, string>;
/** A docs author's tour file as read (www/tour.schema.json). */
export interface TourFile {
  highwater_tour: 1;
  id: string;
  title: TourWords;
  summary?: TourWords;
  parts: { scenario: object; stops: TourStop[] }[];
}
export interface TourStop {
  key: string;
  at: number;
  do?: true;
  facts?: Record<string, unknown>;
  predict?: string;
  caption: TourWords;
  task?: TourWords;
}
/** What the check found wrong at a stop (`stop` empty: the file as a whole). */
export interface TourFinding {
  stop: string;
  part: number | null;
  at: number | null;
  fact: string | null;
  expected: unknown;
  actual: unknown;
  message: string;
}
/** A prediction stop: the model's answer and the choices, ascending. */
export interface TourPrediction { stop: string; path: string; answer: unknown; choices: unknown[] }
/** At most 20 findings (`more_findings` counts the rest), each a bounded line. */
export interface TourCheck { findings: TourFinding[]; more_findings: number; predictions: TourPrediction[] }
export interface CheckedTour extends TourCheck { tour: TourFile }
"#;

/// A tour as read with its check (`checkTour`, `tourFromLink`).
#[derive(Serialize)]
struct Checked<'a> {
    tour: &'a TourFile,
    #[serde(flatten)]
    check: TourCheck,
}

fn checked(tour: &TourFile) -> Result<JsValue, JsValue> {
    Ok(to_js(&Checked { tour, check: tour.check() })?)
}

/// A tour file's text (`"highwater_tour": 1`), read and checked: `{ tour,
/// findings, predictions }`. Throws with the reader's message for a file it
/// cannot read (not JSON, an unknown key, over a limit).
#[wasm_bindgen(js_name = checkTour, unchecked_return_type = "CheckedTour")]
pub fn check_tour(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<JsValue, JsValue> {
    // Longer text is refused by the reader with its size; this bound only keeps it out of memory.
    let text = args::text(&text, "checkTour: text", MAX_TOUR_BYTES)?;
    checked(&TourFile::from_json(&text).map_err(|e| JsError::new(&e))?)
}

/// A built-in tour's text (www/tours/<id>.json), checked: `{ findings, predictions }`.
#[wasm_bindgen(js_name = checkBuiltInTour, unchecked_return_type = "TourCheck")]
pub fn check_built_in_tour(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<JsValue, JsValue> {
    let text = args::text(&text, "checkBuiltInTour: text", MAX_TOUR_BYTES)?;
    let tour = BuiltInTour::from_json(&text).map_err(|e| JsError::new(&e))?;
    Ok(to_js(&tour.check())?)
}

/// A tour file's text as a link (`v1.…`, what follows `#t=`): read and
/// validated, then written compactly. Throws for a file it cannot read and
/// for a link past the limit (`view::tour::MAX_TOUR_LINK_CHARS`).
#[wasm_bindgen(js_name = tourToLink)]
pub fn tour_to_link(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<String, JsValue> {
    let text = args::text(&text, "tourToLink: text", MAX_TOUR_BYTES)?;
    let tour = TourFile::from_json(&text).map_err(|e| JsError::new(&e))?;
    Ok(tour.to_link().map_err(|e| JsError::new(&e))?)
}

/// What `highwater tour check` prints for a tour file, word for word
/// (`view::tour_report`): `{ stdout, stderr, error, code }`, for the
/// package's command (`npx highwater-playground check`). `name` is the file's
/// name as the messages give it.
#[wasm_bindgen(js_name = tourCheckReport, unchecked_return_type = "{ stdout: string; stderr: string; error: string | null; code: number }")]
pub fn tour_check_report(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    json: bool,
) -> Result<JsValue, JsValue> {
    let name = args::text(&name, "tourCheckReport: name", 4096)?;
    // One byte past the limit is enough for the report to refuse it with its size.
    let text = args::text(&text, "tourCheckReport: text", MAX_TOUR_BYTES + 1)?;
    Ok(to_js(&crate::view::tour_report::check_report(&name, &text, json))?)
}

/// A tour link's text (what follows `#t=`), decoded, read and checked as
/// `checkTour`. Throws on a corrupt, truncated or oversized link, each
/// message starting "tour link: ".
#[wasm_bindgen(js_name = tourFromLink, unchecked_return_type = "CheckedTour")]
pub fn tour_from_link(#[wasm_bindgen(unchecked_param_type = "string")] link: JsValue) -> Result<JsValue, JsValue> {
    // Longer text is refused by the decoder with its length; this bound only keeps it out of memory.
    let link = args::text(&link, "tourFromLink: link", 4 * MAX_TOUR_LINK_CHARS)?;
    checked(&TourFile::from_link(&link).map_err(|e| JsError::new(&e))?)
}
