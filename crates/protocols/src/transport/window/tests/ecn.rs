//! The window sender's ECN side: RFC 3168's once-per-window reduction,
//! CWR and one-segment wait, ns-2's variants of them, and per-packet
//! feedback.

use super::*;

#[test]
fn ece_reduces_once_per_window_and_sets_cwr_on_the_next_new_packet() {
    let cfg = TcpConfig {
        ecn: true,
        ..TcpConfig::default()
    };
    let mut r = Rig::new(cfg, 10, None, None);
    let out = r.start();
    assert!(out.iter().all(|p| p.ecn == Ecn::Ect));
    r.h.now = ms(100);
    let mut sent = Vec::new();
    for a in 1..=10 {
        sent.extend(r.ack_with(a * MSS, SimTime::ZERO, Flags::ECE));
        // The first ECE halves the window (from the flight, before any growth);
        // the receiver repeats ECE until it sees CWR, and no ACK of that run
        // grows the window (RFC 3168 section 6.1.2).
        assert_eq!(r.s.ssthresh(), Some(5000), "ack {a}");
        assert_eq!(r.s.cwnd(), 5000, "ack {a}");
    }
    assert_eq!(r.h.counters.reductions, 1);
    // New data resumes once the flight falls below cwnd; only the first has CWR.
    assert!(!sent.is_empty());
    assert_eq!(sent[0].seq, 10_000);
    assert!(sent[0].flags.contains(Flags::CWR));
    assert!(sent[1..].iter().all(|p| !p.flags.contains(Flags::CWR)));
    // An ACK without ECE opens the window again (congestion avoidance).
    r.ack_with(10_500, SimTime::ZERO, Flags::NONE);
    assert_eq!(r.s.cwnd(), 5000 + 500 * 1000 / 5000);
    // An ECE acknowledging data sent after the reduction is a new signal.
    r.h.now = ms(200);
    r.ack_with(11_000, SimTime::ZERO, Flags::ECE);
    assert_eq!(r.h.counters.reductions, 2);
}

/// ECN with or without RFC 3168's wait, a 200-ms minimum RTO.
fn ecn_wait_cfg(wait: bool) -> TcpConfig {
    TcpConfig {
        ecn: true,
        ecn_rto_wait: wait,
        min_rto: SimDuration::from_millis(200),
        ..TcpConfig::default()
    }
}

#[test]
fn ece_at_a_one_segment_window_waits_one_rto_with_ecn_rto_wait() {
    // RFC 3168 section 6.1.2: at cwnd = 1 segment an ECE restarts the timer
    // and the next new segment waits for it; without the option NewReno's
    // reduction (to its two-segment floor) lets two segments out at once.
    for wait in [true, false] {
        let cfg = ecn_wait_cfg(wait);
        let mut r = Rig::new(cfg, 1, None, None);
        assert_eq!(seqs(&r.start()), [0]);
        r.h.now = ms(100);
        // The first RTT sample (100 ms): RTO = 100 + 4 x 50 = 300 ms.
        let out = r.ack_with(MSS, SimTime::ZERO, Flags::ECE);
        assert_eq!(r.h.counters.reductions, 1);
        if !wait {
            assert_eq!(seqs(&out), [1000, 2000], "no wait");
            assert_eq!(r.h.counters.ecn_waits, 0);
            continue;
        }
        assert!(out.is_empty(), "held: {:?}", seqs(&out));
        assert_eq!(r.h.counters.ecn_waits, 1);
        assert_eq!(r.h.deadline, Some(ms(400)));
        let out = r.fire();
        assert_eq!(r.h.now, ms(400));
        assert_eq!(seqs(&out), [1000, 2000]);
        assert!(out[0].flags.contains(Flags::CWR));
        // Not a timeout: nothing was outstanding, nothing is resent.
        assert_eq!(r.h.counters.timeouts, 0);
        // A window above one segment reacts without waiting.
        r.h.now = ms(500);
        let out = r.ack_with(2 * MSS, SimTime::ZERO, Flags::ECE);
        assert_eq!(r.h.counters.ecn_waits, 1);
        assert_eq!(r.h.counters.reductions, 2);
        assert!(!out.is_empty());
    }
}

