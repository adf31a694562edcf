//! Transient metrics of a flow group, from its flows' sampled throughput (the
//! `flow_rate` series): how long the group takes to settle after its last
//! member joins, and by how much its rate overshoots on the way; also its
//! sending rate ([`group_send_rate`]), the spread of its sampled windows
//! ([`group_cwnd`]) and a link's sampled rates ([`link_series_stats`]).
//!
//! Definitions (for comparing explicit-rate protocols after a join, issue 5):
//! - `x(t)`: at each sample time `t`, the mean over the group's flows sampled
//!   at `t` of their throughput over the sample interval ending at `t`;
//! - the reference `x*`: the group's `throughput_bps` (mean per-flow
//!   throughput over the measurement window), the rate it settles to;
//! - `t0`: the latest start time among the group's flows; only samples with
//!   `t > t0` count;
//! - `settle_s`: `t - t0` for the last sample outside the band
//!   `|x(t) - x*| <= SETTLE_BAND x*` (0 if none is outside): the time the
//!   group takes to enter the band for good;
//! - `overshoot`: `max_t x(t) / x* - 1`, at least 0.
//!
//! Both need the `flow_rate` series and an `x* > 0`; otherwise they are
//! undefined (no summary row).

use sim_core::{FlowReport, RunOutput, SeriesPoint, Subject};

/// Half-width of the settling band, as a fraction of the settled rate (10 %).
pub const SETTLE_BAND: f64 = 0.1;

/// `(settle_s, overshoot)` of a group's `flows`, from `points`, their samples
/// in series order, with the settled rate `reference` (bits/s).
pub fn group_dynamics(
    points: &[&SeriesPoint],
    flows: &[&FlowReport],
    reference: Option<f64>,
) -> (Option<f64>, Option<f64>) {
    let Some(x_star) = reference.filter(|x| *x > 0.0 && x.is_finite()) else {
        return (None, None);
    };
    let Some(t0) = flows.iter().map(|f| f.start.as_secs_f64()).reduce(f64::max) else {
        return (None, None);
    };
    // The engine samples in time order, every flow at one instant together.
    let mut samples: Vec<(f64, f64, u32)> = Vec::new();
    for p in points {
        if p.metric != "throughput_bps" || p.time <= t0 {
            continue;
        }
        match samples.last_mut() {
            Some((t, sum, n)) if *t == p.time => {
                *sum += p.value;
                *n += 1;
            }
            _ => samples.push((p.time, p.value, 1)),
        }
    }
    if samples.is_empty() {
        return (None, None);
    }
    let mut settle = 0.0;
    let mut peak = f64::NEG_INFINITY;
    for &(t, sum, n) in &samples {
        let x = sum / f64::from(n);
        if (x - x_star).abs() > SETTLE_BAND * x_star {
            settle = t - t0;
        }
        peak = peak.max(x);
    }
    (Some(settle), Some((peak / x_star - 1.0).max(0.0)))
}

/// The sending-rate metrics of a group (see [`group_send_rate`]).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SendRate {
    /// `send_rate_bps`: over the samples in the measurement window, the mean
    /// of the group's mean rate, each member's rate averaged over the
    /// sampling interval (`rate_avg_bps`; the point samples `rate_bps` for a
    /// group whose senders do not track the average).
    pub mean: Option<f64>,
    /// `send_rate_spread`: (largest - smallest) group mean sampled in the
    /// window, over `mean` (0 for a rate that holds still).
    pub spread: Option<f64>,
    /// `send_rate_min_bps`: the smallest rate any member was sampled at in
    /// the window (a band "every flow stayed within").
    pub min: Option<f64>,
    /// `send_rate_max_bps`: the largest rate any member was sampled at in the
    /// window.
    pub max: Option<f64>,
    /// `peak_rate_bps`: the largest rate any member was sampled at over the
    /// whole run.
    pub peak: Option<f64>,
    /// `peak_rate_s`: when (the first such sample).
    pub peak_at: Option<f64>,
}

