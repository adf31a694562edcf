//! PCC's optional rate adjustment (`adjust_rate`), the thesis's "quick and
//! dirty solution" of §6.5.1 after Ramesh and Rhee, and the packet loss rate
//! it needs.
//!
//! Provenance (spec `seed-004-damm-pcc.md` §2.13, thesis §6.5.1, Eq. 6.3):
//! - \[DOC\] the code printed in the thesis: with `k = rtt · tcprate / psize`
//!   packets per RTT at the estimated rate,
//!   `loss = (1 - (1 - lossrate)^floor(k)) / k`, then `r_TCP` is recomputed
//!   from `loss` with the same equation; one iteration only. `loss` replaces
//!   the measured loss *event* rate by the loss event rate a CBR flow at
//!   `r_TCP` would measure under random loss `lossrate` (Eq. 6.3).
//! - \[DOC\] edge case kept as printed: `k < 1` gives `floor(k) = 0`, loss 0,
//!   and the equation's maximum rate (the caller's rate function decides what
//!   `p = 0` means; PCC's is "unbounded").
//! - INFERRED (unspecified, spec appendix): the packet loss rate `lossrate`
//!   is measured over the same packets as the loss event history: lost
//!   sequence numbers / all sequence numbers (received or lost) since the
//!   history was last reset (the start of the current protected time). That is the span the loss event rate it corrects is
//!   taken over (up to N_SAMP intervals back); a longer span would mix
//!   conditions from before the off period, which spec 2.4 forbids for the
//!   estimate. The counts are [`crate::tfrc::LossHistory`]'s (`lost`,
//!   `received`), which restart with it.

/// Ramesh/Rhee's expected loss event rate of a CBR flow sending `k` packets
/// per RTT under independent packet loss `loss_rate` (Eq. 6.3, with the
/// thesis code's `floor(k)` in the exponent). 0 when `k < 1`.
pub fn expected_loss_event_rate(loss_rate: f64, k: f64) -> f64 {
    if k <= 0.0 {
        return 0.0;
    }
    let n = k.floor();
    (1.0 - (1.0 - loss_rate).powi(n as i32)) / k
}

/// The adjusted TCP-friendly rate of §2.13: `rate_of(p, rtt)` is the TCP
/// throughput equation in bytes/s for loss event rate `p` and RTT `rtt` (s);
/// `r_tcp` is its value for the measured loss event rate. Returns the rate
/// recomputed once from the Ramesh/Rhee loss event rate.
pub fn adjusted_rate(
    r_tcp: f64,
    loss_rate: f64,
    rtt: f64,
    packet_size: f64,
    rate_of: impl Fn(f64, f64) -> f64,
) -> f64 {
    let k = rtt * r_tcp / packet_size;
    rate_of(expected_loss_event_rate(loss_rate, k), rtt)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spec §3 item 10's table at p = 1 %: l_EXP for k = 1, 2, 5, 10, 20, 50.
    #[test]
    fn expected_loss_event_rate_matches_the_spec_table() {
        for (k, want) in [
            (1.0, 0.0100),
            (2.0, 0.00995),
            (5.0, 0.00980),
            (10.0, 0.00956),
            (20.0, 0.00910),
            (50.0, 0.00790),
        ] {
            let got = expected_loss_event_rate(0.01, k);
            assert!(
                (got - want).abs() < 0.000_005 + 1e-12,
                "k {k}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn fewer_than_one_packet_per_rtt_gives_no_loss_events() {
        assert_eq!(expected_loss_event_rate(0.1, 0.7), 0.0);
    }

    #[test]
    fn adjusted_rate_feeds_the_ramesh_rhee_rate_to_the_equation() {
        // k = 0.1 s * 50_000 B/s / 1000 B = 5 packets per RTT.
        let got = adjusted_rate(50_000.0, 0.02, 0.1, 1000.0, |p, rtt| p * 1e6 + rtt);
        let want = (1.0 - 0.98f64.powi(5)) / 5.0 * 1e6 + 0.1;
        assert!((got - want).abs() < 1e-9);
    }
}
