//! Queueing theory as a standing test suite (issue 55, item 7): single links
//! fed by Poisson packet sources against the closed forms of Kleinrock,
//! *Queueing Systems, Volume 1: Theory* (Wiley, 1975), and Little's law on
//! every link of a random multi-link network.
//!
//! | case | queue | checked | closed form (Kleinrock vol. 1) |
//! |---|---|---|---|
//! | `mm1_*` | M/M/1, exponential sizes, loads 0.3-0.95 | `Wq`, `Lq` | `Wq = rho / (mu - lambda)`, `Lq = rho^2 / (1 - rho)` (ch. 3, §3.2) |
//! | `md1_*` | M/D/1, one size, loads 0.5 and 0.9 | `Wq` | `Wq = rho / (2 mu (1 - rho))` (ch. 5, P-K with `E[S^2] = E[S]^2`) |
//! | `mm1k_*` | M/M/1/K, drop-tail buffer, loads 0.7, 0.9 and 1.5 | loss fraction | `P_K = (1 - rho) rho^K / (1 - rho^(K+1))` (ch. 3, §3.6; PASTA: the fraction of arrivals lost) |
//! | `mg1_*` | M/G/1, two-point size mix (100 B or 4000 B), load 0.8 | `Wq` | Pollaczek-Khinchine `Wq = lambda E[S^2] / (2 (1 - rho))` (ch. 5) |
//! | `little_*` | two random parking lots: Poisson sources (and one CBR) of mixed size distributions over random hops, finite (dropping) and unlimited buffers | `Lq - lambda Wq` per link | `L = lambda W` (ch. 2, §2.1) |
//!
//! What the engine measures, and how it maps onto the formulas:
//! - `qdelay_mean_secs` is the time from a packet's arrival at the queue to
//!   the start of its transmission (`sim.rs`: enqueue time to `on_tx_done`),
//!   averaged over every packet that left the queue in the window, a packet
//!   that found the link idle counting 0: the waiting time `Wq`, not the
//!   sojourn time.
//! - `backlog_mean_pkts` is the time average of the packets waiting, the one
//!   in transmission excluded: `Lq`.
//! - A buffer of `B` packets holds `B` waiting packets besides the one in
//!   transmission (`BufferLimit::would_overflow` counts the queue only, and
//!   a packet that finds the link idle goes straight to the serializer), so
//!   the M/M/1/K system size is `K = B + 1`.
//! - The loss fraction is the packets dropped at the queue over the packets
//!   that arrived, both in the window.
//! - Service times: the links run at 1 Gb/s, where a byte takes exactly
//!   8000 ps, so `Rate::tx_time`'s rounding up to whole picoseconds never
//!   acts. Sizes are drawn in whole bytes (at least 1): an exponential of
//!   mean m = 1000 B rounded has mean m - 1/(24 m) + P(X < 0.5) ~ m + 5e-4 B
//!   and variance m^2 + 1/12 B^2, relative changes below 1e-6, far inside
//!   every interval. Poisson gaps are rounded to whole picoseconds (gaps of
//!   8 us and more: 1e-7 relative). The load is `rate / capacity` exactly:
//!   the source's packet rate is `rate / (8 E[S])` with the distribution's
//!   nominal mean.
//! - Warm-up: each run starts empty; `[run] warmup` (0.5 s) is thousands of
//!   relaxation times (1 / (mu (1 - sqrt(rho))^2) = 12 ms at rho = 0.95)
//!   before the window opens.
//!
//! Statistics: each case runs independent replications (their own seed
//! each, so the cases are independent too) and forms the two-sided Student-t
//! interval of the replication means with `analysis::Summary` (n - 1
//! degrees of freedom). The suite makes about 30 such checks, so each uses
//! the level 99.9 % (Bonferroni: a family-wise false alarm of at most 3 %
//! if the engine is right, for a standing test that must survive changes
//! of the random streams: at 99 % a third of all reshuffles of the streams
//! would fail some check by chance); each single-link case also requires
//! its half-width to be at most 4 % of the closed form, so a shortened run
//! cannot pass by being vague (the runs are sized for 0.5-3 %). `cargo test --release --test queueing -- --nocapture` prints every
//! closed form, measured mean and half-width.

use analysis::Summary;
use rayon::prelude::*;
use sim_core::{LinkReport, RunOutput};
use topology::Resolved;

/// Confidence level of every interval (see the module doc).
const LEVEL: f64 = 0.999;
/// Capacity of the single links, bits/s.
const CAPACITY: f64 = 1e9;
/// Warm-up of every run, seconds.
const WARMUP: f64 = 0.5;
/// The largest half-width a single-link case may have, as a fraction of
/// its closed form (the runs are sized for about 1-2.5 %).
const PRECISION: f64 = 0.04;

