//! The window the congestion-pricing sources (`cp_tcp`, `sbrm`, `tcp_rm`)
//! share: NewReno's slow start and loss reaction around a real-valued
//! congestion-avoidance window that the source's price rule moves up and
//! down.
//!
//! Provenance (Zimmermann 2005, spec `seed-000-zimmermann.md`):
//! - Sec. 2.3.1 / spec 2.1: at connection start cwnd = 1 and ssthresh = 32
//!   segments (the `initial_window` and `initial_ssthresh` defaults); slow
//!   start adds one segment per ACK (RFC 3465's limit of 2 per ACK here).
//! - Sec. 4.3.1, 5.4.2, 5.6.3: "TCP's congestion avoidance algorithm ... was
//!   modified ... Slow start and TCP's normal reaction to packet loss were
//!   left unchanged": a fast retransmit sets `ssthresh = max(FlightSize/2,
//!   2 SMSS)` and cwnd to it, a timeout the same ssthresh and cwnd = 1
//!   segment (RFC 5681, RFC 6582; the transport does the recovery).
//! - Spec 7 item 1: the window is real-valued; the transport sends whole
//!   segments.
//!
//! INFERRED: a price rule can shrink the window in congestion avoidance,
//!   which NewReno's cannot; a shrinking window lowers ssthresh with it, so
//!   that it does not fall back into slow start (only a timeout restarts
//!   slow start, as in NewReno).
//! INFERRED: the window never falls below `min_window` segments (default 1:
//!   the transport sends at least one segment anyway).
//! INFERRED: `slow_start = false` (Table 5.4.2's "no" rows) starts in
//!   congestion avoidance and stays there after a timeout.

use sim_core::{AckInfo, Congestion, ParamError};

use super::loss_window::LossWindow;
use super::reno_start;

/// Spec 2.1: "at connection start, cwnd = 1".
pub(crate) const DEFAULT_INITIAL_WINDOW: u32 = 1;
/// Spec 2.1: "ssthresh (called SST) = 32 segments".
pub(crate) const DEFAULT_INITIAL_SSTHRESH: u32 = 32;
/// RFC 3465 section 2.2: an ACK counts for at most `L = 2` segments.
const ABC_LIMIT_SEGMENTS: u64 = 2;

/// Check the window keys every pricing source carries.
pub(crate) fn check_window_keys(
    initial_window: u32,
    initial_ssthresh: u32,
    min_window: f64,
) -> Result<(), ParamError> {
    reno_start(Some(initial_window), Some(initial_ssthresh)).validate()?;
    if !(min_window.is_finite() && min_window >= 1.0) {
        return Err(ParamError::new(
            "min_window",
            format!("{min_window} must be >= 1 segment"),
        ));
    }
    Ok(())
}

/// Check that a willingness to pay or a gain is finite and > 0.
pub(crate) fn positive(key: &str, v: f64) -> Result<(), ParamError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ParamError::new(key, format!("{v} must be finite and > 0")))
    }
}

/// A pricing source's window: NewReno's slow start and loss reaction, and a
/// real-valued congestion-avoidance window in segments.
#[derive(Clone, Debug)]
pub(crate) struct PricingWindow {
    w: LossWindow,
    /// Floor of the window, bytes.
    floor: f64,
    /// Slow start at the start and after a timeout.
    slow_start: bool,
}

impl PricingWindow {
    /// A window of `initial_window` segments of `mss` bytes.
    pub fn new(
        initial_window: u32,
        initial_ssthresh: u32,
        min_window: f64,
        slow_start: bool,
        mss: u32,
    ) -> Result<Self, ParamError> {
        check_window_keys(initial_window, initial_ssthresh, min_window)?;
        let mut w = LossWindow::new(Some(initial_window), Some(initial_ssthresh), mss)?;
        if !slow_start {
            w.ssthresh = 0;
        }
        let floor = min_window * w.mss as f64;
        w.cwnd = w.cwnd.max(floor);
        Ok(PricingWindow {
            w,
            floor,
            slow_start,
        })
    }

    /// The window, segments.
    #[inline]
    pub fn segments(&self) -> f64 {
        self.w.segments()
    }

