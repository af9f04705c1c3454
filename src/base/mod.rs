//! Small building blocks with nothing of Kafka in them: a value shared
//! between copies until one changes it, a sorted set and a sorted deque of
//! arrivals in small vectors, the seeded PRNG, and text helpers. Imports
//! nothing of the crate.

pub mod arrivals;
pub mod rng;
pub mod shared;
pub mod sorted_set;
pub mod text;
