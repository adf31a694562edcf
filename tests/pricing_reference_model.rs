//! Zimmermann (2005)'s E1 with SBRM, VQM, CP-TCP/EPF and REM (scenarios/
//! papers/pricing/e1-rate-allocation-{sbrm,vqm,epf,rem}.toml) against an
//! independent reference model: are the misses of Tables 5.4.1, 5.1.1, 4.3.3
//! and 5.2.1 (netsim 99.98 % and 99.3 % on the two core links with SBRM, the
//! thesis 97.9 % and 92.0 %; 81.2 % and 83.0 % with VQM, the thesis 94.1 %
//! and 87.8 %; 95.3 % and 98.0 % with EPF, the thesis 93.4 % and 92.6 %;
//! 94.7 % and 95.1 % with REM, the thesis 94.9 % and 93.2 %) netsim's, or
//! the model's as the spec defines it? And section 5.6.4's E3 with SBRM
//! queues (e3-{tcprm,newreno-ecn}-sbrm[-oneway].toml: TCP/RM's 97 %
//! utilisation two-way against Table 5.6.1's 94 %, NewReno-ECN's 23
//! packets against 30.0)?
//!
//! The reference shares no code with the engine, the links, the transport or
//! the controllers. It is a small event-driven model written from the spec
//! (seed-000-zimmermann.md): section 2.6's SBRM marking, each packet leaving
//! a core queue marked with probability 1 - exp(-gamma [b - b0]^+), gamma =
//! ln(100) / (q_max - b0); section 2.5's VQM marking (a virtual queue at
//! f_scale = 0.9 of the capacity and of q_max; from a virtual overflow until
//! it empties, every packet in the real queue is marked); section 2.3's
//! CP-TCP/EPF (REM's PC3 price every T, summed along the path in the header
//! and echoed; per ACK cwnd += kappa_bar (w RTT / cwnd - p)); section 2.4's
//! REM (PC3, each packet leaving marked with probability 1 - phi^-price)
//! with Vegas/CP (eq. 5.2.7 on ns-2 Vegas's rounds and slow start, the price
//! from the last 50 ACKs' marks; see [`VegasCp`]); section 2.5's source
//! (Key's rule, SBRM's variant 1): per unmarked ACK cwnd += kappa w RTT /
//! cwnd, per marked ACK cwnd -= kappa, a real-valued window of which whole
//! segments are sent; section 2.7's TCP/RM and the NewReno-ECN it is
//! compared with, over RFC 3168's classic echo (ECE from a CE until a CWR,
//! one reduction per round trip; see [`Source`]); section 2.1's start (cwnd 1, ssthresh 32, one segment
//! more per ACK in slow start); E1's double bottleneck (section 4, Fig.
//! 4.3.1, the hosts placed as the file's header says) and E3's single
//! bottleneck (routes the fewest hops over the file's links, each flow
//! starting at a uniform time within its `start_jitter`, data both ways
//! where the file has it, so one queue holds data and the other way's ACKs). The choices the spec
//! leaves open are taken as the scenario file and netsim's documented
//! [INFERRED] rules state them, so that a difference is a difference of
//! behaviour: b is the queue behind the leaving packet (link/sbrm.rs's
//! header), slow start ends on the first mark, whose rule then applies
//! (cc/sbrm.rs), the RTT is RFC 6298's SRTT from a timestamp on every
//! segment, the window has a floor of one segment, links are duplex FIFOs
//! with the file's capacities and delays, one 40-B ACK per segment echoes
//! its CE bit, all flows start at 0. Time is in integer picoseconds; at one
//! instant a transmission's end comes before an arrival, as in the engine.
//! Its coin flips come from its own generator. Values (capacities, delays,
//! buffers, b0, q_max, kappa, w, phi, history, counts, duration) are read
//! from the scenario file.
//!
//! SBRM and REM: both sides run 8 replications; Welch's test at the 99.99 %
//! level compares the core links' utilisation, mean backlog and marking
//! probability and each flow group's mean throughput. Measured
//! (2026-11-28), SBRM: utilisation 0.99979 / 0.99353 (reference) against
//! 0.99980 / 0.99330 (netsim), backlog 19.93 / 20.90 against 19.97 / 20.84
//! packets, marking probability 0.234 / 0.245 on both sides, the nine
//! groups' throughputs within |t| <= 2.7. The comparison sees small model
//! differences: counting the leaving packet in b moves the reference's
//! backlog by one packet (t -29), a gain 5 % high by 0.7 packets (t 20).
//! REM: utilisation 0.9456 / 0.9532 against 0.9468 / 0.9506, backlog 9.05
//! / 7.72 against 8.92 / 8.00 packets, marking 0.181 / 0.191 against 0.180
//! / 0.192, groups within |t| <= 2.0 (|t| <= 2.1 everywhere). A w 5 % high
//! in the reference moves link 1's marking by t 28, a rate estimate from
//! the minimum RTT instead of SRTT its utilisation by t 27; a history of 45
//! packets instead of 50 stays within the test (|t| <= 4.5).
//! VQM has no random draw (the marking is deterministic, all flows start at
//! 0), so each side runs once and every figure must be within a relative
//! tolerance of netsim's: 0.2 % for utilisation, 2 % for backlog, 1 % for the
//! marking probability. The two trajectories part at the first event the
//! two break differently and their 60-s means then differ by 0.02-0.05 %
//! (utilisation), 0.2-0.4 % (backlog) and 0.01-0.2 % (marking) (measured
//! 2026-11-28, before the tolerances were written; a virtual service rate 1 %
//! high moves the reference's utilisation by 1.25 % and fails).
//! EPF is deterministic and slow (its 60-s means move by up to 8 % when the
//! price updates shift by 1 us), so the reference runs at 8 such phases and
//! netsim must lie within 4 standard deviations of their mean: it does
//! within 0.85 (2026-11-28); a 1 % error in PC3's capacity term fails it, a
//! 5 % change of kappa_bar does not (the equilibrium does not depend on the
//! gain, and its transient is within the phase spread).
//! E3 (no drops, no timeouts in either model): 20 replications a side
//! two-way, 8 one-way, Welch's test as above. Measured (2026-11-28),
//! two-way TCP/RM: utilisation 0.9738 / 0.9730 (reference, both
//! directions) against 0.9728 / 0.9720, backlog 22.46 / 22.44 against 22.34
//! / 22.33, marking 0.0161 / 0.0162 against 0.0163 / 0.0163, the six
//! groups within |t| <= 2.1 (the 56-ms path's throughput varies by 30 %
//! between replications on both sides); NewReno-ECN: 0.8788 against 0.8791,
//! 23.06 against 23.10 packets, 0.0469 against 0.0463; one-way TCP/RM
//! 0.9966 against 0.9968, 31.11 against 31.13 packets. It catches TCP/RM's
//! w 10 % high (marking t 8.9) and counting the leaving packet in SBRM's b
//! (backlog t -8.4).
//! Then each test checks that the reference itself misses the thesis's
//! table: the utilisations belong to the model as specified (with the
//! files' [INFERRED] parameters), not to the engine.

