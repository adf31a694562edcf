//! Seed 002 E5.3 at packet level (scenarios/papers/zhang/e5-3-fairness-packets.toml)
//! against an independent packet model and the fluid model: the file's
//! header had the packet level's time to 10 %-fairness (21.7 s) 1.4 s over
//! the fluid model's (20.3 s) with "~1.5 s not explained". Where does it go?
//!
//! The fluid model (`fluid_fair_s`): eq. 63-64 with eq. 85's price, each
//! flow's reference the mix phi x(n-1) + (1 - phi) x(n) that the proper
//! reference (eq. 124) measures over a router interval when the new rate
//! reaches the router phi Delta into it; read, as netsim's `rate_avg`, as
//! the time average over each interval, which is that mix itself.
//!
//! The packet model (`packet_model`) shares no code with the engine, the
//! links, the transport or the controllers. Written from spec 2.3-2.4.2 and
//! the file's set-up: two paced sources whose gap after a packet of s bytes
//! is 8 s (1 + u) / x (u uniform on [-j, j], the file's pacing jitter), a
//! rate change re-deriving the pending departure from the last one (the
//! transport's default pacing); 2-ms access links; a router that counts every
//! arriving byte (dropped ones too) per interval of Delta from time 0, prices
//! the interval p = (X - C) / X, and stamps (p, interval count) on each data
//! packet as it arrives; a drop-tail FIFO of B packets (the one in
//! transmission counted) at C; one ACK per packet, echoing the stamp and the
//! packet's byte position, back over the reverse bottleneck's FIFO; the
//! source's law x = r + alpha - beta p r on the first ACK of each new
//! interval, r its own bytes between the first packets of two successive
//! intervals over Delta times their count difference (the current rate
//! when it has no earlier sample), never below min_rate. Its FIFOs are
//! departure-time arithmetic, its random numbers its own. Every value it
//! takes is read from the scenario file (the ACK size, 40 B, is netsim's
//! `tcp.ack_size` default, read from its configuration, which the file does
//! not set). It reads the flows' rates as netsim's `fair_s` does: each
//! 100-ms sample the time average of the rate since the previous one, fair
//! when the smaller is at least (1 - eps) of the larger, `fair_s` the last
//! unfair sample. It also measures what the fluid model needs: phi, the mean
//! delay from an interval's end to the router arrival of the first packet
//! sent at its price, over Delta, and when x1 first changes its rate.
//!
//! Findings (the file's header and zhang README's E5.3 row cite them), 24
//! runs per side:
//! - netsim and the packet model agree (Welch's t at 99.99 %; |t| <= 2.1)
//!   on fair_s at eps 0.5 / 0.2 / 0.1 / 0.05 and on both equilibrium rates:
//!   netsim 8.55 / 16.18 / 21.57 / 26.82 s, the model 8.50 / 16.12 / 21.60 /
//!   26.71 s. The excess is the specified model's, not the engine's.
//! - At eps 0.1 it goes: the fluid model at the header's phi = 0.335
//!   (RTT / Delta), 20.3 s; at the measured phi = 0.356 (the feedback delay
//!   also waits for the interval's first packet and the new rate's first
//!   gap: 35.6 ms, not 33.5), 20.6 s; with x1 held at its start rate for 8
//!   steps, 21.4 s: x1 starts at 1 kb/s, one 100-B packet per 0.8 s, and its
//!   first price comes back with its second packet (first change at 0.83 s);
//!   the remaining 0.2 s (also at eps 0.05; 0.0 and -0.08 s at 0.5 and 0.2)
//!   is the proper reference counting whole packets, 8 kb/s per packet per
//!   interval (1.5 % of x* = 520 kb/s): the rates step between one-packet
//!   cells about the fluid path.
//! - With 10-B packets (the buffer 250 packets, the same 2500 bytes; 4-B
//!   ACKs, since 40-B ACKs for 10-B packets overload the 1-Mb/s reverse link)
//!   both sides agree again and the fluid model (phi 0.341, x1 held one step)
//!   gives every level to within one sample: 7.70 / 15.30 / 20.50 / 25.50 s
//!   against the model's 7.61 / 15.23 / 20.44 / 25.47.

