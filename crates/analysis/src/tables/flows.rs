//! The `flows` table: one row per (replication, flow), with what describes
//! each flow (its ends, path, packet size, host delay, RTO) beside what it
//! measured.

use polars::prelude::{DataFrame, PolarsResult};

use super::{batched, col, stamped, whole, Labels, Sink};
use crate::metrics::Metrics;

/// The columns of a batch of the `flows` table.
#[derive(Default)]
struct FlowCols<'a> {
    rep: Vec<u32>,
    flow: Vec<u32>,
    group: Vec<&'a str>,
    start: Vec<f64>,
    finish: Vec<Option<f64>>,
    active: Vec<f64>,
    goodput: Vec<Option<f64>>,
    throughput: Vec<Option<f64>>,
    counts: [Vec<u64>; 12],
    on_frac: Vec<Option<f64>>,
    /// `pcc_rtcp_mean_bps`, `pcc_loss_rate`, `pcc_loss_event_rate`,
    /// `pcc_t_prot_mean_s`.
    pcc: [Vec<Option<f64>>; 4],
    fct: Vec<Option<f64>>,
    size: Vec<Option<u64>>,
    base_rtt: Vec<f64>,
    path: Vec<f64>,
    slowdown: Vec<Option<f64>>,
    src: Vec<&'a str>,
    dst: Vec<&'a str>,
    route: Vec<&'a str>,
    packet_size: Vec<Option<u32>>,
    extra_delay: Vec<f64>,
    rto: [Vec<Option<f64>>; 3],
}

const FLOW_COUNTS: [&str; 12] = [
    "sent_pkts",
    "retx_pkts",
    "rx_bytes",
    "goodput_bytes",
    "timeouts",
    "reductions",
    "fast_retransmits",
    "ecn_waits",
    "ce_pkts",
    "pcc_experiments",
    "pcc_failed",
    "pcc_off_periods",
];

