//! One broker's replica of a partition: its log and high watermark, what it
//! believes about leadership, and (on a leader) what it knows of each follower
//! (`cluster/Partition.scala`, `cluster/Replica.scala`).

use crate::model::config::{BrokerId, BrokerList, PartitionId, PerBroker};
use crate::model::partition::log::Log;

/// What a leader keeps about one follower (`cluster/Replica.scala`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RemoteReplica {
    /// The follower's LEO as the leader last learned it from a fetch;
    /// unknown right after the leader took over.
    pub log_end_offset: Option<u64>,
    pub last_caught_up_ms: u64,
    last_fetch_leader_log_end_offset: u64,
    last_fetch_ms: u64,
}

impl RemoteReplica {
    /// `Replica.updateFetchState`: the follower is caught up at `now` if it
    /// fetched up to the leader's LEO, and was caught up at its previous fetch
    /// time if it has now reached the LEO the leader had back then.
    pub fn update_fetch_state(&mut self, fetch_offset: u64, leader_log_end_offset: u64, now_ms: u64) {
        if fetch_offset >= leader_log_end_offset {
            self.last_caught_up_ms = self.last_caught_up_ms.max(now_ms);
        } else if fetch_offset >= self.last_fetch_leader_log_end_offset {
            self.last_caught_up_ms = self.last_caught_up_ms.max(self.last_fetch_ms);
        }
        self.log_end_offset = Some(fetch_offset);
        self.last_fetch_leader_log_end_offset = leader_log_end_offset;
        self.last_fetch_ms = now_ms;
    }

    /// `Replica.resetReplicaState` on becoming leader: LEO unknown, no fetch
    /// seen yet (`updateFetchState` with unknown offsets and time 0), and an
    /// ISR member counts as caught up now.
    pub fn reset(now_ms: u64, in_isr: bool) -> RemoteReplica {
        RemoteReplica {
            log_end_offset: None,
            last_caught_up_ms: if in_isr { now_ms } else { 0 },
            last_fetch_leader_log_end_offset: 0,
            last_fetch_ms: 0,
        }
    }

    /// `makeLeader` for a leader that stays leader in a new epoch
    /// (`resetLastCaughtUpTime`; `resetReplicaState` with `isNewLeader`
    /// false): the follower's LEO is kept, its caught-up time restarts now if
    /// it is in the ISR (else 0), and its last fetch is taken as now.
    pub fn restart_caught_up_clock(&mut self, now_ms: u64, in_isr: bool, leader_log_end_offset: u64) {
        self.last_caught_up_ms = if in_isr { now_ms } else { 0 };
        self.last_fetch_leader_log_end_offset = leader_log_end_offset;
        self.last_fetch_ms = now_ms;
    }

    /// The leader's LEO and the time at this follower's previous fetch.
    pub fn last_fetch(&self) -> (u64, u64) {
        (self.last_fetch_leader_log_end_offset, self.last_fetch_ms)
    }
}

/// One broker's replica of one partition (Kafka's `Partition` on that
/// broker, with its local log): the log and HW, what the broker believes of
/// the partition's leadership, and, on a leader, what it knows of each
/// follower. What is the broker's, apart from any partition (its liveness,
/// its fetcher threads, the fetches it holds), is in `Broker`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Replica {
    /// The broker holding it.
    pub id: BrokerId,
    pub log: Log,
    pub high_watermark: u64,
    /// The last HW written to the checkpoint file; survives a crash.
    pub checkpointed_high_watermark: u64,
    /// The leader epoch this broker last learned from the controller.
    pub leader_epoch: u32,
    /// Who this broker believes leads the partition.
    pub leader: Option<BrokerId>,
    /// On a leader: its view of the ISR.
    pub isr: BrokerList,
    /// On a leader: one entry per broker id (index `id - 1`; its own unused).
    pub remote: PerBroker<RemoteReplica>,
    /// On a leader: the LEO when its epoch began (ISR expansion needs it since 2.1).
    pub epoch_start_offset: u64,
    /// On a leader: the ISR it asked the controller for and has no answer to
    /// yet (Kafka's `PendingShrinkIsr` / `PendingExpandIsr`). While it is
    /// pending the leader proposes no other change.
    pub pending_isr: Option<BrokerList>,
    /// The AlterPartition request on its way to the controller and back
    /// (timed mode, from 2.7). Kafka's `DefaultAlterPartitionManager` keeps
    /// one per partition, and it outlives the partition's state: a new
    /// leader epoch drops `pending_isr` but not this, and the answer is then
    /// ignored (`Partition.sendAlterPartitionRequest`'s callback). While it
    /// is out, nothing else is sent (`PartitionTest.testAlterIsrLeaderAndIsrRace`).
    pub alter_partition: Option<AlterPartitionInFlight>,
    /// The fetcher's state of this partition (`PartitionFetchState`): 0.11
    /// to 2.1, an OffsetsForLeaderEpoch round must come before fetching it
    /// (`Truncating`).
    pub needs_epoch_truncation: bool,
    /// The broker is in controlled shutdown and left the ISR (or the
    /// partition has no leader): it stopped fetching the partition
    /// (`ReplicaManager.applyLocalFollowersDelta`, KRaft from 3.3).
    pub stopped_for_shutdown: bool,
    /// After an error for this partition, the fetcher leaves it out until
    /// then (`AbstractFetcherThread.delayPartitions`, `replica.fetch.backoff.ms`).
    pub fetch_backoff_until_ms: u64,
}

