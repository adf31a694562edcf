//! Seed 001's single-link experiments against an independent reference
//! model: are the deviations of scenarios/papers/wtp-multcp/README.md that
//! have no found cause netsim's, or the model's as the spec defines it?
//!
//! - F5: netsim's VQ curve of Fig. 9 lies up to 0.098 below LB-B's line
//!   p = 2 (rho - 0.7), where the paper calls the curves "very close" (e09's
//!   check, a known deviation since this test).
//! - F3: netsim's VQ marks both PI classes alike (ce_frac ratio 1.02) and
//!   marks IPD's high class less (0.85), the reverse of the paper's pattern
//!   (Figs. 3(b), 4).
//! - F2: Table 2's delays, which netsim misses for RED-A, RED-C, VQ and LB-B
//!   in 8 of 12 values.
//!
//! The reference below shares no code with the engine, the links, the
//! transport or the controllers. It is a small event-driven model written from
//! the spec alone: spec 2.3-2.4 (the WTP window: the per-ACK rule, real-valued
//! cwnd, floor(cwnd) in flight, slow start until the first mark, a floor of one
//! packet), the markers of spec 2.7 (ns-2's gentle RED in packets with its
//! idle decay, `qlen > 1` guard, `old` flag and `wait_` count rule), 2.8 (the
//! fluid virtual queue of theta B bytes served at theta C, marking from a
//! virtual overflow until it next empties, the overflowing packet not added)
//! and 2.9 (LBM on consecutive blocks of t_avg), and spec 4.0 (the dumbbell:
//! per-connection zero-delay access links, the bottleneck's delay one way each
//! direction, unlimited FIFOs, one ACK per packet echoing its CE bit, starts
//! uniform over the start jitter). Its FIFOs are departure-time arithmetic
//! (`max(arrival, previous departure) + size / rate`), not queues, and its
//! start times and coin flips come from its own generator. Every value it
//! takes (capacity, delay, access capacity, packet size, counts, weights,
//! variants, gain, marker parameters, jitter, window) is read from the scenario
//! files; the 40-B ACK is netsim's `tcp.ack_size` default, read from its
//! configuration (the files do not set it).
//!
//! Time is in integer picoseconds, as in the engine, and that matters: the
//! files' constants (0.8 ms per packet, 100 ms, 8 us, 32 us) are exact, so the
//! ACK clock puts arrivals on a lattice and about a fifth of the arrivals at
//! the bottleneck (20.6 % in e10's RED-A point) come at the very instant a
//! transmission ends. The reference takes the packet that starts then as gone
//! from the queue, as the engine does (departures before arrivals at one
//! instant, whatever order the events were scheduled in). A
//! version of this reference in f64 seconds broke those ties by rounding
//! noise instead: RED saw one packet more at some of them, and RED-A's mean
//! delay came out 1.6 % lower than netsim's (t -19), which RED-A's rules alone
//! do not explain. VQ and LB do not look at the queue and matched either way.
//!
//! Both sides run independent replications and the test compares their means
//! with Welch's two-sample t test at the 99.99 % level (two-sided; the test
//! makes 56 comparisons, so a change that only reshuffles netsim's random
//! draws trips one of them with a probability of about 0.6 %). The standard
//! errors of the difference are 0.0001-0.0006 for utilisation and p, and the
//! test sees small model differences: with the reference's gain 5 % high,
//! utilisation falls by 0.0066 (t -30 to -39), and a reference that marks only
//! the overflowing packet runs the link full. RED-C, whose loop is a limit
//! cycle (finding F4), spreads its runs' utilisation over 0.896-0.938 with a
//! long tail, so 10 runs of each side can differ by t 4.6 (the 10 runs of
//! netsim's file average 0.904, its 120 runs 0.910); it runs 120 per side,
//! where every figure agrees within t 1.9. Then the test checks that the
//! reference itself shows F5's gap and F3's pattern and misses the same Table 2
//! values: those deviations belong to the model as specified, not to the
//! engine.

