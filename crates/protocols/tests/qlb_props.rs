//! Property tests of the QLB link law (seed 003, spec §2.4, §3.1) and of the
//! header combining along a path, as issue 5 lists them.

use proptest::prelude::*;
use protocols::link::{LinkBuildCtx, Qlb, QlbConfig};
use sim_core::{
    BufferLimit, CcHeader, FlowId, LazyRng, LinkAlgorithm, LinkControl, LinkView, Packet,
    PacketKind, Rate, RateHeader, RouteId, SimDuration, SimTime,
};

fn qlb(c_bps: u64, q_ref_pkts: u32) -> Qlb {
    let cfg = QlbConfig {
        q_ref: protocols::link::QueueSize::Packets(q_ref_pkts),
        ..QlbConfig::default()
    };
    let ctx = LinkBuildCtx {
        capacity: Rate::from_bps(c_bps),
        delay: SimDuration::from_millis(10),
        limit: BufferLimit::Unlimited,
    };
    Qlb::new(&cfg, &ctx).unwrap()
}

fn view(now: SimTime, c_bps: u64) -> LinkView {
    LinkView {
        delay: SimDuration::from_millis(10),
        ..LinkView::idle(now, Rate::from_bps(c_bps))
    }
}

fn data() -> Packet {
    let mut p = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO);
    p.cc = CcHeader::Rate(RateHeader {
        desired: f64::INFINITY,
        allowed: f64::INFINITY,
        rtt: 0.1,
        hops: 0,
        congested: false,
    });
    p
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Projection (6) and (4): p in [1 B/s, C], N >= 1, whatever the inputs.
    #[test]
    fn the_rate_stays_in_one_to_c_and_the_estimate_at_least_one(
        c_bps in 1_000u64..10_000_000_000,
        q in 0.0f64..1e8,
        d in 1e-4f64..5.0,
        n in 1.0f64..1e5,
        y in 0.0f64..2e9,
        p_prev in 1.0f64..2e9,
    ) {
        let l = qlb(c_bps, 100);
        let p = l.law(q, d, n);
        prop_assert!((1.0..=l.capacity()).contains(&p), "{p}");
        let n2 = l.estimate(n, y, q, d, p_prev);
        prop_assert!(n2 >= 1.0, "{n2}");
    }

    /// Spec §3.1 [DERIVED]: with y = C, q = q_ref, p = C/N and
    /// N_hat = N (1 + q_ref/(C d)), the law and the estimator are at a fixed point.
    #[test]
    fn the_equilibrium_is_a_fixed_point(
        c_mbps in 1u64..10_000,
        users in 1u32..1000,
        q_ref_pkts in 1u32..1000,
        d in 1e-3f64..2.0,
    ) {
        let c_bps = c_mbps * 1_000_000;
        let l = qlb(c_bps, q_ref_pkts);
        let c = l.capacity();
        let q_ref = f64::from(q_ref_pkts) * 1000.0;
        let n = f64::from(users);
        let n_hat = n * (1.0 + q_ref / (c * d));
        let p = l.law(q_ref, d, n_hat);
        prop_assert!((p - c / n).abs() <= 1e-9 * c / n, "p {p} vs C/N {}", c / n);
        let n2 = l.estimate(n_hat, c, q_ref, d, p);
        prop_assert!((n2 - n_hat).abs() <= 1e-9 * n_hat, "N {n2} vs {n_hat}");
    }

    /// Along any path of QLB links, the header arriving at the receiver carries
    /// the minimum of the links' advertised rates and the OR of their congestion
    /// tests (y > 0.95 C).
    #[test]
    fn the_echoed_rate_is_the_path_minimum_and_the_bit_the_or(
        links in prop::collection::vec((1u64..1000, 0.0f64..1.2), 1..8),
    ) {
        let mut path: Vec<(Qlb, u64)> = Vec::new();
        for &(mbps, load) in &links {
            let c_bps = mbps * 1_000_000;
            let mut l = qlb(c_bps, 100);
            // One control period of 1 s carrying `load` x C: y = load x C.
            let mut ctl = LinkControl { next_timer: None, limit: BufferLimit::Unlimited };
            l.on_start(&view(SimTime::ZERO, c_bps), &mut ctl);
            let bytes = (load * c_bps as f64 / 8.0) as u64;
            let mut rng = LazyRng::new(1, 0, sim_core::StreamKind::LinkAlgorithm, 0);
            let mut big = data();
            big.size = u32::try_from(bytes.max(1)).unwrap_or(u32::MAX);
            l.on_arrival(&mut big, &view(SimTime::ZERO, c_bps), &mut rng);
            l.on_timer(&view(SimTime::from_secs_f64(1.0), c_bps), &mut ctl);
            path.push((l, c_bps));
        }
        let mut pkt = data();
        let mut rng = LazyRng::new(1, 0, sim_core::StreamKind::LinkAlgorithm, 0);
        for (l, c_bps) in &mut path {
            l.on_departure(&mut pkt, &view(SimTime::from_secs_f64(1.0), *c_bps), &mut rng);
        }
        let CcHeader::Rate(h) = pkt.cc else { unreachable!() };
        let min = path.iter().map(|(l, _)| l.p() * 8.0).fold(f64::INFINITY, f64::min);
        let or = path.iter().any(|(l, _)| l.input_rate() > 0.95 * l.capacity());
        prop_assert_eq!(h.allowed, min);
        prop_assert_eq!(h.congested, or);
    }
}
