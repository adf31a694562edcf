//! Property tests of seed 002's controller invariants at packet level
//! (issue 6): EMKC's equilibrium and its sharp stability condition on beta,
//! and JetMax's max-min convergence with zero overshoot under proposed rates.
//! Rate senders pace exactly (`pacing_jitter = 0.0`), as seed 002's scenario
//! files do, not with netsim's 0.01 default.
//!
//! Oracles (spec `seed-002-zhang.md` §3):
//! - EMKC, one link, N flows, any delays: x* = C/N + alpha/beta per flow and
//!   X* = C + N alpha/beta in aggregate for 0 < beta < 2 (Theorem 9). The
//!   other half, no convergence for beta >= 2, is checked on the model
//!   (`analysis::models::emkc`, random heterogeneous delays): at packet
//!   level a router interval that averages two rates damps the loop (one
//!   flow, 20 Mb/s, RTT 37 ms: settled at beta = 2.1, diverged at 2.6;
//!   RTT 82 ms: +-24 % at 2.1, measured).
//! - JetMax on one link with heterogeneous delays: the max-min allocation
//!   (Theorem 16, `analysis::maxmin`, the water-filling oracle) for
//!   0 < tau < 2 (tested: [0.05, 1) plain, [1, 1.7) with the routers'
//!   `count_self`, [1.7, 1.95) with it for one flow, and for several with
//!   the sources' floor at one packet per interval and a loss-free buffer:
//!   with the default 10-kb/s floor several flows can lock into a floor
//!   cycle there, see the tests), and with proposed
//!   rates (tau in [0.05, 0.9]) the input of the link never exceeds
//!   gamma C (§6.4) by more than one packet per flow per 100-ms sample, the
//!   packet phase of a sample window.
//! - JetMax on random 2-3-hop parking lots (Theorem 16 under the consistent
//!   assignment the largest-loss selection and the fair-share tie-break
//!   produce): the max-min allocation of the water-filling oracle, with and
//!   without proposed rates.
//!
//! Tolerances are justified beside each check; every case runs a complete
//! packet-level simulation (a few hundred thousand packets).

use analysis::dynamics::{link_series_stats, send_rate_of};
use analysis::maxmin::{max_min, Demand};
use proptest::prelude::*;
use protocols::cc::jetmax::JetMaxCcConfig;
use sim_core::RunOutput;
use topology::Resolved;

#[path = "common/jetmax.rs"]
mod jetmax;
use jetmax::{
    dumbbell_by_rtt, jetmax_scenario, JetMaxOpts, JETMAX_INTERVAL_MS, JETMAX_PACKET_BYTES,
    JETMAX_SAMPLE_MS,
};

/// EMKC on a dumbbell: `rtts_ms` one per flow (access delay = rtt/2 - 5 ms).
/// The senders' rate is capped at 10 C (a line rate), which keeps an
/// unstable case's packet count bounded.
fn emkc_scenario(mbps: u32, rtts_ms: &[u32], alpha_bps: f64, beta: f64) -> String {
    let n = rtts_ms.len();
    let topology = dumbbell_by_rtt(
        mbps,
        rtts_ms,
        100,
        r#"{ kind = "emkc", interval = "100ms" }"#,
    );
    format!(
        r#"
name = "emkc-random"
[run]
duration = "60s"
warmup = "40s"
replications = 1
seed = 7
sample_interval = "100ms"
series = ["flow_rate"]
{topology}[[flows]]
name = "u"
count = {n}
from = "s{{i}}"
to = "d{{i}}"
packet_size = "1000B"
cc = {{ kind = "emkc", alpha = "{alpha}bps", beta = {beta}, max_rate = "{max}Mbps" }}
tcp = {{ reliable = false, pacing_jitter = 0.0 }}
traffic = {{ kind = "bulk" }}
"#,
        alpha = alpha_bps.round() as u64,
        max = 10 * mbps,
    )
}

fn run(src: &str) -> RunOutput {
    Resolved::parse(src, "prop")
        .unwrap()
        .build(1, 0)
        .unwrap()
        .run()
}

