//! Unit tests of the window sender.

use super::*;
use crate::cc::{NewReno, NewRenoConfig};
use sim_core::{stream, Harness, SimRng, StreamKind};

const MSS: u64 = 1000;

fn ms(x: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(x)
}

/// A sender driven through a [`Harness`].
struct Rig {
    s: WindowSender,
    h: Harness,
}

impl Rig {
    fn new(cfg: TcpConfig, iw: u32, ssthresh: Option<u32>, size: Option<u64>) -> Self {
        let cc = NewReno::new(
            &NewRenoConfig {
                initial_window: Some(iw),
                initial_ssthresh: ssthresh,
                ..Default::default()
            },
            MSS as u32,
        )
        .unwrap();
        Rig::with_cc(cfg, cc, size)
    }
    fn with_cc(cfg: TcpConfig, cc: NewReno, size: Option<u64>) -> Self {
        Rig {
            s: WindowSender::new(&cfg, Box::new(cc), MSS as u32, size).unwrap(),
            h: Harness::new(stream(1, 0, StreamKind::Endpoint, 0)),
        }
    }
    fn call(&mut self, f: impl FnOnce(&mut WindowSender, &mut EndpointCtx)) -> Vec<Packet> {
        let s = &mut self.s;
        self.h.call(|ctx| f(s, ctx))
    }
    fn start(&mut self) -> Vec<Packet> {
        self.call(|s, c| s.on_start(c))
    }
    /// An ACK for `ack` echoing `echo`, arriving at `self.h.now`.
    fn ack_with(&mut self, ack: u64, echo: SimTime, flags: Flags) -> Vec<Packet> {
        let mut p = Packet::new(Default::default(), RouteId(1), PacketKind::Ack, 40, echo);
        p.ack = ack;
        p.echo = echo;
        p.flags = flags;
        self.call(|s, c| s.on_packet(p, c))
    }
    fn ack(&mut self, ack: u64) -> Vec<Packet> {
        self.ack_with(ack, SimTime::ZERO, Flags::NONE)
    }
    /// Jump to the timer deadline and fire it.
    fn fire(&mut self) -> Vec<Packet> {
        self.h.fire(&mut self.s)
    }
}

fn seqs(ps: &[Packet]) -> Vec<u64> {
    ps.iter().map(|p| p.seq).collect()
}

fn retx_cfg() -> TcpConfig {
    TcpConfig {
        min_rto: SimDuration::from_millis(200),
        ..TcpConfig::default()
    }
}

#[test]
fn start_sends_the_initial_window_and_arms_the_initial_rto() {
    let mut r = Rig::new(TcpConfig::default(), 4, None, None);
    let out = r.start();
    assert_eq!(seqs(&out), [0, 1000, 2000, 3000]);
    assert!(out
        .iter()
        .all(|p| p.size == 1000 && p.kind == PacketKind::Data));
    assert!(out
        .iter()
        .all(|p| p.ecn == Ecn::NotEct && p.flags == Flags::NONE));
    assert_eq!(r.h.deadline, Some(ms(1000)));
}

#[test]
fn slow_start_doubles_cwnd_per_round_trip() {
    let mut r = Rig::new(TcpConfig::default(), 4, None, None);
    r.start();
    r.h.now = ms(100);
    let mut sent = Vec::new();
    for a in 1..=4 {
        sent.extend(r.ack(a * MSS));
    }
    assert_eq!(r.s.cwnd(), 8000);
    assert_eq!(seqs(&sent), (4..12).map(|k| k * MSS).collect::<Vec<_>>());
    r.h.now = ms(200);
    for a in 5..=12 {
        r.ack(a * MSS);
    }
    assert_eq!(r.s.cwnd(), 16_000);
}

#[test]
fn congestion_avoidance_adds_about_one_mss_per_round_trip() {
    let mut r = Rig::new(TcpConfig::default(), 10, Some(10), None);
    r.start();
    r.h.now = ms(100);
    let mut expect = 10_000.0f64;
    for a in 1..=10 {
        r.ack(a * MSS);
        expect += 1000.0 * 1000.0 / expect;
    }
    assert_eq!(r.s.cwnd(), expect as u64);
    assert!((10_900..11_000).contains(&r.s.cwnd()), "{}", r.s.cwnd());
}

