//! NewReno congestion-control arithmetic: slow start, congestion avoidance and the
//! multiplicative decrease on loss, ECN-Echo and timeout.
//!
//! Provenance:
//! - RFC 5681 (TCP Congestion Control), section 3.1: slow start while
//!   `cwnd < ssthresh`, congestion avoidance otherwise (`cwnd += SMSS*SMSS/cwnd`
//!   per ACK, equation 3's common alternative); equation 4:
//!   `ssthresh = max(FlightSize / 2, 2*SMSS)`; loss window `LW = 1 SMSS` after a
//!   retransmission timeout; the initial window rule (IW = 2, 3 or 4 segments by
//!   SMSS) and "the initial value of ssthresh SHOULD be set arbitrarily high".
//! - RFC 6582 (NewReno), section 3.2 step 2: on the third duplicate ACK,
//!   `ssthresh = max(FlightSize / 2, 2*SMSS)`; fast-recovery window inflation and
//!   deflation live in the transport (`transport::window`), which adds them on top
//!   of [`NewReno::window`]. Step 3 (full ACK): option (2), `cwnd = ssthresh`.
//! - RFC 3168 (ECN), section 6.1.2: on ECN-Echo the sender halves its window as for
//!   a loss (`ssthresh` as above, `cwnd = ssthresh`); "at most once per window" is
//!   enforced by the transport. Same section: the sender "should not increase the
//!   congestion window in response to the receipt of an ECN-Echo ACK packet", so
//!   an ACK carrying ECE never grows cwnd, whether or not it triggered the
//!   reduction (ns-2's `TcpAgent::recv_newack_helper` opens the window only on
//!   ACKs without ECN-Echo). The receiver repeats ECE until it sees CWR, so the
//!   window is held for about a round trip after each reduction.
//! - RFC 3465 (Appropriate Byte Counting), section 2.2: a slow-start ACK grows cwnd
//!   by the bytes it acknowledges, at most L = 2*SMSS.
//!
//! INFERRED: congestion avoidance is byte-counted as `cwnd += SMSS * N / cwnd` for
//! an ACK of N new bytes, which is RFC 5681's `SMSS*SMSS/cwnd` for a full-sized
//! segment and keeps growth at about one SMSS per RTT under delayed ACKs.
//! INFERRED: the window does not grow on ACKs that arrive during loss recovery
//! (RFC 6582 sets cwnd from ssthresh on exit, so growth there would be discarded).
//! Units: cwnd and ssthresh are bytes; cwnd is an `f64` so that sub-byte
//! congestion-avoidance increments accumulate exactly.
//!
//! `rules = "ns2"`: ns-2's `Agent/TCP/Newreno` arithmetic (ns-2.35
//! `tcp/tcp.cc` `opencwnd`, `slowdown`, `timeout` and `tcp/tcp-newreno.cc`
//! `recv`, read for their rules; no code copied), for reproducing studies
//! run on ns-2: every ACK of new data outside recovery grows the window by
//! one segment in slow start and by `1/cwnd` segments in congestion
//! avoidance, whatever it acknowledges (no byte counting); a fast
//! retransmit or an ECN-Echo halves the window `W = min(cwnd, rwnd)`
//! (ns-2's `window()`, with the receiver's window that the transport
//! passes on), not the FlightSize: `ssthresh = max(floor(W/2), 2)` and
//! `cwnd = W/2` segments (`precisionReduce_ true`, ns-2's default since
//! 2006/01/24), or with `rules = "ns2_integer"` (before then) in whole
//! segments, `ssthresh = max(floor(floor(W)/2), 2)`, `cwnd =
//! floor(floor(W)/2)`; a timeout sets `ssthresh` the same way and `cwnd =
//! 1`, so a second timeout of the same data lowers `ssthresh` to 2 (RFC
//! 5681 holds it); the full ACK that ends fast recovery leaves cwnd
//! where the reduction put it and grows it as any new ACK does (ns-2
//! deflates by dropping the inflation; RFC 6582 sets `cwnd = ssthresh`).
//! ns-2's `CLOSE_CWND_HALF` has no floor: an ECN-Echo at a window under
//! two segments leaves less than one, ns-2 sends nothing until its
//! retransmission timer expires and restarts at one segment (`newtimer`,
//! `timeout`). Here the transport does the same with `tcp.ecn_rto_wait`
//! (its wait then starts whenever the window falls below one segment, and
//! [`Controller::on_ecn_wait_end`] restores one segment); without it the
//! transport sends at its floor of one segment.
//! Left out: ns-2's doubling of the timer for an ECN-Echo at a window of
//! one segment twice in a row (`ecn_backoff_`), and a timeout during the
//! wait halves ssthresh again (ns-2 keeps it after a recent ECN-Echo).

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, ParamError, SimTime};

