//! Links, their egress queues, and the link-algorithm plug-in point.
//!
//! A link is unidirectional: an egress queue with a buffer limit, a serializer at
//! the link capacity, and a FIFO propagation pipe. The engine owns all of it and
//! keeps the counters; a [`LinkAlgorithm`] only decides what happens to each
//! arriving packet (enqueue, mark, drop), may stamp departing packets, and may run
//! a periodic control law that changes the link's run-time state.

use crate::ids::LinkId;
use crate::packet::{HeaderFamily, Packet};
use crate::rng::LazyRng;
use crate::units::{Rate, SimDuration, SimTime};

/// How much a link's egress queue may hold (the packet in transmission excluded).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BufferLimit {
    /// At most this many packets.
    Packets(u32),
    /// At most this many bytes.
    Bytes(u64),
    /// No limit (for zero-loss set-ups where a marker governs congestion).
    Unlimited,
}

impl BufferLimit {
    /// Would a queue at `(pkts, bytes)` overflow by accepting a packet of `size` bytes?
    #[inline]
    pub fn would_overflow(self, pkts: u32, bytes: u64, size: u32) -> bool {
        match self {
            BufferLimit::Packets(n) => pkts >= n,
            BufferLimit::Bytes(b) => bytes + u64::from(size) > b,
            BufferLimit::Unlimited => false,
        }
    }
}

/// Why a packet was dropped or marked. Drops and marks are counted per reason.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Reason {
    /// The buffer was full (engine-decided).
    Overflow = 0,
    /// Random loss on the wire (engine-decided, from the link's loss probability).
    WireLoss = 1,
    /// A probabilistic AQM decision (RED's early region, REM, PI, ...).
    Early = 2,
    /// A deterministic AQM decision (RED above max_th, or above 2*max_th in gentle mode).
    Forced = 3,
    /// An instantaneous-queue threshold was exceeded.
    Threshold = 4,
    /// A virtual queue overflowed or is in its marking period.
    Virtual = 5,
    /// A load (arrival rate) based decision.
    Load = 6,
    /// The link was down (`state = "down"` of a scenario's `[[link_change]]`):
    /// a packet that arrived while it was down, or that it held (queue or
    /// wire) when it went down. Engine-decided.
    LinkDown = 7,
}

// `Reason::TABLED` leaves out the last reason, which must be `LinkDown`.
const _: () = assert!(matches!(Reason::ALL[Reason::COUNT - 1], Reason::LinkDown));

impl Reason {
    /// Number of reasons (array size for per-reason counters).
    pub const COUNT: usize = 8;
    /// Every reason, in counter order.
    pub const ALL: [Reason; Reason::COUNT] = [
        Reason::Overflow,
        Reason::WireLoss,
        Reason::Early,
        Reason::Forced,
        Reason::Threshold,
        Reason::Virtual,
        Reason::Load,
        Reason::LinkDown,
    ];
    /// The reasons the links table has a `drop_<reason>_pkts` and a
    /// `mark_<reason>_pkts` column for: all but [`Reason::LinkDown`], which
    /// only a scenario with link changes can produce and which is counted in
    /// the table's drop totals (so the table's columns are the same with or
    /// without a change schedule). `LinkDown` is the last of [`Reason::ALL`].
    pub const TABLED: &'static [Reason] = Reason::ALL.split_at(Reason::COUNT - 1).0;
    /// The name used in output tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Overflow => "overflow",
            Reason::WireLoss => "wire_loss",
            Reason::Early => "early",
            Reason::Forced => "forced",
            Reason::Threshold => "threshold",
            Reason::Virtual => "virtual",
            Reason::Load => "load",
            Reason::LinkDown => "link_down",
        }
    }
}

/// What a link algorithm decides for an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Enqueue unchanged (subject to the buffer limit).
    Enqueue,
    /// Set CE and enqueue. The engine drops (with the same reason) a packet that is
    /// not ECN-capable instead of marking it.
    Mark(Reason),
    /// Drop.
    Drop(Reason),
}