#[test]
fn triple_duplicate_ack_halves_the_window_and_retransmits_once() {
    let mut r = Rig::new(TcpConfig::default(), 10, None, None);
    r.start();
    r.h.now = ms(100);
    // Segment 0 is lost; segments 1..9 each produce a duplicate ACK of 0.
    let mut sent = Vec::new();
    for k in 1..=9 {
        let out = r.ack(0);
        if k < 3 {
            assert!(out.is_empty());
        }
        if k == 3 {
            assert_eq!(seqs(&out), [0]);
            assert!(out[0].flags.contains(Flags::RETX));
            assert_eq!(r.s.ssthresh(), Some(5000));
            assert_eq!(r.s.cwnd(), 8000);
            assert!(r.s.in_recovery());
        }
        sent.extend(out);
    }
    // Inflation: 5000 + 3*1000 + 6*1000 = 14000 -> new data up to byte 14000.
    assert_eq!(r.s.cwnd(), 14_000);
    assert_eq!(seqs(&sent), [0, 10_000, 11_000, 12_000, 13_000]);
    assert_eq!(
        sent.iter()
            .filter(|p| p.flags.contains(Flags::RETX))
            .count(),
        1
    );
    assert_eq!(r.h.counters.reductions, 1);
    assert_eq!(r.h.counters.timeouts, 0);
}

#[test]
fn partial_ack_retransmits_the_next_hole_and_full_ack_exits_recovery() {
    let mut r = Rig::new(TcpConfig::default(), 10, None, None);
    r.start();
    r.h.now = ms(100);
    // Segments 0 and 5 lost: eight duplicate ACKs of 0.
    for _ in 0..8 {
        r.ack(0);
    }
    assert_eq!(r.s.cwnd(), 13_000);
    assert_eq!(r.s.snd_nxt(), 13_000);
    let before = r.h.deadline;
    r.h.now = ms(150);
    // The retransmitted 0 fills the first hole: partial ACK of 5000 (< recover 10000).
    let out = r.ack(5000);
    assert!(r.s.in_recovery());
    assert_eq!(seqs(&out), [5000, 13_000]);
    assert!(out[0].flags.contains(Flags::RETX) && !out[1].flags.contains(Flags::RETX));
    // Deflate by 5000, add back one MSS: 5000 + (8000 - 5000 + 1000) = 9000.
    assert_eq!(r.s.cwnd(), 9000);
    // The first partial ACK resets the timer.
    assert_ne!(r.h.deadline, before);
    // Everything up to 13000 arrived: a full ACK (>= recover).
    r.h.now = ms(200);
    let out = r.ack(13_000);
    assert!(!r.s.in_recovery());
    assert_eq!(r.s.cwnd(), 5000);
    // Flight 14000 - 13000 = 1000: four more segments fit in 5000.
    assert_eq!(seqs(&out), [14_000, 15_000, 16_000, 17_000]);
    assert_eq!(r.h.counters.reductions, 1);
}

#[test]
fn duplicate_acks_below_recover_do_not_start_a_second_recovery() {
    let mut r = Rig::new(TcpConfig::default(), 10, None, None);
    r.start();
    r.h.now = ms(100);
    for _ in 0..3 {
        r.ack(0);
    }
    r.ack(10_000); // full ACK, exits
    let ss = r.s.ssthresh();
    let una = r.s.snd_una();
    for _ in 0..3 {
        r.ack(una);
    }
    // recover = 10000 <= snd_una: a new loss episode is allowed.
    assert!(r.s.in_recovery());
    assert_eq!(r.h.counters.reductions, 2);
    assert!(r.s.ssthresh() < ss);
}