/// RFC 3465 section 2.2: slow start grows by at most `L = 2` segments per ACK.
const ABC_LIMIT_SEGMENTS: u64 = 2;

/// Parameters of NewReno (`cc = { kind = "new_reno", ... }`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NewRenoConfig {
    /// Initial congestion window, segments (>= 1). Default: RFC 5681 section 3.1,
    /// by MSS: 2 if MSS > 2190 B, 3 if MSS > 1095 B, else 4 (3 for 1500 B packets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited
    /// (RFC 5681 section 3.1: "arbitrarily high").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
    /// Window arithmetic: `"rfc5681"` (default: RFC 5681 / 6582 / 3465, as
    /// above), `"ns2"` (ns-2's `Agent/TCP/Newreno` since 2006) or
    /// `"ns2_integer"` (before 2006: whole-segment reductions); see the
    /// module docs.
    #[serde(skip_serializing_if = "RenoRules::is_rfc")]
    pub rules: RenoRules,
}

/// NewReno's window arithmetic ([`NewRenoConfig::rules`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenoRules {
    /// RFC 5681 with RFC 6582's recovery exit and RFC 3465's slow start.
    #[default]
    Rfc5681,
    /// ns-2's `Agent/TCP/Newreno` (`precisionReduce_ true`).
    Ns2,
    /// ns-2's `Agent/TCP/Newreno` before 2006/01/24 (`precisionReduce_
    /// false`: reductions in whole segments).
    Ns2Integer,
}

impl RenoRules {
    /// The default, left out of a written scenario.
    fn is_rfc(&self) -> bool {
        *self == RenoRules::Rfc5681
    }
}

impl NewRenoConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.initial_window == Some(0) {
            return Err(ParamError::new("initial_window", "must be >= 1 segment"));
        }
        if self.initial_ssthresh == Some(0) {
            return Err(ParamError::new("initial_ssthresh", "must be >= 1 segment"));
        }
        Ok(())
    }

    /// The initial window in segments for segments of `mss` bytes.
    pub fn initial_window_segments(&self, mss: u32) -> u32 {
        self.initial_window.unwrap_or(match mss {
            m if m > 2190 => 2,
            m if m > 1095 => 3,
            _ => 4,
        })
    }
}

/// NewReno's state: the congestion window and slow-start threshold.
#[derive(Clone, Debug)]
pub struct NewReno {
    /// Segment size, bytes.
    mss: u64,
    /// Congestion window, bytes.
    cwnd: f64,
    /// Slow-start threshold, bytes (`u64::MAX`: unlimited).
    ssthresh: u64,
    /// The window arithmetic ([`NewRenoConfig::rules`]).
    rules: RenoRules,
    /// The receiver's window, bytes (infinite without one); ns-2's
    /// reductions halve `min(cwnd, rwnd)`.
    rwnd: f64,
}

impl NewReno {
    /// Validate `cfg` and build a controller for segments of `mss` bytes (>= 1).
    pub fn new(cfg: &NewRenoConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        if mss == 0 {
            return Err(ParamError::new("mss", "must be >= 1 byte"));
        }
        let mss = u64::from(mss);
        let iw = u64::from(cfg.initial_window_segments(mss as u32));
        Ok(NewReno {
            mss,
            cwnd: (iw * mss) as f64,
            ssthresh: cfg
                .initial_ssthresh
                .map_or(u64::MAX, |s| u64::from(s) * mss),
            rules: cfg.rules,
            rwnd: f64::INFINITY,
        })
    }

