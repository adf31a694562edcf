//! Non-adaptive packet sources (UDP-like): constant bit rate or Poisson packet
//! arrivals at a mean rate, and the sink that counts what arrives.
//!
//! Packet sizes are one size for every packet, or drawn per packet from a
//! [`SizeDist`] with the source's own random stream (so a run repeats per
//! seed and no other component's draws move), rounded to whole bytes and
//! clamped to `[1, max]` bytes; the clamp removes only a tail (an
//! exponential of mean m loses the mass `e^(-max/m)` above `max`: nothing
//! measurable for m = 1500 B and `max` = 65 535 B).
//!
//! - Poisson: exponential gaps of mean `8 E[S] / rate` (`E[S]` the
//!   distribution's mean, [`SizeDist::mean`]), drawn independently of the
//!   sizes: a Poisson packet process of intensity `rate / (8 E[S])` with
//!   i.i.d. marks, as the M/G/1 queue assumes.
//! - Constant: packet k leaves at `t_k = start + floor(B_k * 8 / rate)` in
//!   integer picoseconds, `B_k` the bytes sent before it: the bit rate is
//!   exact with no cumulative rounding drift, and with one size the packets
//!   are evenly spaced. With drawn sizes a packet's gap is its own size at
//!   the rate (a big packet is followed by a long gap).
//!
//! Per packet the size is drawn first, then (Poisson) the gap to the next; a
//! source of one size draws no sizes, so its stream is what it always was.

use rand::Rng;
use sim_core::{
    Endpoint, EndpointCtx, Packet, PacketKind, Probe, Rate, SimDuration, SimTime, PS_PER_SEC,
};

use super::SizeDist;

/// How a source spaces its packets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacketProcess {
    /// Evenly spaced at the rate.
    Constant,
    /// Exponential gaps with the rate as the mean.
    Poisson,
}

/// Where a source's packet sizes come from.
#[derive(Clone, Debug)]
enum Sizes {
    /// Every packet has this size.
    Fixed(u32),
    /// Each packet draws its size, clamped to `[1, max]` bytes.
    Drawn {
        /// The distribution.
        dist: SizeDist,
        /// The largest size sent.
        max: u32,
    },
}

/// A source that sends packets at mean `rate` whatever the network does.
#[derive(Clone, Debug)]
pub struct UdpSource {
    rate: Rate,
    sizes: Sizes,
    /// Mean packet size, bytes.
    mean_size: f64,
    process: PacketProcess,
    start: SimTime,
    /// Bytes sent so far.
    sent_bytes: u64,
    next: SimTime,
    stopped: bool,
}

impl UdpSource {
    /// A source of `size`-byte packets at mean `rate`.
    pub fn new(rate: Rate, size: u32, process: PacketProcess) -> Self {
        Self::with_sizes(rate, Sizes::Fixed(size), f64::from(size), process)
    }

    /// A source at mean `rate` (bits/s) whose packets draw their sizes from
    /// `dist`, clamped to `[1, max]` bytes; the packet rate is
    /// `rate / (8 dist.mean())`. The caller validated `dist`.
    pub fn with_size_dist(rate: Rate, dist: SizeDist, max: u32, process: PacketProcess) -> Self {
        let mean = dist.mean();
        Self::with_sizes(rate, Sizes::Drawn { dist, max }, mean, process)
    }

    fn with_sizes(rate: Rate, sizes: Sizes, mean_size: f64, process: PacketProcess) -> Self {
        UdpSource {
            rate,
            sizes,
            mean_size,
            process,
            start: SimTime::ZERO,
            sent_bytes: 0,
            next: SimTime::ZERO,
            stopped: false,
        }
    }

    /// Mean gap between packets, picoseconds.
    fn gap_ps(&self) -> f64 {
        self.mean_size * 8.0 * PS_PER_SEC as f64 / self.rate.bps_f64()
    }

