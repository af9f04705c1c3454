//! The quorum's replication (`handleFetchRequest`, `handleFetchResponse`,
//! `LeaderState.maybeUpdateHighWatermark`): the leader's appends, the
//! followers' fetches, DivergingEpoch and the majority HW.

use crate::model::config::ControllerId;
use crate::model::event::Event;
use crate::model::quorum::message::{QuorumError, Rpc};
use crate::model::quorum::metadata_log::MetadataRecord;
use crate::model::quorum::voter::{ParkedFetch, Role};
use crate::model::quorum::{Quorum, MAX_FETCH_WAIT_MS, REQUEST_TIMEOUT_MS, RETRY_BACKOFF_MS};

impl Quorum {
    // ----- replication -----------------------------------------------------------

    /// The leader appends a record in its epoch; held fetches are answered
    /// with it (`fetchPurgatory.maybeComplete`).
    pub fn append(&mut self, c: ControllerId, record: MetadataRecord, now_ms: u64) {
        let v = self.voter_mut(c);
        debug_assert_eq!(v.role, Role::Leader);
        let epoch = v.epoch;
        let entry = v.log.append(epoch, record);
        let end = v.log.end_offset();
        v.end_offsets[(c - 1) as usize] = Some(end);
        self.outbox.push(Event::MetadataAppended { controller: c, entry });
        self.maybe_advance_high_watermark(c, now_ms);
        let parked = std::mem::take(&mut self.voter_mut(c).parked);
        for p in parked {
            self.answer_fetch(c, p.from, now_ms);
        }
    }

    /// A follower asks its leader for what follows its log end.
    pub(super) fn send_fetch(&mut self, c: ControllerId, now_ms: u64) {
        let v = self.voter_mut(c);
        let Some(leader) = v.leader else { return };
        v.fetch_due_ms = None;
        v.fetch_expires_ms = Some(now_ms + REQUEST_TIMEOUT_MS);
        let rpc = Rpc::Fetch { epoch: v.epoch, fetch_offset: v.log.end_offset(), last_fetched_epoch: v.log.last_fetched_epoch() };
        self.send(c, leader, rpc, now_ms);
    }

    /// `handleFetchRequest`, `tryCompleteFetchRequest`: a stale or unknown
    /// epoch is refused; a follower whose last epoch ends earlier on the
    /// leader is told where (DivergingEpoch, at once); otherwise its fetch
    /// offset acknowledges what it holds, and it gets the records from there
    /// (uncommitted included), or waits for one.
    pub(super) fn handle_fetch(&mut self, c: ControllerId, follower: ControllerId, epoch: u32, fetch_offset: u64, last_fetched_epoch: u32, now_ms: u64) {
        let v = self.voter(c);
        let error = if epoch < v.epoch {
            Some(QuorumError::FencedLeaderEpoch)
        } else if epoch > v.epoch {
            // The leader does not adopt the fetcher's epoch.
            Some(QuorumError::UnknownLeaderEpoch)
        } else if v.role != Role::Leader {
            Some(QuorumError::NotLeaderOrFollower)
        } else {
            None
        };
        if let Some(error) = error {
            // An error answer carries no HW (-1).
            let rpc = Rpc::FetchResponse { epoch: v.epoch, leader: v.leader, error: Some(error), records: vec![], diverging: None, high_watermark: None };
            self.send(c, follower, rpc, now_ms);
            return;
        }
        let (found_epoch, end) = v.log.end_offset_for_epoch(last_fetched_epoch);
        if found_epoch != last_fetched_epoch || end < fetch_offset {
            let rpc = Rpc::FetchResponse {
                epoch: v.epoch,
                leader: v.leader,
                error: None,
                records: vec![],
                diverging: Some((found_epoch, end)),
                high_watermark: v.high_watermark,
            };
            self.send(c, follower, rpc, now_ms);
            return;
        }
        let (majority, check_quorum_ms) = (self.majority(), now_ms + self.timings.fetch_timeout_ms * 3 / 2);
        let check_quorum = self.rules.check_quorum;
        let v = self.voter_mut(c);
        v.end_offsets[(follower - 1) as usize] = Some(fetch_offset);
        if !v.acknowledged.contains(&follower) {
            v.acknowledged.push(follower);
        }
        // `updateCheckQuorumForFollowingVoter`: once a majority (the leader
        // counts itself) fetched, the check starts again.
        if check_quorum {
            if !v.fetched_voters.contains(&follower) {
                v.fetched_voters.push(follower);
            }
            if v.fetched_voters.len() + 1 >= majority {
                v.fetched_voters.clear();
                v.check_quorum_ms = Some(check_quorum_ms);
            }
        }
        self.maybe_advance_high_watermark(c, now_ms);
        let v = self.voter_mut(c);
        if fetch_offset < v.log.end_offset() {
            self.answer_fetch(c, follower, now_ms);
        } else {
            v.parked.retain(|p| p.from != follower);
            v.parked.push(ParkedFetch { from: follower, until_ms: now_ms + MAX_FETCH_WAIT_MS });
        }
    }