/// A read-only view of a link's state, given to the link algorithm's hooks.
#[derive(Copy, Clone, Debug)]
pub struct LinkView {
    /// Current simulated time.
    pub now: SimTime,
    /// The link this is.
    pub id: LinkId,
    /// Serialization rate.
    pub capacity: Rate,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Packets waiting in the queue (the one in transmission excluded). An
    /// arrival at the instant a transmission ends sees the next packet already
    /// in transmission: departures come before arrivals at one instant.
    pub backlog_pkts: u32,
    /// Bytes waiting in the queue.
    pub backlog_bytes: u64,
    /// Current buffer limit.
    pub limit: BufferLimit,
    /// Cumulative bytes that arrived at the queue.
    pub arrived_bytes: u64,
    /// Cumulative bytes that left the queue for the serializer.
    pub departed_bytes: u64,
    /// Cumulative bytes dropped at the queue.
    pub dropped_bytes: u64,
    /// Time at which the serializer becomes idle (`<= now` when idle).
    pub busy_until: SimTime,
}

impl LinkView {
    /// An empty link of `capacity` at `now` that has never been busy: link 0,
    /// no delay, no limit, zero counters. For driving a link algorithm outside
    /// the engine (unit tests, tools); fill the fields a case needs with
    /// struct-update syntax: `LinkView { backlog_pkts: 3, ..LinkView::idle(t, c) }`.
    pub fn idle(now: SimTime, capacity: Rate) -> Self {
        LinkView {
            now,
            id: LinkId(0),
            capacity,
            delay: SimDuration::ZERO,
            backlog_pkts: 0,
            backlog_bytes: 0,
            limit: BufferLimit::Unlimited,
            arrived_bytes: 0,
            departed_bytes: 0,
            dropped_bytes: 0,
            busy_until: SimTime::ZERO,
        }
    }
}

/// Run-time link state a control law may change from its timer hook.
#[derive(Copy, Clone, Debug)]
pub struct LinkControl {
    /// When to call `on_timer` next (`None`: no further timer).
    pub next_timer: Option<SimTime>,
    /// The buffer limit (adaptive buffer sizing changes it).
    pub limit: BufferLimit,
}

/// A link algorithm: queue discipline, marker, price or rate computer, buffer sizer.
///
/// Hooks are called by the engine in simulated-time order. `on_arrival` is on the
/// per-packet path: keep it cheap and allocation-free.
pub trait LinkAlgorithm: Send {
    /// Decide what happens to `pkt`, which is arriving at the queue described by `view`;
    /// an algorithm that feeds back what it measured at arrival (EMKC's price)
    /// may stamp the packet's header here. `rng` is the algorithm's own stream
    /// (`rng.get()` creates it on first use).
    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, rng: &mut LazyRng) -> Verdict;

    /// `pkt` leaves the queue for the serializer (`view` no longer counts it in
    /// the backlog, and counts it in `departed_bytes`): stamp feedback into its
    /// header, or mark it. A mark is CE set on an ECN-capable packet, and its
    /// reason returned: the engine counts and traces it as it does a mark on
    /// arrival. A departing packet cannot be dropped, so a departure marker
    /// leaves a packet that is not ECN-capable unmarked. `rng` is the
    /// algorithm's own stream, the one `on_arrival` gets. Called only if
    /// [`LinkAlgorithm::stamps_departures`] returns true.
    fn on_departure(
        &mut self,
        _pkt: &mut Packet,
        _view: &LinkView,
        _rng: &mut LazyRng,
    ) -> Option<Reason> {
        None
    }

    /// Whether [`LinkAlgorithm::on_departure`] does anything (asked once, when the
    /// link is built; the engine skips the hook otherwise).
    fn stamps_departures(&self) -> bool {
        false
    }

    /// Whether [`LinkAlgorithm::on_arrival`] does anything but enqueue every
    /// packet untouched (asked once, when the link is built). False only for
    /// plain drop-tail: the engine then skips the hook, and the view it would
    /// build for it, on the per-packet path.
    fn judges_arrivals(&self) -> bool {
        true
    }

    /// Called once at time zero; set `ctl.next_timer` to start a periodic law.
    fn on_start(&mut self, _view: &LinkView, _ctl: &mut LinkControl) {}

    /// The timer requested through [`LinkControl::next_timer`] fired.
    fn on_timer(&mut self, _view: &LinkView, _ctl: &mut LinkControl) {}

    /// The header family this algorithm reads or writes, if it needs one.
    fn header_family(&self) -> Option<HeaderFamily> {
        None
    }

    /// Internal state worth plotting (e.g. RED's average queue), as `(name, value)`.
    fn probe(&self) -> Option<(&'static str, f64)> {
        None
    }

    /// Whether the algorithm is right after its link's capacity changes at
    /// run time (a scenario's `[[link_change]] capacity`): true when it reads
    /// the capacity from each hook's [`LinkView`] or not at all (the
    /// default), or recomputes what it derived from it in
    /// [`LinkAlgorithm::on_capacity_change`]. An algorithm that fixed
    /// constants from the capacity at build and does not recompute them
    /// returns false, and the scenario builder rejects a capacity change on
    /// its link rather than run it against a stale capacity.
    fn follows_capacity(&self) -> bool {
        true
    }

    /// The link's capacity changed: `view.capacity` is the new one (the
    /// packet in serialization, if any, finishes at the old rate). Called at
    /// the change's instant, before any packet sees the new capacity.
    fn on_capacity_change(&mut self, _view: &LinkView) {}
}

