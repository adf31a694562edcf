//! Packets: small `Copy` structs moved by value, and the congestion-control header.
//!
//! A packet carries everything any hop needs to know: which flow it belongs to,
//! its route and hop index, its size on the wire, ECN bits, TCP-like sequence and
//! acknowledgement numbers, and a [`CcHeader`] whose variant is the header family
//! of the flow's congestion controller. No packet owns heap memory.

use crate::ids::{FlowId, RouteId};
use crate::units::{SimDuration, SimTime};

/// What a packet is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PacketKind {
    /// Payload of a flow, travelling on the flow's forward route.
    Data = 0,
    /// Acknowledgement or receiver feedback, travelling on the reverse route.
    Ack = 1,
    /// A control packet (probe, signalling) that carries no payload.
    Control = 2,
}

/// The two ECN bits of the IP header (RFC 3168).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable: congestion can only be signalled by dropping.
    NotEct = 0,
    /// ECN-capable transport.
    Ect = 1,
    /// Congestion experienced: a router marked the packet.
    Ce = 3,
}

impl Ecn {
    /// True for ECT and CE: the packet may be marked instead of dropped.
    #[inline]
    pub fn is_capable(self) -> bool {
        self != Ecn::NotEct
    }
}

/// TCP-like flag bits carried by a packet.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags(u8);

impl Flags {
    /// ECN-Echo: the receiver saw a CE mark (RFC 3168).
    pub const ECE: Flags = Flags(1);
    /// Congestion Window Reduced: the sender reacted to ECE (RFC 3168).
    pub const CWR: Flags = Flags(2);
    /// This data packet is a retransmission.
    pub const RETX: Flags = Flags(4);
    /// Last packet of a finite flow.
    pub const FIN: Flags = Flags(8);
    /// No flags.
    pub const NONE: Flags = Flags(0);

    /// True when every bit of `f` is set.
    #[inline]
    pub fn contains(self, f: Flags) -> bool {
        self.0 & f.0 == f.0
    }
    /// Set the bits of `f`.
    #[inline]
    pub fn insert(&mut self, f: Flags) {
        self.0 |= f.0;
    }
    /// Clear the bits of `f`.
    #[inline]
    pub fn remove(&mut self, f: Flags) {
        self.0 &= !f.0;
    }
}

/// How a header field is combined along the path by successive routers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Keep the smallest value (RCP rate, XCP feedback, explicit rates).
    Min,
    /// Keep the largest value (MKC/EMKC price, most-congested link).
    Max,
    /// Add the link values (prices in congestion pricing).
    Sum,
    /// Logical OR (a congestion bit).
    Or,
}

impl Combine {
    /// Combine the header's current `acc` with a router's `local` value.
    #[inline]
    pub fn apply(self, acc: f64, local: f64) -> f64 {
        match self {
            Combine::Min => acc.min(local),
            Combine::Max => acc.max(local),
            Combine::Sum => acc + local,
            Combine::Or => {
                if acc != 0.0 || local != 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }
}

/// A price-feedback header for congestion pricing (Zimmermann 2005): the
/// sender stamps it zeroed, routers combine their prices into it along the
/// path, and the receiver echoes the last data packet's header on its ACK
/// (as for every header family).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PriceHeader {
    /// Explicit price feedback (EPF): the sum of the link prices along the
    /// path, each router adding its own at full precision (unitless).
    pub price: f64,
    /// Multi-bit exponential marking: bit i set by any router on the path
    /// that marks its code bit i (with probability 1 - phi_i^-price there),
    /// OR-combined along the path; bits 0..3 carry the 4-bit code.
    pub marks: u8,
}

/// An explicit-rate header: the rate routers allow, combined by min along the path,
/// and echoed by the receiver (RCP, the queue-length-based protocol, JetMax's g).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RateHeader {
    /// Sender's current rate or desired rate, bits/s.
    pub desired: f64,
    /// Rate allowed by the path so far, bits/s (min-combined).
    pub allowed: f64,
    /// Sender's RTT estimate, seconds (carried for routers that average it).
    pub rtt: f64,
    /// A per-hop counter (hops traversed), used by membership schemes.
    pub hops: u8,
    /// Congestion bit (OR-combined).
    pub congested: bool,
}

/// A window-feedback header (XCP): the sender's window and RTT, and the window
/// change routers allow, combined by min along the path and echoed.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WindowHeader {
    /// Sender's congestion window, bytes.
    pub cwnd: f64,
    /// Sender's RTT estimate, seconds (0: none yet).
    pub rtt: f64,
    /// Window change allowed so far, bytes (min-combined; may be negative).
    pub feedback: f64,
}

