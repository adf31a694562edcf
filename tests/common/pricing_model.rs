//! The event-driven reference model of `tests/pricing_reference_model.rs`,
//! whose header says what it models, from which documents, and how it is
//! compared with netsim. It shares no code with the engine, the links, the
//! transport or the controllers.

use std::collections::{BTreeMap, VecDeque};

use super::shared::{as_secs, bps, bytes, default_ack_bytes, ps, secs, Events, Ps, SplitMix};

/// What one run measures on the two core links (r1->r2, r2->r3).
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub utilisation: [f64; 2],
    pub backlog: [f64; 2],
    /// The standard deviation of the packets waiting (time-weighted).
    pub backlog_sd: [f64; 2],
    pub mark_prob: [f64; 2],
    /// Mean time in the queue of the packets that started transmission, s.
    pub qdelay: [f64; 2],
    /// Each flow group's mean throughput (data received in the run), bits/s.
    pub rate: Vec<f64>,
    /// Each flow group's Jain index of its flows' throughputs.
    pub jain: Vec<f64>,
    /// Retransmission timeouts of all flows, and the packets dropped (RED's
    /// selections that are not ECN-capable, and full buffers).
    pub timeouts: f64,
    pub drops: f64,
    /// Data segments the flows retransmitted (go-back-N's included).
    pub retx: f64,
    /// Loss recoveries entered on duplicate ACKs: always 0 in the model,
    /// which has none (a loss waits for the timer); netsim's count.
    pub fast_retransmits: f64,
    /// The model's stand-in for them: the times a flow's third duplicate
    /// ACK in a row arrived while data was outstanding (where NewReno's
    /// fast retransmit would start; RFC 6582). Not filled for netsim.
    pub triple_dupacks: f64,
    /// RFC 3168's waits of one RTO (`tcp.ecn_rto_wait`).
    pub ecn_waits: f64,
    /// Web pages completed, and 8 x their mean size / their mean time
    /// from the first request to the last object's last acknowledgement,
    /// bits/s (NaN without pages).
    pub pages: f64,
    pub page_throughput: f64,
    /// The first measured link's utilisation and mean backlog (packets
    /// waiting, time average) in each 20-s window of the run.
    pub windows: Vec<[f64; 2]>,
    /// Each flow group's congestion windows sampled every
    /// `run.sample_interval` when the file samples `flow_window` (every
    /// active flow at each multiple of the interval, pooled over the
    /// group's flows): their standard deviation, segments (NaN without
    /// samples).
    pub cwnd_sd: Vec<f64>,
}

/// The length of [`Outcome::windows`]' windows (the thesis's per-20-s
/// tables), picoseconds.
const WINDOW: Ps = 20_000_000_000_000;

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
    /// Packets that started transmission, and their summed time in the
    /// queue (ps; 0 for one that found the link idle).
    sent: u64,
    waited: f64,
    arrived: u64,
    marked: u64,
    area: f64,
    /// The same for the squared waiting count (the backlog's spread).
    area2: f64,
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
    /// file's link documents its \[INFERRED\] choices: the virtual queue is
    /// updated at arrivals, its emptying seen at the next arrival (one that
    /// comes at the exact instant is not marked), the overflowing packet is
    /// marked but not added, the packet in transmission at the overflow is
    /// not marked. With `explicit` (Table 5.4.2's "VQM n Bit", as the
    /// file's link documents its reading) a packet it would mark gets 1
    /// added to its header's price instead of CE (the path's count of
    /// marking links, echoed), and is not counted as marked.
    /// REM's PC3 with the price sent in full (EPF, spec 2.3.2-2.3.3): every
    /// `interval`, yhat = (1 - delta) yhat + delta (bytes arrived / packet
    /// size), then price = [price + gamma (alpha (b - b0) + yhat - c)]^+, b
    /// the waiting packets then, c the capacity in packets per interval;
    /// each data packet leaving adds the price to its header (as the file's
    /// link documents: departure stamping, every arriving byte counted).
    /// With 1-bit feedback (REM, spec 2.4) the price is not written: each
    /// data packet leaving is marked CE with probability 1 - phi^-price
    /// instead (the file's `mark_at` default, departure). With the 4-bit
    /// code (section 5.2.3) each of the header's four bits is set, each with
    /// its own coin, with probability 1 - phi_i^-price, and a bit once set
    /// stays set along the path (so a path's bit is unset with the product
    /// of its links' probabilities).
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
        feedback: Feedback,
    },
    /// REM's PC2 (Table 5.4.2's rows 8-14; the rule link/price_law.rs's
    /// header documents): no timer, the price of each data packet leaving
    /// is [gamma (b - b0)]^+ with b the packets waiting behind it, fed back
    /// as PC3's is (no coin drawn at price 0). PC1 (rows 1-7) is PC3 with
    /// alpha = 0: its step is the rate mismatch alone.
    Pc2 {
        gamma: f64,
        b0: f64,
        feedback: Feedback,
    },
    /// RED as ns-2's REDQueue (the conventions link/red.rs's header
    /// documents: its header, not its code), in packets: on each arrival the
    /// average takes the packets waiting (the arriving one not counted),
    /// after an idle period first decaying m = floor(ptc x idle time) times
    /// (ptc = capacity / mean packet size; the idle period begins when the
    /// serializer finished with an empty queue); `count` counts arrivals
    /// since the last early decision; with avg >= min_th and more than one
    /// packet waiting, the first such arrival only sets `old`, later ones
    /// are selected with p_b = max_p (avg - min_th) / (max_th - min_th)
    /// (gentle: max_p + (1 - max_p) (avg - max_th) / max_th above max_th)
    /// turned into count / (1 - count p_b) (`count = "classic"`), when a
    /// uniform draw in [0, 1) is at most that; no draw when it is 0 or at
    /// least 1. A selected data packet (ECN-capable) is marked CE on
    /// arrival; a selected ACK (not ECN-capable, RFC 3168) is dropped.
    Red {
        min_th: f64,
        max_th: f64,
        max_p: f64,
        w_q: f64,
        gentle: bool,
        ptc: f64,
        avg: f64,
        count: u32,
        old: bool,
        idle_since: Option<Ps>,
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
        explicit: bool,
    },
}

/// How a PC3 link tells the sources its price, and how a Vegas/CP source
/// learns its path's.
#[derive(Clone, Copy)]
enum Feedback {
    /// EPF: the price in full in the header (summed), echoed.
    Explicit,
    /// One ECN bit, ln(phi).
    OneBit(f64),
    /// The 4-bit code, ln(phi_i) for bit i.
    FourBit([f64; 4]),
}