#[test]
fn rto_fires_backs_off_to_max_rto_and_goes_back_n() {
    let cfg = TcpConfig {
        ecn: true,
        max_rto: SimDuration::from_secs(3),
        ..retx_cfg()
    };
    let mut r = Rig::new(cfg, 4, None, None);
    r.start();
    assert_eq!(r.h.deadline, Some(ms(1000)));
    let out = r.fire();
    assert_eq!(r.h.now, ms(1000));
    assert_eq!(seqs(&out), [0]);
    assert!(out[0].flags.contains(Flags::RETX) && out[0].ecn == Ecn::NotEct);
    assert_eq!(r.s.cwnd(), 1000);
    assert_eq!(r.s.ssthresh(), Some(2000));
    assert_eq!(r.h.counters.timeouts, 1);
    assert_eq!(r.h.counters.reductions, 0);
    // Backoff: 2 x 1 s, then 4 s capped at max_rto = 3 s.
    assert_eq!(r.h.deadline, Some(ms(3000)));
    let out = r.fire();
    assert_eq!(seqs(&out), [0]);
    assert_eq!(r.h.deadline, Some(ms(6000)));
    assert_eq!(r.s.rtt().rto(), SimDuration::from_secs(3));
    // ssthresh is held on a repeated timeout of the same data.
    assert_eq!(r.s.ssthresh(), Some(2000));
    r.fire();
    assert_eq!(r.h.deadline, Some(ms(9000)));
    assert_eq!(r.h.counters.timeouts, 3);
    // The retransmission sent at 6 s is acked at 6.1 s: R = 100 ms resets the backoff.
    r.h.now = ms(6100);
    let out = r.ack_with(1000, ms(6000), Flags::NONE);
    assert_eq!(r.s.rtt().rto(), SimDuration::from_millis(300));
    assert_eq!(r.h.deadline, Some(ms(6400)));
    // Go-back-N: slow start from 1 MSS resends 1000 and 2000 (below snd_max).
    assert_eq!(r.s.cwnd(), 2000);
    assert_eq!(seqs(&out), [1000, 2000]);
    assert!(out
        .iter()
        .all(|p| p.flags.contains(Flags::RETX) && p.ecn == Ecn::NotEct));
    // The receiver had 3000..4000: its ACK jumps to 4000; new data follows with CWR.
    let out = r.ack_with(4000, ms(6000), Flags::NONE);
    assert_eq!(seqs(&out), [4000, 5000, 6000]);
    assert!(out[0].flags.contains(Flags::CWR) && out[0].ecn == Ecn::Ect);
    assert!(!out[0].flags.contains(Flags::RETX));
}

#[test]
fn finite_flow_finishes_exactly_when_the_last_byte_is_acked() {
    let mut r = Rig::new(TcpConfig::default(), 4, None, Some(3500));
    let out = r.start();
    assert_eq!(seqs(&out), [0, 1000, 2000, 3000]);
    assert_eq!(out[3].size, 500);
    assert!(out[3].flags.contains(Flags::FIN));
    assert!(out[..3].iter().all(|p| !p.flags.contains(Flags::FIN)));
    r.h.now = ms(100);
    for a in [1000, 2000, 3000] {
        assert!(r.ack(a).is_empty());
        assert_eq!(r.h.finished, None);
    }
    r.h.now = ms(101);
    r.ack(3500);
    assert_eq!(r.h.finished, Some(ms(101)));
    assert_eq!(r.h.deadline, None);
    assert!(r.ack(3500).is_empty());
    assert!(r.call(|s, c| s.on_timer(c)).is_empty());
}

#[test]
fn stop_ends_new_data_but_not_retransmissions() {
    let mut r = Rig::new(retx_cfg(), 4, None, None);
    r.start();
    r.call(|s, c| s.on_stop(c));
    r.h.now = ms(100);
    assert!(r.ack(1000).is_empty());
    let out = r.fire();
    assert_eq!(seqs(&out), [1000]);
    r.h.now += SimDuration::from_millis(100);
    assert_eq!(seqs(&r.ack(3000)), [3000]);
    r.ack(4000);
    assert_eq!(r.h.deadline, None);
    assert_eq!(r.h.finished, None);
}

#[test]
fn receive_window_caps_the_flight() {
    let cfg = TcpConfig {
        rwnd_pkts: Some(2),
        ..TcpConfig::default()
    };
    let mut r = Rig::new(cfg, 4, None, None);
    assert_eq!(r.start().len(), 2);
    let p = r.s.probe();
    assert_eq!(p.window, Some(4000.0));
    assert_eq!(p.srtt, None);
}

#[test]
fn bad_transport_parameters_are_rejected_with_their_key() {
    let cc = || -> Box<dyn Controller> {
        Box::new(NewReno::new(&NewRenoConfig::default(), 1000).unwrap())
    };
    let e = WindowSender::new(&TcpConfig::default(), cc(), 0, None)
        .err()
        .unwrap();
    assert_eq!(e.key, "mss");
    let e = WindowSender::new(&TcpConfig::default(), cc(), 1000, Some(0))
        .err()
        .unwrap();
    assert_eq!(e.key, "size");
    let bad = TcpConfig {
        dupack_threshold: 0,
        ..TcpConfig::default()
    };
    let e = WindowSender::new(&bad, cc(), 1000, None).err().unwrap();
    assert_eq!(e.key, "dupack_threshold");
}

