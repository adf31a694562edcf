//! What a run reports: per-flow and per-link measurements over the measurement
//! window, and sampled time series. Analysis turns these into tables.

use crate::endpoint::FlowCounters;
use crate::ids::{FlowId, GroupId, LinkId};
use crate::link::{
    hist_quantile, hist_sd, Count, LinkCounters, LinkSpec, LinkStats, Reason, BACKLOG_BYTES_BIN,
};
use crate::units::{SimTime, PS_PER_SEC};

/// Which time series to sample.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SeriesSelect {
    /// Per-flow congestion window.
    pub flow_window: bool,
    /// Per-flow sending rate (`rate_bps`, the controller's rate at the
    /// sample; `rate_avg_bps`, its time average since the previous sample or
    /// the flow's start, for senders that track it) and received throughput
    /// (`throughput_bps`, over the sampling interval).
    pub flow_rate: bool,
    /// Per-flow smoothed RTT.
    pub flow_rtt: bool,
    /// Per-link queue length (and the link algorithm's probe).
    pub link_queue: bool,
    /// Per-link departure rate.
    pub link_rate: bool,
    /// Per-flow state of the flow's control that lives in its endpoints
    /// beyond window, rate and RTT ([`crate::Endpoint::series`]; PCC's
    /// receiver: `p_on`, `r_tcp_bps`, `r_eff_bps`, `on`).
    pub flow_control: bool,
}

impl SeriesSelect {
    /// True when any series is selected.
    pub fn any(&self) -> bool {
        self.flow_window
            || self.flow_rate
            || self.flow_rtt
            || self.flow_control
            || self.link_queue
            || self.link_rate
    }
}

/// What a time-series point is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A flow.
    Flow(FlowId),
    /// A link.
    Link(LinkId),
}

/// One sample of one metric.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SeriesPoint {
    /// Sample time, seconds.
    pub time: f64,
    /// Flow or link.
    pub subject: Subject,
    /// Metric name with its unit (`"cwnd_bytes"`, `"queue_pkts"`, ...).
    pub metric: &'static str,
    /// Value in the metric's unit.
    pub value: f64,
}

impl SeriesPoint {
    /// A point.
    pub fn new(time: f64, subject: Subject, metric: &'static str, value: f64) -> Self {
        SeriesPoint {
            time,
            subject,
            metric,
            value,
        }
    }
}

/// A flow's measurements.
#[derive(Clone, Debug, Default)]
pub struct FlowReport {
    /// The flow.
    pub flow: FlowId,
    /// Its group.
    pub group: GroupId,
    /// Start time.
    pub start: SimTime,
    /// Completion time of a finite flow, if it completed.
    pub finish: Option<SimTime>,
    /// Seconds the flow was active inside the measurement window.
    pub active_secs: f64,
    /// Counters over the measurement window.
    pub counters: FlowCounters,
    /// Counters over the whole run.
    pub total: FlowCounters,
    /// The bytes a finite flow had to deliver (`None`: unbounded or written
    /// by an application over time).
    pub size: Option<u64>,
    /// The round trip without queueing or transmission: the propagation
    /// delays of its data and ACK routes plus twice its host delay, seconds.
    pub base_rtt_s: f64,
    /// The smallest capacity on its data route, bits/s.
    pub path_bps: f64,
    /// The node its data leaves from (the first link's upstream node).
    pub src: crate::ids::NodeId,
    /// The node its data goes to (the last link's downstream node).
    pub dst: crate::ids::NodeId,
    /// Its data route: an index into [`RunOutput::routes`].
    pub route: crate::ids::RouteId,
    /// Its data packets' size on the wire, bytes, if one size
    /// ([`crate::Endpoint::packet_size`]; `None` for sources that draw each
    /// packet's size).
    pub packet_size: Option<u32>,
    /// The one-way delay each of its hosts adds before the first link, seconds.
    pub host_delay_s: f64,
    /// The retransmission timeouts its sender computed over the whole run
    /// (`None` for senders without one, or without an RTT sample).
    pub rto: Option<RtoStats>,
}