    fn schedule_next(&mut self, ctx: &mut EndpointCtx) {
        self.next = match self.process {
            PacketProcess::Constant => {
                let ps = u128::from(self.sent_bytes) * 8 * u128::from(PS_PER_SEC)
                    / u128::from(self.rate.bps());
                self.start + SimDuration::from_ps(u64::try_from(ps).unwrap_or(u64::MAX))
            }
            PacketProcess::Poisson => {
                let u: f64 = ctx.rng().random();
                let gap = -(1.0 - u).ln() * self.gap_ps();
                ctx.now() + SimDuration::from_ps(gap.round() as u64)
            }
        };
        ctx.set_deadline(Some(self.next.max(ctx.now())));
    }

    fn send_one(&mut self, ctx: &mut EndpointCtx) {
        let size = match &self.sizes {
            Sizes::Fixed(s) => *s,
            // At most `max` (a u32), so the conversion is exact.
            Sizes::Drawn { dist, max } => dist.sample(ctx.rng()).min(u64::from(*max)) as u32,
        };
        let mut p = Packet::new(
            ctx.flow(),
            Default::default(),
            PacketKind::Data,
            size,
            ctx.now(),
        );
        p.seq = self.sent_bytes;
        ctx.send(p);
        self.sent_bytes += u64::from(size);
    }
}

impl Endpoint for UdpSource {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.start = ctx.now();
        self.send_one(ctx);
        self.schedule_next(ctx);
    }
    fn on_packet(&mut self, _pkt: Packet, _ctx: &mut EndpointCtx) {}
    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        if self.stopped {
            return;
        }
        self.send_one(ctx);
        self.schedule_next(ctx);
    }
    fn on_stop(&mut self, ctx: &mut EndpointCtx) {
        self.stopped = true;
        ctx.set_deadline(None);
    }
    fn packet_size(&self) -> Option<u32> {
        match self.sizes {
            Sizes::Fixed(s) => Some(s),
            Sizes::Drawn { .. } => None,
        }
    }
    fn probe(&self) -> Probe {
        Probe {
            rate: Some(self.rate.bps_f64()),
            ..Probe::default()
        }
    }
}

/// Counts arriving data as goodput; never answers.
#[derive(Copy, Clone, Debug, Default)]
pub struct UdpSink;

impl Endpoint for UdpSink {
    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        if pkt.kind == PacketKind::Data {
            ctx.counters().goodput_bytes += u64::from(pkt.size);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, Harness, StreamKind};

    /// Send times of `src` from its start until `until`.
    fn drive(src: &mut UdpSource, until: SimTime) -> Vec<SimTime> {
        packets(src, until).iter().map(|p| p.sent).collect()
    }

    /// The packets `src` sends from its start until `until`.
    fn packets(src: &mut UdpSource, until: SimTime) -> Vec<Packet> {
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        let mut out = h.call(|ctx| src.on_start(ctx));
        while h.deadline.is_some_and(|t| t <= until) {
            out.extend(h.fire(src));
        }
        out
    }

    #[test]
    fn cbr_sends_at_exact_integer_spacing_without_drift() {
        // 1000-byte packets at 3 Mb/s: gap = 8000/3e6 s = 2.6667 ms, not a whole ps.
        let mut s = UdpSource::new(Rate::from_bps(3_000_000), 1000, PacketProcess::Constant);
        let times = drive(&mut s, SimTime::from_secs_f64(1.0));
        // floor(k * 8000 * 1e12 / 3e6) for k = 0..=375 (375 * 2.6667 ms = 1 s).
        assert_eq!(times.len(), 376);
        for (k, t) in times.iter().enumerate() {
            assert_eq!(
                t.as_ps(),
                (k as u128 * 8000 * 1_000_000_000_000 / 3_000_000) as u64
            );
        }
    }

    #[test]
    fn poisson_source_has_the_mean_rate() {
        // 1500 B at 12 Mb/s = 1000 pkt/s; over 100 s expect 1e5 +- 5 sqrt(1e5) packets.
        let mut s = UdpSource::new(Rate::from_bps(12_000_000), 1500, PacketProcess::Poisson);
        let n = drive(&mut s, SimTime::from_secs_f64(100.0)).len() as f64;
        assert!((n - 1e5).abs() < 5.0 * 1e5f64.sqrt(), "{n}");
    }

