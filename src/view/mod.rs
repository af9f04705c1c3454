//! What is derived from a run for people to read, computed in the core so
//! that the page only draws: the state view of one moment (`state`, with the controller quorum's
//! in `quorum`), the
//! operator's view (`operator`), the space-time diagram (`spacetime`) and a
//! fork compared with its original (`fork`), and a tour checked against the
//! model (`tour`, and what `tour check` prints in `tour_report`). Uses `run`, `model` and `base`.

pub mod state;
pub mod quorum;
pub mod operator;
pub mod spacetime;
pub mod fork;
pub mod tour;
pub mod tour_report;