/// `flows`: replication, flow, group, start_s, finish_s, active_s, goodput_bps,
/// throughput_bps, sent_pkts, retx_pkts, rx_bytes, goodput_bytes, timeouts,
/// reductions, fast_retransmits, ecn_waits, ce_pkts, pcc_experiments,
/// pcc_failed, pcc_off_periods, pcc_on_frac, pcc_rtcp_mean_bps,
/// pcc_loss_rate, pcc_loss_event_rate, pcc_t_prot_mean_s, fct_s, size_bytes,
/// base_rtt_s, path_bps, slowdown, src, dst, path, packet_size_bytes,
/// extra_delay_s, rto_min_s, rto_mean_s, rto_max_s, in batches. `pcc_on_frac`
/// (a PCC flow's time on over its active time in the window) and the other
/// `pcc_*` ratios ([`sim_core::FlowReport::pcc_rtcp_mean_bps`],
/// [`sim_core::FlowReport::pcc_loss_rate`],
/// [`sim_core::FlowReport::pcc_loss_event_rate`],
/// [`sim_core::FlowReport::pcc_t_prot_mean_s`]) are null for other flows. Rates
/// are null for a flow inactive in the window; `finish_s` and `fct_s` are null
/// for a flow that did not complete; `path` is the data route's link names
/// joined by spaces, each route's string made once.
pub fn flows_batches(m: &Metrics<'_>, sink: &mut Sink<'_>) -> PolarsResult<()> {
    let sink = &mut stamped(m.set(), sink);
    let labels = Labels::new(m);
    let meta = &m.set().meta;
    let node = |n: sim_core::NodeId| meta.node_names.get(n.index()).map_or("", String::as_str);
    // Route strings by run and route id, made once per route (runs share
    // their routes, but each carries its own list).
    let paths: Vec<Vec<String>> = m
        .set()
        .runs
        .iter()
        .map(|r| {
            r.routes
                .iter()
                .map(|links| {
                    let names: Vec<_> = links.iter().map(|&l| labels.link(l)).collect();
                    names.join(" ")
                })
                .collect()
        })
        .collect();
    let mut cols = FlowCols::default();
    let runs = m.set().runs.iter().enumerate();
    batched(
        runs.flat_map(|(i, r)| r.flows.iter().map(move |f| (r, i, f))),
        &mut cols,
        |c, (r, i, f)| {
            c.rep.push(r.replication);
            c.flow.push(f.flow.0);
            c.group.push(labels.group(f.group));
            c.start.push(f.start.as_secs_f64());
            c.finish.push(f.finish.map(|t| t.as_secs_f64()));
            c.active.push(f.active_secs);
            c.goodput.push(f.goodput_bps());
            c.throughput.push(f.throughput_bps());
            let n = &f.counters;
            for (v, x) in c.counts.iter_mut().zip([
                n.sent_pkts,
                n.retx_pkts,
                n.rx_bytes,
                n.goodput_bytes,
                n.timeouts,
                n.reductions,
                n.fast_retransmits,
                n.ecn_waits,
                n.ce_pkts,
                n.pcc_experiments,
                n.pcc_failed,
                n.pcc_off_periods,
            ]) {
                v.push(x);
            }
            c.on_frac.push(f.pcc_on_frac());
            for (v, x) in c.pcc.iter_mut().zip([
                f.pcc_rtcp_mean_bps(),
                f.pcc_loss_rate(),
                f.pcc_loss_event_rate(),
                f.pcc_t_prot_mean_s(),
            ]) {
                v.push(x);
            }
            c.fct.push(f.fct_secs());
            c.size.push(f.size);
            c.base_rtt.push(f.base_rtt_s);
            c.path.push(f.path_bps);
            c.slowdown.push(f.slowdown());
            c.src.push(node(f.src));
            c.dst.push(node(f.dst));
            c.route
                .push(paths[i].get(f.route.index()).map_or("", String::as_str));
            c.packet_size.push(f.packet_size);
            c.extra_delay.push(f.host_delay_s);
            let rto = f.rto.as_ref();
            c.rto[0].push(rto.map(|x| x.min_s));
            c.rto[1].push(rto.and_then(|x| x.mean_s()));
            c.rto[2].push(rto.map(|x| x.max_s));
        },
        |c| {
            let c = std::mem::take(c);
            let height = c.rep.len();
            let mut v = vec![
                col("replication", c.rep),
                col("flow", c.flow),
                col("group", c.group),
                col("start_s", c.start),
                col("finish_s", c.finish),
                col("active_s", c.active),
                col("goodput_bps", c.goodput),
                col("throughput_bps", c.throughput),
            ];
            v.extend(
                FLOW_COUNTS
                    .iter()
                    .zip(c.counts)
                    .map(|(name, x)| col(name, x)),
            );
            v.push(col("pcc_on_frac", c.on_frac));
            let [rtcp, loss, events, t_prot] = c.pcc;
            v.push(col("pcc_rtcp_mean_bps", rtcp));
            v.push(col("pcc_loss_rate", loss));
            v.push(col("pcc_loss_event_rate", events));
            v.push(col("pcc_t_prot_mean_s", t_prot));
            v.push(col("fct_s", c.fct));
            v.push(col("size_bytes", c.size));
            v.push(col("base_rtt_s", c.base_rtt));
            v.push(col("path_bps", c.path));
            v.push(col("slowdown", c.slowdown));
            v.push(col("src", c.src));
            v.push(col("dst", c.dst));
            v.push(col("path", c.route));
            v.push(col("packet_size_bytes", c.packet_size));
            v.push(col("extra_delay_s", c.extra_delay));
            let [lo, mean, hi] = c.rto;
            v.push(col("rto_min_s", lo));
            v.push(col("rto_mean_s", mean));
            v.push(col("rto_max_s", hi));
            DataFrame::new(height, v)
        },
        sink,
    )
}

/// The whole `flows` table ([`flows_batches`] stacked).
pub fn flows_table(m: &Metrics<'_>) -> PolarsResult<DataFrame> {
    whole(|s| flows_batches(m, s))
}