    #[test]
    fn a_fixed_size_distribution_sends_exactly_what_one_size_sends() {
        // `Fixed` draws nothing: the gaps come from the same stream positions.
        for process in [PacketProcess::Poisson, PacketProcess::Constant] {
            let rate = Rate::from_bps(12_000_000);
            let mut a = UdpSource::new(rate, 1500, process);
            let fixed = SizeDist::Fixed {
                size: sim_core::Bytes::new(1500),
            };
            let mut b = UdpSource::with_size_dist(rate, fixed, 65_535, process);
            let until = SimTime::from_secs_f64(2.0);
            let (pa, pb) = (packets(&mut a, until), packets(&mut b, until));
            assert_eq!(pa.len(), pb.len());
            for (x, y) in pa.iter().zip(&pb) {
                assert_eq!((x.sent, x.size, x.seq), (y.sent, y.size, y.seq));
            }
        }
    }

    #[test]
    fn poisson_drawn_sizes_keep_the_mean_bit_rate_and_packet_rate() {
        // Exponential sizes of mean 1000 B at 8 Mb/s: 1000 pkt/s, 8e6 bits/s.
        let mean = sim_core::Bytes::new(1000);
        let dist = SizeDist::Exponential { mean };
        let mut s = UdpSource::with_size_dist(
            Rate::from_bps(8_000_000),
            dist,
            65_535,
            PacketProcess::Poisson,
        );
        let ps = packets(&mut s, SimTime::from_secs_f64(100.0));
        let n = ps.len() as f64;
        assert!((n - 1e5).abs() < 5.0 * 1e5f64.sqrt(), "{n}");
        // Sizes: mean 1000 B, sd 1000 B; SE over 1e5 packets 3.2 B.
        let m = ps.iter().map(|p| f64::from(p.size)).sum::<f64>() / n;
        assert!((m - 1000.0).abs() < 5.0 * 3.2, "{m}");
        assert!(ps.iter().all(|p| p.size >= 1));
        // Sequence numbers count the bytes sent before each packet.
        let mut b = 0;
        for p in &ps {
            assert_eq!(p.seq, b);
            b += u64::from(p.size);
        }
    }

    #[test]
    fn cbr_with_drawn_sizes_pays_each_byte_at_the_rate() {
        // Two-point mix at 3 Mb/s: packet k leaves at floor(B_k * 8 / rate).
        let dist = SizeDist::Choice {
            values: vec![sim_core::Bytes::new(500), sim_core::Bytes::new(1500)],
            weights: Some(vec![0.25, 0.75]),
        };
        let rate = Rate::from_bps(3_000_000);
        let mut s = UdpSource::with_size_dist(rate, dist, 65_535, PacketProcess::Constant);
        let ps = packets(&mut s, SimTime::from_secs_f64(10.0));
        let mut bytes = 0u128;
        for p in &ps {
            assert!(p.size == 500 || p.size == 1500, "{}", p.size);
            assert_eq!(
                u128::from(p.sent.as_ps()),
                bytes * 8 * 1_000_000_000_000 / 3_000_000
            );
            bytes += u128::from(p.size);
        }
        let big = ps.iter().filter(|p| p.size == 1500).count() as f64 / ps.len() as f64;
        // ~2400 packets: SE of the fraction sqrt(0.1875 / 2400) = 0.0088.
        assert!((big - 0.75).abs() < 5.0 * 0.0088, "{big}");
    }

    #[test]
    fn drawn_sizes_are_clamped_to_the_maximum() {
        let dist = SizeDist::Exponential {
            mean: sim_core::Bytes::new(1000),
        };
        let mut s = UdpSource::with_size_dist(
            Rate::from_bps(8_000_000),
            dist,
            1200,
            PacketProcess::Poisson,
        );
        let ps = packets(&mut s, SimTime::from_secs_f64(5.0));
        assert!(ps.iter().all(|p| (1..=1200).contains(&p.size)));
        // P(S > 1200) = e^-1.2 = 0.30 of the draws land on the cap.
        let capped = ps.iter().filter(|p| p.size == 1200).count() as f64 / ps.len() as f64;
        assert!((capped - 0.301).abs() < 0.03, "{capped}");
    }
}
