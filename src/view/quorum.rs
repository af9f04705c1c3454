//! The KRaft controller quorum as `run --json` and the page show it: each
//! voter's role, epoch, vote, log and HW, and which controller is active.

use crate::model::config::ControllerId;
use crate::model::quorum::Quorum;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct QuorumView {
    /// The highest epoch any controller knows.
    pub epoch: u32,
    /// The running quorum leader of the highest epoch, if any.
    pub leader: Option<ControllerId>,
    /// The leader once its epoch has committed, unless it is cut off from
    /// every node: the controller that decides.
    pub active_controller: Option<ControllerId>,
    /// The leader's HW (what is committed); null while unknown.
    pub high_watermark: Option<u64>,
    pub voters: Vec<VoterView>,
}

#[derive(Clone, Debug, Serialize)]
pub struct VoterView {
    pub id: ControllerId,
    /// "unattached", "voted" (before 3.9), "prospective", "candidate",
    /// "leader", "follower", "resigned"; "down" when crashed.
    pub role: &'static str,
    pub epoch: u32,
    pub voted_for: Option<ControllerId>,
    /// The leader it knows in its epoch.
    pub leader: Option<ControllerId>,
    pub log_end_offset: u64,
    pub high_watermark: Option<u64>,
    pub alive: bool,
    pub isolated: bool,
    pub log: Vec<MetadataRecordView>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MetadataRecordView {
    pub offset: u64,
    pub epoch: u32,
    /// The record in words: "LeaderChange controller 2", "RegisterBroker 1", …
    pub record: String,
}

impl QuorumView {
    pub fn of(q: &Quorum) -> QuorumView {
        let leader = q.leader();
        QuorumView {
            epoch: q.epoch(),
            leader: leader.map(|v| v.id),
            active_controller: q.active_controller().filter(|&c| !q.is_isolated(c)),
            high_watermark: leader.and_then(|v| v.high_watermark),
            voters: q
                .voters
                .iter()
                .map(|v| VoterView {
                    id: v.id,
                    role: if v.alive { v.role_name(q.rules.voted_state) } else { "down" },
                    epoch: v.epoch,
                    voted_for: v.voted_for,
                    leader: v.leader,
                    log_end_offset: v.log.end_offset(),
                    high_watermark: v.high_watermark,
                    alive: v.alive,
                    isolated: q.is_isolated(v.id),
                    log: v.log.entries().iter().map(|e| MetadataRecordView { offset: e.offset, epoch: e.epoch, record: e.record.to_string() }).collect(),
                })
                .collect(),
        }
    }
}