#[derive(Clone, Copy)]
struct Pkt {
    flow: usize,
    ack: bool,
    /// A data segment's number; an ACK's cumulative acknowledgement (the
    /// next segment the receiver expects).
    seq: u64,
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
    /// The header's 4-bit code (bit i for phi_i), echoed by the ACK.
    code: u8,
    /// When it joined the current link's queue.
    t_in: Ps,
    /// ECN-capable: a data segment's first transmission (RFC 3168 section
    /// 6.1.5: retransmissions are not), never an ACK. Only these are
    /// marked; RED drops the others it selects.
    ect: bool,
}

#[derive(Clone)]
struct Flow {
    /// Index of its `[[flows]]` group in the file.
    group: usize,
    /// Data bytes its receiver got before the end.
    rx: f64,
    route: Vec<usize>,
    ack_route: Vec<usize>,
    /// When it starts sending: its group's `start` plus a uniform draw
    /// within the group's `start_jitter`.
    start: Ps,
    /// Its group's `stop`, if any: from then on it sends no segment (the
    /// ones in flight still arrive and are acknowledged).
    stop: Option<Ps>,
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
    /// The receiver's next expected segment, and the segments it holds
    /// above a hole (their bytes).
    rcv_nxt: u64,
    held: BTreeMap<u64, f64>,
    /// One past the highest segment sent (the transport's snd_max).
    max_sent: u64,
    /// RFC 6298's retransmission timer, for the classic-echo sources (the
    /// files' transport defaults: 1-s initial and minimum RTO, 60-s cap, no
    /// clock granularity, a sample from every ACK of new data through its
    /// echoed timestamp): SRTT and RTTVAR, the RTO (s), the deadline of the
    /// running timer, and the time of the earliest `Rto` event in the queue
    /// that is not stale. Restarting the timer later only moves the
    /// deadline (the event, finding it later, re-queues itself there);
    /// restarting it earlier (an RTO that a new sample brought back down
    /// after a backoff) queues a new event, and the later one is then
    /// stale and ignored.
    rto_srtt: Option<f64>,
    rttvar: f64,
    rto: f64,
    timer: Option<Ps>,
    timer_queued: Option<Ps>,
    /// TCP/RM's RTT rule: samples of ACKs below this segment (the next one
    /// to send when the last timeout was detected) are not taken.
    discard_below: u64,
    timeouts: u64,
    /// Duplicate ACKs in a row since `una` last advanced, and the times the
    /// run reached three ([`Outcome::triple_dupacks`]).
    dup_run: u32,
    triple_dupacks: u64,
    /// Bytes to send: a web object's size, infinite for a long-lived flow.
    size: f64,
    /// The web session whose object this is.
    session: Option<usize>,
    /// RFC 3168 section 6.1.2's wait (`tcp.ecn_rto_wait`): no new segment
    /// before this time (0: none).
    hold: Ps,
    ecn_wait: bool,
    /// A web object all of whose bytes are acknowledged.
    done: bool,
}

/// A web group's workload (`traffic = { kind = "web", ... }`), as
/// traffic/web.rs's header documents it (its header, not its code), for
/// `page_timing = "sequential"` with fresh connections only: a session's
/// first page is requested one inter-page time after the group's start; a
/// page's objects are requested one at a time, each an inter-object time
/// after the previous one's last byte was acknowledged, each on a new
/// connection (the group's source and transport from scratch: window 1,
/// ssthresh 32, RTO 1 s); the next page an inter-page time after the
/// page's last object; sizes from the truncated Pareto law by inverse
/// transform, rounded to whole bytes; objects per page geometric on 1, 2,
/// ... with the given mean.
#[derive(Clone)]
struct Web {
    objects_mean: f64,
    inter_object: Ps,
    inter_page_mean: f64,
    size_min: f64,
    size_max: f64,
    shape: f64,
}

impl Web {
    fn objects(&self, rng: &mut SplitMix) -> u32 {
        let u = 1.0 - rng.unit();
        1 + (u.ln() / (1.0 - 1.0 / self.objects_mean).ln()).floor() as u32
    }

    fn size(&self, rng: &mut SplitMix) -> f64 {
        let (l, h, a) = (self.size_min, self.size_max, self.shape);
        let x = l / (1.0 - rng.unit() * (1.0 - (l / h).powf(a))).powf(1.0 / a);
        x.round().clamp(l, h)
    }

    fn inter_page(&self, rng: &mut SplitMix) -> Ps {
        ps(-(1.0 - rng.unit()).ln() * self.inter_page_mean)
    }
}

/// One web session: its workload, the connection every object opens (a
/// fresh flow between its hosts), and its current page.
struct Session {
    web: Web,
    proto: Flow,
    objects_left: u32,
    new_page: bool,
    page_start: Ps,
    page_bytes: f64,
}

/// The source algorithm of a flow.
#[derive(Clone)]
enum Source {
    /// Key's rule (SBRM's source variant 1, VQM's source): gain kappa.
    Key { kappa: f64 },
    /// CP-TCP's direct window update with the explicit price: kappa_bar,
    /// the change per ACK clamped to +- `max_step` segments (E2's "limited
    /// to 1 per ACK"; infinite when the file has none).
    Direct { kappa_bar: f64, max_step: f64 },
    /// Vegas/CP (1-bit marks, the 4-bit code or EPF).
    Vegas(VegasCp),
    /// TCP/RM (spec 2.7, eqs. 5.6.1-5.6.2): NewReno, but in congestion
    /// avoidance cwnd += kappa RTT w / cwnd per ACK without ECE and cwnd -=
    /// kappa cwnd on the first ECE of a round trip (the classic echo's
    /// reduction point), which also lowers ssthresh with the window (floor
    /// one segment); an ECE in slow start halves as NewReno.
    TcpRm { kappa: f64 },
    /// NewReno with ECN (RFC 5681, RFC 3168): +1 per ACK in slow start (at
    /// most 2 for a stretch ACK), + N / cwnd for an ACK of N new segments in
    /// congestion avoidance (cc/newreno.rs's byte counting), none on an ECE
    /// ACK; the reduction sets ssthresh = max(FlightSize / 2, 2) and cwnd
    /// to it.
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
/// unused. With 1-bit feedback p_hat = -log_phi(1 - m_hat) over the last
/// `history` ACKs' CE echoes, m_hat = 1 read as (n - 1/2) / n; with the
/// 4-bit code m_hat_i is each bit's fraction over the last `history` ACKs'
/// echoed codes and p_hat is read from the bit whose fraction is closest to
/// 1/2 (a tie to the lower bit, the larger phi); with EPF p_hat is the last
/// ACK's echoed price. Without slow start (`slow_start = false`) the first
/// round is already congestion avoidance.
#[derive(Clone)]
struct VegasCp {
    w: f64,
    feedback: Feedback,
    history: usize,
    /// The last `history` echoes (bit 0 the CE mark for 1 bit, the code for
    /// 4 bits), and how many of them have each bit set.
    marks: VecDeque<u8>,
    marked: [usize; 4],
    last_price: f64,
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
        let from = |bit: usize, ln_phi: f64| -> f64 {
            if n == 0 || self.marked[bit] == 0 {
                return 0.0;
            }
            let m = (self.marked[bit] as f64 / n as f64).min(1.0 - 0.5 / n as f64);
            -(1.0 - m).ln() / ln_phi
        };
        match self.feedback {
            Feedback::Explicit => self.last_price,
            Feedback::OneBit(ln_phi) => from(0, ln_phi),
            Feedback::FourBit(ln_phis) => {
                let off = |i: usize| (self.marked[i] as f64 / n.max(1) as f64 - 0.5).abs();
                let bit = (1..4).fold(0, |b, i| if off(i) < off(b) { i } else { b });
                from(bit, ln_phis[bit])
            }
        }
    }

