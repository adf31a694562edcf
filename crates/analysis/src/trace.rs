//! The per-packet trace of one replication (`netsim run --trace`), streamed
//! to disk while the simulation runs, and its pcap captures ([`crate::pcap`]).
//!
//! [`start`] returns the engine's [`Tracer`] and a [`TraceHandle`]. The
//! tracer filters each event (time window, flows, links, kinds) and keeps
//! the accepted ones as raw `(time, link, kind, packet)` rows; every
//! [`BATCH_ROWS`] rows it hands a batch to a builder thread, which turns it
//! into columns and passes it to [`write_table`]'s encoder thread: at most a
//! few batches are in memory, and a simulation that outruns the disk waits
//! (a bounded channel). The table is written to a temporary name and renamed
//! only when the engine reports the run's end ([`Tracer::on_end`]) and
//! [`TraceHandle::finish`] is called: a run that panics or stops early leaves
//! no trace under the final name. The pcap files follow the same rule.

use std::fs::OpenOptions;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use polars::prelude::{Column, DataFrame, DataType, IdxSize, PolarsError, PolarsResult};
use sim_core::{CcHeader, Ecn, Flags, LinkId, Packet, SimTime, TraceKind, Tracer};

use crate::error::AnalysisError;
use crate::pcap::{Hops, PcapWriter};
use crate::tables::{col, Dict, BATCH_ROWS};
use crate::write::{commit, temp_path, write_table, Format};

/// The event kinds by name, in the order of their bits in [`TraceFilter::kinds`].
pub const KIND_NAMES: [&str; 6] = ["enqueue", "drop", "mark", "depart", "arrive", "deliver"];

/// The bit of `kind` in a kind mask (bit i: [`KIND_NAMES`]`[i]`).
pub fn kind_bit(kind: TraceKind) -> u8 {
    1 << match kind {
        TraceKind::Enqueue => 0,
        TraceKind::Drop(_) => 1,
        TraceKind::Mark(_) => 2,
        TraceKind::Depart => 3,
        TraceKind::Arrive => 4,
        TraceKind::Deliver => 5,
    }
}

/// Which events a replication's trace keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceFilter {
    /// Per link index, whether its events go to the table (`None`: all links).
    pub links: Option<Vec<bool>>,
    /// Flow ids kept, sorted (empty: every flow). Applies to the pcap files too.
    pub flows: Vec<u32>,
    /// Kinds kept, a mask of [`kind_bit`]s.
    pub kinds: u8,
    /// Events at times in `[from, to)` are kept. Applies to the pcap files too.
    pub from: SimTime,
    /// End of the window (exclusive; [`SimTime::MAX`] for the whole run,
    /// whose events at its last instant are kept).
    pub to: SimTime,
}

impl TraceFilter {
    /// Every event of the run.
    pub fn all() -> TraceFilter {
        TraceFilter {
            links: None,
            flows: Vec::new(),
            kinds: 0x3f,
            from: SimTime::ZERO,
            to: SimTime::MAX,
        }
    }

    /// The window and flow filters, shared by the table and the pcap files.
    #[inline]
    fn in_scope(&self, now: SimTime, pkt: &Packet) -> bool {
        now >= self.from
            && now < self.to
            && (self.flows.is_empty() || self.flows.binary_search(&pkt.flow.0).is_ok())
    }

    /// The link and kind filters of the table.
    #[inline]
    fn in_table(&self, link: LinkId, kind: TraceKind) -> bool {
        self.kinds & kind_bit(kind) != 0
            && self
                .links
                .as_ref()
                .is_none_or(|m| m.get(link.index()).copied().unwrap_or(false))
    }
}

/// The network as the pcap encoder needs it: nodes of links and routes,
/// and which flows send datagrams.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PcapNet {
    /// Per link index: (upstream node, downstream node).
    pub link_nodes: Vec<(u32, u32)>,
    /// Per route index: (first node, last node).
    pub route_ends: Vec<(u32, u32)>,
    /// Flow ids of datagram sources (CBR, Poisson packets), sorted; the
    /// others are encoded as TCP.
    pub udp_flows: Vec<u32>,
}

