//! Forks: each kind of change does exactly its one thing (and is refused
//! with a typed error where it cannot apply, on every example scenario), its
//! text form round-trips and bad text (listed, and 50,000 seeded random and
//! mutated texts) is refused with a message naming what is wrong, and
//! `differences` finds the KIP-101 loss in the original and not in a fork
//! under a later version, and nothing between a run and itself.

mod common;

use highwater::run::scenario::Elect;
use highwater::model::config::Protocol;
use highwater::view::fork::{aligned_position, differences, fork, parse_step, step_name, step_text, Change, Difference, ForkError, Side, MAX_CHANGE_CHARS};
use highwater::run::scenario::{Nodes, Crash, Delay, Heal, OnePartition, Produce, Step};
use highwater::view::state::{LogWindow, StateView};
use highwater::search::whatif::{run_outcome, Outcome};
use highwater::{Acks, Scenario, Timeline, ViolationKind};

fn kip101() -> Scenario {
    common::load("kip101-loss-after-restart")
}

/// The state of a scenario's run after `position` steps (the aligned position if it stopped early).
fn state_at(s: &Scenario, position: usize) -> StateView {
    let mut t = Timeline::new(s).expect("a valid scenario runs");
    t.seek(aligned_position(position, t.len())).unwrap();
    StateView::of(t.current(), LogWindow::ALL)
}

fn end_state(s: &Scenario) -> StateView {
    state_at(s, s.steps.len())
}

/// The scenario with only `config` and `steps[i]` compared to `original`: the indices of steps that differ.
fn changed_steps(a: &Scenario, b: &Scenario) -> Vec<usize> {
    assert_eq!(a.steps.len(), b.steps.len(), "a fork has as many steps as its original");
    (0..a.steps.len()).filter(|&i| a.steps[i] != b.steps[i]).collect()
}

#[test]
fn each_change_changes_one_thing() {
    let s = kip101();
    let produces: Vec<usize> = s.steps.iter().enumerate().filter(|(_, st)| matches!(st, Step::Produce(_))).map(|(i, _)| i).collect();
    assert_eq!(produces, vec![0, 7]);

    // The version as the settings page switches it: a setting at the old default moves, one set stays.
    let f = fork(&s, &Change::Protocol { protocol: Protocol::V3_7 }).unwrap();
    assert_eq!(f.config, s.config.with_protocol(Protocol::V3_7));
    assert_eq!(f.config.protocol, Protocol::V3_7);
    assert_eq!(f.config.replica_lag_time_max_ms, 30_000, "set in the file, so kept");
    assert!(!f.config.unclean_leader_election, "0.10's default (true) becomes 3.7's (false)");
    assert!(changed_steps(&s, &f).is_empty());

    let f = fork(&s, &Change::AcksAll { acks: Acks::One }).unwrap();
    assert_eq!(f.config, s.config);
    assert_eq!(changed_steps(&s, &f), produces);
    assert!(f.steps.iter().all(|st| !matches!(st, Step::Produce(p) if p.acks != Acks::One)));

    let f = fork(&s, &Change::Acks { step: 8, acks: Acks::One }).unwrap();
    assert_eq!(changed_steps(&s, &f), vec![7]);
    assert_eq!(f.steps[7], Step::Produce(Produce { value: "m2".into(), acks: Acks::One, to: None, partition: None, key: None }));
    assert_eq!(f.config, s.config);

    let f = fork(&s, &Change::MinInsyncReplicas { value: 2 }).unwrap();
    assert_eq!(f.config, highwater::Config { min_insync_replicas: 2, ..s.config.clone() });
    assert!(changed_steps(&s, &f).is_empty());

    let f = fork(&s, &Change::UncleanLeaderElection { value: false }).unwrap();
    assert_eq!(f.config, highwater::Config { unclean_leader_election: false, ..s.config.clone() });

    let f = fork(&s, &Change::ReplicaLagTimeMaxMs { value: 10_000 }).unwrap();
    assert_eq!(f.config, highwater::Config { replica_lag_time_max_ms: 10_000, ..s.config.clone() });

    // 0.10's client has no idempotent producer (KIP-98 is 0.11): refused there, a change elsewhere.
    let refused = fork(&s, &Change::EnableIdempotence { value: true }).unwrap_err();
    assert!(format!("{refused:?}").contains("the idempotent producer came in 0.11"), "{refused:?}");
    let s2 = highwater::Scenario { config: s.config.with_protocol(Protocol::V2_1), ..s.clone() };
    let f = fork(&s2, &Change::EnableIdempotence { value: true }).unwrap();
    assert_eq!(f.config, highwater::Config { enable_idempotence: true, ..s2.config.clone() });
    // Under 0.11 the client lowers a default in-flight limit of 5 to 1 for an
    // idempotent producer (`KafkaProducer.configureInflightRequests`), so the
    // fork is taken; a limit written by hand stays and is refused.
    let s3 = highwater::Scenario { config: s.config.with_protocol(Protocol::V0_11), ..s.clone() };
    assert_eq!(s3.config.max_in_flight_requests_per_connection, 5);
    let f = fork(&s3, &Change::EnableIdempotence { value: true }).unwrap();
    assert_eq!(f.config, highwater::Config { enable_idempotence: true, max_in_flight_requests_per_connection: 1, ..s3.config.clone() });
    let back = fork(&f, &Change::EnableIdempotence { value: false }).unwrap();
    assert_eq!(back.config, s3.config);
    let s4 = highwater::Scenario { config: highwater::Config { max_in_flight_requests_per_connection: 3, ..s3.config.clone() }, ..s.clone() };
    let refused = fork(&s4, &Change::EnableIdempotence { value: true }).unwrap_err();
    assert!(format!("{refused}").contains("max_in_flight_requests_per_connection"), "{refused}");

    let f = fork(&s, &Change::Step { step: 14, with: Step::Crash(Crash::broker(3, 0)) }).unwrap();
    assert_eq!(changed_steps(&s, &f), vec![13]);
    assert_eq!(f.steps[13], Step::Crash(Crash::broker(3, 0)));
    assert_eq!(f.config, s.config);
    assert_eq!((f.name.as_str(), f.description.as_str()), (s.name.as_str(), s.description.as_str()));
}