use rayon::prelude::*;
use topology::scenario::ExpectOp;
use topology::sweep::set_path;
use topology::Resolved;

#[path = "common/reference.rs"]
mod shared;
use shared::{as_secs, bps, bytes, default_ack_bytes, ps, same_mean, secs, Events, Ps, SplitMix};

const E09: &str = include_str!("../scenarios/papers/wtp-multcp/e09-fig9-markprob-tuned.toml");
const E02: &str = include_str!("../scenarios/papers/wtp-multcp/e02-pi-wtp-vq.toml");
const E03: &str = include_str!("../scenarios/papers/wtp-multcp/e03-ipd-wtp-vq.toml");
const E10_RED_A: &str = include_str!("../scenarios/papers/wtp-multcp/e10-table2-red-a.toml");
const E10_RED_C: &str = include_str!("../scenarios/papers/wtp-multcp/e10-table2-red-c.toml");
const E10_VQ: &str = include_str!("../scenarios/papers/wtp-multcp/e10-table2-vq.toml");
const E10_LB_B: &str = include_str!("../scenarios/papers/wtp-multcp/e10-table2-lb-b.toml");

/// Replications per side, and for RED-C's limit cycle.
const RUNS: u32 = 10;
const RUNS_RED_C: u32 = 120;

/// One class of connections.
#[derive(Clone, Debug)]
struct Class {
    count: usize,
    weight: f64,
    ipd: bool,
    k: f64,
}

/// The bottleneck's marker.
#[derive(Clone, Debug)]
enum Marker {
    /// Spec 2.8: theta, and B in packets.
    VirtualQueue { theta: f64, buffer_pkts: f64 },
    /// Spec 2.9, its recommended estimator: the load of the last completed
    /// block of `t_avg` s applies to every arrival of the next block.
    LoadBased { t_avg: f64, rho0: f64, alpha: f64 },
    /// Spec 2.7's ns-2 `REDQueue` in packets, gentle, marking: (min_th,
    /// max_th, max_p, w_q). No limit rule (the files set none, finding F1).
    Red {
        min_th: f64,
        max_th: f64,
        max_p: f64,
        w_q: f64,
    },
}

/// What the reference needs from a scenario.
#[derive(Clone, Debug)]
struct Params {
    capacity_bps: f64,
    one_way_s: f64,
    access_bps: f64,
    packet_bytes: f64,
    jitter_s: f64,
    warmup_s: f64,
    end_s: f64,
    marker: Marker,
    classes: Vec<Class>,
}

/// One run's figures, from either side.
#[derive(Clone, Debug, Default)]
struct Outcome {
    utilisation: f64,
    mark_prob: f64,
    /// Queueing delay (arrival to start of transmission) of the packets whose
    /// transmission starts in the window: mean, population sd, maximum, s.
    qdelay: [f64; 3],
    /// Per class: bytes received, data packets received, CE-marked ones.
    rx_bytes: Vec<f64>,
    rx_pkts: Vec<f64>,
    ce_pkts: Vec<f64>,
}

impl Outcome {
    /// High class over low class: throughput (equal counts) and ce_frac.
    fn ratios(&self) -> (f64, f64) {
        let frac = |c: usize| self.ce_pkts[c] / self.rx_pkts[c];
        (self.rx_bytes[1] / self.rx_bytes[0], frac(1) / frac(0))
    }
}

