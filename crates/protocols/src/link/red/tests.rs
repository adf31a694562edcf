//! Unit tests of RED (`super`): the probability, count and idle-decay
//! rules against ns-2's, the forced and limit regions, `mark_p`, parsing.

use super::super::LinkAlgoConfig;
use super::*;
use sim_core::*;

const C_BPS: u64 = 10_000_000;

fn ctx() -> LinkBuildCtx {
    LinkBuildCtx {
        capacity: Rate::from_bps(C_BPS),
        delay: SimDuration::ZERO,
        limit: BufferLimit::Unlimited,
    }
}

/// A view at `now_s` seconds with `pkts` 1000-B packets queued; the serializer
/// is busy until `busy_s` seconds.
fn view(now_s: f64, pkts: u32, busy_s: f64) -> LinkView {
    LinkView {
        backlog_pkts: pkts,
        backlog_bytes: u64::from(pkts) * 1000,
        busy_until: SimTime::from_secs_f64(busy_s),
        ..LinkView::idle(SimTime::from_secs_f64(now_s), Rate::from_bps(C_BPS))
    }
}

fn pkt() -> Packet {
    Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO)
}

fn rng() -> LazyRng {
    LazyRng::new(7, 0, StreamKind::LinkAlgorithm, 0)
}

fn red(cfg: &RedConfig) -> Red {
    Red::new(cfg, &ctx()).unwrap()
}

fn parse(s: &str) -> Result<LinkAlgoConfig, toml::de::Error> {
    toml::from_str(s)
}

fn build(s: &str) -> Result<Box<dyn LinkAlgorithm>, ParamError> {
    parse(s).unwrap().build(&ctx())
}

#[test]
fn red_base_prob_follows_the_piecewise_linear_gentle_law_for_each_preset() {
    // Spec §2.7 p_base: max_p (avg-min)/(max-min); max_p + (1-max_p)(avg-max)/max.
    let cases = [
        (RedPreset::A, 4.99, 0.0),
        (RedPreset::A, 10.0, 0.1 * (10.0 - 5.0) / (15.0 - 5.0)),
        (RedPreset::A, 15.0, 0.1),
        (RedPreset::A, 20.0, 0.1 + 0.9 * (20.0 - 15.0) / 15.0),
        (RedPreset::A, 30.0, 1.0),
        (RedPreset::B, 4.0, 0.1 * (4.0 - 2.0) / (6.0 - 2.0)),
        (RedPreset::B, 9.0, 0.1 + 0.9 * (9.0 - 6.0) / 6.0),
        (RedPreset::C, 6.0, 0.95 * (6.0 - 3.0) / (9.0 - 3.0)),
        (RedPreset::C, 12.0, 0.95 + 0.05 * (12.0 - 9.0) / 9.0),
        (RedPreset::C, 18.0, 1.0),
    ];
    for (preset, avg, want) in cases {
        let r = red(&RedConfig::from_preset(preset));
        assert!(
            (r.base_prob(avg) - want).abs() < 1e-12,
            "{preset:?} p({avg}) = {} != {want}",
            r.base_prob(avg)
        );
    }
}

#[test]
fn red_without_gentle_jumps_to_one_at_max_th() {
    let mut cfg = RedConfig::from_preset(RedPreset::A);
    cfg.gentle = false;
    let r = red(&cfg);
    assert!((r.base_prob(14.999) - 0.1 * 9.999 / 10.0).abs() < 1e-12);
    assert_eq!(r.base_prob(15.0), 1.0);
}

#[test]
fn red_ewma_weights_each_arrival_sample_by_w_q() {
    // ns-2 estimator: avg = (1 - w_q) avg + w_q q, on arrivals while busy.
    let mut r = red(&RedConfig::from_preset(RedPreset::A));
    let mut g = rng();
    r.on_arrival(&mut pkt(), &view(1.0, 10, 2.0), &mut g);
    let a1 = (1.0 - 0.002) * 0.0 + 0.002 * 10.0;
    assert_eq!(r.avg(), a1);
    r.on_arrival(&mut pkt(), &view(1.1, 20, 2.0), &mut g);
    assert_eq!(r.avg(), (1.0 - 0.002) * a1 + 0.002 * 20.0);
    assert_eq!(r.probe(), Some(("red_avg", r.avg())));
}