/// Mean sending rate of each flow over the window.
fn flow_rates(out: &RunOutput) -> Vec<f64> {
    out.flows
        .iter()
        .map(|f| send_rate_of(out, &[f]).mean.unwrap_or(0.0))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Theorem 9 at packet level. Ranges: 1-5 flows, 20-100 Mb/s (C/N >= 4
    /// Mb/s, >= 50 packets per 100-ms interval, so the proper reference's
    /// one-packet quantisation is <= 2 %), RTTs 20-300 ms, alpha 20-50 % of
    /// C/N, beta in [0.3, 1.95]. Efficiency comes within 1 % in 44 RTT
    /// steps (|1 - beta| <= 0.95: 0.95^44 < 0.11, and a further 1/10 from
    /// the start's distance; < 14 s at 300 ms), fairness by eq. 108 in
    /// (C/(N alpha) + 1/beta) ln(N/eps) steps, <= 54 here for eps = 1 %,
    /// i.e. < 17 s at 300 ms; the window starts at 40 s. (With alpha = 1 %
    /// of C/N fairness takes ~400 steps, which is why the range stops at
    /// 20 %.) Until issue 6's session 17 the router stamped its price as a
    /// packet left the queue, so the proper reference (bytes between the
    /// first packets of two intervals) spanned an interval shifted by the
    /// queueing delay, and one flow (20 Mb/s, RTT 82 ms, alpha 20 % of C)
    /// oscillated between 7 and 50 Mb/s at beta 1.6-1.66; the range then
    /// stopped at 1.5. The router now stamps on arrival, as §4.2 says
    /// ("for each packet arriving within the current interval"), and that
    /// case settles at x* for beta 1.66, 1.8 and 1.95
    /// (`emkc_single_flow_near_beta_two_settles`); 132 cases with beta in [0.3, 1.95] (PROPTEST_RNG_SEED
    /// 1-11) pass.
    /// Tolerance: 3 % per flow, 1.5 % in aggregate (the per-interval packet
    /// count's quantisation averages out over the 150 samples of the window;
    /// the flows' interleaving makes the per-flow split noisier).
    #[test]
    fn emkc_converges_to_its_equilibrium_for_beta_below_two(
        mbps in 20u32..=100,
        rtts in prop::collection::vec(20u32..=300, 1..=5),
        alpha_frac in 0.2f64..0.5,
        beta in 0.3f64..1.95,
    ) {
        let n = rtts.len() as f64;
        let c = f64::from(mbps) * 1e6;
        prop_assume!(c / n >= 4e6);
        let alpha = alpha_frac * c / n;
        let out = run(&emkc_scenario(mbps, &rtts, alpha, beta));
        let x_star = c / n + alpha / beta;
        let rates = flow_rates(&out);
        for (i, x) in rates.iter().enumerate() {
            prop_assert!((x / x_star - 1.0).abs() < 0.03,
                "flow {i}: {x} vs x* = {x_star} ({rates:?})");
        }
        let total: f64 = rates.iter().sum();
        let big_x = c + n * alpha / beta;
        prop_assert!((total / big_x - 1.0).abs() < 0.015, "X = {total} vs X* = {big_x}");
    }
}

/// The case that CI's random seed drew in issue 6 session 16 (one flow, 20
/// Mb/s, RTT 82 ms, alpha 4 Mb/s), which oscillated between 7 and 50 Mb/s
/// at beta 1.66 while the router stamped departing packets, at beta 1.66
/// and 1.95: Theorem 9's x* = C + alpha/beta within the proptest's 1.5 %.
#[test]
fn emkc_single_flow_near_beta_two_settles() {
    for beta in [1.66, 1.95] {
        let out = run(&emkc_scenario(20, &[82], 4e6, beta));
        let x = flow_rates(&out)[0];
        let x_star = 20e6 + 4e6 / beta;
        assert!(
            (x / x_star - 1.0).abs() < 0.015,
            "beta {beta}: {x} vs x* = {x_star}"
        );
        // Settled, not oscillating about x*: the 100-ms samples of the
        // window span less than 5 % of their mean (one 1000-B packet is
        // 0.4 % of an interval's count; the unstable case spanned > 100 %).
        let flow = &out.flows[0];
        let s = send_rate_of(&out, &[flow]);
        let spread = s.spread.unwrap();
        assert!(spread < 0.05, "beta {beta}: spread {spread}");
    }
}

/// The rate at which a source sends one packet per router interval,
/// `s / Delta` (80 kb/s): a floor at or above it keeps a flow on the floor
/// in the router's count (see
/// [`known_deviation_jetmax_floor_cycle_is_cured_by_the_floor_or_by_pacing`]).
fn one_packet_per_interval_bps() -> u64 {
    JETMAX_PACKET_BYTES * 8 * 1000 / JETMAX_INTERVAL_MS
}

/// A bottleneck buffer no JetMax case here fills: the input of `N` flows
/// stepping to `tau g` is below `2 C` at `tau < 2`, and a few intervals at
/// that rate queue a few thousand packets at 100 Mb/s.
const LOSS_FREE_BUFFER_PKTS: u32 = 100_000;

/// Every flow's window-mean sending rate is within 3 % of the max-min share
/// gamma C / N of the one link (Lemma 19; `analysis::maxmin` as the oracle).
fn check_max_min(out: &RunOutput, mbps: u32) -> Result<(), TestCaseError> {
    let demands: Vec<Demand> = out.flows.iter().map(|_| Demand::greedy(vec![0])).collect();
    let want = max_min(&[f64::from(mbps) * 1e6], &demands);
    within_3_percent(&flow_rates(out), &want).map_err(TestCaseError::fail)
}

/// Every rate within 3 % of its max-min share (the tolerance the JetMax
/// tests justify at their ranges), else which flow is off.
fn within_3_percent(got: &[f64], want: &[f64]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} flows vs {} shares", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g / w - 1.0).abs() >= 0.03 {
            return Err(format!(
                "flow {i}: {g} vs max-min {w} ({got:?} vs {want:?})"
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Theorem 16 on one link with heterogeneous delays, without proposed
    /// rates (the base controller, eq. 134). Ranges: 1-8 flows, 10-100 Mb/s
    /// (C/N >= 2 Mb/s: >= 25 packets per 100-ms interval, so the flow-count
    /// estimate's one-packet quantisation is <= 4 % per interval and
    /// averages out over the window), RTTs 20-400 ms, tau in [0.05, 1)
    /// (the window starts when the model is within 1 %: 90 steps, 54 s at
    /// tau 0.05; 30 s from tau 0.2 on, [`jetmax::jetmax_warmup_s`]; smaller gains
    /// converge as surely but take proportionally longer to simulate).
    /// Tolerance 3 % per flow.
    ///
    /// tau in (1, 2) is the next test's: with the paper's flow count the
    /// start-up overshoot of tau > 1 can drive the law to the rate floor,
    /// and the first interval after each restart, partly covered by the
    /// flow, counts N < 1 and throws it far past the link (one flow, 11
    /// Mb/s, RTT 80 ms, tau 1.69: floor -> 55 -> 87 Mb/s -> floor for the
    /// whole run); `link::jetmax` has the measurements.
    #[test]
    fn jetmax_converges_to_max_min(
        mbps in 10u32..=100,
        rtts in prop::collection::vec(20u32..=400, 1..=8),
        tau in 0.05f64..1.0,
    ) {
        prop_assume!(f64::from(mbps) / rtts.len() as f64 >= 2.0);
        let out = run(&jetmax_scenario(mbps, &rtts, tau, JetMaxOpts::default()));
        check_max_min(&out, mbps)?;
    }

    /// tau in [1, 1.7] (|1 - tau| <= 0.7, the window as above) with the
    /// routers' `count_self` (a responsive packet's flow counts as at least
    /// one, `N >= 1`): the overshooting gains converge to max-min too.
    /// Session 16 narrowed the range to 1.5 after CI's random seed drew two
    /// flows on 24 Mb/s with RTTs 153 / 20 ms (4.83 / 14.26 Mb/s at tau
    /// 1.69, 12.52 / 3.84 at 1.6); since session 17 the router stamps
    /// arriving packets (§6.2) and that case gives 12 / 12 at tau 1.5, 1.6,
    /// 1.69 and 1.8, and 120 cases over PROPTEST_RNG_SEED 1-10 pass. Closer
    /// to 2 it still fails: 49 Mb/s, RTTs 205 / 146 ms, tau 1.84 misses
    /// max-min by more than 3 % (zhang README, suspected issue 16).
    #[test]
    fn jetmax_with_count_self_converges_for_tau_above_one(
        mbps in 10u32..=100,
        rtts in prop::collection::vec(20u32..=400, 1..=8),
        tau in 1.0f64..1.7,
    ) {
        prop_assume!(f64::from(mbps) / rtts.len() as f64 >= 2.0);
        let out = run(&jetmax_scenario(
            mbps,
            &rtts,
            tau,
            JetMaxOpts { count_self: true, ..JetMaxOpts::default() },
        ));
        check_max_min(&out, mbps)?;
    }

    /// tau in [1.7, 1.95) with `count_self`, one flow: the range where the
    /// floor cycle of several flows can sustain itself (issue 6 session 19;
    /// zhang README, suspected issue 16). A flow at the 10-kb/s floor sends
    /// one packet per 0.8 s, and its last dense packet's gap covered
    /// microseconds, so for ~0.8 s it is counted nowhere (eq. 148's gaps
    /// look forward). If k of N flows sit on the floor, the packets that
    /// leave it are stamped with the others' share g^ = gamma C / (N - k)
    /// for g = gamma C / N and step to tau g^; the next step at the true g,
    /// (1 - tau) tau g^ + tau g, is below 0, the floor again, iff tau - 1 >
    /// g / g^ = (N - k) / N, i.e. tau > 2 - k / N. Measured: 2 flows on 42
    /// Mb/s (RTTs 80 / 273 ms, tau 1.739, k = 1) and 7 on 29 Mb/s (the two
    /// of RTT 73 / 67 ms, tau 1.732, k = 2: 2 - 2/7 = 1.714) cycle floor ->
    /// share -> floor for the whole run. Whether a transient first puts a
    /// flow on the floor is chance: 4 of 20 random cases with tau in
    /// (2 - 1/N, 1.99) failed, and the [1, 1.7) cases above pass. Alone, `count_self`
    /// stamps g^ = g (N >= 1) and the second step is tau g (2 - tau) > 0: no
    /// cycle, convergence for every tau < 2. Several flows converge there
    /// too with a floor of one packet per interval (the next test). The
    /// window as above (54 s of warm-up at tau 1.95; 2 - tau > 0.05 keeps
    /// the runs short).
    #[test]
    fn jetmax_alone_with_count_self_converges_near_tau_two(
        mbps in 10u32..=100,
        rtt in 20u32..=400,
        tau in 1.7f64..1.95,
    ) {
        let out = run(&jetmax_scenario(
            mbps,
            &[rtt],
            tau,
            JetMaxOpts { count_self: true, ..JetMaxOpts::default() },
        ));
        check_max_min(&out, mbps)?;
    }

    /// tau in [1.7, 1.95) with `count_self`, several flows (2-8), the sources'
    /// floor at one packet per interval (`s / Delta`, 80 kb/s) and a buffer
    /// that never overflows (issue 6 session 39). The floor cycle above needs a
    /// flow on the floor that the router does not count: at `s / Delta` its
    /// gaps tile every interval, so at most the one interval in which it drops
    /// to the floor counts it short, and `k` stays 0 in `tau > 2 - k / N`.
    /// Measured with random cases as drawn here, loss-free buffer: 25 of 120
    /// missed max-min with the default 10-kb/s floor, 0 of 120 with this one.
    /// Theorem 16 is loss-free; with the other tests' 1000-packet buffer (below
    /// the bandwidth-delay product of the larger cases) tau > 1's start-up
    /// overshoot can fill it, and in 2 of 210 cases the losses threw two flows
    /// of near-equal RTT into an irregular swing between the floor and, summed,
    /// over 2 C (66 Mb/s, RTTs 125 / 98 ms, tau 1.822: 23.9 / 26.0 Mb/s; 33.0 /
    /// 33.0 with the loss-free buffer; session 40: a hole in the router's
    /// count after a rate fall, see
    /// [`known_deviation_jetmax_loss_driven_swing_ends_with_announced_pacing`]).
    #[test]
    fn jetmax_with_count_self_and_a_floor_of_one_packet_per_interval_converges_near_tau_two(
        mbps in 10u32..=100,
        rtts in prop::collection::vec(20u32..=400, 2..=8),
        tau in 1.7f64..1.95,
    ) {
        prop_assume!(f64::from(mbps) / rtts.len() as f64 >= 2.0);
        let out = run(&jetmax_scenario(
            mbps,
            &rtts,
            tau,
            JetMaxOpts {
                count_self: true,
                min_rate_bps: Some(one_packet_per_interval_bps()),
                buffer_pkts: Some(LOSS_FREE_BUFFER_PKTS),
                ..JetMaxOpts::default()
            },
        ));
        check_max_min(&out, mbps)?;
        let drops: u64 = out.links.iter().map(|l| l.total_dropped.pkts).sum();
        prop_assert_eq!(drops, 0, "the buffer overflowed");
    }

    /// With proposed rates (§6.4), for the monotone gains tau in [0.05, 0.9]:
    /// max-min as above, and the paper's "never above gamma C": in every
    /// 100-ms sample of the whole run, start-up included, the bottleneck's
    /// arrivals stay within gamma C plus one packet per flow. (The router
    /// approves an interval's proposals iff `y+ < gamma C`, and a source
    /// adopts its proposal only on a verdict about an interval its proposal
    /// covered, so the actual rates sum below gamma C; what a sample adds
    /// is the packet phase: a paced flow puts `floor` or `ceil` of its
    /// mean packet count in a window, one packet (80 kb/s) at most above.)
    /// tau > 1 is excluded: its proposals overshoot the fair share, and
    /// once their sum exceeds gamma C every proposal is declined for good; a
    /// deadlock measured at tau = 1.26, two flows frozen at 4.82 + 3.57 Mb/s
    /// on 10 Mb/s.
    #[test]
    fn jetmax_with_proposals_converges_to_max_min_and_never_exceeds_gamma_c(
        mbps in 10u32..=100,
        rtts in prop::collection::vec(20u32..=400, 1..=8),
        tau in 0.05f64..0.9,
    ) {
        prop_assume!(f64::from(mbps) / rtts.len() as f64 >= 2.0);
        let out = run(&jetmax_scenario(
            mbps,
            &rtts,
            tau,
            JetMaxOpts { proposals: true, ..JetMaxOpts::default() },
        ));
        check_max_min(&out, mbps)?;
        let link = out.links.iter().find(|l| l.name == "r1->r2").expect("bottleneck");
        let peak = link_series_stats(&out)[link.link.index()].arrival.expect("link series");
        // One of the scenario's packets per rate sample.
        let one_packet_per_sample =
            (JETMAX_PACKET_BYTES * 8) as f64 / (JETMAX_SAMPLE_MS as f64 / 1e3);
        let bound = f64::from(mbps) * 1e6 + rtts.len() as f64 * one_packet_per_sample;
        prop_assert!(peak <= bound, "peak arrival {peak} > {bound}");
    }
}

/// A JetMax parking lot: `caps` Mb/s per hop (delays `delays_ms`), `long`
/// flows over every hop, `cross[h]` one-hop flows on hop `h` starting at
/// `starts[h]` s; access delay `access_ms`. Returns the scenario and the
/// oracle's max-min rates in flow order (long flows first, then hop by hop).
fn parking_lot(
    caps: &[u32],
    delays_ms: &[u32],
    access_ms: u32,
    long: u32,
    cross: &[u32],
    starts: &[u32],
    proposals: bool,
) -> (String, Vec<f64>) {
    let hops = caps.len();
    let per_hop: Vec<String> = caps
        .iter()
        .zip(delays_ms)
        .map(|(c, d)| format!("{{ capacity = \"{c}Mbps\", delay = \"{d}ms\" }}"))
        .collect();
    let mut s = format!(
        r#"
name = "jetmax-parking-lot"
[run]
duration = "80s"
warmup = "60s"
replications = 1
seed = 13
sample_interval = "100ms"
series = ["flow_rate"]
[topology]
kind = "parking_lot"
hops = {hops}
link = {{ capacity = "10Mbps", delay = "5ms", buffer = "1000pkt", algo = {{ kind = "jetmax" }}, reverse = {{ algo = {{ kind = "drop_tail" }} }} }}
per_hop = [{per_hop}]
access = {{ capacity = "10Gbps", delay = "{access_ms}ms", buffer = "100000pkt" }}
[[flows]]
name = "long"
count = {long}
from = "src"
to = "dst"
packet_size = "1000B"
cc = {{ kind = "jetmax", proposals = {proposals} }}
tcp = {{ reliable = false, pacing_jitter = 0.0 }}
traffic = {{ kind = "bulk" }}
"#,
        per_hop = per_hop.join(", "),
    );
    let mut demands: Vec<Demand> = (0..long)
        .map(|_| Demand::greedy((0..hops).collect()))
        .collect();
    for (h, (&n, &t)) in cross.iter().zip(starts).enumerate() {
        if n == 0 {
            continue;
        }
        let k = h + 1;
        s += &format!(
            r#"
[[flows]]
name = "c{k}"
count = {n}
from = "cs{k}"
to = "cd{k}"
start = "{t}s"
packet_size = "1000B"
cc = {{ kind = "jetmax", proposals = {proposals} }}
tcp = {{ reliable = false, pacing_jitter = 0.0 }}
traffic = {{ kind = "bulk" }}
"#
        );
        demands.extend((0..n).map(|_| Demand::greedy(vec![h])));
    }
    let caps_bps: Vec<f64> = caps.iter().map(|&c| f64::from(c) * 1e6).collect();
    (s, max_min(&caps_bps, &demands))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Theorem 16 on multi-link paths: every flow's window-mean rate within
    /// 3 % of its max-min share (the single-link tolerance: the same
    /// one-packet quantisation of the flow-count estimate per interval, so
    /// shares are kept >= 2 Mb/s). Ranges: 2-3 hops of 10-50 Mb/s, one-way
    /// hop delays 1-40 ms and access delays 1-50 ms (RTTs ~10-300 ms), 1-2
    /// long flows, 0-3 cross flows per hop joining at 0-10 s, proposals on
    /// or off, tau 0.6; the window [60, 80] s leaves the later joins and
    /// the bottleneck switches they cause > 45 s to settle.
    ///
    /// Found with this test, each fixed and kept as a regression seed
    /// (issue 6 note; `link::jetmax` and `cc::jetmax` docs): the routers'
    /// "p = 0" tolerance; a flow at the rate floor never stamped again;
    /// one flow over two equal hops flipping between them on packet noise
    /// (stuck at 10.5 of 20 and 11.3 of 30 Mb/s); a suggestion without a
    /// share (+inf) that the source waited on forever; start-up loads told
    /// apart by one packet (-124 vs -92); a stale approval adopted above a
    /// just-lowered rate; a pre-stationary suggestion's share raising the
    /// rate (a long flow following a 30-Mb/s hop's 22-Mb/s share into two
    /// 10-Mb/s hops, a 1000-packet queue and a limit cycle); a full
    /// upstream hop taking the long flows from their underfilled bottleneck
    /// (its joining flow starved by their declined proposals in `u+`); a
    /// flow switching between two overloaded hops on every fresh ACK and
    /// ignoring each (frozen at twice its share); an overload inside the
    /// zero band at a hop without responsive flows, held in place by the
    /// next hop's loss-thinned `N` (one flow at 10.42 Mb/s over 10, 10, 20
    /// Mb/s hops); restarts from the rate floor whose first interval
    /// counted `N = 0.2` (two long flows cycling floor -> 30 Mb/s on the
    /// same hops). 550 random cases passed after the last of these; the
    /// cases above also run as a fixed regression test below.
    #[test]
    fn jetmax_reaches_max_min_on_a_parking_lot(
        caps in prop::collection::vec(prop::sample::select(vec![10u32, 20, 30, 50]), 2..=3),
        delays in prop::collection::vec(1u32..=40, 3),
        access in 1u32..=50,
        long in 1u32..=2,
        cross in prop::collection::vec(0u32..=3, 3),
        starts in prop::collection::vec(0u32..=10, 3),
        proposals in any::<bool>(),
    ) {
        let hops = caps.len();
        let (src, want) = parking_lot(
            &caps, &delays[..hops], access, long, &cross[..hops], &starts[..hops], proposals,
        );
        prop_assume!(want.iter().all(|&w| w >= 2e6));
        within_3_percent(&flow_rates(&run(&src)), &want).map_err(TestCaseError::fail)?;
    }
}

/// The parking lots on which the random test above found JetMax defects,
/// each fixed since (see its doc and `link::jetmax` / `cc::jetmax`): every
/// flow within 3 % of its max-min share over [60, 80] s.
#[test]
fn jetmax_parking_lot_regressions_reach_max_min() {
    // (caps, hop delays, access, long, cross, starts, proposals)
    type Case = (
        &'static [u32],
        &'static [u32],
        u32,
        u32,
        &'static [u32],
        &'static [u32],
        bool,
    );
    #[rustfmt::skip]
    let cases: [Case; 12] = [
        // Rate-floor flow never stamped again.
        (&[10, 50, 10], &[33, 22, 5], 19, 1, &[1, 2, 1], &[4, 2, 3], false),
        // One flow over two equal hops, flipping on packet noise.
        (&[20, 20], &[8, 7], 12, 1, &[0, 0], &[0, 0], true),
        (&[30, 30], &[20, 40], 18, 1, &[0, 0], &[0, 0], true),
        // A suggestion without a share waited on forever.
        (&[10, 30], &[2, 26], 50, 2, &[0, 1], &[0, 1], true),
        // Start-up loads told apart by one packet.
        (&[50, 20, 30], &[11, 14, 9], 3, 2, &[1, 0, 0], &[1, 0, 0], true),
        // Stale approval above a just-lowered rate.
        (&[10, 10, 20], &[33, 24, 2], 43, 2, &[0, 1, 1], &[0, 9, 8], true),
        // A pre-stationary suggestion's share raising the rate.
        (&[10, 10, 30], &[32, 24, 2], 31, 2, &[0, 1, 1], &[0, 9, 0], false),
        (&[10, 10, 30], &[16, 24, 1], 43, 2, &[0, 1, 1], &[0, 9, 0], false),
        // A full upstream hop taking the long flows from their underfilled
        // bottleneck, their declined proposals starving its joining flow.
        (&[50, 30, 10], &[36, 2, 35], 4, 2, &[2, 3, 1], &[9, 0, 10], true),
        // Switching on every fresh ACK between two overloaded hops, each
        // ACK ignored by the switch rule: the rate frozen at 2x its share.
        (&[50, 50], &[8, 29], 36, 1, &[1, 2], &[6, 8], true),
        // An overload inside the zero band at a hop without responsive
        // flows, held in place by the next hop's loss-thinned N.
        (&[10, 10, 20], &[35, 29, 12], 33, 1, &[0, 0, 0], &[0, 0, 0], false),
        // Restarts from the rate floor: a sparse packet's gap counted in
        // one interval only, N < 1 in the next, a share of 4.7 C.
        (&[10, 10, 20], &[38, 29, 3], 33, 2, &[0, 0, 0], &[0, 0, 0], false),
    ];
    for (caps, delays, access, long, cross, starts, proposals) in cases {
        let (src, want) = parking_lot(caps, delays, access, long, cross, starts, proposals);
        if let Err(e) = within_3_percent(&flow_rates(&run(&src)), &want) {
            panic!("{caps:?} {delays:?}: {e}");
        }
    }
}

/// The floor cycle and its two cures (zhang README, suspected issue 16;
/// issue 6 sessions 39-40): two flows on 42 Mb/s, RTTs 80 / 273 ms, tau
/// 1.739 > 2 - 1/2, `count_self`. With the default 10-kb/s floor and
/// `"restart"` pacing a flow that drops to the floor sends its next packet
/// 0.8 s after its last dense one, whose gap covered microseconds, so the
/// router counts it nowhere for up to 0.8 s; the packets that leave the
/// floor hear the other flow's share `gamma C / (N - 1)`, step to tau times
/// it, and the next step at the true share lands below 0: back on the
/// floor. Each cure closes the uncounted stretch and the pair converges:
/// a floor of `s / Delta` (it is at most one interval long), or
/// `"announced"` or `"hold"` pacing (it is not there: the packet after the
/// drop leaves when the last dense one's gap said).
///
/// Known-deviation test: its first half asserts that JetMax with the
/// default floor and pacing does not reach the max-min rates Theorem 16
/// promises (`check_max_min(..).is_err()`), pinning the mechanism of a
/// documented deviation; it reproduces no paper value.
#[test]
fn known_deviation_jetmax_floor_cycle_is_cured_by_the_floor_or_by_pacing() {
    let (mbps, rtts, tau) = (42, [80, 273], 1.739);
    let opts = JetMaxOpts {
        count_self: true,
        ..JetMaxOpts::default()
    };
    let default_floor = run(&jetmax_scenario(mbps, &rtts, tau, opts));
    let flows: Vec<_> = default_floor.flows.iter().collect();
    let rates = send_rate_of(&default_floor, &flows);
    assert!(
        check_max_min(&default_floor, mbps).is_err(),
        "the floor cycle is gone: {:?}",
        flow_rates(&default_floor)
    );
    // On the floor (the sources' default, 10 kb/s) within the window: the
    // cycle, not a slow start.
    let floor = JetMaxCcConfig::default().min_rate.bps_f64();
    assert!(rates.min.unwrap() <= floor * 1.01, "{rates:?}");

    let cures = [
        JetMaxOpts {
            min_rate_bps: Some(one_packet_per_interval_bps()),
            ..opts
        },
        JetMaxOpts {
            pacing: Some("announced"),
            ..opts
        },
        JetMaxOpts {
            pacing: Some("hold"),
            ..opts
        },
    ];
    for cure in cures {
        let cured = run(&jetmax_scenario(mbps, &rtts, tau, cure));
        check_max_min(&cured, mbps).unwrap();
        let flows: Vec<_> = cured.flows.iter().collect();
        let rates = send_rate_of(&cured, &flows);
        // Off the floor for the whole window, within 3 % of the share.
        assert!(
            rates.min.unwrap() > 0.97 * f64::from(mbps) * 1e6 / rtts.len() as f64,
            "{rates:?}"
        );
    }
}

/// The loss-driven swing of the floor-cycle proptest's note (issue 6
/// sessions 39-40): two flows of near-equal RTT (66 Mb/s, RTTs 125 / 98 ms,
/// tau 1.822, `count_self`, a floor of `s / Delta`) overflow the
/// 1000-packet buffer in start-up. With `"restart"` pacing both then drop
/// to the floor together, the router counts them short in the interval
/// after (`N` 0.70-1.30 of 2: each flow's next packet leaves 0.1 s after
/// its last dense one), both step to about tau C, the queue fills again
/// (70 % of arrivals dropped), and the cycle repeats every 0.4 s (measured:
/// 23.9 / 26.0 Mb/s against 33, some 39,000 drops). With `"announced"` or
/// `"hold"` pacing (session 41) the count has no hole and the pair
/// converges without a drop after the warm-up.
///
/// Known-deviation test: it asserts that with `"restart"` pacing the pair
/// misses the max-min rates (`check_max_min(..).is_err()`) and drops
/// packets, against Theorem 16 and the paper's loss-free claim; it pins the
/// mechanism, it reproduces no paper value.
#[test]
fn known_deviation_jetmax_loss_driven_swing_ends_with_announced_pacing() {
    let (mbps, rtts, tau) = (66, [125, 98], 1.822);
    let opts = JetMaxOpts {
        count_self: true,
        min_rate_bps: Some(one_packet_per_interval_bps()),
        ..JetMaxOpts::default()
    };
    let window_drops = |out: &RunOutput| -> u64 {
        out.links
            .iter()
            .map(|l| l.counters.dropped_total().pkts)
            .sum()
    };
    let restart = run(&jetmax_scenario(mbps, &rtts, tau, opts));
    assert!(
        check_max_min(&restart, mbps).is_err(),
        "the swing is gone: {:?}",
        flow_rates(&restart)
    );
    assert!(window_drops(&restart) > 0, "no loss in the window");
    for pacing in ["announced", "hold"] {
        let cured = run(&jetmax_scenario(
            mbps,
            &rtts,
            tau,
            JetMaxOpts {
                pacing: Some(pacing),
                ..opts
            },
        ));
        check_max_min(&cured, mbps).unwrap_or_else(|e| panic!("{pacing}: {e}"));
        assert_eq!(window_drops(&cured), 0, "{pacing}");
    }
}

/// `"announced"` pacing's one-sided rule (issue 6 session 41): at a fall it
/// keeps the pending departure, at a rise it shortens it, so across rate
/// changes a flow sends at the larger of its old and new rates. Near tau =
/// 2 that excess is enough to unsettle a pair of flows that `"restart"`
/// and `"hold"` (the pending departure never moves) bring to max-min:
/// 36 Mb/s, RTTs 269 / 34 ms, tau 1.923, `count_self`, the default floor
/// and buffer (measured: 7.15 / 15.64 Mb/s against 18). One of the two
/// misses of 30 random cases drawn as the proptest above draws them, with
/// a 1000-packet buffer; `"hold"` met max-min in all 30, and in 30 more
/// with a loss-free buffer.
///
/// Known-deviation test: it asserts that `"announced"` pacing misses the
/// max-min rates of Theorem 16 (`check_max_min(..).is_err()`), pinning a
/// documented mechanism; it reproduces no paper value.
#[test]
fn known_deviation_jetmax_hold_pacing_converges_where_announced_misses() {
    let (mbps, rtts, tau) = (36, [269, 34], 1.923);
    let opts = JetMaxOpts {
        count_self: true,
        ..JetMaxOpts::default()
    };
    let with = |pacing| {
        run(&jetmax_scenario(
            mbps,
            &rtts,
            tau,
            JetMaxOpts {
                pacing: Some(pacing),
                ..opts
            },
        ))
    };
    let announced = with("announced");
    assert!(
        check_max_min(&announced, mbps).is_err(),
        "announced converges: {:?}",
        flow_rates(&announced)
    );
    check_max_min(&with("hold"), mbps).unwrap();
}