use analysis::stats::Summary;
use rayon::prelude::*;
use std::collections::VecDeque;
use topology::Resolved;

#[path = "common/reference.rs"]
mod shared;
use shared::{as_secs, bps, bytes, default_ack_bytes, ps, same_mean, secs, Events, Ps, SplitMix};

const SBRM: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-sbrm.toml");
const VQM: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-vqm.toml");
const EPF: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-epf.toml");
const REM: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-rem.toml");
const E3_TCPRM: &str = include_str!("../scenarios/papers/pricing/e3-tcprm-sbrm.toml");
const E3_NEWRENO: &str = include_str!("../scenarios/papers/pricing/e3-newreno-ecn-sbrm.toml");
const E3_TCPRM_ONEWAY: &str = include_str!("../scenarios/papers/pricing/e3-tcprm-sbrm-oneway.toml");
const E3_NEWRENO_ONEWAY: &str =
    include_str!("../scenarios/papers/pricing/e3-newreno-ecn-sbrm-oneway.toml");

/// What one run measures on the two core links (r1->r2, r2->r3).
#[derive(Clone, Debug, Default)]
struct Outcome {
    utilisation: [f64; 2],
    backlog: [f64; 2],
    mark_prob: [f64; 2],
    /// Each flow group's mean throughput (data received in the run), bits/s.
    rate: Vec<f64>,
}

/// A link of the model: a FIFO and a serializer.
struct Link {
    bps: f64,
    delay: Ps,
    buffer: usize,
    marker: Marker,
    queue: VecDeque<Pkt>,
    busy: bool,
    /// Measurement: bytes that started transmission, packets arrived and
    /// marked, the time-weighted waiting count.
    departed: f64,
    arrived: u64,
    marked: u64,
    area: f64,
    last: Ps,
}

/// What a core link marks with.
#[derive(Clone)]
enum Marker {
    /// No marking (the reverse directions and the access links).
    None,
    /// SBRM (spec 2.6): on leaving, 1 - exp(-gamma [b - b0]^+), b the
    /// packets behind the leaving one.
    Sbrm { gamma: f64, b0: f64 },
    /// VQM (spec 2.5): a fluid virtual queue of `limit` bytes served at
    /// `rate` bytes/s beside the real one; from a virtual overflow until the
    /// virtual queue empties, every packet in the real queue (waiting at the
    /// overflow or arriving in the period) is marked as it leaves. As the
    /// file's link documents its [INFERRED] choices: the virtual queue is
    /// updated at arrivals, its emptying seen at the next arrival (one that
    /// comes at the exact instant is not marked), the overflowing packet is
    /// marked but not added, the packet in transmission at the overflow is
    /// not marked.
    /// REM's PC3 with the price sent in full (EPF, spec 2.3.2-2.3.3): every
    /// `interval`, yhat = (1 - delta) yhat + delta (bytes arrived / packet
    /// size), then price = [price + gamma (alpha (b - b0) + yhat - c)]^+, b
    /// the waiting packets then, c the capacity in packets per interval;
    /// each data packet leaving adds the price to its header (as the file's
    /// link documents: departure stamping, every arriving byte counted).
    /// With `ln_phi` set (REM's 1-bit feedback, spec 2.4), the price is not
    /// written: each data packet leaving is marked CE with probability
    /// 1 - phi^-price instead (the file's `mark_at` default, departure).
    Pc3 {
        gamma: f64,
        alpha: f64,
        b0: f64,
        delta: f64,
        c: f64,
        pkt: f64,
        price: f64,
        yhat: f64,
        bytes_in: f64,
        ln_phi: Option<f64>,
    },
    Vq {
        rate: f64,
        limit: f64,
        vq: f64,
        last: Ps,
        active: bool,
        /// Byte position (cumulative bytes enqueued) up to which packets
        /// are to be marked.
        mark_upto: f64,
        cum: f64,
    },
}

#[derive(Clone, Copy)]
struct Pkt {
    flow: usize,
    ack: bool,
    /// Send time of the data segment (echoed by its ACK).
    ts: Ps,
    /// CE on data; on an ACK, the echo (ECE).
    ce: bool,
    /// CWR on data (classic echo).
    cwr: bool,
    hop: usize,
    bytes: f64,
    /// The byte position of its end in the current link's FIFO.
    pos: f64,
    /// The path price the header has summed (EPF), echoed by the ACK.
    price: f64,
}

struct Flow {
    /// Index of its `[[flows]]` group in the file.
    group: usize,
    /// Data bytes its receiver got before the end.
    rx: f64,
    route: Vec<usize>,
    ack_route: Vec<usize>,
    /// When it starts sending.
    start: Ps,
    w: f64,
    source: Source,
    cwnd: f64,
    ssthresh: f64,
    nxt: u64,
    una: u64,
    srtt: Option<f64>,
    /// RFC 3168's classic echo (TCP/RM, NewReno-ECN): the sender's
    /// `ecn_recover` (a new ECE counts once an ACK passes it) and pending
    /// CWR, and the receiver's ECE state (set by CE, cleared by CWR).
    ecn_recover: u64,
    cwr_pending: bool,
    ece: bool,
}