/// The sending-rate metrics of a group in `run`, from `points`, its flows'
/// samples in series order: the controllers' own rate (the `rate_bps` points
/// of the `flow_rate` series; the rate the papers of the explicit-rate family
/// plot, which may exceed what the path delivers).
pub fn group_send_rate(points: &[&SeriesPoint], run: &RunOutput) -> SendRate {
    let window_start = run.end_secs - run.window_secs;
    let mut peak: Option<(f64, f64)> = None;
    let (mut min, mut max): (Option<f64>, Option<f64>) = (None, None);
    // (time, sum, count) per sampling instant in the window: point samples
    // and interval averages.
    let mut samples: Vec<(f64, f64, u32)> = Vec::new();
    let mut averages: Vec<(f64, f64, u32)> = Vec::new();
    let add = |v: &mut Vec<(f64, f64, u32)>, time: f64, x: f64| match v.last_mut() {
        Some((t, sum, n)) if *t == time => {
            *sum += x;
            *n += 1;
        }
        _ => v.push((time, x, 1)),
    };
    for p in points {
        if !p.value.is_finite() {
            continue;
        }
        if p.metric == "rate_avg_bps" {
            if p.time > window_start {
                add(&mut averages, p.time, p.value);
            }
            continue;
        }
        if p.metric != "rate_bps" {
            continue;
        }
        if peak.is_none_or(|(v, _)| p.value > v) {
            peak = Some((p.value, p.time));
        }
        if p.time > window_start {
            min = Some(min.map_or(p.value, |m: f64| m.min(p.value)));
            max = Some(max.map_or(p.value, |m: f64| m.max(p.value)));
            add(&mut samples, p.time, p.value);
        }
    }
    let group_means = |v: &[(f64, f64, u32)]| -> Vec<f64> {
        v.iter().map(|&(_, s, n)| s / f64::from(n)).collect()
    };
    let mean_of = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let means = group_means(&samples);
    let point_mean = mean_of(&means);
    let mean = if averages.is_empty() {
        point_mean
    } else {
        mean_of(&group_means(&averages))
    };
    let spread = point_mean.filter(|m| *m > 0.0).map(|m| {
        let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
        (hi - lo) / m
    });
    SendRate {
        mean,
        spread,
        min,
        max,
        peak: peak.map(|p| p.0),
        peak_at: peak.map(|p| p.1),
    }
}

/// [`group_send_rate`] of `flows` in `run`, picking their samples out of the
/// series (one pass over it; for a one-off question, where [`crate::Metrics`]
/// buckets every group's samples at once).
pub fn send_rate_of(run: &RunOutput, flows: &[&FlowReport]) -> SendRate {
    let members: std::collections::BTreeSet<sim_core::FlowId> =
        flows.iter().map(|f| f.flow).collect();
    let points: Vec<&SeriesPoint> = run
        .series
        .iter()
        .filter(|p| matches!(p.subject, Subject::Flow(id) if members.contains(&id)))
        .collect();
    group_send_rate(&points, run)
}

/// The pooled window samples of a group's congestion windows (see
/// [`group_cwnd`]).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct CwndSpread {
    /// `cwnd_mean_bytes`: the mean of every `cwnd_bytes` sample of the
    /// group's flows in the measurement window.
    pub mean: Option<f64>,
    /// `cwnd_sd_bytes`: their standard deviation (population form), the
    /// width of the histogram of "the aggregated congestion windows of all
    /// flows on a path" (Zimmermann (2005) Figs. 5.6.4 and 5.6.6): it holds
    /// both each window's swings and the differences between the flows.
    pub sd: Option<f64>,
}

/// The mean and spread of the `cwnd_bytes` samples (the `flow_window`
/// series) of a group's flows at times in the measurement window, pooled
/// over the flows, from `points`, their samples; both `None` without such
/// samples.
pub fn group_cwnd(points: &[&SeriesPoint], run: &RunOutput) -> CwndSpread {
    let window_start = run.end_secs - run.window_secs;
    let mut w = Running::default();
    for p in points {
        if p.metric == "cwnd_bytes" && p.time > window_start && p.value.is_finite() {
            w.push(p.value);
        }
    }
    CwndSpread {
        mean: (w.n > 0).then_some(w.mean),
        sd: w.var().map(f64::sqrt),
    }
}