/// A scenario of one link `a -> b` fed by one Poisson packet source.
fn single_link(size: &str, load: f64, buffer: &str, secs: f64, reps: u32, seed: u64) -> String {
    let rate = (load * CAPACITY).round() as u64;
    format!(
        r#"
name = "queueing"
[run]
duration = "{secs}s"
warmup = "{WARMUP}s"
replications = {reps}
seed = {seed}

[[nodes]]
name = "a"
[[nodes]]
name = "b"

[[links]]
from = "a"
to = "b"
capacity = "{CAPACITY}bps"
delay = "0ms"
buffer = "{buffer}"

[[flows]]
name = "poisson"
from = "a"
to = "b"
packet_size = {size}
traffic = {{ kind = "poisson_packets", rate = "{rate}bps" }}
"#
    )
}

/// Run every replication of `src` (in parallel).
fn run(src: &str) -> Vec<RunOutput> {
    let r = Resolved::parse(src, "queueing").unwrap_or_else(|e| panic!("{e}\n{src}"));
    let (seed, reps) = (r.scenario.run.seed, r.scenario.run.replications);
    (0..reps)
        .into_par_iter()
        .map(|k| r.build(seed, k).unwrap().run())
        .collect()
}

/// Link `a->b` of one replication.
fn link(out: &RunOutput) -> &LinkReport {
    out.links.iter().find(|l| l.name == "a->b").unwrap()
}

/// The lines a test prints, together when it ends (also when it fails), so
/// that tests running side by side do not interleave their tables.
#[derive(Default)]
struct Log(Vec<String>);

impl Drop for Log {
    fn drop(&mut self) {
        println!("{}", self.0.join("\n"));
    }
}

/// Assert that `closed` lies in the interval of `values` and that the
/// interval's half-width is at most `precision` x `scale` (`scale`: the
/// closed form, or the measure's size where the closed form is 0).
fn inside(
    log: &mut Log,
    label: &str,
    closed: f64,
    values: &[f64],
    scale: f64,
    precision: f64,
) -> Summary {
    let s = Summary::with_level(values, LEVEL);
    log.0.push(format!(
        "{label:<36} closed form {closed:>12.6e}  measured {:>12.6e} ± {:.3e} \
         ({:.2} % of {scale:.4e}, n = {})",
        s.mean,
        s.half_width,
        100.0 * s.half_width / scale,
        s.n
    ));
    assert!(s.has_ci(), "{label}: no interval from {values:?}");
    assert!(
        s.lo() <= closed && closed <= s.hi(),
        "{label}: the closed form {closed} is outside the {} % interval {s} (n = {})",
        LEVEL * 100.0,
        s.n
    );
    assert!(
        s.half_width <= precision * scale,
        "{label}: half-width {} is more than {} % of {scale}: run longer",
        s.half_width,
        precision * 100.0
    );
    s
}

/// M/M/1 at load `rho`: exponential sizes of mean 1000 B (mean service 8 us).
fn mm1(log: &mut Log, rho: f64, secs: f64, reps: u32, seed: u64) {
    let size = r#"{ dist = "exponential", mean = "1000B" }"#;
    let outs = run(&single_link(size, rho, "unlimited", secs, reps, seed));
    let mu = CAPACITY / 8000.0;
    let lambda = rho * mu;
    let wq: Vec<f64> = outs.iter().map(|o| link(o).qdelay_mean_secs()).collect();
    let lq: Vec<f64> = outs.iter().map(|o| link(o).backlog_mean_pkts()).collect();
    let (w, l) = (rho / (mu - lambda), rho * rho / (1.0 - rho));
    inside(
        log,
        &format!("M/M/1 rho={rho} Wq (s)"),
        w,
        &wq,
        w,
        PRECISION,
    );
    inside(
        log,
        &format!("M/M/1 rho={rho} Lq (pkt)"),
        l,
        &lq,
        l,
        PRECISION,
    );
}

#[test]
fn mm1_waiting_time_and_queue_length_at_light_loads() {
    let mut log = Log::default();
    mm1(&mut log, 0.3, 2.0, 20, 101);
    mm1(&mut log, 0.5, 2.0, 20, 102);
    mm1(&mut log, 0.7, 3.0, 20, 103);
}

#[test]
fn mm1_waiting_time_and_queue_length_at_heavy_loads() {
    let mut log = Log::default();
    mm1(&mut log, 0.9, 8.0, 20, 104);
    mm1(&mut log, 0.95, 15.0, 20, 105);
}