/// The retransmission timeouts (RTO) a sender ran with: every value its
/// estimator set, one per RTT sample and one per timer backoff.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct RtoStats {
    /// The smallest, seconds.
    pub min_s: f64,
    /// The largest, seconds.
    pub max_s: f64,
    /// The sum of the values, seconds.
    pub sum_s: f64,
    /// How many values.
    pub count: u64,
}

impl RtoStats {
    /// The mean value, seconds (`None` before any value).
    pub fn mean_s(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_s / self.count as f64)
    }
}

impl FlowReport {
    /// Goodput over the flow's active time in the window, bits/s (`None` if inactive).
    pub fn goodput_bps(&self) -> Option<f64> {
        (self.active_secs > 0.0)
            .then(|| self.counters.goodput_bytes as f64 * 8.0 / self.active_secs)
    }
    /// Throughput (data bytes received, duplicates included) over the active time, bits/s.
    pub fn throughput_bps(&self) -> Option<f64> {
        (self.active_secs > 0.0).then(|| self.counters.rx_bytes as f64 * 8.0 / self.active_secs)
    }
    /// A PCC flow's fraction of its active time in the window that its
    /// sender was on (`None` for other flows, or if inactive).
    pub fn pcc_on_frac(&self) -> Option<f64> {
        self.pcc_active().then(|| {
            (self.counters.pcc_on_ps as f64 / PS_PER_SEC as f64 / self.active_secs).min(1.0)
        })
    }
    /// Whether this is a PCC flow (its sender was on, or its receiver ran an
    /// experiment, at some time in the run) active in the window: the flows
    /// the `pcc_*` statistics are defined for.
    pub fn pcc_active(&self) -> bool {
        let pcc = self.total.pcc_experiments > 0 || self.total.pcc_on_ps > 0;
        pcc && self.active_secs > 0.0
    }
    /// A PCC flow's mean r_TCP estimate over its experiments in the window
    /// that had a finite one, bits/s (thesis Fig. 6.5; `None` for other
    /// flows, or without such an experiment).
    pub fn pcc_rtcp_mean_bps(&self) -> Option<f64> {
        let c = &self.counters;
        (self.pcc_active() && c.pcc_rtcp_samples > 0)
            .then(|| c.pcc_rtcp_sum_bps as f64 / c.pcc_rtcp_samples as f64)
    }
    /// A PCC flow's packet loss rate as its receiver measured it in the
    /// window: packets found lost over packets received plus lost (thesis
    /// Fig. 6.7; `None` for other flows, or with neither).
    pub fn pcc_loss_rate(&self) -> Option<f64> {
        let c = &self.counters;
        let n = c.rx_pkts + c.pcc_lost_pkts;
        (self.pcc_active() && n > 0).then(|| c.pcc_lost_pkts as f64 / n as f64)
    }
    /// A PCC flow's loss event rate as its receiver measured it in the
    /// window: loss events over packets received plus lost (thesis Fig. 6.7;
    /// `None` for other flows, or with neither).
    pub fn pcc_loss_event_rate(&self) -> Option<f64> {
        let c = &self.counters;
        let n = c.rx_pkts + c.pcc_lost_pkts;
        (self.pcc_active() && n > 0).then(|| c.pcc_loss_events as f64 / n as f64)
    }
    /// A PCC flow's mean protected time after a restart, over those that
    /// ended in the window, seconds; 0 if none did (thesis Fig. 6.26: "0 when
    /// no restarts happen"); `None` for other flows. The start-up protected
    /// time is not in it.
    pub fn pcc_t_prot_mean_s(&self) -> Option<f64> {
        let c = &self.counters;
        self.pcc_active().then(|| {
            if c.pcc_prot_periods == 0 {
                0.0
            } else {
                c.pcc_prot_ps as f64 / PS_PER_SEC as f64 / c.pcc_prot_periods as f64
            }
        })
    }
    /// Flow completion time, seconds, for a finite flow that finished.
    pub fn fct_secs(&self) -> Option<f64> {
        self.finish.map(|f| (f - self.start).as_secs_f64())
    }
    /// The completion time of the flow alone on an idle path: one base
    /// round trip plus its bytes at the path's smallest capacity, seconds
    /// (a finite flow; the usual reference of data-centre studies, which
    /// leaves slow start's extra round trips in the slowdown).
    pub fn ideal_fct_secs(&self) -> Option<f64> {
        let size = self.size?;
        (self.path_bps > 0.0).then(|| self.base_rtt_s + size as f64 * 8.0 / self.path_bps)
    }
    /// Slowdown: completion time over [`FlowReport::ideal_fct_secs`] (a
    /// finite flow that finished).
    pub fn slowdown(&self) -> Option<f64> {
        let ideal = self.ideal_fct_secs()?;
        (ideal > 0.0).then(|| self.fct_secs().map(|t| t / ideal))?
    }
}