/// A running mean and population variance (Welford's update: stable over
/// the millions of samples of a large group or a long run, where the sum of
/// squares minus the squared sum would cancel).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
struct Running {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Running {
    fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// The population variance; `None` without samples.
    fn var(&self) -> Option<f64> {
        (self.n > 0).then(|| self.m2 / self.n as f64)
    }
}

/// What one link's sampled `link_rate` series says (see [`link_series_stats`]).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct LinkSeriesStats {
    /// `peak_arrival_bps`: the largest input rate per sampling interval over
    /// the whole run.
    pub arrival: Option<f64>,
    /// `peak_loss_frac`: the largest fraction of the arriving bytes dropped
    /// at the queue per sampling interval over the whole run (the
    /// per-interval loss of seed 002's Fig. 29 when the interval is RCP's
    /// 10 ms).
    pub loss: Option<f64>,
    /// The departure rate's samples in the measurement window.
    rate: Running,
}

impl LinkSeriesStats {
    /// The variance (population, bits^2/s^2) of the departure rate sampled
    /// in the window; `None` without samples. Over `C^2` it is the variance
    /// of the sampled utilisation (seed 002's Fig. 40: "< 10^-3").
    pub fn rate_var(&self) -> Option<f64> {
        self.rate.var()
    }
}