#[test]
fn red_decays_the_average_once_per_idle_period_by_floor_ptc_times_idle() {
    // ptc = C/(8 mean_pktsize) = 1e7/(8*500) = 2500 pkt/s; idle 4.7 ms -> m = 11.
    let mut r = red(&RedConfig::from_preset(RedPreset::A));
    r.s.avg = 8.0;
    let mut g = rng();
    r.on_arrival(&mut pkt(), &view(1.0047, 0, 1.0), &mut g);
    let m = (2500.0f64 * 0.0047).floor() as i32;
    assert_eq!(m, 11);
    let a1 = (1.0 - 0.002) * (8.0 * (1.0f64 - 0.002).powi(m)) + 0.002 * 0.0;
    // Within 1e-14: `powi` may be folded at compile time in release builds,
    // which can differ from the run-time call in the last bit.
    assert!((r.avg() - a1).abs() < 1e-14, "{} vs {a1}", r.avg());
    // A second arrival seeing the same idle period does not decay again.
    r.on_arrival(&mut pkt(), &view(1.0047, 0, 1.0), &mut g);
    assert!((r.avg() - (1.0 - 0.002) * a1).abs() < 1e-14);
    // A new idle period (the serializer finished at 1.1 s) decays again:
    // 0.9 ms -> m = floor(2500 * 0.0009) = 2.
    r.on_arrival(&mut pkt(), &view(1.1009, 0, 1.1), &mut g);
    let a3 = (1.0 - 0.002) * ((1.0 - 0.002) * a1 * (1.0f64 - 0.002).powi(2));
    assert!((r.avg() - a3).abs() < 1e-15, "{} vs {a3}", r.avg());
}

#[test]
fn red_mean_pkt_size_sets_the_idle_decay_rate() {
    // mean_pkt_size 1000 B: ptc = 1250 pkt/s; idle 4.7 ms -> m = 5.
    let mut cfg = RedConfig::from_preset(RedPreset::A);
    cfg.mean_pkt_size = Bytes::new(1000);
    let mut r = red(&cfg);
    r.s.avg = 8.0;
    r.on_arrival(&mut pkt(), &view(1.0047, 0, 1.0), &mut rng());
    let want = (1.0 - 0.002) * (8.0 * (1.0f64 - 0.002).powi(5));
    assert!((r.avg() - want).abs() < 1e-14, "{} vs {want}", r.avg());
}

#[test]
fn red_marks_nothing_below_min_th_and_nothing_when_the_queue_holds_one_packet() {
    let mut r = red(&RedConfig::from_preset(RedPreset::A));
    let mut g = rng();
    r.s.avg = 4.0;
    r.s.old = true;
    assert_eq!(
        r.on_arrival(&mut pkt(), &view(1.0, 40, 2.0), &mut g),
        Verdict::Enqueue
    );
    assert!(!r.s.old, "below min_th resets old");
    // ns-2 qlen > 1 guard: even in the forced region, 1 queued packet -> no mark.
    r.s.avg = 100.0;
    r.s.old = true;
    assert_eq!(
        r.on_arrival(&mut pkt(), &view(1.0, 1, 2.0), &mut g),
        Verdict::Enqueue
    );
    assert!(!r.s.old);
}

#[test]
fn red_first_packet_over_min_th_sets_old_and_is_not_marked() {
    let mut r = red(&RedConfig::from_preset(RedPreset::C));
    r.s.avg = 8.9;
    r.s.count = 57;
    assert_eq!(
        r.on_arrival(&mut pkt(), &view(1.0, 9, 2.0), &mut rng()),
        Verdict::Enqueue
    );
    assert!(r.s.old);
    assert_eq!(r.count(), 1);
}

#[test]
fn red_wait_spreads_marks_so_none_comes_before_count_times_p_reaches_one() {
    // A with avg = q = 10: p_b = 0.1 * 5/10 = 0.05. With wait, p_a = 0 while
    // count*p_b < 1 (count < 20) and p_a = 1 once count*p_b >= 2 (count >= 40).
    for seed in 0..20 {
        let mut r = red(&RedConfig::from_preset(RedPreset::A));
        let mut g = LazyRng::new(seed, 0, StreamKind::LinkAlgorithm, 0);
        r.s.avg = 10.0;
        r.s.old = true;
        r.s.count = 0;
        let mut first = None;
        for i in 1..=60u64 {
            let v = r.on_arrival(&mut pkt(), &view(1.0, 10, 2.0), &mut g);
            if v != Verdict::Enqueue {
                assert_eq!(v, Verdict::Mark(Reason::Early));
                first = Some(i);
                break;
            }
        }
        let first = first.expect("a mark by count 40");
        assert!(
            (20..=40).contains(&first),
            "seed {seed}: first mark at {first}"
        );
        assert_eq!(r.count(), 0, "a mark resets count");
    }
}

