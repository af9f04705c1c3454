//! Where the core meets the outside: the WebAssembly API the page calls
//! (`wasm`: one opaque handle, JSON in and out, typed errors turned into JS
//! errors in one place), the calls that only the workers' build has
//! (`authoring`, the tour author's, with the `authoring` feature; `searches`,
//! the explorer and the outcome grid, and `explorer_parts`, the explorer
//! shared by several workers, with the `workers` feature) and the benchmarks'
//! entry points (`bench`). The command line is the binary, `src/main.rs`.
//! May use every layer.

pub mod bench;
#[cfg(all(target_arch = "wasm32", feature = "authoring"))]
pub mod authoring;
#[cfg(all(target_arch = "wasm32", feature = "workers"))]
pub mod explorer_parts;
#[cfg(all(target_arch = "wasm32", feature = "workers"))]
pub mod searches;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