/// What to trace in one replication and where to write it.
#[derive(Clone, Debug)]
pub struct TraceSpec {
    /// The events kept.
    pub filter: TraceFilter,
    /// The event table's file and format (`None`: no table).
    pub table: Option<(PathBuf, Format)>,
    /// Link names by index (the table's `link` column).
    pub link_names: Arc<Vec<String>>,
    /// Links captured as pcap files: (link index, file).
    pub pcaps: Vec<(usize, PathBuf)>,
    /// Addresses for the pcap files.
    pub net: Arc<PcapNet>,
}

/// One kept event.
type Row = (SimTime, u32, TraceKind, Packet);

enum Msg {
    Batch(Vec<Row>),
    End,
}

/// How the pcap files of a run ended.
enum PcapState {
    Running,
    Ended(Vec<PcapWriter>),
    Failed(std::io::Error),
}

/// The engine side of a trace: filters events, batches table rows, writes pcap records.
struct RunTracer {
    filter: TraceFilter,
    rows: Vec<Row>,
    tx: Option<SyncSender<Msg>>,
    /// Per link index: its pcap writer's index in `pcaps`, or `u32::MAX`.
    pcap_of: Vec<u32>,
    pcaps: Vec<PcapWriter>,
    net: Arc<PcapNet>,
    pcap_state: Arc<Mutex<PcapState>>,
}

impl RunTracer {
    fn send_rows(&mut self) {
        let rows = std::mem::replace(&mut self.rows, Vec::with_capacity(BATCH_ROWS));
        if let Some(tx) = &self.tx {
            if tx.send(Msg::Batch(rows)).is_err() {
                // The writer failed; its error is reported by `finish`.
                self.tx = None;
            }
        }
    }

    fn capture(&mut self, now: SimTime, link: LinkId, pkt: &Packet) {
        let k = self.pcap_of[link.index()] as usize;
        let net = &self.net;
        let route = net
            .route_ends
            .get(pkt.route.index())
            .copied()
            .unwrap_or((0, 0));
        let hops = Hops {
            link: net.link_nodes[link.index()],
            route,
        };
        let udp = net.udp_flows.binary_search(&pkt.flow.0).is_ok();
        if let Err(e) = self.pcaps[k].write(now, pkt, hops, udp) {
            *self.pcap_state.lock().expect("pcap state") = PcapState::Failed(e);
            self.pcap_of.fill(u32::MAX);
        }
    }
}

impl Tracer for RunTracer {
    fn on_event(&mut self, now: SimTime, link: LinkId, kind: TraceKind, pkt: &Packet) {
        if !self.filter.in_scope(now, pkt) {
            return;
        }
        if kind == TraceKind::Depart && self.pcap_of[link.index()] != u32::MAX {
            self.capture(now, link, pkt);
        }
        if self.tx.is_some() && self.filter.in_table(link, kind) {
            self.rows.push((now, link.0, kind, *pkt));
            if self.rows.len() >= BATCH_ROWS {
                self.send_rows();
            }
        }
    }

    fn on_end(&mut self, _now: SimTime) {
        if !self.rows.is_empty() {
            self.send_rows();
        }
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(Msg::End);
        }
        let mut state = self.pcap_state.lock().expect("pcap state");
        if matches!(*state, PcapState::Running) {
            *state = PcapState::Ended(std::mem::take(&mut self.pcaps));
        }
    }
}

/// The writer side of a replication's trace: completes the files.
pub struct TraceHandle {
    table: Option<(PathBuf, JoinHandle<Result<(), AnalysisError>>)>,
    /// (temporary file, final file) of each pcap capture.
    pcaps: Vec<(PathBuf, PathBuf)>,
    pcap_state: Arc<Mutex<PcapState>>,
    done: bool,
}