#[test]
fn ece_that_leaves_ns2_rules_below_one_segment_waits_one_rto() {
    // ns-2's arithmetic halves 1.5 segments to 0.75; with ecn_rto_wait the
    // sender then holds its next segment for one RTO, as ns-2 does until its
    // timer fires, and restarts at one segment. Without the option it sends
    // at the transport's one-segment floor at once.
    for wait in [true, false] {
        let cfg = ecn_wait_cfg(wait);
        let cc = NewReno::new(
            &NewRenoConfig {
                initial_window: Some(3),
                initial_ssthresh: Some(32),
                rules: crate::cc::RenoRules::Ns2,
            },
            MSS as u32,
        )
        .unwrap();
        let mut r = Rig::with_cc(cfg, cc, None);
        assert_eq!(seqs(&r.start()), [0, 1000, 2000]);
        r.h.now = ms(100);
        // 3 segments halve to 1.5: no wait, above one segment.
        assert!(r.ack_with(MSS, SimTime::ZERO, Flags::ECE).is_empty());
        assert_eq!(r.s.cwnd(), 1500);
        r.ack_with(2 * MSS, SimTime::ZERO, Flags::ECE);
        let out = r.ack_with(3 * MSS, SimTime::ZERO, Flags::ECE);
        assert_eq!(seqs(&out), [3000]);
        assert!(out[0].flags.contains(Flags::CWR));
        assert_eq!(r.h.counters.ecn_waits, 0);
        // A new mark on data sent after the reduction: 1.5 halves to 0.75.
        r.h.now = ms(200);
        let out = r.ack_with(4 * MSS, SimTime::ZERO, Flags::ECE);
        assert_eq!(r.h.counters.reductions, 2);
        if !wait {
            assert_eq!(seqs(&out), [4000], "no wait");
            assert_eq!(r.h.counters.ecn_waits, 0);
            continue;
        }
        assert!(out.is_empty(), "held: {:?}", seqs(&out));
        assert_eq!(r.h.counters.ecn_waits, 1);
        let out = r.fire();
        assert!(r.h.now >= ms(400), "{:?}", r.h.now);
        assert_eq!(seqs(&out), [4000]);
        assert!(out[0].flags.contains(Flags::CWR));
        assert_eq!(r.s.cwnd(), 1000);
        assert_eq!(r.h.counters.timeouts, 0);
    }
}

/// A sender of 10 segments (`sack` or not) whose first ACK carries an
/// ECN-Echo, then three duplicate ACKs (with SACK blocks for segments 2-4
/// when `sack`) revealing segment 1's loss: the retransmission and whether
/// it reduced again. Returns the rig for more.
fn loss_after_ecn_reduction(sack: bool, once: bool) -> Rig {
    let cfg = TcpConfig {
        ecn: true,
        sack,
        ecn_loss_no_second_reduction: once,
        ..TcpConfig::default()
    };
    let mut r = Rig::new(cfg, 10, None, None);
    r.start();
    r.h.now = ms(100);
    r.ack_with(MSS, SimTime::ZERO, Flags::ECE);
    assert_eq!(r.h.counters.reductions, 1);
    let ss = r.s.ssthresh();
    let mut out = Vec::new();
    for k in 1..=3u64 {
        let mut p = Packet::new(
            Default::default(),
            RouteId(1),
            PacketKind::Ack,
            40,
            SimTime::ZERO,
        );
        p.ack = MSS;
        if sack {
            let mut b = SackBlocks::default();
            assert!(b.push(MSS, 2 * MSS, (2 + k) * MSS));
            p.cc = CcHeader::Sack(b);
        }
        out = r.call(|s, c| s.on_packet(p, c));
    }
    let what = format!("sack {sack}, once {once}");
    assert_eq!(r.h.counters.fast_retransmits, 1, "{what}");
    assert_eq!(seqs(&out)[0], 1000, "{what}");
    assert!(r.s.in_recovery(), "{what}");
    if once {
        assert_eq!(r.h.counters.reductions, 1, "{what}");
        assert_eq!(r.s.ssthresh(), ss, "{what}");
    } else {
        assert_eq!(r.h.counters.reductions, 2, "{what}");
        assert!(r.s.ssthresh() < ss, "{what}");
    }
    r
}