    /// Take one ACK's echo.
    fn echo(&mut self, ce: bool, code: u8, price: f64) {
        let entry = match self.feedback {
            Feedback::Explicit => {
                self.last_price = price;
                return;
            }
            Feedback::OneBit(_) => u8::from(ce),
            Feedback::FourBit(_) => code,
        };
        self.marks.push_back(entry);
        for (i, m) in self.marked.iter_mut().enumerate() {
            *m += usize::from(entry >> i & 1);
        }
        if self.marks.len() > self.history {
            let old = self.marks.pop_front().unwrap();
            for (i, m) in self.marked.iter_mut().enumerate() {
                *m -= usize::from(old >> i & 1);
            }
        }
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
    /// A flow's retransmission timer may expire (see `Flow::timer_queued`).
    Rto(usize),
    /// A web session requests its next object.
    Request(usize),
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
    /// ACKs RED dropped (RED's selection of a packet that is not
    /// ECN-capable).
    red_drops: u64,
    /// Data segments retransmitted before the end.
    retx: u64,
    /// The two links measured (indices).
    measure: [usize; 2],
    /// The first measured link's bytes sent and waiting-count area at each
    /// window's end so far.
    snaps: Vec<[f64; 2]>,
    sessions: Vec<Session>,
    /// The web workload's draws (apart from the marking coins).
    web_rng: SplitMix,
    /// Pages completed before the end: count, summed time (s), summed bytes.
    pages: [f64; 3],
    ecn_waits: u64,
    /// The window-sampling interval (`flow_window` in the file's series),
    /// the sampling instants taken so far, and each group's pooled samples
    /// (count, mean, sum of squared deviations).
    window_every: Option<Ps>,
    window_instants: u64,
    cwnd: Vec<[f64; 3]>,
}

impl Model {
    /// Sample every active flow's window at each multiple of
    /// `window_every` up to `now` (before the events at `now`).
    fn sample_windows_until(&mut self, now: Ps) {
        let Some(dt) = self.window_every else {
            return;
        };
        while (self.window_instants + 1) * dt <= now.min(self.end) {
            let t = (self.window_instants + 1) * dt;
            for f in &self.flows {
                let ended = f.done || f.stop.is_some_and(|s| s < t);
                if f.start > t || ended {
                    continue;
                }
                if self.cwnd.len() <= f.group {
                    self.cwnd.resize(f.group + 1, [0.0; 3]);
                }
                let c = &mut self.cwnd[f.group];
                c[0] += 1.0;
                let d = f.cwnd - c[1];
                c[1] += d / c[0];
                c[2] += d * (f.cwnd - c[1]);
            }
            self.window_instants += 1;
        }
    }

    /// Close the windows that end at or before `now`.
    fn snap_until(&mut self, now: Ps) {
        let l = self.measure[0];
        while (self.snaps.len() as Ps + 1) * WINDOW <= now.min(self.end) {
            let t = (self.snaps.len() as Ps + 1) * WINDOW;
            self.note(l, t);
            let k = &self.links[l];
            self.snaps.push([k.departed, k.area]);
        }
    }

    fn note(&mut self, l: usize, now: Ps) {
        let k = &mut self.links[l];
        let t = now.min(self.end);
        if t > k.last {
            let q = k.queue.len() as f64;
            k.area += q * (t - k.last) as f64;
            k.area2 += q * q * (t - k.last) as f64;
            k.last = t;
        }
    }

    fn start_tx(&mut self, l: usize, mut p: Pkt, now: Ps) {
        let behind = self.links[l].queue.len() as f64;
        let k = &mut self.links[l];
        k.busy = true;
        if now < self.end {
            k.departed += p.bytes;
            k.sent += 1;
        }
        let mark = !p.ack
            && match k.marker {
                Marker::None => false,
                Marker::Sbrm { gamma, b0 } => {
                    behind > b0 && self.rng.unit() < 1.0 - (-gamma * (behind - b0)).exp()
                }
                Marker::Pc2 {
                    gamma,
                    b0,
                    feedback,
                } => behind > b0 && stamp(feedback, gamma * (behind - b0), &mut p, &mut self.rng),
                Marker::Vq {
                    mark_upto,
                    explicit,
                    ..
                } => {
                    let m = p.pos <= mark_upto;
                    if m && explicit {
                        p.price += 1.0;
                    }
                    m && !explicit
                }
                // RED decides on arrival.
                Marker::Red { .. } => false,
                Marker::Pc3 {
                    price, feedback, ..
                } => stamp(feedback, price, &mut p, &mut self.rng),
            };
        if mark && p.ect {
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
        let waiting = k.queue.len();
        let idle = !k.busy && waiting == 0;
        // RED's verdict: None, or Some(forced) for a selected packet.
        let mut red: Option<(bool, f64)> = None;
        if let Marker::Red {
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            ptc,
            avg,
            count,
            old,
            idle_since,
        } = &mut k.marker
        {
            let m = match idle_since.take() {
                Some(t0) if idle => (*ptc * as_secs(now - t0)).floor() as i32,
                _ => 0,
            };
            *avg = *avg * (1.0 - *w_q).powi(m + 1) + *w_q * waiting as f64;
            *count += 1;
            if *avg >= *min_th && waiting > 1 {
                let forced = if *gentle {
                    *avg >= 2.0 * *max_th
                } else {
                    *avg >= *max_th
                };
                if forced {
                    *count = 0;
                    red = Some((true, 1.0));
                } else if !*old {
                    *count = 1;
                    *old = true;
                } else {
                    let pb = if *avg < *max_th {
                        *max_p * (*avg - *min_th) / (*max_th - *min_th)
                    } else {
                        *max_p + (1.0 - *max_p) * (*avg - *max_th) / *max_th
                    };
                    let c = f64::from(*count);
                    let pa = if c * pb < 1.0 {
                        pb / (1.0 - c * pb)
                    } else {
                        1.0
                    };
                    red = Some((false, pa));
                }
            } else {
                *old = false;
            }
        }
        let mut red_drop = false;
        if let Some((forced, pa)) = red {
            let selected = forced || pa >= 1.0 || (pa > 0.0 && self.rng.unit() <= pa);
            if selected {
                if let Marker::Red { count, .. } = &mut self.links[l].marker {
                    *count = 0;
                }
                if !p.ect || forced {
                    red_drop = true;
                } else {
                    p.ce = true;
                    if now < self.end {
                        self.links[l].marked += 1;
                    }
                }
            }
        }
        let k = &mut self.links[l];
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
            ..
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
        } else if red_drop {
            self.red_drops += 1;
        } else if !self.links[l].busy {
            self.start_tx(l, p, now);
        } else {
            p.t_in = now;
            self.links[l].queue.push_back(p);
        }
    }