/// The source algorithm of a flow.
enum Source {
    /// Key's rule (SBRM's source variant 1, VQM's source): gain kappa.
    Key { kappa: f64 },
    /// CP-TCP's direct window update with the explicit price: kappa_bar.
    Direct { kappa_bar: f64 },
    /// Vegas/CP over 1-bit marks.
    Vegas(VegasCp),
    /// TCP/RM (spec 2.7, eqs. 5.6.1-5.6.2): NewReno, but in congestion
    /// avoidance cwnd += kappa RTT w / cwnd per ACK without ECE and cwnd -=
    /// kappa cwnd on the first ECE of a round trip (the classic echo's
    /// reduction point), which also lowers ssthresh with the window (floor
    /// one segment); an ECE in slow start halves as NewReno.
    TcpRm { kappa: f64 },
    /// NewReno with ECN (RFC 5681, RFC 3168): +1 per ACK in slow start, +1
    /// / cwnd per ACK in congestion avoidance, none on an ECE ACK; the
    /// reduction sets ssthresh = max(FlightSize / 2, 2) and cwnd to it.
    NewReno,
}

impl Source {
    /// True if the flow uses RFC 3168's classic echo (ECE until CWR), false
    /// for a per-packet echo (every ACK carries its own segment's CE).
    fn classic(&self) -> bool {
        matches!(self, Source::TcpRm { .. } | Source::NewReno)
    }
}

/// What the ACKs of a Vegas round do to the window.
#[derive(Clone, Copy, PartialEq)]
enum Grow {
    Not,
    /// Slow start: one segment per ACK.
    Slow,
    /// Congestion avoidance: one segment over the round (1 / cwnd per ACK).
    Linear,
}

/// Vegas/CP (spec 2.4, eq. 5.2.7) on ns-2's Vegas, with the conventions
/// cc/vegas.rs and cc/vegas_cp.rs document (their headers, not their code):
/// a round ends on the first ACK above the data sent when it began; its RTT
/// is the mean of its samples; BaseRTT the least sample (or the round's RTT
/// when it sent at most one segment); Diff = (window / BaseRTT - sent /
/// RTT) BaseRTT with the window the data in flight at that ACK, rounded to
/// the nearest segment; slow start grows one segment per ACK in every other
/// round and ends, cutting 1/8, when Diff > gamma = 1; then once per round
/// the charge p_hat cwnd / SRTT is compared with w: below, one segment over
/// the next round (1 / cwnd per ACK); above, one segment off at once (floor
/// one segment); growth only while at most 2 segments of the window are
/// unused. p_hat = -log_phi(1 - m_hat) over the last `history` ACKs' CE
/// echoes, m_hat = 1 read as (n - 1/2) / n.
struct VegasCp {
    w: f64,
    ln_phi: f64,
    history: usize,
    marks: VecDeque<bool>,
    marked: usize,
    slow_start: bool,
    base: Option<f64>,
    rtt_sum: f64,
    rtt_cnt: u32,
    round_mark: u64,
    grow: Grow,
    inc_flag: bool,
}

impl VegasCp {
    fn price(&self) -> f64 {
        let n = self.marks.len();
        if n == 0 || self.marked == 0 {
            return 0.0;
        }
        let m = (self.marked as f64 / n as f64).min(1.0 - 0.5 / n as f64);
        -(1.0 - m).ln() / self.ln_phi
    }
}

enum Ev {
    /// A transmission on the link ends (ordered before arrivals).
    TxDone(usize, Pkt),
    /// A packet reaches the far end of the link it crossed (its route's
    /// hop `p.hop`).
    Arrive(Pkt),
    /// A PC3 link's periodic price update.
    Tick(usize),
    /// A flow starts (one that does not start at 0).
    Start(usize),
}

/// Times double so that a transmission's end sorts before an arrival at the
/// same instant.
fn key(t: Ps, done: bool) -> Ps {
    2 * t + u64::from(!done)
}

struct Model {
    links: Vec<Link>,
    flows: Vec<Flow>,
    ev: Events<Ev>,
    /// PC3's update interval, and the first update's offset from it.
    tick: Ps,
    phase: Ps,
    rng: SplitMix,
    mss: f64,
    ack_bytes: f64,
    end: Ps,
    dropped: u64,
    /// The two links measured (indices).
    measure: [usize; 2],
}

impl Model {
    fn note(&mut self, l: usize, now: Ps) {
        let k = &mut self.links[l];
        let t = now.min(self.end);
        if t > k.last {
            k.area += k.queue.len() as f64 * (t - k.last) as f64;
            k.last = t;
        }
    }

    fn start_tx(&mut self, l: usize, mut p: Pkt, now: Ps) {
        let behind = self.links[l].queue.len() as f64;
        let k = &mut self.links[l];
        k.busy = true;
        if now < self.end {
            k.departed += p.bytes;
        }
        let mark = !p.ack
            && match k.marker {
                Marker::None => false,
                Marker::Sbrm { gamma, b0 } => {
                    behind > b0 && self.rng.unit() < 1.0 - (-gamma * (behind - b0)).exp()
                }
                Marker::Vq { mark_upto, .. } => p.pos <= mark_upto,
                Marker::Pc3 {
                    price,
                    ln_phi: Some(ln_phi),
                    ..
                } => self.rng.unit() < 1.0 - (-ln_phi * price).exp(),
                Marker::Pc3 { price, .. } => {
                    p.price += price;
                    false
                }
            };
        if mark {
            p.ce = true;
            if now < self.end {
                k.marked += 1;
            }
        }
        let t = now + ps(p.bytes * 8.0 / k.bps);
        self.ev.push(key(t, true), Ev::TxDone(l, p));
    }

    fn arrive(&mut self, l: usize, mut p: Pkt, now: Ps) {
        self.note(l, now);
        if now < self.end {
            self.links[l].arrived += 1;
        }
        let k = &mut self.links[l];
        let drop = k.busy && k.queue.len() >= k.buffer;
        if let Marker::Pc3 { bytes_in, .. } = &mut k.marker {
            *bytes_in += p.bytes;
        }
        if let Marker::Vq {
            rate,
            limit,
            vq,
            last,
            active,
            mark_upto,
            cum,
        } = &mut k.marker
        {
            let drained = *rate * as_secs(now - *last);
            *last = now;
            if drained >= *vq {
                *active = false;
            }
            *vq = (*vq - drained).max(0.0);
            if *vq + p.bytes > *limit {
                *active = true;
            } else {
                *vq += p.bytes;
            }
            if !drop {
                *cum += p.bytes;
                p.pos = *cum;
                if *active {
                    *mark_upto = *cum;
                }
            }
        }
        if drop {
            self.dropped += 1;
        } else if !self.links[l].busy {
            self.start_tx(l, p, now);
        } else {
            self.links[l].queue.push_back(p);
        }
    }

