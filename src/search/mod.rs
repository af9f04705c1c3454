//! Many runs at once: the explorer, which searches every interleaving for
//! the shortest run that breaks a guarantee (`explore`, with its visited set
//! in `visited`), and the what-if grid of settings (`whatif`). Uses `view`,
//! `run`, `model` and `base`.

pub(crate) mod breadth_first;
pub mod explore;
pub(crate) mod moves;
pub(crate) mod state_key;
pub(crate) mod visited;
pub mod whatif;
