//! The window state the loss-based high-speed controllers (Scalable TCP,
//! HighSpeed TCP, BIC) share with NewReno: congestion window and slow-start
//! threshold in bytes, slow start, which ACKs may grow the window, and the
//! cut on a congestion signal. Each controller adds only its own increase and
//! decrease laws.
//!
//! Provenance: RFC 5681 section 3.1 (slow start while `cwnd < ssthresh`, the
//! initial window, 1 SMSS after a retransmission timeout); RFC 3465 section
//! 2.2 (an ACK counts at most L = 2 SMSS; here in congestion avoidance too,
//! against the stretch ACKs after a timeout); RFC 3168 section 6.1.2 (no
//! growth on an ECN-Echo ACK); RFC 6582 (no growth in recovery, `cwnd =
//! ssthresh` on its exit).

use sim_core::{AckInfo, Congestion, ParamError};

use super::reno_start;

/// RFC 3465 section 2.2: an ACK counts for at most `L = 2` segments.
const ABC_LIMIT_SEGMENTS: u64 = 2;

/// Congestion window and slow-start threshold of a loss-based controller.
#[derive(Clone, Debug)]
pub(crate) struct LossWindow {
    /// Segment size, bytes.
    pub mss: u64,
    /// Congestion window, bytes (fractional increments accumulate).
    pub cwnd: f64,
    /// Slow-start threshold, bytes (`u64::MAX`: unlimited).
    pub ssthresh: u64,
}

impl LossWindow {
    /// The initial window (NewReno's keys and rule) for segments of `mss`
    /// bytes.
    pub fn new(
        initial_window: Option<u32>,
        initial_ssthresh: Option<u32>,
        mss: u32,
    ) -> Result<Self, ParamError> {
        if mss == 0 {
            return Err(ParamError::new("mss", "must be >= 1 byte"));
        }
        let iw =
            u64::from(reno_start(initial_window, initial_ssthresh).initial_window_segments(mss));
        let mss = u64::from(mss);
        Ok(LossWindow {
            mss,
            cwnd: (iw * mss) as f64,
            ssthresh: initial_ssthresh.map_or(u64::MAX, |s| u64::from(s) * mss),
        })
    }

    /// True while in slow start.
    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh as f64
    }

    /// The window in segments.
    #[inline]
    pub fn segments(&self) -> f64 {
        self.cwnd / self.mss as f64
    }

    /// The bytes `ack` counts for growth (at most 2 SMSS), or `None` when it
    /// may not grow the window: a duplicate, an ACK in recovery or one that
    /// carries ECN-Echo.
    #[inline]
    pub fn counted(&self, ack: &AckInfo) -> Option<f64> {
        if ack.in_recovery || ack.acked == 0 || ack.ece {
            return None;
        }
        Some(ack.acked.min(ABC_LIMIT_SEGMENTS * self.mss) as f64)
    }

    /// Slow start's growth for `counted` bytes, if in slow start; `false`
    /// leaves congestion avoidance to the controller.
    #[inline]
    pub fn slow_start(&mut self, counted: f64) -> bool {
        let ss = self.in_slow_start();
        if ss {
            self.cwnd += counted;
        }
        ss
    }

    /// A congestion signal with the controller's new threshold `ssthresh`
    /// (bytes): the window drops to it on a loss or ECN-Echo, to 1 SMSS on a
    /// timeout.
    pub fn cut(&mut self, ssthresh: u64, ev: Congestion) {
        self.ssthresh = ssthresh;
        self.cwnd = match ev {
            Congestion::Loss { .. } | Congestion::Ecn { .. } => ssthresh as f64,
            Congestion::Timeout { .. } => self.mss as f64,
        };
    }

    /// RFC 6582's full acknowledgement: `cwnd = ssthresh`.
    pub fn recovery_exit(&mut self) {
        self.cwnd = self.ssthresh as f64;
    }
}
