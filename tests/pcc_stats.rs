//! PCC's receiver statistics (Damm 2001, spec `seed-004-damm-pcc.md` §6)
//! through the engine, on a path whose only losses are Bernoulli(p) on the
//! forward link: the packet loss rate and loss event rate its receiver
//! measures (Fig. 6.7), its mean r_TCP estimate (Fig. 6.5), and the mean
//! protected time after restarts (Fig. 6.26).

use sim_core::{FlowReport, RunOutput, SeriesPoint};
use topology::Resolved;

/// Bernoulli loss on the forward link.
const P: f64 = 0.01;
/// Data packet size, bytes.
const S: f64 = 1000.0;

/// One PCC flow from `a` to `b` over 100 Mb/s links with 50 ms each way
/// (round trip 100 ms plus 83 us of serialisation), loss `P` on the forward
/// link only (control packets are never lost), buffers that never fill;
/// `pcc` is the flow's `pcc` table.
fn run(duration_s: u32, warmup_s: u32, pcc: &str, seed: u64) -> RunOutput {
    run_with(duration_s, warmup_s, pcc, seed, "")
}

/// [`run`] with more `[run]` keys (`run_keys`, TOML lines).
fn run_with(duration_s: u32, warmup_s: u32, pcc: &str, seed: u64, run_keys: &str) -> RunOutput {
    let src = format!(
        r#"
[run]
duration = "{duration_s}s"
warmup = "{warmup_s}s"
replications = 1
seed = 1
{run_keys}
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
from = "a"
to = "b"
capacity = "100Mbps"
delay = "50ms"
buffer = "1000pkt"
loss = {P}
[[links]]
from = "b"
to = "a"
capacity = "100Mbps"
delay = "50ms"
buffer = "1000pkt"
[[flows]]
name = "pcc"
from = "a"
to = "b"
packet_size = "1000B"
transport = "pcc"
pcc = {{ {pcc} }}
"#
    );
    Resolved::parse(&src, "pcc-stats")
        .expect("scenario")
        .build(seed, 0)
        .expect("build")
        .run()
}