impl TraceHandle {
    /// Wait for the table's writer and rename the files into place; the files
    /// written. Fails (and leaves no file) when the run did not reach its end.
    pub fn finish(mut self) -> Result<Vec<PathBuf>, AnalysisError> {
        let mut written = Vec::new();
        if let Some((path, join)) = self.table.take() {
            match join.join() {
                Ok(r) => r?,
                Err(panic) => std::panic::resume_unwind(panic),
            }
            written.push(path);
        }
        let state = std::mem::replace(
            &mut *self.pcap_state.lock().expect("pcap state"),
            PcapState::Running,
        );
        match state {
            PcapState::Ended(writers) => {
                for (w, (tmp, path)) in writers.into_iter().zip(&self.pcaps) {
                    w.finish()
                        .map_err(|e| AnalysisError::io("cannot write", tmp, e))?;
                    commit(tmp, path)?;
                    written.push(path.clone());
                }
            }
            PcapState::Failed(e) => {
                let tmp = self.pcaps.first().map(|p| p.0.clone()).unwrap_or_default();
                return Err(AnalysisError::io("cannot write", &tmp, e));
            }
            PcapState::Running if !self.pcaps.is_empty() => {
                return Err(AnalysisError::Input {
                    path: self.pcaps[0].1.clone(),
                    msg: "the run stopped before its end: the capture was not kept".into(),
                });
            }
            PcapState::Running => {}
        }
        self.done = true;
        Ok(written)
    }
}

impl Drop for TraceHandle {
    fn drop(&mut self) {
        if !self.done {
            // Incomplete captures are ours to remove (the table's writer
            // removes its own temporary file when the run ends early).
            for (tmp, _) in &self.pcaps {
                let _ = std::fs::remove_file(tmp);
            }
        }
    }
}

/// Start tracing one replication as `spec` says: the tracer to give the
/// engine ([`sim_core::Simulator::set_tracer`]) and the handle that
/// completes the files after the run.
pub fn start(spec: TraceSpec) -> Result<(Box<dyn Tracer>, TraceHandle), AnalysisError> {
    let mut handle = TraceHandle {
        table: None,
        pcaps: Vec::new(),
        pcap_state: Arc::new(Mutex::new(PcapState::Running)),
        done: false,
    };
    let mut pcap_of = vec![u32::MAX; spec.net.link_nodes.len()];
    let mut writers = Vec::new();
    for (link, path) in &spec.pcaps {
        let tmp = temp_path(path);
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(|e| AnalysisError::io("cannot create", &tmp, e))?;
        handle.pcaps.push((tmp.clone(), path.clone()));
        writers
            .push(PcapWriter::new(file).map_err(|e| AnalysisError::io("cannot write", &tmp, e))?);
        pcap_of[*link] = (writers.len() - 1) as u32;
    }
    let tx = match spec.table {
        None => None,
        Some((path, format)) => {
            let (tx, rx) = sync_channel::<Msg>(2);
            let names = spec.link_names.clone();
            let p = path.clone();
            let join = std::thread::Builder::new()
                .name("netsim-trace".into())
                .spawn(move || write_table(&p, format, |sink| build_batches(&rx, &names, sink)))
                .map_err(|e| AnalysisError::io("cannot start the trace writer for", &path, e))?;
            handle.table = Some((path, join));
            Some(tx)
        }
    };
    let tracer = RunTracer {
        filter: spec.filter,
        rows: Vec::with_capacity(if tx.is_some() { BATCH_ROWS } else { 0 }),
        tx,
        pcap_of,
        pcaps: writers,
        net: spec.net,
        pcap_state: handle.pcap_state.clone(),
    };
    Ok((Box::new(tracer), handle))
}