/// The header of the Kelly / MKC / EMKC family (seed 002, Fig. 18): the price
/// of the most congested router on the path so far (max-combined; Kelly's
/// classic form sums it instead), with that router's identity, feedback
/// sequence number and averaging interval, plus the user's own field `usr`,
/// all echoed by the receiver.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MkcHeader {
    /// Price (loss) value; EMKC's `(X - C)/X` may be negative.
    pub p: f64,
    /// The user's field: its current rate (bits/s, the naive reference) or
    /// the bytes it sent before this packet (the proper reference, eq. 124).
    pub usr: f64,
    /// The stamping router (0: none yet).
    pub id: u32,
    /// The stamping router's feedback sequence number.
    pub seq: u32,
    /// The stamping router's averaging interval Delta, seconds.
    pub delta: f32,
    /// The sender's smoothed RTT, seconds (0: none yet), for routers that
    /// normalise by the largest RTT (EMKC-AVQ's D_max).
    pub rtt: f32,
}

/// JetMax's header (seed 002, Fig. 35b): the fair share and loss of the most
/// congested router so far, hop-count router identities, the proposed
/// (virtual) packet size and the actual inter-packet gap.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JetMaxHeader {
    /// Proposed-rate loss `p+` of the suggested router (max-combined, with the
    /// fair-share tie-break).
    pub p: f64,
    /// Fair share `g+` of the suggested router, bits/s.
    pub g: f64,
    /// Inter-packet gap at the actual rate, `s / x`, seconds.
    pub gap: f32,
    /// Virtual packet size `s x+ / x`, bytes (the proposed rate's share).
    pub size_plus: f32,
    /// Interval counter of the suggested router (duplicate detection).
    pub seq: u16,
    /// R_T: hop number of the sender's true bottleneck (0: none).
    pub rt: u8,
    /// R_C: hop number, incremented by every JetMax router.
    pub rc: u8,
    /// R_S: hop number of the suggested bottleneck (0: none).
    pub rs: u8,
    /// Some router on the path declined the proposed rates of its last
    /// interval (`y+ >= gamma C`): the flags byte of Fig. 35(b).
    pub declined: bool,
}

/// TFRC / PCC header of a data packet (sender to receiver; RFC 5348 section
/// 3.2.1, seed 004 section 5.3). End-to-end: no router reads it, so its
/// family is [`HeaderFamily::None`]. The sequence number (packets, from 0)
/// rides in [`Packet::seq`] and the send timestamp in [`Packet::sent`].
///
/// Precision: every field is exact (`rate` an `f64`, times in picoseconds),
/// so the receiver's RTT sample `t_rcv - echo - offset` is exact.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct TfrcData {
    /// The sender's current send rate (TFRC's allowed rate X, PCC's r_NA),
    /// bytes/s.
    pub rate: f64,
    /// Echo of the send timestamp (`Packet::sent`) of the latest feedback
    /// packet the sender received (zero: none yet).
    pub echo: SimTime,
    /// Time from the sender receiving that feedback to sending this packet.
    pub offset: SimDuration,
    /// The sender's RTT estimate (zero: none yet).
    pub rtt: SimDuration,
}

/// TFRC / PCC feedback header (receiver to sender; RFC 5348 section 3.2.2,
/// seed 004 section 5.3's 40-B control packet). Its family is
/// [`HeaderFamily::None`]. The echoed timestamp of the latest data packet
/// (`t_recvdata`) rides in [`Packet::echo`], the feedback's own send time in
/// [`Packet::sent`].
///
/// Precision: `x_recv` and `allowed` are `f64`; `t_delay` is exact
/// (picoseconds); `p` and `rtt` are `f32` (relative precision 6e-8, far
/// below the estimators' own noise: p's smallest meaningful value is
/// 1/history length and the RTT a smoothed estimate).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct TfrcFeedback {
    /// Receive rate over the last RTT, X_recv, bytes/s.
    pub x_recv: f64,
    /// The rate the receiver allows, bytes/s: PCC's control (`0` = off, a
    /// very large value such as `f64::MAX` = on); TFRC receivers leave it at
    /// `f64::INFINITY` (no limit).
    pub allowed: f64,
    /// Time the receiver held the echoed data packet before sending this
    /// feedback (t_delay).
    pub t_delay: SimDuration,
    /// Loss-event rate p (0: no loss event yet).
    pub p: f32,
    /// The receiver's smoothed RTT, seconds (0: none yet).
    pub rtt: f32,
}