/// Padhye's equation (b = 1, RTO = 4 RTT), bytes/s.
fn padhye(p: f64, r: f64) -> f64 {
    S / (r * (2.0 * p / 3.0).sqrt()
        + 4.0 * r * (3.0 * (3.0 * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p))
}

/// The path's round trip as the receiver samples it: 2 x 50 ms plus the
/// serialisation of a 1000-B data packet and a 40-B control packet at
/// 100 Mb/s.
const RTT: f64 = 0.1 + (1000.0 + 40.0) * 8.0 / 100e6;

/// Fig. 6.7 under Bernoulli loss. A CBR flow (`overhead = 0`) of 45 pkt/s:
/// gaps of 22.2 ms, so k = floor(RTT / gap) = 4 packets follow a loss
/// event's first loss within one RTT (the loss history merges their
/// losses into it). Then (the renewal argument of the TFRC loss history's
/// test, `renewal_rate` in `tfrc/loss_events.rs`):
/// - lost / (received + lost) is a binomial proportion around p;
/// - an event covers its first loss and the k packets after it, and the
///   next event starts at the first loss after those, a geometric wait of
///   mean 1/p: events per packet 1 / (k + 1/p), a renewal count with
///   interval mean k + 1/p and standard deviation sqrt(1 - p) / p;
/// - the losses merged into events, lost - events, are Binomial(k, p) per
///   event: k p = 0.04 per event (0 if every loss made an event).
///
/// Each is checked within 4 standard errors. (With the default dither the
/// number of packets within an RTT after a loss is random, about k - 0.46
/// on average by the renewal function of uniform gaps, hence CBR here.)
/// 45 pkt/s is 2.5x below the TCP-friendly rate (Padhye at the event rate
/// 1/104 and RTT 100 ms: 117 pkt/s), which the mean r_TCP estimate
/// (Fig. 6.5) must be near: within 25 % (the estimates of an Average Loss
/// Interval over 24 intervals scatter by about +-20 %, and r_TCP is convex
/// in the interval), far tighter than a unit error (x 8) would be.
#[test]
fn loss_rate_and_loss_event_rate_under_bernoulli_loss() {
    let k = 4.0;
    let o = run(12_000, 20, r#"rate = "360kbps", overhead = 0.0"#, 7);
    let f: &FlowReport = &o.flows[0];
    let c = &f.counters;
    let n = (c.rx_pkts + c.pcc_lost_pkts) as f64;
    assert!(n > 500_000.0, "{c:?}");

    let loss = f.pcc_loss_rate().unwrap();
    assert_eq!(loss, c.pcc_lost_pkts as f64 / n);
    let se = (P * (1.0 - P) / n).sqrt();
    assert!((loss - P).abs() < 4.0 * se, "loss rate {loss}, se {se}");

    let events = f.pcc_loss_event_rate().unwrap();
    assert_eq!(events, c.pcc_loss_events as f64 / n);
    let m = k + 1.0 / P;
    let sd = (1.0 - P).sqrt() / P;
    let se = (n * sd * sd / m.powi(3)).sqrt() / n;
    let want = 1.0 / m;
    assert!(
        (events - want).abs() < 4.0 * se,
        "loss event rate {events} vs 1/(k + 1/p) = {want}, se {se}"
    );

    let merged = (c.pcc_lost_pkts - c.pcc_loss_events) as f64 / c.pcc_loss_events as f64;
    let se = (k * P * (1.0 - P) / c.pcc_loss_events as f64).sqrt();
    assert!(
        (merged - k * P).abs() < 4.0 * se,
        "losses merged per event {merged} vs k p = {}, se {se}",
        k * P
    );

    let r_tcp = f.pcc_rtcp_mean_bps().unwrap();
    let fair = padhye(want, RTT) * 8.0;
    assert!(
        (r_tcp / fair - 1.0).abs() < 0.25,
        "mean r_TCP {r_tcp} b/s vs Padhye {fair} b/s over {} estimates",
        c.pcc_rtcp_samples
    );
    // Only experiments before the first loss event (none after the
    // warm-up) have r_TCP = ∞ and no sample.
    assert_eq!(c.pcc_rtcp_samples, c.pcc_experiments);
}

/// Fig. 6.26: a flow far below its TCP-friendly rate never restarts, so its
/// mean protected time is 0 ("reported as 0 when no restarts happen"), while
/// its start-up protected time, counted apart, ended. 10 pkt/s against
/// about 112 pkt/s: p_ON < 1 would need an estimated loss event rate near
/// 0.4.
#[test]
fn a_flow_far_below_its_fair_rate_has_no_protected_time_after_a_restart() {
    let o = run(600, 0, r#"rate = "80kbps""#, 3);
    let f = &o.flows[0];
    let c = &f.counters;
    assert_eq!((c.pcc_failed, c.pcc_off_periods), (0, 0), "{c:?}");
    assert_eq!((c.pcc_prot_ps, c.pcc_prot_periods), (0, 0));
    assert_eq!(f.pcc_t_prot_mean_s(), Some(0.0));
    let startup = c.pcc_startup_prot_ps as f64 / 1e12;
    assert!(
        startup > 0.0 && startup <= 30.0,
        "start-up T_PROT {startup}"
    );
    assert!(c.pcc_experiments > 200);
}

/// Fig. 6.26: a flow at 3x its TCP-friendly rate (400 pkt/s; 40 packets per
/// RTT give an event rate of 1/140 and a Padhye rate of about 135 pkt/s)
/// turns off and restarts; its mean protected time after the restarts is
/// positive and at most `T_PROT,MAX` (30 s), and near App. A's expectation:
/// the later of N_LE = 3 loss events (Eq. A.1, (N_LE - 1/2) / (ler r_NA) =
/// 0.9 s) and N_RTT = 5 RTT samples (one per control packet, per srtt:
/// 0.5 s), so within a factor 3 of 0.9 s.
#[test]
fn a_flow_at_three_times_its_fair_rate_restarts_after_short_protected_times() {
    let o = run(1200, 0, r#"rate = "3.2Mbps""#, 5);
    let f = &o.flows[0];
    let c = &f.counters;
    assert!(c.pcc_prot_periods >= 3, "{c:?}");
    let t = f.pcc_t_prot_mean_s().unwrap();
    assert!(t > 0.0 && t <= 30.0, "mean T_PROT {t}");
    let t_ler = protocols::pcc::oracle::expected_t_ler(3, 1.0 / 140.0, 400.0);
    assert!(
        t > t_ler / 3.0 && t < 3.0 * t_ler,
        "mean T_PROT {t} vs {t_ler}"
    );
    assert!(c.pcc_startup_prot_ps > 0);
}

/// The `flow_control` series of a flow at 3x its TCP-friendly rate (as
/// above): the receiver's on/off state sampled every second agrees with the
/// sender's own on-time (`pcc_on_frac`, kept by the sender from the control
/// packets it obeys, half a round trip after the receiver decides); `p_on`
/// stays in [0, 1] and is below 1 whenever the flow is off (only a failed
/// experiment turns it off); `r_eff_bps` never exceeds r_NA; and the
/// sampled r_TCP estimate has its median near Padhye's rate at the event
/// rate 1/140.
#[test]
fn the_receivers_control_state_is_sampled_as_a_time_series() {
    let o = run_with(
        1200,
        0,
        r#"rate = "3.2Mbps""#,
        5,
        "sample_interval = \"1s\"\nseries = [\"flow_control\"]",
    );
    let f = &o.flows[0];
    let of = |m: &str| -> Vec<f64> {
        o.series
            .iter()
            .filter(|p: &&SeriesPoint| p.metric == m)
            .map(|p| p.value)
            .collect()
    };
    let on = of("on");
    assert!(on.len() >= 1200, "{} samples", on.len());
    assert!(on.iter().all(|&x| x == 0.0 || x == 1.0));
    let mean_on = on.iter().sum::<f64>() / on.len() as f64;
    let sender = f.pcc_on_frac().unwrap();
    // The 1-s samples see the receiver's state, which follows the sender's
    // by at most the one-way delay (50 ms); each on/off switch can then
    // misclassify at most one sample interval plus that delay, so the
    // sampled mean is within (switches + 1) x 1.05 s / active time of the
    // sender's exact on-fraction (+1: the run's two ends).
    let switches = 2.0 * f.counters.pcc_off_periods as f64;
    let bound = (switches + 1.0) * 1.05 / f.active_secs;
    assert!(
        (mean_on - sender).abs() <= bound && sender > 0.1 && sender < 0.9,
        "sampled on {mean_on} vs the sender's on-fraction {sender} (bound {bound}, {switches} switches)"
    );
    let p_on = of("p_on");
    assert!(!p_on.is_empty() && p_on.iter().all(|&x| (0.0..=1.0).contains(&x)));
    // Sampled together: a flow that is off got there through an experiment
    // whose p_ON was below 1 (p_ON >= 1 always stays on), and that is the
    // last experiment until it restarts.
    let at = |m: &str| -> std::collections::BTreeMap<u64, f64> {
        o.series
            .iter()
            .filter(|p| p.metric == m)
            .map(|p| (p.time.to_bits(), p.value))
            .collect()
    };
    let (on_at, p_at) = (at("on"), at("p_on"));
    let off = p_at.iter().filter(|(t, _)| on_at[*t] == 0.0).count();
    assert!(
        off > 100,
        "{off} samples off with an experiment behind them"
    );
    for (t, p) in &p_at {
        assert!(
            on_at[t] == 1.0 || *p < 1.0,
            "off at {} with p_on {p}",
            f64::from_bits(*t)
        );
    }
    let r_eff = of("r_eff_bps");
    assert!(r_eff.iter().all(|&x| x > 0.0 && x <= 3.2e6 * (1.0 + 1e-9)));
    let mut r_tcp = of("r_tcp_bps");
    assert!(r_tcp.len() > 100);
    r_tcp.sort_by(f64::total_cmp);
    let median = r_tcp[r_tcp.len() / 2];
    let fair = padhye(1.0 / 140.0, RTT) * 8.0;
    assert!(
        (median / fair - 1.0).abs() < 0.35,
        "median r_TCP {median} vs Padhye {fair}"
    );
}