/// A paced sender driven by RCP's controller (rate 0 until the first echo).
fn paced_rig() -> Rig {
    let cc = crate::cc::RcpCc::new(&crate::cc::RcpCcConfig::default()).unwrap();
    Rig {
        // Exact pacing: the cases check departure times to the picosecond.
        s: WindowSender::new(
            &TcpConfig {
                pacing_jitter: 0.0,
                ..retx_cfg()
            },
            Box::new(cc),
            MSS as u32,
            None,
        )
        .unwrap(),
        h: Harness::new(stream(1, 0, StreamKind::Endpoint, 0)),
    }
}

/// An ACK at `self.h.now` echoing the path rate `bps`.
fn rate_ack(r: &mut Rig, ack: u64, echo: SimTime, bps: f64) -> Vec<Packet> {
    let mut p = Packet::new(Default::default(), RouteId(1), PacketKind::Ack, 40, echo);
    p.ack = ack;
    p.echo = echo;
    p.cc = sim_core::CcHeader::Rate(sim_core::RateHeader {
        desired: f64::INFINITY,
        allowed: bps,
        rtt: 0.0,
        hops: 1,
        congested: false,
    });
    r.call(|s, c| s.on_packet(p, c))
}

#[test]
fn a_paced_sender_sends_one_packet_then_spaces_packets_at_the_echoed_rate() {
    let mut r = paced_rig();
    // Rate 0 before any echo: only the first packet (RCP's SYN) leaves, and
    // only the RTO is armed.
    assert_eq!(seqs(&r.start()), [0]);
    assert_eq!(r.h.deadline, Some(ms(1000)));
    // Its ACK after 100 ms echoes 8 Mb/s: 1000-B packets every 1 ms from the
    // first packet's departure, so the next one is already due.
    r.h.now = ms(100);
    assert_eq!(seqs(&rate_ack(&mut r, 1000, SimTime::ZERO, 8e6)), [1000]);
    assert_eq!(r.h.deadline, Some(ms(101)));
    for k in 2..6u64 {
        let out = r.fire();
        assert_eq!(seqs(&out), [k * 1000], "at {:?}", r.h.now);
        assert_eq!(r.h.now, ms(99 + k));
    }
    // A lower echo stretches the pending gap from the last departure
    // (104 ms): 4 Mb/s -> 2 ms.
    assert!(rate_ack(&mut r, 2000, ms(100), 4e6).is_empty());
    assert_eq!(r.h.deadline, Some(ms(106)));
    assert_eq!(r.s.probe().rate, Some(4e6));
    assert_eq!(r.s.probe().window, None);
}

#[test]
fn a_paced_sender_arms_the_earlier_of_the_rto_and_the_next_departure() {
    let mut r = paced_rig();
    r.start();
    r.h.now = ms(100);
    // 8 kb/s: one 1000-B packet per second. Nothing is outstanding after
    // this ACK, so the timer is the next departure, 1 s after the first.
    assert!(rate_ack(&mut r, 1000, SimTime::ZERO, 8e3).is_empty());
    assert_eq!(r.h.deadline, Some(ms(1000)));
    assert_eq!(seqs(&r.fire()), [1000]);
    // Now the RTO (srtt 100 ms -> 300 ms, the 200-ms floor below it) comes
    // before the next departure at 2 s.
    let rto = r.s.rtt().rto();
    assert_eq!(rto, SimDuration::from_millis(300));
    assert_eq!(r.h.deadline, Some(ms(1000) + rto));
    // It fires: the segment is retransmitted at once (go-back-N), the rate
    // halves to 4 kb/s and the next new packet waits 2 s after it.
    let out = r.fire();
    assert_eq!(seqs(&out), [1000]);
    assert!(out[0].flags.contains(Flags::RETX));
    assert_eq!(r.s.probe().rate, Some(4e3));
}

fn lossy_cfg() -> TcpConfig {
    TcpConfig {
        reliable: false,
        ..retx_cfg()
    }
}

