//! A paced sender at rate `r` sends `r T` (in packets: `r T / 8 len`) to
//! within one packet over any interval `T` (issue 55 item 5), through the
//! whole window transport: a controller that holds a constant rate, or
//! steps it once, behind `WindowSender`, every packet acknowledged one RTT
//! later (each ACK re-sets the pacer's rate, as a rate controller's ACKs do).
//!
//! Measure: `D_k = k - (bits the rate allowed from the first departure to
//! the k-th) / 8 len`. Over an interval holding departures `i..=j` the
//! count is within `1 + max D - min D` of the rate's allowance, so "within
//! one packet" is a zero spread of `D` (to float noise). A rate change from
//! `r1` to `r2` may shift `D` once, by the share of the pending gap that
//! the mode pays at the wrong rate: under one packet for "restart",
//! "integrate" (0) and "announced"; after it the spread is zero again, so
//! over any `T` after the change the sender is within `r2 T` plus one packet
//! and, for an interval that holds the change, one more from the change.
//! "hold" waits out the gap announced at `r1`, so a rise costs up to
//! `r2 / r1 - 1` packets: its documented definition, kept as an option.

use protocols::transport::{PacingMode, TcpConfig, WindowSender};
use sim_core::{
    stream, AckInfo, Congestion, Controller, Endpoint, Harness, Packet, PacketKind, RouteId,
    SimDuration, SimTime, StreamKind,
};

const LEN: u64 = 1000;
const RTT_S: f64 = 0.0213;

/// A rate-based controller whose rate is `r1`, then `r2` from the first
/// ACK at or after `at`.
struct Step {
    rate: f64,
    r2: f64,
    at: SimTime,
}

impl Controller for Step {
    fn on_ack(&mut self, ack: &AckInfo) {
        if ack.now >= self.at {
            self.rate = self.r2;
        }
    }
    fn on_congestion(&mut self, _now: SimTime, _ev: Congestion) {}
    fn window(&self) -> u64 {
        u64::MAX
    }
    fn rate(&self) -> Option<f64> {
        Some(self.rate)
    }
    fn paced(&self) -> bool {
        true
    }
}

/// Departure times of a backlogged flow over `secs` seconds, and the rate
/// in force at each.
fn departures(mode: PacingMode, r1: f64, r2: f64, at: f64, secs: f64) -> Vec<(SimTime, f64)> {
    let cfg = TcpConfig {
        reliable: false,
        initial_rto: SimDuration::from_secs(60),
        min_rto: SimDuration::from_secs(60),
        pacing: mode,
        pacing_jitter: 0.0,
        ..TcpConfig::default()
    };
    let cc = Step {
        rate: r1,
        r2,
        at: SimTime::from_secs_f64(at),
    };
    let mut s = WindowSender::new(&cfg, Box::new(cc), LEN as u32, None).unwrap();
    let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
    let rtt = SimDuration::from_secs_f64(RTT_S);
    let end = SimTime::from_secs_f64(secs);
    let mut acks = std::collections::VecDeque::new();
    let mut out = Vec::new();
    let mut sent = h.call(|c| s.on_start(c));
    loop {
        let rate = s.probe().rate.unwrap();
        for p in sent.drain(..) {
            out.push((h.now, rate));
            acks.push_back((h.now + rtt, p.seq + u64::from(p.size), h.now));
        }
        let timer = h.deadline.unwrap();
        match acks.front() {
            Some(&(t, ack, echo)) if t < timer => {
                acks.pop_front();
                if t >= end {
                    break;
                }
                h.now = t;
                let mut a = Packet::new(Default::default(), RouteId(1), PacketKind::Ack, 40, echo);
                a.ack = ack;
                a.echo = echo;
                sent = h.call(|c| s.on_packet(a, c));
            }
            _ if timer >= end => break,
            _ => sent = h.fire(&mut s),
        }
    }
    out
}

/// `D_k` over the departures: the rate integrated piecewise between them,
/// split at the switch (the controller's rate moves only at ACKs).
fn deviations(d: &[(SimTime, f64)], at: SimTime) -> Vec<f64> {
    let bits = 8.0 * LEN as f64;
    let mut integral = 0.0;
    let mut out = vec![0.0];
    for k in 1..d.len() {
        // Rate held over (t_{k-1}, t_k]: the one in force at the k-th departure,
        // except across the switch, split at the switch time.
        let (t0, r0) = d[k - 1];
        let (t1, rk) = d[k];
        if r0 == rk {
            integral += rk * (t1 - t0).as_secs_f64();
        } else {
            let sw = switch_time(d, at);
            integral += r0 * (sw - t0).as_secs_f64() + rk * (t1 - sw).as_secs_f64();
        }
        out.push(k as f64 - integral / bits);
    }
    out
}

/// When the rate switched: the first ACK at or after `at`, i.e. the first
/// departure plus RTT at or after it.
fn switch_time(d: &[(SimTime, f64)], at: SimTime) -> SimTime {
    let rtt = SimDuration::from_secs_f64(RTT_S);
    d.iter().map(|(t, _)| *t + rtt).find(|t| *t >= at).unwrap()
}

fn spread(d: &[f64]) -> f64 {
    let (lo, hi) = d
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
    hi - lo
}

const MODES: [PacingMode; 4] = [
    PacingMode::Restart,
    PacingMode::Integrate,
    PacingMode::Announced,
    PacingMode::Hold,
];

#[test]
fn a_constant_rate_is_sent_within_one_packet_over_any_interval() {
    // 61.3 Mb/s (a gap of 130,505.7 ps, rounded every packet before issue 55
    // item 5: 0.0022 packets off per 100 s, growing) and 7.77 Gb/s with 1000-B
    // packets (0.38 packets in 2 s before).
    for mode in MODES {
        for (rate, secs) in [(61.3e6, 20.0), (7.77e9, 1.0)] {
            let d = departures(mode, rate, rate, 0.0, secs);
            let dev = deviations(&d, SimTime::ZERO);
            assert!(spread(&dev) < 1e-4, "{mode:?} at {rate}: {}", spread(&dev));
        }
    }
}

#[test]
fn after_a_rate_change_the_new_rate_is_sent_within_one_packet() {
    let at = SimTime::from_secs_f64(1.0437);
    for (r1, r2) in [(1e6, 3e6), (3e6, 1e6), (100e3, 61.3e6), (1e6, 10e3)] {
        for mode in MODES {
            let d = departures(mode, r1, r2, 1.0437, 12.0);
            let dev = deviations(&d, at);
            let sw = switch_time(&d, at);
            let first = d.iter().position(|(t, _)| *t >= sw).unwrap();
            // After the change: exact at r2 (within one packet over any T).
            let after = spread(&dev[first..]);
            assert!(after < 1e-4, "{mode:?} {r1} -> {r2}: spread {after}");
            // Before it: exact at r1.
            assert!(spread(&dev[..first]) < 1e-4, "{mode:?} {r1} -> {r2}");
            // The change itself.
            let jump = dev[first] - dev[first - 1];
            match mode {
                PacingMode::Integrate => assert!(jump.abs() < 1e-4, "{mode:?}: {jump}"),
                PacingMode::Restart | PacingMode::Announced => {
                    assert!(jump.abs() < 1.0, "{mode:?} {r1} -> {r2}: {jump}")
                }
                // A fall gains under one packet; a rise waits out the gap
                // announced at r1.
                PacingMode::Hold if r2 < r1 => assert!(jump.abs() < 1.0, "{jump}"),
                PacingMode::Hold => assert!(jump > -(r2 / r1), "{r1} -> {r2}: {jump}"),
            }
        }
    }
}