use analysis::fairness::{fair_time, flow_rates, FairnessSpec};
use rayon::prelude::*;
use sim_core::FlowId;
use topology::sweep::set_path;
use topology::Resolved;

#[path = "common/reference.rs"]
mod shared;
use shared::{as_secs, bps, bytes, default_ack_bytes, ps, same_mean, secs, Events, Ps, SplitMix};

const E53: &str = include_str!("../scenarios/papers/zhang/e5-3-fairness-packets.toml");

/// The fairness levels compared (the file's is 0.1).
const EPS: [f64; 4] = [0.5, 0.2, 0.1, 0.05];
/// Replications per side.
const RUNS: u32 = 24;

/// What the packet model needs from the scenario.
#[derive(Clone, Debug)]
struct Params {
    capacity_bps: f64,
    bottleneck_s: f64,
    buffer_pkts: usize,
    delta_s: f64,
    access_bps: f64,
    access_s: f64,
    egress_bps: f64,
    egress_s: f64,
    ack_bytes: f64,
    sample_s: f64,
    warmup_s: f64,
    end_s: f64,
    flows: Vec<Flow>,
}

/// One source.
#[derive(Clone, Debug)]
struct Flow {
    packet_bytes: f64,
    alpha: f64,
    beta: f64,
    init_bps: f64,
    min_bps: f64,
    jitter: f64,
}

/// One run's figures, from either side.
#[derive(Clone, Debug)]
struct Outcome {
    /// fair_s at each of [`EPS`] (`None`: unfair at the end).
    fair_s: [Option<f64>; 4],
    /// Each flow's mean sampled rate over the window [warmup, end), bits/s.
    rate: Vec<f64>,
}

/// What the packet model measures for the fluid model: each flow's first
/// rate change, s, and the mean delay from an interval's end to the router
/// arrival of the first packet sent at its price, over Delta (phi).
struct Probe {
    first_update_s: Vec<f64>,
    phi: f64,
}

fn params(doc: &toml::Table) -> Params {
    let topo = &doc["topology"];
    let (b, access, egress) = (&topo["bottleneck"], &topo["access"], &topo["egress"]);
    let buffer = b["buffer"].as_str().unwrap();
    let run = &doc["run"];
    let flows: Vec<Flow> = doc["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let cc = &f["cc"];
            Flow {
                packet_bytes: bytes(&f["packet_size"]),
                alpha: bps(&cc["alpha"]),
                beta: cc["beta"].as_float().unwrap(),
                init_bps: bps(&cc["init_rate"]),
                min_bps: bps(&cc["min_rate"]),
                jitter: f["tcp"]["pacing_jitter"].as_float().unwrap(),
            }
        })
        .collect();
    let ack_bytes = doc["flows"][0]["tcp"]
        .get("ack_size")
        .map_or_else(default_ack_bytes, bytes);
    Params {
        capacity_bps: bps(&b["capacity"]),
        bottleneck_s: secs(&b["delay"]),
        buffer_pkts: buffer.strip_suffix("pkt").unwrap().parse().unwrap(),
        delta_s: secs(&b["algo"]["interval"]),
        access_bps: bps(&access["capacity"]),
        access_s: secs(&access["delay"]),
        egress_bps: bps(&egress["capacity"]),
        egress_s: secs(&egress["delay"]),
        ack_bytes,
        sample_s: secs(&run["sample_interval"]),
        warmup_s: secs(&run["warmup"]),
        end_s: secs(&run["duration"]),
        flows,
    }
}