    fn send(&mut self, f: usize, now: Ps) {
        loop {
            let fl = &self.flows[f];
            let window = (fl.cwnd * self.mss).floor();
            if ((fl.nxt - fl.una + 1) as f64) * self.mss > window {
                return;
            }
            let first = fl.route[0];
            let cwr = fl.cwr_pending;
            self.flows[f].cwr_pending = false;
            self.flows[f].nxt += 1;
            let p = Pkt {
                flow: f,
                ack: false,
                ts: now,
                ce: false,
                cwr,
                hop: 0,
                bytes: self.mss,
                pos: 0.0,
                price: 0.0,
            };
            self.arrive(first, p, now);
        }
    }

    fn on_ack(&mut self, p: Pkt, now: Ps) {
        let fl = &mut self.flows[p.flow];
        let in_flight = fl.nxt - fl.una;
        fl.una += 1;
        let r = as_secs(now - p.ts);
        fl.srtt = Some(match fl.srtt {
            None => r,
            Some(s) => 0.875 * s + 0.125 * r,
        });
        let rtt = fl.srtt.unwrap();
        if let Source::Vegas(v) = &mut fl.source {
            // The price estimate takes this ACK's echo first.
            v.marks.push_back(p.ce);
            v.marked += usize::from(p.ce);
            if v.marks.len() > v.history {
                v.marked -= usize::from(v.marks.pop_front().unwrap());
            }
            v.rtt_sum += r;
            v.rtt_cnt += 1;
            if r > 0.0 && v.base.is_none_or(|b| r < b) {
                v.base = Some(r);
            }
            if fl.una > v.round_mark {
                let round_rtt = v.rtt_sum / f64::from(v.rtt_cnt);
                let sent = (fl.nxt - v.round_mark) as f64;
                if sent <= 1.0 || v.base.is_none_or(|b| round_rtt < b) {
                    v.base = Some(round_rtt);
                }
                let base = v.base.unwrap();
                let diff = ((in_flight as f64 / base - sent / round_rtt) * base + 0.5).floor();
                if v.slow_start {
                    v.inc_flag = !v.inc_flag;
                    if !v.inc_flag {
                        v.grow = Grow::Not;
                    } else if diff > 1.0 {
                        v.slow_start = false;
                        fl.cwnd = (fl.cwnd - fl.cwnd / 8.0).max(1.0);
                        v.grow = Grow::Not;
                    } else {
                        v.grow = Grow::Slow;
                    }
                } else {
                    let charge = v.price() * fl.cwnd / rtt;
                    v.grow = if charge < v.w {
                        Grow::Linear
                    } else {
                        if charge > v.w {
                            fl.cwnd = (fl.cwnd - 1.0).max(1.0);
                        }
                        Grow::Not
                    };
                }
                v.round_mark = fl.nxt;
                v.rtt_sum = 0.0;
                v.rtt_cnt = 0;
            }
            let unused = fl.cwnd - (fl.nxt - fl.una) as f64;
            if unused <= 2.0 {
                match v.grow {
                    Grow::Not => {}
                    Grow::Slow => fl.cwnd += 1.0,
                    Grow::Linear => fl.cwnd += 1.0 / fl.cwnd,
                }
            }
            self.send(p.flow, now);
            return;
        }
        let classic = match fl.source {
            Source::TcpRm { kappa } => Some(Some(kappa)),
            Source::NewReno => Some(None),
            _ => None,
        };
        if let Some(rm) = classic {
            // Byte-exact ssthresh after TCP/RM's moves (the window's bytes).
            let floor_bytes = |c: f64| (c * 1000.0).floor() / 1000.0;
            if !p.ce {
                if fl.cwnd < fl.ssthresh {
                    fl.cwnd += 1.0;
                } else if let Some(kappa) = rm {
                    fl.cwnd = (fl.cwnd + kappa * rtt * fl.w / fl.cwnd).max(1.0);
                    fl.ssthresh = fl.ssthresh.min(floor_bytes(fl.cwnd));
                } else {
                    fl.cwnd += 1.0 / fl.cwnd;
                }
            } else if fl.una > fl.ecn_recover {
                match rm {
                    Some(kappa) if fl.cwnd >= fl.ssthresh => {
                        fl.cwnd = (fl.cwnd - kappa * fl.cwnd).max(1.0);
                        fl.ssthresh = fl.ssthresh.min(floor_bytes(fl.cwnd));
                    }
                    _ => {
                        fl.ssthresh = (in_flight as f64 / 2.0).max(2.0);
                        fl.cwnd = fl.ssthresh;
                    }
                }
                fl.ecn_recover = fl.nxt;
                fl.cwr_pending = true;
            }
            self.send(p.flow, now);
            return;
        }
        let delta = match fl.source {
            Source::Direct { kappa_bar } => kappa_bar * (fl.w * rtt / fl.cwnd - p.price),
            Source::Key { kappa } if p.ce => -kappa,
            Source::Key { kappa } => kappa * fl.w * rtt / fl.cwnd,
            _ => unreachable!(),
        };
        if fl.cwnd < fl.ssthresh && delta >= 0.0 {
            fl.cwnd += 1.0;
        } else {
            if fl.cwnd < fl.ssthresh {
                // The first ACK whose rule would shrink the window ends slow
                // start at the current window, and its rule applies.
                fl.ssthresh = fl.cwnd.floor();
            }
            fl.cwnd = (fl.cwnd + delta).max(1.0);
            if delta < 0.0 {
                fl.ssthresh = fl.ssthresh.min(fl.cwnd.floor());
            }
        }
        self.send(p.flow, now);
    }