#[test]
fn red_modify_p_matches_ns2_for_wait_classic_and_none() {
    // ns-2 modify_p: wait: 0 | p/(2-cp) | 1; classic: p/(1-cp) | 1.
    let p = 0.05;
    assert_eq!(modify(p, 10.0, RedCount::Wait), 0.0);
    assert_eq!(modify(p, 30.0, RedCount::Wait), p / (2.0 - 30.0 * p));
    assert_eq!(modify(p, 40.0, RedCount::Wait), 1.0);
    assert_eq!(modify(p, 10.0, RedCount::Classic), p / (1.0 - 10.0 * p));
    assert_eq!(modify(p, 20.0, RedCount::Classic), 1.0);
    assert_eq!(modify(p, 1000.0, RedCount::Independent), p);
}

#[test]
fn red_byte_mode_counts_whole_mean_packets_and_scales_by_size() {
    // Byte mode: count = floor(count_bytes/500); p_a *= size/500.
    let mut cfg = RedConfig::from_preset(RedPreset::A);
    cfg.bytes = true;
    cfg.min_th = Some(5000.0);
    cfg.max_th = Some(15000.0);
    cfg.count = RedCount::Classic;
    let mut r = red(&cfg);
    r.s.avg = 10000.0;
    r.s.count_bytes = 2999; // floor(2999/500) = 5
    let pb = 0.1 * (10000.0 - 5000.0) / 10000.0;
    let want = pb / (1.0 - 5.0 * pb) * 1000.0 / 500.0;
    assert!((r.mark_prob(1000) - want).abs() < 1e-15);
}

#[test]
fn red_marks_every_packet_in_the_forced_region_and_resets_count() {
    let mut r = red(&RedConfig::from_preset(RedPreset::A));
    let mut g = rng();
    r.s.avg = 2.0 * 15.0;
    r.s.old = true;
    r.s.count = 9;
    assert_eq!(
        r.on_arrival(&mut pkt(), &view(1.0, 40, 2.0), &mut g),
        Verdict::Mark(Reason::Forced)
    );
    assert_eq!(r.count(), 0);
    // Not gentle: forced from max_th on; mode drop drops.
    let mut cfg = RedConfig::from_preset(RedPreset::A);
    cfg.gentle = false;
    cfg.mode = RedMode::Drop;
    let mut r = red(&cfg);
    r.s.avg = 15.0;
    r.s.old = true;
    assert_eq!(
        r.on_arrival(&mut pkt(), &view(1.0, 40, 2.0), &mut g),
        Verdict::Drop(Reason::Forced)
    );
}

#[test]
fn red_mark_p_marks_up_to_it_and_drops_above_it_as_ns2() {
    // ns-2 drop_early: mark while p_b <= mark_p, drop above; forced drops.
    let mut cfg = RedConfig::from_preset(RedPreset::A);
    cfg.mark_p = Some(0.1);
    let mut r = red(&cfg);
    let mut g = rng();
    let v = view(1.0, 40, 2.0);
    // avg -> 14.05: p_b 0.0905 <= 0.1; count 1000 makes the selection certain.
    (r.s.avg, r.s.old, r.s.count) = (14.0, true, 1000);
    assert_eq!(
        r.on_arrival(&mut pkt(), &v, &mut g),
        Verdict::Mark(Reason::Early)
    );
    // avg -> 20.04 (gentle region): p_b 0.40 > 0.1, a drop.
    (r.s.avg, r.s.count) = (20.0, 1000);
    assert_eq!(
        r.on_arrival(&mut pkt(), &v, &mut g),
        Verdict::Drop(Reason::Early)
    );
    (r.s.avg, r.s.count) = (30.0, 1000);
    assert_eq!(
        r.on_arrival(&mut pkt(), &v, &mut g),
        Verdict::Drop(Reason::Forced)
    );
    // Without mark_p the same selections mark.
    let mut r = red(&RedConfig::from_preset(RedPreset::A));
    (r.s.avg, r.s.old, r.s.count) = (20.0, true, 1000);
    assert_eq!(
        r.on_arrival(&mut pkt(), &v, &mut g),
        Verdict::Mark(Reason::Early)
    );
    // mark_p with mode = "drop", or out of (0, 1], is an error naming the key.
    cfg.mode = RedMode::Drop;
    assert_eq!(Red::new(&cfg, &ctx()).unwrap_err().key, "mark_p");
    cfg.mode = RedMode::Mark;
    cfg.mark_p = Some(1.5);
    assert_eq!(Red::new(&cfg, &ctx()).unwrap_err().key, "mark_p");
}