#[derive(Clone, Copy)]
enum Kind {
    /// Flow `0` may send; stale unless `1` is its current pacing version.
    Send(usize, u64),
    /// A data packet of flow `0` at byte position `1` reaches the router.
    Arrive(usize, f64),
    /// Its ACK reaches the source, echoing the stamp (interval count, price,
    /// when the priced interval ended).
    Ack(usize, f64, Option<(u64, f64, Ps)>),
    /// The `0`-th rate sample.
    Sample(u64),
}

/// One source's state.
struct Source {
    rate: f64,
    /// Bytes sent so far (the next packet's position).
    sent: f64,
    /// The pending gap's stretch and when its packet left.
    stretch: f64,
    last: Ps,
    version: u64,
    /// The largest interval count heard, and the reference's start.
    heard: Option<u64>,
    start: Option<(u64, f64)>,
    /// The rate's integral since the last sample, and since when.
    integral: f64,
    since: Ps,
    /// The end of the interval whose price set the rate, until the first
    /// packet at that rate leaves.
    priced_end: Option<Ps>,
}

impl Source {
    fn gap(&self, f: &Flow) -> Ps {
        ps(f.packet_bytes * 8.0 * (1.0 + self.stretch) / self.rate)
    }

    fn accrue(&mut self, t: Ps) {
        self.integral += self.rate * as_secs(t - self.since);
        self.since = t;
    }
}

/// The last unfair sample of `samples` (time, per-flow rates), `None` if
/// the last is unfair.
fn last_unfair(samples: &[(f64, Vec<f64>)], eps: f64) -> Option<f64> {
    let fair = |r: &[f64]| {
        let (lo, hi) = r.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
        hi > 0.0 && lo >= (1.0 - eps) * hi
    };
    if !fair(&samples.last()?.1) {
        return None;
    }
    Some(
        samples
            .iter()
            .rev()
            .find(|s| !fair(&s.1))
            .map_or(0.0, |s| s.0),
    )
}