    fn run(mut self) -> (Outcome, u64) {
        for l in 0..self.links.len() {
            if matches!(self.links[l].marker, Marker::Pc3 { .. }) {
                self.ev.push(key(self.tick + self.phase, true), Ev::Tick(l));
            }
        }
        for f in 0..self.flows.len() {
            match self.flows[f].start {
                0 => self.send(f, 0),
                t => self.ev.push(key(t, false), Ev::Start(f)),
            }
        }
        while let Some((k, e)) = self.ev.pop() {
            let now = k / 2;
            if now >= self.end {
                break;
            }
            match e {
                Ev::Start(f) => self.send(f, now),
                Ev::Tick(l) => {
                    let waiting = self.links[l].queue.len() as f64;
                    if let Marker::Pc3 {
                        gamma,
                        alpha,
                        b0,
                        delta,
                        c,
                        pkt,
                        price,
                        yhat,
                        bytes_in,
                        ..
                    } = &mut self.links[l].marker
                    {
                        *yhat = (1.0 - *delta) * *yhat + *delta * (*bytes_in / *pkt);
                        *bytes_in = 0.0;
                        *price =
                            (*price + *gamma * (*alpha * (waiting - *b0) + *yhat - *c)).max(0.0);
                    }
                    self.ev.push(key(now + self.tick, true), Ev::Tick(l));
                }
                Ev::TxDone(l, p) => {
                    self.note(l, now);
                    self.links[l].busy = false;
                    let delay = self.links[l].delay;
                    self.ev.push(key(now + delay, false), Ev::Arrive(p));
                    if let Some(q) = self.links[l].queue.pop_front() {
                        self.start_tx(l, q, now);
                    }
                }
                Ev::Arrive(mut p) => {
                    let route = if p.ack {
                        &self.flows[p.flow].ack_route
                    } else {
                        &self.flows[p.flow].route
                    };
                    if p.hop + 1 < route.len() {
                        p.hop += 1;
                        let next = route[p.hop];
                        self.arrive(next, p, now);
                    } else if p.ack {
                        self.on_ack(p, now);
                    } else {
                        self.flows[p.flow].rx += p.bytes;
                        let first = self.flows[p.flow].ack_route[0];
                        let fl = &mut self.flows[p.flow];
                        let ce = if fl.source.classic() {
                            // RFC 3168 section 6.1.3: CWR before CE.
                            if p.cwr {
                                fl.ece = false;
                            }
                            fl.ece |= p.ce;
                            fl.ece
                        } else {
                            p.ce
                        };
                        let a = Pkt {
                            flow: p.flow,
                            ack: true,
                            ts: p.ts,
                            ce,
                            cwr: false,
                            hop: 0,
                            bytes: self.ack_bytes,
                            pos: 0.0,
                            price: p.price,
                        };
                        self.arrive(first, a, now);
                    }
                }
            }
        }
        for l in 0..self.links.len() {
            let end = self.end;
            self.note(l, end);
        }
        let secs = as_secs(self.end);
        let mut o = Outcome::default();
        for (i, l) in self.measure.into_iter().enumerate() {
            let k = &self.links[l];
            o.utilisation[i] = k.departed * 8.0 / (k.bps * secs);
            o.backlog[i] = k.area / self.end as f64;
            o.mark_prob[i] = k.marked as f64 / k.arrived as f64;
        }
        o.rate = group_means(self.flows.iter().map(|f| (f.group, f.rx * 8.0 / secs)));
        (o, self.dropped)
    }
}

/// The two links a file's test measures, by name: E1's core links (r1->r2
/// and r2->r3), or a single bottleneck's two directions (E3: r1->r2 and
/// r2->r1).
fn measured(doc: &toml::Table) -> [String; 2] {
    let links = doc["links"].as_array().unwrap();
    let has = |a: &str, b: &str| {
        links
            .iter()
            .any(|l| l["from"].as_str() == Some(a) && l["to"].as_str() == Some(b))
    };
    assert!(has("r1", "r2"));
    let second = if has("r2", "r3") { "r2->r3" } else { "r2->r1" };
    ["r1->r2".to_string(), second.to_string()]
}

/// The reference model of `doc` with seed `seed`.
fn reference(doc: &toml::Table, seed: u64) -> Outcome {
    reference_at(doc, seed, 0)
}

