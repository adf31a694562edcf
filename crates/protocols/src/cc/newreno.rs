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
}

impl Controller for NewReno {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo) {
        if ack.in_recovery || ack.acked == 0 || ack.ece {
            return;
        }
        if self.in_slow_start() {
            self.cwnd += ack.acked.min(ABC_LIMIT_SEGMENTS * self.mss) as f64;
        } else {
            self.cwnd += self.mss as f64 * ack.acked as f64 / self.cwnd;
        }
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        match ev {
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
        // RFC 6582 section 3.2 step 3, option (2): cwnd = ssthresh.
        self.cwnd = self.ssthresh as f64;
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