/// An AlterPartition request in flight: what it proposed, in which leader
/// epoch, and when the controller's answer arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AlterPartitionInFlight {
    pub isr: BrokerList,
    pub leader_epoch: u32,
    pub answer_ms: u64,
}

crate::clone_in_place!(Replica { id, log, high_watermark, checkpointed_high_watermark, leader_epoch, leader, isr, remote, epoch_start_offset, pending_isr, alter_partition, needs_epoch_truncation, stopped_for_shutdown, fetch_backoff_until_ms });

impl Replica {
    pub fn new(id: BrokerId, brokers: u32) -> Replica {
        Replica {
            id,
            log: Log::default(),
            high_watermark: 0,
            checkpointed_high_watermark: 0,
            leader_epoch: 0,
            leader: None,
            isr: BrokerList::new(),
            remote: (0..brokers).map(|_| RemoteReplica::default()).collect(),
            epoch_start_offset: 0,
            pending_isr: None,
            alter_partition: None,
            needs_epoch_truncation: false,
            stopped_for_shutdown: false,
            fetch_backoff_until_ms: 0,
        }
    }

    pub fn log_end_offset(&self) -> u64 {
        self.log.log_end_offset()
    }

    /// Believes itself the leader (possibly a stale one; a broker that is
    /// down keeps the belief it had: `Simulation::is_leader` asks both).
    pub fn believes_leader(&self) -> bool {
        self.leader == Some(self.id)
    }

    /// Believes some other broker leads.
    pub fn followed_leader(&self) -> Option<BrokerId> {
        self.leader.filter(|&l| l != self.id)
    }

    pub fn remote(&self, follower: BrokerId) -> &RemoteReplica {
        &self.remote[(follower - 1) as usize]
    }

    pub fn remote_mut(&mut self, follower: BrokerId) -> &mut RemoteReplica {
        &mut self.remote[(follower - 1) as usize]
    }

    /// `Partition.makeLeader`: take the epoch, note where it starts, forget
    /// every follower's LEO. `record_epoch_now`: since Kafka 2.1 (KAFKA-7415)
    /// the new epoch enters the epoch cache at once; before, at the leader's
    /// first append in it.
    pub fn make_leader(&mut self, leader_epoch: u32, isr: BrokerList, now_ms: u64, record_epoch_now: bool) {
        self.leader = Some(self.id);
        self.leader_epoch = leader_epoch;
        if record_epoch_now {
            self.log.assign_epoch(leader_epoch);
        }
        self.epoch_start_offset = self.log_end_offset();
        for (i, r) in self.remote.iter_mut().enumerate() {
            *r = RemoteReplica::reset(now_ms, isr.contains(&(i as u32 + 1)));
        }
        self.isr = isr;
        self.needs_epoch_truncation = false;
        self.stopped_for_shutdown = false;
        self.fetch_backoff_until_ms = 0;
        self.pending_isr = None;
    }