#[test]
fn a_loss_tolerant_sender_never_retransmits_on_a_timeout() {
    let mut r = Rig::new(lossy_cfg(), 4, None, None);
    assert_eq!(seqs(&r.start()), [0, 1000, 2000, 3000]);
    // Every ACK is lost: the RTO gives the four segments up and sends new
    // data only (the controller's timeout window, 1 MSS), none marked RETX.
    let out = r.fire();
    assert_eq!(r.h.counters.timeouts, 1);
    assert_eq!(seqs(&out), [4000]);
    assert!(!out[0].flags.contains(Flags::RETX));
    assert_eq!(r.s.snd_una(), 4000);
    assert_eq!(r.s.snd_nxt(), 5000);
    // The RTO backed off (2 x 1 s) and runs for the new segment.
    assert_eq!(r.h.deadline, Some(ms(3000)));
}

#[test]
fn a_loss_tolerant_sender_hands_late_and_duplicate_acks_to_the_controller_only() {
    let mut r = Rig::new(lossy_cfg(), 4, None, None);
    r.start();
    r.fire();
    let cwnd = r.s.cwnd();
    // A late ACK of given-up data (ack 2000 < snd_una 4000) and three
    // repeats of the current one: no fast retransmit, no recovery, no
    // retransmission, and the window is not inflated.
    r.h.now = ms(1100);
    for ack in [2000, 4000, 4000, 4000, 4000] {
        let out = r.ack_with(ack, ms(1000), Flags::NONE);
        assert!(out.iter().all(|p| !p.flags.contains(Flags::RETX)));
    }
    assert!(!r.s.in_recovery());
    assert_eq!(r.s.cwnd(), cwnd);
    assert_eq!(r.h.counters.reductions, 0);
    // The late ACK's echo was an RTT sample (100 ms): the backoff is reset.
    assert_eq!(r.s.rtt().srtt(), Some(SimDuration::from_millis(100)));
}

#[test]
fn a_loss_tolerant_finite_flow_ends_when_its_tail_is_given_up() {
    let mut r = Rig::new(lossy_cfg(), 4, None, Some(3500));
    assert_eq!(seqs(&r.start()), [0, 1000, 2000, 3000]);
    assert!(r.fire().is_empty());
    assert_eq!(r.h.deadline, None);
    assert_eq!(r.h.finished, Some(ms(1000)));
}

#[test]
fn a_paced_senders_probe_integrates_its_rate_between_hooks() {
    let mut r = paced_rig();
    r.h.now = ms(50);
    r.start();
    // Rate 0 until the first echo: nothing accrues over [50, 100) ms.
    assert_eq!(r.s.probe().rate_bits, Some((0.0, ms(50))));
    r.h.now = ms(100);
    rate_ack(&mut r, 1000, ms(50), 8e6);
    assert_eq!(r.s.probe().rate_bits, Some((0.0, ms(100))));
    // 8 Mb/s over [100, 130) ms is 240,000 bits, accrued on the next hook;
    // then 2 Mb/s over [130, 180) ms, 100,000 more.
    r.h.now = ms(130);
    rate_ack(&mut r, 2000, ms(100), 2e6);
    let (bits, at) = r.s.probe().rate_bits.unwrap();
    assert!((bits - 240_000.0).abs() < 1e-6, "{bits}");
    assert_eq!(at, ms(130));
    r.h.now = ms(180);
    r.call(|s, c| s.on_stop(c));
    let (bits, at) = r.s.probe().rate_bits.unwrap();
    assert!((bits - 340_000.0).abs() < 1e-6, "{bits}");
    assert_eq!(at, ms(180));
    // Stopped, it sends no new data: its rate no longer accrues.
    r.h.now = ms(300);
    rate_ack(&mut r, 3000, ms(130), 2e6);
    let (bits, _) = r.s.probe().rate_bits.unwrap();
    assert!((bits - 340_000.0).abs() < 1e-6, "{bits}");
}

#[test]
fn an_ack_clocked_sender_tracks_no_rate_integral() {
    let mut r = Rig::new(retx_cfg(), 2, None, None);
    r.start();
    assert_eq!(r.s.probe().rate_bits, None);
}

/// An application that writes the listed `(ms, bytes)` in order.
struct Writes(std::collections::VecDeque<(u64, u64)>);

impl AppSource for Writes {
    fn next_write(&mut self, _rng: &mut SimRng) -> Option<(SimTime, u64)> {
        self.0.pop_front().map(|(t, b)| (ms(t), b))
    }
}

