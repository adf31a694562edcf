//! The congestion-pricing links of seed 000 (Zimmermann 2005): REM's price
//! laws, SBRM's marking, adaptive RED's max_p law (property tests against
//! their definitions), and REM's feedback through the engine (closed forms
//! and binomial intervals).

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use protocols::link::{
    exp_mark_prob, AdaptiveRed, AdaptiveRedConfig, DropTail, LinkAlgoConfig, LinkBuildCtx,
    PriceLaw, PriceLawParams, PriceRule, Rem, RemConfig, RemFeedback, SbrmConfig,
};
use protocols::traffic::{PacketProcess, UdpSink, UdpSource};
use sim_core::{
    BufferLimit, Bytes, CcHeader, Ecn, Endpoint, EndpointCtx, FlowSpec, GroupId, HeaderFamily,
    LazyRng, LinkAlgorithm, LinkControl, LinkId, LinkSpec, LinkView, NodeId, Packet, PacketKind,
    PriceHeader, Rate, Reason, RouteId, RunOutput, SeriesSelect, SimConfig, SimDuration, SimTime,
    Simulator, Subject, Verdict,
};

const MS: u64 = 1_000_000_000; // picoseconds

/// A price law of `rule` on a link whose capacity is `c` mean-size
/// (1000-B) packets per 1-ms interval.
fn law(rule: PriceRule, c: f64, gamma: f64, alpha: f64, b0: f64, delta: f64) -> PriceLaw {
    let bps = (c * 8.0 * 1000.0 * 1000.0).round() as u64;
    PriceLaw::new(
        &PriceLawParams {
            rule,
            gamma,
            alpha,
            b0,
            delta,
            interval: SimDuration::from_millis(1),
            mean_pkt_size: Bytes::new(1000),
        },
        Rate::from_bps(bps),
    )
    .unwrap()
}

/// One interval carrying `n` mean-size packets, ending with `b` queued.
fn interval(l: &mut PriceLaw, n: u32, b: u32) {
    for _ in 0..n {
        l.on_arrival(1000);
    }
    l.on_interval_end(b);
}

fn periodic_rule() -> impl Strategy<Value = PriceRule> {
    prop_oneof![Just(PriceRule::Pc1), Just(PriceRule::Pc3)]
}