/// Rows per Parquet row group of a trace. polars' writer keeps about
/// 150 kB per row group of the trace's 43 columns until it writes the
/// footer, and encodes large groups faster: 65 536-row groups instead of
/// the engine's 16 384-row batches took a 1.6 x 10^6-row trace from 6.5 s
/// to 1.9 s and its growth from 8 to 2.5 bytes per row (B1 N = 10,
/// 10 s against 40 s), for about 70 MB more at the start (the frames in
/// flight).
const GROUP_ROWS: usize = 4 * BATCH_ROWS;

/// Turn the batches arriving on `rx` into frames of [`GROUP_ROWS`] rows
/// for `sink` until the run's end; an error if the run stopped without
/// reaching it.
fn build_batches(
    rx: &Receiver<Msg>,
    names: &[String],
    sink: &mut crate::tables::Sink<'_>,
) -> PolarsResult<()> {
    let mut sent = false;
    let mut pending: Vec<Row> = Vec::new();
    loop {
        match rx.recv() {
            Ok(Msg::Batch(mut rows)) => {
                if pending.is_empty() {
                    pending = rows;
                } else {
                    pending.append(&mut rows);
                }
                if pending.len() >= GROUP_ROWS {
                    sink(trace_frame(&pending, names)?)?;
                    pending.clear();
                    sent = true;
                }
            }
            Ok(Msg::End) => {
                if !pending.is_empty() || !sent {
                    sink(trace_frame(&pending, names)?)?;
                }
                return Ok(());
            }
            Err(_) => {
                return Err(PolarsError::ComputeError(
                    "the run stopped before its end: its trace is incomplete and was not kept"
                        .into(),
                ))
            }
        }
    }
}

/// The index of an ECN codepoint in the `ecn` column's values.
fn ecn_index(e: Ecn) -> usize {
    match e {
        Ecn::NotEct => 0,
        Ecn::Ect => 1,
        Ecn::Ce => 2,
    }
}

/// The `header` column's values, by [`family_index`].
const FAMILY_NAMES: [&str; 9] = [
    "none",
    "price",
    "rate",
    "window",
    "mkc",
    "jetmax",
    "sack",
    "tfrc_data",
    "tfrc_feedback",
];
const PRICE: u16 = 1 << 1;
const RATE: u16 = 1 << 2;
const WINDOW: u16 = 1 << 3;
const MKC: u16 = 1 << 4;
const JETMAX: u16 = 1 << 5;
const TFRC: u16 = (1 << 7) | (1 << 8);

/// The index of a header's family in [`FAMILY_NAMES`].
fn family_index(h: &CcHeader) -> usize {
    match h {
        CcHeader::None => 0,
        CcHeader::Price(_) => 1,
        CcHeader::Rate(_) => 2,
        CcHeader::Window(_) => 3,
        CcHeader::Mkc(_) => 4,
        CcHeader::JetMax(_) => 5,
        CcHeader::Sack(_) => 6,
        CcHeader::TfrcData(_) => 7,
        CcHeader::TfrcFeedback(_) => 8,
    }
}

/// A header's family as a bit (`PRICE`, ...).
fn family_bit(h: &CcHeader) -> u16 {
    1 << family_index(h)
}

