//! The window sender's options for reproducing ns-2's `Agent/TCP/Newreno`
//! (its timer's resets and timing, partial ACKs, the careful recover check,
//! limited transmit), each beside the RFC behaviour it replaces.

use super::*;

/// ns-2's timer with the defaults of 2001 (100-ms ticks, no minimum RTO
/// but two ticks, 6-s initial RTO, 64-s cap) on top of `base`.
fn ns2_2001_timer(base: TcpConfig) -> TcpConfig {
    TcpConfig {
        rto_estimator: crate::transport::RtoEstimator::Ns2,
        clock_granularity: SimDuration::from_millis(100),
        min_rto: SimDuration::ZERO,
        initial_rto: SimDuration::from_secs(6),
        max_rto: SimDuration::from_secs(64),
        ..base
    }
}

#[test]
fn the_ns2_timer_restarts_at_a_fast_retransmit_and_rfc6298s_does_not() {
    let ns2 = ns2_2001_timer(TcpConfig::default());
    for (cfg, restarted) in [(TcpConfig::default(), false), (ns2, true)] {
        let initial = cfg.initial_rto;
        let mut r = Rig::new(cfg, 10, None, None);
        r.start();
        assert_eq!(r.s.rto_deadline, Some(ms(0) + initial));
        // Segment 0 is lost; three duplicate ACKs at 100 ms retransmit it.
        r.h.now = ms(100);
        for _ in 0..3 {
            r.ack(0);
        }
        assert!(r.s.in_recovery());
        let want = if restarted { ms(100) } else { ms(0) } + initial;
        assert_eq!(r.s.rto_deadline, Some(want), "restarted: {restarted}");
    }
}

/// Segments 0 and 5 of a ten-segment window lost; eight duplicate ACKs
/// of 0 at 100 ms (fast retransmit at the third, segments 10-12 sent on
/// the inflation).
fn two_holes(cfg: TcpConfig) -> Rig {
    let mut r = Rig::new(cfg, 10, None, None);
    r.start();
    r.h.now = ms(100);
    for _ in 0..8 {
        r.ack(0);
    }
    assert_eq!(r.s.snd_nxt(), 13_000);
    r
}

#[test]
fn without_partial_window_deflation_a_partial_ack_drops_the_inflation() {
    let cfg = TcpConfig {
        partial_window_deflation: false,
        ..TcpConfig::default()
    };
    let mut r = two_holes(cfg);
    r.h.now = ms(150);
    let out = r.ack(5000);
    // The window is back to cwnd (5000) at once: 8000 outstanding, so the
    // hole's retransmission goes and nothing new (RFC 6582's deflation
    // leaves 9000 and sends 13000 too: the test above).
    assert_eq!(seqs(&out), [5000]);
    assert_eq!(r.s.cwnd(), 5000);
    // Later duplicates inflate from there.
    r.ack(5000);
    assert_eq!(r.s.cwnd(), 6000);
}

#[test]
fn every_partial_ack_restarts_the_timer_with_slow_but_steady() {
    for (timer, restarted) in [
        (crate::transport::PartialAckTimer::First, false),
        (crate::transport::PartialAckTimer::Every, true),
    ] {
        let cfg = TcpConfig {
            partial_ack_timer: timer,
            ..retx_cfg()
        };
        let mut r = two_holes(cfg);
        r.h.now = ms(150);
        r.ack(5000);
        let first = r.s.rto_deadline;
        assert!(first.is_some_and(|d| d > ms(150)));
        // A second partial ACK (segment 7 lost too, say).
        r.h.now = ms(250);
        r.ack(7000);
        assert!(r.s.in_recovery());
        let want = if restarted {
            Some(ms(250) + r.s.rtt().rto())
        } else {
            first
        };
        assert_eq!(r.s.rto_deadline, want, "{timer:?}");
    }
}

#[test]
fn the_careful_recover_check_waits_for_an_ack_beyond_recover() {
    for (careful, second_recovery) in [(false, true), (true, false)] {
        let cfg = TcpConfig {
            careful_recover: careful,
            ..TcpConfig::default()
        };
        let mut r = Rig::new(cfg, 10, None, None);
        r.start();
        r.h.now = ms(100);
        for _ in 0..3 {
            r.ack(0);
        }
        // Full ACK: recover is 10000, the first segment sent after the
        // fast retransmit (10000) is lost, its duplicates ACK exactly 10000.
        r.ack(10_000);
        for _ in 0..3 {
            r.ack(10_000);
        }
        assert_eq!(r.s.in_recovery(), second_recovery, "careful {careful}");
        assert_eq!(
            r.h.counters.fast_retransmits,
            1 + u64::from(second_recovery)
        );
    }
}

#[test]
fn the_ns2_timer_times_a_recovery_segment_across_partial_ack_retransmissions() {
    let ns2 = ns2_2001_timer(once_per_rtt_cfg());
    for (cfg, sampled) in [(once_per_rtt_cfg(), 0), (ns2, 1)] {
        let mut r = two_holes(cfg);
        // Segment 10 (sent at 100 ms, after the fast retransmit) is timed;
        // the partial ACK at 150 ms retransmits segment 5, below it: Karn's
        // rule gives the timing up, ns-2 keeps it.
        r.h.now = ms(150);
        r.ack(5000);
        r.h.now = ms(300);
        r.ack(13_000);
        assert!(!r.s.in_recovery());
        assert_eq!(samples(&r), sampled);
    }
}

#[test]
fn ns2_limited_transmit_sends_the_next_segment_even_during_go_back_n() {
    for (ns2, sent) in [(false, vec![]), (true, vec![1000])] {
        let cfg = TcpConfig {
            limited_transmit: true,
            limited_transmit_ns2: ns2,
            ..retx_cfg()
        };
        let mut r = Rig::new(cfg, 4, None, None);
        r.start();
        // The timeout resends segment 0 with cwnd = 1 (go-back-N: snd_nxt
        // 1000, below snd_max 4000).
        assert_eq!(seqs(&r.fire()), [0]);
        // A duplicate ACK: RFC 3042 sends only new data (none fits here);
        // ns-2's send_one sends segment 1, within cwnd + 1 duplicate.
        let out = r.ack(0);
        assert_eq!(seqs(&out), sent, "ns2 {ns2}");
    }
}