/// The reference model of `doc` with seed `seed`, its PC3 updates (if any)
/// `phase` later than every interval's end.
fn reference_at(doc: &toml::Table, seed: u64, phase: Ps) -> Outcome {
    let links = doc["links"].as_array().unwrap();
    let n = links.len();
    // Link i < n is the file's links[i] (from -> to), link n + i its reverse.
    let ends = |i: usize| -> (&str, &str) {
        let l = &links[i % n];
        let (a, b) = (l["from"].as_str().unwrap(), l["to"].as_str().unwrap());
        if i < n {
            (a, b)
        } else {
            (b, a)
        }
    };
    let idx = |from: &str, to: &str| -> usize {
        (0..2 * n)
            .find(|&i| ends(i) == (from, to))
            .unwrap_or_else(|| panic!("no link {from}->{to}"))
    };
    // Each direction's algorithm: the link's `algo` (none: drop-tail), the
    // reverse direction's `reverse.algo` if given, else the same as the
    // forward one (as the scenario language documents).
    let algo_of = |i: usize| -> Option<&toml::Table> {
        let l = &links[i % n];
        let fwd = l.get("algo").and_then(|a| a.as_table());
        if i < n {
            fwd
        } else {
            match l.get("reverse") {
                Some(r) => r.get("algo").and_then(|a| a.as_table()),
                None => fwd,
            }
        }
    };
    let mut tick = 0;
    for i in 0..2 * n {
        if let Some(a) = algo_of(i).filter(|a| a["kind"].as_str() == Some("rem")) {
            let t = ps(secs(&a["interval"]));
            assert!(tick == 0 || tick == t, "one PC3 interval");
            tick = t;
        }
    }
    let marker = |algo: &toml::Table, capacity_bps: f64| -> Marker {
        match algo["kind"].as_str() {
            Some("drop_tail") => Marker::None,
            Some("rem") => {
                assert_eq!(algo["price_rule"].as_str(), Some("pc3"));
                assert!(algo.get("mark_at").is_none(), "marks on departure");
                let ln_phi = match algo["feedback"].as_str() {
                    Some("explicit") => None,
                    Some("ecn") => Some(algo["phi"].as_float().unwrap().ln()),
                    other => panic!("unexpected REM feedback {other:?}"),
                };
                let pkt = bytes(&algo["mean_pkt_size"]);
                Marker::Pc3 {
                    gamma: algo["gamma"].as_float().unwrap(),
                    alpha: algo["alpha"].as_float().unwrap(),
                    b0: algo["b0"].as_float().unwrap(),
                    delta: algo["delta"].as_float().unwrap(),
                    c: capacity_bps * secs(&algo["interval"]) / (8.0 * pkt),
                    pkt,
                    price: 0.0,
                    yhat: 0.0,
                    bytes_in: 0.0,
                    ln_phi,
                }
            }
            Some("sbrm") => {
                for k in algo.keys() {
                    assert!(
                        ["kind", "b0", "q_max"].contains(&k.as_str()),
                        "the reference has SBRM's defaults only, not {k}"
                    );
                }
                let b0 = algo["b0"].as_float().unwrap();
                let q_max = algo["q_max"].as_float().unwrap();
                Marker::Sbrm {
                    gamma: 100f64.ln() / (q_max - b0),
                    b0,
                }
            }
            Some("virtual_queue") => {
                assert_eq!(algo["variant"].as_str(), Some("real_queue"));
                let theta = algo["theta"].as_float().unwrap();
                let pkts: f64 = algo["buffer"]
                    .as_str()
                    .unwrap()
                    .trim_end_matches("pkt")
                    .parse()
                    .unwrap();
                Marker::Vq {
                    rate: theta * capacity_bps / 8.0,
                    limit: theta * pkts * bytes(&algo["pkt_size"]),
                    vq: 0.0,
                    last: 0,
                    active: false,
                    mark_upto: 0.0,
                    cum: 0.0,
                }
            }
            other => panic!("unexpected core algo {other:?}"),
        }
    };
    let model_links: Vec<Link> = (0..2 * n)
        .map(|i| {
            let l = &links[i % n];
            let capacity = bps(&l["capacity"]);
            Link {
                bps: capacity,
                delay: ps(secs(&l["delay"])),
                buffer: l["buffer"]
                    .as_str()
                    .unwrap()
                    .trim_end_matches("pkt")
                    .parse()
                    .unwrap(),
                marker: algo_of(i).map_or(Marker::None, |a| marker(a, capacity)),
                queue: VecDeque::new(),
                busy: false,
                departed: 0.0,
                arrived: 0,
                marked: 0,
                area: 0.0,
                last: 0,
            }
        })
        .collect();
    // A flow's route: the fewest hops from its host to the other over the
    // file's links (breadth-first; the topologies here are trees).
    let route = |from: &str, to: &str| -> Vec<usize> {
        let mut via: Vec<(String, Option<usize>)> = vec![(from.to_string(), None)];
        let mut k = 0;
        while via[k].0 != to {
            let here = via[k].0.clone();
            for i in 0..2 * n {
                let (a, b) = ends(i);
                if a == here && !via.iter().any(|(v, _)| v == b) {
                    via.push((b.to_string(), Some(k)));
                }
            }
            k += 1;
            assert!(k < via.len(), "no route {from} -> {to}");
        }
        let mut hops = Vec::new();
        while let Some(parent) = via[k].1 {
            hops.push(idx(&via[parent].0, &via[k].0));
            k = parent;
        }
        hops.reverse();
        hops
    };
    let mut starts = SplitMix(seed ^ 0x5747_4152_5453);
    let mut flows = Vec::new();
    let groups = doc["flows"].as_array().unwrap();
    let mss = bytes(&groups[0]["packet_size"]);
    for (gi, g) in groups.iter().enumerate() {
        assert_eq!(bytes(&g["packet_size"]), mss, "one packet size");
        let (from, to) = (g["from"].as_str().unwrap(), g["to"].as_str().unwrap());
        let jitter = g.get("start_jitter").map_or(0.0, secs);
        let cc = g["cc"].as_table().unwrap();
        let only = |keys: &[&str]| {
            for k in cc.keys() {
                assert!(
                    keys.contains(&k.as_str()),
                    "the reference has this source's defaults only, not {k}"
                );
            }
        };
        if let Some(tcp) = g.get("tcp").and_then(|t| t.as_table()) {
            assert!(
                tcp.keys().all(|k| k == "ecn"),
                "the reference's transport has no other keys"
            );
        }
        let ecn = g
            .get("tcp")
            .and_then(|t| t.get("ecn"))
            .and_then(|e| e.as_bool())
            == Some(true);
        let make = || -> Source {
            match cc["kind"].as_str() {
                Some("vegas_cp") => {
                    only(&["kind", "w", "feedback", "phi", "history"]);
                    assert_eq!(cc["feedback"].as_str(), Some("one_bit"));
                    Source::Vegas(VegasCp {
                        w: cc["w"].as_float().unwrap(),
                        ln_phi: cc["phi"].as_float().unwrap().ln(),
                        history: cc["history"].as_integer().unwrap() as usize,
                        marks: VecDeque::new(),
                        marked: 0,
                        slow_start: true,
                        base: None,
                        rtt_sum: 0.0,
                        rtt_cnt: 0,
                        round_mark: 0,
                        grow: Grow::Not,
                        inc_flag: true,
                    })
                }
                Some("sbrm") => {
                    assert_eq!(cc["variant"].as_str(), Some("key"));
                    Source::Key {
                        kappa: cc["kappa"].as_float().unwrap(),
                    }
                }
                Some("cp_tcp") => {
                    assert_eq!(cc["feedback"].as_str(), Some("explicit"));
                    assert!(cc.get("max_step").is_none() && cc.get("slow_start").is_none());
                    Source::Direct {
                        kappa_bar: cc["kappa_bar"].as_float().unwrap(),
                    }
                }
                Some("tcp_rm") => {
                    only(&["kind", "kappa", "w"]);
                    assert!(ecn, "TCP/RM reacts to ECN");
                    Source::TcpRm {
                        kappa: cc["kappa"].as_float().unwrap(),
                    }
                }
                Some("new_reno") => {
                    only(&["kind", "initial_window", "initial_ssthresh"]);
                    assert_eq!(cc["initial_window"].as_integer(), Some(1));
                    assert_eq!(cc["initial_ssthresh"].as_integer(), Some(32));
                    assert!(ecn, "NewReno-ECN");
                    Source::NewReno
                }
                other => panic!("unexpected source {other:?}"),
            }
        };
        for _ in 0..g["count"].as_integer().unwrap() {
            flows.push(Flow {
                group: gi,
                rx: 0.0,
                route: route(from, to),
                ack_route: route(to, from),
                start: ps(jitter * starts.unit()),
                w: cc.get("w").and_then(|w| w.as_float()).unwrap_or(0.0),
                source: make(),
                cwnd: 1.0,
                ssthresh: 32.0,
                nxt: 0,
                una: 0,
                srtt: None,
                ecn_recover: 0,
                cwr_pending: false,
                ece: false,
            });
        }
    }
    let measure = measured(doc).map(|name| {
        let (a, b) = name.split_once("->").unwrap();
        idx(a, b)
    });
    let m = Model {
        links: model_links,
        flows,
        ev: Events::new(),
        tick,
        phase,
        rng: SplitMix(seed),
        mss,
        ack_bytes: default_ack_bytes(),
        end: ps(secs(&doc["run"]["duration"])),
        dropped: 0,
        measure,
    };
    let (o, dropped) = m.run();
    assert_eq!(dropped, 0, "the reference drops nothing");
    o
}