#[test]
fn red_marks_when_the_instantaneous_queue_reaches_the_limit() {
    let mut cfg = RedConfig::from_preset(RedPreset::A);
    cfg.limit = Some(QueueSize::Packets(30));
    let mut r = red(&cfg);
    let mut g = rng();
    assert_eq!(
        r.on_arrival(&mut pkt(), &view(1.0, 29, 2.0), &mut g),
        Verdict::Enqueue
    );
    assert_eq!(
        r.on_arrival(&mut pkt(), &view(1.0, 30, 2.0), &mut g),
        Verdict::Mark(Reason::Forced)
    );
    assert_eq!(r.count(), 0);
    // In bytes: 30 packets of 1000 B reach "30KB".
    cfg.limit = Some(QueueSize::Bytes(30_000));
    cfg.mode = RedMode::Drop;
    let mut r = red(&cfg);
    assert_eq!(
        r.on_arrival(&mut pkt(), &view(1.0, 29, 2.0), &mut g),
        Verdict::Enqueue
    );
    assert_eq!(
        r.on_arrival(&mut pkt(), &view(1.0, 30, 2.0), &mut g),
        Verdict::Drop(Reason::Forced)
    );
}

#[test]
fn red_scenario_syntax_parses_with_presets_overrides_and_defaults() {
    let c = parse(
        r#"kind = "red"
preset = "A"
max_p = 0.2
limit = "30pkt"
mean_pkt_size = "1000B"
count = "none""#,
    )
    .unwrap();
    let LinkAlgoConfig::Red(cfg) = &c else {
        panic!("{c:?}")
    };
    assert_eq!(c.name(), "red");
    assert!(cfg.gentle && !cfg.bytes && cfg.mode == RedMode::Mark);
    assert_eq!(cfg.limit, Some(QueueSize::Packets(30)));
    assert_eq!(cfg.count, RedCount::Independent);
    let r = red(cfg);
    assert_eq!(
        (r.p.min_th, r.p.max_th, r.p.max_p, r.p.w_q),
        (5.0, 15.0, 0.2, 0.002)
    );
    assert_eq!(r.p.mean_pkt_size, 1000);
    // Integers are accepted for the f64 thresholds; no preset needs all four.
    let ok = r#"kind = "red"
min_th = 3
max_th = 9
max_p = 0.95
w_q = 0.002
gentle = false
mode = "drop"
bytes = false
count = "classic""#;
    assert!(build(ok).is_ok());
    assert_eq!(
        RedConfig::from_preset(RedPreset::A).mean_pkt_size.get(),
        500
    );
}

#[test]
fn red_rejects_unknown_keys_and_bad_enums_when_parsing() {
    for bad in [
        "kind = \"red\"\npreset = \"A\"\nmaxp = 0.1",
        "kind = \"red\"\npreset = \"D\"",
        "kind = \"red\"\npreset = \"A\"\nmode = \"maybe\"",
        "kind = \"red\"\npreset = \"A\"\ncount = \"sometimes\"",
        "kind = \"red\"\npreset = \"A\"\nlimit = \"0pkt\"",
        "kind = \"red\"\npreset = \"A\"\nlimit = 30",
        "kind = \"red\"\npreset = \"A\"\nmean_pkt_size = \"big\"",
    ] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn red_names_the_missing_or_bad_parameter() {
    let cases = [
        (
            "kind = \"red\"\nmax_th = 15\nmax_p = 0.1\nw_q = 0.002",
            "min_th",
        ),
        (
            "kind = \"red\"\nmin_th = 5\nmax_p = 0.1\nw_q = 0.002",
            "max_th",
        ),
        (
            "kind = \"red\"\nmin_th = 5\nmax_th = 15\nw_q = 0.002",
            "max_p",
        ),
        (
            "kind = \"red\"\nmin_th = 5\nmax_th = 15\nmax_p = 0.1",
            "w_q",
        ),
        ("kind = \"red\"\npreset = \"A\"\nmax_p = 0", "max_p"),
        ("kind = \"red\"\npreset = \"A\"\nmax_p = 1.5", "max_p"),
        ("kind = \"red\"\npreset = \"A\"\nw_q = 0", "w_q"),
        ("kind = \"red\"\npreset = \"A\"\nmin_th = -1", "min_th"),
        ("kind = \"red\"\npreset = \"A\"\nmax_th = 5", "max_th"),
        (
            "kind = \"red\"\npreset = \"A\"\nmean_pkt_size = \"0B\"",
            "mean_pkt_size",
        ),
    ];
    for (src, key) in cases {
        let e = build(src)
            .err()
            .unwrap_or_else(|| panic!("accepted: {src}"));
        assert_eq!(e.key, key, "{src}: {e}");
    }
}
