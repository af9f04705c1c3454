//! A broker, apart from the partitions it holds: whether it runs and is
//! registered, its controlled shutdown, its fetcher, and the fetches it holds
//! as a leader (`server/KafkaServer.scala`, `BrokerLifecycleManager`,
//! `AbstractFetcherThread`, `server/DelayedFetch.scala`). Its replicas of
//! each partition are `Replica`s.

use crate::model::config::{BrokerId, PerBroker};
use crate::model::protocol::Fetch;

/// A follower's fetch the leader holds until records arrive or its wait is
/// over (`server/DelayedFetch.scala`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DelayedFetch {
    pub request: Fetch,
    pub until_ms: u64,
}

/// A fetcher thread (`AbstractFetcherThread`), one per broker the broker
/// follows some partition on: one request out at a time, and when the next
/// may go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fetcher {
    /// When the request in flight was sent (timed mode).
    pub in_flight_since_ms: Option<u64>,
    pub next_fetch_ms: u64,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Broker {
    pub id: BrokerId,
    /// Running and registered with the controller: it serves.
    pub alive: bool,
    /// Restarted, but not yet registered: its old session has not expired
    /// (`ClusterControlManager.registerBroker`), so it serves nothing.
    pub starting: bool,
    /// Its last stop was clean (a controlled shutdown): from 4.0 the broker
    /// writes its epoch to `.kafka_cleanshutdown` and registers with it as
    /// `previousBrokerEpoch`, and the controller then keeps it in the ELR
    /// (`ClusterControlManager.registerBroker`, KIP-966). A crash clears it.
    pub clean_shutdown: bool,
    /// In controlled shutdown (KRaft): when its next heartbeat is answered
    /// `shouldShutDown` and it stops (`BrokerLifecycleManager`, every
    /// `broker.heartbeat.interval.ms`).
    pub shutdown_at_ms: Option<u64>,
    /// Its fetchers are paused (a `pause` step, timed mode).
    pub fetchers_paused: bool,
    /// Its fetcher to each leader broker (index `leader - 1`).
    pub fetchers: PerBroker<Fetcher>,
    /// As a leader: followers' fetches it holds (timed mode).
    pub delayed_fetches: Vec<DelayedFetch>,
    /// With a controller quorum: the end of the committed metadata it has
    /// applied (its metadata offset), and its broker epoch, the offset of
    /// its registration record.
    pub metadata_offset: u64,
    pub broker_epoch: u64,
}

crate::clone_in_place!(Broker { id, alive, starting, clean_shutdown, shutdown_at_ms, fetchers_paused, fetchers, delayed_fetches, metadata_offset, broker_epoch });

impl Broker {
    pub fn new(id: BrokerId, brokers: u32) -> Broker {
        Broker {
            id,
            alive: true,
            starting: false,
            clean_shutdown: false,
            shutdown_at_ms: None,
            fetchers_paused: false,
            fetchers: (0..brokers).map(|_| Fetcher::default()).collect(),
            delayed_fetches: Vec::new(),
            metadata_offset: 0,
            broker_epoch: 0,
        }
    }

    /// Its fetcher to `leader`.
    pub fn fetcher(&self, leader: BrokerId) -> &Fetcher {
        &self.fetchers[(leader - 1) as usize]
    }

    pub fn fetcher_mut(&mut self, leader: BrokerId) -> &mut Fetcher {
        &mut self.fetchers[(leader - 1) as usize]
    }

    /// A restart or a crash: no request is out, and each fetcher may send at once.
    pub fn reset_fetchers(&mut self) {
        self.fetchers.iter_mut().for_each(|f| *f = Fetcher::default());
    }
}