/// The SACK option of an ACK (RFC 2018): up to [`SackBlocks::MAX`] blocks of
/// data received above the cumulative ACK, the first the block holding the
/// segment that triggered the ACK, the others the most recently reported.
/// Each block is `[start, end)` stored as offsets from the ACK's cumulative
/// acknowledgement (`Packet::ack`), so three fit in 24 bytes (RFC 2018 section
/// 3: three blocks when the timestamp option is in use, as here).
///
/// Where it rides: in the ACK's header field ([`CcHeader::Sack`]) when the
/// flow's controller carries no congestion header; otherwise that header's
/// echo takes the option space and only the first block is carried, packed
/// into the ACK's otherwise unused `seq` ([`SackBlocks::first_word`]), as a
/// real TCP carries fewer blocks when other options fill its 40 bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    /// Blocks in use (0 ..= [`SackBlocks::MAX`]).
    len: u8,
    /// `(start - ack, end - ack)` of each block in use.
    blocks: [(u32, u32); 3],
}

impl SackBlocks {
    /// Blocks an ACK carries at most.
    pub const MAX: usize = 3;

    /// Append block `[start, end)` of an ACK acknowledging `ack`; false (and
    /// nothing added) when the option is full, the block is empty or not above
    /// `ack`, or it lies more than 4 GiB above it.
    pub fn push(&mut self, ack: u64, start: u64, end: u64) -> bool {
        if usize::from(self.len) >= Self::MAX || start < ack || end <= start {
            return false;
        }
        let (Ok(s), Ok(e)) = (u32::try_from(start - ack), u32::try_from(end - ack)) else {
            return false;
        };
        self.blocks[usize::from(self.len)] = (s, e);
        self.len += 1;
        true
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// True when no block is carried.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first block packed in one word, `start - ack` in the high half and
    /// `end - ack` in the low half; 0 when there is none (a block's end
    /// offset is never 0).
    pub fn first_word(&self) -> u64 {
        if self.len == 0 {
            return 0;
        }
        let (s, e) = self.blocks[0];
        (u64::from(s) << 32) | u64::from(e)
    }

    /// The one block a [`SackBlocks::first_word`] carries (none for 0).
    pub fn from_word(word: u64) -> SackBlocks {
        let mut b = SackBlocks::default();
        let (s, e) = ((word >> 32) as u32, word as u32);
        if e > s {
            b.blocks[0] = (s, e);
            b.len = 1;
        }
        b
    }

    /// The blocks as absolute `[start, end)` byte ranges of an ACK
    /// acknowledging `ack`, in the order carried.
    pub fn ranges(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..usize::from(self.len)]
            .iter()
            .map(move |&(s, e)| (ack + u64::from(s), ack + u64::from(e)))
    }
}

/// The congestion-control header a packet carries; its variant is the header
/// family of the flow's controller. Build-time validation checks that every link
/// algorithm on a flow's path understands the family it carries.
///
/// Families are added here as the protocols that need them are implemented; each is
/// a small `Copy` struct so that [`Packet`] stays within its size budget.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum CcHeader {
    /// No congestion header (TCP-family controllers, non-adaptive sources).
    #[default]
    None,
    /// Scalar price feedback.
    Price(PriceHeader),
    /// Explicit rate feedback.
    Rate(RateHeader),
    /// Explicit window feedback (XCP).
    Window(WindowHeader),
    /// Kelly / MKC / EMKC price feedback.
    Mkc(MkcHeader),
    /// JetMax fair-share feedback.
    JetMax(JetMaxHeader),
    /// Not a congestion-control family: the SACK option on an ACK of a flow
    /// whose controller carries no header (`tcp.sack`), in the place the echo
    /// of a header would take. Its family is [`HeaderFamily::None`].
    Sack(SackBlocks),
    /// Not read by routers: a TFRC / PCC data packet's header. Its family is
    /// [`HeaderFamily::None`].
    TfrcData(TfrcData),
    /// Not read by routers: a TFRC / PCC feedback packet's header. Its family
    /// is [`HeaderFamily::None`].
    TfrcFeedback(TfrcFeedback),
}

/// The header family of a [`CcHeader`]: what link algorithms declare they read or write.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeaderFamily {
    /// [`CcHeader::None`].
    None,
    /// [`CcHeader::Price`].
    Price,
    /// [`CcHeader::Rate`].
    Rate,
    /// [`CcHeader::Window`].
    Window,
    /// [`CcHeader::Mkc`].
    Mkc,
    /// [`CcHeader::JetMax`].
    JetMax,
}

impl CcHeader {
    /// The family of this header.
    pub fn family(&self) -> HeaderFamily {
        match self {
            CcHeader::None
            | CcHeader::Sack(_)
            | CcHeader::TfrcData(_)
            | CcHeader::TfrcFeedback(_) => HeaderFamily::None,
            CcHeader::Price(_) => HeaderFamily::Price,
            CcHeader::Rate(_) => HeaderFamily::Rate,
            CcHeader::Window(_) => HeaderFamily::Window,
            CcHeader::Mkc(_) => HeaderFamily::Mkc,
            CcHeader::JetMax(_) => HeaderFamily::JetMax,
        }
    }
}