/// One netsim run of `file`, replication `rep`.
fn netsim(file: &str, rep: u32) -> Outcome {
    let r = Resolved::parse(file, "pricing").unwrap();
    let out = r.build(r.scenario.run.seed, rep).unwrap().run();
    let mut o = Outcome::default();
    let doc: toml::Table = file.parse().unwrap();
    for (i, n) in measured(&doc).iter().enumerate() {
        let l = out.links.iter().find(|l| &l.name == n).unwrap();
        o.utilisation[i] = l.utilisation();
        o.backlog[i] = l.backlog_mean_pkts();
        o.mark_prob[i] = l.mark_prob();
    }
    o.rate = group_means(
        out.flows
            .iter()
            .map(|f| (f.group.index(), f.throughput_bps().unwrap())),
    );
    o
}

/// The mean of each group's values, groups in index order.
fn group_means(per_flow: impl Iterator<Item = (usize, f64)>) -> Vec<f64> {
    let mut sums: Vec<(f64, f64)> = Vec::new();
    for (g, x) in per_flow {
        if sums.len() <= g {
            sums.resize(g + 1, (0.0, 0.0));
        }
        sums[g].0 += x;
        sums[g].1 += 1.0;
    }
    sums.into_iter().map(|(s, n)| s / n).collect()
}

