//! Measurement: the warm-up boundary, time-series sampling, the conservation
//! identities and the end-of-run report (the `impl Simulator` part that is not
//! on the per-packet path).

use super::*;
use crate::endpoint::Probe;

/// A probe's rate integral (bits) up to `upto` (`None`: not tracked).
fn rate_integral(probe: &Probe, upto: SimTime) -> Option<f64> {
    let (bits, at) = probe.rate_bits?;
    Some(bits + probe.rate? * upto.saturating_since(at).as_secs_f64())
}

/// A probe's time-average rate over `(t0, upto]`, given its integral `b0` at
/// `t0` (`None`: not tracked, or an empty span).
fn rate_average(probe: &Probe, (t0, b0): (SimTime, f64), upto: SimTime) -> Option<f64> {
    let bits = rate_integral(probe, upto)?;
    (upto > t0).then(|| (bits - b0) / (upto - t0).as_secs_f64())
}

impl Simulator {
    pub(super) fn on_warmup_end(&mut self, now: SimTime) {
        self.measuring = true;
        self.link_baselines = self.links.iter().map(LinkState::counters).collect();
        for l in &mut self.links {
            l.cold
                .stats
                .reset(now, l.queue.len() as u32, l.backlog_bytes);
        }
        for f in &mut self.flows {
            f.baseline = f.counters;
        }
    }