/// One run of the packet model.
fn packet_model(p: &Params, seed: u64) -> (Outcome, Probe) {
    let mut rng = SplitMix(seed);
    let c = p.capacity_bps;
    let (delta, end) = (ps(p.delta_s), ps(p.end_s));
    let mut ev = Events::new();
    let mut src: Vec<Source> = p
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            ev.push(0, Kind::Send(i, 0));
            Source {
                rate: f.init_bps,
                sent: 0.0,
                stretch: 0.0,
                last: 0,
                version: 0,
                heard: None,
                start: None,
                integral: 0.0,
                since: 0,
                priced_end: None,
            }
        })
        .collect();
    ev.push(ps(p.sample_s), Kind::Sample(1));
    // When the first update of each flow came, and the delays from an
    // interval's end to the arrival of the first packet at its price.
    let mut first_update: Vec<Option<Ps>> = vec![None; src.len()];
    let mut feedback: Vec<f64> = Vec::new();
    // Router: the open interval's index and bits, the intervals priced so
    // far and the last price; the FIFO's completion times; the reverse
    // FIFO's last completion.
    let (mut open, mut bits, mut priced, mut price) = (0u64, 0.0f64, 0u64, None::<f64>);
    let mut fifo: std::collections::VecDeque<Ps> = std::collections::VecDeque::new();
    let mut rev_free: Ps = 0;
    let mut samples: Vec<(f64, Vec<f64>)> = Vec::new();
    while let Some((t, kind)) = ev.pop() {
        if t > end {
            break;
        }
        match kind {
            Kind::Send(i, v) => {
                let (f, s) = (&p.flows[i], &mut src[i]);
                if v != s.version {
                    continue;
                }
                let arrive = t + ps(f.packet_bytes * 8.0 / p.access_bps + p.access_s);
                if let Some(e) = s.priced_end.take() {
                    feedback.push(as_secs(arrive - e));
                }
                ev.push(arrive, Kind::Arrive(i, s.sent));
                s.sent += f.packet_bytes;
                s.stretch = f.jitter * (2.0 * rng.unit() - 1.0);
                s.last = t;
                ev.push(t + s.gap(f), Kind::Send(i, v));
            }
            Kind::Arrive(i, pos) => {
                // Close the intervals that ended by now.
                while (open + 1) * delta <= t {
                    if bits > 0.0 {
                        let x = bits / p.delta_s;
                        price = Some((x - c) / x);
                        priced += 1;
                    }
                    bits = 0.0;
                    open += 1;
                }
                let size = p.flows[i].packet_bytes;
                bits += size * 8.0;
                let stamp = price.map(|pr| (priced, pr, open * delta));
                while fifo.front().is_some_and(|&done| done <= t) {
                    fifo.pop_front();
                }
                if fifo.len() >= p.buffer_pkts {
                    continue;
                }
                let done = fifo.back().map_or(t, |&b| b.max(t)) + ps(size * 8.0 / c);
                fifo.push_back(done);
                let at_dest = done + ps(p.bottleneck_s + size * 8.0 / p.egress_bps + p.egress_s);
                let at_r2 = at_dest + ps(p.ack_bytes * 8.0 / p.egress_bps + p.egress_s);
                rev_free = rev_free.max(at_r2) + ps(p.ack_bytes * 8.0 / c);
                let back =
                    rev_free + ps(p.bottleneck_s + p.ack_bytes * 8.0 / p.access_bps + p.access_s);
                ev.push(back, Kind::Ack(i, pos, stamp));
            }
            Kind::Ack(i, pos, stamp) => {
                let Some((seq, pr, ended)) = stamp else {
                    continue;
                };
                let (f, s) = (&p.flows[i], &mut src[i]);
                if s.heard.is_some_and(|h| seq <= h) {
                    continue;
                }
                s.heard = Some(seq);
                let r = match s.start {
                    Some((seq0, pos0)) => (pos - pos0) * 8.0 / (p.delta_s * (seq - seq0) as f64),
                    None => s.rate,
                };
                s.start = Some((seq, pos));
                s.priced_end = Some(ended);
                first_update[i].get_or_insert(t);
                s.accrue(t);
                s.rate = (r + f.alpha - f.beta * pr * r).max(f.min_bps);
                s.version += 1;
                ev.push(t.max(s.last + s.gap(f)), Kind::Send(i, s.version));
            }
            Kind::Sample(k) => {
                let rates = src
                    .iter_mut()
                    .map(|s| {
                        s.accrue(t);
                        std::mem::take(&mut s.integral) / p.sample_s
                    })
                    .collect();
                samples.push((as_secs(t), rates));
                ev.push(ps(p.sample_s * (k + 1) as f64), Kind::Sample(k + 1));
            }
        }
    }
    let window: Vec<&Vec<f64>> = samples
        .iter()
        .filter(|s| s.0 > p.warmup_s)
        .map(|s| &s.1)
        .collect();
    let outcome = Outcome {
        fair_s: EPS.map(|e| last_unfair(&samples, e)),
        rate: (0..p.flows.len())
            .map(|i| window.iter().map(|r| r[i]).sum::<f64>() / window.len() as f64)
            .collect(),
    };
    let probe = Probe {
        first_update_s: first_update.iter().map(|u| as_secs(u.unwrap())).collect(),
        phi: feedback.iter().sum::<f64>() / feedback.len() as f64 / p.delta_s,
    };
    (outcome, probe)
}