#[test]
fn impossible_changes_are_typed_errors() {
    let s = kip101();
    let n = s.steps.len();
    assert_eq!(fork(&s, &Change::Acks { step: n + 1, acks: Acks::All }), Err(ForkError::StepOutOfRange { step: n + 1, steps: n }));
    assert_eq!(fork(&s, &Change::Acks { step: 0, acks: Acks::All }), Err(ForkError::StepOutOfRange { step: 0, steps: n }));
    assert_eq!(fork(&s, &Change::Step { step: n + 1, with: Step::fetch(2) }), Err(ForkError::StepOutOfRange { step: n + 1, steps: n }));
    assert_eq!(fork(&s, &Change::Acks { step: 2, acks: Acks::All }), Err(ForkError::NotAProduce { step: 2, found: "fetch" }));
    assert_eq!(fork(&s, &Change::Acks { step: 2, acks: Acks::All }).unwrap_err().to_string(), "acks@2: step 2 is a fetch step, not a produce");
    // Out of the config's bounds: the scenario validation's own words.
    let e = fork(&s, &Change::MinInsyncReplicas { value: 4 }).unwrap_err();
    assert_eq!(e, ForkError::Invalid("config.min_insync_replicas: 4 must be between 1 and brokers (3)".into()));
    assert!(matches!(fork(&s, &Change::MinInsyncReplicas { value: 0 }), Err(ForkError::Invalid(_))));
    let e = fork(&s, &Change::ReplicaLagTimeMaxMs { value: 1 }).unwrap_err();
    assert_eq!(e, ForkError::Invalid("config.replica_lag_time_max_ms: 1 is out of range 2..=3600000".into()));
    let e = fork(&s, &Change::Step { step: 2, with: Step::fetch(9) }).unwrap_err();
    assert_eq!(e, ForkError::Invalid("steps[1].fetch: broker 9 does not exist (brokers are 1..=3)".into()));
    let e = fork(&s, &Change::Step { step: 7, with: Step::AdvanceMs(3_600_000) }).unwrap_err();
    assert!(matches!(&e, ForkError::Invalid(m) if m.starts_with("steps[14].advance_ms: 20000 would take the scenario past the limit")), "{e}");
    let mut no_produce = s.clone();
    no_produce.steps.retain(|st| !matches!(st, Step::Produce(_)));
    assert_eq!(fork(&no_produce, &Change::AcksAll { acks: Acks::One }), Err(ForkError::NoProduceStep));
    let empty = Scenario::new(Default::default());
    assert_eq!(fork(&empty, &Change::Step { step: 1, with: Step::fetch(2) }).unwrap_err().to_string(), "step 1: the scenario has no steps");
}