/// Packet and byte counts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Packets.
    pub pkts: u64,
    /// Bytes.
    pub bytes: u64,
}

impl Count {
    /// Count one packet of `size` bytes.
    #[inline]
    pub fn add(&mut self, size: u32) {
        self.pkts += 1;
        self.bytes += u64::from(size);
    }
    /// Componentwise difference `self - earlier`.
    pub fn since(self, earlier: Count) -> Count {
        Count {
            pkts: self.pkts - earlier.pkts,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

/// Packets and bytes per [`Reason`], stored only once one is counted: most
/// links never drop or mark, and in a network of 400 000 links seven zero
/// counts for drops and seven for marks in each copy of a link's counters
/// came to 90 MB. Read like an array (`dropped[r as usize]`, a zero count
/// where nothing was counted); writing through an index stores the counts.
#[derive(Clone, Debug, Default)]
pub struct ReasonCounts(Option<Box<[Count; Reason::COUNT]>>);

/// The count of a reason nothing was counted for.
const NO_COUNT: &Count = &Count { pkts: 0, bytes: 0 };

impl ReasonCounts {
    /// The count of reason `r`.
    #[inline]
    pub fn get(&self, r: Reason) -> Count {
        self[r as usize]
    }
    /// Count one packet of `size` bytes for reason `r`.
    #[inline]
    pub fn add(&mut self, r: Reason, size: u32) {
        self[r as usize].add(size);
    }
    /// Every reason's count, in [`Reason::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = Count> + '_ {
        (0..Reason::COUNT).map(|i| self[i])
    }
    /// The sum over all reasons.
    pub fn total(&self) -> Count {
        let mut c = Count::default();
        for d in self.iter() {
            c.pkts += d.pkts;
            c.bytes += d.bytes;
        }
        c
    }
    /// Reason by reason, `self - earlier`.
    pub fn since(&self, earlier: &ReasonCounts) -> ReasonCounts {
        match (&self.0, &earlier.0) {
            (None, None) => ReasonCounts(None),
            _ => {
                let mut d = ReasonCounts::default();
                for i in 0..Reason::COUNT {
                    let x = self[i].since(earlier[i]);
                    if x != Count::default() {
                        d[i] = x;
                    }
                }
                d
            }
        }
    }
}

impl std::ops::Index<usize> for ReasonCounts {
    type Output = Count;
    #[inline]
    fn index(&self, i: usize) -> &Count {
        match &self.0 {
            Some(c) => &c[i],
            None => {
                assert!(i < Reason::COUNT, "reason index {i} out of range");
                NO_COUNT
            }
        }
    }
}

impl std::ops::IndexMut<usize> for ReasonCounts {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut Count {
        &mut self.0.get_or_insert_with(Default::default)[i]
    }
}

impl PartialEq for ReasonCounts {
    /// Equal counts, whether stored or not.
    fn eq(&self, other: &Self) -> bool {
        (0..Reason::COUNT).all(|i| self[i] == other[i])
    }
}

impl Eq for ReasonCounts {}

impl From<[Count; Reason::COUNT]> for ReasonCounts {
    fn from(c: [Count; Reason::COUNT]) -> Self {
        let mut r = ReasonCounts::default();
        for (i, x) in c.into_iter().enumerate() {
            if x != Count::default() {
                r[i] = x;
            }
        }
        r
    }
}

/// Cumulative per-link counters, kept by the engine.
///
/// Identities (checked by [`LinkCounters::check`]):
/// `arrived = enqueued + sum(dropped at the queue)`,
/// `backlog = enqueued - departed - cut_queued`,
/// `departed = delivered + wire-lost + cut_on_wire + in the pipe`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Packets that reached the queue.
    pub arrived: Count,
    /// Packets accepted into the queue.
    pub enqueued: Count,
    /// Packets that left the queue for the serializer.
    pub departed: Count,
    /// Packets that reached the far end of the link.
    pub delivered: Count,
    /// Drops per [`Reason`] (wire loss included).
    pub dropped: ReasonCounts,
    /// Marks per [`Reason`].
    pub marked: ReasonCounts,
    /// Packets that were waiting in the queue when the link went down, dropped
    /// then (also counted in `dropped` under [`Reason::LinkDown`]).
    pub cut_queued: Count,
    /// Packets that were on the wire (serializing or propagating) when the link
    /// went down, dropped then (also counted under [`Reason::LinkDown`]).
    pub cut_on_wire: Count,
}

impl LinkCounters {
    /// Drops decided at arrival at the queue: every reason but wire loss, less
    /// the packets a link going down took from its queue and wire.
    pub fn dropped_at_queue(&self) -> Count {
        let mut c = Count::default();
        for r in Reason::ALL {
            if r != Reason::WireLoss {
                c.pkts += self.dropped[r as usize].pkts;
                c.bytes += self.dropped[r as usize].bytes;
            }
        }
        c.since(Count {
            pkts: self.cut_queued.pkts + self.cut_on_wire.pkts,
            bytes: self.cut_queued.bytes + self.cut_on_wire.bytes,
        })
    }
    /// Sum of drops over all reasons.
    pub fn dropped_total(&self) -> Count {
        self.dropped.total()
    }
    /// Sum of marks over all reasons.
    pub fn marked_total(&self) -> Count {
        self.marked.total()
    }
    /// Componentwise difference `self - earlier`.
    pub fn since(&self, earlier: &LinkCounters) -> LinkCounters {
        LinkCounters {
            arrived: self.arrived.since(earlier.arrived),
            enqueued: self.enqueued.since(earlier.enqueued),
            departed: self.departed.since(earlier.departed),
            delivered: self.delivered.since(earlier.delivered),
            dropped: self.dropped.since(&earlier.dropped),
            marked: self.marked.since(&earlier.marked),
            cut_queued: self.cut_queued.since(earlier.cut_queued),
            cut_on_wire: self.cut_on_wire.since(earlier.cut_on_wire),
        }
    }