#[test]
fn an_application_source_is_sent_as_written_and_its_objects_complete_on_their_acks() {
    let cc = NewReno::new(&NewRenoConfig::default(), MSS as u32).unwrap();
    let app = Writes([(0, 2500), (5000, 1000)].into_iter().collect());
    let mut r = Rig {
        s: WindowSender::with_app(
            &TcpConfig::default(),
            Box::new(cc),
            MSS as u32,
            Box::new(app),
        )
        .unwrap(),
        h: Harness::new(stream(1, 0, StreamKind::Endpoint, 0)),
    };
    let out = r.start();
    // The first write: two full segments and a short one, no FIN (more to come).
    assert_eq!(seqs(&out), [0, 1000, 2000]);
    assert_eq!(out[2].size, 500);
    assert!(out.iter().all(|p| !p.flags.contains(Flags::FIN)));
    r.h.now = ms(100);
    r.ack(1000);
    r.ack(2000);
    assert!(r.h.objects.is_empty());
    r.ack(2500);
    assert_eq!(r.h.objects.len(), 1);
    assert_eq!(
        (
            r.h.objects[0].requested,
            r.h.objects[0].completed,
            r.h.objects[0].bytes
        ),
        (ms(0), ms(100), 2500)
    );
    // Idle until the next write: the timer waits for it, the flow is not done.
    assert_eq!(r.h.deadline, Some(ms(5000)));
    assert_eq!(r.h.finished, None);
    let out = r.fire();
    assert_eq!(seqs(&out), [2500]);
    assert!(out[0].flags.contains(Flags::FIN), "the source's last byte");
    r.h.now = ms(5100);
    r.ack(3500);
    assert_eq!(r.h.objects.len(), 2);
    assert_eq!(r.h.objects[1].requested, ms(5000));
    assert_eq!(r.h.finished, Some(ms(5100)));
}

fn once_per_rtt_cfg() -> TcpConfig {
    TcpConfig {
        rtt_samples: crate::transport::RttSampling::OncePerRtt,
        ..retx_cfg()
    }
}

fn samples(r: &Rig) -> u64 {
    r.s.rto_stats().map_or(0, |s| s.count)
}

#[test]
fn once_per_rtt_times_one_segment_and_samples_when_it_is_acked() {
    let mut every = Rig::new(retx_cfg(), 4, None, None);
    let mut once = Rig::new(once_per_rtt_cfg(), 4, None, None);
    for r in [&mut every, &mut once] {
        r.start();
        // The first segment, sent at 0, is acked at 100 ms.
        r.h.now = ms(100);
        r.ack_with(1000, ms(0), Flags::NONE);
        // Two more ACKs of the initial window, echoing 0.
        r.h.now = ms(110);
        r.ack_with(2000, ms(0), Flags::NONE);
        r.h.now = ms(120);
        r.ack_with(3000, ms(0), Flags::NONE);
    }
    // Every ACK is a sample with timestamps; one per timed segment otherwise.
    assert_eq!(samples(&every), 3);
    assert_eq!(samples(&once), 1);
    assert_eq!(once.s.rtt().srtt(), Some(SimDuration::from_millis(100)));
    // The segment timed next is the first new one sent at 100 ms (4000..5000):
    // ACKs below its end give nothing, the one covering it gives 250 - 100.
    once.h.now = ms(200);
    once.ack_with(4000, ms(0), Flags::NONE);
    assert_eq!(samples(&once), 1);
    once.h.now = ms(250);
    once.ack_with(5000, ms(0), Flags::NONE);
    assert_eq!(samples(&once), 2);
    // RFC 6298 2.3: SRTT = 7/8 100 + 1/8 150 ms.
    assert_eq!(once.s.rtt().srtt(), Some(SimDuration::from_micros(106_250)));
}

#[test]
fn once_per_rtt_takes_no_sample_from_a_retransmitted_segment() {
    let mut r = Rig::new(once_per_rtt_cfg(), 4, None, None);
    r.start();
    // The timeout at 1 s resends segment 0, the timed one: Karn abandons it.
    r.fire();
    assert_eq!(r.s.rtt().rto(), SimDuration::from_secs(2));
    let before = samples(&r);
    r.h.now = ms(1100);
    r.ack_with(1000, ms(1000), Flags::NONE);
    // No sample, so the backoff stays (with timestamps 5.7 would clear it).
    assert_eq!(samples(&r), before);
    assert_eq!(r.s.rtt().rto(), SimDuration::from_secs(2));
    assert_eq!(r.s.rtt().srtt(), None);
}

/// RFC 3168's sender side and its ns-2 variants.
mod ecn;
/// The options for reproducing ns-2's TCP agents.
mod ns2;