/// M/D/1 at load `rho`: every packet 1000 B (service 8 us).
fn md1(log: &mut Log, rho: f64, secs: f64, reps: u32, seed: u64) {
    let outs = run(&single_link(
        "\"1000B\"",
        rho,
        "unlimited",
        secs,
        reps,
        seed,
    ));
    let mu = CAPACITY / 8000.0;
    let wq: Vec<f64> = outs.iter().map(|o| link(o).qdelay_mean_secs()).collect();
    let w = rho / (2.0 * mu * (1.0 - rho));
    inside(
        log,
        &format!("M/D/1 rho={rho} Wq (s)"),
        w,
        &wq,
        w,
        PRECISION,
    );
}

#[test]
fn md1_waiting_time() {
    let mut log = Log::default();
    md1(&mut log, 0.5, 2.0, 20, 201);
    md1(&mut log, 0.9, 5.0, 20, 202);
}

/// M/M/1/K at load `rho` with a drop-tail buffer of `buffer` packets, which
/// makes a system of `K = buffer + 1` (the packet in transmission).
fn mm1k(log: &mut Log, rho: f64, buffer: u32, secs: f64, reps: u32, seed: u64) {
    let size = r#"{ dist = "exponential", mean = "1000B" }"#;
    let src = single_link(size, rho, &format!("{buffer}pkt"), secs, reps, seed);
    let outs = run(&src);
    let loss: Vec<f64> = outs
        .iter()
        .map(|o| {
            let c = &link(o).counters;
            c.dropped_at_queue().pkts as f64 / c.arrived.pkts as f64
        })
        .collect();
    let k = f64::from(buffer + 1);
    let p = (1.0 - rho) * rho.powf(k) / (1.0 - rho.powf(k + 1.0));
    inside(
        log,
        &format!("M/M/1/K rho={rho} K={k} P_K"),
        p,
        &loss,
        p,
        PRECISION,
    );
}

#[test]
fn mm1k_blocking_probability_counts_the_packet_in_service() {
    let mut log = Log::default();
    mm1k(&mut log, 0.9, 9, 3.0, 20, 301);
    mm1k(&mut log, 0.7, 2, 2.0, 20, 302);
    mm1k(&mut log, 1.5, 4, 2.0, 20, 303);
}

#[test]
fn mg1_pollaczek_khinchine_waiting_time_for_a_two_point_mix() {
    let mut log = Log::default();
    // 100 B with probability 0.8, 4000 B with 0.2: E[S] = 880 B,
    // E[S^2] = 3.208e6 B^2, squared coefficient of variation 3.14 (an
    // M/M/1 would wait about half as long, an M/D/1 a quarter).
    let size = r#"{ dist = "choice", values = ["100B", "4000B"], weights = [0.8, 0.2] }"#;
    let rho = 0.8;
    let outs = run(&single_link(size, rho, "unlimited", 8.0, 20, 401));
    let (es, es2) = (880.0, 0.8 * 100.0 * 100.0 + 0.2 * 4000.0 * 4000.0);
    let lambda = rho * CAPACITY / (8.0 * es);
    let t2 = es2 * (8.0 / CAPACITY) * (8.0 / CAPACITY);
    let w = lambda * t2 / (2.0 * (1.0 - rho));
    let wq: Vec<f64> = outs.iter().map(|o| link(o).qdelay_mean_secs()).collect();
    inside(
        &mut log,
        &format!("M/G/1 rho={rho} Wq (s)"),
        w,
        &wq,
        w,
        PRECISION,
    );
}

