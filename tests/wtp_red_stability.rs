//! WTP over RED: where the marking loop starts to oscillate (finding F4 of
//! scenarios/papers/wtp-multcp/README.md).
//!
//! Seed 001's Figs. 8 and 9 plot RED's marking probability against the
//! utilisation as if it were a static function of the load. netsim's RED-B
//! and RED-C points are not on such a curve; this test pins down why.
//!
//! [DERIVED] The aggregate window `W` of persistent PI-WTP connections on a
//! busy link obeys, per unit time (spec 2.3: `k̄ w̄/cwnd` per ACK,
//! `k̄` per mark, one ACK per packet, `C` packets/s acknowledged)
//!
//! ```text
//! dW/dt = k̄ Σw̄ / T − k̄ C p(avg(q(t − T))),   q = W − C T0
//! ```
//!
//! so a queue-based marker closes a first-order loop with the round-trip
//! delay `T` and RED's averaging lag `τ = 1/(w_q C)` on a per-second gain
//! `g = k̄ C p'` (`p'` = RED's slope per packet). The loop `g e^{−sT}/(s (1 + sτ))`
//! reaches phase −π at `ω T + atan(ω τ) = π/2` and is unstable once
//! `g > ω √(1 + ω²τ²)`: the critical slope is `p'_c = ω √(1 + ω²τ²) / (k̄ C)`,
//! and at onset the cycle's period is `2π/ω`. (Without the averaging lag this
//! is the textbook `g T < π/2`, the condition the paper's Eq. (7) bounds by
//! `1/e` for the non-oscillating case.)
//!
//! For Fig. 8's set-up (10 Mb/s, 1000-B packets, RTT 200 ms, k̄ = 0.5, RED
//! `w_q = 0.02`) `p'_c ≈ 0.011` per packet; RED-B's slope is 0.025 below
//! max_th and 0.15 in its gentle range, RED-C's (Fig. 9) 0.16: both far past
//! the onset, so their utilisation is the duty factor of a limit cycle, not a
//! point on a static curve. A RED that differs only in its slope sits at
//! ρ = 1 at any load: the WTP equilibrium (spec 3.1, `p W = Σw̄`) is then met by
//! a standing queue. The test runs both sides of `p'_c`.

use std::f64::consts::PI;

use protocols::link::red::RedPreset;
use sim_core::{LinkId, Subject};
use topology::Resolved;

const K_BAR: f64 = 0.5;
/// Fig. 8's bottleneck: 10 Mb/s, 100 ms each way, 1000-B packets.
const CAPACITY_BPS: f64 = 10e6;
const ONE_WAY_SECS: f64 = 0.1;
const PKT_BITS: f64 = 8000.0;
/// Bottleneck capacity in packets per second.
const C_PKTS: f64 = CAPACITY_BPS / PKT_BITS;
/// Round-trip propagation plus one serialisation, seconds.
const T0: f64 = 2.0 * ONE_WAY_SECS + PKT_BITS / CAPACITY_BPS;
/// Start of the measurement window, seconds.
const WARMUP_SECS: f64 = 40.0;
/// The queue series' sampling interval, seconds.
const SAMPLE_SECS: f64 = 0.01;

/// 5 + 5 PI-WTP connections (w̄ = 1 and 6) on Fig. 8's link with a RED that
/// differs from RED-B only in its slope: RED-B's `min_th` and `w_q`, slope
/// `slope` per packet above min_th (max_p = 1, so no gentle range in reach).
/// Returns the utilisation, the mean queue (packets) and the queue series
/// sampled every 10 ms over the measurement window.
fn run(slope: f64) -> (f64, f64, Vec<f64>) {
    let (min_th, _, _, w_q) = RedPreset::B.values();
    let max_th = min_th + 1.0 / slope;
    let (capacity_mbps, delay_ms) = (CAPACITY_BPS / 1e6, ONE_WAY_SECS * 1e3);
    let pkt_bytes = PKT_BITS / 8.0;
    let (warmup, sample_ms) = (WARMUP_SECS, SAMPLE_SECS * 1e3);
    // One class of five connections with WTP `weight`, hosts `first` onwards.
    let class = |name: &str, first: u32, weight: f64| {
        format!(
            r#"
[[flows]]
name = "{name}"
count = 5
from = "s{{i+{first}}}"
to = "d{{i+{first}}}"
packet_size = "{pkt_bytes}B"
start_jitter = "5s"
cc = {{ kind = "wtp", variant = "pi", weight = {weight:?}, k = {K_BAR:?} }}
tcp = {{ ecn = true }}
"#
        )
    };
    let text = format!(
        r#"
name = "wtp-red-stability"
[run]
duration = "140s"
warmup = "{warmup}s"
replications = 1
seed = 1080
sample_interval = "{sample_ms}ms"
series = ["link_queue"]
[topology]
kind = "dumbbell"
pairs = 10
access = {{ capacity = "1Gbps", delay = "0ms", buffer = "unlimited" }}
[topology.bottleneck]
capacity = "{capacity_mbps}Mbps"
delay = "{delay_ms}ms"
buffer = "unlimited"
algo = {{ kind = "red", min_th = {min_th:?}, max_th = {max_th:?}, max_p = 1.0, w_q = {w_q:?} }}
reverse = {{ algo = {{ kind = "drop_tail" }} }}
{low}{high}"#,
        low = class("low", 0, 1.0),
        high = class("high", 5, 6.0),
    );
    let r = Resolved::parse(&text, "t").unwrap();
    let out = r.build(r.scenario.run.seed, 0).unwrap().run();
    let link = out.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert_eq!(link.counters.dropped_total().pkts, 0, "loss-free by design");
    let id: LinkId = link.link;
    let queue: Vec<f64> = out
        .series
        .iter()
        .filter(|s| {
            s.subject == Subject::Link(id) && s.metric == "queue_pkts" && s.time >= WARMUP_SECS
        })
        .map(|s| s.value)
        .collect();
    (link.utilisation(), link.backlog_mean_pkts(), queue)
}