    fn send(&mut self, f: usize, now: Ps) {
        if self.flows[f].stop.is_some_and(|t| now >= t) {
            return;
        }
        loop {
            let fl = &self.flows[f];
            // A web object's last segment carries what is left; a segment
            // leaves only if it fits in the window with the data
            // outstanding (full segments), in bytes.
            let len = (fl.size - fl.nxt as f64 * self.mss).min(self.mss);
            if fl.done || now < fl.hold || len <= 0.0 {
                return;
            }
            let window = (fl.cwnd * self.mss).floor();
            if (fl.nxt - fl.una) as f64 * self.mss + len > window {
                return;
            }
            let first = fl.route[0];
            let seq = fl.nxt;
            // New data carries ECT and a pending CWR; a retransmission
            // neither (the transport's header).
            let ect = seq >= fl.max_sent;
            let cwr = ect && fl.cwr_pending;
            let arm = fl.source.classic() && fl.timer.is_none();
            let fl = &mut self.flows[f];
            fl.cwr_pending &= !ect;
            fl.nxt += 1;
            fl.max_sent = fl.max_sent.max(fl.nxt);
            if arm {
                self.arm(f, now);
            }
            if now < self.end && !ect {
                self.retx += 1;
            }
            let p = Pkt {
                flow: f,
                ack: false,
                seq,
                ts: now,
                ce: false,
                cwr,
                hop: 0,
                bytes: len,
                pos: 0.0,
                price: 0.0,
                code: 0,
                t_in: 0,
                ect,
            };
            self.arrive(first, p, now);
        }
    }

    /// (Re)start flow `f`'s retransmission timer: RTO from now.
    fn arm(&mut self, f: usize, now: Ps) {
        let fl = &mut self.flows[f];
        let t = now + ps(fl.rto);
        fl.timer = Some(t);
        if fl.timer_queued.is_none_or(|q| t < q) {
            fl.timer_queued = Some(t);
            self.ev.push(key(t, false), Ev::Rto(f));
        }
    }

    /// RFC 6298 section 5.5-5.6 and the loss reaction the pricing sources
    /// share with NewReno (cc/pricing_window.rs's header): ssthresh =
    /// max(FlightSize / 2, 2), cwnd = 1, the RTO doubled (at most 60 s), and
    /// go-back-N from the first unacknowledged segment. TCP/RM stops taking
    /// RTT samples until an ACK reaches the segment it would have sent next.
    fn timeout(&mut self, f: usize, now: Ps) {
        let fl = &mut self.flows[f];
        fl.timer = None;
        fl.timeouts += 1;
        // FlightSize is snd_max - snd_una (held on a repeated timeout); the
        // reduction, as an ECN one, sets ecn_recover and queues CWR.
        fl.ssthresh = ((fl.max_sent - fl.una) as f64 / 2.0).max(2.0);
        fl.cwnd = 1.0;
        fl.ecn_recover = fl.max_sent;
        fl.cwr_pending = true;
        if matches!(fl.source, Source::TcpRm { .. }) {
            fl.discard_below = fl.nxt;
        }
        fl.nxt = fl.una;
        fl.rto = (2.0 * fl.rto).min(60.0);
        self.send(f, now);
    }

    /// RFC 3168's reaction to an ECN-Echo of a classic-echo source (at most
    /// once per window: the caller checks `ecn_recover`): TCP/RM's kappa
    /// cut in congestion avoidance, else NewReno's halving of the
    /// FlightSize `in_flight`; at a window of one segment with
    /// `ecn_rto_wait`, section 6.1.2's wait.
    fn ecn_react(&mut self, f: usize, in_flight: u64, now: Ps) {
        let fl = &mut self.flows[f];
        let at_one = (fl.cwnd * self.mss).floor() <= self.mss;
        match fl.source {
            Source::TcpRm { kappa } if fl.cwnd >= fl.ssthresh => {
                fl.cwnd = (fl.cwnd - kappa * fl.cwnd).max(1.0);
                // Byte-exact ssthresh after TCP/RM's moves (the window's bytes).
                fl.ssthresh = fl.ssthresh.min((fl.cwnd * 1000.0).floor() / 1000.0);
            }
            _ => {
                fl.ssthresh = (in_flight as f64 / 2.0).max(2.0);
                fl.cwnd = fl.ssthresh;
            }
        }
        fl.ecn_recover = fl.max_sent;
        fl.cwr_pending = true;
        if fl.ecn_wait && at_one {
            // The timer restarts and no new segment leaves for an RTO.
            fl.hold = now + ps(fl.rto);
            let (hold, outstanding) = (fl.hold, fl.una < fl.max_sent);
            self.ecn_waits += 1;
            if outstanding {
                self.arm(f, now);
            }
            self.ev.push(key(hold, false), Ev::Start(f));
        }
    }

