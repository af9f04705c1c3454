//! The controller, deciding over every partition of the topic: what it
//! holds (`registrations`), its decisions (`decisions`: fencing, ISR
//! changes, elections, controlled shutdown's leader moves, and the brokers
//! told of each), the automatic leader rebalance (`rebalance`), and, with a
//! controller quorum, its decisions as metadata records and its activation
//! (`metadata`).

pub mod registrations;
pub mod decisions;
pub mod rebalance;
pub mod metadata;