    /// The window, bytes.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.w.cwnd as u64
    }

    /// Slow-start threshold, bytes.
    #[inline]
    pub fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }

    /// True while in slow start.
    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.w.in_slow_start()
    }

    /// The segments `ack` newly acknowledges, at most 2 (RFC 3465's L), or
    /// `None` if the ACK may not move the window: a duplicate, or an ACK in
    /// loss recovery (RFC 6582 sets the window from ssthresh on exit, so a
    /// change there would be discarded).
    #[inline]
    pub fn counted(&self, ack: &AckInfo) -> Option<f64> {
        if ack.in_recovery || ack.acked == 0 {
            return None;
        }
        Some(ack.acked.min(ABC_LIMIT_SEGMENTS * self.w.mss) as f64 / self.w.mss as f64)
    }

    /// Slow start's growth by `segments`.
    #[inline]
    pub fn grow_slow_start(&mut self, segments: f64) {
        self.w.slow_start(segments * self.w.mss as f64);
    }

    /// Leave slow start at the current window.
    #[inline]
    pub fn end_slow_start(&mut self) {
        self.w.ssthresh = self.w.ssthresh.min(self.w.cwnd as u64);
    }

    /// Add `delta` segments (may be negative) in congestion avoidance; the
    /// window keeps its floor and a shrinking window takes ssthresh along.
    #[inline]
    pub fn add(&mut self, delta: f64) {
        self.w.cwnd = (self.w.cwnd + delta * self.w.mss as f64).max(self.floor);
        self.end_slow_start();
    }

    /// A price rule's change of `delta` segments for an ACK of `n`
    /// segments: in slow start a growing rule lets slow start grow the
    /// window by `n`, and the first shrinking one ends slow start; in
    /// congestion avoidance the window moves by `delta`.
    #[inline]
    pub fn apply(&mut self, delta: f64, n: f64) {
        if self.in_slow_start() {
            if delta >= 0.0 {
                self.grow_slow_start(n);
                return;
            }
            self.end_slow_start();
        }
        self.add(delta);
    }

    /// NewReno's reaction to `ev` (RFC 5681 eq. 4): `ssthresh =
    /// max(FlightSize/2, 2 SMSS)`; cwnd = ssthresh on a loss or ECN-Echo, 1
    /// segment (at least the floor) on a timeout. Without slow start the
    /// threshold stays 0.
    pub fn reno_cut(&mut self, ev: Congestion) {
        let (Congestion::Loss { in_flight }
        | Congestion::Ecn { in_flight }
        | Congestion::Timeout { in_flight }) = ev;
        let ssthresh = (in_flight / 2).max(2 * self.w.mss);
        self.w.cut(ssthresh, ev);
        self.w.cwnd = self.w.cwnd.max(self.floor);
        if !self.slow_start {
            self.w.ssthresh = 0;
        }
    }

    /// RFC 6582's full acknowledgement: cwnd = ssthresh.
    pub fn recovery_exit(&mut self) {
        if self.w.ssthresh > 0 {
            self.w.recovery_exit();
            self.w.cwnd = self.w.cwnd.max(self.floor);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::SimDuration;

    const MSS: u32 = 1000;

    #[test]
    fn starts_at_one_segment_with_ssthresh_32_and_slow_starts() {
        let mut w = PricingWindow::new(1, 32, 1.0, true, MSS).unwrap();
        assert_eq!(w.bytes(), 1000);
        assert_eq!(w.ssthresh(), 32_000);
        assert!(w.in_slow_start());
        w.grow_slow_start(2.0);
        assert_eq!(w.segments(), 3.0);
    }

    #[test]
    fn a_shrinking_window_does_not_fall_back_into_slow_start() {
        let mut w = PricingWindow::new(40, 32, 1.0, true, MSS).unwrap();
        assert!(!w.in_slow_start());
        w.add(-20.0);
        assert_eq!(w.segments(), 20.0);
        assert!(!w.in_slow_start());
        w.add(-100.0);
        assert_eq!(w.segments(), 1.0);
    }

    #[test]
    fn losses_and_timeouts_react_as_new_reno() {
        let mut w = PricingWindow::new(40, 32, 1.0, true, MSS).unwrap();
        w.reno_cut(Congestion::Loss { in_flight: 30_000 });
        assert_eq!((w.bytes(), w.ssthresh()), (15_000, 15_000));
        w.add(3.0);
        w.recovery_exit();
        assert_eq!(w.bytes(), 15_000);
        w.reno_cut(Congestion::Timeout { in_flight: 30_000 });
        assert_eq!((w.bytes(), w.ssthresh()), (1000, 15_000));
        assert!(w.in_slow_start());
        // Without slow start a timeout leaves the window in congestion avoidance.
        let mut w = PricingWindow::new(40, 32, 1.0, false, MSS).unwrap();
        w.reno_cut(Congestion::Timeout { in_flight: 30_000 });
        assert!(!w.in_slow_start());
    }

    #[test]
    fn only_new_data_outside_recovery_counts_at_most_two_segments() {
        let w = PricingWindow::new(1, 32, 1.0, true, MSS).unwrap();
        let a = AckInfo::segment(MSS, SimDuration::from_millis(10));
        assert_eq!(w.counted(&a), Some(1.0));
        assert_eq!(w.counted(&AckInfo { acked: 5000, ..a }), Some(2.0));
        assert_eq!(w.counted(&AckInfo { acked: 500, ..a }), Some(0.5));
        assert_eq!(w.counted(&AckInfo { acked: 0, ..a }), None);
        assert_eq!(
            w.counted(&AckInfo {
                in_recovery: true,
                ..a
            }),
            None
        );
    }

    #[test]
    fn window_keys_are_checked() {
        assert_eq!(
            check_window_keys(0, 32, 1.0).unwrap_err().key,
            "initial_window"
        );
        assert_eq!(
            check_window_keys(1, 0, 1.0).unwrap_err().key,
            "initial_ssthresh"
        );
        assert_eq!(check_window_keys(1, 32, 0.5).unwrap_err().key, "min_window");
    }
}