#[test]
fn loss_within_the_window_after_an_ecn_reduction_reduces_once_by_default() {
    // RFC 3168 section 6.1.2 / ns-2's NewReno and Sack1 / Linux: a loss of
    // data sent before an ECN-Echo reduction is retransmitted without a
    // second reduction, on NewReno's path and RFC 6675's;
    // `ecn_loss_no_second_reduction = false` reduces again.
    assert!(TcpConfig::default().ecn_loss_no_second_reduction);
    for sack in [false, true] {
        for once in [true, false] {
            loss_after_ecn_reduction(sack, once);
        }
    }
    for once in [true, false] {
        // A loss of data sent after the reduction is a new signal: the
        // full ACK ends recovery, and three duplicates of data sent since
        // reduce in both readings.
        let mut r = loss_after_ecn_reduction(false, once);
        r.ack(10 * MSS);
        assert!(!r.s.in_recovery());
        let before = r.h.counters.reductions;
        assert!(r.s.snd_max() > 10 * MSS);
        for _ in 0..3 {
            r.ack(10 * MSS);
        }
        assert_eq!(r.h.counters.fast_retransmits, 2, "once {once}");
        assert_eq!(r.h.counters.reductions, before + 1, "once {once}");
    }
}

#[test]
fn ece_is_ignored_during_loss_recovery() {
    let cfg = TcpConfig {
        ecn: true,
        ..TcpConfig::default()
    };
    let mut r = Rig::new(cfg, 10, None, None);
    r.start();
    for _ in 0..3 {
        r.ack(0);
    }
    for _ in 0..3 {
        r.ack_with(0, SimTime::ZERO, Flags::ECE);
    }
    r.ack_with(5000, SimTime::ZERO, Flags::ECE);
    assert!(r.s.in_recovery());
    assert_eq!(r.h.counters.reductions, 1);
    assert_eq!(r.s.ssthresh(), Some(5000));
}

#[test]
fn per_packet_feedback_hands_every_echo_to_the_controller_and_sends_no_cwr() {
    use crate::cc::{Wtp, WtpConfig};
    let cfg = TcpConfig {
        ecn: true,
        ..TcpConfig::default()
    };
    let wtp = WtpConfig {
        weight: Some(1.0),
        slow_start: false,
        initial_window: 10.0,
        ..WtpConfig::default()
    };
    let cc = Wtp::new(&wtp, MSS as u32).unwrap();
    let mut r = Rig {
        s: WindowSender::new(&cfg, Box::new(cc), MSS as u32, None).unwrap(),
        h: Harness::new(stream(1, 0, StreamKind::Endpoint, 0)),
    };
    let out = r.start();
    assert_eq!(out.len(), 10);
    r.h.now = ms(100);
    let mut sent = Vec::new();
    let mut expect = 10.0f64;
    for a in 1..=4 {
        sent.extend(r.ack_with(a * MSS, SimTime::ZERO, Flags::ECE));
        // Eq. (5) per marked ACK: k (w_inc / cwnd - 1) with k = 0.5, w = 1.
        expect += 0.5 * (1.0 / expect - 1.0);
    }
    // Four marks, four decreases (no once-per-window limit), no transport
    // reduction counted, no CWR on what was sent.
    assert_eq!(r.s.cwnd(), (expect * MSS as f64) as u64);
    assert_eq!(r.h.counters.reductions, 0);
    assert!(sent.iter().all(|p| !p.flags.contains(Flags::CWR)));
    assert!(sent.iter().all(|p| p.ecn == Ecn::Ect));
}