/// A packet. Sequence numbers count bytes, as in TCP: a data packet covers
/// `[seq, seq + payload)`; an ACK acknowledges everything below `ack`.
///
/// `repr(C)`, the fields a hop reads (flow, route, size, hop) first: a
/// packet in the network lives in a 128-byte slot whose first cache line
/// holds them beside the slot's list fields.
#[derive(Copy, Clone, Debug, PartialEq)]
#[repr(C)]
pub struct Packet {
    /// The flow this packet belongs to.
    pub flow: FlowId,
    /// The route it follows; the route ends at the destination endpoint.
    pub route: RouteId,
    /// Size on the wire, bytes (headers included).
    pub size: u32,
    /// Index of the link it is on (or about to enter) within its route; on a
    /// link's wire (between serializer and far end) already the next link's.
    pub hop: u16,
    /// Data, ACK or control.
    pub kind: PacketKind,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// Flag bits.
    pub flags: Flags,
    /// First byte of the payload (data) or sequence of the packet; on an ACK
    /// of a SACK flow whose header field carries a congestion header, the
    /// first SACK block ([`SackBlocks::first_word`]).
    pub seq: u64,
    /// Cumulative acknowledgement: next byte expected (ACKs).
    pub ack: u64,
    /// Time the sender emitted this packet (timestamp option).
    pub sent: SimTime,
    /// Echoed `sent` of the data packet that triggered this ACK (RTT sampling).
    pub echo: SimTime,
    /// Congestion-control header.
    pub cc: CcHeader,
}

impl Packet {
    /// A packet with the given identity and size and every other field at rest.
    pub fn new(flow: FlowId, route: RouteId, kind: PacketKind, size: u32, sent: SimTime) -> Self {
        Packet {
            flow,
            route,
            hop: 0,
            kind,
            ecn: Ecn::NotEct,
            flags: Flags::NONE,
            size,
            seq: 0,
            ack: 0,
            sent,
            echo: SimTime::ZERO,
            cc: CcHeader::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_blocks_keep_three_blocks_above_the_ack() {
        let mut b = SackBlocks::default();
        assert!(b.is_empty());
        assert!(b.push(1000, 3000, 4000));
        assert!(!b.push(1000, 500, 2000), "below the ACK");
        assert!(!b.push(1000, 2000, 2000), "empty");
        assert!(!b.push(1000, 2000, 1000 + (1u64 << 32)), "beyond 4 GiB");
        assert!(b.push(1000, 6000, 8000));
        assert!(b.push(1000, 1500, 2000));
        assert!(!b.push(1000, 9000, 9500), "full");
        assert_eq!(b.len(), 3);
        let r: Vec<_> = b.ranges(1000).collect();
        assert_eq!(r, [(3000, 4000), (6000, 8000), (1500, 2000)]);
        assert_eq!(CcHeader::Sack(b).family(), HeaderFamily::None);
        let one = SackBlocks::from_word(b.first_word());
        assert_eq!(one.ranges(1000).collect::<Vec<_>>(), [(3000, 4000)]);
        assert!(SackBlocks::from_word(SackBlocks::default().first_word()).is_empty());
    }

    #[test]
    fn tfrc_headers_do_not_grow_the_packet() {
        // The TFRC headers fit the 32 B the largest families already take.
        assert!(std::mem::size_of::<TfrcData>() <= 32);
        assert!(std::mem::size_of::<TfrcFeedback>() <= 32);
        assert_eq!(std::mem::size_of::<CcHeader>(), 40);
        assert_eq!(std::mem::size_of::<Packet>(), 96);
        assert_eq!(
            CcHeader::TfrcFeedback(TfrcFeedback::default()).family(),
            HeaderFamily::None
        );
    }

    #[test]
    fn packet_fits_its_size_budget() {
        // DESIGN.md section 2: a packet is a small Copy struct, <= 96 bytes.
        assert!(
            std::mem::size_of::<Packet>() <= 96,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }

    #[test]
    fn combining_rules_follow_their_names() {
        assert_eq!(Combine::Min.apply(5.0, 3.0), 3.0);
        assert_eq!(Combine::Max.apply(5.0, 3.0), 5.0);
        assert_eq!(Combine::Sum.apply(5.0, 3.0), 8.0);
        assert_eq!(Combine::Or.apply(0.0, 0.0), 0.0);
        assert_eq!(Combine::Or.apply(0.0, 1.0), 1.0);
    }

    #[test]
    fn flags_insert_and_remove_bits() {
        let mut f = Flags::NONE;
        f.insert(Flags::ECE);
        assert!(f.contains(Flags::ECE) && !f.contains(Flags::CWR));
        f.remove(Flags::ECE);
        assert_eq!(f, Flags::NONE);
    }
}
