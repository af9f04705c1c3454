//! The controller, deciding over every partition of the topic: what it
//! holds (`registrations`), its decisions (`decisions`: fencing, ISR
//! changes, elections, controlled shutdown's leader moves, and the brokers
//! told of each), and the automatic leader rebalance (`rebalance`).

pub mod registrations;
pub mod decisions;
pub mod rebalance;