/// One netsim run of `doc`'s replication `rep`, read the same way.
fn netsim(doc: &toml::Table, rep: u32) -> Outcome {
    let r = Resolved::parse(&toml::to_string(doc).unwrap(), "t").unwrap();
    let warmup = r.scenario.run.warmup.as_secs_f64();
    let out = r.build(r.scenario.run.seed, rep).unwrap().run();
    let rates = flow_rates(&out);
    let flows: Vec<(FlowId, f64)> = rates.keys().map(|&id| (id, 0.0)).collect();
    assert_eq!(flows.len(), 2);
    Outcome {
        fair_s: EPS.map(|epsilon| {
            fair_time(
                &rates,
                &flows,
                FairnessSpec {
                    epsilon,
                    average_s: 0.0,
                },
            )
        }),
        rate: rates
            .values()
            .map(|s| {
                let w: Vec<f64> = s.iter().filter(|x| x.0 > warmup).map(|x| x.1).collect();
                w.iter().sum::<f64>() / w.len() as f64
            })
            .collect(),
    }
}

/// The packet model's means over its runs.
struct ModelMeans {
    /// fair_s at each of [`EPS`].
    fair_s: [f64; 4],
    /// Each flow's first rate change, s.
    first_update_s: Vec<f64>,
    /// The fluid model's phi.
    phi: f64,
}

/// Both sides' runs of `doc`, compared figure by figure.
fn compare(what: &str, doc: &toml::Table) -> ModelMeans {
    let p = params(doc);
    let (model, probes): (Vec<Outcome>, Vec<Probe>) = (0..RUNS)
        .into_par_iter()
        .map(|k| packet_model(&p, 0xE53_0000 + u64::from(k)))
        .unzip();
    let engine: Vec<Outcome> = (0..RUNS).into_par_iter().map(|k| netsim(doc, k)).collect();
    for i in 0..p.flows.len() {
        let a: Vec<f64> = model.iter().map(|o| o.rate[i]).collect();
        let b: Vec<f64> = engine.iter().map(|o| o.rate[i]).collect();
        same_mean(&format!("{what} x{} rate", i + 1), &a, &b);
    }
    let mut fair_s = [0.0; 4];
    for (k, eps) in EPS.iter().enumerate() {
        let fair = |v: &[Outcome]| -> Vec<f64> {
            v.iter()
                .map(|o| o.fair_s[k].unwrap_or_else(|| panic!("{what}: not {eps}-fair at the end")))
                .collect()
        };
        fair_s[k] = same_mean(
            &format!("{what} fair_s eps {eps}"),
            &fair(&model),
            &fair(&engine),
        );
    }
    let mean = |f: &dyn Fn(&Probe) -> f64| probes.iter().map(f).sum::<f64>() / probes.len() as f64;
    ModelMeans {
        fair_s,
        first_update_s: (0..p.flows.len())
            .map(|i| mean(&|o| o.first_update_s[i]))
            .collect(),
        phi: mean(&|o| o.phi),
    }
}

/// The fluid model's fair_s at each of [`EPS`]: eq. 63-64 with eq. 85's
/// price on the reference phi x(n-1) + (1 - phi) x(n), from the file's start
/// rates, x1 held at its start rate for `hold` steps; read at the steps'
/// ends.
fn fluid_fair_s(p: &Params, phi: f64, hold: usize) -> [f64; 4] {
    let c = p.capacity_bps;
    let steps = (p.end_s / p.delta_s) as usize;
    let mut x: Vec<Vec<f64>> = p.flows.iter().map(|f| vec![f.init_bps]).collect();
    let mut samples = Vec::new();
    for n in 0..steps {
        let r: Vec<f64> = x
            .iter()
            .map(|xi| phi * xi[n.saturating_sub(1)] + (1.0 - phi) * xi[n])
            .collect();
        let s: f64 = r.iter().sum();
        let price = (s - c) / s;
        for (i, f) in p.flows.iter().enumerate() {
            let next = if i == 0 && n < hold {
                x[i][n]
            } else {
                r[i] + f.alpha - f.beta * price * r[i]
            };
            x[i].push(next);
        }
        // Read as netsim's rate_avg: the time average over the interval,
        // which is the reference r itself.
        samples.push(((n + 1) as f64 * p.delta_s, r));
    }
    EPS.map(|e| last_unfair(&samples, e).unwrap())
}

