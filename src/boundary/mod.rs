//! Where the core meets the outside: the WebAssembly API the page calls
//! (`wasm`: one opaque handle, JSON in and out, typed errors turned into JS
//! errors in one place), the tour author's calls that only the workers'
//! build has (`authoring`, the `authoring` feature; `explorer_parts`, the
//! explorer shared by several workers, the `workers` feature) and the benchmarks'
//! entry points (`bench`). The command line is the binary, `src/main.rs`.
//! May use every layer.

pub mod bench;
#[cfg(all(target_arch = "wasm32", feature = "authoring"))]
pub mod authoring;
#[cfg(all(target_arch = "wasm32", feature = "workers"))]
pub mod explorer_parts;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