/// Both sides' `runs` runs of `file`, compared (Welch's test on each
/// measured link's utilisation, backlog and marking probability and on each
/// flow group's throughput); returns the reference's means.
fn compare(file: &str, runs: u32) -> Outcome {
    let doc: toml::Table = file.parse().unwrap();
    let reference: Vec<Outcome> = (0..runs)
        .into_par_iter()
        .map(|k| reference(&doc, 0x5B_0000 + u64::from(k)))
        .collect();
    let engine: Vec<Outcome> = (0..runs).into_par_iter().map(|k| netsim(file, k)).collect();
    let names: Vec<&str> = doc["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    let mut means = Outcome::default();
    for (g, name) in names.iter().enumerate() {
        means.rate.push(same_mean(
            &format!("{name} throughput"),
            &reference.iter().map(|o| o.rate[g]).collect::<Vec<_>>(),
            &engine.iter().map(|o| o.rate[g]).collect::<Vec<_>>(),
        ));
    }
    for (i, link) in measured(&doc).iter().enumerate() {
        let col = |v: &[Outcome], f: fn(&Outcome, usize) -> f64| -> Vec<f64> {
            v.iter().map(|o| f(o, i)).collect()
        };
        means.utilisation[i] = same_mean(
            &format!("{link} utilisation"),
            &col(&reference, |o, i| o.utilisation[i]),
            &col(&engine, |o, i| o.utilisation[i]),
        );
        means.backlog[i] = same_mean(
            &format!("{link} backlog"),
            &col(&reference, |o, i| o.backlog[i]),
            &col(&engine, |o, i| o.backlog[i]),
        );
        means.mark_prob[i] = same_mean(
            &format!("{link} mark_prob"),
            &col(&reference, |o, i| o.mark_prob[i]),
            &col(&engine, |o, i| o.mark_prob[i]),
        );
    }
    means
}

#[test]
fn e1_sbrm_utilisation_is_the_models_and_misses_table_5_4_1() {
    let u = compare(SBRM, 8).utilisation;
    // Table 5.4.1: 97.9 % and 92.0 %; the file's checks allow 1 point. The
    // model as specified keeps both links busier than that.
    assert!(u[0] > 0.979 + 0.01, "reference link 1 {}", u[0]);
    assert!(u[1] > 0.920 + 0.01, "reference link 2 {}", u[1]);
}

/// A deterministic file (no random marking, all flows start at 0): one run
/// on each side, every figure within `tol` (relative) of netsim's. Returns
/// the reference's utilisations.
fn compare_one(file: &str, tol: [f64; 3]) -> [f64; 2] {
    let doc: toml::Table = file.parse().unwrap();
    let (a, b) = (reference(&doc, 0x5B_0000), netsim(file, 0));
    for (i, link) in measured(&doc).iter().enumerate() {
        for (what, x, y, t) in [
            ("utilisation", a.utilisation[i], b.utilisation[i], tol[0]),
            ("backlog", a.backlog[i], b.backlog[i], tol[1]),
            ("mark_prob", a.mark_prob[i], b.mark_prob[i], tol[2]),
        ] {
            eprintln!(
                "{link} {what}: reference {x:.5}, netsim {y:.5}, ratio {:.4}",
                x / y
            );
            assert!(
                (x / y - 1.0).abs() <= t,
                "{link} {what}: reference {x} vs netsim {y}"
            );
        }
    }
    a.utilisation
}

#[test]
fn e1_epf_utilisation_is_the_models_and_misses_table_4_3_3() {
    // CP-TCP/EPF is deterministic too, and slow (kappa_bar 0.01: time
    // constants of 5-10 s), so its 60-s means depend on the phase of the
    // trajectory: moving the reference's price updates by 1 us moves link
    // 2's mean backlog by 8 % and its utilisation by 0.25 %. The reference
    // runs with its updates 0, 1, ..., 7 us after each interval's end, and
    // netsim's one run must lie within 4 standard deviations of that
    // ensemble's mean (for utilisation at least 0.25 % of it, the move a
    // 1-us shift gave, should the ensemble come out tighter).
    let doc: toml::Table = EPF.parse().unwrap();
    let refs: Vec<Outcome> = (0..8u64)
        .into_par_iter()
        .map(|k| reference_at(&doc, 0x5B_0000, k * ps(1e-6)))
        .collect();
    let n = netsim(EPF, 0);
    let mut u = [0.0; 2];
    for (i, link) in measured(&doc).iter().enumerate() {
        for (what, f, floor) in [
            (
                "utilisation",
                (|o: &Outcome, i: usize| o.utilisation[i]) as fn(&Outcome, usize) -> f64,
                0.0025,
            ),
            ("backlog", |o: &Outcome, i: usize| o.backlog[i], 0.0),
        ] {
            let xs: Vec<f64> = refs.iter().map(|o| f(o, i)).collect();
            let Summary { mean: m, sd, .. } = Summary::new(&xs);
            let y = f(&n, i);
            eprintln!("{link} {what}: reference {m:.5} (sd {sd:.5} over 8 phases), netsim {y:.5}");
            assert!(
                (y - m).abs() <= (4.0 * sd).max(floor * m),
                "{link} {what}: netsim {y} vs reference {m} +- {sd}"
            );
            if what == "utilisation" {
                u[i] = m;
            }
        }
    }
    // Table 4.3.3: 93.4 % and 92.6 %; the file's checks allow 1 point. The
    // model as specified keeps both links busier than that.
    assert!(u[0] > 0.934 + 0.01, "reference link 1 {}", u[0]);
    assert!(u[1] > 0.926 + 0.01, "reference link 2 {}", u[1]);
}

#[test]
fn e1_vqm_utilisation_is_the_models_and_misses_table_5_1_1() {
    let u = compare_one(VQM, [0.002, 0.02, 0.01]);
    // Table 5.1.1: 94.1 % and 87.8 %; the file's checks allow 1 point. The
    // model as specified leaves link 1 idler than that.
    assert!(u[0] < 0.941 - 0.01, "reference link 1 {}", u[0]);
}

#[test]
fn e1_rem_utilisation_is_the_models_and_misses_table_5_2_1() {
    let Outcome {
        utilisation: u,
        rate: rates,
        ..
    } = compare(REM, 8);
    // Table 5.2.1: 94.9 % and 93.2 %; the file's checks allow 1 point.
    // Link 1 is within it; the model as specified keeps link 2 busier.
    assert!((u[0] - 0.949).abs() <= 0.01, "reference link 1 {}", u[0]);
    assert!(u[1] > 0.932 + 0.01, "reference link 2 {}", u[1]);
    // Section 5.2.2: the w = 1 flows on path I get "slightly more" than
    // their weighted proportionally fair rate (cwnd between 1 and 2). With
    // each path's weights summing to the same total (4 x (1 + 2 + 4)), that
    // optimum gives path III c / 3 and paths I and II 2c / 3 each, split in
    // proportion to w: 2/3 x 96 Mb/s / 28 = 2.29 Mb/s for I-w100. The model
    // as specified gives it less, as netsim does (2.13 Mb/s, 0.93 of it,
    // measured 2026-11-28: about 267 packets/s over a 6.9-ms round trip, a
    // window of 1.8 segments, between 1 and 2 as the thesis says).
    let doc: toml::Table = REM.parse().unwrap();
    let groups = doc["flows"].as_array().unwrap();
    let path_w = |from: &str| -> f64 {
        groups
            .iter()
            .filter(|g| g["from"].as_str() == Some(from))
            .map(|g| g["count"].as_integer().unwrap() as f64 * g["cc"]["w"].as_float().unwrap())
            .sum()
    };
    let total = path_w("s1");
    assert_eq!((path_w("s4"), path_w("s5")), (total, total));
    let c = bps(&doc["links"][0]["capacity"]);
    assert_eq!(groups[0]["name"].as_str(), Some("I-w100"));
    let optimum = 2.0 / 3.0 * c * groups[0]["cc"]["w"].as_float().unwrap() / total;
    assert!(
        rates[0] < optimum,
        "reference I-w100 {} vs optimum {optimum}",
        rates[0]
    );
}

#[test]
fn e3_tcprm_sbrm_two_way_utilisation_is_the_models_and_misses_table_5_6_1() {
    // 20 replications a side: the per-path throughputs vary widely between
    // replications (the deterministic ACK clocks lock in phase, README
    // "E3"), and 8 left the comparison weak there.
    let u = compare(E3_TCPRM, 20).utilisation;
    // Table 5.6.1: TCP/RM 94 %; the file's check allows 2 points. The model
    // as specified keeps the link busier. (Its occupancy, 22.5 packets
    // against 27.7 +- 20 %, is at the tolerance's edge on both sides and is
    // not asserted here.)
    assert!(u[0] > 0.94 + 0.02, "reference {}", u[0]);
}

#[test]
fn e3_newreno_ecn_sbrm_two_way_occupancy_is_the_models_and_misses_table_5_6_1() {
    let b = compare(E3_NEWRENO, 20).backlog[0];
    // Table 5.6.1: NewReno-ECN, 30.0 packets; the file's check allows 20 %.
    // The model as specified queues less. (Its utilisation, 87.9 % against
    // 90 +- 2, is at the tolerance's edge and is not asserted here.)
    assert!(b < 30.0 * 0.8, "reference occupancy {b}");
}

#[test]
fn e3_sbrm_one_way_is_the_models() {
    // The other reading of "bidirectional" (10 one-way connections per
    // path): the link is busier still (99.7 % TCP/RM, 98.0 % NewReno-ECN
    // against the thesis's 94 % and 90 %).
    for file in [E3_TCPRM_ONEWAY, E3_NEWRENO_ONEWAY] {
        let u = compare(file, 8).utilisation;
        assert!(u[0] > 0.94 + 0.02, "reference {}", u[0]);
    }
}