/// `doc` at 10-B packets (the same buffer in bytes, 4-B ACKs, so that the
/// ACKs do not load the reverse link more than at the file's own size).
fn fine(doc: &toml::Table) -> toml::Table {
    let mut d = doc.clone();
    let p = params(doc);
    let factor = p.flows[0].packet_bytes / 10.0;
    for k in 0..p.flows.len() {
        set_path(
            &mut d,
            &format!("flows[{k}].packet_size"),
            toml::Value::from("10B"),
        )
        .unwrap();
        set_path(
            &mut d,
            &format!("flows[{k}].tcp.ack_size"),
            toml::Value::from("4B"),
        )
        .unwrap();
    }
    let buffer = format!("{}pkt", (p.buffer_pkts as f64 * factor).round());
    set_path(
        &mut d,
        "topology.bottleneck.buffer",
        toml::Value::from(buffer),
    )
    .unwrap();
    d
}

/// The fluid model with the packet model's phi and x1 held until its first
/// rate change, at `what`.
fn fluid_for(p: &Params, m: &ModelMeans, what: &str) -> [f64; 4] {
    let hold = (m.first_update_s[0] / p.delta_s).floor() as usize;
    let f = fluid_fair_s(p, m.phi, hold);
    eprintln!(
        "{what}: phi {:.4}, x1's first change at {:.3} s (held {hold} steps); fluid {f:.2?}, packets {:.2?}",
        m.phi, m.first_update_s[0], m.fair_s
    );
    f
}

#[test]
fn e5_3_packet_level_is_the_specified_model_and_its_excess_is_packet_granularity() {
    let doc: toml::Table = E53.parse().unwrap();
    let fine_doc = fine(&doc);
    let (p, p_fine) = (params(&doc), params(&fine_doc));
    let sample = p.sample_s;

    // Both sides agree, at the file's 100-B packets and at 10 B.
    let coarse = compare("100 B", &doc);
    let finer = compare("10 B", &fine_doc);

    // With 10-B packets the fluid model (its phi and x1's start taken from
    // the packet model) gives the packet level's times to within a sample.
    let fluid_fine = fluid_for(&p_fine, &finer, "10 B");
    for k in 0..EPS.len() {
        assert!(
            (finer.fair_s[k] - fluid_fine[k]).abs() <= sample,
            "eps {}: 10-B packets {:.2} s, fluid model {:.2} s",
            EPS[k],
            finer.fair_s[k],
            fluid_fine[k]
        );
    }
    // At 100 B it does too, to within the one-packet-per-interval quantum
    // of the proper reference (measured: at most 0.21 s, at eps 0.1 and
    // 0.05; three samples bound it), and x1's silent start is a real part
    // of the time: without it the fluid model is early by the start's steps
    // less those three samples, or more.
    let fluid = fluid_for(&p, &coarse, "100 B");
    let excess: Vec<f64> = (0..EPS.len())
        .map(|k| coarse.fair_s[k] - fluid[k])
        .collect();
    eprintln!("100 B: excess over the fluid model {excess:.2?}");
    assert!(excess.iter().all(|e| e.abs() <= 3.0 * sample), "{excess:?}");
    let unheld = fluid_fair_s(&p, coarse.phi, 0);
    eprintln!(
        "100 B: fluid without x1's start {unheld:.2?}, at the header's phi 0.335 {:.2?}",
        fluid_fair_s(&p, 0.335, 0)
    );
    let start = (coarse.first_update_s[0] / p.delta_s).floor() * p.delta_s;
    for k in 0..EPS.len() {
        assert!(
            coarse.fair_s[k] - unheld[k] >= start - 3.0 * sample,
            "eps {}: packet level {:.2} s, fluid model without x1's start {:.2} s",
            EPS[k],
            coarse.fair_s[k],
            unheld[k]
        );
    }
}