/// A link's measurements over the measurement window.
#[derive(Clone, Debug)]
pub struct LinkReport {
    /// The link.
    pub link: LinkId,
    /// Its name.
    pub name: String,
    /// Capacity, bits/s: the configured one, or, for a link whose capacity
    /// or state a change schedule altered, its time-weighted mean over the
    /// measurement window with the time it was down counted at zero (what
    /// [`LinkReport::utilisation`] divides by).
    pub capacity_bps: f64,
    /// Counters over the window.
    pub counters: LinkCounters,
    /// Departures over the whole run (warm-up included), for speed figures.
    pub total_departed: Count,
    /// Drops over the whole run (warm-up included): transients before the
    /// window, e.g. a start-up overshoot, still show.
    pub total_dropped: Count,
    /// Backlog and delay statistics over the window.
    pub stats: LinkStats,
    /// Window length, seconds.
    pub window_secs: f64,
    /// Flows whose data route crosses this link.
    pub flows: Vec<FlowId>,
}

impl LinkReport {
    /// Assemble a report: `counters` over the window, `total` over the whole run.
    pub fn new(
        link: LinkId,
        spec: &LinkSpec,
        counters: LinkCounters,
        total: &LinkCounters,
        stats: LinkStats,
        window_secs: f64,
        flows: Vec<FlowId>,
    ) -> Self {
        LinkReport {
            link,
            name: spec.name.clone(),
            capacity_bps: spec.capacity.bps_f64(),
            counters,
            total_departed: total.departed,
            total_dropped: total.dropped_total(),
            stats,
            window_secs,
            flows,
        }
    }
    /// Fraction of capacity used by departures over the window.
    pub fn utilisation(&self) -> f64 {
        if self.window_secs <= 0.0 || self.capacity_bps <= 0.0 {
            return 0.0;
        }
        self.counters.departed.bytes as f64 * 8.0 / (self.capacity_bps * self.window_secs)
    }
    fn window_ps(&self) -> f64 {
        self.window_secs * 1e12
    }
    /// Time-averaged backlog, packets.
    pub fn backlog_mean_pkts(&self) -> f64 {
        let w = self.window_ps();
        if w > 0.0 {
            self.stats.area_pkts as f64 / w
        } else {
            0.0
        }
    }
    /// Time-averaged backlog, bytes.
    pub fn backlog_mean_bytes(&self) -> f64 {
        let w = self.window_ps();
        if w > 0.0 {
            self.stats.area_bytes as f64 / w
        } else {
            0.0
        }
    }
    /// 99th percentile of the time-weighted backlog, packets.
    pub fn backlog_p99_pkts(&self) -> f64 {
        hist_quantile(&self.stats.hist_pkts, 0.99).unwrap_or(0) as f64
    }
    /// Standard deviation of the time-weighted backlog over the window,
    /// packets (population form: the spread of the queue's time-weighted
    /// histogram, as a histogram of the queue sampled at a fine period
    /// shows it); 0 for an empty window.
    pub fn backlog_sd_pkts(&self) -> f64 {
        hist_sd(&self.stats.hist_pkts).unwrap_or(0.0)
    }
    /// 99th percentile of the time-weighted backlog, bytes (upper edge of its
    /// [`BACKLOG_BYTES_BIN`]-byte bin, capped at the maximum seen).
    pub fn backlog_p99_bytes(&self) -> f64 {
        hist_quantile(&self.stats.hist_bytes, 0.99)
            .map(|b| ((b as u64 + 1) * BACKLOG_BYTES_BIN).min(self.stats.max_bytes) as f64)
            .unwrap_or(0.0)
    }
    /// Mean queueing delay of packets that left the queue in the window, seconds.
    pub fn qdelay_mean_secs(&self) -> f64 {
        if self.stats.qdelay_n == 0 {
            0.0
        } else {
            self.stats.qdelay_sum as f64 / self.stats.qdelay_n as f64 / 1e12
        }
    }
    /// Standard deviation of the queueing delay of packets that left the queue in
    /// the window (population form, divisor n), seconds; 0 with fewer than 2.
    pub fn qdelay_sd_secs(&self) -> f64 {
        let n = self.stats.qdelay_n;
        if n < 2 {
            return 0.0;
        }
        let n = n as f64;
        let mean = self.stats.qdelay_sum as f64 / n;
        let var = (self.stats.qdelay_sumsq as f64 / n - mean * mean).max(0.0);
        var.sqrt() / 1e12
    }
    /// Fraction of arriving packets that were marked (any reason): the per-link
    /// marking probability the ECN papers report; 0 when nothing arrived.
    pub fn mark_prob(&self) -> f64 {
        let a = self.counters.arrived.pkts;
        if a == 0 {
            0.0
        } else {
            self.counters.marked_total().pkts as f64 / a as f64
        }
    }
    /// Largest queueing delay in the window, seconds.
    pub fn qdelay_max_secs(&self) -> f64 {
        self.stats.qdelay_max.as_secs_f64()
    }
    /// Drop probability per reason: dropped / arrived packets.
    pub fn drop_fraction(&self, r: Reason) -> f64 {
        let a = self.counters.arrived.pkts;
        if a == 0 {
            0.0
        } else {
            self.counters.dropped[r as usize].pkts as f64 / a as f64
        }
    }
    /// Mark probability per reason: marked / arrived packets.
    pub fn mark_fraction(&self, r: Reason) -> f64 {
        let a = self.counters.arrived.pkts;
        if a == 0 {
            0.0
        } else {
            self.counters.marked[r as usize].pkts as f64 / a as f64
        }
    }
}