/// Every link's [`LinkSeriesStats`] in `run`, indexed by link id, from one pass
/// over the series (a link without samples has the default; so does an id
/// past the end of the vector).
pub fn link_series_stats(run: &RunOutput) -> Vec<LinkSeriesStats> {
    let window_start = run.end_secs - run.window_secs;
    let mut peaks: Vec<LinkSeriesStats> = vec![LinkSeriesStats::default(); run.links.len()];
    for p in &run.series {
        let Subject::Link(link) = p.subject else {
            continue;
        };
        if !p.value.is_finite() {
            continue;
        }
        let i = link.index();
        if peaks.len() <= i {
            peaks.resize(i + 1, LinkSeriesStats::default());
        }
        let lp = &mut peaks[i];
        let slot = match p.metric {
            "arrival_bps" => &mut lp.arrival,
            "loss_frac" => &mut lp.loss,
            "rate_bps" => {
                if p.time > window_start {
                    lp.rate.push(p.value);
                }
                continue;
            }
            _ => continue,
        };
        *slot = Some(slot.map_or(p.value, |v: f64| v.max(p.value)));
    }
    peaks
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{FlowId, LinkId, SimTime};

    fn flow(id: u32, start: f64) -> FlowReport {
        FlowReport {
            flow: FlowId(id),
            start: SimTime::from_secs_f64(start),
            active_secs: 1.0,
            ..FlowReport::default()
        }
    }

    /// The samples of flows `ids` in `r`, in series order (what
    /// `Metrics` hands a group).
    fn of<'a>(r: &'a RunOutput, ids: &[u32]) -> Vec<&'a SeriesPoint> {
        r.series
            .iter()
            .filter(|p| matches!(p.subject, Subject::Flow(f) if ids.contains(&f.0)))
            .collect()
    }

    fn run(points: &[(f64, u32, f64)]) -> RunOutput {
        RunOutput {
            replication: 0,
            seed: 1,
            events: 0,
            end_secs: 10.0,
            window_secs: 5.0,
            flows: Vec::new(),
            links: Vec::new(),
            routes: Vec::new(),
            series: points
                .iter()
                .map(|&(t, f, v)| {
                    SeriesPoint::new(t, Subject::Flow(FlowId(f)), "throughput_bps", v)
                })
                .collect(),
            objects: Vec::new(),
            pages: Vec::new(),
            overload: None,
            closed_flows: 0,
            link_changes: Vec::new(),
        }
    }

    #[test]
    fn settle_time_is_the_last_exit_from_the_band_after_the_last_join() {
        // Two flows, the second joins at 1 s. Means per sample: 3 (1.5 s),
        // 1.5 (2 s), 1.05 (2.5 s), 0.95 (3 s), 1 (3.5 s); x* = 1.
        let pts = [
            (1.0, 0, 9.0), // before t0: ignored
            (1.5, 0, 4.0),
            (1.5, 1, 2.0),
            (2.0, 0, 1.0),
            (2.0, 1, 2.0),
            (2.5, 0, 1.1),
            (2.5, 1, 1.0),
            (3.0, 0, 0.9),
            (3.0, 1, 1.0),
            (3.5, 0, 1.0),
            (3.5, 1, 1.0),
            (3.5, 7, 50.0), // another group's flow: ignored
        ];
        let r = run(&pts);
        let (a, b) = (flow(0, 0.0), flow(1, 1.0));
        let (settle, over) = group_dynamics(&of(&r, &[0, 1]), &[&a, &b], Some(1.0));
        assert_eq!(settle, Some(2.0 - 1.0));
        assert!((over.unwrap() - 2.0).abs() < 1e-12);
    }

    #[test]
    fn cwnd_spread_pools_the_window_samples_of_every_flow() {
        // Window (5, 10] s. Flow 0 holds 1000 and 3000 B, flow 1 2000 and
        // 2000 B: pooled mean 2000, squared deviations 10^6 + 10^6 + 0 + 0
        // over 4 samples, sd sqrt(5 x 10^5). A sample at 5 s (not after
        // the window's start), a rate sample and a NaN do not count.
        let mut r = run(&[]);
        let cw =
            |t: f64, f: u32, v: f64| SeriesPoint::new(t, Subject::Flow(FlowId(f)), "cwnd_bytes", v);
        r.series = vec![
            cw(5.0, 0, 1e9),
            cw(6.0, 0, 1000.0),
            cw(6.0, 1, 2000.0),
            SeriesPoint::new(6.0, Subject::Flow(FlowId(1)), "throughput_bps", 1e9),
            cw(7.0, 0, 3000.0),
            cw(7.0, 1, 2000.0),
            cw(8.0, 1, f64::NAN),
        ];
        let c = group_cwnd(&of(&r, &[0, 1]), &r);
        assert_eq!(c.mean, Some(2000.0));
        assert!((c.sd.unwrap() - 5e5f64.sqrt()).abs() < 1e-9, "{c:?}");
        // Without window samples both are undefined.
        assert_eq!(group_cwnd(&of(&r, &[7]), &r), CwndSpread::default());
    }

    #[test]
    fn a_group_that_never_leaves_the_band_settles_at_once_without_overshoot() {
        let r = run(&[(1.0, 0, 0.95), (2.0, 0, 1.0)]);
        let a = flow(0, 0.5);
        assert_eq!(
            group_dynamics(&of(&r, &[0]), &[&a], Some(1.0)),
            (Some(0.0), Some(0.0))
        );
    }

    #[test]
    fn no_series_or_no_rate_means_undefined() {
        let a = flow(0, 0.0);
        assert_eq!(
            group_dynamics(&of(&run(&[]), &[0]), &[&a], Some(1.0)),
            (None, None)
        );
        let r = run(&[(1.0, 0, 1.0)]);
        assert_eq!(group_dynamics(&of(&r, &[0]), &[&a], None), (None, None));
        assert_eq!(
            group_dynamics(&of(&r, &[0]), &[&a], Some(0.0)),
            (None, None)
        );
    }

    #[test]
    fn send_rate_is_the_window_mean_and_the_peak_covers_the_whole_run() {
        // Window (5, 10]: group means 3 (6 s) and 5 (8 s); the peak (30 at
        // 1 s) is before it.
        let mut r = run(&[]);
        for (t, f, v) in [
            (1.0, 0, 30.0),
            (1.0, 1, 1.0),
            (6.0, 0, 4.0),
            (6.0, 1, 2.0),
            (8.0, 0, 6.0),
            (8.0, 1, 4.0),
        ] {
            r.series
                .push(SeriesPoint::new(t, Subject::Flow(FlowId(f)), "rate_bps", v));
        }
        let (f0, f1) = (flow(0, 0.0), flow(1, 0.0));
        let s = group_send_rate(&of(&r, &[f0.flow.0, f1.flow.0]), &r);
        assert_eq!(s.mean, Some(4.0));
        assert_eq!(s.spread, Some(0.5));
        // Per member, in the window: 2 (flow 1 at 6 s) .. 6 (flow 0 at 8 s).
        assert_eq!((s.min, s.max), (Some(2.0), Some(6.0)));
        assert_eq!((s.peak, s.peak_at), (Some(30.0), Some(1.0)));
        // One member alone.
        let s = group_send_rate(&of(&r, &[f1.flow.0]), &r);
        assert_eq!(
            (s.mean, s.peak, s.spread),
            (Some(3.0), Some(4.0), Some(2.0 / 3.0))
        );
    }

    #[test]
    fn send_rate_mean_takes_the_interval_averages_where_the_senders_give_them() {
        // Point samples say 4 and 6 (group means 3 and 5 as above); the
        // interval averages say the group ran at 2 and 3 (the one at 5 s is
        // for (4.9, 5] s, before the window). The mean follows the averages;
        // spread, band and peak stay on the point samples.
        let mut r = run(&[]);
        for (t, f, v, m) in [
            (6.0, 0, 4.0, "rate_bps"),
            (6.0, 1, 2.0, "rate_bps"),
            (8.0, 0, 6.0, "rate_bps"),
            (8.0, 1, 4.0, "rate_bps"),
            (5.0, 0, 100.0, "rate_avg_bps"),
            (6.0, 0, 3.0, "rate_avg_bps"),
            (6.0, 1, 1.0, "rate_avg_bps"),
            (8.0, 0, 4.0, "rate_avg_bps"),
            (8.0, 1, 2.0, "rate_avg_bps"),
        ] {
            r.series
                .push(SeriesPoint::new(t, Subject::Flow(FlowId(f)), m, v));
        }
        let (f0, f1) = (flow(0, 0.0), flow(1, 0.0));
        let s = group_send_rate(&of(&r, &[f0.flow.0, f1.flow.0]), &r);
        assert_eq!(s.mean, Some(2.5));
        assert_eq!(s.spread, Some(0.5));
        assert_eq!((s.min, s.max, s.peak), (Some(2.0), Some(6.0), Some(6.0)));
    }

    #[test]
    fn the_rate_variance_is_over_the_window_samples_only() {
        // Window (5, 10] s: departure rates 4, 6, 8 (variance 8/3); the
        // 100 at 2 s is before the window.
        let mut r = run(&[]);
        let l = Subject::Link(LinkId(0));
        for (t, v) in [(2.0, 100.0), (6.0, 4.0), (7.0, 6.0), (8.0, 8.0)] {
            r.series.push(SeriesPoint::new(t, l, "rate_bps", v));
        }
        let var = link_series_stats(&r)[0].rate_var().unwrap();
        assert!((var - 8.0 / 3.0).abs() < 1e-12, "{var}");
    }

    #[test]
    fn link_peaks_are_the_largest_sampled_input_and_loss() {
        let mut r = run(&[]);
        let l = Subject::Link(LinkId(1));
        for (t, m, v) in [
            (1.0, "arrival_bps", 5.0),
            (1.0, "loss_frac", 0.0),
            (2.0, "arrival_bps", 30.0),
            (2.0, "loss_frac", 0.66),
            (3.0, "arrival_bps", 9.0),
        ] {
            r.series.push(SeriesPoint::new(t, l, m, v));
        }
        r.series.push(SeriesPoint::new(
            2.0,
            Subject::Link(LinkId(0)),
            "loss_frac",
            0.9,
        ));
        let peaks = link_series_stats(&r);
        assert_eq!((peaks[1].arrival, peaks[1].loss), (Some(30.0), Some(0.66)));
        assert_eq!((peaks[0].arrival, peaks[0].loss), (None, Some(0.9)));
        assert_eq!(
            peaks.get(2).copied().unwrap_or_default(),
            LinkSeriesStats::default()
        );
        assert_eq!(peaks[1].rate_var(), None);
    }
}
