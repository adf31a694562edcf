//! The closed-form values that Zimmermann (2005)'s E1 files check
//! (scenarios/papers/pricing/e1-rate-allocation-{sbrm,newreno-droptail,
//! newreno-red,vqm-nbit}.toml, their `kind = "derived"` expectations) recomputed from
//! each file's own parameters, so that an edit to a file's capacities,
//! delays, weights, windows or SBRM parameters cannot leave a hand-computed
//! reference value behind. The derivations are the files' comments:
//!
//! - SBRM with Key's rule (spec 2.5-2.6): each flow settles at x = w (1 -
//!   p) / p; with both core links full and the unmarked probability q per
//!   link, paths I and II carry W q / (1 - q) and path III W q^2 / (1 -
//!   q^2) (W a path's summed w), so q / (1 - q) (1 + 2q) / (1 + q) = c / W,
//!   and SBRM's marking 1 - exp(-gamma (b - b0)) = 1 - q puts the queue at
//!   b* = b0 - ln(q) / gamma, gamma = ln(100) / (q_max - b0).
//! - NewReno loss-free at the receiver window W: each flow sends W / RTT_i,
//!   RTT_i its path's propagation plus one data segment's and one ACK's
//!   transmission per hop; link 1 full fixes its queueing delay q from
//!   sum W / (RTT_i + q) = c, and link 2's load and path III / path I
//!   follow.
//! - NewReno over RED: path II at its window (W segments per RTT_II); paths
//!   I and III share link 1 in inverse proportion to their round trips,
//!   with link 1's queueing delay and utilisation the file states as
//!   measured inputs.
//!
//! - The n-bit VQM file (weighted proportional fairness with the sum of
//!   the link prices): each flow gets w / (its path's price sum); with both
//!   core links full, W_I / p_1 + W_III / (p_1 + p_2) = c and W_II / p_2 +
//!   W_III / (p_1 + p_2) = c (W a path's summed w), and a path-III flow gets
//!   p_1 / (p_1 + p_2) of a path-I flow's rate and p_2 / (p_1 + p_2) of a
//!   path-II flow's with the same w.
//!
//! The values are computed here independently of the engine (plain
//! arithmetic and bisection over the parsed file) and must equal the
//! file's reference values to the precision the file writes them with.

#[allow(dead_code)]
#[path = "common/reference.rs"]
mod shared;
use shared::{bps, bytes, default_ack_bytes, secs};

const SBRM: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-sbrm.toml");
const DROPTAIL: &str =
    include_str!("../scenarios/papers/pricing/e1-rate-allocation-newreno-droptail.toml");
const RED: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-newreno-red.toml");
const VQM_NBIT: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-vqm-nbit.toml");