    /// Check the conservation identities against the queue and pipe contents.
    /// Returns a description of the first identity that fails.
    pub fn check(&self, backlog: Count, in_pipe: Count) -> Result<(), String> {
        let dq = self.dropped_at_queue();
        if self.arrived.pkts != self.enqueued.pkts + dq.pkts
            || self.arrived.bytes != self.enqueued.bytes + dq.bytes
        {
            return Err(format!(
                "arrived {:?} != enqueued {:?} + dropped at queue {:?}",
                self.arrived, self.enqueued, dq
            ));
        }
        let (cq, cw) = (self.cut_queued, self.cut_on_wire);
        if self.enqueued.pkts - self.departed.pkts - cq.pkts != backlog.pkts
            || self.enqueued.bytes - self.departed.bytes - cq.bytes != backlog.bytes
        {
            return Err(format!(
                "enqueued {:?} - departed {:?} - cut from the queue {cq:?} != backlog {:?}",
                self.enqueued, self.departed, backlog
            ));
        }
        let wl = self.dropped[Reason::WireLoss as usize];
        if self.departed.pkts != self.delivered.pkts + wl.pkts + cw.pkts + in_pipe.pkts
            || self.departed.bytes != self.delivered.bytes + wl.bytes + cw.bytes + in_pipe.bytes
        {
            return Err(format!(
                "departed {:?} != delivered {:?} + wire loss {:?} + cut on the wire {cw:?} \
                 + in pipe {:?}",
                self.departed, self.delivered, wl, in_pipe
            ));
        }
        Ok(())
    }
}

/// Width of a byte-backlog histogram bin.
pub const BACKLOG_BYTES_BIN: u64 = 256;

/// Time-weighted backlog and queueing-delay statistics over the measurement window.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Integral of backlog (packets) over time, packet-picoseconds.
    pub area_pkts: u128,
    /// Integral of backlog (bytes) over time, byte-picoseconds.
    pub area_bytes: u128,
    /// Time spent at each backlog in packets, picoseconds.
    pub hist_pkts: Vec<u64>,
    /// Time spent in each byte-backlog bin of [`BACKLOG_BYTES_BIN`] bytes, picoseconds.
    pub hist_bytes: Vec<u64>,
    /// Largest backlog seen, packets.
    pub max_pkts: u32,
    /// Largest backlog seen, bytes.
    pub max_bytes: u64,
    /// Sum of queueing delays of departed packets, picoseconds.
    pub qdelay_sum: u128,
    /// Sum of squared queueing delays, picoseconds squared (for the standard
    /// deviation; 1e7 delays of 1 s sum to 1e31, far below `u128::MAX`).
    pub qdelay_sumsq: u128,
    /// Largest queueing delay seen.
    pub qdelay_max: SimDuration,
    /// Number of queueing-delay samples.
    pub qdelay_n: u64,
    /// When the backlog last changed (or measurement started).
    pub last_change: SimTime,
}

