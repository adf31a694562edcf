//! Unit tests of the receiver.

use super::*;
use crate::transport::AckDelayConfig;
use sim_core::{stream, Harness, StreamKind};

fn ms(x: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(x)
}

struct Rig {
    k: TcpSink,
    h: Harness,
}

impl Rig {
    fn new(cfg: TcpConfig) -> Self {
        Rig {
            k: TcpSink::new(&cfg, EcnFeedback::Classic).unwrap(),
            h: Harness::new(stream(1, 0, StreamKind::Endpoint, 1)),
        }
    }
    fn delayed() -> Self {
        Rig::new(TcpConfig {
            delayed_ack: true,
            ..TcpConfig::default()
        })
    }
    fn call(&mut self, f: impl FnOnce(&mut TcpSink, &mut EndpointCtx)) -> Vec<Packet> {
        let k = &mut self.k;
        self.h.call(|ctx| f(k, ctx))
    }
    /// A data packet `[seq, seq + size)` sent at `sent`, arriving now.
    fn data_with(
        &mut self,
        seq: u64,
        size: u32,
        sent: SimTime,
        ecn: Ecn,
        flags: Flags,
    ) -> Vec<Packet> {
        let mut p = Packet::new(Default::default(), RouteId(0), PacketKind::Data, size, sent);
        p.seq = seq;
        p.ecn = ecn;
        p.flags = flags;
        self.call(|k, c| k.on_packet(p, c))
    }
    fn data(&mut self, seq: u64, sent: SimTime) -> Vec<Packet> {
        self.data_with(seq, 1000, sent, Ecn::Ect, Flags::NONE)
    }
}

fn acks(ps: &[Packet]) -> Vec<u64> {
    ps.iter().map(|p| p.ack).collect()
}

#[test]
fn in_order_segments_are_acked_one_by_one_with_their_timestamp() {
    let mut r = Rig::new(TcpConfig::default());
    r.h.now = ms(10);
    let out = r.data(0, ms(3));
    assert_eq!(out.len(), 1);
    let a = out[0];
    assert_eq!(
        (a.kind, a.size, a.ack, a.echo),
        (PacketKind::Ack, 40, 1000, ms(3))
    );
    assert_eq!(a.ecn, Ecn::NotEct);
    assert_eq!(a.flags, Flags::NONE);
    assert_eq!(acks(&r.data(1000, ms(4))), [2000]);
    assert_eq!(r.h.counters.goodput_bytes, 2000);
    assert_eq!(r.h.deadline, None);
}

#[test]
fn out_of_order_segments_get_immediate_duplicate_acks_and_a_filled_hole_jumps() {
    let mut r = Rig::delayed();
    assert!(r.data(0, ms(0)).is_empty()); // delayed
    let out = r.data(2000, ms(2));
    assert_eq!(acks(&out), [1000]);
    assert_eq!(
        out[0].echo,
        ms(0),
        "echo of the earliest unacked in-order segment"
    );
    assert_eq!(r.h.deadline, None);
    assert_eq!(acks(&r.data(4000, ms(4))), [1000]);
    assert_eq!(acks(&r.data(3000, ms(3))), [1000]);
    assert_eq!(r.k.out_of_order(), &[(2000, 5000)]);
    assert_eq!(r.h.counters.goodput_bytes, 1000);
    // The missing segment fills the hole: ACKed at once despite delayed ACKs.
    let out = r.data(1000, ms(5));
    assert_eq!(acks(&out), [5000]);
    assert_eq!(out[0].echo, ms(5));
    assert!(r.k.out_of_order().is_empty());
    assert_eq!(r.h.counters.goodput_bytes, 5000);
}

#[test]
fn a_loss_tolerant_receiver_gives_a_gap_up_and_never_sends_a_duplicate_ack() {
    let mut r = Rig::new(TcpConfig {
        reliable: false,
        ..TcpConfig::default()
    });
    assert_eq!(acks(&r.data(0, ms(0))), [1000]);
    // Segment [1000, 2000) is lost: the next ACK moves past it.
    assert_eq!(acks(&r.data(2000, ms(2))), [3000]);
    assert_eq!(acks(&r.data(3000, ms(3))), [4000]);
    assert!(r.k.out_of_order().is_empty());
    // Goodput counts only what arrived.
    assert_eq!(r.h.counters.goodput_bytes, 3000);
}

#[test]
fn partly_filling_a_hole_is_acked_at_once() {
    let mut r = Rig::delayed();
    r.data(0, ms(0));
    r.data(3000, ms(0));
    assert_eq!(acks(&r.data(1000, ms(0))), [2000]);
    assert_eq!(r.k.out_of_order(), &[(3000, 4000)]);
}