    fn on_ack(&mut self, p: Pkt, now: Ps) {
        let fl = &mut self.flows[p.flow];
        // FlightSize before this ACK (the transport's snd_max - snd_una).
        let in_flight = fl.max_sent - fl.una;
        if p.seq <= fl.una {
            // Acknowledges nothing new. A duplicate ACK (of a segment above
            // a hole) starts no recovery here (netsim's runs compared enter
            // none), but its ECN-Echo is acted on, as on any ACK; the third
            // in a row is counted where fast retransmit would start.
            if p.seq == fl.una && fl.una < fl.max_sent {
                fl.dup_run += 1;
                if fl.dup_run == 3 {
                    fl.triple_dupacks += 1;
                }
            }
            if p.seq == fl.una
                && fl.una < fl.max_sent
                && fl.source.classic()
                && p.ce
                && fl.una > fl.ecn_recover
            {
                self.ecn_react(p.flow, in_flight, now);
                self.send(p.flow, now);
            }
            return;
        }
        // Segments newly acknowledged, counted at most 2 (RFC 3465's L, as
        // cc/pricing_window.rs's header says).
        let n = (p.seq - fl.una).min(2) as f64;
        // All of them, for NewReno's byte-counted congestion avoidance.
        let acked = (p.seq - fl.una) as f64;
        fl.una = p.seq;
        fl.dup_run = 0;
        fl.nxt = fl.nxt.max(fl.una);
        if fl.una as f64 * self.mss >= fl.size {
            // A web object's last byte acknowledged: its connection ends.
            fl.done = true;
            fl.timer = None;
            self.object_done(p.flow, now);
            return;
        }
        let r = as_secs(now - p.ts);
        if fl.source.classic() {
            // The transport's RTO (every ACK of new data is a sample).
            match fl.rto_srtt {
                None => {
                    fl.rto_srtt = Some(r);
                    fl.rttvar = r / 2.0;
                }
                Some(s) => {
                    fl.rttvar = 0.75 * fl.rttvar + 0.25 * (s - r).abs();
                    fl.rto_srtt = Some(0.875 * s + 0.125 * r);
                }
            }
            fl.rto = (fl.rto_srtt.unwrap() + 4.0 * fl.rttvar).clamp(1.0, 60.0);
            if fl.una == fl.nxt {
                fl.timer = None;
            } else {
                self.arm(p.flow, now);
            }
        }
        let fl = &mut self.flows[p.flow];
        // TCP/RM takes a sample only from an ACK that reaches past the
        // highest segment sent when the last timeout was detected.
        if p.seq >= fl.discard_below || !matches!(fl.source, Source::TcpRm { .. }) {
            fl.srtt = Some(match fl.srtt {
                None => r,
                Some(s) => 0.875 * s + 0.125 * r,
            });
        }
        // (Before TCP/RM's first accepted sample the window is in slow
        // start, which does not read it.)
        let rtt = fl.srtt.or(fl.rto_srtt).unwrap();
        if let Source::Vegas(v) = &mut fl.source {
            // The price estimate takes this ACK's echo first.
            v.echo(p.ce, p.code, p.price);
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
                    fl.cwnd += n;
                } else if let Some(kappa) = rm {
                    fl.cwnd = (fl.cwnd + n * kappa * rtt * fl.w / fl.cwnd).max(1.0);
                    fl.ssthresh = fl.ssthresh.min(floor_bytes(fl.cwnd));
                } else {
                    // cc/newreno.rs's header: SMSS x N / cwnd for an ACK
                    // of N new bytes (RFC 5681's SMSS^2 / cwnd per segment).
                    fl.cwnd += acked / fl.cwnd;
                }
            } else if fl.una > fl.ecn_recover {
                self.ecn_react(p.flow, in_flight, now);
            }
            self.send(p.flow, now);
            return;
        }
        let delta = match fl.source {
            Source::Direct {
                kappa_bar,
                max_step,
            } => (kappa_bar * (fl.w * rtt / fl.cwnd - p.price)).clamp(-max_step, max_step),
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

    /// Flow `f`'s web object has arrived: the session's next request.
    fn object_done(&mut self, f: usize, now: Ps) {
        let s = self.flows[f].session.expect("a web object");
        let sess = &mut self.sessions[s];
        sess.objects_left -= 1;
        let next = if sess.objects_left > 0 {
            now + sess.web.inter_object
        } else {
            if now < self.end {
                self.pages[0] += 1.0;
                self.pages[1] += as_secs(now - sess.page_start);
                self.pages[2] += sess.page_bytes;
            }
            sess.objects_left = sess.web.objects(&mut self.web_rng);
            sess.new_page = true;
            now + sess.web.inter_page(&mut self.web_rng)
        };
        self.ev.push(key(next, false), Ev::Request(s));
    }

    /// Session `s` requests an object: a new connection sends it.
    fn request(&mut self, s: usize, now: Ps) {
        let sess = &mut self.sessions[s];
        if sess.new_page {
            sess.new_page = false;
            sess.page_start = now;
            sess.page_bytes = 0.0;
        }
        let mut fl = sess.proto.clone();
        fl.size = sess.web.size(&mut self.web_rng);
        sess.page_bytes += fl.size;
        fl.start = now;
        fl.session = Some(s);
        self.flows.push(fl);
        self.send(self.flows.len() - 1, now);
    }

    fn run(mut self) -> Outcome {
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
        for s in 0..self.sessions.len() {
            let t = self.sessions[s].proto.start;
            self.ev.push(key(t, false), Ev::Request(s));
        }
        while let Some((k, e)) = self.ev.pop() {
            let now = k / 2;
            if now >= self.end {
                break;
            }
            self.snap_until(now);
            self.sample_windows_until(now);
            match e {
                // A flow's start, or the end of its ECN wait.
                Ev::Start(f) => self.send(f, now),
                Ev::Request(s) => self.request(s, now),
                Ev::Rto(f) => {
                    let fl = &mut self.flows[f];
                    if fl.timer_queued != Some(now) {
                        // Stale: an earlier restart queued the live one.
                        continue;
                    }
                    fl.timer_queued = None;
                    match fl.timer {
                        Some(t) if t > now => {
                            fl.timer_queued = Some(t);
                            self.ev.push(key(t, false), Ev::Rto(f));
                        }
                        Some(_) => self.timeout(f, now),
                        None => {}
                    }
                }
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
                        if now < self.end {
                            self.links[l].waited += (now - q.t_in) as f64;
                        }
                        self.start_tx(l, q, now);
                    } else if let Marker::Red { idle_since, .. } = &mut self.links[l].marker {
                        *idle_since = Some(now);
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
                        let first = self.flows[p.flow].ack_route[0];
                        let fl = &mut self.flows[p.flow];
                        // In order, it and what it completes are delivered;
                        // above a hole it waits (the ACK repeats rcv_nxt).
                        if p.seq == fl.rcv_nxt {
                            fl.rcv_nxt += 1;
                            fl.rx += p.bytes;
                            while let Some(b) = fl.held.remove(&fl.rcv_nxt) {
                                fl.rcv_nxt += 1;
                                fl.rx += b;
                            }
                        } else if p.seq > fl.rcv_nxt {
                            fl.held.insert(p.seq, p.bytes);
                        }
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
                            seq: fl.rcv_nxt,
                            ts: p.ts,
                            ce,
                            cwr: false,
                            hop: 0,
                            bytes: self.ack_bytes,
                            pos: 0.0,
                            price: p.price,
                            code: p.code,
                            t_in: 0,
                            ect: false,
                        };
                        self.arrive(first, a, now);
                    }
                }
            }
        }
        let end = self.end;
        self.snap_until(end);
        self.sample_windows_until(end);
        for l in 0..self.links.len() {
            self.note(l, end);
        }
        let secs = as_secs(self.end);
        let mut o = Outcome::default();
        let k = &self.links[self.measure[0]];
        let mut prev = [0.0, 0.0];
        for s in &self.snaps {
            o.windows.push([
                (s[0] - prev[0]) * 8.0 / (k.bps * as_secs(WINDOW)),
                (s[1] - prev[1]) / WINDOW as f64,
            ]);
            prev = *s;
        }
        for (i, l) in self.measure.into_iter().enumerate() {
            let k = &self.links[l];
            o.utilisation[i] = k.departed * 8.0 / (k.bps * secs);
            o.backlog[i] = k.area / self.end as f64;
            o.backlog_sd[i] = (k.area2 / self.end as f64 - o.backlog[i].powi(2))
                .max(0.0)
                .sqrt();
            o.mark_prob[i] = k.marked as f64 / k.arrived as f64;
            o.qdelay[i] = k.waited / k.sent as f64 / 1e12;
        }
        // Each flow's rate over its own active time (start to stop or the end).
        let rates: Vec<(usize, f64)> = self
            .flows
            .iter()
            .map(|f| {
                let until = f.stop.map_or(self.end, |t| t.min(self.end));
                assert!(until > f.start, "a flow active before the end");
                (f.group, f.rx * 8.0 / as_secs(until - f.start))
            })
            .collect();
        o.rate = group_means(rates.iter().copied());
        o.jain = group_jain(&rates);
        o.timeouts = self.flows.iter().map(|f| f.timeouts as f64).sum();
        o.triple_dupacks = self.flows.iter().map(|f| f.triple_dupacks as f64).sum();
        o.drops = (self.red_drops + self.dropped) as f64;
        o.retx = self.retx as f64;
        o.ecn_waits = self.ecn_waits as f64;
        o.cwnd_sd = self
            .cwnd
            .iter()
            .map(|c| {
                if c[0] > 0.0 {
                    (c[2] / c[0]).sqrt()
                } else {
                    f64::NAN
                }
            })
            .collect();
        let [n, time, bytes] = self.pages;
        o.pages = n;
        o.page_throughput = 8.0 * (bytes / n) / (time / n);
        o
    }
}