proptest! {
    /// While the input exceeds the capacity (and, for PC3, the queue is at
    /// or above b0) the price rises at every interval end where the rate
    /// estimate is above c, and its increments approach gamma (y - c) as the
    /// estimate converges to y.
    #[test]
    fn pc1_and_pc3_prices_rise_while_the_input_exceeds_the_capacity(
        rule in periodic_rule(),
        c in 1u32..40,
        excess in 1u32..20,
        gamma in 1e-4..1.0f64,
        alpha in 1e-3..1.0f64,
        b0 in 0u32..50,
        above in 0u32..100,
        delta in 0.05..=1.0f64,
        lambda0 in 0.0..10.0f64,
    ) {
        let y = c + excess;
        let b = b0 + above;
        let mut l = law(rule, f64::from(c), gamma, alpha, f64::from(b0), delta);
        l.set_lambda(lambda0);
        let mut prev = l.lambda();
        let mut risen = false;
        for _ in 0..200 {
            interval(&mut l, y, b);
            let now = l.lambda();
            prop_assert!(now >= 0.0);
            // The estimate climbs from 0 towards y: below c the price may
            // fall; from the interval where it passes c the price rises at
            // every interval end and never falls again.
            if l.yhat() > f64::from(c) {
                prop_assert!(now > prev, "{} -> {} with yhat {}", prev, now, l.yhat());
                risen = true;
            } else {
                prop_assert!(!risen, "yhat fell back below c");
                if rule == PriceRule::Pc1 {
                    prop_assert!(now <= prev);
                }
            }
            prev = now;
        }
        prop_assert!(risen);
        // After 200 intervals yhat = y (1 - (1 - delta)^200): the step is
        // gamma (y - c) (+ gamma alpha (b - b0) under PC3).
        let before = l.lambda();
        interval(&mut l, y, b);
        let mut want = gamma * f64::from(y - c);
        if rule == PriceRule::Pc3 {
            want += gamma * alpha * f64::from(b - b0);
        }
        let step = l.lambda() - before;
        let tol = 1e-9 * l.lambda().max(1.0) + gamma * f64::from(y) * (1.0 - delta).powi(200);
        prop_assert!((step - want).abs() <= tol, "step {} want {}", step, want);
    }

    /// Below capacity with an empty queue the price never rises and reaches
    /// 0 within lambda0 / (gamma (c - y)) intervals (each step removes at
    /// least gamma (c - y), as yhat <= y from a start at 0).
    #[test]
    fn pc1_and_pc3_prices_fall_to_zero_below_capacity_with_an_empty_queue(
        rule in periodic_rule(),
        c in 2u32..40,
        y_frac in 0.0..0.95f64,
        gamma in 1e-3..1.0f64,
        alpha in 1e-3..1.0f64,
        b0 in 0u32..50,
        delta in 0.05..=1.0f64,
        lambda0 in 0.0..50.0f64,
    ) {
        let y = (f64::from(c) * y_frac).floor() as u32;
        let mut l = law(rule, f64::from(c), gamma, alpha, f64::from(b0), delta);
        l.set_lambda(lambda0);
        let bound = (lambda0 / (gamma * f64::from(c - y))).ceil() as usize;
        let mut prev = l.lambda();
        for k in 1..=bound + 1 {
            interval(&mut l, y, 0);
            prop_assert!(l.lambda() >= 0.0 && l.lambda() <= prev);
            prev = l.lambda();
            if k >= bound {
                prop_assert_eq!(l.lambda(), 0.0, "still {} after {} intervals", prev, k);
            }
        }
    }

    /// PC2's price is [gamma (b - b0)]^+ of the queue alone: whatever
    /// traffic and interval ends came before, two laws agree at every b.
    #[test]
    fn pc2_is_a_function_of_the_backlog_alone(
        gamma in 1e-4..10.0f64,
        b0 in 0.0..100.0f64,
        history in proptest::collection::vec((0u32..50, 0u32..500), 0..30),
        b in 0u32..1000,
    ) {
        let mut fresh = law(PriceRule::Pc2, 10.0, gamma, 0.1, b0, 0.9);
        let mut used = fresh.clone();
        for &(n, q) in &history {
            interval(&mut used, n, q);
        }
        let want = (gamma * (f64::from(b) - b0)).max(0.0);
        prop_assert_eq!(used.price(b), want);
        prop_assert_eq!(fresh.price(b), want);
        interval(&mut fresh, 7, 3);
        prop_assert_eq!(fresh.price(b), want);
    }

    /// SBRM's m = 1 - exp(-gamma [b - b0]^+) is 0 at or below b0, never
    /// decreases with the queue, and (default gamma) is 0.99 at q_max.
    #[test]
    fn sbrm_marking_probability_is_monotone_in_the_backlog_and_zero_up_to_b0(
        b0 in 0u32..200,
        span in 1u32..1000,
        gamma in prop::option::of(1e-4..2.0f64),
        b1 in 0u32..2000,
        b2 in 0u32..2000,
    ) {
        let q_max = b0 + span;
        let cfg = SbrmConfig {
            b0: f64::from(b0),
            gamma,
            ..SbrmConfig::default()
        };
        let ctx = LinkBuildCtx {
            capacity: Rate::from_bps(10_000_000),
            delay: SimDuration::ZERO,
            limit: BufferLimit::Packets(q_max),
        };
        let r = cfg.build(&ctx).unwrap();
        let m = |b: u32| r.mark_prob(0, r.law().price(b));
        let (lo, hi) = (b1.min(b2), b1.max(b2));
        prop_assert!(m(lo) <= m(hi));
        prop_assert!((0.0..1.0).contains(&m(hi)) || m(hi) == 1.0);
        prop_assert_eq!(m(b0.min(lo)), 0.0);
        prop_assert_eq!(m(b0), 0.0);
        if hi > b0 {
            prop_assert!(m(hi) > 0.0);
            let g = gamma.unwrap_or(100f64.ln() / f64::from(span));
            let want = 1.0 - (-g * f64::from(hi - b0)).exp();
            prop_assert!((m(hi) - want).abs() < 1e-12);
        }
        if gamma.is_none() {
            prop_assert!((m(q_max) - 0.99).abs() < 1e-12);
        }
    }

    /// Adaptive RED's max_p stays in [bottom, top], rises (or stays at top)
    /// when the average is above the target range, falls (or stays at
    /// bottom) below it, and does not move inside it; a rise is
    /// min(alpha, max_p / 4) and a fall a factor beta, unless clamped.
    #[test]
    fn adaptive_red_max_p_stays_within_bottom_and_top_and_moves_the_right_way(
        min_th in 1.0..100.0f64,
        span in 1.0..200.0f64,
        top in 0.05..=1.0f64,
        bottom_frac in 0.001..1.0f64,
        start_frac in 0.0..=1.0f64,
        alpha in 0.001..0.2f64,
        beta in 0.05..0.99f64,
        avgs in proptest::collection::vec(0.0..400.0f64, 1..200),
    ) {
        let bottom = top * bottom_frac;
        let cfg = AdaptiveRedConfig {
            min_th: Some(min_th),
            max_th: Some(min_th + span),
            top,
            bottom,
            alpha,
            beta,
            max_p: bottom + start_frac * (top - bottom),
            ..AdaptiveRedConfig::default()
        };
        let ctx = LinkBuildCtx {
            capacity: Rate::from_bps(10_000_000),
            delay: SimDuration::ZERO,
            limit: BufferLimit::Unlimited,
        };
        let mut a = AdaptiveRed::new(&cfg, &ctx).unwrap();
        let (lo, hi) = a.target();
        prop_assert!((lo - (min_th + 0.4 * span)).abs() < 1e-9);
        prop_assert!((hi - (min_th + 0.6 * span)).abs() < 1e-9);
        for avg in avgs {
            let p = a.max_p();
            a.adapt(avg);
            let q = a.max_p();
            prop_assert!(q >= bottom && q <= top, "{} outside [{}, {}]", q, bottom, top);
            if avg > hi {
                prop_assert_eq!(q, (p + alpha.min(p / 4.0)).min(top));
            } else if avg < lo {
                prop_assert_eq!(q, (p * beta).max(bottom));
            } else {
                prop_assert_eq!(q, p);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Through the engine.

/// What a receiver saw of each data packet: its ECN codepoint and header.
type Seen = Arc<Mutex<Vec<(Ecn, CcHeader)>>>;

/// Sends `n` 1000-B data packets every `gap`, ECN-capable if `ect`, each
/// carrying a zeroed price header.
struct PriceSource {
    n: u64,
    gap: SimDuration,
    ect: bool,
    sent: u64,
}
impl Endpoint for PriceSource {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.on_timer(ctx);
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        if self.sent == self.n {
            ctx.set_deadline(None);
            return;
        }
        let mut p = Packet::new(ctx.flow(), RouteId(0), PacketKind::Data, 1000, ctx.now());
        p.seq = self.sent;
        p.ecn = if self.ect { Ecn::Ect } else { Ecn::NotEct };
        p.cc = CcHeader::Price(PriceHeader::default());
        ctx.send(p);
        self.sent += 1;
        let next = ctx.now() + self.gap;
        ctx.set_deadline(Some(next));
    }
    fn on_packet(&mut self, _: Packet, _: &mut EndpointCtx) {}
}

/// Records every data packet that arrives.
struct Collector(Seen);
impl Endpoint for Collector {
    fn on_packet(&mut self, p: Packet, _: &mut EndpointCtx) {
        if p.kind == PacketKind::Data {
            self.0.lock().unwrap().push((p.ecn, p.cc));
        }
    }
}

/// A REM link whose price never moves: its periodic law is never started.
struct Frozen(Rem);
impl LinkAlgorithm for Frozen {
    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, rng: &mut LazyRng) -> Verdict {
        self.0.on_arrival(pkt, view, rng)
    }
    fn on_departure(
        &mut self,
        pkt: &mut Packet,
        view: &LinkView,
        rng: &mut LazyRng,
    ) -> Option<Reason> {
        self.0.on_departure(pkt, view, rng)
    }
    fn stamps_departures(&self) -> bool {
        self.0.stamps_departures()
    }
    fn on_start(&mut self, _: &LinkView, _: &mut LinkControl) {}
    fn header_family(&self) -> Option<HeaderFamily> {
        self.0.header_family()
    }
}

const C_BPS: u64 = 8_000_000; // 1 packet of 1000 B per ms

fn ctx() -> LinkBuildCtx {
    LinkBuildCtx {
        capacity: Rate::from_bps(C_BPS),
        delay: SimDuration::from_millis(1),
        limit: BufferLimit::Unlimited,
    }
}

/// A REM link built from TOML keys (after `kind = "rem"`), its price frozen at `price`.
fn frozen(keys: &str, price: f64) -> Box<dyn LinkAlgorithm> {
    let c: LinkAlgoConfig = toml::from_str(&format!("kind = \"rem\"\n{keys}")).unwrap();
    let LinkAlgoConfig::Rem(cfg) = c else {
        panic!("{c:?}")
    };
    let mut r = Rem::new(&cfg, &ctx()).unwrap();
    r.set_price(price);
    Box::new(Frozen(r))
}

fn spec(i: u32, from: u32, to: u32) -> LinkSpec {
    LinkSpec {
        name: format!("l{i}"),
        from: NodeId(from),
        to: NodeId(to),
        capacity: Rate::from_bps(C_BPS),
        delay: SimDuration::from_millis(1),
        limit: BufferLimit::Unlimited,
        loss: 0.0,
    }
}

fn sim(end_ms: u64, sample: Option<SimDuration>) -> Simulator {
    Simulator::new(SimConfig {
        seed: 11,
        replication: 0,
        warmup: SimDuration::ZERO,
        end: SimDuration::from_millis(end_ms),
        sample_interval: sample,
        series: SeriesSelect {
            link_queue: sample.is_some(),
            ..SeriesSelect::default()
        },
    })
}

/// `n` packets 2 ms apart (half the capacity: no queue) from node 0 over
/// `algos`' links in series; returns what arrived and the run.
fn through(
    algos: Vec<Box<dyn LinkAlgorithm>>,
    n: u64,
    ect: bool,
) -> (Vec<(Ecn, CcHeader)>, RunOutput) {
    let hops = algos.len() as u32;
    let mut s = sim(2 * n + 100, None);
    let links: Vec<LinkId> = algos
        .into_iter()
        .enumerate()
        .map(|(i, a)| s.add_link(spec(i as u32, i as u32, i as u32 + 1), a))
        .collect();
    let back = s.add_link(spec(99, hops, 0), Box::new(DropTail));
    let fwd = s.add_route(links);
    let rev = s.add_route(vec![back]);
    let seen: Seen = Arc::default();
    s.add_flow(FlowSpec {
        group: GroupId(0),
        sender: Box::new(PriceSource {
            n,
            gap: SimDuration::from_millis(2),
            ect,
            sent: 0,
        }),
        receiver: Box::new(Collector(seen.clone())),
        fwd,
        rev,
        start: SimTime::ZERO,
        stop: None,
        host_delay: SimDuration::ZERO,
    });
    let out = s.run();
    let v = seen.lock().unwrap().clone();
    (v, out)
}

/// |k - n p| within 4.5 binomial standard deviations (plus one packet).
fn binomial_ok(k: usize, n: usize, p: f64) -> bool {
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    (k as f64 - n as f64 * p).abs() <= 4.5 * sd + 1.0
}

#[test]
fn a_cbr_source_above_capacity_grows_the_pc1_price_by_gamma_times_the_excess_per_interval() {
    // c = 1 packet per 1-ms interval; the source sends 2 (16 Mb/s from
    // 0.25 ms: two arrivals inside every interval, none at its end). So
    // yhat_k = 2 (1 - 0.1^k) and lambda_k = gamma sum_{j<=k} (yhat_j - 1),
    // growing by gamma (2 - 1) per interval once yhat has converged.
    let gamma = 0.01;
    let keys = format!("price_rule = \"pc1\"\ngamma = {gamma}");
    let cfg: LinkAlgoConfig = toml::from_str(&format!("kind = \"rem\"\n{keys}")).unwrap();
    let mut s = sim(60, Some(SimDuration::from_ps(MS + 300_000)));
    let l = s.add_link(spec(0, 0, 1), cfg.build(&ctx()).unwrap());
    let back = s.add_link(spec(1, 1, 0), Box::new(DropTail));
    let fwd = s.add_route(vec![l]);
    let rev = s.add_route(vec![back]);
    s.add_flow(FlowSpec {
        group: GroupId(0),
        sender: Box::new(UdpSource::new(
            Rate::from_bps(16_000_000),
            1000,
            PacketProcess::Constant,
        )),
        receiver: Box::new(UdpSink),
        fwd,
        rev,
        start: SimTime::from_ps(MS / 4),
        stop: None,
        host_delay: SimDuration::ZERO,
    });
    let out = s.run();
    let prices: Vec<(f64, f64)> = out
        .series
        .iter()
        .filter(|p| p.subject == Subject::Link(l) && p.metric == "rem_price")
        .map(|p| (p.time, p.value))
        .collect();
    assert!(prices.len() >= 55, "{} samples", prices.len());
    let mut lambda = 0.0;
    let mut yhat = 0.0;
    for (k, &(t, price)) in prices.iter().enumerate() {
        // Sample k is at k * 1.0003 ms: k interval ends have passed.
        assert_eq!((t * 1000.0).floor() as usize, k);
        if k > 0 {
            yhat = 0.1 * yhat + 0.9 * 2.0;
            lambda += gamma * (yhat - 1.0);
        }
        assert!(
            (price - lambda).abs() < 1e-12,
            "interval {k}: {price} vs {lambda}"
        );
    }
    let (a, b) = (prices[40].1, prices[50].1);
    assert!(((b - a) / 10.0 - gamma * (2.0 - 1.0)).abs() < 1e-12);
}

#[test]
fn with_a_frozen_price_the_ecn_mark_fraction_is_one_minus_phi_to_the_minus_price() {
    // lambda = 10, phi = 1.06: m = 1 - 1.06^-10 = 0.4416. With 50 000
    // packets 4.5 standard deviations are 0.01: a price off by 5 % fails.
    let n = 50_000;
    let m = 1.0 - 1.06f64.powf(-10.0);
    for at in ["departure", "arrival"] {
        let keys = format!("phi = 1.06\nmark_at = \"{at}\"");
        let (seen, out) = through(vec![frozen(&keys, 10.0)], n, true);
        assert_eq!(
            seen.len(),
            n as usize,
            "{at}: ECN-capable packets are never dropped"
        );
        let ce = seen.iter().filter(|s| s.0 == Ecn::Ce).count();
        assert!(
            binomial_ok(ce, seen.len(), m),
            "{at}: {ce} of {n} marked, want {m}"
        );
        let c = &out.links[0].counters;
        assert_eq!(c.marked[Reason::Early as usize].pkts, ce as u64, "{at}");
    }
    // Not ECN-capable: untouched on departure, dropped with probability m on arrival.
    let (seen, out) = through(vec![frozen("mark_at = \"departure\"", 10.0)], n, false);
    assert_eq!(seen.len(), n as usize);
    assert!(seen.iter().all(|s| s.0 == Ecn::NotEct));
    assert_eq!(out.links[0].counters.marked_total().pkts, 0);
    let (seen, out) = through(vec![frozen("mark_at = \"arrival\"", 10.0)], n, false);
    let dropped = out.links[0].counters.dropped[Reason::Early as usize].pkts as usize;
    assert_eq!(dropped + seen.len(), n as usize);
    assert!(binomial_ok(dropped, n as usize, m), "{dropped} dropped");
    // feedback = "drop" drops ECN-capable packets too.
    let (seen, out) = through(vec![frozen("feedback = \"drop\"", 10.0)], n, true);
    let dropped = out.links[0].counters.dropped[Reason::Early as usize].pkts as usize;
    assert_eq!(dropped + seen.len(), n as usize);
    assert!(binomial_ok(dropped, n as usize, m), "{dropped} dropped");
    assert!(seen.iter().all(|s| s.0 == Ecn::Ect));
}

#[test]
fn with_epf_a_packet_crossing_two_rem_links_carries_the_sum_of_their_prices() {
    for at in ["departure", "arrival"] {
        let keys = format!("feedback = \"explicit\"\nmark_at = \"{at}\"");
        let (seen, _) = through(vec![frozen(&keys, 1.5), frozen(&keys, 2.25)], 50, false);
        assert_eq!(seen.len(), 50);
        for (ecn, h) in seen {
            assert_eq!(
                h,
                CcHeader::Price(PriceHeader {
                    price: 3.75,
                    marks: 0
                }),
                "{at}"
            );
            assert_eq!(ecn, Ecn::NotEct);
        }
    }
    // A live price: PC2 on two links, gamma 0.5 per packet queued above
    // b0 = 0, the second link half as fast (2 ms per packet). A burst of 4
    // packets at once: at link 1 they leave 0 (the first went straight to
    // the idle serializer), 2, 1 and 0 packets behind them; at link 2 they
    // arrive 1 ms apart and leave 0, 0, 1 and 0 behind (a departure at the
    // instant of an arrival comes first). Sums: 0, 1, 0.5 + 0.5, 0.
    let keys = "feedback = \"explicit\"\nprice_rule = \"pc2\"\ngamma = 0.5\nb0 = 0";
    let cfg: LinkAlgoConfig = toml::from_str(&format!("kind = \"rem\"\n{keys}")).unwrap();
    let slow = LinkBuildCtx {
        capacity: Rate::from_bps(C_BPS / 2),
        ..ctx()
    };
    let mut s = sim(100, None);
    let l1 = s.add_link(spec(0, 0, 1), cfg.build(&ctx()).unwrap());
    let l2 = s.add_link(
        LinkSpec {
            capacity: slow.capacity,
            ..spec(1, 1, 2)
        },
        cfg.build(&slow).unwrap(),
    );
    let back = s.add_link(spec(2, 2, 0), Box::new(DropTail));
    let fwd = s.add_route(vec![l1, l2]);
    let rev = s.add_route(vec![back]);
    let seen: Seen = Arc::default();
    s.add_flow(FlowSpec {
        group: GroupId(0),
        sender: Box::new(PriceBurst(4)),
        receiver: Box::new(Collector(seen.clone())),
        fwd,
        rev,
        start: SimTime::ZERO,
        stop: None,
        host_delay: SimDuration::ZERO,
    });
    s.run();
    let prices: Vec<f64> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(_, h)| match h {
            CcHeader::Price(p) => p.price,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(prices, vec![0.0, 1.0, 1.0, 0.0]);
}

/// `n` 1000-B data packets with price headers at once.
struct PriceBurst(u64);
impl Endpoint for PriceBurst {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        for i in 0..self.0 {
            let mut p = Packet::new(ctx.flow(), RouteId(0), PacketKind::Data, 1000, ctx.now());
            p.seq = i;
            p.cc = CcHeader::Price(PriceHeader::default());
            ctx.send(p);
        }
    }
    fn on_packet(&mut self, _: Packet, _: &mut EndpointCtx) {}
}

#[test]
fn four_bit_code_bits_are_set_with_their_phi_probabilities_independently() {
    // lambda = 50 spreads the default bases over the range:
    // 1.06 -> 0.946, 1.007 -> 0.295, 1.001 -> 0.0488, 1.00015 -> 0.0075.
    let n = 20_000usize;
    let price = 50.0;
    let phis = [1.06f64, 1.007, 1.001, 1.00015];
    let (seen, out) = through(
        vec![frozen("feedback = \"four_bit\"", price)],
        n as u64,
        true,
    );
    assert_eq!(seen.len(), n);
    assert_eq!(out.links[0].counters.marked_total().pkts, 0, "no ECN marks");
    let codes: Vec<u8> = seen
        .iter()
        .map(|(ecn, h)| {
            assert_eq!(*ecn, Ecn::Ect);
            match h {
                CcHeader::Price(p) => {
                    assert_eq!(p.price, 0.0);
                    p.marks
                }
                other => panic!("{other:?}"),
            }
        })
        .collect();
    assert!(codes.iter().all(|c| c & 0xF0 == 0), "only 4 bits");
    let p: Vec<f64> = phis
        .iter()
        .map(|phi| exp_mark_prob(phi.ln(), price))
        .collect();
    for (i, &pi) in p.iter().enumerate() {
        assert!((pi - (1.0 - phis[i].powf(-price))).abs() < 1e-12);
        let k = codes.iter().filter(|c| *c & (1 << i) != 0).count();
        assert!(binomial_ok(k, n, pi), "bit {i}: {k} of {n}, want {pi}");
    }
    // Independent: bits 0 and 1 together with probability p0 p1.
    let both = codes.iter().filter(|c| *c & 0b11 == 0b11).count();
    assert!(binomial_ok(both, n, p[0] * p[1]), "{both}");
    // Over two links the bits OR: bit 1 unset with probability (1 - p1)^2.
    let (seen, _) = through(
        vec![
            frozen("feedback = \"four_bit\"", price),
            frozen("feedback = \"four_bit\"", price),
        ],
        n as u64,
        true,
    );
    let unset = seen
        .iter()
        .filter(|(_, h)| matches!(h, CcHeader::Price(p) if p.marks & 0b10 == 0))
        .count();
    assert!(binomial_ok(unset, n, (1.0 - p[1]).powi(2)), "{unset}");
}

#[test]
fn rem_config_defaults_and_feedback_families_hold_through_the_enum() {
    let c: LinkAlgoConfig = toml::from_str("kind = \"rem\"\nfeedback = \"four_bit\"").unwrap();
    assert_eq!(
        c.build(&ctx()).unwrap().header_family(),
        Some(HeaderFamily::Price)
    );
    let d = RemConfig::default();
    assert_eq!(d.feedback, RemFeedback::Ecn);
    let c: LinkAlgoConfig = toml::from_str("kind = \"sbrm\"\nq_max = 300").unwrap();
    assert_eq!(c.build(&ctx()).unwrap().header_family(), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// REM's end-to-end claim (Athuraliya and Low; Zimmermann (2005) eq.
    /// 5.2.2): with every link marking with `1 - phi^-lambda_l`, a packet
    /// crosses the path unmarked with probability `phi^-sum(lambda)`, so the
    /// source's estimate `-log_phi(1 - m)` from the marked fraction m of its
    /// last 50 ACKs recovers the path price. Random frozen prices on 1-4 REM
    /// links (phi = 1.06, 0.2-4 each), ECN marks on departure, 20 000
    /// packets fed to the sources' 1-bit estimator (`cc::price_estimate`,
    /// history 50) one echo per packet. Each 50-packet window's marked
    /// fraction is within 4.5 binomial standard deviations of `1 - phi^-sum`
    /// (plus the estimator's (n - 1/2)/n clamp when all 50 are marked), and
    /// the mean of the 400 window estimates within 4.5 standard errors (a
    /// 10 % error in the path price fails it: checked by mutation).
    #[test]
    fn the_one_bit_estimate_from_marks_recovers_the_path_price(
        prices in proptest::collection::vec(0.2f64..4.0, 1..=4),
    ) {
        use protocols::cc::price_estimate::{PriceEstimateConfig, PriceEstimator, PriceFeedback};
        let links: Vec<Box<dyn LinkAlgorithm>> =
            prices.iter().map(|p| frozen("phi = 1.06\nmark_at = \"departure\"", *p)).collect();
        let n = 20_000;
        let (seen, _) = through(links, n, true);
        prop_assert_eq!(seen.len(), n as usize);
        let sum: f64 = prices.iter().sum();
        let m = 1.0 - 1.06f64.powf(-sum);
        let mut est = PriceEstimator::new(&PriceEstimateConfig {
            feedback: PriceFeedback::OneBit,
            history: Some(50),
            phi: Some(1.06),
            phis: None,
        })
        .unwrap();
        let sd = (m * (1.0 - m) / 50.0).sqrt();
        let mut window_means = Vec::new();
        for (k, (ecn, _)) in seen.iter().enumerate() {
            let ack = sim_core::AckInfo {
                ece: *ecn == Ecn::Ce,
                ..sim_core::AckInfo::segment(1000, SimDuration::from_millis(10))
            };
            est.on_ack(&ack, 1.0);
            if (k + 1) % 50 == 0 {
                let p_hat = est.price();
                let m_hat = 1.0 - 1.06f64.powf(-p_hat);
                prop_assert!(
                    (m_hat - m).abs() <= 4.5 * sd + 1.0 / 100.0,
                    "window {}: m_hat {m_hat} vs {m} (price {p_hat} vs {sum})", k / 50
                );
                window_means.push(m_hat);
            }
        }
        let mean = window_means.iter().sum::<f64>() / window_means.len() as f64;
        let se = sd / (window_means.len() as f64).sqrt();
        prop_assert!((mean - m).abs() <= 4.5 * se, "mean {mean} vs {m}");
    }
}