/// Autocorrelation of `xs` at lag `lag` samples.
fn autocorrelation(xs: &[f64], lag: usize) -> f64 {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
    let cov = (0..n - lag)
        .map(|i| (xs[i] - mean) * (xs[i + lag] - mean))
        .sum::<f64>()
        / (n - lag) as f64;
    cov / var
}

/// The strongest autocorrelation at lags from 0.4 s to 3 s (the slow cycle;
/// lags up to one RTT only see the windows' packet pattern) and its lag, s.
fn slow_cycle(queue: &[f64]) -> (f64, f64) {
    let samples = |secs: f64| (secs / SAMPLE_SECS).round() as usize;
    (samples(0.4)..samples(3.0))
        .map(|lag| (autocorrelation(queue, lag), lag as f64 * SAMPLE_SECS))
        .fold((f64::MIN, 0.0), |a, b| if b.0 > a.0 { b } else { a })
}

/// The onset frequency `ω` (rad/s) with round trip `t` and averaging lag
/// `tau`: the root of `ω t + atan(ω tau) = π/2`, by bisection.
fn onset_omega(t: f64, tau: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, PI / (2.0 * t));
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mid * t + (mid * tau).atan() < PI / 2.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[test]
fn red_marking_loop_cycles_past_the_critical_slope_and_holds_full_utilisation_below_it() {
    let (min_th, max_th, max_p, w_q) = RedPreset::B.values();
    let tau = 1.0 / (w_q * C_PKTS);
    // The round trip includes the standing queue, a few packets at these
    // slopes; take it from the runs below, starting from the propagation RTT.
    let critical = |rtt: f64| {
        let w = onset_omega(rtt, tau);
        (w * (1.0 + (w * tau).powi(2)).sqrt() / (K_BAR * C_PKTS), w)
    };
    let (guess, _) = critical(T0);
    // RED-B's slopes (spec 2.7: max_p over min_th..max_th, then 1 - max_p
    // over max_th..2 max_th, gentle) are past the onset: the premise of F4.
    let (slope, gentle) = (max_p / (max_th - min_th), (1.0 - max_p) / max_th);
    assert!(
        slope > 2.0 * guess && gentle > 10.0 * guess,
        "p'_c = {guess}"
    );

    // Half the critical slope: a standing queue, full utilisation, no cycle.
    let (rho, q, queue) = run(0.5 * guess);
    let (stable, _) = critical(T0 + q / C_PKTS);
    assert!(0.5 * guess < 0.6 * stable);
    let (ac, lag) = slow_cycle(&queue);
    assert!(rho >= 0.999, "below onset: utilisation {rho}");
    assert!(ac < 0.6, "below onset: autocorrelation {ac} at {lag} s");

    // Twice the critical slope: a self-sustained cycle at the onset period.
    let (rho2, q2, queue2) = run(2.0 * guess);
    let (crit2, omega) = critical(T0 + q2 / C_PKTS);
    assert!(2.0 * guess > 1.6 * crit2);
    let (ac2, lag2) = slow_cycle(&queue2);
    let period = 2.0 * PI / omega;
    assert!(ac2 > 0.85, "past onset: autocorrelation {ac2} at {lag2} s");
    assert!(
        (lag2 - period).abs() <= 0.15 * period,
        "cycle period {lag2} s, onset period {period:.3} s"
    );
    // The cycle does not yet empty the queue for long: the utilisation stays
    // within 2 % of full (measured 0.991; RED-B, further out, loses 16 %).
    assert!(rho2 >= 0.98, "past onset: utilisation {rho2}");
}
