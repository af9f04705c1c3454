//! Many runs at once: the explorer, which searches every interleaving for
//! the shortest run that breaks a guarantee, and the what-if grid of
//! settings (`whatif`). The explorer: what it is asked (`spec`), its entry
//! point, random walks and minimising (`explore`), the breadth-first search
//! on threads or Web Workers (`breadth_first`), the moves of a state
//! (`moves`), the state key (`state_key`) and the visited set (`visited`).
//! Uses `view`, `run`, `model` and `base`.

pub(crate) mod breadth_first;
pub mod explore;
pub(crate) mod moves;
pub(crate) mod spec;
pub(crate) mod state_key;
pub mod symmetry;
pub(crate) mod visited;
pub mod whatif;
