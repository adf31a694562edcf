//! Tests of the decision machine: spec §3 items 1, 2, 3, 5, 12 and the §2.10
//! worked example.

use super::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn at(s: f64) -> SimTime {
    SimTime::from_secs_f64(s)
}

fn secs(s: u64) -> SimDuration {
    SimDuration::from_secs(s)
}

fn cfg(t_exp: SimDuration, t_off: SimDuration) -> DecisionConfig {
    DecisionConfig {
        t_exp,
        t_off,
        ..DecisionConfig::default()
    }
}

fn finite(r: f64, r_na: f64) -> Inputs {
    Inputs {
        r_tcp: TcpRate::Finite(r),
        r_na,
    }
}

fn no_draw() -> impl FnMut() -> f64 {
    || panic!("no random number may be drawn here")
}

fn experiment(a: Option<Action>) -> Experiment {
    match a {
        Some(Action::Experiment(e)) => e,
        other => panic!("expected an experiment, got {other:?}"),
    }
}

/// Start an on-period at `start`: data, `n_rtt` samples, `n_le` loss events,
/// the last one at `start + t_prot`; runs and returns the first experiment.
fn protect(
    m: &mut PccDecision,
    start: SimTime,
    t_prot: SimDuration,
    inputs: Inputs,
    draw: &mut dyn FnMut() -> f64,
) -> Experiment {
    assert_eq!(m.on_data(start), Some(Action::ProtectionStarted));
    for _ in 0..m.config().n_rtt {
        m.on_rtt_sample(start);
    }
    let end = start.saturating_add(t_prot);
    for _ in 0..m.config().n_le {
        assert_eq!(m.on_timer(start, inputs, draw), None, "still protected");
        m.on_loss_event(end);
    }
    assert_eq!(m.poll_at(), Some(end));
    experiment(m.on_timer(end, inputs, draw))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// Spec §2.10 (thesis §4.7): 0.79 -> 0.734 -> r_EFF 58 -> P* 0.75 -> 0.8 -> r_EFF 60.
#[test]
fn worked_example_of_section_4_7_step_by_step() {
    // Rates in kbit/s: only ratios matter.
    let mut m = PccDecision::new(cfg(secs(2), secs(60))).unwrap();
    let mut draws = vec![0.9, 0.4, 0.6];
    let mut draw = move || draws.pop().expect("only three draws in the example");

    // 1. T_PROT = 3 s, r_TCP = 80, r_NA = 100: Eq. 4.7 gives 0.79; RAND 0.6 -> on.
    let e = protect(&mut m, at(0.0), secs(3), finite(80.0, 100.0), &mut draw);
    assert_eq!(e.formula, Formula::MakeUp);
    assert_eq!(e.t_prot, secs(3));
    assert!(close(e.p_on, 0.79), "{}", e.p_on);
    assert_eq!(e.rand, Some(0.6));
    assert!(close(e.p_star.unwrap(), 0.8));
    assert!(close(e.r_eff_after, 79.0));
    assert_eq!(e.outcome, Outcome::StayOn { next: at(5.0) });

    // 2. r_TCP drops to 60: Eq. 4.12 with r_EFF = 79 gives 3480/4740 = 0.734;
    //    RAND 0.4 -> on; r_EFF = 58; P* = {0.8, 0.75}.
    let e = experiment(m.on_timer(at(5.0), finite(60.0, 100.0), &mut draw));
    assert!(close(e.r_eff, 79.0));
    assert!(close(e.p_on, 3480.0 / 4740.0), "{}", e.p_on);
    assert_eq!(e.rand, Some(0.4));
    assert!(close(e.r_eff_after, 58.0), "{}", e.r_eff_after);
    assert!(close(e.p_star.unwrap(), 0.75));

    // Unchanged conditions until T_OFF after the first experiment: p = 1, no draw.
    let mut t = 7.0;
    while t < 63.0 {
        let e = experiment(m.on_timer(at(t), finite(60.0, 100.0), &mut no_draw()));
        assert_eq!(e.formula, Formula::MakeUp);
        assert_eq!(e.p_on, 1.0, "t = {t}");
        assert_eq!(e.p_star, Some(1.0));
        t += 2.0;
    }

    // 3. At 63 s 0.79 leaves P and 0.8 leaves P*; P := P* = {0.75}, r_EFF 75;
    //    Eq. 4.3 gives 0.8; RAND 0.9 -> off for T_OFF; r_EFF then 60.
    let e = experiment(m.on_timer(at(63.0), finite(60.0, 100.0), &mut draw));
    assert_eq!(e.formula, Formula::Plain);
    assert!(close(e.r_eff, 75.0), "{}", e.r_eff);
    assert!(close(e.p_on, 0.8));
    assert_eq!(e.p_star, None);
    assert_eq!(e.rand, Some(0.9));
    assert!(close(e.r_eff_after, 60.0));
    assert_eq!(
        e.outcome,
        Outcome::TurnOff {
            until: at(123.0),
            extended: false
        }
    );
    assert!(!m.is_on());
    assert_eq!(m.stats().experiments, 31);
    assert_eq!(m.stats().failed, 1);
}

/// Spec 2.3: RAND in (0;1], the experiment fails iff p_ON <= RAND; no draw
/// at p_ON >= 1 or p_ON <= 0.
#[test]
fn experiment_fails_iff_p_on_is_at_most_rand() {
    // With N_LE = N_RTT = 0 protected time ends at the first data packet,
    // T_PROT = 0 and Eq. 4.7 reduces to r_TCP / r_NA = 0.5.
    let c = DecisionConfig {
        n_le: 0,
        n_rtt: 0,
        ..DecisionConfig::default()
    };
    for (u, on) in [
        (0.5, false),
        (0.5 + 1e-16, false),
        (0.499_999_999, true),
        (1.0, false),
    ] {
        let mut m = PccDecision::new(c.clone()).unwrap();
        m.on_data(at(1.0));
        let e = experiment(m.on_timer(at(1.0), finite(50.0, 100.0), &mut || u));
        assert_eq!(e.p_on, 0.5);
        assert_eq!(matches!(e.outcome, Outcome::StayOn { .. }), on, "RAND {u}");
    }
    // p_ON = 1 stays on without a draw (RAND = 1 would otherwise fail).
    let mut m = PccDecision::new(c.clone()).unwrap();
    m.on_data(at(1.0));
    let e = experiment(m.on_timer(at(1.0), finite(100.0, 100.0), &mut no_draw()));
    assert!(matches!(e.outcome, Outcome::StayOn { .. }));
    // The unit map of a [0, 1) generator never yields 0 and can yield 1.
    assert_eq!(rand_unit_open_closed(0.0), 1.0);
    assert!(rand_unit_open_closed(0.999_999_999_999) > 0.0);
}

/// Spec 2.4/2.9: no loss event by T_PROT,MAX -> r_TCP = ∞ -> stays on; P* gets 1.
#[test]
fn unbounded_rate_at_t_prot_max_stays_on() {
    let mut m = PccDecision::new(DecisionConfig::default()).unwrap();
    m.on_data(at(10.0));
    for _ in 0..5 {
        m.on_rtt_sample(at(10.5));
    }
    m.on_loss_event(at(12.0));
    m.on_loss_event(at(20.0));
    assert_eq!(m.poll_at(), Some(at(40.0)));
    let inputs = Inputs {
        r_tcp: TcpRate::Unbounded,
        r_na: 4000.0,
    };
    assert_eq!(m.on_timer(at(39.0), inputs, &mut no_draw()), None);
    let e = experiment(m.on_timer(at(40.0), inputs, &mut no_draw()));
    assert_eq!(e.t_prot, secs(30));
    assert_eq!(e.p_on, f64::INFINITY);
    assert_eq!(e.p_star, Some(1.0));
    assert_eq!(e.r_eff_after, 4000.0);
    assert_eq!(e.outcome, Outcome::StayOn { next: at(42.0) });
}

/// Spec 2.11/2.14: data while off repeats the off signal; the off timer turns
/// the flow on; the next data packet starts a new protected time.
#[test]
fn off_period_repeats_off_and_ends_with_turn_on() {
    let c = DecisionConfig {
        n_le: 0,
        n_rtt: 0,
        ..DecisionConfig::default()
    };
    let mut m = PccDecision::new(c).unwrap();
    assert_eq!(m.poll_at(), None);
    m.on_data(at(0.0));
    let e = experiment(m.on_timer(at(0.0), finite(10.0, 100.0), &mut || 0.5));
    assert_eq!(
        e.outcome,
        Outcome::TurnOff {
            until: at(60.0),
            extended: false
        }
    );
    assert_eq!(m.on_data(at(0.1)), Some(Action::RepeatOff));
    m.on_loss_event(at(0.2));
    assert_eq!(
        m.on_timer(at(59.0), finite(10.0, 100.0), &mut no_draw()),
        None
    );
    assert_eq!(
        m.on_timer(at(60.0), finite(10.0, 100.0), &mut no_draw()),
        Some(Action::TurnOn)
    );
    assert!(m.is_on());
    assert_eq!(m.phase(), Phase::AwaitingData);
    assert_eq!(m.on_data(at(60.2)), Some(Action::ProtectionStarted));
    assert_eq!(m.stats().failed, 1);
}

#[test]
fn t_off_must_be_a_multiple_of_t_exp() {
    let err = PccDecision::new(cfg(secs(7), secs(60))).unwrap_err();
    assert_eq!(err.key, "t_off");
    let err = PccDecision::new(cfg(SimDuration::ZERO, secs(60))).unwrap_err();
    assert_eq!(err.key, "t_exp");
}

proptest! {
    /// Spec 2.5/2.6 and §3 item 12: the first experiment is Eq. 4.7; p_ON < 0
    /// (exactly when T_OFF / T_PROT < r_NA / r_TCP - 1) turns the flow off
    /// for Eq. 4.9's T_OFF,EXT > T_OFF; otherwise an off period is T_OFF.
    #[test]
    fn first_experiment_is_eq_4_7_and_extends_off_exactly_when_negative(
        r_tcp in 1e3f64..1e6, r_na in 1e3f64..1e6, t_prot_ms in 1u64..30_000,
        t_exp_s in 1u64..6, e in 1u64..60, u in 1e-9f64..=1.0,
    ) {
        let (t_exp, t_off) = (secs(t_exp_s), secs(t_exp_s * e));
        let t_prot = SimDuration::from_millis(t_prot_ms);
        let (tp, to) = (t_prot.as_secs_f64(), t_off.as_secs_f64());
        let want = ((tp + to) * r_tcp - tp * r_na) / (to * r_na);
        let ratio_gap = to / tp - (r_na / r_tcp - 1.0);
        prop_assume!(ratio_gap.abs() > 1e-9 * (to / tp));
        prop_assume!((want - 1.0).abs() > 1e-9);
        let mut m = PccDecision::new(cfg(t_exp, t_off)).unwrap();
        let start = at(5.0);
        let ex = protect(&mut m, start, t_prot, finite(r_tcp, r_na), &mut || u);
        prop_assert!(close(ex.p_on, want), "{} vs {}", ex.p_on, want);
        prop_assert_eq!(ex.r_eff, r_na);
        let now = start.saturating_add(t_prot);
        match ex.outcome {
            Outcome::TurnOff { until, extended: true } => {
                prop_assert!(ratio_gap < 0.0);
                prop_assert!(want < 0.0);
                let ext = tp * (r_na - r_tcp) / r_tcp;
                prop_assert!((until.saturating_since(now).as_secs_f64() - ext).abs() < 1e-9);
                prop_assert!(until.saturating_since(now) > t_off);
            }
            Outcome::TurnOff { until, extended: false } => {
                prop_assert!(ratio_gap > 0.0);
                prop_assert!(want > 0.0 && want <= u);
                prop_assert_eq!(until, now.saturating_add(t_off));
            }
            Outcome::StayOn { next } => {
                prop_assert!(want > u);
                prop_assert_eq!(next, now.saturating_add(t_exp));
            }
        }
    }

    /// Spec 2.7: with changing r_TCP, the first T_OFF follows Eq. 4.12 with
    /// r_EFF = r_NA Π P, P* follows Eq. 4.3 on its own product, and at
    /// t_first + T_OFF Eq. 4.3 takes over with P := P* minus expired entries.
    #[test]
    fn continuous_evaluation_follows_eq_4_12_then_4_3(
        r_na in 1e4f64..1e5,
        rates in prop::collection::vec(0.3f64..1.5, 2..40),
        t_prot_ms in 100u64..30_000, e in 1u64..12,
    ) {
        let (t_exp, t_off) = (secs(2), secs(2 * e));
        let t_prot = SimDuration::from_millis(t_prot_ms);
        let (tp, to) = (t_prot.as_secs_f64(), t_off.as_secs_f64());
        let mut m = PccDecision::new(cfg(t_exp, t_off)).unwrap();
        // Every experiment with p > 0 passes: RAND is the smallest positive number.
        let mut pass = || f64::MIN_POSITIVE;
        let start = at(1.0);
        let mut p_ref: Vec<(usize, f64)> = Vec::new();
        let mut pstar_ref: Vec<(usize, f64)> = Vec::new();
        let e = e as usize;
        for (k, x) in rates.iter().enumerate() {
            let r_tcp = x * r_na;
            let inp = finite(r_tcp, r_na);
            let ex = if k == 0 {
                protect(&mut m, start, t_prot, inp, &mut pass)
            } else {
                let now = start.saturating_add(t_prot).saturating_add(t_exp.saturating_mul(k as u64));
                experiment(m.on_timer(now, inp, &mut pass))
            };
            // Reference bookkeeping: an entry of experiment j expires at experiment j + e.
            p_ref.retain(|&(j, _)| j + e > k);
            pstar_ref.retain(|&(j, _)| j + e > k);
            let in_first = k < e;
            if k == e {
                p_ref = std::mem::take(&mut pstar_ref);
            }
            let prod: f64 = p_ref.iter().map(|&(_, p)| p).product();
            let want = if in_first {
                ((tp + to) * r_tcp - tp * r_na) / (to * r_na * prod)
            } else {
                r_tcp / (r_na * prod)
            };
            prop_assert!(close(ex.r_eff, r_na * prod));
            if (want - 1.0).abs() > 1e-9 {
                prop_assert!(close(ex.p_on, want), "k {}: {} vs {}", k, ex.p_on, want);
            } else {
                prop_assert_eq!(ex.p_on, 1.0);
            }
            prop_assert_eq!(ex.formula, if in_first { Formula::MakeUp } else { Formula::Plain });
            if in_first {
                let sprod: f64 = pstar_ref.iter().map(|&(_, p)| p).product();
                let ps = (r_tcp / (r_na * sprod)).min(1.0);
                if (ps - 1.0).abs() > 1e-9 {
                    prop_assert!(close(ex.p_star.unwrap(), ps));
                } else {
                    prop_assert_eq!(ex.p_star, Some(1.0));
                }
                pstar_ref.push((k, ex.p_star.unwrap()));
            } else {
                prop_assert_eq!(ex.p_star, None);
            }
            if ex.p_on <= 0.0 {
                let off = matches!(ex.outcome, Outcome::TurnOff { .. });
                prop_assert!(off);
                break;
            }
            let on = matches!(ex.outcome, Outcome::StayOn { .. });
            prop_assert!(on);
            p_ref.push((k, ex.p_on.min(1.0)));
        }
    }

    /// Spec §3 item 5: with constant r_TCP, r_NA and T_PROT every experiment
    /// after a successful one returns exactly p_ON = 1 until its entry
    /// expires: per on-period the sub-1 experiments are exactly those at
    /// t_first + k T_OFF (one per T_OFF), over many on/off cycles.
    #[test]
    fn constant_inputs_give_one_sub_1_experiment_per_t_off(
        a in 0.05f64..0.99, r_na in 1e3f64..1e6, t_prot_ms in 1u64..30_000,
        e in 1u64..40, seed in any::<u64>(),
    ) {
        let (t_exp, t_off) = (secs(2), secs(2 * e));
        let t_prot = SimDuration::from_millis(t_prot_ms);
        let inp = finite(a * r_na, r_na);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut draw = move || rand_unit_open_closed(rng.random::<f64>());
        let mut m = PccDecision::new(cfg(t_exp, t_off)).unwrap();
        let mut start = at(0.0);
        let mut experiments = 0;
        for _cycle in 0..5 {
            let first = protect(&mut m, start, t_prot, inp, &mut draw);
            let t_first = first.at;
            let mut ex = first;
            let mut j = 0u64;
            loop {
                experiments += 1;
                if j.is_multiple_of(e) {
                    prop_assert!(ex.p_on < 1.0, "experiment {} at a T_OFF boundary: {}", j, ex.p_on);
                } else {
                    prop_assert_eq!(ex.p_on, 1.0, "experiment {}", j);
                    prop_assert_eq!(ex.rand, None);
                }
                match ex.outcome {
                    Outcome::StayOn { next } => {
                        j += 1;
                        prop_assert_eq!(next, t_first.saturating_add(t_exp.saturating_mul(j)));
                        ex = experiment(m.on_timer(next, inp, &mut draw));
                    }
                    Outcome::TurnOff { until, .. } => {
                        prop_assert_eq!(m.on_timer(until, inp, &mut no_draw()), Some(Action::TurnOn));
                        start = until;
                        break;
                    }
                }
                if experiments > 20_000 {
                    break;
                }
            }
        }
    }
}

/// One PCC flow with constant r_TCP driven through complete on/off cycles:
/// loss events arrive as a Poisson process (rate `ler_rate` per second) while
/// protected, RTT samples at once. Returns (on time, cycle length) per cycle;
/// a cycle runs from one turn-on (data at once) to the next.
fn cycles(
    c: &DecisionConfig,
    r_tcp: f64,
    r_na: f64,
    ler_rate: f64,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<(f64, f64)> {
    let mut m = PccDecision::new(c.clone()).unwrap();
    let inp = finite(r_tcp, r_na);
    let mut out = Vec::with_capacity(n);
    let mut t = SimTime::ZERO;
    let mut steps = 0u64;
    while out.len() < n {
        let start = t;
        assert_eq!(m.on_data(t), Some(Action::ProtectionStarted));
        for _ in 0..c.n_rtt {
            m.on_rtt_sample(t);
        }
        let mut next_loss = t.saturating_add(SimDuration::from_secs_f64(
            -(1.0 - rng.random::<f64>()).ln() / ler_rate,
        ));
        let off_at = loop {
            steps += 1;
            assert!(steps < 50_000_000, "no turn-off: r_NA {r_na} r_TCP {r_tcp}");
            let due = m.poll_at().unwrap();
            if matches!(m.phase(), Phase::Protected { .. }) && next_loss < due {
                m.on_loss_event(next_loss);
                next_loss = next_loss.saturating_add(SimDuration::from_secs_f64(
                    -(1.0 - rng.random::<f64>()).ln() / ler_rate,
                ));
                continue;
            }
            let mut draw = || rand_unit_open_closed(rng.random::<f64>());
            if let Some(Action::Experiment(ex)) = m.on_timer(due, inp, &mut draw) {
                if let Outcome::TurnOff { .. } = ex.outcome {
                    break due;
                }
            }
        };
        let until = m.poll_at().unwrap();
        assert_eq!(
            m.on_timer(until, inp, &mut || unreachable!()),
            Some(Action::TurnOn)
        );
        out.push((
            off_at.saturating_since(start).as_secs_f64(),
            until.saturating_since(start).as_secs_f64(),
        ));
        t = until;
    }
    out
}

/// Spec §3 items 2 and 3: the long-run fraction of time on of a flow with
/// constant r_TCP is min(1, r_TCP / r_NA), so the aggregate rate of many PCC
/// flows is Σ min(r_NA, r_TCP), with protected time, making up (Eq. 4.7),
/// extended off times (Eq. 4.9) and continuous evaluation all active.
///
/// Why this is the expectation (renewal-reward, DERIVED): with
/// a = r_TCP / r_NA < 1, T = T_PROT and O = T_OFF, a cycle is on for
/// T + O·G where G counts passed experiments (P(G >= 1) = p_1 of Eq. 4.7,
/// then each T_OFF-boundary experiment passes with probability a), and off
/// for O; E[on] = a O / (1 - a) and E[cycle] = O / (1 - a) for every T, and
/// with p_1 < 0 on = T, off = T (1/a - 1): again on / cycle = a.
///
/// Tolerance: the estimator is the ratio R = Σ on / Σ cycle over n cycles
/// (independent, identically distributed). Its standard error by the delta
/// method is SE = sd(on - R cycle) / (sqrt(n) mean(cycle)); the test allows
/// 4 SE (two-sided normal tail 6e-5; the ratio's O(1/n) bias is far
/// below). The SE itself is asserted small so the check has teeth.
#[test]
fn aggregate_rate_of_many_flows_tends_to_sum_of_min_r_na_r_tcp() {
    let c = DecisionConfig::default();
    let r_tcp = 32_000.0; // 32 pkt/s of 1000 B: the standard fair rate
    let mut rng = ChaCha8Rng::seed_from_u64(59);
    let mut agg = 0.0;
    let mut agg_var = 0.0;
    let mut want = 0.0;
    // r_NA / r_TCP from 0.5 (always on) to 6.25 (extended off times when T_PROT > 11.4 s).
    for r_na in [16_000.0, 40_000.0, 48_000.0, 96_000.0, 200_000.0] {
        want += f64::min(r_na, r_tcp);
        let a = r_tcp / r_na;
        if a >= 1.0 {
            // p_ON >= 1 at every experiment: the flow never turns off.
            let mut m = PccDecision::new(c.clone()).unwrap();
            let ex = protect(
                &mut m,
                at(0.0),
                secs(10),
                finite(r_tcp, r_na),
                &mut no_draw(),
            );
            assert!(ex.p_on >= 1.0);
            let Outcome::StayOn { mut next } = ex.outcome else {
                panic!("turned off")
            };
            for _ in 0..10_000 {
                let ex = experiment(m.on_timer(next, finite(r_tcp, r_na), &mut no_draw()));
                let Outcome::StayOn { next: n } = ex.outcome else {
                    panic!("turned off")
                };
                next = n;
            }
            agg += r_na;
            continue;
        }
        let cs = cycles(&c, r_tcp, r_na, 0.25, 6000, &mut rng);
        let n = cs.len() as f64;
        let (on, len): (f64, f64) = cs.iter().fold((0.0, 0.0), |(x, y), &(o, l)| (x + o, y + l));
        let r = on / len;
        let mean_len = len / n;
        let var = cs.iter().map(|&(o, l)| (o - r * l).powi(2)).sum::<f64>() / (n - 1.0);
        let se = var.sqrt() / (n.sqrt() * mean_len);
        assert!(se < 0.01, "r_NA {r_na}: SE {se} too large to test anything");
        assert!(
            (r - a).abs() <= 4.0 * se,
            "r_NA {r_na}: on fraction {r} vs {a} (SE {se})"
        );
        agg += r_na * r;
        agg_var += (r_na * se).powi(2);
    }
    let tol = 4.0 * agg_var.sqrt();
    assert!(
        (agg - want).abs() <= tol,
        "aggregate {agg} vs {want} ± {tol}"
    );
}