/// One change of every kind, and every step form.
fn samples() -> Vec<Change> {
    let steps = vec![
        Step::Produce(Produce { value: "m1".into(), acks: Acks::All, to: None, partition: None, key: None }),
        Step::Produce(Produce { value: "".into(), acks: Acks::Zero, to: Some(2), partition: None, key: None }),
        Step::Produce(Produce { value: "a:b&c=d#e/f %g 漢字 <b>\n~._-".into(), acks: Acks::One, to: None, partition: None, key: None }),
        Step::fetch(2),
        Step::AdvanceMs(0),
        Step::AdvanceMs(3_600_000),
        Step::Crash(Crash::broker(1, 0)),
        Step::Crash(Crash::broker(2, 3)),
        Step::restart(1),
        Step::Elect(Elect::default()),
        Step::Elect(Elect { partition: 0, broker: Some(3) }),
        Step::Delay(Delay { broker: 3, ms: 400 }),
        Step::Cut([1, 3]),
        Step::Partition([2, 1]),
        Step::Isolate(Nodes::Broker(1)),
        Step::Heal(Heal::All),
        Step::Heal(Heal::Broker(2)),
        Step::Heal(Heal::Link(1, 2)),
        Step::Consume(None),
        Step::Pause(2),
        Step::Resume(2),
        Step::Produce(Produce { value: "k".into(), acks: Acks::All, to: None, partition: Some(2), key: None }),
        Step::Produce(Produce { value: "k".into(), acks: Acks::One, to: Some(1), partition: None, key: Some("user:42 漢".into()) }),
        Step::Produce(Produce { value: "k".into(), acks: Acks::All, to: None, partition: None, key: Some("".into()) }),
        Step::Crash(Crash { nodes: Nodes::Rack("us-east-1a".into()), lose_unflushed: 0 }),
        Step::Crash(Crash { nodes: Nodes::Rack("zone:b %".into()), lose_unflushed: 2 }),
        Step::Isolate(Nodes::Rack("b".into())),
        Step::CutController(3),
        Step::ControlledShutdown(1),
        Step::BeginControlledShutdown(2),
        Step::Elect(Elect { partition: 4, broker: None }),
        Step::Elect(Elect { partition: 4, broker: Some(2) }),
        Step::ElectPreferred(None),
        Step::ElectPreferred(Some(3)),
        Step::Fetch(highwater::run::scenario::Fetch { broker: 2, from: Some(3) }),
        Step::Consume(Some(OnePartition { partition: 1 })),
    ];
    // Every kind of step has a sample.
    let kinds: std::collections::BTreeSet<&str> = steps.iter().map(step_name).collect();
    let every = [
        "produce", "fetch", "advance_ms", "crash", "restart", "elect", "elect_preferred", "delay", "cut", "partition", "isolate",
        "cut_controller", "controlled_shutdown", "begin_controlled_shutdown", "heal", "consume", "pause", "resume",
    ];
    assert_eq!(kinds, every.into_iter().collect());
    let mut out: Vec<Change> = Protocol::ALL.iter().map(|&protocol| Change::Protocol { protocol }).collect();
    for acks in [Acks::Zero, Acks::One, Acks::All] {
        out.push(Change::AcksAll { acks });
        out.push(Change::Acks { step: 5, acks });
    }
    out.extend([
        Change::MinInsyncReplicas { value: 2 },
        Change::UncleanLeaderElection { value: true },
        Change::UncleanLeaderElection { value: false },
        Change::ReplicaLagTimeMaxMs { value: 30_000 },
        Change::EnableIdempotence { value: true },
        Change::EnableIdempotence { value: false },
    ]);
    out.extend(steps.into_iter().enumerate().map(|(i, with)| Change::Step { step: i + 1, with }));
    out
}

