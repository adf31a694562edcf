//! Non-adaptive packet sources (UDP-like): constant bit rate or Poisson packet
//! arrivals at a mean rate, and the sink that counts what arrives.
//!
//! Send times are computed from the packet index in integer picoseconds
//! (`t_k = start + floor(k * size * 8 / rate)`), so a CBR source has no cumulative
//! rounding drift and sub-packet timing precision at any rate.

use rand::Rng;
use sim_core::{
    Endpoint, EndpointCtx, Packet, PacketKind, Probe, Rate, SimDuration, SimTime, PS_PER_SEC,
};

/// How a source spaces its packets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacketProcess {
    /// Evenly spaced at the rate.
    Constant,
    /// Exponential gaps with the rate as the mean.
    Poisson,
}

/// A source that sends `size`-byte packets at `rate` whatever the network does.
#[derive(Clone, Debug)]
pub struct UdpSource {
    rate: Rate,
    size: u32,
    process: PacketProcess,
    start: SimTime,
    sent: u64,
    next: SimTime,
    stopped: bool,
}

impl UdpSource {
    /// A source of `size`-byte packets at mean `rate`.
    pub fn new(rate: Rate, size: u32, process: PacketProcess) -> Self {
        UdpSource {
            rate,
            size,
            process,
            start: SimTime::ZERO,
            sent: 0,
            next: SimTime::ZERO,
            stopped: false,
        }
    }

    fn gap_ps(&self) -> f64 {
        f64::from(self.size) * 8.0 * PS_PER_SEC as f64 / self.rate.bps_f64()
    }

    fn schedule_next(&mut self, ctx: &mut EndpointCtx) {
        self.next = match self.process {
            PacketProcess::Constant => {
                let ps = u128::from(self.sent) * u128::from(self.size) * 8 * u128::from(PS_PER_SEC)
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
        let mut p = Packet::new(
            ctx.flow(),
            Default::default(),
            PacketKind::Data,
            self.size,
            ctx.now(),
        );
        p.seq = self.sent * u64::from(self.size);
        ctx.send(p);
        self.sent += 1;
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
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        let mut times: Vec<SimTime> = h
            .call(|ctx| src.on_start(ctx))
            .iter()
            .map(|p| p.sent)
            .collect();
        while h.deadline.is_some_and(|t| t <= until) {
            times.extend(h.fire(src).iter().map(|p| p.sent));
        }
        times
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
}