    pub(super) fn on_sample(&mut self, now: SimTime) {
        let Some(iv) = self.cfg.sample_interval else {
            return;
        };
        let t = now.as_secs_f64();
        let sel = self.cfg.series;
        let dt = iv.as_secs_f64();
        // Finished flows this sample read for the last time, to be closed.
        let mut closable = Vec::new();
        for (i, f) in self.flows.iter_mut().enumerate() {
            // A flow is sampled while it is active: from its start until it
            // finishes or is stopped (a stopped bulk flow never finishes, and
            // its controller's frozen rate is no rate it sends at).
            if f.start > now {
                continue;
            }
            let subject = Subject::Flow(FlowId::from_index(i));
            let end = [f.finished, f.stop].into_iter().flatten().min();
            if let Some(end) = end.filter(|&x| x < now) {
                // Ended since the previous sample: the rate's average over the
                // part of the interval the flow was active, once (a start
                // within an interval is treated alike below).
                // A sender stops integrating when it ends.
                let last = f.last_sample_rate_bits.unwrap_or((f.start, 0.0));
                if sel.flow_rate && end > last.0 {
                    let probe = self.endpoints[f.sender.index()].ep.probe();
                    if let Some(avg) = rate_average(&probe, last, end) {
                        self.series
                            .push(SeriesPoint::new(t, subject, "rate_avg_bps", avg));
                    }
                    // Marks the final average as taken.
                    f.last_sample_rate_bits = Some((end, last.1));
                }
                if f.finished.is_some() && !f.closed {
                    closable.push(FlowId::from_index(i));
                }
                continue;
            }
            let probe = self.endpoints[f.sender.index()].ep.probe();
            if sel.flow_window {
                if let Some(w) = probe.window {
                    self.series
                        .push(SeriesPoint::new(t, subject, "cwnd_bytes", w));
                }
            }
            if sel.flow_rate {
                if let Some(r) = probe.rate {
                    self.series
                        .push(SeriesPoint::new(t, subject, "rate_bps", r));
                }
                // The time average over (previous sample or start, now]: a
                // rate that moves at a fixed phase of the sampling grid (a
                // router interval equal to the sample interval) is misread by
                // its point samples.
                if let Some(bits) = rate_integral(&probe, now) {
                    let last = f.last_sample_rate_bits.unwrap_or((f.start, 0.0));
                    if let Some(avg) = rate_average(&probe, last, now) {
                        self.series
                            .push(SeriesPoint::new(t, subject, "rate_avg_bps", avg));
                    }
                    f.last_sample_rate_bits = Some((now, bits));
                }
                if let Some(p) = probe.loss_event_rate {
                    self.series
                        .push(SeriesPoint::new(t, subject, "loss_event_rate", p));
                }
                let rx = f.counters.rx_bytes;
                let thr = (rx - f.last_sample_rx) as f64 * 8.0 / dt;
                f.last_sample_rx = rx;
                if now > SimTime::ZERO {
                    self.series
                        .push(SeriesPoint::new(t, subject, "throughput_bps", thr));
                }
            }
            if sel.flow_rtt {
                if let Some(r) = probe.srtt {
                    self.series.push(SeriesPoint::new(t, subject, "srtt_s", r));
                }
            }
            if sel.flow_control {
                let series = &mut self.series;
                let mut emit = |name: &'static str, v: f64| {
                    series.push(SeriesPoint::new(t, subject, name, v));
                };
                for e in [f.sender, f.receiver] {
                    self.endpoints[e.index()].ep.series(&mut emit);
                }
            }
        }
        for f in closable {
            self.try_close(now, f);
        }
        for (i, l) in self.links.iter_mut().enumerate() {
            let subject = Subject::Link(LinkId::from_index(i));
            if sel.link_queue {
                self.series.push(SeriesPoint::new(
                    t,
                    subject,
                    "queue_pkts",
                    l.queue.len() as f64,
                ));
                self.series.push(SeriesPoint::new(
                    t,
                    subject,
                    "queue_bytes",
                    l.backlog_bytes as f64,
                ));
                if let Some((name, v)) = l.algo_ref().probe() {
                    self.series.push(SeriesPoint::new(t, subject, name, v));
                }
            }
            if sel.link_rate {
                let d = l.departed.bytes;
                let rate = (d - l.cold.last_sample_departed) as f64 * 8.0 / dt;
                l.cold.last_sample_departed = d;
                let a = l.arrived.bytes;
                let dropped = l.queue_dropped_bytes;
                let arrived = a - l.cold.last_sample_arrived;
                let lost = dropped - l.cold.last_sample_dropped;
                l.cold.last_sample_arrived = a;
                l.cold.last_sample_dropped = dropped;
                if l.cold.changed.scheduled {
                    for (name, v) in l.settings_series() {
                        self.series.push(SeriesPoint::new(t, subject, name, v));
                    }
                }
                if now > SimTime::ZERO {
                    self.series
                        .push(SeriesPoint::new(t, subject, "rate_bps", rate));
                    self.series.push(SeriesPoint::new(
                        t,
                        subject,
                        "arrival_bps",
                        arrived as f64 * 8.0 / dt,
                    ));
                    if arrived > 0 {
                        self.series.push(SeriesPoint::new(
                            t,
                            subject,
                            "loss_frac",
                            lost as f64 / arrived as f64,
                        ));
                    }
                }
            }
        }
        self.queue.schedule(now + iv, Event::Sample);
    }

    /// Check every conservation identity; `Err` names the first that fails.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut in_network = Count::default();
        let mut dropped = Count::default();
        for (i, l) in self.links.iter().enumerate() {
            let backlog = Count {
                pkts: l.queue.len() as u64,
                bytes: l.backlog_bytes,
            };
            let pipe = l.in_pipe(&self.slots);
            l.counters()
                .check(backlog, pipe)
                .map_err(|e| format!("link {} ({}): {e}", i, l.cold.spec.name))?;
            in_network.pkts += backlog.pkts + pipe.pkts;
            in_network.bytes += backlog.bytes + pipe.bytes;
            let d = l.counters().dropped_total();
            dropped.pkts += d.pkts;
            dropped.bytes += d.bytes;
        }
        if self.injected.pkts != self.absorbed.pkts + dropped.pkts + in_network.pkts
            || self.injected.bytes != self.absorbed.bytes + dropped.bytes + in_network.bytes
        {
            return Err(format!(
                "sent {:?} != delivered {:?} + dropped {:?} + in queues and pipes {:?}",
                self.injected, self.absorbed, dropped, in_network
            ));
        }
        Ok(())
    }

    pub(super) fn finish(mut self, end: SimTime) -> RunOutput {
        if let Err(e) = self.check_invariants() {
            panic!("conservation invariant broken at end of run: {e}");
        }
        if let Some(t) = &mut self.tracer {
            t.on_end(end);
        }
        let warm = SimTime::ZERO + self.cfg.warmup;
        let window = (end - warm).as_secs_f64();
        let mut crossing: Vec<Vec<FlowId>> = vec![Vec::new(); self.links.len()];
        // Each route's propagation delay and smallest capacity, once (as
        // configured: a change schedule does not move them).
        let route_props: Vec<(f64, f64)> = self
            .routes
            .iter()
            .map(|r| {
                r.iter().fold((0.0, f64::INFINITY), |(d, c), l| {
                    let s = &self.links[l.index()].cold.spec;
                    (d + s.delay.as_secs_f64(), c.min(s.capacity.bps_f64()))
                })
            })
            .collect();
        // The flows are consumed as their reports are made: a report is as
        // large as a flow's state (512 bytes), so the reports take over the
        // states' buffer (`Vec`'s in-place collect) instead of doubling the
        // peak (10^6 short flows: 1.2 GB before, the loop's own 0.7 GB now).
        let closed_flows = self.flows.iter().filter(|f| f.closed).count() as u64;
        let states = std::mem::take(&mut self.flows);
        let flows: Vec<FlowReport> = states
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                let id = FlowId::from_index(i);
                for l in &self.routes[f.fwd.index()] {
                    crossing[l.index()].push(id);
                }
                let from = f.start.max(warm);
                let to = f
                    .finished
                    .unwrap_or(end)
                    .min(f.stop.unwrap_or(end))
                    .min(end);
                let active = if to > from {
                    (to - from).as_secs_f64()
                } else {
                    0.0
                };
                let (fwd_delay, path_bps) = route_props[f.fwd.index()];
                let rev_delay = route_props[f.rev.index()].0;
                let route = &self.routes[f.fwd.index()];
                let end_node = |l: Option<&LinkId>, downstream: bool| {
                    l.map_or(crate::ids::NodeId(0), |l| {
                        let spec = &self.links[l.index()].cold.spec;
                        if downstream {
                            spec.to
                        } else {
                            spec.from
                        }
                    })
                };
                let rto = match f.rto {
                    Some(r) => Some(*r),
                    None if !f.closed => self.endpoints[f.sender.index()].ep.rto_stats(),
                    None => None,
                };
                FlowReport {
                    flow: id,
                    group: f.group,
                    start: f.start,
                    finish: f.finished,
                    active_secs: active,
                    counters: f.counters.since(&f.baseline),
                    total: f.counters,
                    size: f.size,
                    base_rtt_s: fwd_delay + rev_delay + 2.0 * f.host_delay.as_secs_f64(),
                    path_bps: if path_bps.is_finite() { path_bps } else { 0.0 },
                    src: end_node(route.first(), false),
                    dst: end_node(route.last(), true),
                    route: f.fwd,
                    packet_size: f.packet_size,
                    host_delay_s: f.host_delay.as_secs_f64(),
                    rto,
                }
            })
            .collect();
        // Free what the link reports do not need before they are made: the
        // endpoints, flows, routes, pending events and packets. In a network
        // of 10^5 flows they are a third of the simulator, and the reports
        // come on top of what is left.
        let pages = self
            .groups
            .iter_mut()
            .flatten()
            .flat_map(|g| g.factory.take_pages())
            .collect();
        drop(std::mem::take(&mut self.endpoints));
        let routes = std::mem::take(&mut self.routes);
        drop(std::mem::take(&mut self.groups));
        drop(std::mem::take(&mut self.queue));
        drop(std::mem::take(&mut self.slots));
        // Consume the links as their reports are made, so their cold parts
        // are freed before the reports are complete (peak memory).
        let baselines = std::mem::take(&mut self.link_baselines);
        let mean_capacity = self.mean_capacities(warm, end);
        let mut links: Vec<LinkReport> = std::mem::take(&mut self.links)
            .into_iter()
            .zip(baselines)
            .zip(crossing)
            .enumerate()
            .map(|(i, ((l, base), flows))| {
                let total = l.counters();
                let since = total.since(&base);
                let mut cold = l.cold;
                cold.stats
                    .advance(end, l.queue.len() as u32, l.backlog_bytes);
                // Every departure in the window is one queueing-delay sample; the
                // idle path records none itself (see `link_enqueue`).
                debug_assert!(cold.stats.qdelay_n <= since.departed.pkts);
                cold.stats.qdelay_n = since.departed.pkts;
                LinkReport::new(
                    LinkId::from_index(i),
                    &cold.spec,
                    since,
                    &total,
                    cold.stats,
                    window,
                    flows,
                )
            })
            .collect();
        for (l, bps) in mean_capacity {
            links[l.index()].capacity_bps = bps;
        }
        RunOutput {
            replication: self.cfg.replication,
            seed: self.cfg.seed,
            events: self.events,
            end_secs: end.as_secs_f64(),
            window_secs: window,
            flows,
            links,
            routes,
            series: self.series,
            objects: std::mem::take(&mut self.objects),
            pages,
            overload: None,
            closed_flows,
            link_changes: self.change_log,
        }
    }

    /// The output of a run stopped at `now` because the network held more
    /// than [`MAX_PACKETS_HELD`](crate::MAX_PACKETS_HELD) packets: no reports, only what
    /// happened and where.
    pub(super) fn overloaded(self, now: SimTime) -> RunOutput {
        let (link, queue_pkts) = self
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| (LinkId::from_index(i), l.queue.len()))
            .max_by_key(|&(_, q)| q)
            .unwrap_or((LinkId::from_index(0), 0));
        RunOutput {
            replication: self.cfg.replication,
            seed: self.cfg.seed,
            events: self.events,
            end_secs: now.as_secs_f64(),
            window_secs: 0.0,
            flows: Vec::new(),
            links: Vec::new(),
            routes: Vec::new(),
            series: Vec::new(),
            objects: Vec::new(),
            pages: Vec::new(),
            closed_flows: 0,
            link_changes: self.change_log,
            overload: Some(Overload {
                at_secs: now.as_secs_f64(),
                packets: self.slots.capacity(),
                link,
                queue_pkts,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_flow_report_fits_in_the_place_of_a_flow_state() {
        // `finish` collects the reports into the states' buffer only when a
        // report is no larger than a state and aligned alike; otherwise the
        // reports and states of every flow are held at once (peak memory).
        use std::mem::{align_of, size_of};
        type State = super::super::FlowState;
        type Report = crate::report::FlowReport;
        assert!(size_of::<Report>() <= size_of::<State>());
        assert_eq!(size_of::<State>() % size_of::<Report>(), 0);
        assert_eq!(align_of::<Report>(), align_of::<State>());
    }
}