#[test]
fn text_round_trips_exactly_and_is_url_safe() {
    for c in samples() {
        let text = c.to_string();
        assert!(text.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~:@=%".contains(&b)), "{text}");
        assert_eq!(Change::parse(&text), Ok(c.clone()), "{text}");
        assert_eq!(text.parse::<Change>().unwrap().to_string(), text);
    }
    let spelled: Vec<String> = [
        Change::MinInsyncReplicas { value: 2 },
        Change::Protocol { protocol: Protocol::V4_1 },
        Change::AcksAll { acks: Acks::All },
        Change::Acks { step: 5, acks: Acks::All },
        Change::Step { step: 7, with: Step::Produce(Produce { value: "hi there".into(), acks: Acks::One, to: Some(2), partition: None, key: None }) },
        Change::Step { step: 7, with: Step::Crash(Crash::broker(2, 1)) },
        Change::Step { step: 1, with: Step::Elect(Elect::default()) },
    ]
    .iter()
    .map(|c| c.to_string())
    .collect();
    assert_eq!(
        spelled,
        ["min_insync_replicas=2", "protocol=4.1", "acks=all", "acks@5=all", "step@7=produce:hi%20there:1:2", "step@7=crash:2:1", "step@1=elect"]
    );
    // The longest value there is still fits.
    let long = Change::Step { step: 10_000, with: Step::Produce(Produce { value: "€".repeat(341) + "x", acks: Acks::All, to: Some(7), partition: None, key: None }) };
    let text = long.to_string();
    assert!(text.len() <= MAX_CHANGE_CHARS, "{}", text.len());
    assert_eq!(Change::parse(&text), Ok(long));
}

#[test]
fn bad_text_is_refused_naming_what_is_wrong() {
    let cases: &[(&str, &str)] = &[
        ("", "change: empty"),
        ("min_insync_replicas", "has no \"=\""),
        ("min_isr=2", "change: unknown setting \"min_isr\""),
        ("min_insync_replicas=", "min_insync_replicas: missing"),
        ("min_insync_replicas=two", "min_insync_replicas: \"two\" is not a whole number"),
        ("min_insync_replicas=02", "min_insync_replicas: \"02\" is written \"2\""),
        ("min_insync_replicas=+2", "is written \"2\""),
        ("min_insync_replicas=-1", "not a whole number"),
        ("min_insync_replicas=99999999999", "not a whole number in range"),
        ("protocol=5.0", "protocol: \"5.0\" is not a version preset; expected one of 0.10, 0.11"),
        ("protocol=legacy", "protocol: \"legacy\" is not a version preset"),
        ("acks=-1", "acks: \"-1\" is not 0, 1 or all"),
        ("acks=ALL", "acks: \"ALL\" is not 0, 1 or all"),
        ("acks@0=all", "acks@N: step 0 is out of range 1..=10000 (steps are numbered from 1)"),
        ("acks@=all", "acks@N: missing"),
        ("acks@x=1", "acks@N: \"x\" is not a whole number"),
        ("acks@5=2", "acks@5: \"2\" is not 0, 1 or all"),
        ("unclean_leader_election=yes", "unclean_leader_election: \"yes\" is not true or false"),
        ("enable_idempotence=1", "enable_idempotence: \"1\" is not true or false"),
        ("step@3=", "step@3: missing the step"),
        ("step@3=jump:2", "step@3: unknown step \"jump\""),
        ("step@3=fetch", "step@3: \"fetch\" does not fit fetch:BROKER or fetch:BROKER:LEADER"),
        ("step@3=fetch:2:3:4", "does not fit fetch:BROKER or fetch:BROKER:LEADER"),
        ("step@3=fetch:x", "step@3.fetch: \"x\" is not a whole number"),
        ("step@3=crash:1:0", "step@3: a process crash is written crash:1"),
        ("step@3=heal", "does not fit heal:all, heal:BROKER or heal:A:B"),
        ("step@3=produce:m1", "does not fit produce:VALUE:ACKS"),
        ("step@3=produce:m1:2", "step@3.produce.acks: \"2\" is not 0, 1 or all"),
        ("step@3=produce:a b:1", "step@3.produce.value: ' ' at character 2 must be percent-encoded"),
        ("step@3=produce:a%2:1", "step@3.produce.value: \"%\" at character 2 must be followed by two upper-case hex digits"),
        ("step@3=produce:a%2f:1", "must be followed by two upper-case hex digits"),
        ("step@3=produce:%41:1", "step@3.produce.value: %41 is written \"A\""),
        ("step@3=produce:%FF:1", "not UTF-8 text"),
        ("step@3=consume:1:2", "does not fit consume or consume:PARTITION"),
        ("step@3=elect:", "step@3.elect: missing"),
    ];
    for (text, expected) in cases {
        let e = Change::parse(text).expect_err(text).to_string();
        assert!(e.contains(expected), "{text:?}: {e:?} does not say {expected:?}");
    }
    let long = "x".repeat(MAX_CHANGE_CHARS + 1);
    assert!(Change::parse(&long).unwrap_err().0.contains("longer than the limit"));
    // Fuzz-ish: every prefix and every one-byte corruption of good texts either
    // reads as a change that prints back to the same text, or is an error.
    for c in samples() {
        let text = c.to_string();
        let mut variants: Vec<String> = (0..text.len()).filter(|&i| text.is_char_boundary(i)).map(|i| text[..i].to_string()).collect();
        for i in 0..text.len() {
            for b in [b'=', b':', b'@', b'%', b'0', b'a', b' ', b'&'] {
                let mut bytes = text.clone().into_bytes();
                bytes[i] = b;
                if let Ok(v) = String::from_utf8(bytes) {
                    variants.push(v);
                }
            }
        }
        for v in variants {
            if let Ok(parsed) = Change::parse(&v) {
                assert_eq!(parsed.to_string(), v, "text that reads must be the canonical text");
            }
        }
    }
}

#[test]
fn step_text_is_the_compact_form_of_every_step() {
    for c in samples() {
        if let Change::Step { with, .. } = c {
            assert_eq!(parse_step("step@1", &step_text(&with)), Ok(with));
        }
    }
}

#[test]
fn kip101_forked_to_a_later_version_shows_the_loss_in_the_original_only() {
    let s = kip101();
    let f = fork(&s, &Change::Protocol { protocol: Protocol::V0_11 }).unwrap();
    assert_eq!(run_outcome(&s).outcome, Outcome::AckedWriteLost);
    assert_eq!(run_outcome(&f).outcome, Outcome::Safe);
    let d = differences(&end_state(&s), &end_state(&f));
    let lost: Vec<&Difference> = d.iter().filter(|d| matches!(d, Difference::Violation { .. })).collect();
    assert_eq!(lost.len(), 1, "{d:#?}");
    let Difference::Violation { only_in, violation, step, offset, value, protocol_violation, .. } = lost[0] else { unreachable!() };
    assert_eq!((*only_in, *violation, *step, *offset, value.as_deref(), *protocol_violation), (Side::Left, ViolationKind::AckedWriteLost, 17, Some(1), Some("m2"), true));
    // m2 at offset 1: gone from brokers 1 and 3 in the original, kept in the fork.
    for broker in [1, 3] {
        assert!(
            d.iter().any(|x| matches!(x, Difference::RecordMissing { broker: b, offset: 1, only_in: Side::Right, value, .. } if *b == broker && &**value == "m2")),
            "broker {broker}: {d:#?}"
        );
        assert!(d.contains(&Difference::LogEndOffset { broker, left: 1, right: 2 }), "{d:#?}");
    }
    // The consumer read m1 in both, and m2 only in the fork.
    assert!(d.iter().any(|x| matches!(x, Difference::ConsumerRead { read: 2, left: None, right: Some(c) } if c.offset == 1 && &*c.value == "m2")), "{d:#?}");
    // Before the runs part (step 14, the leader's crash is the same in both), nothing differs but what 0.11 changes.
    let early = differences(&state_at(&s, 7), &state_at(&f, 7));
    assert!(early.iter().all(|x| !matches!(x, Difference::Violation { .. } | Difference::RecordMissing { .. } | Difference::RecordValue { .. })), "{early:#?}");
}

#[test]
fn kip101_with_acks_1_is_a_loss_acks_1_allows() {
    let s = kip101();
    let f = fork(&s, &Change::AcksAll { acks: Acks::One }).unwrap();
    assert_eq!(run_outcome(&f).outcome, Outcome::Acks1WriteLost);
    let d = differences(&end_state(&s), &end_state(&f));
    let sides: Vec<(Side, bool)> = d.iter().filter_map(|x| if let Difference::Violation { only_in, protocol_violation, .. } = x { Some((*only_in, *protocol_violation)) } else { None }).collect();
    assert_eq!(sides, vec![(Side::Left, true), (Side::Right, false)], "{d:#?}");
    // The loss is the same loss: no record differs, only what the contract promised.
    assert!(d.iter().all(|x| !matches!(x, Difference::RecordMissing { .. } | Difference::RecordValue { .. })), "{d:#?}");
}

#[test]
fn kip101_with_min_isr_3_refuses_m2_instead_of_losing_it() {
    // min.insync.replicas=3 with the ISR [1, 2, 3]: m2 is still accepted, so
    // 0.10 still loses it (the grid's answer) and the runs do not differ at
    // all: a fork that changes nothing that matters shows nothing.
    let s = kip101();
    let f = fork(&s, &Change::MinInsyncReplicas { value: 3 }).unwrap();
    assert_eq!(run_outcome(&f).outcome, Outcome::AckedWriteLost);
    let f2 = fork(&s, &Change::UncleanLeaderElection { value: false }).unwrap();
    for p in 0..=s.steps.len() {
        assert_eq!(differences(&state_at(&s, p), &state_at(&f, p)), vec![], "min ISR 3 at {p}");
        let d = differences(&state_at(&s, p), &state_at(&f2, p));
        assert!(d.iter().all(|x| !matches!(x, Difference::Violation { .. })), "unclean off at {p}: {d:#?}");
    }
}

#[test]
fn no_op_changes_show_no_differences_at_any_step() {
    let s = kip101();
    let noops = [
        Change::Protocol { protocol: Protocol::V0_10 },
        Change::AcksAll { acks: Acks::All },
        Change::Acks { step: 1, acks: Acks::All },
        Change::MinInsyncReplicas { value: 1 },
        Change::ReplicaLagTimeMaxMs { value: 30_000 },
        Change::Step { step: 2, with: Step::fetch(2) },
    ];
    for c in noops {
        let f = fork(&s, &c).unwrap();
        assert_eq!(f, s, "{c}");
        for p in [0, 1, 8, 15, 17, s.steps.len()] {
            assert_eq!(differences(&state_at(&s, p), &state_at(&f, p)), vec![], "{c} at step {p}");
        }
    }
}

#[test]
fn a_replaced_step_shows_where_the_runs_part() {
    // The leader's crash (step 14) replaced by a crash of broker 3: broker 1 stays leader.
    let s = kip101();
    let f = fork(&s, &Change::Step { step: 14, with: Step::Crash(Crash::broker(3, 0)) }).unwrap();
    assert_eq!(differences(&state_at(&s, 13), &state_at(&f, 13)), vec![]);
    let d = differences(&state_at(&s, 14), &state_at(&f, 14));
    assert!(d.contains(&Difference::Role { broker: 1, left: "down", right: "leader" }), "{d:#?}");
    assert!(d.contains(&Difference::Role { broker: 3, left: "follower", right: "down" }), "{d:#?}");
    // The original's leader still reads as leader to the controller until its session expires.
    let d = differences(&end_state(&s), &end_state(&f));
    assert!(d.iter().any(|x| matches!(x, Difference::Leader { left: Some(3), .. })), "{d:#?}");
    assert_eq!(run_outcome(&f).outcome, Outcome::Safe, "broker 1 keeps leading with m2 through both followers' crashes");
}

#[test]
fn a_run_that_stops_early_is_shown_where_it_stopped() {
    assert_eq!(aligned_position(5, 3), 3);
    assert_eq!(aligned_position(2, 3), 2);
    // A 2 ms lag time checks the ISR every millisecond: under a budget of a
    // run of 500,000 checks the fork stops at step 2, the original runs all three.
    let s = Scenario::from_json(r#"{"version":1,"steps":[{"advance_ms":300000},{"advance_ms":300000},{"advance_ms":300000}]}"#).unwrap();
    let f = fork(&s, &Change::ReplicaLagTimeMaxMs { value: 2 }).unwrap();
    let budgets = highwater::model::config::Budgets { work_per_run: 500_000, ..Default::default() };
    let (mut left, mut right) = (Timeline::with_budgets(&s, budgets).unwrap(), Timeline::with_budgets(&f, budgets).unwrap());
    assert_eq!((left.len(), right.len()), (3, 2));
    left.seek(aligned_position(3, left.len())).unwrap();
    right.seek(aligned_position(3, right.len())).unwrap();
    let d = differences(&StateView::of(left.current(), LogWindow::ALL), &StateView::of(right.current(), LogWindow::ALL));
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0], Difference::Time { left: 900_000, right: 500_001 }, "the fork stopped in step 2, at its 500,000th check");
    assert!(matches!(&d[1], Difference::Stopped { left: None, right: Some(m) } if m.contains("MAX_WORK_PER_RUN")), "{d:#?}");
    // At step 2: the original finished it, the fork stopped in it.
    left.seek(2).unwrap();
    let d = differences(&StateView::of(left.current(), LogWindow::ALL), &StateView::of(right.current(), LogWindow::ALL));
    assert!(matches!(d.as_slice(), [Difference::Time { left: 600_000, right: 500_001 }, Difference::Stopped { left: None, right: Some(_) }]), "{d:#?}");
    let mut a = StateView::of(&highwater::Simulation::new(Default::default()), LogWindow::ALL);
    let b = a.clone();
    a.stopped = Some("stopped: the run caused more than 60,000 events (limit MAX_EVENTS_PER_RUN); the steps after this one are not run".into());
    assert_eq!(differences(&a, &b), vec![Difference::Stopped { left: a.stopped.clone(), right: None }]);
}

