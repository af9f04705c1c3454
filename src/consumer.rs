//! A consumer (read_uncommitted) that reads from the leader up to its high
//! watermark and remembers what it read (reference §7).

use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConsumedRecord {
    pub offset: u64,
    pub id: u64,
    pub value: Arc<str>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Consumer {
    /// The next offset to read.
    pub position: u64,
    pub read: Vec<ConsumedRecord>,
}