/// The root of `f` on `[lo, hi]` (a sign change) by bisection.
fn root(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    assert!(f(lo) * f(hi) < 0.0, "no sign change on [{lo}, {hi}]");
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(lo) * f(mid) <= 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The file's derived expectation on `subject`'s `metric` (and its
/// `ratio_to`, if any): its reference value.
fn derived(doc: &toml::Table, subject: &str, metric: &str, ratio_to: Option<&str>) -> f64 {
    let hits: Vec<f64> = doc["expect"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e.get("kind").and_then(|k| k.as_str()) == Some("derived")
                && e["subject"].as_str() == Some(subject)
                && e["metric"].as_str() == Some(metric)
                && e.get("ratio_to").and_then(|r| r.as_str()) == ratio_to
        })
        .map(|e| {
            e["value"]
                .as_float()
                .or_else(|| e["value"].as_integer().map(|v| v as f64))
                .unwrap()
        })
        .collect();
    assert_eq!(hits.len(), 1, "one derived {metric} of {subject}");
    hits[0]
}

/// `value` written to `digits` significant digits equals `computed`.
fn written_as(what: &str, value: f64, computed: f64, digits: i32) {
    let scale = 10f64.powi(digits - 1 - computed.abs().log10().floor() as i32);
    let rounded = (computed * scale).round() / scale;
    eprintln!("{what}: file {value}, closed form {computed} ({rounded})");
    assert!(
        (value - rounded).abs() <= 0.5 / scale + 1e-12 * value.abs(),
        "{what}: the file says {value}, the closed form gives {computed}"
    );
}

/// The E1 network as the files give it: the core links' capacity (both the
/// same, packets/s at the data size), each path's flows (their `cc` and
/// `tcp` tables and counts) and its base round trip.
struct E1 {
    c_pkts: f64,
    mss: f64,
    /// Per path I, II, III: its flow groups and base RTT (s).
    paths: [(Vec<Group>, f64); 3],
}

/// A flow group: its count, `cc` table and `tcp` table.
type Group = (f64, toml::Table, Option<toml::Table>);

fn e1(doc: &toml::Table) -> E1 {
    let links = doc["links"].as_array().unwrap();
    let link = |from: &str, to: &str| -> &toml::Value {
        links
            .iter()
            .find(|l| {
                let (a, b) = (l["from"].as_str().unwrap(), l["to"].as_str().unwrap());
                (a, b) == (from, to) || (a, b) == (to, from)
            })
            .unwrap_or_else(|| panic!("no link {from} - {to}"))
    };
    let groups = doc["flows"].as_array().unwrap();
    let mss = bytes(&groups[0]["packet_size"]);
    let ack = default_ack_bytes();
    let c1 = bps(&link("r1", "r2")["capacity"]);
    assert_eq!(c1, bps(&link("r2", "r3")["capacity"]), "equal cores");
    let route = |nodes: &[&str]| -> f64 {
        nodes
            .windows(2)
            .map(|h| {
                let l = link(h[0], h[1]);
                let c = bps(&l["capacity"]);
                2.0 * secs(&l["delay"]) + (mss + ack) * 8.0 / c
            })
            .sum()
    };
    let path = |from: &str, nodes: &[&str]| {
        let flows = groups
            .iter()
            .filter(|g| g["from"].as_str() == Some(from))
            .map(|g| {
                assert_eq!(bytes(&g["packet_size"]), mss);
                (
                    g["count"].as_integer().unwrap() as f64,
                    g["cc"].as_table().unwrap().clone(),
                    g.get("tcp").and_then(|t| t.as_table()).cloned(),
                )
            })
            .collect();
        (flows, route(nodes))
    };
    E1 {
        c_pkts: c1 / (8.0 * mss),
        mss,
        paths: [
            path("s1", &["s1", "r1", "r2", "s3"]),
            path("s4", &["s4", "r2", "r3", "s2"]),
            path("s5", &["s5", "r1", "r2", "r3", "s6"]),
        ],
    }
}

impl E1 {
    /// A path's flow count and its one receiver window (segments).
    fn count_and_window(&self, path: usize) -> (f64, f64) {
        let flows = &self.paths[path].0;
        let rwnd = |t: &Option<toml::Table>| t.as_ref().unwrap()["rwnd_pkts"].as_integer().unwrap();
        assert!(flows.iter().all(|f| rwnd(&f.2) == rwnd(&flows[0].2)));
        (flows.iter().map(|f| f.0).sum(), rwnd(&flows[0].2) as f64)
    }
}

#[test]
fn sbrm_queue_fixed_point_is_the_files() {
    let doc: toml::Table = SBRM.parse().unwrap();
    let net = e1(&doc);
    let w: Vec<f64> = net
        .paths
        .iter()
        .map(|(flows, _)| {
            flows
                .iter()
                .map(|f| f.0 * f.1["w"].as_float().unwrap())
                .sum()
        })
        .collect();
    assert!(
        w[0] == w[1] && w[1] == w[2],
        "each path's w sums to the same"
    );
    let target = net.c_pkts / w[0];
    let q = root(
        |q| q / (1.0 - q) * (1.0 + 2.0 * q) / (1.0 + q) - target,
        1e-9,
        1.0 - 1e-9,
    );
    let algo = doc["links"][0]["algo"].as_table().unwrap();
    assert_eq!(algo["kind"].as_str(), Some("sbrm"));
    let (b0, q_max) = (
        algo["b0"].as_float().unwrap(),
        algo["q_max"].as_float().unwrap(),
    );
    let gamma = 100f64.ln() / (q_max - b0);
    let b = b0 - q.ln() / gamma;
    for link in ["r1->r2", "r2->r3"] {
        written_as(
            &format!("{link} backlog"),
            derived(&doc, link, "backlog_mean_pkts", None),
            b,
            4,
        );
    }
}

#[test]
fn newreno_droptail_fixed_point_is_the_files() {
    let doc: toml::Table = DROPTAIL.parse().unwrap();
    let net = e1(&doc);
    let (n1, w1) = net.count_and_window(0);
    let (n2, w2) = net.count_and_window(1);
    let (n3, w3) = net.count_and_window(2);
    let [(_, r1), (_, r2), (_, r3)] = &net.paths;
    let q = root(
        |q| n1 * w1 / (r1 + q) + n3 * w3 / (r3 + q) - net.c_pkts,
        0.0,
        10.0,
    );
    written_as(
        "link 1 queueing delay",
        derived(&doc, "r1->r2", "qdelay_mean_s", None),
        q,
        4,
    );
    let link2 = (n2 * w2 / r2 + n3 * w3 / (r3 + q)) / net.c_pkts;
    written_as(
        "link 2 utilisation",
        derived(&doc, "r2->r3", "utilisation", None),
        link2,
        4,
    );
    written_as(
        "path III / path I",
        derived(&doc, "III-w400", "throughput_bps", Some("I-w400")),
        (w3 / (r3 + q)) / (w1 / (r1 + q)),
        4,
    );
}

#[test]
fn newreno_red_allocation_is_the_files() {
    let doc: toml::Table = RED.parse().unwrap();
    let net = e1(&doc);
    let (n2, w2) = net.count_and_window(1);
    let [(_, r1), (_, r2), (_, r3)] = &net.paths;
    written_as(
        "path II at the window",
        derived(&doc, "II-w400", "throughput_bps", None),
        w2 * net.mss * 8.0 / r2,
        4,
    );
    // Link 1's measured queueing delay (1.0 ms) and utilisation (98.1 %)
    // are the file's stated inputs.
    let (q1, u1) = (1.0e-3, 0.981);
    let ratio = (r1 + q1) / (r3 + q1);
    written_as(
        "path III / path I",
        derived(&doc, "III-w400", "throughput_bps", Some("I-w400")),
        ratio,
        3,
    );
    let link2 = (n2 * w2 / r2 + u1 * net.c_pkts * ratio / (1.0 + ratio)) / net.c_pkts;
    written_as(
        "link 2 utilisation",
        derived(&doc, "r2->r3", "utilisation", None),
        link2,
        3,
    );
}

#[test]
fn vqm_nbit_path_ratios_are_the_files() {
    let doc: toml::Table = VQM_NBIT.parse().unwrap();
    let net = e1(&doc);
    let w = |path: usize| -> f64 {
        net.paths[path]
            .0
            .iter()
            .map(|(n, cc, _)| n * cc["w"].as_float().unwrap())
            .sum()
    };
    let (w1, w2, w3, c) = (w(0), w(1), w(2), net.c_pkts);
    // Link 2's price for link 1's, then link 1's from its own equation.
    let p2_of = |p1: f64| root(|p2| w2 / p2 + w3 / (p1 + p2) - c, 1e-9, 1e9);
    let p1 = root(|p1| w1 / p1 + w3 / (p1 + p2_of(p1)) - c, 1e-9, 1e9);
    let p2 = p2_of(p1);
    for g in ["100", "200", "400"] {
        let iii = format!("III-w{g}");
        for (other, want) in [("I", p1 / (p1 + p2)), ("II", p2 / (p1 + p2))] {
            written_as(
                &format!("{iii} / {other}-w{g}"),
                derived(&doc, &iii, "throughput_bps", Some(&format!("{other}-w{g}"))),
                want,
                1,
            );
        }
    }
}