/// The trace table's columns for `rows` (see README "The trace table").
pub(crate) fn trace_frame(rows: &[Row], names: &[String]) -> PolarsResult<DataFrame> {
    let n = rows.len();
    let f64s = |f: &dyn Fn(&Row) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
    // A header family's columns are all null in a batch without it (most
    // batches carry one family or none): built as such, not row by row.
    let families = rows.iter().fold(0u16, |m, r| m | family_bit(&r.3.cc));
    let nulls = |name: &str, dtype: DataType| Column::full_null(name.into(), n, &dtype);
    let opt_f64 = |name: &str, fam: u16, f: &dyn Fn(&CcHeader) -> Option<f64>| {
        if families & fam == 0 {
            return nulls(name, DataType::Float64);
        }
        col(
            name,
            rows.iter()
                .map(|r| f(&r.3.cc))
                .collect::<Vec<Option<f64>>>(),
        )
    };
    let opt_u32 = |name: &str, fam: u16, f: &dyn Fn(&CcHeader) -> Option<u32>| {
        if families & fam == 0 {
            return nulls(name, DataType::UInt32);
        }
        col(
            name,
            rows.iter()
                .map(|r| f(&r.3.cc))
                .collect::<Vec<Option<u32>>>(),
        )
    };
    let opt_bool = |name: &str, fam: u16, f: &dyn Fn(&CcHeader) -> Option<bool>| {
        if families & fam == 0 {
            return nulls(name, DataType::Boolean);
        }
        col(
            name,
            rows.iter()
                .map(|r| f(&r.3.cc))
                .collect::<Vec<Option<bool>>>(),
        )
    };
    // Columns of a few distinct strings: each value stored once.
    let dict = |name: &str, values: &[&str], index: &dyn Fn(&Row) -> usize| {
        let mut d = Dict::of(values.iter().copied());
        for r in rows {
            d.push(index(r) as IdxSize);
        }
        d.take_column(name, false)
    };
    let link_names: Vec<&str> = names.iter().map(String::as_str).collect();
    let flag = |fl: Flags| {
        rows.iter()
            .map(|r| r.3.flags.contains(fl))
            .collect::<Vec<bool>>()
    };
    let sack: Vec<Option<String>> = rows
        .iter()
        .map(|r| {
            let b = crate::pcap::sack_of(&r.3);
            (!b.is_empty()).then(|| {
                b.ranges(r.3.ack)
                    .map(|(s, e)| format!("{s}-{e}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
        })
        .collect();
    let columns = vec![
        col("time_s", f64s(&|r| r.0.as_secs_f64())),
        dict("event", &KIND_NAMES, &|r| {
            kind_bit(r.2).trailing_zeros() as usize
        })?,
        col(
            "reason",
            rows.iter()
                .map(|r| match r.2 {
                    TraceKind::Drop(x) | TraceKind::Mark(x) => Some(x.as_str()),
                    _ => None,
                })
                .collect::<Vec<Option<&str>>>(),
        ),
        dict("link", &link_names, &|r| r.1 as usize)?,
        col(
            "flow",
            rows.iter().map(|r| r.3.flow.0).collect::<Vec<u32>>(),
        ),
        dict("packet", &["data", "ack", "control"], &|r| {
            r.3.kind as usize
        })?,
        col("seq", rows.iter().map(|r| r.3.seq).collect::<Vec<u64>>()),
        col("ack", rows.iter().map(|r| r.3.ack).collect::<Vec<u64>>()),
        col(
            "size_bytes",
            rows.iter().map(|r| r.3.size).collect::<Vec<u32>>(),
        ),
        dict("ecn", &["not_ect", "ect", "ce"], &|r| ecn_index(r.3.ecn))?,
        col("ece", flag(Flags::ECE)),
        col("cwr", flag(Flags::CWR)),
        col("retx", flag(Flags::RETX)),
        col(
            "hop",
            rows.iter()
                .map(|r| u32::from(r.3.hop))
                .collect::<Vec<u32>>(),
        ),
        col("sent_s", f64s(&|r| r.3.sent.as_secs_f64())),
        dict("header", &FAMILY_NAMES, &|r| family_index(&r.3.cc))?,
        col("sack", sack),
        opt_f64("price", PRICE, &|h| match h {
            CcHeader::Price(p) => Some(p.price),
            _ => None,
        }),
        opt_u32("price_marks", PRICE, &|h| match h {
            CcHeader::Price(p) => Some(u32::from(p.marks)),
            _ => None,
        }),
        opt_f64("rate_desired_bps", RATE, &|h| match h {
            CcHeader::Rate(r) => Some(r.desired),
            _ => None,
        }),
        opt_f64("rate_allowed_bps", RATE, &|h| match h {
            CcHeader::Rate(r) => Some(r.allowed),
            _ => None,
        }),
        opt_f64("rate_rtt_s", RATE, &|h| match h {
            CcHeader::Rate(r) => Some(r.rtt),
            _ => None,
        }),
        opt_u32("rate_hops", RATE, &|h| match h {
            CcHeader::Rate(r) => Some(u32::from(r.hops)),
            _ => None,
        }),
        opt_bool("rate_congested", RATE, &|h| match h {
            CcHeader::Rate(r) => Some(r.congested),
            _ => None,
        }),
        opt_f64("window_cwnd_bytes", WINDOW, &|h| match h {
            CcHeader::Window(w) => Some(w.cwnd),
            _ => None,
        }),
        opt_f64("window_rtt_s", WINDOW, &|h| match h {
            CcHeader::Window(w) => Some(w.rtt),
            _ => None,
        }),
        opt_f64("window_feedback_bytes", WINDOW, &|h| match h {
            CcHeader::Window(w) => Some(w.feedback),
            _ => None,
        }),
        opt_f64("mkc_price", MKC, &|h| match h {
            CcHeader::Mkc(m) => Some(m.p),
            _ => None,
        }),
        opt_f64("mkc_usr", MKC, &|h| match h {
            CcHeader::Mkc(m) => Some(m.usr),
            _ => None,
        }),
        opt_u32("mkc_router", MKC, &|h| match h {
            CcHeader::Mkc(m) => Some(m.id),
            _ => None,
        }),
        opt_u32("mkc_seq", MKC, &|h| match h {
            CcHeader::Mkc(m) => Some(m.seq),
            _ => None,
        }),
        opt_f64("mkc_interval_s", MKC, &|h| match h {
            CcHeader::Mkc(m) => Some(f64::from(m.delta)),
            _ => None,
        }),
        opt_f64("mkc_rtt_s", MKC, &|h| match h {
            CcHeader::Mkc(m) => Some(f64::from(m.rtt)),
            _ => None,
        }),
        opt_f64("jetmax_loss", JETMAX, &|h| match h {
            CcHeader::JetMax(j) => Some(j.p),
            _ => None,
        }),
        opt_f64("jetmax_share_bps", JETMAX, &|h| match h {
            CcHeader::JetMax(j) => Some(j.g),
            _ => None,
        }),
        opt_f64("jetmax_gap_s", JETMAX, &|h| match h {
            CcHeader::JetMax(j) => Some(f64::from(j.gap)),
            _ => None,
        }),
        opt_f64("jetmax_size_plus_bytes", JETMAX, &|h| match h {
            CcHeader::JetMax(j) => Some(f64::from(j.size_plus)),
            _ => None,
        }),
        opt_u32("jetmax_seq", JETMAX, &|h| match h {
            CcHeader::JetMax(j) => Some(u32::from(j.seq)),
            _ => None,
        }),
        opt_u32("jetmax_rt", JETMAX, &|h| match h {
            CcHeader::JetMax(j) => Some(u32::from(j.rt)),
            _ => None,
        }),
        opt_u32("jetmax_rc", JETMAX, &|h| match h {
            CcHeader::JetMax(j) => Some(u32::from(j.rc)),
            _ => None,
        }),
        opt_u32("jetmax_rs", JETMAX, &|h| match h {
            CcHeader::JetMax(j) => Some(u32::from(j.rs)),
            _ => None,
        }),
        opt_bool("jetmax_declined", JETMAX, &|h| match h {
            CcHeader::JetMax(j) => Some(j.declined),
            _ => None,
        }),
        opt_f64("tfrc_rate_Bps", TFRC, &|h| match h {
            CcHeader::TfrcData(d) => Some(d.rate),
            _ => None,
        }),
        opt_f64("tfrc_x_recv_Bps", TFRC, &|h| match h {
            CcHeader::TfrcFeedback(f) => Some(f.x_recv),
            _ => None,
        }),
        opt_f64("tfrc_allowed_Bps", TFRC, &|h| match h {
            CcHeader::TfrcFeedback(f) => Some(f.allowed),
            _ => None,
        }),
        opt_f64("tfrc_p", TFRC, &|h| match h {
            CcHeader::TfrcFeedback(f) => Some(f64::from(f.p)),
            _ => None,
        }),
        opt_f64("tfrc_rtt_s", TFRC, &|h| match h {
            CcHeader::TfrcData(d) => Some(d.rtt.as_secs_f64()),
            CcHeader::TfrcFeedback(f) => Some(f64::from(f.rtt)),
            _ => None,
        }),
        opt_f64("tfrc_delay_s", TFRC, &|h| match h {
            CcHeader::TfrcData(d) => Some(d.offset.as_secs_f64()),
            CcHeader::TfrcFeedback(f) => Some(f.t_delay.as_secs_f64()),
            _ => None,
        }),
    ];
    DataFrame::new(n, columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{FlowId, MkcHeader, PacketKind, Reason, RouteId};

    #[test]
    fn the_frame_flattens_headers_into_nullable_columns() {
        let mut a = Packet::new(FlowId(3), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO);
        a.cc = CcHeader::Mkc(MkcHeader {
            p: 0.25,
            usr: 1.0,
            id: 4,
            seq: 9,
            delta: 0.5,
            rtt: 0.1,
        });
        let b = Packet::new(FlowId(4), RouteId(1), PacketKind::Ack, 40, SimTime::ZERO);
        let rows = vec![
            (
                SimTime::from_ps(1_000_000_000_000),
                1,
                TraceKind::Drop(Reason::Early),
                a,
            ),
            (
                SimTime::from_ps(2_000_000_000_000),
                0,
                TraceKind::Deliver,
                b,
            ),
        ];
        let names = vec!["a->b".to_string(), "b->c".to_string()];
        let df = trace_frame(&rows, &names).unwrap();
        assert_eq!(df.height(), 2);
        let s = |c: &str| df.column(c).unwrap().as_materialized_series().clone();
        assert_eq!(s("event").str().unwrap().get(0), Some("drop"));
        assert_eq!(s("reason").str().unwrap().get(0), Some("early"));
        assert_eq!(s("reason").str().unwrap().get(1), None);
        assert_eq!(s("link").str().unwrap().get(0), Some("b->c"));
        assert_eq!(s("mkc_price").f64().unwrap().get(0), Some(0.25));
        assert_eq!(s("mkc_price").f64().unwrap().get(1), None);
        assert_eq!(s("header").str().unwrap().get(1), Some("none"));
        let empty = trace_frame(&[], &names).unwrap();
        assert_eq!(
            empty.schema(),
            df.schema(),
            "an empty batch has the same columns"
        );
    }

    #[test]
    fn a_tracer_dropped_before_the_end_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let spec = TraceSpec {
            filter: TraceFilter::all(),
            table: Some((dir.path().join("trace-r0.parquet"), Format::Parquet)),
            link_names: Arc::new(vec!["a->b".into()]),
            pcaps: vec![(0, dir.path().join("pcap-a-b-r0.pcap"))],
            net: Arc::new(PcapNet {
                link_nodes: vec![(0, 1)],
                route_ends: vec![(0, 1)],
                udp_flows: vec![],
            }),
        };
        let (mut tracer, handle) = start(spec.clone()).unwrap();
        let p = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO);
        tracer.on_event(SimTime::ZERO, LinkId(0), TraceKind::Depart, &p);
        drop(tracer);
        assert!(handle.finish().is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

        let (mut tracer, handle) = start(spec).unwrap();
        tracer.on_event(SimTime::ZERO, LinkId(0), TraceKind::Depart, &p);
        tracer.on_end(SimTime::ZERO);
        let files = handle.finish().unwrap();
        assert_eq!(files.len(), 2);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let back = crate::read::read_table(&dir.path().join("trace-r0.parquet")).unwrap();
        assert_eq!(back.height(), 1);
    }
}