/// Why a replication stopped before its end: the network held more packets
/// than any real buffer would (an `unlimited` buffer behind an overloaded link).
#[derive(Clone, Debug, PartialEq)]
pub struct Overload {
    /// Simulated time of the stop, seconds.
    pub at_secs: f64,
    /// Packets the network had held at once.
    pub packets: usize,
    /// The link with the longest queue then.
    pub link: LinkId,
    /// Its queue, packets.
    pub queue_pkts: usize,
}

/// One application object a flow carried (a web object on a persistent
/// connection): when the application wrote it, when its last byte was
/// acknowledged, and its size.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ObjectReport {
    /// The flow that carried it.
    pub flow: FlowId,
    /// The flow's group.
    pub group: GroupId,
    /// When the application handed it to the sender.
    pub requested: SimTime,
    /// When the sender saw its last byte acknowledged.
    pub completed: SimTime,
    /// Its size, bytes.
    pub bytes: u64,
}

impl ObjectReport {
    /// Completion time: from the request to the acknowledgement of the last
    /// byte, seconds.
    pub fn completion_secs(&self) -> f64 {
        (self.completed - self.requested).as_secs_f64()
    }
}

/// One web page a closed- or open-loop web session completed: from the
/// request of its first object to the acknowledgement of its last.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PageReport {
    /// The group whose session requested it.
    pub group: GroupId,
    /// The session (0-based, within the group).
    pub session: u32,
    /// When its first object was requested.
    pub requested: SimTime,
    /// When its last object's last byte was acknowledged.
    pub completed: SimTime,
    /// Its objects.
    pub objects: u32,
    /// Its size (the sum of its objects), bytes.
    pub bytes: u64,
}

