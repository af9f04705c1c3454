//! A run as a user holds it: the scenario file (`scenario`, a public format),
//! the same scenario as a link (`link`), and the timeline that replays it,
//! keeps snapshots and seeks (`timeline`). Uses `model` and `base`.

pub mod scenario;
pub mod link;
pub mod timeline;