    /// A leader learns a new epoch for itself (an ISR shrink bumped it): the
    /// epoch starts at the log end; it keeps its followers' LEOs, and their
    /// caught-up clocks restart (`Partition.makeLeader`).
    pub fn continue_leading(&mut self, leader_epoch: u32, isr: BrokerList, now_ms: u64, record_epoch_now: bool) {
        self.leader_epoch = leader_epoch;
        if record_epoch_now {
            self.log.assign_epoch(leader_epoch);
        }
        let leo = self.log_end_offset();
        self.epoch_start_offset = leo;
        for (i, r) in self.remote.iter_mut().enumerate() {
            r.restart_caught_up_clock(now_ms, isr.contains(&(i as u32 + 1)), leo);
        }
        self.isr = isr;
        self.pending_isr = None;
    }

    /// Followers of the leader's ISR that are out of sync
    /// (`Partition.getOutOfSyncReplicas`): not caught up for more than the lag
    /// time. `exempt_at_log_end`: since Kafka 2.1 (KAFKA-7152,
    /// `isFollowerOutOfSync`) a follower at the leader's LEO is never out of
    /// sync; before, only the time counted.
    pub fn out_of_sync_replicas(&self, now_ms: u64, lag_time_max_ms: u64, exempt_at_log_end: bool) -> BrokerList {
        let leo = self.log_end_offset();
        self.isr
            .iter()
            .copied()
            .filter(|&f| f != self.id)
            .filter(|&f| {
                let r = self.remote(f);
                let at_end = exempt_at_log_end && r.log_end_offset == Some(leo);
                !at_end && now_ms.saturating_sub(r.last_caught_up_ms) > lag_time_max_ms
            })
            .collect()
    }

    /// The first moment `out_of_sync_replicas` would name a follower if
    /// nothing changed meanwhile (a follower falls out of sync once more
    /// than the lag time has passed since it was last caught up); `None` if
    /// it never would (every follower at the log end, or none).
    pub fn out_of_sync_from_ms(&self, lag_time_max_ms: u64, exempt_at_log_end: bool) -> Option<u64> {
        let leo = self.log_end_offset();
        self.isr
            .iter()
            .filter(|&&f| f != self.id)
            .filter_map(|&f| {
                let r = self.remote(f);
                let at_end = exempt_at_log_end && r.log_end_offset == Some(leo);
                (!at_end).then(|| r.last_caught_up_ms.saturating_add(lag_time_max_ms).saturating_add(1))
            })
            .min()
    }

    /// The HW the leader may move to: the smallest LEO over itself and its
    /// ISR (`Partition.maybeIncrementLeaderHW`). `None` while some ISR
    /// follower's LEO is unknown (a new leader waits for every ISR follower).
    pub fn isr_high_watermark(&self, members: &BrokerList) -> Option<u64> {
        let mut hw = self.log_end_offset();
        for &b in members {
            if b != self.id {
                hw = hw.min(self.remote(b).log_end_offset?);
            }
        }
        Some(hw)
    }

    /// The LEO of each ISR member as this leader knows it (for the trace).
    pub fn isr_log_end_offsets(&self, members: &BrokerList) -> PerBroker<(BrokerId, u64)> {
        let leo = |b: BrokerId| if b == self.id { Some(self.log_end_offset()) } else { self.remote(b).log_end_offset };
        members.iter().filter_map(|&b| leo(b).map(|l| (b, l))).collect()
    }

    /// KIP-497's maximal ISR: the ISR with the member an expansion waiting
    /// for the controller adds (`PendingExpandIsr`: `isr + newInSyncReplicaId`;
    /// a pending shrink keeps the ISR as it is until it is committed).
    pub fn maximal_isr(&self) -> BrokerList {
        let Some(pending) = self.pending_isr else { return self.isr };
        let mut members = self.isr;
        for &b in pending.iter() {
            if !members.contains(&b) {
                members.push(b);
            }
        }
        members.sort_unstable();
        members
    }

    /// A leader may propose an ISR change: none is pending, and no
    /// AlterPartition request of an earlier state is still out.
    pub fn may_propose_isr(&self) -> bool {
        self.pending_isr.is_none() && self.alter_partition.is_none()
    }
}

/// One partition of the topic as the brokers hold it: a replica on each
/// broker (index `id - 1`).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Partition {
    pub id: PartitionId,
    pub replicas: Vec<Replica>,
}

crate::clone_in_place!(Partition { id, replicas });

impl Partition {
    pub fn new(id: PartitionId, brokers: u32) -> Partition {
        Partition { id, replicas: (1..=brokers).map(|b| Replica::new(b, brokers)).collect() }
    }
}