/// The two links a file's test measures, by name: E1's core links (r1->r2
/// and r2->r3), a single bottleneck's two directions (E3: r1->r2 and
/// r2->r1), or E2's queue R3 (r3->r4) and the link before it.
pub fn measured(doc: &toml::Table) -> [String; 2] {
    let links = doc["links"].as_array().unwrap();
    let has = |a: &str, b: &str| {
        links
            .iter()
            .any(|l| l["from"].as_str() == Some(a) && l["to"].as_str() == Some(b))
    };
    assert!(has("r1", "r2"));
    if has("r3", "r4") {
        // E2's parking lot: the thesis's tables are queue R3's.
        return ["r3->r4".to_string(), "r2->r3".to_string()];
    }
    let second = if has("r2", "r3") { "r2->r3" } else { "r2->r1" };
    ["r1->r2".to_string(), second.to_string()]
}

/// The reference model of `doc` with seed `seed`.
pub fn reference(doc: &toml::Table, seed: u64) -> Outcome {
    reference_at(doc, seed, 0)
}

/// The reference model of `doc` with seed `seed`, its PC3 updates (if any)
/// `phase` later than every interval's end.
pub fn reference_at(doc: &toml::Table, seed: u64, phase: Ps) -> Outcome {
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
    // SBRM's "SBRM + PC3" links (Table 5.4.2's row 26; link/sbrm.rs's
    // header): REM's PC3 with base-e marks, 1 - exp(-price), and REM's
    // documented defaults for what the file leaves out (gamma 0.001, alpha
    // 0.1, delta 0.9, T 1 ms, mean packet 1000 B).
    let sbrm_pc3 = |a: &toml::Table| {
        a["kind"].as_str() == Some("sbrm")
            && a.get("price_rule").and_then(|r| r.as_str()) == Some("pc3")
    };
    let mut tick = 0;
    for i in 0..2 * n {
        if let Some(a) = algo_of(i) {
            let t = match a["kind"].as_str() {
                Some("rem") if a["price_rule"].as_str() == Some("pc2") => continue,
                Some("rem") => ps(secs(&a["interval"])),
                _ if sbrm_pc3(a) => ps(1e-3),
                _ => continue,
            };
            assert!(tick == 0 || tick == t, "one PC3 interval");
            tick = t;
        }
    }
    let marker = |algo: &toml::Table, capacity_bps: f64, buffer_pkts: usize| -> Marker {
        match algo["kind"].as_str() {
            Some("drop_tail") => Marker::None,
            Some("rem") => {
                assert!(algo.get("mark_at").is_none(), "marks on departure");
                let feedback = match algo["feedback"].as_str() {
                    Some("explicit") => Feedback::Explicit,
                    Some("ecn") => Feedback::OneBit(algo["phi"].as_float().unwrap().ln()),
                    Some("four_bit") => Feedback::FourBit(four_phis(&algo["phis"])),
                    other => panic!("unexpected REM feedback {other:?}"),
                };
                let rule = algo["price_rule"].as_str().unwrap();
                if rule == "pc2" {
                    return Marker::Pc2 {
                        gamma: algo["gamma"].as_float().unwrap(),
                        b0: algo["b0"].as_float().unwrap(),
                        feedback,
                    };
                }
                assert!(rule == "pc1" || rule == "pc3", "price rule {rule}");
                let pkt = bytes(&algo["mean_pkt_size"]);
                Marker::Pc3 {
                    gamma: algo["gamma"].as_float().unwrap(),
                    alpha: if rule == "pc1" {
                        0.0
                    } else {
                        algo["alpha"].as_float().unwrap()
                    },
                    b0: algo["b0"].as_float().unwrap(),
                    delta: algo["delta"].as_float().unwrap(),
                    c: capacity_bps * secs(&algo["interval"]) / (8.0 * pkt),
                    pkt,
                    price: 0.0,
                    yhat: 0.0,
                    bytes_in: 0.0,
                    feedback,
                }
            }
            Some("sbrm") if sbrm_pc3(algo) => {
                for k in algo.keys() {
                    assert!(
                        ["kind", "b0", "price_rule"].contains(&k.as_str()),
                        "the reference has SBRM + PC3's defaults only, not {k}"
                    );
                }
                let pkt = 1000.0;
                Marker::Pc3 {
                    gamma: 0.001,
                    alpha: 0.1,
                    b0: algo["b0"].as_float().unwrap(),
                    delta: 0.9,
                    c: capacity_bps * 1e-3 / (8.0 * pkt),
                    pkt,
                    price: 0.0,
                    yhat: 0.0,
                    bytes_in: 0.0,
                    feedback: Feedback::OneBit(1.0),
                }
            }
            Some("sbrm") => {
                for k in algo.keys() {
                    assert!(
                        ["kind", "b0", "q_max", "price_rule"].contains(&k.as_str()),
                        "the reference has SBRM's defaults only, not {k}"
                    );
                }
                // Eq. 5.4.1 is the rule "pc2" names (Table 5.4.2's row 25).
                assert!(algo
                    .get("price_rule")
                    .is_none_or(|r| r.as_str() == Some("pc2")));
                let b0 = algo["b0"].as_float().unwrap();
                // Without q_max, the buffer in packets (link/sbrm.rs's
                // documented default: m = 0.99 at the full buffer).
                let q_max = algo
                    .get("q_max")
                    .map_or(buffer_pkts as f64, |q| q.as_float().unwrap());
                Marker::Sbrm {
                    gamma: 100f64.ln() / (q_max - b0),
                    b0,
                }
            }
            Some("virtual_queue") => {
                for k in algo.keys() {
                    assert!(
                        ["kind", "theta", "buffer", "variant", "pkt_size", "feedback"]
                            .contains(&k.as_str()),
                        "the reference's VQM has no {k}"
                    );
                }
                assert_eq!(algo["variant"].as_str(), Some("real_queue"));
                let explicit = match algo.get("feedback").map(|f| f.as_str().unwrap()) {
                    None | Some("ecn") => false,
                    Some("explicit") => true,
                    Some(other) => panic!("the reference's VQM has no feedback {other}"),
                };
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
                    explicit,
                }
            }
            Some("red") => {
                for k in algo.keys() {
                    assert!(
                        [
                            "kind",
                            "min_th",
                            "max_th",
                            "max_p",
                            "w_q",
                            "gentle",
                            "count",
                            "mean_pkt_size"
                        ]
                        .contains(&k.as_str()),
                        "the reference's RED has no {k}"
                    );
                }
                assert_eq!(algo["count"].as_str(), Some("classic"));
                let f = |k: &str| algo[k].as_float().unwrap();
                Marker::Red {
                    min_th: f("min_th"),
                    max_th: f("max_th"),
                    max_p: f("max_p"),
                    w_q: f("w_q"),
                    gentle: algo["gentle"].as_bool().unwrap(),
                    ptc: capacity_bps / (8.0 * bytes(&algo["mean_pkt_size"])),
                    avg: 0.0,
                    count: 0,
                    old: false,
                    idle_since: None,
                }
            }
            other => panic!("unexpected core algo {other:?}"),
        }
    };
    let model_links: Vec<Link> = (0..2 * n)
        .map(|i| {
            let l = &links[i % n];
            let capacity = bps(&l["capacity"]);
            let buffer: usize = l["buffer"]
                .as_str()
                .unwrap()
                .trim_end_matches("pkt")
                .parse()
                .unwrap();
            Link {
                bps: capacity,
                delay: ps(secs(&l["delay"])),
                buffer,
                marker: algo_of(i).map_or(Marker::None, |a| marker(a, capacity, buffer)),
                queue: VecDeque::new(),
                busy: false,
                departed: 0.0,
                sent: 0,
                waited: 0.0,
                arrived: 0,
                marked: 0,
                area: 0.0,
                area2: 0.0,
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
    let mut web_rng = SplitMix(seed ^ 0x5745_4250_4147_4553);
    let mut flows = Vec::new();
    let mut sessions = Vec::new();
    let groups = doc["flows"].as_array().unwrap();
    let mss = bytes(&groups[0]["packet_size"]);
    for (gi, g) in groups.iter().enumerate() {
        assert_eq!(bytes(&g["packet_size"]), mss, "one packet size");
        // Hosts: one of each, or (a web group) lists whose k-th entries are
        // the k-th server and client.
        let hosts = |k: &str| -> Vec<&str> {
            match &g[k] {
                toml::Value::Array(a) => a.iter().map(|v| v.as_str().unwrap()).collect(),
                v => vec![v.as_str().unwrap()],
            }
        };
        let (froms, tos) = (hosts("from"), hosts("to"));
        assert_eq!(froms.len(), tos.len());
        let jitter = g.get("start_jitter").map_or(0.0, secs);
        let begin = g.get("start").map_or(0.0, secs);
        let stop = g.get("stop").map(|v| ps(secs(v)));
        let cc = g["cc"].as_table().unwrap();
        // CP-TCP's `slow_start = false` starts in congestion avoidance
        // (ssthresh 0; cc/pricing_window.rs's documented reading).
        let ssthresh = if cc["kind"].as_str() == Some("cp_tcp")
            && cc.get("slow_start").and_then(|s| s.as_bool()) == Some(false)
        {
            0.0
        } else {
            32.0
        };
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
                tcp.keys().all(|k| k == "ecn" || k == "ecn_rto_wait"),
                "the reference's transport has no other keys"
            );
        }
        let tcp_flag = |k: &str| {
            g.get("tcp")
                .and_then(|t| t.get(k))
                .and_then(|e| e.as_bool())
                == Some(true)
        };
        let ecn = tcp_flag("ecn");
        let ecn_wait = tcp_flag("ecn_rto_wait");
        let make = || -> Source {
            match cc["kind"].as_str() {
                Some("vegas_cp") => {
                    only(&[
                        "kind",
                        "w",
                        "feedback",
                        "phi",
                        "phis",
                        "history",
                        "slow_start",
                        "rtt",
                    ]);
                    // The rate estimate is cwnd / SRTT (Table 5.4.2's "RTT").
                    assert!(cc.get("rtt").is_none_or(|r| r.as_str() == Some("srtt")));
                    let feedback = match cc["feedback"].as_str() {
                        Some("one_bit") => Feedback::OneBit(cc["phi"].as_float().unwrap().ln()),
                        Some("four_bit") => Feedback::FourBit(four_phis(&cc["phis"])),
                        Some("explicit") => Feedback::Explicit,
                        other => panic!("unexpected Vegas/CP feedback {other:?}"),
                    };
                    Source::Vegas(VegasCp {
                        w: cc["w"].as_float().unwrap(),
                        feedback,
                        // (EPF keeps no history.)
                        history: match feedback {
                            Feedback::Explicit => 0,
                            _ => cc["history"].as_integer().unwrap() as usize,
                        },
                        marks: VecDeque::new(),
                        marked: [0; 4],
                        last_price: 0.0,
                        slow_start: cc.get("slow_start").is_none_or(|s| s.as_bool().unwrap()),
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
                    only(&[
                        "kind",
                        "w",
                        "kappa_bar",
                        "feedback",
                        "max_step",
                        "slow_start",
                    ]);
                    assert_eq!(cc["feedback"].as_str(), Some("explicit"));
                    Source::Direct {
                        kappa_bar: cc["kappa_bar"].as_float().unwrap(),
                        max_step: cc
                            .get("max_step")
                            .map_or(f64::INFINITY, |m| m.as_float().unwrap()),
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
        let proto = |from: &str, to: &str, start: Ps| Flow {
            group: gi,
            rx: 0.0,
            route: route(from, to),
            ack_route: route(to, from),
            start,
            stop,
            w: cc.get("w").and_then(|w| w.as_float()).unwrap_or(0.0),
            source: make(),
            cwnd: 1.0,
            ssthresh,
            nxt: 0,
            una: 0,
            srtt: None,
            ecn_recover: 0,
            cwr_pending: false,
            ece: false,
            rcv_nxt: 0,
            held: BTreeMap::new(),
            max_sent: 0,
            rto_srtt: None,
            rttvar: 0.0,
            rto: 1.0,
            timer: None,
            timer_queued: None,
            discard_below: 0,
            timeouts: 0,
            dup_run: 0,
            triple_dupacks: 0,
            size: f64::INFINITY,
            session: None,
            hold: 0,
            ecn_wait,
            done: false,
        };
        let Some(traffic) = g.get("traffic").and_then(|t| t.as_table()) else {
            assert_eq!(froms.len(), 1, "one pair of hosts for long-lived flows");
            for _ in 0..g["count"].as_integer().unwrap() {
                flows.push(proto(froms[0], tos[0], ps(begin + jitter * starts.unit())));
            }
            continue;
        };
        assert_eq!(traffic["kind"].as_str(), Some("web"));
        for k in traffic.keys() {
            assert!(
                [
                    "kind",
                    "sessions",
                    "page_timing",
                    "pages",
                    "objects",
                    "inter_object",
                    "object_size",
                    "inter_page"
                ]
                .contains(&k.as_str()),
                "the reference's web model has no {k}"
            );
        }
        assert_eq!(traffic["page_timing"].as_str(), Some("sequential"));
        assert_eq!(g["count"].as_integer(), Some(froms.len() as i64));
        let dist = |k: &str, d: &str| -> &toml::Table {
            let t = traffic[k].as_table().unwrap();
            assert_eq!(t["dist"].as_str(), Some(d), "the reference's {k}");
            t
        };
        // Pages per session: a fixed count the run cannot reach.
        assert!(dist("pages", "fixed")["n"].as_integer().unwrap() >= 1_000_000);
        let size = dist("object_size", "bounded_pareto");
        let web = Web {
            objects_mean: dist("objects", "geometric")["mean"].as_float().unwrap(),
            inter_object: ps(secs(&dist("inter_object", "fixed")["duration"])),
            inter_page_mean: secs(&dist("inter_page", "exponential")["mean"]),
            size_min: bytes(&size["min"]),
            size_max: bytes(&size["max"]),
            shape: size["shape"].as_float().unwrap(),
        };
        assert_eq!(begin, 0.0);
        for k in 0..traffic["sessions"].as_integer().unwrap() as usize {
            let pair = k % froms.len();
            let objects_left = web.objects(&mut web_rng);
            let first = web.inter_page(&mut web_rng);
            sessions.push(Session {
                web: web.clone(),
                proto: proto(froms[pair], tos[pair], first),
                objects_left,
                new_page: true,
                page_start: 0,
                page_bytes: 0.0,
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
        red_drops: 0,
        retx: 0,
        measure,
        snaps: Vec::new(),
        sessions,
        web_rng,
        pages: [0.0; 3],
        ecn_waits: 0,
        window_every: samples_windows(doc).then(|| ps(secs(&doc["run"]["sample_interval"]))),
        window_instants: 0,
        cwnd: Vec::new(),
    };
    m.run()
}

/// Whether the file samples the flows' windows (`flow_window` in
/// `run.series`, with a `run.sample_interval`).
fn samples_windows(doc: &toml::Table) -> bool {
    let run = &doc["run"];
    run.get("sample_interval").is_some()
        && run
            .get("series")
            .and_then(|s| s.as_array())
            .is_some_and(|s| s.iter().any(|x| x.as_str() == Some("flow_window")))
}

/// A price rule's price `price` on leaving data packet `p`, fed back as
/// `feedback` says: CE with probability 1 - phi^-price (the return value:
/// whether to mark), each bit of the 4-bit code with its own coin, or the
/// price added to the header in full.
fn stamp(feedback: Feedback, price: f64, p: &mut Pkt, rng: &mut SplitMix) -> bool {
    match feedback {
        Feedback::OneBit(ln_phi) => rng.unit() < 1.0 - (-ln_phi * price).exp(),
        Feedback::FourBit(ln_phis) => {
            for (i, ln_phi) in ln_phis.into_iter().enumerate() {
                if rng.unit() < 1.0 - (-ln_phi * price).exp() {
                    p.code |= 1 << i;
                }
            }
            false
        }
        Feedback::Explicit => {
            p.price += price;
            false
        }
    }
}

/// The four bases of a file's 4-bit code, ln(phi_i).
fn four_phis(v: &toml::Value) -> [f64; 4] {
    let phis: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_float().unwrap().ln())
        .collect();
    phis.try_into().expect("a 4-bit code has four bases")
}

/// Jain's index of each group's values, (sum x)^2 / (n sum x^2), groups in
/// index order.
pub fn group_jain(per_flow: &[(usize, f64)]) -> Vec<f64> {
    let sums = group_means(per_flow.iter().copied());
    let squares = group_means(per_flow.iter().map(|&(g, x)| (g, x * x)));
    sums.iter().zip(squares).map(|(m, m2)| m * m / m2).collect()
}

/// The mean of each group's values, groups in index order.
pub fn group_means(per_flow: impl Iterator<Item = (usize, f64)>) -> Vec<f64> {
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