/// The scenario `doc` (already edited to the point under test) as the
/// reference's parameters.
fn params(doc: &toml::Table) -> Params {
    let topo = &doc["topology"];
    let bottleneck = &topo["bottleneck"];
    let access = &topo["access"];
    assert_eq!(
        secs(&access["delay"]),
        0.0,
        "the reference has zero-delay access links"
    );
    let marker = marker(&bottleneck["algo"]);
    let flows = doc["flows"].as_array().unwrap();
    let packet = |f: &toml::Value| bytes(&f["packet_size"]);
    assert!(flows.iter().all(|f| packet(f) == packet(&flows[0])));
    assert!(flows
        .iter()
        .all(|f| f["start_jitter"] == flows[0]["start_jitter"]));
    let classes = flows
        .iter()
        .map(|f| {
            let cc = &f["cc"];
            // Anything else would be a choice the reference does not make.
            let keys = |t: &toml::Value| t.as_table().unwrap().keys().cloned().collect::<Vec<_>>();
            assert!(keys(cc)
                .iter()
                .all(|k| ["kind", "variant", "weight", "k"].contains(&k.as_str())));
            assert_eq!(keys(&f["tcp"]), ["ecn"]);
            assert_eq!(f["tcp"]["ecn"].as_bool(), Some(true));
            assert_eq!(cc["kind"].as_str(), Some("wtp"));
            Class {
                count: f["count"].as_integer().unwrap() as usize,
                weight: cc["weight"].as_float().unwrap(),
                ipd: cc["variant"].as_str() == Some("ipd"),
                k: cc["k"].as_float().unwrap(),
            }
        })
        .collect();
    Params {
        capacity_bps: bps(&bottleneck["capacity"]),
        one_way_s: secs(&bottleneck["delay"]),
        access_bps: bps(&access["capacity"]),
        packet_bytes: packet(&flows[0]),
        jitter_s: secs(&flows[0]["start_jitter"]),
        warmup_s: secs(&doc["run"]["warmup"]),
        end_s: secs(&doc["run"]["duration"]),
        marker,
        classes,
    }
}

