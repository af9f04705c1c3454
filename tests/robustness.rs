//! Bad input never panics: arbitrary text as a scenario or a link, and
//! arbitrary steps (valid or not) applied to any configuration.

use highwater::run::scenario::{Nodes, Crash, Delay, Heal, Produce};
use highwater::{link, Acks, Config, Protocol, Scenario, Simulation, Step, ViolationKind};
use proptest::prelude::*;

fn arb_step() -> impl Strategy<Value = Step> {
    let id = 0u32..9; // includes ids that do not exist
    prop_oneof![
        ("[a-z<>&\"]{0,6}", prop_oneof![Just(Acks::Zero), Just(Acks::One), Just(Acks::All)], proptest::option::of(id.clone()))
            .prop_map(|(value, acks, to)| Step::Produce(Produce { value, acks, to, partition: None, key: None })),
        id.clone().prop_map(Step::fetch),
        id.clone().prop_map(Step::fetch),
        prop_oneof![Just(1u64), Just(600), Just(9_000), Just(45_000)].prop_map(Step::AdvanceMs),
        (id.clone(), 0u64..3).prop_map(|(broker, lose_unflushed)| Step::Crash(Crash::broker(broker, lose_unflushed))),
        id.clone().prop_map(Step::restart),
        proptest::option::of(id.clone()).prop_map(|broker| Step::Elect(highwater::run::scenario::Elect { partition: 0, broker })),
        (id.clone(), 0u64..2_000).prop_map(|(broker, ms)| Step::Delay(Delay { broker, ms })),
        (id.clone(), id.clone()).prop_map(|(a, b)| Step::Cut([a, b])),
        (id.clone(), id.clone()).prop_map(|(a, b)| Step::Partition([a, b])),
        id.clone().prop_map(|b| Step::Isolate(Nodes::Broker(b))),
        id.clone().prop_map(Step::CutController),
        id.clone().prop_map(Step::ControlledShutdown),
        prop_oneof![Just(Heal::All), id.clone().prop_map(Heal::Broker), (id.clone(), id.clone()).prop_map(|(a, b)| Heal::Link(a, b))]
            .prop_map(Step::Heal),
        Just(Step::Consume(None)),
        id.clone().prop_map(Step::Pause),
        id.prop_map(Step::Resume),
    ]
}

fn arb_config() -> impl Strategy<Value = Config> {
    (1u32..=5, 0usize..3, any::<bool>(), any::<bool>(), 0u64..1000).prop_flat_map(|(brokers, p, unclean, auto_fetch, seed)| {
        (1..=brokers).prop_map(move |min_isr| Config {
            brokers,
            protocol: Protocol::ALL[p],
            min_insync_replicas: min_isr,
            unclean_leader_election: unclean,
            auto_fetch,
            seed,
            ..Config::default()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Any step sequence on any configuration runs without a panic; HW never
    /// exceeds LEO (that check is an internal error under every generation);
    /// and a snapshot taken midway replays to the same end.
    #[test]
    fn any_steps_run_without_panic(config in arb_config(), steps in proptest::collection::vec(arb_step(), 0..40)) {
        let mut sim = Simulation::new(config);
        let mut mid = None;
        for (i, step) in steps.iter().enumerate() {
            if i == steps.len() / 2 {
                mid = Some(sim.clone());
            }
            sim.apply(step);
        }
        prop_assert!(sim.violations.iter().all(|v| v.kind != ViolationKind::HwExceedsLeo), "{:?}", sim.violations);
        if let Some(mut m) = mid {
            for step in &steps[steps.len() / 2..] {
                m.apply(step);
            }
            prop_assert_eq!(m, sim);
        }
    }

    /// Arbitrary text is never a panic, as a scenario or as a link.
    #[test]
    fn arbitrary_text_is_an_error_not_a_panic(text in ".{0,300}") {
        let _ = Scenario::from_json(&text);
        let _ = link::decode(&text);
        let _ = link::decode(&format!("v1.{text}"));
    }

    /// Scenario-shaped JSON with wrong types and values gets an error naming a field.
    #[test]
    fn malformed_scenarios_get_a_field_error(
        field in prop_oneof![Just("brokers"), Just("protocol"), Just("min_insync_replicas"), Just("seed"), Just("replica_fetch_wait_max_ms")],
        value in prop_oneof![Just("-1".to_string()), Just("\"x\"".to_string()), Just("1e99".to_string()), Just("null".to_string()), Just("[]".to_string()), Just("0".to_string())],
    ) {
        let text = format!(r#"{{"version":1,"config":{{"{field}":{value}}}}}"#);
        if let Err(e) = Scenario::from_json(&text) {
            prop_assert!(e.0.starts_with("config"), "{}", e.0);
        }
    }
}
