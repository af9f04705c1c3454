//! A broker told a partition's leader, epoch and ISR: by a LeaderAndIsr
//! request from the controller, or, under KRaft with a controller quorum,
//! by a partition change record it has applied. It leads
//! (`Partition.makeLeader`) or follows (`Partition.makeFollower`,
//! `ReplicaManager.makeFollowers`).

use crate::model::config::{BrokerId, BrokerList, PartitionId};
use crate::model::controller::registrations::LeaderAndIsr;
use crate::model::event::{Event, Truncation};
use crate::model::protocol::Errors;
use crate::model::rules::{Rule, TruncationRule};
use crate::model::simulation::Simulation;

impl Simulation {
    /// Broker `b` learns partition `p`'s leader, epoch and ISR: from a
    /// LeaderAndIsr request, or from a committed partition change record
    /// under KRaft (`ReplicaManager.applyDelta`).
    pub(crate) fn apply_leader_and_isr(&mut self, p: PartitionId, b: BrokerId, state: LeaderAndIsr) {
        let LeaderAndIsr { leader, leader_epoch: epoch, isr } = state;
        if leader == Some(b) {
            if self.is_leader(p, b) && self.replica(p, b).leader_epoch == epoch {
                let broker = self.replica_mut(p, b);
                // The controller changed the ISR itself (a new partition
                // epoch): the leader takes it as committed and drops the
                // change it proposed (`Partition.makeLeader`; an answer still
                // out is then ignored, `PartitionTest.testAlterIsrLeaderAndIsrRace`).
                if broker.isr != isr || broker.pending_isr == Some(isr) {
                    broker.pending_isr = None;
                }
                broker.isr = isr;
                self.maybe_increment_high_watermark(p, b);
            } else {
                self.become_leader(p, b, epoch, isr);
            }
        } else {
            self.become_follower(p, b, leader, epoch, isr);
        }
    }

    /// `Partition.makeLeader`. A broker that already leads and only learns a
    /// new epoch (an ISR shrink that bumped it) keeps what it knows of its
    /// followers and its waiting produce requests; a new leader forgets both.
    pub(crate) fn become_leader(&mut self, p: PartitionId, b: BrokerId, epoch: u32, isr: BrokerList) {
        let already = self.is_leader(p, b);
        let now = self.now_ms;
        let record_epoch_now = self.rules.has(Rule::EpochCachedOnBecomingLeader);
        if let Some(old) = self.following(p, b) {
            self.remove_fetcher(p, b, old);
        }
        if !already {
            // It holds no fetch of an earlier leadership of the partition.
            self.release_held_fetches(p, b);
        }
        let replica = self.replica_mut(p, b);
        if already {
            replica.continue_leading(epoch, isr, now, record_epoch_now);
        } else {
            replica.make_leader(epoch, isr, now, record_epoch_now);
        }
        let start_offset = replica.log_end_offset();
        self.emit_in(p, Event::BecameLeader { broker: b, leader_epoch: epoch, start_offset });
        self.maybe_increment_high_watermark(p, b);
    }

    /// `ReplicaManager.makeFollowers`. 0.10 truncates to the own HW here;
    /// 0.11 to 2.1 must first ask OffsetsForLeaderEpoch; 2.8+ learns of any
    /// divergence from its next fetch. Before 2.1 `Partition.makeFollower`
    /// does nothing more when only the epoch changed; since 2.1 (KIP-320) a
    /// new epoch also sends the follower through truncation.
    pub(crate) fn become_follower(&mut self, p: PartitionId, b: BrokerId, leader: Option<BrokerId>, epoch: u32, isr: BrokerList) {
        let replica = self.replica(p, b);
        let leader_changed = replica.leader != leader;
        if !leader_changed && replica.leader_epoch == epoch {
            return;
        }
        if self.is_leader(p, b) {
            // DelayedProduce completes with NOT_LEADER_OR_FOLLOWER when leadership is lost.
            self.fail_pending_produces(b, Some(p), Errors::NotLeaderOrFollower);
        }
        // A fetch still out to the same leader stays the one in flight (its
        // fetcher thread waits for the answer and drops it as stale); a fetch
        // to another leader goes with that leader's fetcher thread.
        let fetching_from = self.following(p, b);
        if let Some(old) = fetching_from.filter(|&old| Some(old) != leader) {
            self.remove_fetcher(p, b, old);
        }
        let rules = self.rules;
        let now = self.now_ms;
        self.release_held_fetches(p, b);
        let broker = self.broker_mut(b);
        if let Some(l) = leader.filter(|&l| l != b) {
            // The partition joins the fetcher to its leader, which may send at once.
            let fetcher = broker.fetcher_mut(l);
            if fetcher.in_flight_since_ms.is_none() || fetching_from != leader {
                fetcher.in_flight_since_ms = None;
                fetcher.next_fetch_ms = now;
            }
        }
        let replica = self.replica_mut(p, b);
        replica.fetch_backoff_until_ms = 0;
        replica.leader = leader;
        replica.leader_epoch = epoch;
        replica.isr.clear();
        replica.pending_isr = None;
        let truncate = leader.is_some() && (leader_changed || rules.has(Rule::LeaderEpochFencing));
        if rules.truncation() == TruncationRule::OffsetsForLeaderEpoch && truncate {
            replica.needs_epoch_truncation = true;
        }
        let hw = replica.high_watermark;
        self.emit_in(p, Event::BecameFollower { broker: b, leader, leader_epoch: epoch });
        // In controlled shutdown (KRaft): a partition it is not in the ISR of,
        // or without a leader, is no longer fetched (`applyLocalFollowersDelta`).
        let shutting_down = self.broker(b).shutdown_at_ms.is_some() && !self.replica(p, b).stopped_for_shutdown;
        if shutting_down && (leader.is_none() || !isr.contains(&b)) {
            self.stop_fetching_for_shutdown(p, b);
        }
        if rules.truncation() == TruncationRule::HighWatermark && truncate {
            self.truncate(p, b, hw, Truncation::HighWatermark { high_watermark: hw });
        }
    }
}