impl PageReport {
    /// Page time: from the first request to the last acknowledgement, seconds.
    pub fn completion_secs(&self) -> f64 {
        (self.completed - self.requested).as_secs_f64()
    }
}

/// Everything one replication produced.
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    /// Replication index.
    pub replication: u32,
    /// Master seed.
    pub seed: u64,
    /// Events processed.
    pub events: u64,
    /// Simulated end time, seconds.
    pub end_secs: f64,
    /// Measurement-window length, seconds.
    pub window_secs: f64,
    /// Per-flow reports, by flow id.
    pub flows: Vec<FlowReport>,
    /// Per-link reports, by link id.
    pub links: Vec<LinkReport>,
    /// The routes flows used, by route id ([`FlowReport::route`]): their links in order.
    pub routes: Vec<Vec<crate::ids::LinkId>>,
    /// Sampled time series.
    pub series: Vec<SeriesPoint>,
    /// The application objects flows completed (persistent web connections),
    /// in completion order, over the whole run.
    pub objects: Vec<ObjectReport>,
    /// The web pages sessions completed (groups whose flow factory reports
    /// pages: web traffic with fresh connections), by group then completion
    /// time, over the whole run.
    pub pages: Vec<PageReport>,
    /// Set if the run stopped early because the network held too many
    /// packets; the reports are then empty.
    pub overload: Option<Overload>,
    /// Flows whose endpoints the engine freed once nothing could reach them
    /// again (finished flows; memory, not a result: see
    /// `Simulator::keep_finished_flows`).
    pub closed_flows: u64,
    /// The link changes applied during the run, in the order they took
    /// effect (empty without a change schedule).
    pub link_changes: Vec<LinkChangeRecord>,
}

/// One applied link change (`Simulator::schedule_link_change`): a row of the
/// `link_changes` table.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkChangeRecord {
    /// When it took effect, seconds.
    pub time_secs: f64,
    /// The link.
    pub link: LinkId,
    /// What changed: `"loss"` (probability), `"capacity_bps"`, `"delay_s"`
    /// or `"up"` (1 up, 0 down).
    pub quantity: &'static str,
    /// The value before the change, in the quantity's unit.
    pub old: f64,
    /// The value after it.
    pub new: f64,
    /// Packets the change itself dropped: for a link going down, the ones it
    /// held in its queue and on its wire; 0 otherwise.
    pub dropped_pkts: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimDuration;

    fn report(delays_ms: &[u64], arrived: u64, marked: u64) -> LinkReport {
        let mut stats = LinkStats::default();
        for &d in delays_ms {
            stats.record_qdelay(SimDuration::from_millis(d));
        }
        let mut counters = LinkCounters::default();
        counters.arrived.pkts = arrived;
        counters.marked[0].pkts = marked;
        LinkReport {
            link: crate::LinkId(0),
            name: "l".into(),
            capacity_bps: 1e6,
            counters,
            total_departed: Count::default(),
            total_dropped: Count::default(),
            stats,
            window_secs: 1.0,
            flows: Vec::new(),
        }
    }

    #[test]
    fn queueing_delay_sd_is_the_population_sd_of_the_samples() {
        // Delays 1, 2, 3 ms: mean 2 ms, population variance (1 + 0 + 1) / 3 ms^2.
        let r = report(&[1, 2, 3], 0, 0);
        assert!((r.qdelay_mean_secs() - 2e-3).abs() < 1e-15);
        assert!((r.qdelay_sd_secs() - (2.0f64 / 3.0).sqrt() * 1e-3).abs() < 1e-12);
        assert_eq!(report(&[5], 0, 0).qdelay_sd_secs(), 0.0);
        assert_eq!(report(&[4, 4, 4, 4], 0, 0).qdelay_sd_secs(), 0.0);
    }

    #[test]
    fn mark_probability_is_marked_over_arrived() {
        assert_eq!(report(&[], 200, 5).mark_prob(), 0.025);
        assert_eq!(report(&[], 0, 0).mark_prob(), 0.0);
    }
}