    /// True while in slow start (`cwnd < ssthresh`).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh as f64
    }

    /// RFC 5681 equation 4: `max(FlightSize / 2, 2*SMSS)`, bytes.
    fn halved(&self, in_flight: u64) -> u64 {
        (in_flight / 2).max(2 * self.mss)
    }

    /// ns-2's `slowdown`: half the window `W = min(cwnd, rwnd)`, bytes
    /// (`W / 2`, or in whole segments `floor(floor(W) / 2)`); ssthresh is
    /// its whole segments, at least 2.
    fn ns2_halve(&mut self) -> f64 {
        let mss = self.mss as f64;
        let w = self.cwnd.min(self.rwnd);
        let half = if self.rules == RenoRules::Ns2Integer {
            ((w / mss).floor() / 2.0).floor()
        } else {
            w / mss / 2.0
        };
        self.ssthresh = (half.floor() as u64).max(2) * self.mss;
        half * mss
    }

    /// ns-2's arithmetic (either [`RenoRules`] of ns-2)?
    #[inline]
    fn ns2(&self) -> bool {
        self.rules != RenoRules::Rfc5681
    }

    /// ns-2's `opencwnd`: one segment in slow start, `1/cwnd` segments in
    /// congestion avoidance, per ACK.
    fn ns2_open(&mut self) {
        let mss = self.mss as f64;
        self.cwnd += if self.in_slow_start() {
            mss
        } else {
            mss * mss / self.cwnd
        };
    }
}