#[test]
fn summary_says_what_changed_from_what() {
    let s = kip101();
    let sum = |c: Change| {
        let x = c.summary(&s);
        (x.setting, x.step, x.from, x.to, x.text)
    };
    assert_eq!(sum(Change::MinInsyncReplicas { value: 2 }), ("min.insync.replicas", None, "1".into(), "2".into(), "min_insync_replicas=2".into()));
    assert_eq!(sum(Change::Protocol { protocol: Protocol::V4_1 }), ("protocol", None, "0.10".into(), "4.1".into(), "protocol=4.1".into()));
    assert_eq!(sum(Change::Acks { step: 8, acks: Acks::One }), ("acks", Some(8), "all".into(), "1".into(), "acks@8=1".into()));
    assert_eq!(sum(Change::AcksAll { acks: Acks::One }).2, "all");
    assert_eq!(sum(Change::UncleanLeaderElection { value: false }).2, "true");
    assert_eq!(
        sum(Change::Step { step: 14, with: Step::Crash(Crash::broker(3, 0)) }),
        ("step", Some(14), "crash:1".into(), "crash:3".into(), "step@14=crash:3".into())
    );
}

#[test]
fn the_command_line_runs_a_fork() {
    let run = |args: &[&str]| std::process::Command::new(env!("CARGO_BIN_EXE_highwater")).args(args).output().expect("the binary starts");
    let file = common::scenarios_dir().join("kip101-loss-after-restart.json");
    let file = file.to_str().unwrap();
    let out = run(&["run", "--fork", "protocol=0.11", file]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let forked = fork(&kip101(), &Change::Protocol { protocol: Protocol::V0_11 }).unwrap();
    let t = Timeline::new(&forked).unwrap();
    let expected: String = t.trace_lines().iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    assert!(!expected.contains("VIOLATION"));
    let out = run(&["run", "--fork", "acks@2=1", file]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "highwater: --fork acks@2=1: acks@2: step 2 is a fetch step, not a produce\n");
    let out = run(&["run", "--fork", "min_isr=2", file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("highwater: --fork: change: unknown setting \"min_isr\""));
}

#[test]
fn random_text_never_panics_and_what_reads_is_canonical() {
    // Texts drawn from pieces of the grammar and stray characters, seeded.
    let pieces = [
        "protocol", "acks", "acks@", "step@", "min_insync_replicas", "unclean_leader_election", "replica_lag_time_max_ms", "enable_idempotence",
        "=", "@", ":", "%", "%2", "%20", "%E4%B8%96", "%C3", "0", "1", "2", "3", "7", "00", "10000", "10001", "99999999999999999999", "-1", "all", "true",
        "false", "4.1", "0.10", "produce", "fetch", "crash", "heal", "elect", "advance_ms", "delay", "cut", "consume", "m1", " ", "&", "#", "é", "\u{0}",
    ];
    let good: Vec<String> = samples().iter().map(|c| c.to_string()).collect();
    let mut rng = highwater::base::rng::Rng::new(7);
    let (mut read, mut refused) = (0, 0);
    for i in 0..50_000 {
        let text = if i % 2 == 0 {
            let n = 1 + rng.below(8) as usize;
            (0..n).map(|_| *rng.pick(&pieces).unwrap()).collect()
        } else {
            // A good text with up to three pieces inserted or characters removed.
            let mut t = rng.pick(&good).unwrap().clone();
            for _ in 0..rng.below(4) {
                let at = rng.below(t.len() as u64 + 1) as usize;
                let at = (0..=at).rev().find(|&j| t.is_char_boundary(j)).unwrap();
                if rng.below(2) == 0 {
                    t.insert_str(at, rng.pick(&pieces).unwrap());
                } else if at < t.len() {
                    t.remove(at);
                }
            }
            t
        };
        match Change::parse(&text) {
            Ok(c) => {
                assert_eq!(c.to_string(), text, "text that reads is the canonical text");
                read += 1;
            }
            Err(e) => {
                assert!(!e.0.is_empty());
                refused += 1;
            }
        }
    }
    assert!(read > 5_000 && refused > 25_000, "read {read}, refused {refused}: the inputs reach both");
}

#[test]
fn every_change_on_every_scenario_is_a_fork_or_a_typed_error() {
    // Each sample change on each example scenario: a valid scenario with as
    // many steps, or one of the typed errors, never a panic.
    let mut forks = 0;
    for name in common::scenario_names() {
        let s = common::load(&name);
        for c in samples() {
            match fork(&s, &c) {
                Ok(f) => {
                    assert_eq!(f.steps.len(), s.steps.len());
                    f.validate().unwrap();
                    forks += 1;
                }
                Err(ForkError::StepOutOfRange { steps, .. }) => assert_eq!(steps, s.steps.len()),
                Err(ForkError::NotAProduce { step, found }) => assert_eq!(found, highwater::view::fork::step_name(&s.steps[step - 1])),
                Err(ForkError::NoProduceStep) => assert!(!s.steps.iter().any(|x| matches!(x, Step::Produce(_)))),
                Err(ForkError::Invalid(m)) => assert!(m.starts_with("config.") || m.starts_with("steps["), "{}: {c}: {m}", name),
            }
        }
    }
    assert!(forks > 300, "{forks}");
}

#[test]
fn the_json_form_reads_back() {
    for c in samples() {
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(Change::from_json(&json), Ok(c.clone()), "{json}");
    }
    assert_eq!(
        serde_json::to_value(Change::Acks { step: 8, acks: Acks::One }).unwrap(),
        serde_json::json!({"change": "acks", "step": 8, "acks": "1"})
    );
    let read = |v: serde_json::Value| Change::from_json(&v).map_err(|e| e.0);
    assert_eq!(read(serde_json::json!({"change": "step", "step": 14, "with": {"crash": {"broker": 3}}})), Ok(Change::Step { step: 14, with: Step::Crash(Crash::broker(3, 0)) }));
    assert_eq!(read(serde_json::json!(2)), Err("change: expected an object like {\"change\": \"min_insync_replicas\", \"value\": 2}".into()));
    assert_eq!(read(serde_json::json!({"value": 2})), Err("change: the field \"change\" (a string) is missing".into()));
    assert_eq!(read(serde_json::json!({"change": "min_isr", "value": 2})), Err("change: unknown change \"min_isr\"".into()));
    assert_eq!(read(serde_json::json!({"change": "acks", "step": 8, "acks": "1", "to": 2})), Err("change.to: unknown field for the acks change (fields: change, step, acks)".into()));
    assert_eq!(read(serde_json::json!({"change": "acks", "acks": "1"})), Err("change.step: missing".into()));
    assert_eq!(read(serde_json::json!({"change": "acks", "step": 0, "acks": "1"})).unwrap_err(), "change.step: step 0 is out of range 1..=10000 (steps are numbered from 1)");
    assert_eq!(read(serde_json::json!({"change": "min_insync_replicas", "value": "2"})), Err("change.value: expected a whole number".into()));
    assert_eq!(read(serde_json::json!({"change": "min_insync_replicas", "value": 5_000_000_000u64})), Err("change.value: too large".into()));
    assert_eq!(read(serde_json::json!({"change": "protocol", "protocol": "2.7"})), Ok(Change::Protocol { protocol: highwater::Protocol::V2_8 }), "the 2.8 preset's old name");
    assert_eq!(read(serde_json::json!({"change": "protocol", "protocol": "legacy"})).unwrap_err(), "protocol: \"legacy\" is not a version preset; expected one of 0.10, 0.11, 2.0, 2.1, 2.8, 3.5, 3.7, 4.1");
    assert!(read(serde_json::json!({"change": "step", "step": 1, "with": {"jump": 1}})).unwrap_err().starts_with("change.with: unknown variant \"jump\""));
}
