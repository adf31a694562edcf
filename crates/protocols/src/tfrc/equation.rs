//! The TCP throughput equation of Padhye et al. (1998) as TFRC uses it.
//!
//! Provenance: RFC 5348 section 3.1; seed 004 (Damm 2001) eq. 5.4, spec
//! `seed-004-damm-pcc.md` section 2.12.3:
//!
//! ```text
//! X = s / ( R sqrt(2 b p / 3) + t_RTO min(1, 3 sqrt(3 b p / 8)) p (1 + 32 p^2) )   [bytes/s]
//! ```
//!
//! with `s` the packet size (bytes), `R` the RTT (s), `p` the loss-event
//! rate, `b` the packets acknowledged per ACK and `t_RTO` the retransmission
//! timeout (s). The thesis and ns-2 use `b = 1` and `t_RTO = 4 R` (RFC 5348
//! section 4.3 recommends `b = 1` and `t_RTO = max(4 R, 1 s)`'s simplification
//! `4 R`); [`RtoRule`] offers both.
//!
//! Degenerate inputs (EXT, ns-2 `p_to_b` in `tfrc-sink.cc`): `p <= 0`,
//! a negative RTT or a denominator below 1e-7 give the cap; the result is
//! never above the cap. ns-2's cap is `MAXRATE = 25,000,000` bytes/s
//! ([`NS2_MAXRATE`]); netsim callers pass their own cap (the PCC receiver:
//! "a very large double", TFRC: `f64::INFINITY`, since the sender's rate is
//! then limited by `2 X_recv` anyway).
//!
//! Check values (spec 2.12.3; `s` = 1000 B, `R` = 0.1 s, `b` = 1, `t_RTO` =
//! 4 R): p = 0.01 -> 112.33 pkt/s, p = 0.001 -> 383.84 pkt/s, p = 0.1 ->
//! 17.70 pkt/s.

use serde::{Deserialize, Serialize};

/// ns-2's `MAXRATE`, bytes/s: `p_to_b`'s cap.
pub const NS2_MAXRATE: f64 = 25_000_000.0;

/// How the equation's retransmission timeout follows the RTT.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "rule", deny_unknown_fields)]
pub enum RtoRule {
    /// `t_RTO = k R` (thesis, ns-2 and RFC 5348's simplification: k = 4).
    Multiple {
        /// The multiple k (> 0).
        k: f64,
    },
    /// `t_RTO = max(k R, min)` (RFC 5348 section 4.3 mentions `max(4R, 1 s)`
    /// as TCP's own bound; `min` in seconds).
    MultipleWithFloor {
        /// The multiple k (> 0).
        k: f64,
        /// Lower bound, seconds (>= 0).
        min: f64,
    },
}

impl Default for RtoRule {
    fn default() -> Self {
        RtoRule::Multiple { k: 4.0 }
    }
}

impl RtoRule {
    /// `t_RTO` for RTT `rtt` (seconds).
    pub fn rto(&self, rtt: f64) -> f64 {
        match *self {
            RtoRule::Multiple { k } => k * rtt,
            RtoRule::MultipleWithFloor { k, min } => (k * rtt).max(min),
        }
    }
}

/// The Padhye throughput `X` in bytes/s for packet size `s` (bytes), RTT
/// `rtt` (s), loss-event rate `p`, `b` packets per ACK and timeout `rto`
/// (s), capped at `cap` bytes/s (`p <= 0`, `rtt < 0` or a denominator below
/// 1e-7 give `cap`, as ns-2's `p_to_b`).
pub fn padhye(s: f64, rtt: f64, p: f64, b: f64, rto: f64, cap: f64) -> f64 {
    if p <= 0.0 || rtt < 0.0 || !p.is_finite() {
        return cap;
    }
    let den = rtt * (2.0 * b * p / 3.0).sqrt()
        + rto * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    if den < 1e-7 {
        return cap;
    }
    (s / den).min(cap)
}

/// The loss-event rate at which [`padhye`] (uncapped) gives `x` bytes/s, by
/// bisection on `p` in (0, 1] (X falls monotonically with p); used for RFC
/// 5348 section 6.3.1's synthetic first loss interval. Returns 1 when even
/// `p = 1` gives more than `x`, and a tiny p (1e-12) when `x` is beyond
/// reach.
pub fn p_for_rate(x: f64, s: f64, rtt: f64, b: f64, rto: f64) -> f64 {
    let f = |p: f64| padhye(s, rtt, p, b, rto, f64::INFINITY);
    if f(1.0) >= x {
        return 1.0;
    }
    let (mut lo, mut hi) = (1e-12f64, 1.0f64);
    if f(lo) <= x {
        return lo;
    }
    // Bisect in log space: 100 halvings of the exponent range suffice.
    for _ in 0..100 {
        let mid = (lo * hi).sqrt();
        if f(mid) > x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo * hi).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkts(p: f64) -> f64 {
        padhye(1000.0, 0.1, p, 1.0, 0.4, f64::INFINITY) / 1000.0
    }

    #[test]
    fn padhye_gives_the_spec_check_values() {
        assert!((pkts(0.01) - 112.33).abs() < 0.005, "{}", pkts(0.01));
        assert!((pkts(0.001) - 383.84).abs() < 0.005, "{}", pkts(0.001));
        assert!((pkts(0.1) - 17.70).abs() < 0.005, "{}", pkts(0.1));
        // 32 pkt/s at 100 ms needs p ~ 0.0584 (spec 2.12.3).
        assert!((pkts(0.0584) - 32.0).abs() < 0.1, "{}", pkts(0.0584));
    }

    #[test]
    fn padhye_scales_as_one_over_rtt_with_rto_4rtt() {
        let a = padhye(1000.0, 0.1, 0.01, 1.0, RtoRule::default().rto(0.1), 1e300);
        let b = padhye(1000.0, 0.2, 0.01, 1.0, RtoRule::default().rto(0.2), 1e300);
        assert!((a / b - 2.0).abs() < 1e-12);
    }

    #[test]
    fn degenerate_inputs_give_the_cap_like_ns2() {
        assert_eq!(padhye(1000.0, 0.1, 0.0, 1.0, 0.4, NS2_MAXRATE), NS2_MAXRATE);
        assert_eq!(
            padhye(1000.0, -1.0, 0.1, 1.0, 0.4, NS2_MAXRATE),
            NS2_MAXRATE
        );
        // Tiny RTT: denominator below 1e-7.
        assert_eq!(
            padhye(1000.0, 1e-9, 0.01, 1.0, 4e-9, NS2_MAXRATE),
            NS2_MAXRATE
        );
        // Large result is capped.
        assert_eq!(
            padhye(1000.0, 1e-4, 1e-6, 1.0, 4e-4, NS2_MAXRATE),
            NS2_MAXRATE
        );
    }

    #[test]
    fn p_for_rate_inverts_padhye() {
        for p in [1e-5, 1e-3, 0.01, 0.2] {
            let x = padhye(1000.0, 0.05, p, 1.0, 0.2, f64::INFINITY);
            let q = p_for_rate(x, 1000.0, 0.05, 1.0, 0.2);
            assert!((q / p - 1.0).abs() < 1e-9, "{p} {q}");
        }
        assert_eq!(p_for_rate(1.0, 1000.0, 0.05, 1.0, 0.2), 1.0);
    }

    #[test]
    fn the_rto_floor_applies() {
        let r = RtoRule::MultipleWithFloor { k: 4.0, min: 1.0 };
        assert_eq!(r.rto(0.1), 1.0);
        assert_eq!(r.rto(0.5), 2.0);
    }
}
