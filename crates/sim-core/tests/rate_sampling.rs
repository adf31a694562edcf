//! The `flow_rate` series of a rate-tracking sender: `rate_bps` is the rate
//! at each sampling instant, `rate_avg_bps` its time average since the
//! previous sample (or the flow's start), from the probe's rate integral.
//! A rate that moves at a fixed phase of the sampling grid (a router
//! interval equal to the sample interval) is misread by the point samples
//! and read exactly by the averages.

use sim_core::*;

mod common;
use common::{config, link};

/// Sends nothing; its rate is 3 Mb/s except over [100k + 10, 100k + 40) ms,
/// where it is 1 Mb/s, and it reports the integral of that rate.
struct Stepper {
    rate: f64,
    bits: f64,
    at: SimTime,
}
impl Stepper {
    fn accrue(&mut self, now: SimTime) {
        self.bits += self.rate * (now - self.at).as_secs_f64();
        self.at = now;
    }
}
impl Endpoint for Stepper {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.at = ctx.now();
        ctx.set_deadline(Some(ctx.now() + SimDuration::from_millis(10)));
    }
    fn on_packet(&mut self, _: Packet, _: &mut EndpointCtx) {}
    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        self.accrue(ctx.now());
        let (rate, hold) = if self.rate > 2e6 {
            (1e6, 30)
        } else {
            (3e6, 70)
        };
        self.rate = rate;
        ctx.set_deadline(Some(ctx.now() + SimDuration::from_millis(hold)));
    }
    fn on_stop(&mut self, ctx: &mut EndpointCtx) {
        self.accrue(ctx.now());
        ctx.set_deadline(None);
    }
    fn probe(&self) -> Probe {
        Probe {
            rate: Some(self.rate),
            rate_bits: Some((self.bits, self.at)),
            ..Probe::default()
        }
    }
}

struct Silent;
impl Endpoint for Silent {
    fn on_packet(&mut self, _: Packet, _: &mut EndpointCtx) {}
}

/// `(time, value)` points of one metric.
type Points = Vec<(f64, f64)>;

/// The `rate_bps` and `rate_avg_bps` points of a [`Stepper`] started at
/// `start_ms` (and stopped at `stop_ms`), sampled every 100 ms for 1 s.
fn series(start_ms: u64, stop_ms: Option<u64>) -> (Points, Points) {
    let mut cfg = config(SimDuration::from_millis(1000));
    cfg.sample_interval = Some(SimDuration::from_millis(100));
    cfg.series = SeriesSelect {
        flow_rate: true,
        ..SeriesSelect::default()
    };
    let mut sim = Simulator::new(cfg);
    let l = link(&mut sim, 0, 1, 10, 1, BufferLimit::Unlimited, 0.0);
    let back = link(&mut sim, 1, 0, 10, 1, BufferLimit::Unlimited, 0.0);
    let fwd = sim.add_route(vec![l]);
    let rev = sim.add_route(vec![back]);
    sim.add_flow(FlowSpec {
        group: GroupId(0),
        sender: Box::new(Stepper {
            rate: 3e6,
            bits: 0.0,
            at: SimTime::ZERO,
        }),
        receiver: Box::new(Silent),
        fwd,
        rev,
        start: SimTime::ZERO + SimDuration::from_millis(start_ms),
        stop: stop_ms.map(|x| SimTime::ZERO + SimDuration::from_millis(x)),
        host_delay: SimDuration::ZERO,
    });
    let out = sim.run();
    let pick = |m: &str| {
        out.series
            .iter()
            .filter(|p| p.metric == m)
            .map(|p| (p.time, p.value))
            .collect::<Vec<_>>()
    };
    (pick("rate_bps"), pick("rate_avg_bps"))
}

#[test]
fn interval_averages_read_a_phase_locked_rate_that_point_samples_misread() {
    let (points, avgs) = series(0, None);
    // Every sampling instant falls in a 3-Mb/s stretch.
    assert!(points.len() >= 9);
    assert!(points.iter().all(|&(_, v)| v == 3e6), "{points:?}");
    // Each 100-ms interval holds 30 ms at 1 Mb/s and 70 ms at 3 Mb/s:
    // 0.3 x 1 + 0.7 x 3 = 2.4 Mb/s.
    assert_eq!(avgs.len(), points.len() - 1, "none at the start instant");
    for &(t, v) in &avgs {
        assert!((v - 2.4e6).abs() < 1e-3, "at {t}: {v}");
    }
}

#[test]
fn the_first_average_covers_only_the_time_since_the_start() {
    // Started at 150 ms: its own timer steps at 160 and 190 ms, so (150,
    // 200] holds 10 ms at 3 Mb/s, 30 at 1, 10 at 3: 1.8 Mb/s over 50 ms.
    let (_, avgs) = series(150, None);
    assert!((avgs[0].0 - 0.2).abs() < 1e-12, "{avgs:?}");
    assert!((avgs[0].1 - 1.8e6).abs() < 1e-3, "{avgs:?}");
}

#[test]
fn the_last_average_covers_only_the_time_before_the_stop() {
    // Stopped at 250 ms: (200, 250] holds 10 ms at 3 Mb/s, 30 at 1, 10 at 3
    // (1.8 Mb/s), reported at the next sample; nothing after it.
    let (points, avgs) = series(0, Some(250));
    assert_eq!(points.len(), 3, "0, 100 and 200 ms: {points:?}");
    assert_eq!(avgs.len(), 3, "{avgs:?}");
    assert!((avgs[1].1 - 2.4e6).abs() < 1e-3, "{avgs:?}");
    assert!((avgs[2].0 - 0.3).abs() < 1e-12, "{avgs:?}");
    assert!((avgs[2].1 - 1.8e6).abs() < 1e-3, "{avgs:?}");
}