impl LinkStats {
    /// Account for the backlog `(pkts, bytes)` having held from `last_change` to `now`.
    #[inline]
    pub fn advance(&mut self, now: SimTime, pkts: u32, bytes: u64) {
        let dt = now.as_ps() - self.last_change.as_ps();
        self.last_change = now;
        if dt == 0 {
            return;
        }
        self.area_pkts += u128::from(pkts) * u128::from(dt);
        self.area_bytes += u128::from(bytes) * u128::from(dt);
        let i = pkts as usize;
        if i >= self.hist_pkts.len() {
            self.hist_pkts.resize(i + 1, 0);
        }
        self.hist_pkts[i] += dt;
        let j = (bytes / BACKLOG_BYTES_BIN) as usize;
        if j >= self.hist_bytes.len() {
            self.hist_bytes.resize(j + 1, 0);
        }
        self.hist_bytes[j] += dt;
    }

    /// Record a new backlog level (after the change) for the maxima.
    #[inline]
    pub fn observe_max(&mut self, pkts: u32, bytes: u64) {
        self.max_pkts = self.max_pkts.max(pkts);
        self.max_bytes = self.max_bytes.max(bytes);
    }

    /// Record one packet's time in the queue.
    #[inline]
    pub fn record_qdelay(&mut self, d: SimDuration) {
        let ps = u128::from(d.as_ps());
        self.qdelay_sum += ps;
        self.qdelay_sumsq += ps * ps;
        self.qdelay_n += 1;
        if d > self.qdelay_max {
            self.qdelay_max = d;
        }
    }