    /// The leader answers a fetch from `follower`'s acknowledged offset.
    pub(super) fn answer_fetch(&mut self, c: ControllerId, follower: ControllerId, now_ms: u64) {
        let v = self.voter(c);
        let from = v.end_offsets[(follower - 1) as usize].unwrap_or(0);
        let rpc = Rpc::FetchResponse {
            epoch: v.epoch,
            leader: Some(c),
            error: None,
            records: v.log.from_offset(from).to_vec(),
            diverging: None,
            high_watermark: v.high_watermark,
        };
        self.send(c, follower, rpc, now_ms);
    }

    /// The leader's HW (`LeaderState.maybeUpdateHighWatermark`): the end
    /// offset a majority of voters has reached (the leader's own included),
    /// adopted only past the start of its epoch (the Raft commit rule) and
    /// only upward.
    pub(super) fn maybe_advance_high_watermark(&mut self, c: ControllerId, now_ms: u64) {
        let commit_rule = self.rules.commit_only_past_epoch_start;
        let majority = self.majority();
        let v = self.voter_mut(c);
        let mut known: Vec<u64> = v.end_offsets.iter().flatten().copied().collect();
        if known.len() < majority {
            return;
        }
        known.sort_unstable_by(|a, b| b.cmp(a));
        let candidate = known[majority - 1];
        if commit_rule && candidate <= v.epoch_start_offset {
            return;
        }
        if v.high_watermark.is_some_and(|hw| candidate <= hw) {
            return;
        }
        let from = v.high_watermark.replace(candidate);
        let epoch = v.epoch;
        self.outbox.push(Event::MetadataCommitted { controller: c, epoch, from, to: candidate });
        self.send_to_brokers(c, candidate, now_ms);
    }

    /// `handleFetchResponse`: records are appended, a DivergingEpoch cuts
    /// the log back to where it agrees, and the HW is the leader's, capped
    /// at the own log end, never lower. Any answer without error resets the
    /// fetch timer; the next Fetch goes at once.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn handle_fetch_response(
        &mut self,
        c: ControllerId,
        from: ControllerId,
        epoch: u32,
        leader: Option<ControllerId>,
        error: Option<QuorumError>,
        records: &[crate::model::quorum::metadata_log::MetadataEntry],
        diverging: Option<(u32, u64)>,
        high_watermark: Option<u64>,
        now_ms: u64,
    ) {
        // Only the answer to the Fetch in flight is read; a role change made
        // any earlier one stale (`resetConnections`).
        let v = self.voter_mut(c);
        if v.role != Role::Follower || v.leader != Some(from) || v.fetch_expires_ms.is_none() {
            return;
        }
        v.fetch_expires_ms = None;
        // UNKNOWN_LEADER_EPOCH: the leader is behind this follower; no backoff.
        let backoff = matches!(error, Some(QuorumError::FencedLeaderEpoch | QuorumError::NotLeaderOrFollower));
        v.fetch_due_ms = Some(now_ms + if backoff { RETRY_BACKOFF_MS } else { 0 });
        if error == Some(QuorumError::UnknownLeaderEpoch) {
            return;
        }
        if self.handle_common_response(c, epoch, leader, now_ms) {
            return;
        }
        if error.is_some() {
            return;
        }
        let fetch_timeout_ms = self.timings.fetch_timeout_ms;
        let v = self.voter_mut(c);
        v.timer_ms = Some(now_ms + fetch_timeout_ms);
        v.has_fetched = true;
        if let Some((de, end)) = diverging {
            // `ReplicatedLog.truncateToEndOffset`: to the end of that epoch
            // here, if it is no later than the leader's.
            let (local_epoch, local_end) = v.log.end_offset_for_epoch(de);
            let to = if local_epoch == de { local_end.min(end) } else { local_end };
            let from_end = v.log.end_offset();
            if to < from_end {
                v.log.truncate_to(to);
                self.outbox.push(Event::MetadataTruncated { controller: c, from: from_end, to, epoch: de, end_offset: end });
            }
            return;
        }
        let first = v.log.end_offset();
        let mut count = 0;
        for e in records.iter().filter(|e| e.offset >= first) {
            if e.offset == v.log.end_offset() {
                v.log.append_entry(*e);
                count += 1;
            }
        }
        let end = v.log.end_offset();
        if count > 0 {
            self.outbox.push(Event::MetadataFetched { controller: c, leader: from, first_offset: first, count, log_end_offset: end });
        }
        if let Some(hw) = high_watermark.map(|h| h.min(end)) {
            let v = self.voter_mut(c);
            if v.high_watermark.is_none_or(|old| hw > old) {
                let old = v.high_watermark.replace(hw);
                self.outbox.push(Event::MetadataHighWatermark { controller: c, from: old, to: hw });
            }
        }
    }

}