impl Controller for NewReno {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo) {
        if ack.in_recovery || ack.acked == 0 || ack.ece {
            return;
        }
        if self.ns2() {
            self.ns2_open();
        } else if self.in_slow_start() {
            self.cwnd += ack.acked.min(ABC_LIMIT_SEGMENTS * self.mss) as f64;
        } else {
            self.cwnd += self.mss as f64 * ack.acked as f64 / self.cwnd;
        }
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        match ev {
            Congestion::Loss { .. } | Congestion::Ecn { .. } if self.ns2() => {
                // No floor: below one segment the sender waits for its timer
                // (with `tcp.ecn_rto_wait`; see `on_ecn_wait_end`).
                self.cwnd = self.ns2_halve();
            }
            Congestion::Timeout { .. } if self.ns2() => {
                self.ns2_halve();
                self.cwnd = self.mss as f64;
            }
            Congestion::Loss { in_flight } | Congestion::Ecn { in_flight } => {
                self.ssthresh = self.halved(in_flight);
                self.cwnd = self.ssthresh as f64;
            }
            Congestion::Timeout { in_flight } => {
                self.ssthresh = self.halved(in_flight);
                self.cwnd = self.mss as f64;
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        if self.ns2() {
            // ns-2: the inflation goes, cwnd stays; the ACK opens it.
            self.ns2_open();
        } else {
            // RFC 6582 section 3.2 step 3, option (2): cwnd = ssthresh.
            self.cwnd = self.ssthresh as f64;
        }
    }

    fn on_ecn_wait_end(&mut self, _now: SimTime) {
        if self.ns2() {
            // ns-2's `timeout` with nothing outstanding: `cwnd = 1`.
            self.cwnd = self.cwnd.max(self.mss as f64);
        }
    }

    fn set_receiver_window(&mut self, bytes: u64) {
        self.rwnd = bytes as f64;
    }

    #[inline]
    fn window(&self) -> u64 {
        self.cwnd as u64
    }

    fn ssthresh(&self) -> Option<u64> {
        Some(self.ssthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::SimDuration;

    const MSS: u32 = 1000;

    fn ack(acked: u64) -> AckInfo {
        AckInfo {
            acked,
            in_flight: 10_000,
            ..AckInfo::segment(MSS, SimDuration::from_millis(100))
        }
    }

    fn reno(iw: u32, ssthresh: Option<u32>) -> NewReno {
        let cfg = NewRenoConfig {
            initial_window: Some(iw),
            initial_ssthresh: ssthresh,
            ..Default::default()
        };
        NewReno::new(&cfg, MSS).unwrap()
    }

    #[test]
    fn initial_window_follows_rfc_5681_by_segment_size() {
        let d = NewRenoConfig::default();
        assert_eq!(d.initial_window_segments(1500), 3);
        assert_eq!(d.initial_window_segments(1095), 4);
        assert_eq!(d.initial_window_segments(2191), 2);
        let c = NewReno::new(&d, 1500).unwrap();
        assert_eq!(c.window(), 4500);
        assert_eq!(c.ssthresh(), Some(u64::MAX));
    }

    #[test]
    fn slow_start_doubles_the_window_over_one_window_of_acks() {
        let mut c = reno(4, None);
        for _ in 0..4 {
            c.on_ack(&ack(1000));
        }
        assert_eq!(c.window(), 8000);
    }

    #[test]
    fn slow_start_counts_at_most_two_segments_per_ack() {
        let mut c = reno(4, None);
        c.on_ack(&ack(5000));
        assert_eq!(c.window(), 6000);
    }

    #[test]
    fn congestion_avoidance_adds_about_one_segment_per_window() {
        let mut c = reno(10, Some(10));
        assert!(!c.in_slow_start());
        let mut expect = 10_000.0f64;
        for _ in 0..10 {
            c.on_ack(&ack(1000));
            expect += 1000.0 * 1000.0 / expect;
        }
        assert_eq!(c.cwnd, expect);
        // 10 increments of ~MSS^2/cwnd: a little under one MSS.
        assert_eq!(c.window(), 10_958);
    }

    #[test]
    fn acks_in_recovery_and_duplicates_do_not_grow_the_window() {
        let mut c = reno(4, None);
        c.on_ack(&AckInfo {
            in_recovery: true,
            ..ack(1000)
        });
        c.on_ack(&ack(0));
        assert_eq!(c.window(), 4000);
    }

    #[test]
    fn loss_and_ecn_set_cwnd_to_half_the_flight() {
        for ev in [
            Congestion::Loss { in_flight: 20_000 },
            Congestion::Ecn { in_flight: 20_000 },
        ] {
            let mut c = reno(30, None);
            c.on_congestion(SimTime::ZERO, ev);
            assert_eq!(c.ssthresh(), Some(10_000));
            assert_eq!(c.window(), 10_000);
        }
    }

    #[test]
    fn ssthresh_never_falls_below_two_segments() {
        let mut c = reno(30, None);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 3000 });
        assert_eq!(c.ssthresh(), Some(2000));
        assert_eq!(c.window(), 2000);
    }

    #[test]
    fn timeout_collapses_cwnd_to_one_segment() {
        let mut c = reno(30, None);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 30_000 });
        assert_eq!(c.ssthresh(), Some(15_000));
        assert_eq!(c.window(), 1000);
        assert!(c.in_slow_start());
    }

    #[test]
    fn recovery_exit_sets_cwnd_to_ssthresh() {
        let mut c = reno(30, None);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 30_000 });
        c.cwnd = 40_000.0;
        c.on_recovery_exit(SimTime::ZERO);
        assert_eq!(c.window(), 15_000);
    }

    fn ns2(rules: RenoRules, iw: u32, ssthresh: Option<u32>) -> NewReno {
        let cfg = NewRenoConfig {
            initial_window: Some(iw),
            initial_ssthresh: ssthresh,
            rules,
        };
        NewReno::new(&cfg, MSS).unwrap()
    }

    #[test]
    fn ns2_rules_grow_per_ack_whatever_it_acknowledges() {
        // Slow start: one segment per ACK even for a 5-segment ACK (RFC
        // 3465's limit would give two).
        let mut c = ns2(RenoRules::Ns2, 4, None);
        c.on_ack(&ack(5000));
        assert_eq!(c.window(), 5000);
        // Congestion avoidance: 1/cwnd segments per ACK, not per segment.
        let mut c = ns2(RenoRules::Ns2, 10, Some(10));
        c.on_ack(&ack(3000));
        assert_eq!(c.cwnd, 10_100.0);
    }

    #[test]
    fn ns2_rules_halve_the_window_not_the_flight() {
        // cwnd 7.5 segments, FlightSize 20 (ignored).
        for (rules, ss, cwnd) in [
            (RenoRules::Ns2, 3000, 3750.0),
            (RenoRules::Ns2Integer, 3000, 3000.0),
        ] {
            let mut c = ns2(rules, 7, Some(2));
            c.cwnd = 7500.0;
            c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 20_000 });
            assert_eq!((c.ssthresh, c.cwnd), (ss, cwnd), "{rules:?}");
        }
        // A window of 3: ssthresh floors at 2, cwnd at 1 (whole segments)
        // or 1.5.
        let mut c = ns2(RenoRules::Ns2Integer, 3, Some(2));
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 3000 });
        assert_eq!((c.ssthresh, c.cwnd), (2000, 1000.0));
        let mut c = ns2(RenoRules::Ns2, 3, Some(2));
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 3000 });
        assert_eq!((c.ssthresh, c.cwnd), (2000, 1500.0));
    }

    #[test]
    fn ns2_rules_halve_the_window_capped_by_the_receivers() {
        // ns-2's `window()`: cwnd 30 segments against a 20-segment receiver
        // window halves to 10, not 15; RFC 5681 halves the FlightSize.
        for rules in [RenoRules::Ns2, RenoRules::Ns2Integer] {
            let mut c = ns2(rules, 30, Some(2));
            c.set_receiver_window(20 * u64::from(MSS));
            c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 20_000 });
            assert_eq!((c.ssthresh, c.cwnd), (10_000, 10_000.0), "{rules:?}");
            c.cwnd = 30_000.0;
            c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 20_000 });
            assert_eq!((c.ssthresh, c.cwnd), (10_000, 1000.0), "{rules:?}");
        }
        let mut c = ns2(RenoRules::Ns2, 30, Some(2));
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 20_000 });
        assert_eq!(c.cwnd, 15_000.0);
    }

    #[test]
    fn ns2_rules_leave_less_than_a_segment_until_the_ecn_wait_ends() {
        // ns-2's CLOSE_CWND_HALF has no floor: 1.5 segments halve to 0.75
        // (whole segments: 1 to 0); the end of the wait restores one.
        let mut c = ns2(RenoRules::Ns2, 1, Some(2));
        c.cwnd = 1500.0;
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 1000 });
        assert_eq!((c.ssthresh, c.window()), (2000, 750));
        c.on_ecn_wait_end(SimTime::ZERO);
        assert_eq!(c.window(), 1000);
        let mut c = ns2(RenoRules::Ns2Integer, 1, Some(2));
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 1000 });
        assert_eq!(c.window(), 0);
        c.on_ecn_wait_end(SimTime::ZERO);
        assert_eq!(c.window(), 1000);
        // RFC 5681's reduction never goes below two segments, and the end
        // of a wait leaves it alone.
        let mut r = reno(1, None);
        r.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 1000 });
        r.on_ecn_wait_end(SimTime::ZERO);
        assert_eq!(r.window(), 2000);
    }

    #[test]
    fn ns2_rules_lower_ssthresh_again_at_a_second_timeout() {
        let mut c = ns2(RenoRules::Ns2Integer, 12, None);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 12_000 });
        assert_eq!((c.ssthresh, c.cwnd), (6000, 1000.0));
        // The same data times out again: half of one segment, floored at 2
        // (RFC 5681 would hold 6000 for the unchanged FlightSize).
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 12_000 });
        assert_eq!(c.ssthresh, 2000);
        let mut r = reno(12, None);
        r.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 12_000 });
        r.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 12_000 });
        assert_eq!(r.ssthresh, 6000);
    }

    #[test]
    fn ns2_rules_leave_cwnd_at_recovery_exit_and_open_it_once() {
        let mut c = ns2(RenoRules::Ns2Integer, 3, None);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 3000 });
        // cwnd 1 < ssthresh 2: the exit ACK is a slow-start step, to 2
        // (RFC 6582 sets cwnd = ssthresh = 2 as well, but from 9 it would
        // not: below).
        c.on_recovery_exit(SimTime::ZERO);
        assert_eq!(c.window(), 2000);
        let mut c = ns2(RenoRules::Ns2, 9, None);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 9000 });
        assert_eq!((c.ssthresh, c.cwnd), (4000, 4500.0));
        c.on_recovery_exit(SimTime::ZERO);
        assert_eq!(c.cwnd, 4500.0 + 1000.0 * 1000.0 / 4500.0);
    }

    #[test]
    fn zero_initial_window_or_ssthresh_is_rejected_with_its_key() {
        let e = NewRenoConfig {
            initial_window: Some(0),
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.key, "initial_window");
        let e = NewRenoConfig {
            initial_ssthresh: Some(0),
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.key, "initial_ssthresh");
        assert_eq!(
            NewReno::new(&NewRenoConfig::default(), 0).unwrap_err().key,
            "mss"
        );
    }
}
