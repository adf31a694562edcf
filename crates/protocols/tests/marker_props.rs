//! Property tests of the seed-001 markers: RED, virtual queue, load-based marking.

use proptest::prelude::*;
use protocols::link::{
    lbm_prob, LinkBuildCtx, LoadBased, LoadBasedConfig, LoadEstimator, QueueSize, Red, RedConfig,
    RedPreset, VirtualQueue, VirtualQueueConfig, VqVariant,
};
use sim_core::{
    BufferLimit, Bytes, FlowId, LazyRng, LinkAlgorithm, LinkView, Packet, PacketKind, Rate, Reason,
    RouteId, SimDuration, SimTime, StreamKind, Verdict,
};

const C_BPS: u64 = 10_000_000;

fn ctx() -> LinkBuildCtx {
    LinkBuildCtx {
        capacity: Rate::from_bps(C_BPS),
        delay: SimDuration::ZERO,
        limit: BufferLimit::Packets(30),
    }
}

fn view(now: SimTime, pkts: u32, busy_until: SimTime) -> LinkView {
    LinkView {
        backlog_pkts: pkts,
        backlog_bytes: u64::from(pkts) * 1000,
        busy_until,
        ..LinkView::idle(now, Rate::from_bps(C_BPS))
    }
}

fn pkt(size: u32) -> Packet {
    Packet::new(FlowId(0), RouteId(0), PacketKind::Data, size, SimTime::ZERO)
}

fn preset() -> impl Strategy<Value = RedPreset> {
    prop_oneof![Just(RedPreset::A), Just(RedPreset::B), Just(RedPreset::C)]
}

/// A RED config from a preset or from random valid parameters, gentle or not.
fn red_config() -> impl Strategy<Value = RedConfig> {
    let explicit = (
        0.0..20.0f64,
        0.5..40.0f64,
        0.01..=1.0f64,
        0.0001..=1.0f64,
        any::<bool>(),
    )
        .prop_map(|(min_th, span, max_p, w_q, gentle)| {
            let mut c = RedConfig::from_preset(RedPreset::A);
            c.preset = None;
            c.min_th = Some(min_th);
            c.max_th = Some(min_th + span);
            c.max_p = Some(max_p);
            c.w_q = Some(w_q);
            c.gentle = gentle;
            c
        });
    prop_oneof![preset().prop_map(RedConfig::from_preset), explicit]
}