/// A marker table as the reference's [`Marker`]; LB's presets are spec 2.9's
/// table.
fn marker(algo: &toml::Value) -> Marker {
    let f = |k: &str| algo[k].as_float().unwrap();
    match algo["kind"].as_str().unwrap() {
        "virtual_queue" => {
            assert!(
                algo.get("variant").is_none(),
                "the busy-period variant only"
            );
            let buffer = algo["buffer"].as_str().unwrap();
            let buffer_pkts = buffer
                .strip_suffix("pkt")
                .and_then(|n| n.trim().parse::<f64>().ok())
                .unwrap_or_else(|| panic!("the reference takes B in packets, not {buffer:?}"));
            Marker::VirtualQueue {
                theta: f("theta"),
                buffer_pkts,
            }
        }
        "load_based" => {
            assert!(algo.get("estimator").is_none(), "the blocks estimator only");
            match algo.get("preset").and_then(toml::Value::as_str) {
                Some("A") => Marker::LoadBased {
                    t_avg: 0.5,
                    rho0: 0.6,
                    alpha: 0.71,
                },
                Some("B") => Marker::LoadBased {
                    t_avg: 0.5,
                    rho0: 0.7,
                    alpha: 2.0,
                },
                None => Marker::LoadBased {
                    t_avg: secs(&algo["t_avg"]),
                    rho0: f("rho0"),
                    alpha: f("alpha"),
                },
                Some(other) => panic!("no LB preset {other}"),
            }
        }
        "red" => {
            for key in ["limit", "bytes", "count", "mean_pkt_size"] {
                assert!(algo.get(key).is_none(), "the reference's RED has no {key}");
            }
            assert!(algo.get("mode").is_none_or(|m| m.as_str() == Some("mark")));
            let (min_th, max_th, max_p, w_q) =
                match algo.get("preset").and_then(toml::Value::as_str) {
                    Some("A") => (5.0, 15.0, 0.1, 0.002),
                    Some("B") => (2.0, 6.0, 0.1, 0.02),
                    Some("C") => (3.0, 9.0, 0.95, 0.002),
                    None => (f("min_th"), f("max_th"), f("max_p"), f("w_q")),
                    Some(other) => panic!("no RED preset {other}"),
                };
            Marker::Red {
                min_th,
                max_th,
                max_p,
                w_q,
            }
        }
        other => panic!("the reference has no {other} marker"),
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Start,
    /// A data packet reaches the bottleneck.
    Arrive,
    /// An ACK reaches its sender, echoing a mark or not.
    Ack(bool),
}

struct Conn {
    class: usize,
    w_inc: f64,
    w_dec: f64,
    k: f64,
    cwnd: f64,
    slow_start: bool,
    next: u64,
    acked: u64,
    access_free: Ps,
}

/// One run of the reference model.
fn reference(p: &Params, seed: u64) -> Outcome {
    let mut rng = SplitMix(seed);
    let mut coin = SplitMix(!seed);
    let s = p.packet_bytes;
    let tx = ps(s * 8.0 / p.capacity_bps);
    let ack_bytes = default_ack_bytes();
    let ack_tx = ps(ack_bytes * 8.0 / p.capacity_bps);
    let acc_tx = ps(s * 8.0 / p.access_bps);
    let acc_ack_tx = ps(ack_bytes * 8.0 / p.access_bps);
    let one_way = ps(p.one_way_s);
    let (vq_rate, vq_limit) = match p.marker {
        Marker::VirtualQueue { theta, buffer_pkts } => {
            (theta * p.capacity_bps / 8.0, theta * buffer_pkts * s)
        }
        Marker::LoadBased { .. } | Marker::Red { .. } => (0.0, 0.0),
    };
    let (w0, w1) = (ps(p.warmup_s), ps(p.end_s));
    let in_window = |t: Ps| t >= w0 && t < w1;

    let mut heap = Events::new();
    let push = |heap: &mut Events<(usize, Kind)>, t: Ps, flow: usize, kind: Kind| {
        heap.push(t, (flow, kind));
    };
    let mut conns = Vec::new();
    for (c, class) in p.classes.iter().enumerate() {
        for _ in 0..class.count {
            let (w_inc, w_dec) = if class.ipd {
                (1.0, class.weight)
            } else {
                (class.weight, 1.0)
            };
            conns.push(Conn {
                class: c,
                w_inc,
                w_dec,
                k: class.k,
                cwnd: 1.0,
                slow_start: true,
                next: 0,
                acked: 0,
                access_free: 0,
            });
            let start = ps(rng.unit() * p.jitter_s);
            push(&mut heap, start, conns.len() - 1, Kind::Start);
        }
    }
    let classes = p.classes.len();
    let mut out = Outcome {
        rx_bytes: vec![0.0; classes],
        rx_pkts: vec![0.0; classes],
        ce_pkts: vec![0.0; classes],
        ..Outcome::default()
    };
    let (mut fifo_free, mut rev_free): (Ps, Ps) = (0, 0);
    let (mut vq, mut vq_t, mut marking) = (0.0f64, 0, false);
    let (mut arrived, mut marked, mut departed_bytes) = (0u64, 0u64, 0.0f64);
    // LB: the current block's index and bytes, and the probability in force.
    let (mut block, mut block_bytes, mut lb_p) = (0u64, 0.0f64, 0.0f64);
    // RED: the average, count and old flag; the start times of the packets
    // waiting (not yet in transmission), to count the queue an arrival finds.
    let (mut avg, mut count, mut old) = (0.0f64, 0i64, false);
    let mut waiting = std::collections::VecDeque::new();
    let (mut d_n, mut d_sum, mut d_sq, mut d_max) = (0u64, 0.0f64, 0.0f64, 0.0f64);

    while let Some((t, (i, kind))) = heap.pop() {
        if t >= w1 {
            break;
        }
        match kind {
            Kind::Start => {}
            Kind::Arrive => {
                let mark = match p.marker {
                    Marker::VirtualQueue { .. } => {
                        // Spec 2.8: drain, then the overflow test; mark
                        // through the busy period.
                        let drained = vq_rate * as_secs(t - vq_t);
                        if drained >= vq {
                            vq = 0.0;
                            marking = false;
                        } else {
                            vq -= drained;
                        }
                        vq_t = t;
                        if vq + s > vq_limit {
                            marking = true;
                        } else {
                            vq += s;
                        }
                        marking
                    }
                    Marker::LoadBased { t_avg, rho0, alpha } => {
                        // Spec 2.9: a new block takes the last completed
                        // one's load (0 if the arrival skipped a whole block).
                        let b = t / ps(t_avg);
                        if b > block {
                            let last = if b == block + 1 { block_bytes } else { 0.0 };
                            let rho = last * 8.0 / (p.capacity_bps * t_avg);
                            lb_p = (alpha * (rho - rho0)).clamp(0.0, 1.0);
                            block = b;
                            block_bytes = 0.0;
                        }
                        block_bytes += s;
                        coin.unit() < lb_p
                    }
                    Marker::Red {
                        min_th,
                        max_th,
                        max_p,
                        w_q,
                    } => {
                        while waiting.front().is_some_and(|&st| st <= t) {
                            waiting.pop_front();
                        }
                        let q = waiting.len() as f64;
                        if q == 0.0 && fifo_free <= t {
                            // Idle since the serializer finished: decay once per
                            // ns-2's mean_pktsize_ (500 B) transmission time.
                            let ptc = p.capacity_bps / (8.0 * 500.0);
                            let m = (ptc * as_secs(t - fifo_free)).floor();
                            avg *= (1.0 - w_q).powf(m);
                        }
                        avg = (1.0 - w_q) * avg + w_q * q;
                        count += 1;
                        let mut mark = false;
                        if avg >= min_th && q > 1.0 {
                            if avg >= 2.0 * max_th {
                                mark = true;
                                count = 0;
                            } else if !old {
                                old = true;
                                count = 1;
                            } else {
                                let pb = if avg < max_th {
                                    max_p * (avg - min_th) / (max_th - min_th)
                                } else {
                                    max_p + (1.0 - max_p) * (avg - max_th) / max_th
                                };
                                // ns-2's modify_p with wait_ = true.
                                let cp = count as f64 * pb;
                                let pa = if cp < 1.0 {
                                    0.0
                                } else if cp < 2.0 {
                                    pb / (2.0 - cp)
                                } else {
                                    1.0
                                };
                                if pa > 0.0 && coin.unit() <= pa {
                                    mark = true;
                                    count = 0;
                                }
                            }
                        } else {
                            old = false;
                        }
                        mark
                    }
                };
                let start = fifo_free.max(t);
                let dep = start + tx;
                fifo_free = dep;
                if start > t {
                    waiting.push_back(start);
                }
                if in_window(t) {
                    arrived += 1;
                    marked += u64::from(mark);
                }
                if in_window(start) {
                    let d = as_secs(start - t);
                    d_n += 1;
                    d_sum += d;
                    d_sq += d * d;
                    d_max = d_max.max(d);
                }
                if in_window(dep) {
                    departed_bytes += s;
                }
                // Receiver: propagation and its access link; one ACK at once.
                let rx = dep + one_way + acc_tx;
                let c = conns[i].class;
                if in_window(rx) {
                    out.rx_bytes[c] += s;
                    out.rx_pkts[c] += 1.0;
                    out.ce_pkts[c] += f64::from(u8::from(mark));
                }
                let back = rev_free.max(rx + acc_ack_tx) + ack_tx;
                rev_free = back;
                push(&mut heap, back + one_way + acc_ack_tx, i, Kind::Ack(mark));
                continue;
            }
            Kind::Ack(mark) => {
                let c = &mut conns[i];
                c.acked += 1;
                if c.slow_start && !mark {
                    c.cwnd += 1.0;
                } else {
                    // Spec 2.4: cwnd += k (w_inc / cwnd - f / w_dec); the first
                    // mark ends slow start.
                    c.slow_start = false;
                    let f = if mark { 1.0 } else { 0.0 };
                    c.cwnd += c.k * (c.w_inc / c.cwnd - f / c.w_dec);
                    c.cwnd = c.cwnd.max(1.0);
                }
            }
        }
        // Send what floor(cwnd) allows, through the connection's access link.
        let c = &mut conns[i];
        while c.next - c.acked < c.cwnd.floor() as u64 {
            let at = c.access_free.max(t) + acc_tx;
            c.access_free = at;
            c.next += 1;
            push(&mut heap, at, i, Kind::Arrive);
        }
    }
    let window = as_secs(w1 - w0);
    out.utilisation = departed_bytes * 8.0 / (p.capacity_bps * window);
    out.mark_prob = marked as f64 / arrived as f64;
    let n = d_n as f64;
    let mean = d_sum / n;
    out.qdelay = [mean, (d_sq / n - mean * mean).max(0.0).sqrt(), d_max];
    out
}

/// One netsim run of `doc`'s replication `rep`.
fn netsim(doc: &toml::Table, rep: u32) -> Outcome {
    let r = Resolved::parse(&toml::to_string(doc).unwrap(), "t").unwrap();
    let out = r.build(r.scenario.run.seed, rep).unwrap().run();
    let link = out.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert_eq!(link.counters.dropped_total().pkts, 0, "loss-free by design");
    let classes = r.scenario.flows.len();
    let mut o = Outcome {
        utilisation: link.utilisation(),
        mark_prob: link.mark_prob(),
        qdelay: [
            link.qdelay_mean_secs(),
            link.qdelay_sd_secs(),
            link.qdelay_max_secs(),
        ],
        rx_bytes: vec![0.0; classes],
        rx_pkts: vec![0.0; classes],
        ce_pkts: vec![0.0; classes],
    };
    for f in &out.flows {
        let c = f.group.0 as usize;
        o.rx_bytes[c] += f.counters.rx_bytes as f64;
        o.rx_pkts[c] += f.counters.rx_pkts as f64;
        o.ce_pkts[c] += f.counters.ce_pkts as f64;
    }
    o
}

/// Both sides' `runs` runs of `doc`.
fn both(doc: &toml::Table, runs: u32) -> (Vec<Outcome>, Vec<Outcome>) {
    let p = params(doc);
    let reference: Vec<_> = (0..runs)
        .into_par_iter()
        .map(|rep| reference(&p, 0x5EED_0000 + u64::from(rep)))
        .collect();
    let engine: Vec<_> = (0..runs)
        .into_par_iter()
        .map(|rep| netsim(doc, rep))
        .collect();
    (reference, engine)
}

/// A figure of one run.
type Figure = fn(&Outcome) -> f64;

/// The figures compared, by name.
const FIGURES: [(&str, Figure); 7] = [
    ("utilisation", |o| o.utilisation),
    ("mark_prob", |o| o.mark_prob),
    ("throughput ratio", |o| o.ratios().0),
    ("ce_frac ratio", |o| o.ratios().1),
    ("qdelay mean", |o| o.qdelay[0]),
    ("qdelay sd", |o| o.qdelay[1]),
    ("qdelay max", |o| o.qdelay[2]),
];

/// Runs `doc` `runs` times on each side, checks every one of [`FIGURES`] and returns the
/// reference's means in that order.
fn compare(what: &str, doc: &toml::Table, runs: u32) -> [f64; 7] {
    let (r, e) = both(doc, runs);
    FIGURES.map(|(name, f)| {
        let a: Vec<f64> = r.iter().map(f).collect();
        let b: Vec<f64> = e.iter().map(f).collect();
        same_mean(&format!("{what} {name}"), &a, &b)
    })
}

/// `text` without its sweep, with `edits` applied.
fn point(text: &str, edits: &[(&str, toml::Value)]) -> toml::Table {
    let mut doc: toml::Table = text.parse().unwrap();
    doc.remove("sweep");
    for (k, v) in edits {
        set_path(&mut doc, k, v.clone()).unwrap();
    }
    doc
}

/// e09's own virtual-queue marker, from its sweep.
fn e09_vq() -> toml::Value {
    let doc: toml::Table = E09.parse().unwrap();
    doc["sweep"]["param"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["values"].as_array().unwrap())
        .find(|v| v.get("kind").and_then(toml::Value::as_str) == Some("virtual_queue"))
        .unwrap()
        .clone()
}

#[test]
fn fig9_vq_curve_is_the_models_and_lies_below_lb_b_line() {
    // e09's lightest shared load and the middle where F5's gap is widest
    // (netsim: 0.088 below LB-B's line at 5 + 5, 0.098 at 8 + 8).
    for n in [5i64, 8] {
        let doc = point(
            E09,
            &[
                ("topology.bottleneck.algo", e09_vq()),
                ("flows.low.count", n.into()),
                ("flows.high.count", n.into()),
            ],
        );
        let [util, p, ..] = compare(&format!("e09 VQ {n} + {n}"), &doc, RUNS);
        // LB-B's marking function (spec 2.9's preset B, Fig. 9's tuned LB).
        let lb_b: toml::Table = "kind = 'load_based'\npreset = 'B'".parse().unwrap();
        let Marker::LoadBased { rho0, alpha, .. } = marker(&lb_b.into()) else {
            unreachable!("preset B is load-based")
        };
        let line = alpha * (util - rho0);
        assert!(
            p < line - 0.05,
            "{n} + {n}: the reference's VQ point (rho {util:.4}, p {p:.4}) is within 0.05 of LB-B's line ({line:.4})"
        );
    }
}

#[test]
fn vq_class_marking_pattern_is_the_models() {
    // F3: PI marks both classes alike, IPD's high class less (netsim 1.02 and
    // 0.85; the paper: PI below 1, IPD about 1).
    let [_, _, thr, ce, ..] = compare("e02 PI VQ", &point(E02, &[]), RUNS);
    assert!(
        (ce - 1.0).abs() < 0.05,
        "PI ce_frac ratio {ce:.3} (throughput ratio {thr:.3})"
    );
    let [_, _, thr, ce, ..] = compare("e03 IPD VQ", &point(E03, &[]), RUNS);
    assert!(
        ce < 0.9,
        "IPD ce_frac ratio {ce:.3} (throughput ratio {thr:.3})"
    );
}

/// The reference's mean of a link metric of the summary table, from
/// [`compare`]'s figures.
fn link_figure(means: &[f64; 7], metric: &str) -> Option<f64> {
    match metric {
        "utilisation" => Some(means[0]),
        "mark_prob" => Some(means[1]),
        "qdelay_mean_s" => Some(means[4]),
        "qdelay_sd_s" => Some(means[5]),
        "qdelay_max_s" => Some(means[6]),
        _ => None,
    }
}

#[test]
fn table2_verdicts_are_the_models() {
    // F2: the files record which of Table 2's values netsim misses (an
    // expectation with a `deviation`). The reference, judged by the same rule
    // as `netsim run` (|mean - value| within the larger of the relative and
    // absolute tolerance), must pass and miss the same ones.
    for (name, text, runs) in [
        ("e10 RED-A", E10_RED_A, RUNS),
        ("e10 RED-C", E10_RED_C, RUNS_RED_C),
        ("e10 VQ", E10_VQ, RUNS),
        ("e10 LB-B", E10_LB_B, RUNS),
    ] {
        let doc = point(text, &[]);
        let means = compare(name, &doc, runs);
        let r = Resolved::parse(&toml::to_string(&doc).unwrap(), "t").unwrap();
        let mut checked = 0;
        for e in &r.scenario.expect {
            let Some(m) = link_figure(&means, &e.metric) else {
                continue;
            };
            assert!(matches!(e.op, ExpectOp::Approx) && e.ref_ci.is_none());
            let allowed =
                (e.tolerance.unwrap_or(0.0) * e.value.abs()).max(e.abs_tolerance.unwrap_or(0.0));
            let pass = (m - e.value).abs() <= allowed;
            assert_eq!(
                pass,
                e.deviation.is_none(),
                "{name} {}: reference {m:.5} against the paper's {} +- {allowed:.5}",
                e.metric,
                e.value
            );
            checked += 1;
        }
        assert_eq!(checked, 4, "{name}: utilisation and the three delays");
    }
}