/// A random parking lot: `HOPS` router links of random capacity, delay and
/// buffer (packets, bytes or unlimited), and Poisson (one CBR) sources of
/// random size distributions between random hops, their rates scaled so that
/// the busiest unlimited hop runs at a load below 0.95 (a finite one may be
/// overloaded, and drops).
fn random_network(log: &mut Log, seed: u64, secs: f64, reps: u32) -> String {
    use rand::{Rng, SeedableRng};
    const HOPS: usize = 4;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mbps: Vec<f64> = (0..HOPS)
        .map(|_| [100.0, 200.0, 500.0, 1000.0][rng.random_range(0..4)])
        .collect();
    let buffers: Vec<String> = (0..HOPS)
        .map(|_| match rng.random_range(0..3) {
            0 => "unlimited".to_string(),
            1 => format!("{}pkt", rng.random_range(3..40)),
            _ => format!("{}KB", rng.random_range(5..60)),
        })
        .collect();
    let per_hop: Vec<String> = (0..HOPS)
        .map(|h| {
            format!(
                r#"{{ capacity = "{}Mbps", delay = "{}ms", buffer = "{}" }}"#,
                mbps[h],
                rng.random_range(1..5),
                buffers[h]
            )
        })
        .collect();
    let sizes = [
        r#"{ dist = "exponential", mean = "700B" }"#,
        r#"{ dist = "choice", values = ["64B", "1500B"], weights = [0.6, 0.4] }"#,
        r#"{ dist = "uniform", min = "64B", max = "1500B" }"#,
        r#"{ dist = "pareto", mean = "800B", shape = 2.5 }"#,
        r#""1000B""#,
    ];
    // Flow f enters at hop first[f] and leaves after hop last[f] (1-based);
    // weight[f] is its share of the traffic.
    let flows = 7;
    let mut spans = Vec::new();
    for _ in 0..flows {
        let a = rng.random_range(1..=HOPS);
        let b = rng.random_range(a..=HOPS);
        spans.push((a, b, rng.random_range(0.2..1.0)));
    }
    let load = |scale: f64, h: usize| -> f64 {
        spans
            .iter()
            .filter(|(a, b, _)| (*a..=*b).contains(&h))
            .map(|(_, _, w)| w * scale)
            .sum::<f64>()
            / mbps[h - 1]
    };
    // The scale that puts the busiest hop at its ceiling, times a random
    // factor in [0.7, 1].
    let scale = (1..=HOPS)
        .map(|h| {
            let ceiling = if buffers[h - 1] == "unlimited" {
                0.95
            } else {
                1.3
            };
            ceiling / load(1.0, h).max(1e-9)
        })
        .fold(f64::INFINITY, f64::min)
        * rng.random_range(0.7..1.0);
    let mut text = format!(
        r#"
name = "little"
[run]
duration = "{secs}s"
warmup = "{WARMUP}s"
replications = {reps}
seed = {seed}

[topology]
kind = "parking_lot"
hops = {HOPS}
link = {{ capacity = "1Gbps", delay = "1ms", buffer = "unlimited" }}
per_hop = [{}]
access = {{ capacity = "10Gbps", delay = "1ms", buffer = "unlimited" }}
"#,
        per_hop.join(", ")
    );
    for (f, &(a, b, w)) in spans.iter().enumerate() {
        let kind = if f == 0 { "cbr" } else { "poisson_packets" };
        let rate = (w * scale * 1e6).round() as u64;
        let size = sizes[rng.random_range(0..sizes.len())];
        text.push_str(&format!(
            r#"
[[flows]]
name = "f{f}"
from = "cs{a}"
to = "cd{b}"
packet_size = {size}
start_jitter = "10ms"
traffic = {{ kind = "{kind}", rate = "{rate}bps" }}
"#
        ));
    }
    log.0.push(format!(
        "random network {seed}: hop loads {:?}, buffers {buffers:?}",
        (1..=HOPS)
            .map(|h| format!("{:.2}", load(scale, h) + 0.0))
            .collect::<Vec<_>>()
    ));
    text
}

#[test]
fn little_law_holds_on_every_link_of_a_random_network() {
    let mut log = Log::default();
    // Per replication and link: Lq (time-average packets waiting) against
    // lambda Wq, lambda the packets admitted to the queue per second of the
    // window and Wq their mean waiting time. The two differ only by the
    // waiting before the window of the packets queued at its start and the
    // waiting in it of those queued at its end, whose expectations cancel
    // in a stationary queue (both are lambda E[Wq^2] / 2).
    let mut queued = 0;
    for seed in [501, 502] {
        let outs = run(&random_network(&mut log, seed, 3.0, 20));
        let names: Vec<String> = outs[0].links.iter().map(|l| l.name.clone()).collect();
        for (i, name) in names.iter().enumerate() {
            let reports: Vec<&LinkReport> = outs.iter().map(|o| &o.links[i]).collect();
            // Links where no packet ever waited (unused, or fed by the CBR
            // source alone, whose gaps are its packets' own transmission
            // times) satisfy the law as 0 = 0.
            if reports.iter().all(|l| l.stats.area_pkts == 0) {
                continue;
            }
            let lq: Vec<f64> = reports.iter().map(|l| l.backlog_mean_pkts()).collect();
            let gap: Vec<f64> = reports
                .iter()
                .map(|l| {
                    let lambda = l.counters.enqueued.pkts as f64 / l.window_secs;
                    l.backlog_mean_pkts() - lambda * l.qdelay_mean_secs()
                })
                .collect();
            let scale = Summary::new(&lq).mean;
            queued += usize::from(scale > 0.1);
            let (lost, arrived) = reports.iter().fold((0, 0), |(d, a), l| {
                (
                    d + l.counters.dropped_at_queue().pkts,
                    a + l.counters.arrived.pkts,
                )
            });
            log.0.push(format!(
                "  {name}: Lq {scale:.4e} pkt, loss {:.3} %",
                100.0 * lost as f64 / arrived as f64
            ));
            inside(
                &mut log,
                &format!("Little {seed} {name} Lq - lambda Wq"),
                0.0,
                &gap,
                scale,
                0.02,
            );
        }
    }
    // Not vacuous: several links held real queues.
    assert!(
        queued >= 3,
        "only {queued} links with a mean queue over 0.1 packet"
    );
}