proptest! {
    #[test]
    fn red_probability_is_non_decreasing_in_the_average_queue(
        cfg in red_config(),
        a in 0.0..100.0f64,
        b in 0.0..100.0f64,
    ) {
        let r = Red::new(&cfg, &ctx()).unwrap();
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        prop_assert!(r.base_prob(lo) <= r.base_prob(hi));
        prop_assert!((0.0..=1.0).contains(&r.base_prob(lo)));
    }

    #[test]
    fn red_probability_is_zero_below_min_th_and_one_from_twice_max_th(
        p in preset(),
        below in 0.0..1.0f64,
        above in 0.0..100.0f64,
    ) {
        let r = Red::new(&RedConfig::from_preset(p), &ctx()).unwrap();
        let (min_th, max_th, _, _) = p.values();
        prop_assert_eq!(r.base_prob(below * min_th * 0.999_999), 0.0);
        prop_assert_eq!(r.base_prob(2.0 * max_th), 1.0);
        prop_assert_eq!(r.base_prob(2.0 * max_th + above), 1.0);
    }

    #[test]
    fn red_average_stays_within_the_range_of_its_samples(
        cfg in red_config(),
        samples in proptest::collection::vec(0u32..200, 1..200),
    ) {
        // The serializer is busy throughout (busy_until > now): no idle decay.
        // The average starts at 0, so 0 is one of the "samples".
        let mut r = Red::new(&cfg, &ctx()).unwrap();
        let mut rng = LazyRng::new(5, 0, StreamKind::LinkAlgorithm, 0);
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for (i, &q) in samples.iter().enumerate() {
            let now = SimTime::from_ps(1_000_000 * i as u64);
            r.on_arrival(&mut pkt(1000), &view(now, q, SimTime::from_ps(u64::MAX / 2)), &mut rng);
            lo = lo.min(f64::from(q));
            hi = hi.max(f64::from(q));
            let avg = r.avg();
            prop_assert!(avg >= lo - 1e-9 * hi && avg <= hi * (1.0 + 1e-12), "{} not in [{}, {}]", avg, lo, hi);
        }
    }

    #[test]
    fn vq_never_marks_a_fitting_packet_outside_a_marking_period_and_never_goes_negative(
        theta in 0.05..=1.0f64,
        b_pkts in 1u32..60,
        overflow_only in any::<bool>(),
        arrivals in proptest::collection::vec((0u64..2_000_000_000, 40u32..1500), 1..300),
    ) {
        let cfg = VirtualQueueConfig {
            theta,
            buffer: Some(QueueSize::Packets(b_pkts)),
            variant: if overflow_only { VqVariant::Overflow } else { VqVariant::BusyPeriod },
            pkt_size: Bytes::new(1000),
            ..VirtualQueueConfig::default()
        };
        let mut vq = VirtualQueue::new(&cfg, &ctx()).unwrap();
        let mut rng = LazyRng::new(5, 0, StreamKind::LinkAlgorithm, 0);
        let mut now = SimTime::ZERO;
        for (gap_ps, size) in arrivals {
            now = SimTime::from_ps(now.as_ps() + gap_ps);
            let before = vq.backlog_at(now);
            let in_period = vq.in_marking_period_at(now);
            prop_assert!(before >= 0.0);
            let fits = before + f64::from(size) <= vq.limit_bytes();
            let v = vq.on_arrival(&mut pkt(size), &view(now, 0, SimTime::ZERO), &mut rng);
            if fits && (!in_period || overflow_only) {
                prop_assert_eq!(v, Verdict::Enqueue);
            }
            if !fits {
                prop_assert_eq!(v, Verdict::Mark(Reason::Virtual));
            }
            let after = vq.backlog_at(now);
            prop_assert!(after >= 0.0 && after <= vq.limit_bytes());
        }
    }

    #[test]
    fn lbm_probability_is_non_decreasing_in_the_measured_load(
        rho0 in 0.0..1.5f64,
        alpha in 0.001..100.0f64,
        a in 0.0..3.0f64,
        b in 0.0..3.0f64,
    ) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let (plo, phi) = (lbm_prob(lo, rho0, alpha), lbm_prob(hi, rho0, alpha));
        prop_assert!(plo <= phi);
        prop_assert!((0.0..=1.0).contains(&plo) && (0.0..=1.0).contains(&phi));
    }

    /// The continuous LBM estimators (spec 2.9's alternatives) against their
    /// definitions, summed from scratch over every earlier arrival: the
    /// sliding window reads the bytes of those no older than `t_avg`, the
    /// EWMA reads `sum s_i exp(-(now - t_i) / t_avg)`, both over `C t_avg`;
    /// the marking probability in force is `p(rho)` of that reading.
    #[test]
    fn lbm_continuous_estimators_read_their_definitions(
        t_avg_ms in 1u64..1000,
        steps in prop::collection::vec((0u64..2000, 40u32..9000), 1..300),
    ) {
        let t_avg = SimDuration::from_millis(t_avg_ms);
        let cap = C_BPS as f64 * t_avg.as_secs_f64() / 8.0;
        for estimator in [LoadEstimator::Sliding, LoadEstimator::Ewma] {
            let cfg = LoadBasedConfig {
                preset: None,
                t_avg: Some(t_avg),
                rho0: Some(0.3),
                alpha: Some(1.5),
                estimator: Some(estimator),
            };
            let mut m = LoadBased::new(&cfg, &ctx()).unwrap();
            let mut rng = LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0);
            let mut seen: Vec<(u64, u32)> = Vec::new();
            let mut now = 0u64;
            for &(gap, size) in &steps {
                now += gap * 10_000_000; // 10-us grid: ages hit t_avg exactly
                let t = SimTime::from_ps(now);
                m.on_arrival(&mut pkt(size), &LinkView::idle(t, Rate::from_bps(C_BPS)), &mut rng);
                let want = match estimator {
                    LoadEstimator::Sliding => seen
                        .iter()
                        .filter(|&&(ti, _)| ti + t_avg.as_ps() >= now)
                        .map(|&(_, s)| f64::from(s))
                        .sum::<f64>(),
                    _ => seen
                        .iter()
                        .map(|&(ti, s)| {
                            let age = (now - ti) as f64 / t_avg.as_ps() as f64;
                            f64::from(s) * (-age).exp()
                        })
                        .sum::<f64>(),
                } / cap;
                prop_assert!(
                    (m.rho() - want).abs() <= 1e-9 * want.max(1.0),
                    "{:?} at {} ps: {} vs {}", estimator, now, m.rho(), want
                );
                prop_assert_eq!(m.prob(), lbm_prob(m.rho(), 0.3, 1.5));
                seen.push((now, size));
            }
        }
    }
}