fn blocks(p: &Packet) -> Vec<(u64, u64)> {
    match p.cc {
        CcHeader::Sack(b) => b.ranges(p.ack).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn sack_blocks_put_the_triggering_block_first_then_the_recent_ones() {
    let mut r = Rig::new(TcpConfig {
        sack: true,
        ..TcpConfig::default()
    });
    let ack = |r: &mut Rig, seq| {
        let out = r.data(seq, ms(0));
        assert_eq!(out.len(), 1);
        (out[0].ack, blocks(&out[0]))
    };
    assert_eq!(ack(&mut r, 0), (1000, vec![]));
    assert_eq!(ack(&mut r, 2000), (1000, vec![(2000, 3000)]));
    assert_eq!(ack(&mut r, 4000).1, [(4000, 5000), (2000, 3000)]);
    assert_eq!(
        ack(&mut r, 6000).1,
        [(6000, 7000), (4000, 5000), (2000, 3000)]
    );
    // Three blocks at most (RFC 2018 with timestamps): the oldest goes.
    assert_eq!(
        ack(&mut r, 8000).1,
        [(8000, 9000), (6000, 7000), (4000, 5000)]
    );
    // A segment joining two blocks reports the merged block first, and
    // the merged block only once.
    assert_eq!(
        ack(&mut r, 3000).1,
        [(2000, 5000), (8000, 9000), (6000, 7000)]
    );
    // Filling the first hole moves the ACK; an in-order segment triggers
    // no block, the remembered ones still held follow.
    assert_eq!(ack(&mut r, 1000), (5000, vec![(8000, 9000), (6000, 7000)]));
    assert_eq!(ack(&mut r, 5000), (7000, vec![(8000, 9000)]));
    assert_eq!(ack(&mut r, 7000), (9000, vec![]));
    // A flow whose data carries a congestion header: its echo keeps the
    // header field, one block rides in `seq`.
    let mut r = Rig::new(TcpConfig {
        sack: true,
        ..TcpConfig::default()
    });
    let hdr = CcHeader::Rate(sim_core::RateHeader {
        desired: 1.0,
        allowed: 2.0,
        rtt: 0.1,
        hops: 1,
        congested: false,
    });
    let ack = |r: &mut Rig, seq| {
        let mut p = Packet::new(
            Default::default(),
            RouteId(0),
            PacketKind::Data,
            1000,
            ms(0),
        );
        (p.seq, p.cc) = (seq, hdr);
        let out = r.call(|k, c| k.on_packet(p, c));
        assert_eq!(out[0].cc, hdr);
        (
            out[0].ack,
            SackBlocks::from_word(out[0].seq)
                .ranges(out[0].ack)
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(ack(&mut r, 0), (1000, vec![]));
    assert_eq!(ack(&mut r, 2000), (1000, vec![(2000, 3000)]));
    assert_eq!(ack(&mut r, 4000), (1000, vec![(4000, 5000)]));
    assert_eq!(ack(&mut r, 1000), (3000, vec![(4000, 5000)]));
    // Without the option, no blocks.
    let mut plain = Rig::new(TcpConfig::default());
    plain.data(0, ms(0));
    assert!(blocks(&plain.data(2000, ms(0))[0]).is_empty());
}

#[test]
fn duplicate_segments_are_acked_at_once_and_count_no_goodput() {
    let mut r = Rig::delayed();
    r.data(0, ms(0));
    r.data(1000, ms(0));
    assert_eq!(acks(&r.data(0, ms(7))), [2000]);
    assert_eq!(r.h.counters.goodput_bytes, 2000);
}

#[test]
fn held_ranges_merge_when_they_touch_or_overlap() {
    let mut k = TcpSink::new(&TcpConfig::default(), EcnFeedback::Classic).unwrap();
    k.rcv_nxt = 0;
    for (s, e) in [(50, 60), (10, 20), (30, 40), (20, 30), (55, 70), (80, 90)] {
        k.hold(s, e);
    }
    assert_eq!(k.out_of_order(), &[(10, 40), (50, 70), (80, 90)]);
    k.hold(35, 85);
    assert_eq!(k.out_of_order(), &[(10, 90)]);
    k.advance(10);
    assert_eq!(k.rcv_nxt(), 90);
    assert!(k.out_of_order().is_empty());
}

#[test]
fn delayed_acks_cover_every_second_segment() {
    let mut r = Rig::delayed();
    r.h.now = ms(10);
    assert!(r.data(0, ms(1)).is_empty());
    assert_eq!(r.h.deadline, Some(ms(210)));
    let out = r.data(1000, ms(2));
    assert_eq!(acks(&out), [2000]);
    assert_eq!(out[0].echo, ms(1));
    assert_eq!(r.h.deadline, None);
    assert!(r.data(2000, ms(3)).is_empty());
    assert!(r.data(3000, ms(4)).len() == 1);
}

#[test]
fn delayed_ack_timer_acknowledges_a_lone_segment() {
    let mut r = Rig::delayed();
    r.h.now = ms(10);
    assert!(r.data(0, ms(1)).is_empty());
    r.h.now = ms(100);
    assert!(r.call(|k, c| k.on_timer(c)).is_empty(), "not due yet");
    assert_eq!(r.h.deadline, Some(ms(210)));
    r.h.now = ms(210);
    let out = r.call(|k, c| k.on_timer(c));
    assert_eq!(acks(&out), [1000]);
    assert_eq!(out[0].echo, ms(1));
    assert_eq!(r.h.deadline, None);
}

#[test]
fn a_fin_segment_is_acked_without_delay() {
    let mut r = Rig::delayed();
    assert_eq!(
        acks(&r.data_with(0, 300, ms(0), Ecn::Ect, Flags::FIN)),
        [300]
    );
}

#[test]
fn per_packet_echo_sets_ece_only_on_the_ack_of_a_marked_packet() {
    let mut r = Rig::new(TcpConfig::default());
    r.k.feedback = EcnFeedback::PerPacket;
    let ece = |ps: &[Packet]| ps.iter().filter(|p| p.flags.contains(Flags::ECE)).count();
    assert_eq!(ece(&r.data(0, ms(0))), 0);
    assert_eq!(
        ece(&r.data_with(1000, 1000, ms(0), Ecn::Ce, Flags::NONE)),
        1
    );
    assert_eq!(ece(&r.data(2000, ms(0))), 0);
    // CWR means nothing here, and a new mark is echoed again.
    assert_eq!(ece(&r.data_with(3000, 1000, ms(0), Ecn::Ce, Flags::CWR)), 1);
    assert_eq!(
        ece(&r.data_with(4000, 1000, ms(0), Ecn::Ce, Flags::NONE)),
        1
    );
}

#[test]
fn per_packet_echo_is_never_delayed_and_flushes_a_pending_ack() {
    let mut r = Rig::delayed();
    r.k.feedback = EcnFeedback::PerPacket;
    assert!(r.data(0, ms(0)).is_empty());
    // A marked segment: the pending ACK goes out without ECE, then the mark's.
    let out = r.data_with(1000, 1000, ms(1), Ecn::Ce, Flags::NONE);
    assert_eq!(out.len(), 2);
    assert_eq!(
        (out[0].ack, out[0].flags.contains(Flags::ECE)),
        (1000, false)
    );
    assert_eq!(
        (out[1].ack, out[1].flags.contains(Flags::ECE)),
        (2000, true)
    );
    // Unmarked segments pair up again, without ECE.
    assert!(r.data(2000, ms(2)).is_empty());
    let out = r.data(3000, ms(3));
    assert_eq!(out.len(), 1);
    assert!(!out[0].flags.contains(Flags::ECE));
}

#[test]
fn ece_is_echoed_from_the_first_ce_until_cwr() {
    let mut r = Rig::new(TcpConfig::default());
    let ece = |ps: &[Packet]| ps[0].flags.contains(Flags::ECE);
    assert!(!ece(&r.data(0, ms(0))));
    assert!(ece(&r.data_with(1000, 1000, ms(0), Ecn::Ce, Flags::NONE)));
    assert!(ece(&r.data(2000, ms(0))));
    assert!(ece(&r.data(3000, ms(0))));
    assert!(!ece(&r.data_with(4000, 1000, ms(0), Ecn::Ect, Flags::CWR)));
    assert!(!ece(&r.data(5000, ms(0))));
    // CWR and CE on the same packet: the new mark wins.
    assert!(ece(&r.data_with(6000, 1000, ms(0), Ecn::Ce, Flags::CWR)));
}

#[test]
fn acks_use_the_configured_size() {
    let mut r = Rig::new(TcpConfig {
        ack_size: sim_core::Bytes::new(52),
        ..TcpConfig::default()
    });
    assert_eq!(r.data(0, ms(0))[0].size, 52);
    assert!(TcpSink::new(
        &TcpConfig {
            ack_size: sim_core::Bytes::ZERO,
            ..TcpConfig::default()
        },
        EcnFeedback::Classic
    )
    .is_err());
}

fn queued(every: u64, hold: SimDuration, delayed_ack: bool) -> Rig {
    Rig::new(TcpConfig {
        delayed_ack,
        ack_delay: Some(AckDelayConfig {
            every: [every, every],
            hold: [hold, hold],
            gap: SimDuration::from_micros(10),
        }),
        ..TcpConfig::default()
    })
}

fn us(x: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_micros(x)
}

#[test]
fn acks_leave_through_the_queue_the_mth_held_and_its_followers_behind_it() {
    let (m, d, gap) = (
        3u64,
        SimDuration::from_millis(100),
        SimDuration::from_micros(10),
    );
    let mut r = queued(m, d, false);
    // ACK 1: generated at 0, leaves `gap` later with its original content.
    assert!(r.data(0, ms(0)).is_empty());
    assert_eq!(r.h.deadline, Some(SimTime::ZERO + gap));
    let out = r.h.fire(&mut r.k);
    assert_eq!(acks(&out), [1000]);
    assert_eq!((out[0].echo, out[0].sent), (ms(0), SimTime::ZERO + gap));
    assert_eq!(r.h.deadline, None);
    // ACK 2 likewise; ACK 3 (the m-th) is held d.
    r.h.now = ms(1);
    r.data(1000, ms(1));
    assert_eq!(acks(&r.h.fire(&mut r.k)), [2000]);
    r.h.now = ms(2);
    assert!(r.data(2000, ms(2)).is_empty());
    let held_until = ms(2) + d;
    assert_eq!(r.h.deadline, Some(held_until));
    // ACKs generated meanwhile wait behind it, whatever they acknowledge.
    r.h.now = ms(3);
    assert!(r.data(3000, ms(3)).is_empty());
    r.h.now = ms(4);
    assert!(r.data(5000, ms(4)).is_empty()); // out of order: a duplicate ACK
    assert_eq!(r.k.ack_delay().unwrap().len(), 3);
    assert_eq!(r.h.deadline, Some(held_until));
    // Calling on_timer early sends nothing and keeps the deadline.
    r.h.now = ms(50);
    assert!(r.call(|k, c| k.on_timer(c)).is_empty());
    assert_eq!(r.h.deadline, Some(held_until));
    let mut left = Vec::new();
    while r.h.deadline.is_some() {
        for p in r.h.fire(&mut r.k) {
            left.push((r.h.now, p.ack, p.echo));
        }
    }
    assert_eq!(
        left,
        [
            (held_until, 3000, ms(2)),
            (held_until + gap, 4000, ms(3)),
            (held_until + gap.saturating_mul(2), 4000, ms(4)),
        ]
    );
    // The count restarted after the held ACK (3rd): the 6th is held ...
    r.h.now = ms(200);
    assert!(r.data(4000, ms(200)).is_empty()); // fills the hole
    assert_eq!(r.h.deadline, Some(ms(200) + d));
    assert_eq!(r.k.ack_delay().unwrap().held(), 2);
    assert_eq!(acks(&r.h.fire(&mut r.k)), [6000]);
    // ... and the 7th starts a new cycle.
    r.h.now = ms(400);
    r.data(6000, ms(400));
    assert_eq!(r.h.deadline, Some(ms(400) + gap));
    assert_eq!(r.k.ack_delay().unwrap().until_hold(), m - 1);
}

#[test]
fn with_zero_gap_and_hold_acks_leave_at_once() {
    let mut r = Rig::new(TcpConfig {
        ack_delay: Some(AckDelayConfig {
            every: [2, 2],
            hold: [SimDuration::ZERO, SimDuration::ZERO],
            gap: SimDuration::ZERO,
        }),
        ..TcpConfig::default()
    });
    for i in 0..6 {
        assert_eq!(acks(&r.data(i * 1000, ms(0))), [(i + 1) * 1000]);
        assert_eq!(r.h.deadline, None);
    }
}

#[test]
fn delayed_acks_and_the_queue_share_the_timer() {
    // m = 2: the 2nd, 4th, ... ACK is held 300 ms (longer than delack_timeout).
    let d = SimDuration::from_millis(300);
    let gap = SimDuration::from_micros(10);
    let mut r = queued(2, d, true);
    assert!(r.data(0, ms(0)).is_empty());
    assert_eq!(r.h.deadline, Some(ms(200)), "delayed-ACK deadline");
    r.h.now = ms(1);
    assert!(r.data(1000, ms(1)).is_empty());
    // ACK 1 (covering two segments) entered the queue; the delayed ACK is gone.
    assert_eq!(r.h.deadline, Some(ms(1) + gap));
    let out = r.h.fire(&mut r.k);
    assert_eq!((acks(&out), out[0].echo), (vec![2000], ms(0)));
    assert_eq!(r.h.deadline, None);
    r.h.now = ms(2);
    assert!(r.data(2000, ms(2)).is_empty());
    assert_eq!(r.h.deadline, Some(ms(202)));
    r.h.now = ms(3);
    assert!(r.data(3000, ms(3)).is_empty());
    // ACK 2 is held until 303 ms.
    assert_eq!(r.h.deadline, Some(ms(3) + d));
    r.h.now = ms(4);
    assert!(r.data(4000, ms(4)).is_empty());
    // A lone segment: its delayed ACK is due first.
    assert_eq!(r.h.deadline, Some(ms(204)));
    assert!(r.h.fire(&mut r.k).is_empty(), "generated, but queued");
    assert_eq!(r.k.ack_delay().unwrap().len(), 2);
    assert_eq!(r.h.deadline, Some(ms(3) + d));
    let out = r.h.fire(&mut r.k);
    assert_eq!((acks(&out), out[0].echo), (vec![4000], ms(2)));
    assert_eq!(r.h.deadline, Some(ms(3) + d + gap));
    let out = r.h.fire(&mut r.k);
    assert_eq!((acks(&out), out[0].echo), (vec![5000], ms(4)));
    assert_eq!(r.h.deadline, None);
    assert_eq!(r.h.counters.goodput_bytes, 5000);
}

#[test]
fn a_per_packet_echo_flush_queues_both_acks_in_order() {
    let mut r = queued(100, SimDuration::from_secs(1), true);
    r.k.feedback = EcnFeedback::PerPacket;
    assert!(r.data(0, ms(0)).is_empty());
    assert!(r
        .data_with(1000, 1000, ms(1), Ecn::Ce, Flags::NONE)
        .is_empty());
    let mut out = r.h.fire(&mut r.k);
    out.extend(r.h.fire(&mut r.k));
    assert_eq!(acks(&out), [1000, 2000]);
    let ece: Vec<bool> = out.iter().map(|p| p.flags.contains(Flags::ECE)).collect();
    assert_eq!(ece, [false, true]);
    assert_eq!((out[0].sent, out[1].sent), (us(10), us(20)));
}

#[test]
fn queue_draws_come_from_the_endpoint_stream_and_repeat_per_seed() {
    let cfg = TcpConfig {
        ack_delay: Some(AckDelayConfig {
            every: [2, 5],
            hold: [SimDuration::from_millis(500), SimDuration::from_secs(1)],
            gap: SimDuration::from_micros(10),
        }),
        ..TcpConfig::default()
    };
    let run = |seed| {
        let mut k = TcpSink::new(&cfg, EcnFeedback::Classic).unwrap();
        let mut h = Harness::new(stream(seed, 0, StreamKind::Endpoint, 1));
        let mut times = Vec::new();
        for i in 0..200u64 {
            h.now = ms(10 * i);
            let mut p = Packet::new(
                Default::default(),
                RouteId(0),
                PacketKind::Data,
                1000,
                h.now,
            );
            p.seq = i * 1000;
            times.extend(h.call(|c| k.on_packet(p, c)).iter().map(|p| p.sent));
            while h.deadline.is_some_and(|t| t <= ms(10 * i + 9)) {
                times.extend(h.fire(&mut k).iter().map(|p| p.sent));
            }
        }
        while h.deadline.is_some() {
            times.extend(h.fire(&mut k).iter().map(|p| p.sent));
        }
        assert_eq!(times.len(), 200);
        (times, k.ack_delay().unwrap().held())
    };
    let (a, held) = run(1);
    assert_eq!(run(1), (a.clone(), held));
    assert_ne!(run(2).0, a);
    // 200 ACKs, one held per 2..5: between 40 and 100 held.
    assert!((40..=100).contains(&held), "{held}");
}

#[test]
fn a_bad_ack_delay_is_rejected_with_its_key() {
    let bad = TcpConfig {
        ack_delay: Some(AckDelayConfig {
            every: [10, 5],
            hold: [SimDuration::ZERO, SimDuration::ZERO],
            gap: SimDuration::ZERO,
        }),
        ..TcpConfig::default()
    };
    let e = TcpSink::new(&bad, EcnFeedback::Classic).unwrap_err();
    assert_eq!(e.key, "ack_delay.every");
}