    /// Restart measurement at `now` with the current backlog `(pkts, bytes)`.
    pub fn reset(&mut self, now: SimTime, pkts: u32, bytes: u64) {
        *self = LinkStats {
            last_change: now,
            max_pkts: pkts,
            max_bytes: bytes,
            ..Default::default()
        };
    }
}

/// Smallest `x` such that at least fraction `q` of the time-weighted histogram is at
/// or below bin `x`; `None` for an empty histogram.
pub fn hist_quantile(hist: &[u64], q: f64) -> Option<usize> {
    let total: u128 = hist.iter().map(|&x| u128::from(x)).sum();
    if total == 0 {
        return None;
    }
    let target = (q * total as f64).ceil() as u128;
    let mut acc = 0u128;
    for (i, &h) in hist.iter().enumerate() {
        acc += u128::from(h);
        if acc >= target.max(1) {
            return Some(i);
        }
    }
    Some(hist.len() - 1)
}

/// Standard deviation (population form) of the bin index of a time-weighted
/// histogram, each bin weighted by the time it holds; `None` for an empty
/// histogram.
pub fn hist_sd(hist: &[u64]) -> Option<f64> {
    let (mut t, mut s1, mut s2) = (0.0f64, 0.0f64, 0.0f64);
    for (k, &dt) in hist.iter().enumerate() {
        let (k, dt) = (k as f64, dt as f64);
        t += dt;
        s1 += k * dt;
        s2 += k * k * dt;
    }
    (t > 0.0).then(|| {
        let mean = s1 / t;
        (s2 / t - mean * mean).max(0.0).sqrt()
    })
}

/// A link's static description.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    /// Name used in output tables (e.g. `"r1->r2"`).
    pub name: String,
    /// Upstream node.
    pub from: crate::ids::NodeId,
    /// Downstream node.
    pub to: crate::ids::NodeId,
    /// Serialization rate.
    pub capacity: Rate,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Initial buffer limit.
    pub limit: BufferLimit,
    /// Bernoulli loss probability per packet on the wire, in [0, 1).
    pub loss: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_limit_overflows_at_the_limit() {
        let l = BufferLimit::Packets(2);
        assert!(!l.would_overflow(1, 3000, 1500));
        assert!(l.would_overflow(2, 3000, 1500));
    }

    #[test]
    fn byte_limit_counts_the_arriving_packet() {
        let l = BufferLimit::Bytes(3000);
        assert!(!l.would_overflow(1, 1500, 1500));
        assert!(l.would_overflow(1, 1501, 1500));
    }

    #[test]
    fn time_weighted_backlog_integrates_levels() {
        let mut s = LinkStats::default();
        s.advance(SimTime::from_ps(10), 0, 0); // 10 ps at 0
        s.advance(SimTime::from_ps(40), 2, 200); // 30 ps at 2
        assert_eq!(s.area_pkts, 60);
        assert_eq!(s.hist_pkts, vec![10, 0, 30]);
        assert_eq!(hist_quantile(&s.hist_pkts, 0.25), Some(0));
        assert_eq!(hist_quantile(&s.hist_pkts, 0.5), Some(2));
        assert_eq!(hist_quantile(&s.hist_pkts, 0.99), Some(2));
        // 10 ps at 0 and 30 at 2: mean 1.5, E[k^2] = 3, variance 0.75.
        let sd = hist_sd(&s.hist_pkts).unwrap();
        assert!((sd - 0.75f64.sqrt()).abs() < 1e-12, "{sd}");
        assert_eq!(hist_sd(&[]), None);
        assert_eq!(hist_sd(&[0, 0, 5]), Some(0.0));
    }

    #[test]
    fn counters_detect_a_lost_packet() {
        let mut c = LinkCounters::default();
        c.arrived.add(100);
        c.enqueued.add(100);
        c.departed.add(100);
        assert!(c.check(Count::default(), Count::default()).is_err());
        c.delivered.add(100);
        assert!(c.check(Count::default(), Count::default()).is_ok());
    }
}
